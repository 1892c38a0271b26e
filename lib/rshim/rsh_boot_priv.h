/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Boot engine internals shared by the control side (rsh_boot.c) and the
 * poll-lcore side (rsh_boot_poll.c).
 */
#ifndef RSH_BOOT_PRIV_H
#define RSH_BOOT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsh_dev_priv.h"

#define RSH_BOOT_CHUNK (64u * 1024u)     /* bytes per hand-off chunk */
#define RSH_BOOT_NCHUNKS 64u             /* 4 MiB in flight at most */
/*
 * Credit per BOOT_FIFO_COUNT read: depth - count - 3 words (§3.3), the
 * depth 512 words, or 1024 on BlueField-3 (§D6.1). The 3 spare words also
 * keep a full 1024-word FIFO from reading as count 0 (the count field has
 * 10 bits).
 * When the device drains slowly: sleep until 3/4 of the credit is free,
 * but at most RSH_BOOT_DRY_FRACTION of the time the device needs to drain
 * what is queued; after a wait, write once 1/4 of it fits.
 */
#define RSH_BOOT_DRY_FRACTION 0.75
/* BF1 takes at most this many posted writes before a read of another
 * register (hardware-notes §1.9). */
#define RSH_BOOT_BF1_WRITE_RUN 15u
/* A gap of no progress this long counts as a stall in the stats. */
#define RSH_BOOT_STALL_NS 100000000ull

/* One hand-off chunk: len bytes of words[] are valid. */
struct rsh_boot_chunk {
	uint32_t len;
	uint32_t rsvd;
	uint64_t words[];
};

/*
 * A running push. Who writes what:
 *  - control path / main lcore: opts, dev, pool, to_poll, fill,
 *    chunks_queued, start_tsc, stall_cycles, mmio_start,
 *    bytes_queued, pad_bytes; the flags cancel and closing (release).
 *  - poll lcore: everything under "poll lcore" and the published
 *    status/finished/end_tsc and counters (relaxed, or release where noted).
 */
struct rsh_boot {
	struct rsh_dev *dev;
	struct rsh_boot_opts opts;
	struct rte_mempool *pool;
	struct rte_ring *to_poll;      /* filled chunks, main -> poll (SP/SC) */
	struct rte_ring *free;         /* empty chunks, back to main (MP/SC) */
	struct rsh_boot_chunk *fill;   /* main: chunk being filled */
	uint64_t chunks_queued;        /* main */
	uint64_t start_tsc;
	uint64_t stall_cycles;
	struct rsh_mmio_stats mmio_start;

	/* The open command (device's owning thread; read by close after). */
	uint64_t saved_bootctl;        /* BOOT_CONTROL mode before the open */
	uint64_t delay_ms;             /* reset delay of this open */
	bool bootctl_written;          /* BOOT_CONTROL was set to 0 */
	bool reset_done;               /* the reset key was written */

	/* Flags from the main lcore / a signal handler. */
	uint32_t cancel;
	uint32_t closing;

	/* Published by the poll lcore. */
	int status;                    /* 0 or -errno (release) */
	uint32_t finished;             /* 1 once the poll lcore let go (release) */
	uint64_t end_tsc;
	uint64_t bytes_queued;
	uint64_t pad_bytes;
	uint64_t words_pushed;
	uint64_t full_waits;
	uint64_t count_reads;          /* BOOT_FIFO_COUNT reads of the push */
	uint64_t stalls;
	uint64_t stall_ns;
	uint64_t sleeps;

	/* Poll lcore only. */
	struct rsh_boot_chunk *cur;
	uint32_t cur_word;
	uint32_t cur_words;
	uint32_t credit_max;           /* depth - 3 (set at open) */
	uint32_t write_run;            /* BF1: writes between reads, §1.9; 0 = no limit */
	uint32_t credit;               /* words known free in the FIFO */
	uint32_t last_count;           /* count at the last read + written since */
	bool have_ref;
	bool waiting;                  /* in a FIFO-full episode */
	bool starved;                  /* waiting for the file, not the device */
	uint64_t ref_tsc;              /* time of the last count read */
	uint64_t next_read;            /* no count read before: the planned wait's end */
	uint64_t last_progress;        /* device drained or accepted words */
	uint64_t win_cycles;           /* rate window */
	uint64_t win_drained;
	double rate;                   /* words per timer cycle, 0 = unknown */
	uint64_t backoff_ns;
};

/*
 * True when the push was cancelled: rsh_boot_cancel(), or the caller's
 * flag of rsh_boot_opts (a signal handler sets it), so a Ctrl-C during a
 * DPU stall is seen by both sides at once.
 */
static inline bool
rsh_boot_cancelled(const struct rsh_boot *b)
{
	return __atomic_load_n(&b->cancel, __ATOMIC_ACQUIRE) ||
	       (b->opts.cancel_flag != NULL &&
		__atomic_load_n(b->opts.cancel_flag, __ATOMIC_RELAXED));
}

/* Open sequence and restore, commands (rsh_boot_open.c). */
/* The boot service's poll step (rsh_svc.h): move boot words for the
 * device's running push (poll lcore; tests step it by hand). */
unsigned int rsh_boot_poll(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns);

int rsh_boot_open_cmd(struct rsh_boot *b);
int rsh_boot_restore_cmd(struct rsh_dev *dev, uint64_t value);
int rsh_boot_restore_step(struct rsh_dev *dev, uint64_t value, uint64_t since,
			  uint64_t now, char *why, size_t why_len);

/* True while the poller's loop runs (rsh_poll.c). */
bool rsh_poller_running(const struct rsh_poller *p);

#endif /* RSH_BOOT_PRIV_H */
