/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The boot engine's credit arithmetic (hardware-notes §3.3, §D6.1): one
 * BOOT_FIFO_COUNT read allows depth - count - 3 words, the depth 512 words
 * (1024 on BlueField-3). Edge cases against a mock FIFO whose count stays
 * where the test put it (the device takes every word at once):
 *  - count 0: the longest run of writes between two count reads is the
 *    full credit, 509 or 1021 words, and every word arrives once;
 *  - count = depth - 3, depth - 1, and the field's maximum 1023 (a count
 *    above the credit must give 0, not a wrapped-around huge credit):
 *    no word is written in RSH_T_LOOKS count reads, then a cancel (a mock
 *    hook at that read) ends the push;
 *  - count = depth - 4: a credit of exactly 1 word per read;
 *  - a DPU that takes nothing for 20 s, then everything: the push reports
 *    its real length (cycles to ns in 128 bits: the 64-bit product wraps
 *    after about 7 s at 2.5 GHz).
 * On the virtual clock, the poll loop driven by the waiting test thread.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rsh_boot_priv.h"
#include "rsh_poll_priv.h"
#include "rsh_t_mock.h"
#include "rsh_test_eal.h"
#include "rsh_test_time.h"

/* Count reads the engine makes, with no credit, before the cancel. */
#define RSH_T_LOOKS 20u

static int rsh_t_cancel;
/* BOOT_FIFO_COUNT read number at which the hook cancels (0: never). */
static uint64_t rsh_t_cancel_at_read;
/* Until this clock time the count reads rsh_t_full_count (0: never). */
static uint64_t rsh_t_full_until;
static uint64_t rsh_t_full_count;

/* Count reads: cancel (the caller's flag) at read rsh_t_cancel_at_read;
 * a full FIFO until rsh_t_full_until. */
static bool
rsh_t_count_rd(struct rsh_t_mock *m, uint32_t off, uint64_t *v)
{
	if (off != m->map.off[RSH_BOOT_FIFO_COUNT])
		return false;
	if (rsh_t_cancel_at_read != 0 && m->count_reads >= rsh_t_cancel_at_read)
		__atomic_store_n(&rsh_t_cancel, 1, __ATOMIC_RELAXED);
	if (rsh_now() < rsh_t_full_until) {
		*v = rsh_t_full_count;
		return true;
	}
	return false;
}

static const struct rsh_t_hooks rsh_t_count_hooks = { .rd = rsh_t_count_rd };

struct rsh_t_env {
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m;
	struct rsh_boot_opts o;
	uint32_t depth;
};

/* A device on a driven poller, its FIFO count fixed at count. */
static void
rsh_t_env_open(struct rsh_t_env *e, const char *devstr, uint32_t count)
{
	static const struct rsh_open_opts oo = { .own_wait_ms = 1 };

	__atomic_store_n(&rsh_t_cancel, 0, __ATOMIC_RELAXED);
	rsh_t_cancel_at_read = 0;
	rsh_t_full_until = 0;
	memset(&rsh_t_next, 0, sizeof(rsh_t_next));
	rsh_t_next.hooks = &rsh_t_count_hooks;
	rsh_t_next.set_sp1 = true; /* stale, no owner: short ownership window */
	rsh_t_next.sp1 = 0x5eed;
	assert_int_equal(rsh_dev_open(devstr, &oo, &e->dev), 0);
	e->m = rsh_t_mock_of(e->dev);
	e->depth = strcmp(devstr, "mock:bf3") == 0 ? RSH_BF3_BOOT_FIFO_DEPTH : RSH_BOOT_FIFO_SIZE;
	*rsh_t_reg(e->m, RSH_BOOT_FIFO_COUNT) = count;
	assert_int_equal(rsh_poller_create(NULL, &e->p), 0);
	assert_int_equal(rsh_poller_add(e->p, e->dev), 0);
	assert_int_equal(rsh_poller_start_driven(e->p), 0);
	rsh_boot_opts_default(&e->o);
	e->o.reset_delay_ms = 1;
	e->o.stall_timeout_ms = 60000;
	e->o.cancel_flag = &rsh_t_cancel;
}

static void
rsh_t_env_close(struct rsh_t_env *e)
{
	assert_int_equal(e->m->overlaps, 0);
	rsh_poller_destroy(e->p);
	rsh_dev_close(e->dev);
}

/* Push words 64-bit words (distinct values) and close; 0 or -errno. */
static int
rsh_t_push(struct rsh_t_env *e, unsigned int words, struct rsh_boot_stats *st)
{
	uint64_t *buf = calloc(words, sizeof(*buf));
	struct rsh_boot *b;
	int rc;

	assert_non_null(buf);
	for (unsigned int i = 0; i < words; i++)
		buf[i] = 0x1000 + i;
	assert_int_equal(rsh_boot_open(e->dev, e->p, &e->o, &b), 0);
	assert_int_equal(rsh_boot_write(b, buf, words * sizeof(*buf)), 0);
	rc = rsh_boot_close(b, st);
	free(buf);
	return rc;
}

/* Count 0: runs of exactly the full credit, every word once. */
static void
rsh_t_full_credit(const char *devstr)
{
	struct rsh_boot_stats st;
	struct rsh_t_env e;
	unsigned int credit, words;

	rsh_t_env_open(&e, devstr, 0);
	credit = e.depth - RSH_BOOT_FIFO_RESERVE;
	words = 3 * credit + 5;
	assert_int_equal(rsh_t_push(&e, words, &st), 0);
	assert_int_equal(e.m->fifo_run_max, credit);
	assert_int_equal(e.m->fifo_words, st.bytes_pushed / 8);
	assert_true(st.bytes_pushed >= words * 8ull);
	/* at least one count read per credit's worth */
	assert_true(e.m->count_reads >= (e.m->fifo_words + credit - 1) / credit);
	rsh_t_env_close(&e);
}

static void
test_full_credit_bf2(void **state)
{
	(void)state;
	rsh_t_full_credit("mock:bf2");
}

static void
test_full_credit_bf3(void **state)
{
	(void)state;
	rsh_t_full_credit("mock:bf3");
}

/* A count at or above the credit: the engine looks at the count
 * RSH_T_LOOKS times with a whole chunk to send and writes nothing; the
 * cancel at that read ends the push. */
static void
rsh_t_no_credit(const char *devstr, uint32_t count)
{
	static uint8_t chunk[RSH_BOOT_CHUNK];
	struct rsh_t_env e;
	struct rsh_boot *b;
	uint64_t reads;

	print_message("  %s count %u\n", devstr, count);
	rsh_t_env_open(&e, devstr, count);
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), 0);
	/* A full chunk is queued at once; the close drives the loop. */
	assert_int_equal(rsh_boot_write(b, chunk, sizeof(chunk)), 0);
	reads = e.m->count_reads;
	rsh_t_cancel_at_read = reads + RSH_T_LOOKS;
	assert_int_equal(rsh_boot_close(b, NULL), -ECANCELED);
	assert_true(e.m->count_reads >= reads + RSH_T_LOOKS);
	assert_int_equal(e.m->fifo_words, 0);
	rsh_t_env_close(&e);
}

static void
test_no_credit(void **state)
{
	(void)state;
	rsh_t_no_credit("mock:bf2", RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE);
	rsh_t_no_credit("mock:bf2", RSH_BOOT_FIFO_SIZE - 1);
	rsh_t_no_credit("mock:bf2", RSH_BOOT_FIFO_COUNT__MASK);
	rsh_t_no_credit("mock:bf3", RSH_BF3_BOOT_FIFO_DEPTH - RSH_BOOT_FIFO_RESERVE);
	rsh_t_no_credit("mock:bf3", RSH_BOOT_FIFO_COUNT__MASK);
}

/* A credit of one word per read: runs of 1, every word delivered. */
static void
rsh_t_one_credit(const char *devstr)
{
	struct rsh_boot_stats st;
	struct rsh_t_env e;
	uint32_t depth = strcmp(devstr, "mock:bf3") == 0 ? RSH_BF3_BOOT_FIFO_DEPTH :
							    RSH_BOOT_FIFO_SIZE;

	rsh_t_env_open(&e, devstr, depth - RSH_BOOT_FIFO_RESERVE - 1);
	assert_int_equal(rsh_t_push(&e, 64, &st), 0);
	assert_int_equal(e.m->fifo_run_max, 1);
	assert_int_equal(e.m->fifo_words, st.bytes_pushed / 8);
	assert_true(e.m->count_reads >= e.m->fifo_words);
	rsh_t_env_close(&e);
}

static void
test_one_credit(void **state)
{
	(void)state;
	rsh_t_one_credit("mock:bf2");
	rsh_t_one_credit("mock:bf3");
}

/* The DPU takes nothing for 20 s of clock time, then everything: the
 * push completes and reports 20 s (not a wrapped 64-bit product). */
static void
test_long_stall_elapsed(void **state)
{
	static uint8_t chunk[RSH_BOOT_CHUNK];
	struct rsh_boot_stats st;
	struct rsh_t_env e;
	struct rsh_boot *b;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 0);
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), 0);
	rsh_t_full_count = e.depth - RSH_BOOT_FIFO_RESERVE;
	rsh_t_full_until = rsh_now() + rsh_ms_cyc(20000);
	assert_int_equal(rsh_boot_write(b, chunk, sizeof(chunk)), 0);
	assert_int_equal(rsh_boot_close(b, &st), 0);
	assert_int_equal(e.m->fifo_words, st.bytes_pushed / 8);
	assert_true(st.bytes_pushed >= sizeof(chunk));
	assert_in_range(st.elapsed_ns, 20000000000ull, 20100000000ull);
	rsh_t_env_close(&e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		RSH_TEST_VIRTUAL(test_full_credit_bf2),
		RSH_TEST_VIRTUAL(test_full_credit_bf3),
		RSH_TEST_VIRTUAL(test_no_credit),
		RSH_TEST_VIRTUAL(test_one_credit),
		RSH_TEST_VIRTUAL(test_long_stall_elapsed),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
