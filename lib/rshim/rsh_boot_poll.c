/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Boot engine, poll-lcore side: credit-based streaming into the boot FIFO
 * (hardware-notes §3.3) with a drain-rate-aware wait. (The reference
 * daemon's refill, the benchmarks' baseline, is modelled in lib/bench.)
 * Never sleeps
 * itself: it tells the poll loop how long it may sleep.
 */
#include <errno.h>

#include <rte_cycles.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#define RSH_LOGTYPE rsh_logtype_boot
#include "rsh_boot_priv.h"
#include "rsh_log.h"

/* Rate window: at least this long before a new drain-rate sample. */
#define RSH_BOOT_RATE_WINDOW_NS 20000ull
/* Back-off when the drain rate is unknown (e.g. a stalled DPU): start,
 * and ceiling (the poll loop applies its own ceiling too). */
#define RSH_BOOT_BACKOFF_START_NS 10000ull
#define RSH_BOOT_BACKOFF_MAX_NS 1000000ull
/* Below this the wait is not worth it: write what fits now. */
#define RSH_BOOT_SPIN_NS 1000ull
/* Below this drain time of the queued words the device counts as fast,
 * and is topped up once half the credit is free. */
#define RSH_BOOT_FAST_DRY_NS 50000ull
/*
 * The longest wait between two count reads while the push runs. The wait
 * is derived from the observed drain rate; a device that drains a word at
 * a time would otherwise stretch each wait by the last one (the rate
 * sample spans the previous wait), so a push could stop looking for
 * minutes. 10 ms keeps a stalled device at 100 reads a second.
 */
#define RSH_BOOT_WAIT_MAX_NS 10000000ull

/* Publish the end of the job and let go of it (the last touch of b). */
static unsigned int
rsh_boot_finish(struct rsh_boot *b, uint64_t now, int rc)
{
	void *obj;

	if (b->cur != NULL) {
		rte_ring_enqueue(b->free, b->cur);
		b->cur = NULL;
	}
	while (rte_ring_dequeue(b->to_poll, &obj) == 0)
		rte_ring_enqueue(b->free, obj);
	if (rc < 0)
		__atomic_store_n(&b->status, rc, __ATOMIC_RELEASE);
	__atomic_store_n(&b->end_tsc, now, __ATOMIC_RELEASE);
	/* From here on the poll loop does not see the job any more. */
	__atomic_store_n(&rsh_dev_boot_state(b->dev)->push, NULL, __ATOMIC_RELEASE);
	/* Pairs with the acquire load in rsh_boot_wait_finished(). */
	__atomic_store_n(&b->finished, 1, __ATOMIC_RELEASE);
	return 1;
}

/* Record device progress; account a stall if the gap was long. */
static void
rsh_boot_progress(struct rsh_boot *b, uint64_t now)
{
	uint64_t gap = rsh_cyc_ns(now - b->last_progress);

	if (gap >= RSH_BOOT_STALL_NS) {
		__atomic_store_n(&b->stalls, b->stalls + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&b->stall_ns, b->stall_ns + gap, __ATOMIC_RELAXED);
	}
	b->last_progress = now;
	b->waiting = false;
	b->backoff_ns = 0;
}

/* Take the next chunk from the main lcore; false when there is none. */
static bool
rsh_boot_next_chunk(struct rsh_boot *b, uint64_t now)
{
	void *obj;

	if (rte_ring_dequeue(b->to_poll, &obj) != 0) {
		b->starved = true;
		return false;
	}
	b->cur = obj;
	b->cur_word = 0;
	b->cur_words = b->cur->len / 8;
	if (b->starved) {
		/* Waiting for the file is not the device's stall. */
		b->last_progress = now;
		b->starved = false;
	}
	return true;
}

/* Hand a finished chunk back to the pool. */
static void
rsh_boot_chunk_done(struct rsh_boot *b)
{
	rte_ring_enqueue(b->free, b->cur);
	b->cur = NULL;
}

/* Fold the words drained since the last count read into the rate. */
static void
rsh_boot_rate_sample(struct rsh_boot *b, uint64_t now, uint32_t count)
{
	uint32_t drained;

	if (!b->have_ref) {
		b->have_ref = true;
		b->ref_tsc = now;
		b->last_count = count;
		return;
	}
	drained = b->last_count > count ? b->last_count - count : 0;
	if (drained > 0)
		rsh_boot_progress(b, now);
	b->win_drained += drained;
	b->win_cycles += now - b->ref_tsc;
	b->ref_tsc = now;
	b->last_count = count;
	if (b->win_cycles < rsh_ns_cyc(RSH_BOOT_RATE_WINDOW_NS))
		return;
	double r = (double)b->win_drained / (double)b->win_cycles;

	b->rate = b->rate == 0.0 ? r : (b->rate + r) / 2;
	b->win_drained = 0;
	b->win_cycles = 0;
}

/* One BOOT_FIFO_COUNT read: credit and rate; <0 when the device is bad. */
static int
rsh_boot_read_count(struct rsh_boot *b, uint64_t now, uint32_t *count)
{
	uint64_t v = rsh_dev_rd(b->dev, RSH_BOOT_FIFO_COUNT);
	int rc = rsh_dev_val_err(v);

	__atomic_store_n(&b->count_reads, b->count_reads + 1, __ATOMIC_RELAXED);
	if (rc < 0)
		return rc;
	*count = v & RSH_BOOT_FIFO_COUNT__MASK;
	rsh_boot_rate_sample(b, now, *count);
	b->credit = *count >= b->credit_max ? 0 : b->credit_max - *count;
	return 0;
}

/* Cycles computed from the drain rate, as ns; beyond the longest wait
 * (a nearly stalled device's rate gives any number) it is the longest
 * wait, and the float never overflows the integer. */
static uint64_t
rsh_boot_rate_ns(double cycles)
{
	double max = (double)rsh_ns_cyc(RSH_BOOT_WAIT_MAX_NS);

	return cycles >= max ? RSH_BOOT_WAIT_MAX_NS : rsh_cyc_ns((uint64_t)cycles);
}

/*
 * Decide whether to write now. With a slow device, wait until about half
 * the FIFO is free, but never longer than half the time the device needs
 * to drain what is queued at its observed rate, so the FIFO never runs dry
 * because of us. Returns 0 to write now, else the wait in ns.
 */
static uint64_t
rsh_boot_wait_ns(struct rsh_boot *b, uint32_t count)
{
	uint32_t left = b->cur_words - b->cur_word;
	uint32_t enough = RTE_MIN(b->credit_max / 4, left);
	uint32_t want = RTE_MIN(b->credit_max * 3 / 4, left);
	uint64_t need_ns, dry_ns;

	if (b->credit >= enough)
		return 0;
	/* Waited once and nothing drained since (a wait ends at the next
	 * progress): the device has stalled, and batching gains nothing.
	 * Write what fits, so a FIFO stuck nearly full still moves. */
	if (b->waiting && b->credit > 0)
		return 0;
	if (b->rate == 0.0) {
		if (b->credit > 0)
			return 0;
		b->backoff_ns = b->backoff_ns == 0 ? RSH_BOOT_BACKOFF_START_NS :
			RTE_MIN(b->backoff_ns * 2, RSH_BOOT_BACKOFF_MAX_NS);
		return b->backoff_ns;
	}
	dry_ns = rsh_boot_rate_ns(RSH_BOOT_DRY_FRACTION * count / b->rate);
	/* A fast device empties the FIFO while we write: top it up sooner. */
	if (dry_ns < RSH_BOOT_FAST_DRY_NS)
		want = RTE_MIN(b->credit_max / 2, left);
	need_ns = rsh_boot_rate_ns((want - b->credit) / b->rate);
	need_ns = RTE_MIN(RTE_MIN(need_ns, dry_ns), RSH_BOOT_WAIT_MAX_NS);
	if (need_ns < RSH_BOOT_SPIN_NS)
		return b->credit > 0 ? 0 : RSH_BOOT_SPIN_NS;
	return need_ns;
}

/* Fail the push once no progress was seen for the stall timeout. */
static bool
rsh_boot_timed_out(struct rsh_boot *b, uint64_t now)
{
	return now - b->last_progress > b->stall_cycles;
}

/* Note a FIFO-full wait and pass the sleep hint to the loop. */
static void
rsh_boot_note_wait(struct rsh_boot *b, uint64_t ns, uint64_t *sleep_ns)
{
	if (!b->waiting) {
		b->waiting = true;
		__atomic_store_n(&b->full_waits, b->full_waits + 1, __ATOMIC_RELAXED);
	}
	if (ns >= RSH_BOOT_SPIN_NS)
		__atomic_store_n(&b->sleeps, b->sleeps + 1, __ATOMIC_RELAXED);
	if (ns < *sleep_ns)
		*sleep_ns = ns;
}

/* Write up to the credit from the current chunk. */
static unsigned int
rsh_boot_burst(struct rsh_boot *b, uint64_t now, uint32_t n)
{
	struct rsh_backend *be = b->dev->be;

	be->ops->write_fifo(be, b->dev->map.off[RSH_BOOT_FIFO_DATA],
			    &b->cur->words[b->cur_word], n);
	b->cur_word += n;
	b->credit -= n;
	b->last_count += n;
	__atomic_store_n(&b->words_pushed, b->words_pushed + n, __ATOMIC_RELAXED);
	rsh_boot_progress(b, now);
	if (b->cur_word == b->cur_words)
		rsh_boot_chunk_done(b);
	return n;
}

/* rshim-pmd's policy: one count read, then up to depth - count - 3 words
 * (credit_max: the FIFO's depth, 512 on BF1/BF2 and 1024 on BF3, less the
 * reserve). */
static unsigned int
rsh_boot_poll_credit(struct rsh_boot *b, uint64_t now, uint64_t *sleep_ns)
{
	uint32_t count;
	uint64_t wait;
	int rc;

	if (b->credit == 0) {
		/* The loop woke before the wait this push planned (another
		 * service's ceiling, e.g. TM FIFO channels attached, or a
		 * command): the FIFO has not drained enough yet by the rate
		 * seen, so keep the plan and read the count when it ends. */
		if (now < b->next_read) {
			uint64_t left = rsh_cyc_ns(b->next_read - now);

			if (left < *sleep_ns)
				*sleep_ns = left;
			return 0;
		}
		rc = rsh_boot_read_count(b, now, &count);
		if (rc < 0)
			return rsh_boot_finish(b, now, rc);
		wait = rsh_boot_wait_ns(b, count);
		if (wait != 0 || b->credit == 0) {
			if (rsh_boot_timed_out(b, now))
				return rsh_boot_finish(b, now, -ETIMEDOUT);
			/* Credit stays known; it is re-read after the wait. */
			b->credit = 0;
			b->next_read = now + rsh_ns_cyc(wait);
			rsh_boot_note_wait(b, wait, sleep_ns);
			return 0;
		}
	}
	if (b->write_run != 0) {
		/* BF1: at most 15 posted writes, then a read of another
		 * register (hardware-notes §1.9): the next count read is that
		 * read, and refreshes the credit too. */
		unsigned int n = rsh_boot_burst(b, now, RTE_MIN(b->write_run,
					RTE_MIN(b->credit, b->cur_words - b->cur_word)));

		b->credit = 0;
		return n;
	}
	return rsh_boot_burst(b, now,
			      RTE_MIN(b->credit, b->cur_words - b->cur_word));
}

/* Poll-lcore hook: move boot words for the device's running push. */
unsigned int
rsh_boot_poll(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns)
{
	/* Pairs with the release store in rsh_boot_open(). */
	struct rsh_boot *b = __atomic_load_n(&rsh_dev_boot_state(dev)->push, __ATOMIC_ACQUIRE);
	uint32_t closing;

	if (b == NULL)
		return 0;
	if (rsh_boot_cancelled(b))
		return rsh_boot_finish(b, now, -ECANCELED);
	if (b->cur == NULL) {
		/* Read closing first: every chunk queued before it is visible. */
		closing = __atomic_load_n(&b->closing, __ATOMIC_ACQUIRE);
		if (!rsh_boot_next_chunk(b, now))
			return closing ? rsh_boot_finish(b, now, 0) : 0;
	}
	return rsh_boot_poll_credit(b, now, sleep_ns);
}

/* Stop step: the device leaves its poller mid-push: end the job. */
static void
rsh_boot_stop(struct rsh_dev *dev)
{
	struct rsh_boot *b = __atomic_load_n(&rsh_dev_boot_state(dev)->push, __ATOMIC_ACQUIRE);

	if (b != NULL)
		rsh_boot_finish(b, rsh_now(), -ECANCELED);
}

/* Boot FIFO streaming (§3.3). */
const struct rsh_svc rsh_boot_svc = {
	.name = "boot",
	.poll = rsh_boot_poll,
	.stop = rsh_boot_stop,
	.flags = RSH_SVC_F_FW_RESET_PAUSE,
	.state_size = sizeof(struct rsh_boot_state),
};
