/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Boot push end to end: the driver core and the emulated BlueField, with
 * faults. The emulator is the judge: its hash of consumed bytes, its
 * overflow count, its BOOT_CONTROL, its log.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <rte_eal.h>

#include "rsh.h"
#include "rsh_bfb_fmt.h"
#include "rsh_bench_ref.h"
#include "rsh_mono.h"
#include "rsh_dev_priv.h"
#include "rsh_sim.h"
#include "rsh_test_eal.h"

/* A generated boot stream: images plus trailing bytes. */
struct rsh_t_stream {
	uint8_t *buf;
	size_t len;
};

/* Build a BFB of ~size bytes with odd image lengths and tail bytes. */
static void
rsh_t_stream_make(struct rsh_t_stream *s, size_t trailing, unsigned int seed)
{
	static const uint32_t lens[] = { 4093, 65536, 300001, 1 << 20, 77 };
	static const uint8_t ids[] = { 1, 3, 5, 62, 63 };
	struct rsh_bfb_wimage w[5];
	uint8_t *data[5];
	uint64_t x = 0x1234567ull + seed;

	for (unsigned int i = 0; i < 5; i++) {
		data[i] = malloc(lens[i]);
		assert_non_null(data[i]);
		for (uint32_t k = 0; k < lens[i]; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			data[i][k] = (uint8_t)(x >> 56);
		}
		w[i] = (struct rsh_bfb_wimage){ .id = ids[i], .data = data[i], .len = lens[i] };
	}
	size_t bfb = rsh_bfb_size(w, 5);

	s->len = bfb + trailing;
	s->buf = malloc(s->len);
	assert_non_null(s->buf);
	assert_int_equal(rsh_bfb_write(w, 5, s->buf, bfb), (long)bfb);
	for (size_t k = bfb; k < s->len; k++)
		s->buf[k] = (uint8_t)(k * 131 + seed);
	for (unsigned int i = 0; i < 5; i++)
		free(data[i]);
}

/* The emulator's hash of the stream zero-padded to 8 bytes. */
static uint64_t
rsh_t_stream_hash(const struct rsh_t_stream *s)
{
	size_t words = (s->len + 7) / 8;
	uint64_t *w = calloc(words, 8);
	uint64_t h;

	assert_non_null(w);
	memcpy(w, s->buf, s->len);
	h = rsh_sim_hash_words(RSH_SIM_HASH_INIT, w, words);
	free(w);
	return h;
}

/* A device, its poller, and a push result. */
struct rsh_t_run {
	struct rsh_dev *dev;
	struct rsh_poller *p;
	struct rsh_boot_stats st;
	struct rsh_sim_stats sim;
	double seconds;
	int rc;
	char err[256];
};

/* Monotonic seconds. */
static double
rsh_t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The run a test has open, closed by the teardown even after a failure. */
static struct rsh_t_run *rsh_t_cur;

/* Open devstr with a running poller. */
static void
rsh_t_open(struct rsh_t_run *r, const char *devstr)
{
	memset(r, 0, sizeof(*r));
	rsh_t_cur = r;
	assert_int_equal(rsh_dev_open(devstr, NULL, &r->dev), 0);
	assert_int_equal(rsh_poller_create(NULL, &r->p), 0);
	assert_int_equal(rsh_poller_add(r->p, r->dev), 0);
	assert_int_equal(rsh_poller_start(r->p), 0);
}

/* Close everything. */
static void
rsh_t_close(struct rsh_t_run *r)
{
	rsh_poller_destroy(r->p);
	rsh_dev_close(r->dev);
	r->p = NULL;
	r->dev = NULL;
	rsh_t_cur = NULL;
}

/* Per-test teardown: close what a failed test left open. */
static int
rsh_t_test_teardown(void **state)
{
	(void)state;
	if (rsh_t_cur != NULL)
		rsh_t_close(rsh_t_cur);
	return 0;
}

/* Push a stream in uneven pieces; record result, stats and the error line. */
static void
rsh_t_push(struct rsh_t_run *r, const struct rsh_t_stream *s,
	   const struct rsh_boot_opts *o)
{
	struct rsh_boot *b;
	size_t off = 0, step = 12345;
	double t0 = rsh_t_now();
	int rc;

	assert_int_equal(rsh_boot_open(r->dev, r->p, o, &b), 0);
	rc = 0;
	while (off < s->len && rc == 0) {
		size_t n = s->len - off < step ? s->len - off : step;

		rc = rsh_boot_write(b, s->buf + off, n);
		off += n;
		step = step * 3 % 200000 + 1;
	}
	r->rc = rsh_boot_close(b, &r->st);
	if (r->rc == 0)
		r->rc = rc;
	snprintf(r->err, sizeof(r->err), "%s", rsh_last_error());
	r->seconds = rsh_t_now() - t0;
	assert_int_equal(rsh_sim_stats_get(r->dev->be, &r->sim), 0);
	if (r->sim.boot_overflows || r->rc)
		print_message("%s: rc %d, %" PRIu64 " overflows, %" PRIu64 " consumed of %zu\n",
			      r->dev->name, r->rc, r->sim.boot_overflows,
			      r->sim.consumed_bytes, s->len);
}

/*
 * A slow device still holds up to a FIFO of words after the push ends:
 * let it drain (its clock advances on register accesses), 2 s at most.
 */
static void
rsh_t_wait_consumed(struct rsh_t_run *r, uint64_t bytes)
{
	double until = rsh_t_now() + 2.0;
	uint64_t v;

	do {
		assert_int_equal(rsh_dev_reg_read(r->dev, RSH_FABRIC_DIM, &v), 0);
		assert_int_equal(rsh_sim_stats_get(r->dev->be, &r->sim), 0);
	} while (r->sim.consumed_bytes < bytes && rsh_t_now() < until);
}

/* Default options with a short reset delay. */
static void
rsh_t_opts(struct rsh_boot_opts *o, uint64_t timeout_ms)
{
	rsh_boot_opts_default(o);
	o->stall_timeout_ms = timeout_ms;
}

/* A clean push on one generation: hash, overflows, MMIO/MiB, log. */
static void
rsh_t_clean_push(const char *devstr)
{
	struct rsh_t_stream s;
	struct rsh_t_run r;
	struct rsh_boot_opts o;
	struct rsh_scratchlog_rec recs[32];
	/* one status read per credit; on BF1 one every 15 writes (its
	 * posted-write drain rule, hardware-notes §1.9) */
	double mib, limit = 1.01 * 131072.0 / (strstr(devstr, "bf1") ? 15.0 : 509.0);
	bool ready = false;
	int n;

	rsh_t_stream_make(&s, 3 * 1048576 + 5, 7);
	rsh_t_opts(&o, 10000);
	rsh_t_open(&r, devstr);
	rsh_t_push(&r, &s, &o);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.sim.consumed_bytes, (s.len + 7) & ~(size_t)7);
	assert_true(r.sim.hash == rsh_t_stream_hash(&s));
	assert_int_equal(r.sim.boot_overflows, 0);
	assert_int_equal(r.sim.images_ok, 5);
	assert_int_equal(r.sim.images_bad, 0);
	assert_true(r.sim.booted);
	assert_int_equal(r.sim.boot_control, 1);
	assert_true(r.sim.resets >= 1);
	/* hardware-notes §3.2 notes: WDOG1 is written on BF1/BF2 only. */
	if (strstr(devstr, "bf3") != NULL)
		assert_int_equal(r.sim.wdog_writes, 0);
	else
		assert_true(r.sim.wdog_writes >= 1);
	mib = r.st.bytes_pushed / 1048576.0;
	assert_int_equal(r.st.bytes_pushed, (s.len + 7) & ~(size_t)7);
	print_message("%s: %.1f MMIO reads/MiB (limit %.1f), %.1f writes/MiB\n",
		      devstr, r.st.mmio.reads / mib, limit, r.st.mmio.writes / mib);
	assert_true(r.st.mmio.reads / mib <= limit);
	n = rsh_scratchlog_read(r.dev, false, recs, 32);
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		ready |= strstr(recs[i].text, "DPU is ready") != NULL;
	assert_true(ready);
	rsh_t_close(&r);
	free(s.buf);
}

/* End to end on every generation. */
static void
test_push_bf1(void **state)
{
	(void)state;
	rsh_t_clean_push("sim:bf1");
}

static void
test_push_bf2(void **state)
{
	(void)state;
	rsh_t_clean_push("sim:bf2");
}

static void
test_push_bf3(void **state)
{
	(void)state;
	rsh_t_clean_push("sim:bf3");
}

/* A slow device: the rate-aware wait never overflows and never fails. */
static void
test_push_drain_limited(void **state)
{
	struct rsh_t_stream s;
	struct rsh_t_run r;
	struct rsh_boot_opts o;

	(void)state;
	rsh_t_stream_make(&s, 0, 3);
	rsh_t_opts(&o, 10000);
	rsh_t_open(&r, "sim:bf2,drain=40M");
	rsh_t_push(&r, &s, &o);
	assert_int_equal(r.rc, 0);
	rsh_t_wait_consumed(&r, (s.len + 7) & ~(size_t)7);
	assert_true(r.sim.hash == rsh_t_stream_hash(&s));
	assert_int_equal(r.sim.boot_overflows, 0);
	assert_true(r.st.fifo_full_waits > 0);
	assert_true(r.st.sleeps > 0);
	rsh_t_close(&r);
	free(s.buf);
}

/* A stall shorter than the timeout resumes and completes. */
static void
test_stall_resumes(void **state)
{
	struct rsh_t_stream s;
	struct rsh_t_run r;
	struct rsh_boot_opts o;

	(void)state;
	rsh_t_stream_make(&s, 1048576, 4);
	rsh_t_opts(&o, 3000);
	rsh_t_open(&r, "sim:bf3,stall=400ms@1M");
	rsh_t_push(&r, &s, &o);
	assert_int_equal(r.rc, 0);
	rsh_t_wait_consumed(&r, (s.len + 7) & ~(size_t)7);
	assert_true(r.sim.hash == rsh_t_stream_hash(&s));
	assert_int_equal(r.sim.stalls, 1);
	print_message("stalls %" PRIu64 " stall_ns %" PRIu64 " sim stalls %" PRIu64 " %.3f s\n", r.st.stalls, r.st.stall_ns, r.sim.stalls, r.seconds);
	assert_true(r.st.stalls >= 1);
	assert_true(r.st.stall_ns >= 300000000ull);
	assert_int_equal(r.sim.boot_overflows, 0);
	rsh_t_close(&r);
	free(s.buf);
}

/* A stall longer than the timeout: -ETIMEDOUT, message, BOOT_CONTROL=1. */
static void
test_stall_times_out(void **state)
{
	struct rsh_t_stream s;
	struct rsh_t_run r;
	struct rsh_boot_opts o;

	(void)state;
	rsh_t_stream_make(&s, 1048576, 5);
	rsh_t_opts(&o, 300);
	rsh_t_open(&r, "sim:bf3,stall=30s@512K");
	rsh_t_push(&r, &s, &o);
	print_message("rc %d err: %s (%.3f s)\n", r.rc, r.err, r.seconds);
	assert_int_equal(r.rc, -ETIMEDOUT);
	assert_non_null(strstr(r.err, "boot timeout"));
	assert_non_null(strstr(r.err, "sim:bf3"));
	assert_int_equal(r.sim.boot_control, 1);
	assert_true(r.seconds < 5.0);
	assert_false(r.sim.booted);
	rsh_t_close(&r);
	free(s.buf);
}

/* A 1 MiB stream pushed to devstr with a 300 s stall timeout: a fault
 * the device string injects must end it long before that. */
static void
rsh_t_push_faulted(struct rsh_t_run *r, struct rsh_t_stream *s, const char *devstr)
{
	struct rsh_boot_opts o;

	rsh_t_stream_make(s, 1048576, 6);
	rsh_t_opts(&o, 300000);
	rsh_t_open(r, devstr);
	rsh_t_push(r, s, &o);
}

/* Surprise removal mid-push: -ENODEV quickly, no hang. */
static void
test_gone(void **state)
{
	struct rsh_t_stream s;
	struct rsh_t_run r;

	(void)state;
	rsh_t_push_faulted(&r, &s, "sim:bf2,gone@1M");
	assert_int_equal(r.rc, -ENODEV);
	assert_non_null(strstr(r.err, "disappeared"));
	assert_true(r.sim.gone);
	assert_true(r.seconds < 5.0);
	rsh_t_close(&r);
	free(s.buf);
}

/* The ARM resets on its own mid-push (armreset@): the push fails with
 * -EIO and a line saying so, BOOT_CONTROL is restored, no hang. */
static void
test_armreset(void **state)
{
	struct rsh_t_stream s;
	struct rsh_t_run r;

	(void)state;
	rsh_t_push_faulted(&r, &s, "sim:bf3,armreset@64K");
	assert_int_equal(r.rc, -EIO);
	assert_non_null(strstr(r.err, "unreachable during the push (the ARM was reset?)"));
	assert_non_null(strstr(r.err, "BOOT_CONTROL restored"));
	assert_int_equal(r.sim.arm_resets, 1);
	assert_false(r.sim.gone);
	rsh_t_close(&r);
	free(s.buf);
}

/* Cancel mid-push: -ECANCELED and BOOT_CONTROL restored. */
static void
test_cancel(void **state)
{
	struct rsh_t_stream s;
	struct rsh_t_run r;
	struct rsh_boot_opts o;
	struct rsh_boot *b;

	(void)state;
	rsh_t_stream_make(&s, 0, 8);
	rsh_t_opts(&o, 10000);
	rsh_t_open(&r, "sim:bf3,drain=1M");
	assert_int_equal(rsh_boot_open(r.dev, r.p, &o, &b), 0);
	assert_int_equal(rsh_boot_write(b, s.buf, 64 * 1024), 0);
	rsh_boot_cancel(b);
	assert_int_equal(rsh_boot_close(b, &r.st), -ECANCELED);
	assert_non_null(strstr(rsh_last_error(), "cancelled"));
	assert_int_equal(rsh_sim_stats_get(r.dev->be, &r.sim), 0);
	assert_int_equal(r.sim.boot_control, 1);
	rsh_t_close(&r);
	free(s.buf);
}

/*
 * The benchmarks' model of the reference daemon's push (lib/bench) moves
 * the same bytes: the baseline the boot table compares against is a
 * complete, in-order stream, with nothing lost to an overflowing FIFO.
 */
static void
test_reference_model(void **state)
{
	struct rsh_t_stream s;
	struct rsh_bench_ref_boot rb = { 0 };
	struct rsh_sim_stats sim;
	struct rsh_dev *dev;
	size_t words;
	uint8_t *pad;

	(void)state;
	rsh_t_stream_make(&s, 100, 9);
	words = (s.len + 7) / 8;
	pad = calloc(words, 8); /* zero-padded to whole words, as hashed */
	assert_non_null(pad);
	memcpy(pad, s.buf, s.len);
	rb.pat = pad;
	rb.pat_len = rb.size = words * 8;
	rb.until_s = rsh_mono_s() + 60;
	assert_int_equal(rsh_dev_open("sim:bf3", NULL, &dev), 0);
	assert_int_equal(rsh_bench_ref_boot_open(dev), 0);
	assert_int_equal(rsh_bench_ref_boot_push(dev, &rb), 0);
	rsh_bench_ref_boot_close(dev);
	assert_int_equal(rb.bytes, words * 8);
	assert_int_equal(rsh_sim_stats_get(dev->be, &sim), 0);
	assert_true(sim.hash == rsh_t_stream_hash(&s));
	assert_int_equal(sim.boot_overflows, 0);
	rsh_dev_close(dev);
	free(pad);
	free(s.buf);
}

/* One push at a time; control reads refused while it runs. */
static void
test_busy(void **state)
{
	struct rsh_t_run r;
	struct rsh_boot_opts o;
	struct rsh_boot *b, *b2;
	uint64_t v;

	(void)state;
	rsh_t_opts(&o, 10000);
	rsh_t_open(&r, "sim:bf3");
	assert_int_equal(rsh_boot_open(r.dev, r.p, &o, &b), 0);
	assert_int_equal(rsh_boot_open(r.dev, r.p, &o, &b2), -EBUSY);
	assert_int_equal(rsh_dev_reg_read(r.dev, RSH_SCRATCHPAD1, &v), -EBUSY);
	assert_int_equal(rsh_boot_close(b, NULL), 0);
	assert_int_equal(rsh_dev_reg_read(r.dev, RSH_BOOT_CONTROL, &v), 0);
	assert_int_equal(v & 3, 1);
	rsh_t_close(&r);
}

/* A corrupt stream pushed anyway: the emulated firmware logs an ERR. */
static void
test_corrupt_stream_logged(void **state)
{
	struct rsh_t_stream s;
	struct rsh_t_run r;
	struct rsh_boot_opts o;
	struct rsh_scratchlog_rec recs[32];
	bool err = false;
	int n;

	(void)state;
	rsh_t_stream_make(&s, 0, 10);
	s.buf[24 + 100] ^= 0x40; /* inside the first image's data */
	rsh_t_opts(&o, 10000);
	rsh_t_open(&r, "sim:bf1");
	rsh_t_push(&r, &s, &o);
	assert_int_equal(r.rc, 0);
	assert_true(r.sim.stream_error);
	assert_false(r.sim.booted);
	n = rsh_scratchlog_read(r.dev, false, recs, 32);
	for (int i = 0; i < n; i++)
		err |= recs[i].level == 2;
	assert_true(err);
	rsh_t_close(&r);
	free(s.buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_push_bf1, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_push_bf2, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_push_bf3, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_push_drain_limited, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_stall_resumes, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_stall_times_out, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_gone, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_armreset, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_cancel, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_reference_model, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_busy, rsh_t_test_teardown),
		cmocka_unit_test_teardown(test_corrupt_stream_logged, rsh_t_test_teardown),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
