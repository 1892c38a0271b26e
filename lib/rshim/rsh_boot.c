/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Boot engine, control side: the open sequence (reference
 * hardware-notes §3.2), the chunk pipeline from the main lcore to
 * the poll lcore, and close (§3.4). The poll-lcore side is rsh_boot_poll.c.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#define RSH_LOGTYPE rsh_logtype_boot
#include "rsh_boot_priv.h"
#include "rsh_log.h"

/* Defaults for a push. */
void
rsh_boot_opts_default(struct rsh_boot_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->stall_timeout_ms = 300000;
	o->reset_delay_ms = -1;
}

/*
 * Boot FIFO depth of a push. BlueField-3's is 1024 words: NVIDIA's BF3 USB
 * path fills it to 8192 - 8 x count bytes per transfer (hardware-notes
 * §D6.1, §1.10), while its PCIe path assumes 512 for every generation
 * (§1.5 notes). It is one FIFO whatever the transport, so the PCIe path
 * uses 1024 on BF3 too (half the status reads at fast drain); fifo_words
 * = 512 is the fallback should a BF3 part turn out shallower (words past
 * the depth would be dropped, §D6.1).
 */
static uint32_t
rsh_boot_fifo_words(const struct rsh_dev *dev, const struct rsh_boot_opts *o)
{
	if (o->fifo_words != 0)
		return o->fifo_words;
	return rsh_boot_fifo_depth(dev->be->gen);
}

/* Wait on the control path for the poll lcore (never while data moves). */
static void
rsh_boot_ctl_sleep_us(const struct rsh_boot *b, unsigned int us)
{
	rsh_dev_ctl_wait(b->dev, (uint64_t)us * 1000);
}

static void rsh_boot_free_pipe(struct rsh_boot *b);

/*
 * Put every chunk of the pool on the free ring. Chunks then circulate on
 * the two rings only (inline ring code, whose C11 hand-offs ThreadSanitizer
 * sees), never through the mempool's compiled ops.
 */
static int
rsh_boot_fill_free(struct rsh_boot *b)
{
	void *obj;
	unsigned int i;

	for (i = 0; i < RSH_BOOT_NCHUNKS; i++) {
		if (rte_mempool_get(b->pool, &obj) != 0)
			return -ENOMEM;
		rte_ring_enqueue(b->free, obj);
	}
	return 0;
}

/*
 * The line of a failed allocation: the failing call's errno, and for a
 * lack of memory how much a push needs and what to reserve.
 */
static void
rsh_boot_nomem(const struct rsh_boot *b, int err)
{
	unsigned int mib = (RSH_BOOT_NCHUNKS * (RSH_BOOT_CHUNK + 64) + (1u << 20) - 1) >> 20;

	if (err != ENOMEM && err != 0) {
		rsh_err_set("%s: cannot set up the boot chunk pipeline: %s", b->dev->name,
			    rte_strerror(err));
		return;
	}
	rsh_err_set("%s: cannot allocate %u boot chunks of %u KiB: out of DPDK memory (a push needs %u MiB); reserve more hugepages (e.g. dpdk-hugepages.py -p 2M -r 1G) or, without hugepages, give EAL more memory (-m)",
		    b->dev->name, RSH_BOOT_NCHUNKS, RSH_BOOT_CHUNK / 1024, mib);
}

/* Allocate the chunk pool and the hand-off rings. */
static int
rsh_boot_alloc_pipe(struct rsh_boot *b)
{
	static uint32_t seq;
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t id = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
	unsigned int sp_sc = RING_F_SP_ENQ | RING_F_SC_DEQ;
	unsigned int size = rte_align32pow2(RSH_BOOT_NCHUNKS + 1);
	int err = 0;

	snprintf(name, sizeof(name), "rsh_boot_mp%u", id);
	/* Hugepage-backed when EAL has hugepages; plain memory on --no-huge. */
	b->pool = rte_mempool_create(name, RSH_BOOT_NCHUNKS,
				     sizeof(struct rsh_boot_chunk) + RSH_BOOT_CHUNK,
				     0, 0, NULL, NULL, NULL, NULL,
				     SOCKET_ID_ANY, RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (b->pool == NULL) {
		err = rte_errno; /* the failing call's, before others run */
		goto err;
	}
	snprintf(name, sizeof(name), "rsh_boot_r%u", id);
	b->to_poll = rte_ring_create(name, size, SOCKET_ID_ANY, sp_sc);
	if (b->to_poll == NULL)
		err = rte_errno;
	snprintf(name, sizeof(name), "rsh_boot_f%u", id);
	/* Free chunks: the poll lcore and the main lcore both return them. */
	b->free = rte_ring_create(name, size, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (b->free == NULL && err == 0)
		err = rte_errno;
	if (err == 0 && rsh_boot_fill_free(b) != 0)
		err = ENOMEM;
	if (err == 0)
		return 0;
err:
	rsh_boot_nomem(b, err);
	rsh_boot_free_pipe(b);
	return err == ENOMEM || err == 0 ? -ENOMEM : -err;
}

/* Free the rings and the pool (chunks need not be returned to it). */
static void
rsh_boot_free_pipe(struct rsh_boot *b)
{
	rte_ring_free(b->to_poll);
	rte_ring_free(b->free);
	rte_mempool_free(b->pool);
	b->to_poll = b->free = NULL;
	b->pool = NULL;
}

/* Free the pipeline and the job. */
static void
rsh_boot_free(struct rsh_boot *b)
{
	rsh_boot_free_pipe(b);
	free(b);
}

/* Open a push: pipeline, then the open sequence on the poll lcore. */
int
rsh_boot_open(struct rsh_dev *dev, struct rsh_poller *p,
	      const struct rsh_boot_opts *opts, struct rsh_boot **out)
{
	struct rsh_boot *b;
	int rc;

	if (dev->poller != p || p == NULL || !rsh_poller_running(p)) {
		rsh_err_set("%s: the device is not attached to a running poller", dev->name);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	b->dev = dev;
	if (opts != NULL)
		b->opts = *opts;
	else
		rsh_boot_opts_default(&b->opts);
	if (b->opts.stall_timeout_ms == 0)
		b->opts.stall_timeout_ms = 300000;
	/* misc BOOT_RESET_SKIP applies to every later push (§5.5). */
	b->opts.skip_reset |= dev->misc.boot_reset_skip;
	b->stall_cycles = rsh_ms_cyc(b->opts.stall_timeout_ms);
	if (b->opts.fifo_words != 0 &&
	    (b->opts.fifo_words < 64 || b->opts.fifo_words > RSH_BF3_BOOT_FIFO_DEPTH)) {
		rsh_err_set("%s: boot FIFO depth %u words is out of range (64-%u; 512 is the safe fallback)",
			    dev->name, b->opts.fifo_words, RSH_BF3_BOOT_FIFO_DEPTH);
		free(b);
		return -EINVAL;
	}
	b->credit_max = rsh_boot_fifo_words(dev, &b->opts) - RSH_BOOT_FIFO_RESERVE;
	/* BF1 over a BAR: 15 posted writes per read (§1.9); over livefish
	 * the gateway keeps its own 7-word rule with a cheaper read. */
	b->write_run = dev->be->gen == RSH_GEN_BF1 && !dev->be->livefish ?
		       RSH_BOOT_BF1_WRITE_RUN : 0;
	rc = rsh_boot_alloc_pipe(b);
	if (rc < 0)
		goto err_free;
	/* On success the poll lcore already streams from b. */
	rc = rsh_boot_open_cmd(b);
	if (rc < 0)
		goto err_pipe;
	*out = b;
	return 0;
err_pipe:
	rsh_boot_free_pipe(b);
err_free:
	free(b);
	return rc;
}

/* The push's status: 0 while fine, else the poll lcore's error. */
static int
rsh_boot_status(const struct rsh_boot *b)
{
	return __atomic_load_n(&b->status, __ATOMIC_ACQUIRE);
}

/*
 * Expected time for one chunk to leave the FIFO at the rate seen so far,
 * in us (50 us while nothing is known yet).
 */
static unsigned int
rsh_boot_chunk_us(const struct rsh_boot *b)
{
	uint64_t pushed = __atomic_load_n(&b->words_pushed, __ATOMIC_RELAXED) * 8;
	uint64_t el = rsh_now() - b->start_tsc;
	double us;

	if (pushed < RSH_BOOT_CHUNK || el == 0)
		return 50;
	us = (double)RSH_BOOT_CHUNK * rsh_cyc_s(el) / pushed * 1e6;
	return (unsigned int)RTE_MAX(RTE_MIN(us, 5000.0), 10.0);
}

/*
 * Wait for a free chunk. The main lcore is not the data path: it naps
 * about one chunk's drain time, then doubles up to 5 ms, so a slow DPU
 * costs a few wake-ups per chunk and a fast one never starves.
 */
static int
rsh_boot_get_chunk(struct rsh_boot *b, struct rsh_boot_chunk **c)
{
	unsigned int nap = 0;
	void *obj;
	int rc;

	while (rte_ring_dequeue(b->free, &obj) != 0) {
		rc = rsh_boot_status(b);
		if (rc < 0)
			return rc;
		if (rsh_boot_cancelled(b))
			return -ECANCELED;
		nap = nap == 0 ? rsh_boot_chunk_us(b) : RTE_MIN(nap * 2, 5000u);
		rsh_boot_ctl_sleep_us(b, nap);
	}
	*c = obj;
	(*c)->len = 0;
	return 0;
}

/* Hand the filled chunk to the poll lcore. */
static int
rsh_boot_flush(struct rsh_boot *b)
{
	struct rsh_boot_chunk *c = b->fill;

	if (c == NULL)
		return 0;
	b->fill = NULL;
	if (c->len == 0) {
		rte_ring_enqueue(b->free, c);
		return 0;
	}
	b->chunks_queued++;
	__atomic_fetch_add(&b->bytes_queued, c->len, __ATOMIC_RELAXED);
	/* The ring holds more slots than the pool has chunks: never full. */
	rte_ring_enqueue(b->to_poll, c);
	/* A poll loop that ran out of chunks may be dozing: wake it. */
	rsh_dev_kick(b->dev);
	return 0;
}

/*
 * The free room of the chunk being filled (taking a new chunk when there
 * is none), or the push's error.
 */
static int
rsh_boot_room(struct rsh_boot *b, uint8_t **dst, size_t *room)
{
	int rc = rsh_boot_status(b);

	if (rc < 0)
		return rc;
	if (b->fill == NULL) {
		rc = rsh_boot_get_chunk(b, &b->fill);
		if (rc < 0)
			return rc;
	}
	*dst = (uint8_t *)b->fill->words + b->fill->len;
	*room = RSH_BOOT_CHUNK - b->fill->len;
	return 0;
}

/* Account n bytes added to the chunk being filled; hand it over if full. */
static int
rsh_boot_filled(struct rsh_boot *b, size_t n)
{
	b->fill->len += n;
	return b->fill->len == RSH_BOOT_CHUNK ? rsh_boot_flush(b) : 0;
}

/* Queue bytes into chunks. */
int
rsh_boot_write(struct rsh_boot *b, const void *buf, size_t len)
{
	const uint8_t *src = buf;
	uint8_t *dst;
	size_t room;
	int rc;

	while (len > 0) {
		rc = rsh_boot_room(b, &dst, &room);
		if (rc < 0)
			return rc;
		room = RTE_MIN(room, len);
		memcpy(dst, src, room);
		src += room;
		len -= room;
		rc = rsh_boot_filled(b, room);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Read up to max bytes of a file descriptor straight into chunks. */
ssize_t
rsh_boot_write_fd(struct rsh_boot *b, int fd, size_t max)
{
	size_t done = 0, room;
	uint8_t *dst;
	int rc;

	while (done < max) {
		ssize_t n;

		rc = rsh_boot_room(b, &dst, &room);
		if (rc < 0)
			return rc;
		n = read(fd, dst, RTE_MIN(room, max - done));
		if (n < 0 && errno == EINTR) {
			if (rsh_boot_cancelled(b))
				return -ECANCELED;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += n;
		rc = rsh_boot_filled(b, n);
		if (rc < 0)
			return rc;
	}
	return done;
}

/* The push's state for the app: 1 finished, 0 running, or -errno. */
int
rsh_boot_state(const struct rsh_boot *b)
{
	int rc = rsh_boot_status(b);

	if (rc < 0)
		return rc;
	return __atomic_load_n(&b->finished, __ATOMIC_ACQUIRE) ? 1 : 0;
}

/* Ask the poll lcore to stop the push (async-signal-safe). */
void
rsh_boot_cancel(struct rsh_boot *b)
{
	__atomic_store_n(&b->cancel, 1, __ATOMIC_RELEASE);
}

/* Counters as the poll lcore last wrote them. */
void
rsh_boot_get_stats(const struct rsh_boot *b, struct rsh_boot_stats *st)
{
	struct rsh_mmio_stats now;
	uint64_t end = __atomic_load_n(&b->end_tsc, __ATOMIC_ACQUIRE);

	memset(st, 0, sizeof(*st));
	st->bytes_queued = __atomic_load_n(&b->bytes_queued, __ATOMIC_RELAXED);
	st->words_pushed = __atomic_load_n(&b->words_pushed, __ATOMIC_RELAXED);
	st->bytes_pushed = st->words_pushed * 8;
	st->fifo_full_waits = __atomic_load_n(&b->full_waits, __ATOMIC_RELAXED);
	st->status_reads = __atomic_load_n(&b->count_reads, __ATOMIC_RELAXED);
	st->stalls = __atomic_load_n(&b->stalls, __ATOMIC_RELAXED);
	st->stall_ns = __atomic_load_n(&b->stall_ns, __ATOMIC_RELAXED);
	st->sleeps = __atomic_load_n(&b->sleeps, __ATOMIC_RELAXED);
	if (end == 0)
		end = rsh_now();
	st->elapsed_ns = rsh_cyc_ns(end - b->start_tsc);
	rsh_dev_get_stats(b->dev, &now);
	st->mmio.reads = now.reads - b->mmio_start.reads;
	st->mmio.writes = now.writes - b->mmio_start.writes;
}

/* Zero-pad the tail to a whole word (§3.4) and hand it over. */
static int
rsh_boot_queue_tail(struct rsh_boot *b)
{
	struct rsh_boot_chunk *c = b->fill;

	if (c != NULL && (c->len & 7) != 0) {
		unsigned int pad = 8 - (c->len & 7);

		memset((uint8_t *)c->words + c->len, 0, pad);
		c->len += pad;
		__atomic_fetch_add(&b->pad_bytes, pad, __ATOMIC_RELAXED);
	}
	return rsh_boot_flush(b);
}

/* No more input: queue the padded tail and tell the poll lcore. */
int
rsh_boot_end_input(struct rsh_boot *b)
{
	int rc = rsh_boot_status(b);

	if (__atomic_load_n(&b->closing, __ATOMIC_RELAXED))
		return rc;
	if (rc == 0)
		rc = rsh_boot_queue_tail(b);
	if (rc < 0)
		rsh_boot_cancel(b);
	/* Pairs with the acquire load in rsh_boot_poll(). */
	__atomic_store_n(&b->closing, 1, __ATOMIC_RELEASE);
	return rc;
}

/* Wait for the poll lcore to finish the job; false if it never did. */
static bool
rsh_boot_wait_finished(struct rsh_boot *b)
{
	uint64_t deadline = rsh_now() + b->stall_cycles +
			    rsh_ms_cyc(5000);
	unsigned int nap = 20;

	while (!__atomic_load_n(&b->finished, __ATOMIC_ACQUIRE)) {
		if (rsh_now() > deadline)
			return false;
		rsh_boot_ctl_sleep_us(b, nap);
		nap = RTE_MIN(nap * 2, 1000u);
	}
	return true;
}

/* Describe the push's error for the user (one line). */
static void
rsh_boot_explain(const struct rsh_boot *b, int rc)
{
	const char *n = b->dev->name;

	switch (rc) {
	case -ETIMEDOUT:
		rsh_err_set("%s: boot timeout: the DPU read nothing from the boot FIFO for %.1f s (at byte %" PRIu64 "); raise --timeout if the DPU is busy (e.g. BMC/Redfish work)",
			    n, b->opts.stall_timeout_ms / 1000.0,
			    __atomic_load_n(&b->words_pushed, __ATOMIC_RELAXED) * 8);
		break;
	case -ENODEV:
		rsh_err_set("%s: the device disappeared during the push (reads return all-ones) at byte %" PRIu64 "; check lspci, the PCIe link and the DPU power",
			    n, __atomic_load_n(&b->words_pushed, __ATOMIC_RELAXED) * 8);
		break;
	case -EIO:
		rsh_err_set("%s: the rshim became unreachable during the push (the ARM was reset?) at byte %" PRIu64,
			    n, __atomic_load_n(&b->words_pushed, __ATOMIC_RELAXED) * 8);
		break;
	case -ECANCELED:
		rsh_err_set("%s: boot push cancelled after %" PRIu64 " bytes",
			    n, __atomic_load_n(&b->words_pushed, __ATOMIC_RELAXED) * 8);
		break;
	default:
		break;
	}
}

/*
 * BOOT_CONTROL after the push (§3.4): 1 after a complete stream; after an
 * error or a cancel, the value read before the open. The poll lcore writes
 * it once the rshim answers (an ARM reset mid-push), with a deadline.
 */
static int
rsh_boot_restore(struct rsh_boot *b, int rc)
{
	uint64_t v = rc == 0 ? RSH_BOOT_CONTROL_EMMC : b->saved_bootctl;
	char line[512], why[256];
	int rrc;

	if (rc < 0)
		rsh_boot_explain(b, rc);
	snprintf(line, sizeof(line), "%s", rsh_last_error());
	rrc = rsh_boot_restore_cmd(b->dev, v);
	if (rrc < 0) {
		/* Copy first: the error line is also the destination. */
		snprintf(why, sizeof(why), "%s", rsh_last_error());
		rsh_err_set("%s%s%s", line, line[0] ? "; " : "", why);
		return rc < 0 ? rc : rrc;
	}
	if (rc < 0)
		rsh_err_set("%s; BOOT_CONTROL restored to %" PRIu64, line, v);
	return rc;
}

/* Finish the push: tail, drain, restore BOOT_CONTROL, free. */
int
rsh_boot_close(struct rsh_boot *b, struct rsh_boot_stats *final_stats)
{
	struct rsh_dev *dev = b->dev;
	int rc;

	rc = rsh_boot_end_input(b);
	if (!rsh_boot_wait_finished(b)) {
		/* The poll loop is wedged or stopped: it may still hold b. */
		rsh_err_set("%s: the poll loop did not finish the push in time; BOOT_CONTROL not restored",
			    dev->name);
		return -ETIMEDOUT;
	}
	if (rc == 0 || rsh_boot_status(b) < 0)
		rc = rsh_boot_status(b);
	if (final_stats != NULL)
		rsh_boot_get_stats(b, final_stats);
	if (b->fill != NULL)
		rte_ring_enqueue(b->free, b->fill);
	rc = rsh_boot_restore(b, rc);
	RSH_DEV_LOG(INFO, dev, "push finished: %d", rc);
	rsh_boot_free(b);
	return rc;
}
