/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference daemon's boot push, modelled on its code (rshim-user-space
 * src/rshim.c: rshim_boot_write, rshim_write_default, rshim_work_handler,
 * rshim_write_delayed), as the baseline of the boot benchmarks. Three
 * parties, as there:
 *
 *  - "cat": write() calls of 128 KiB (coreutils' buffer); a short write is
 *    re-issued at once with the rest, as cat does;
 *  - the CUSE thread serving write() (rsh_ref_boot_write): cuts the data
 *    into 16 KiB pieces copied into two alternating buffers, hands each to
 *    the worker and blocks on a condition variable until it is done;
 *  - the worker (rsh_ref_worker), the only thread touching registers while
 *    the stream runs: one BOOT_FIFO_COUNT read, then as many words as fit.
 *
 * The worker is the daemon's main thread, whose epoll loop also serves a
 * 1 ms timerfd (RSHIM_TIMER_INTERVAL, rshim.c:34; rshim_timer_run,
 * rshim.c:2483, called once per wake-up at rshim.c:3045-3046, however many
 * periods expired): every 10th tick polls the TM FIFO for network RX
 * (RSHIM_NET_POLL_IDLE_INTERVAL_TICKS, rshim.c:37 and 2508-2519:
 * rshim_net_rx -> rshim_fifo_read -> rshim_fifo_input reads
 * TM_TILE_TO_HOST_STS, rshim.c:1068), every 300th runs the keepalive
 * (rshim_timer_func, rshim.c:2458-2480: SCRATCHPAD3 read and SCRATCHPAD1
 * write in the work handler, rshim.c:1795-1801; the locked-mode check's
 * SCRATCHPAD1 read, rshim.c:2266; rshim_pcie_check's SCRATCHPAD6 read,
 * rshim_pcie.c:780). While the boot file is open the work handler skips
 * the 100 ms ownership and locked-mode work (rshim.c:1828). A piece in
 * progress holds the thread: no tick until it returns. Ticks run on the
 * device's clock (wall time plus the MMIO time the cost model charged),
 * so a push the cost model slows meets the ticks a trapped daemon meets.
 *
 * write_ns (--bench-write-ns, default 0) is the kernel round trip of one
 * write() on the CUSE boot node (cat -> kernel -> the daemon's CUSE
 * thread -> reply), slept per write() call: with a drain-limited DPU each
 * short write costs one, which is what paces the daemon's re-issue loop.
 * The pipe write that wakes the worker's epoll loop is modelled as the
 * condition variable the hand-off uses on its other side.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "rsh_bench_ref.h"
#include "rsh_dev_priv.h"
#include "rsh_mono.h"
#include "rsh_own.h"

#define RSH_REF_BUF (16u * 1024u)      /* BOOT_BUF_SIZE, two of them */
#define RSH_REF_CAT_BLOCK (128u * 1024u)
#define RSH_REF_FULL_SLEEP_US 1000u    /* no progress: sleep 1 ms, §3.6 */
#define RSH_REF_BAD_SLEEP_US 10000u    /* bad count value: 10 ms, §3.3 */
#define RSH_REF_TIMEOUT_S 300.0        /* BOOT_TIMEOUT default, §3.5 */
#define RSH_REF_TICK_S 0.001           /* the main loop's timerfd period */
#define RSH_REF_NET_POLL_TICKS 10u     /* network RX poll when idle */
#define RSH_REF_KEEPALIVE_TICKS 300u   /* 300 ms keepalive */
#define RSH_REF_SLEEP_SLACK_NS 60000u  /* nanosleep's usual overshoot */

/* The shared state of the model; the mutex guards the hand-off fields. */
struct rsh_ref {
	struct rsh_dev *dev;
	pthread_mutex_t mu;
	pthread_cond_t work;           /* CUSE thread -> worker */
	pthread_cond_t done;           /* worker -> CUSE thread */
	const uint8_t *work_buf;       /* NULL: nothing to do */
	size_t work_len;
	size_t work_got;
	bool work_ready;
	bool stop;
	_Alignas(8) uint8_t buf[2][RSH_REF_BUF]; /* CUSE thread only; words */
	double last_progress;          /* CUSE thread only */
	uint64_t bytes;                /* worker: words written * 8 */
	uint64_t short_writes, full_sleeps, bad_reads;
	int nice;                      /* the worker's (the daemon's main thread) */
	uint64_t ticks;                /* worker: timer ticks */
	uint32_t write_ns;             /* cat: kernel round trip per write() */
	const int *cancel;             /* the caller's Ctrl-C flag */
	struct rsh_bench_ref_boot *b;  /* the caller's push: stream, results */
	int clk_ids[2];                /* sim_cost_charged_ns, sim_cost_emu_ns */
};

static const char *const rsh_ref_clk_names[] = { "sim_cost_charged_ns", "sim_cost_emu_ns" };

/* True once the caller's cancel flag is set. */
static bool
rsh_ref_cancelled(const struct rsh_ref *r)
{
	return r->cancel != NULL && __atomic_load_n(r->cancel, __ATOMIC_RELAXED) != 0;
}

/* push_chunk (rshim_write_delayed, BOOT): read the count only when the
 * words known free are used up; a full FIFO returns what was written
 * (a short write); a "not reachable" count value sleeps 10 ms and claims
 * the whole chunk written (§3.3, inferred: the data is lost). */
static size_t
rsh_ref_push_chunk(struct rsh_ref *r, const uint8_t *buf, size_t len)
{
	size_t done = 0;
	int avail = 0;

	while (done < len) {
		unsigned int n;

		if (rsh_ref_cancelled(r))
			break;
		if (avail <= 0) {
			uint64_t c = rsh_dev_rd(r->dev, RSH_BOOT_FIFO_COUNT);

			if (rsh_reg_val_is_bad(c)) {
				r->bad_reads++;
				usleep(RSH_REF_BAD_SLEEP_US);
				return len;
			}
			avail = (int)RSH_BOOT_FIFO_SIZE -
				(int)(c & RSH_BOOT_FIFO_COUNT__MASK) -
				(int)RSH_BOOT_FIFO_RESERVE;
			if (avail <= 0)
				return done;
		}
		/* one 64-bit posted write per word there; a burst here (the
		 * same MMIO, fewer calls into the emulator) */
		n = (unsigned int)RTE_MIN((size_t)avail, (len - done) / 8);
		r->dev->be->ops->write_fifo(r->dev->be,
					    r->dev->map.off[RSH_BOOT_FIFO_DATA],
					    (const uint64_t *)(buf + done), n);
		done += (size_t)n * 8;
		avail -= (int)n;
	}
	return done;
}

/* The device's clock: wall time plus the MMIO time charged, minus the
 * emulator's own CPU (what the cost model's device sees). */
static double
rsh_ref_clock(struct rsh_ref *r)
{
	uint64_t cs[2]; /* charged_ns, emu_ns; 0 on a device without them */
	double t = rsh_mono_s();

	if (rsh_bench_xstats_read(r->dev, r->clk_ids, cs, 2) == 0)
		t += ((double)cs[0] - (double)cs[1]) / 1e9;
	return t;
}

/* One timer tick of the main loop while the boot file is open. */
static void
rsh_ref_tick(struct rsh_ref *r)
{
	r->ticks++;
	if (r->ticks % RSH_REF_NET_POLL_TICKS == 0)
		(void)rsh_dev_rd(r->dev, RSH_TM_TILE_TO_HOST_STS);
	if (r->ticks % RSH_REF_KEEPALIVE_TICKS == 0) {
		(void)rsh_dev_rd(r->dev, RSH_SCRATCHPAD3);
		rsh_dev_wr(r->dev, RSH_SCRATCHPAD1, RSH_OWN_KEEPALIVE);
		(void)rsh_dev_rd(r->dev, RSH_SCRATCHPAD1);
		(void)rsh_dev_rd(r->dev, RSH_SCRATCHPAD6);
	}
}

/* Wait on the worker's condition until work, stop or the next tick (on
 * the device's clock). Called and returns with r->mu held. */
static void
rsh_ref_wait(struct rsh_ref *r, double next)
{
	while (!r->work_ready && !r->stop) {
		double left = next - rsh_ref_clock(r);
		struct timespec ts;

		if (left <= 0)
			return;
		ts = rsh_ns_timespec(rsh_mono_ns() + (uint64_t)(left * 1e9));
		pthread_cond_timedwait(&r->work, &r->mu, &ts);
	}
}

/* The worker: the main loop; ticks, and pieces pushed as they come. */
static void *
rsh_ref_worker(void *arg)
{
	struct rsh_ref *r = arg;
	double next = rsh_ref_clock(r) + RSH_REF_TICK_S, now;

	/* bfb-install's renice reaches the daemon's main thread: the worker */
	if (r->nice > 0)
		(void)setpriority(PRIO_PROCESS, 0, r->nice);
	pthread_mutex_lock(&r->mu);
	for (;;) {
		rsh_ref_wait(r, next);
		if (r->stop)
			break;
		now = rsh_ref_clock(r);
		if (now >= next) { /* one tick however many periods passed */
			pthread_mutex_unlock(&r->mu);
			rsh_ref_tick(r);
			pthread_mutex_lock(&r->mu);
			next += RSH_REF_TICK_S * (1.0 + (double)(uint64_t)((now - next) /
									   RSH_REF_TICK_S));
		}
		if (!r->work_ready)
			continue;
		pthread_mutex_unlock(&r->mu);
		r->work_got = rsh_ref_push_chunk(r, r->work_buf, r->work_len);
		r->bytes += r->work_got;
		pthread_mutex_lock(&r->mu);
		r->work_ready = false;
		pthread_cond_signal(&r->done);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* The kernel round trip of one write() on the CUSE node: sleep most of
 * it, spin the rest (a short nanosleep overshoots by tens of us). */
static void
rsh_ref_write_trip(const struct rsh_ref *r)
{
	double end = rsh_mono_s() + r->write_ns / 1e9;

	if (r->write_ns == 0)
		return;
	if (r->write_ns > 2 * RSH_REF_SLEEP_SLACK_NS) {
		struct timespec ts = { 0, (long)(r->write_ns - RSH_REF_SLEEP_SLACK_NS) };

		nanosleep(&ts, NULL);
	}
	while (rsh_mono_s() < end)
		;
}

/* rshim_write_default (BOOT): hand a piece over and wait for the result. */
static size_t
rsh_ref_hand_off(struct rsh_ref *r, const uint8_t *buf, size_t len)
{
	size_t got;

	pthread_mutex_lock(&r->mu);
	r->work_buf = buf;
	r->work_len = len;
	r->work_ready = true;
	pthread_cond_signal(&r->work);
	while (r->work_ready)
		pthread_cond_wait(&r->done, &r->mu);
	got = r->work_got;
	pthread_mutex_unlock(&r->mu);
	return got;
}

/* rshim_boot_write: one write() call on the boot file (count a multiple
 * of 8 here: the benchmark streams have no partial word). Returns the
 * bytes taken, or -ETIMEDOUT / -EINTR when none were. */
static ssize_t
rsh_ref_boot_write(struct rsh_ref *r, const uint8_t *user, size_t count)
{
	size_t written = 0;
	int which = 0, rc = 0;

	while (count >= 8) {
		size_t n = RTE_MIN((size_t)RSH_REF_BUF, count & ~(size_t)7);
		uint8_t *buf = r->buf[which];
		size_t got;

		if (rsh_ref_cancelled(r)) {
			rc = -EINTR;
			break;
		}
		which ^= 1;
		memcpy(buf, user, n);
		got = rsh_ref_hand_off(r, buf, n);
		if (got == 0) { /* nothing accepted: 1 ms and again (§3.6) */
			if (rsh_mono_s() - r->last_progress > RSH_REF_TIMEOUT_S) {
				rc = -ETIMEDOUT;
				break;
			}
			double t = rsh_mono_s();

			r->full_sleeps++;
			usleep(RSH_REF_FULL_SLEEP_US);
			t = (rsh_mono_s() - t) * 1e9 - RSH_REF_FULL_SLEEP_US * 1e3;
			if (r->b->late != NULL)
				r->b->late(r->b->late_arg, t > 0 ? (uint64_t)t : 0);
			continue;
		}
		count -= got;
		user += got;
		written += got;
		r->last_progress = rsh_mono_s();
		if (got != n)
			break; /* FIFO full mid-piece: a short write */
	}
	return written > 0 || rc == 0 ? (ssize_t)written : rc;
}

/* cat: write() 128 KiB blocks; re-issue the rest of a short write. */
static int
rsh_ref_cat(struct rsh_ref *r, const uint8_t *pat, uint64_t size, double until)
{
	uint64_t off = 0;

	r->last_progress = rsh_mono_s();
	while (off < size) {
		size_t n = (size_t)RTE_MIN(size - off, (uint64_t)RSH_REF_CAT_BLOCK);
		uint64_t at = off % r->b->pat_len;
		ssize_t got;

		n = (size_t)RTE_MIN((uint64_t)n, r->b->pat_len - at);
		if (rsh_mono_s() > until || rsh_ref_cancelled(r))
			return -ECANCELED;
		rsh_ref_write_trip(r);
		got = rsh_ref_boot_write(r, pat + at, n);
		if (got < 0)
			return got == -EINTR ? -ECANCELED : (int)got;
		if ((size_t)got < n)
			r->short_writes++;
		off += (uint64_t)got;
	}
	return 0;
}

/* The open sequence the push needs (§3.2): BOOT_CONTROL=0, reset key,
 * wait until the rshim answers (the emulator's window is short). */
int
rsh_bench_ref_boot_open(struct rsh_dev *dev)
{
	double until = rsh_mono_s() + 5;
	uint64_t v;

	rsh_dev_wr(dev, RSH_BOOT_CONTROL, 0);
	v = rsh_dev_rd(dev, RSH_RESET_CONTROL);
	if (rsh_reg_val_is_bad(v))
		return -EIO;
	v = (v & ~RSH_RESET_CONTROL__KEY_MASK) | RSH_RESET_CONTROL__KEY;
	rsh_dev_wr(dev, RSH_RESET_CONTROL, v);
	while (rsh_reg_val_is_bad(rsh_dev_rd(dev, RSH_BOOT_FIFO_COUNT))) {
		if (rsh_mono_s() > until)
			return -ETIMEDOUT;
		usleep(100);
	}
	return 0;
}

/* Run the model on an opened device: the worker, cat, then the join. */
static int
rsh_ref_stream(struct rsh_ref *r)
{
	pthread_t th;
	int rc;

	if (pthread_create(&th, NULL, rsh_ref_worker, r) != 0)
		return -EAGAIN;
	rc = rsh_ref_cat(r, r->b->pat, r->b->size, r->b->until_s);
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->mu);
	pthread_join(th, NULL);
	r->b->bytes = r->bytes;
	r->b->short_writes = r->short_writes;
	r->b->full_sleeps = r->full_sleeps;
	return rc;
}

/* One push with the reference daemon's model. */
int
rsh_bench_ref_boot_push(struct rsh_dev *dev, struct rsh_bench_ref_boot *b)
{
	static struct rsh_ref r; /* 32 KiB of buffers; pushes run one at a time */
	pthread_condattr_t ca;
	int rc;

	memset(&r, 0, sizeof(r));
	r.dev = dev;
	r.b = b;
	r.cancel = b->cancel;
	r.nice = b->nice;
	r.write_ns = b->write_ns;
	rsh_bench_xstats_ids(dev, rsh_ref_clk_names, r.clk_ids, RTE_DIM(r.clk_ids));
	pthread_mutex_init(&r.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r.work, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&r.done, NULL);
	rc = rsh_ref_stream(&r);
	pthread_cond_destroy(&r.done);
	pthread_cond_destroy(&r.work);
	pthread_mutex_destroy(&r.mu);
	return rc;
}

/* After the push: boot from eMMC again. */
void
rsh_bench_ref_boot_close(struct rsh_dev *dev)
{
	rsh_dev_wr(dev, RSH_BOOT_CONTROL, RSH_BOOT_CONTROL_EMMC);
}
