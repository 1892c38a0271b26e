/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TM FIFO channels, private to the core: the channel object shared by the
 * poll-lcore mux/demux (rsh_tmfifo.c) and the user-side calls
 * (rsh_console.c, rsh_net.c). Facts: hardware-notes
 * §4.3-§4.10; wire format in rsh_tmfifo_proto.h.
 *
 * Threads: fields marked "poll lcore" are written only by the poll lcore;
 * "user" fields only by the one reader/writer thread of that channel;
 * rings and pools are the hand-off between them (see rsh_tmfifo.c).
 */
#ifndef RSH_TMFIFO_PRIV_H
#define RSH_TMFIFO_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ring.h>

#include "rsh_dev_priv.h"
#include "rsh_tmfifo_api.h"
#include "rsh_tmfifo_proto.h"

/* Words of the largest staged message: header + 2016-byte console chunk. */
#define RSH_TMFIFO_MSG_WORDS_MAX (1u + RSH_TMFIFO_CONSOLE_MSG_MAX / 8u)
/* Host TX budget with an empty FIFO, §4.1: 256 − 3. */
#define RSH_TMFIFO_CREDIT_MAX (RSH_TM_FIFO_SIZE - RSH_TM_FIFO_RESERVE)
/* BlueField-1 takes at most 15 posted writes before a read of another
 * register (hardware-notes §1.9): each HOST_TO_TILE burst there is cut to
 * 15 words, and the STS read that gives the next credit is that read. */
#define RSH_TMFIFO_BF1_WRITE_RUN 15u
#define RSH_TMFIFO_DST_DROP (-1)
#define RSH_TMFIFO_CTRL_RING 64u
/* While blocked (no credit, ring full) ask to be polled this soon ... */
#define RSH_TMFIFO_BLOCKED_SLEEP_NS 20000ull
/* ... for at most this long, then leave it to the idle back-off. */
#define RSH_TMFIFO_BLOCKED_FAST_MS 10ull
/* All-ones STS reads for this long: the device is gone (§1.4). */
#define RSH_TMFIFO_GONE_MS 1000ull
/* A message stuck mid-way this long is finished with zero words, the
 * peer's own Tx-timeout rule (hardware-notes §D3.6). */
#define RSH_TMFIFO_TX_STUCK_MS 2000ull

_Static_assert(RSH_TMFIFO_MSG_WORDS_MAX <= RSH_TMFIFO_CREDIT_MAX,
	       "a console chunk fits one empty-FIFO credit");
_Static_assert(RSH_TMFIFO_CONSOLE_MSG_MAX % 8 == 0, "whole words");

/*
 * Entries in a ring, read with atomic loads of the two tails: the same
 * value as rte_ring_count(), whose plain loads of fields another thread
 * writes atomically are a data race to ThreadSanitizer.
 */
static inline unsigned int
rsh_ring_count(const struct rte_ring *r)
{
	uint32_t prod = __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE);
	uint32_t cons = __atomic_load_n(&r->cons.tail, __ATOMIC_ACQUIRE);
	uint32_t n = (prod - cons) & r->mask;

	return n > r->capacity ? r->capacity : n;
}

/* Single-writer counter update (poll lcore or one user thread). */
#define RSH_TMFIFO_ADD(f, n) \
	__atomic_store_n(&(f), (f) + (uint64_t)(n), __ATOMIC_RELAXED)

/* One channel: its rings and counters. */
struct rsh_tmfifo_chan_state {
	struct rte_ring *tx;   /* user → poll lcore */
	struct rte_ring *rx;   /* poll lcore → user */
	struct rsh_tmfifo_chan_stats st;
	/* Wake-up of the channel's user: an eventfd the poll lcore signals
	 * after queuing rx data while armed is set. The user sets armed
	 * (seq_cst) and then looks at the ring once more before it sleeps;
	 * the poll lcore enqueues, then exchanges armed (seq_cst): one of
	 * the two sees the other (as rsh_poller_doze/kick). */
	int efd;               /* -1 when none */
	uint32_t armed;
	bool delivered;        /* poll lcore: rx data queued this pass */
};

/* TX mux state, poll lcore. */
struct rsh_tmfifo_tx {
	uint64_t msg[RSH_TMFIFO_MSG_WORDS_MAX]; /* the message being written */
	unsigned int len;       /* its words */
	unsigned int pos;       /* words already in the FIFO */
	int ch;                 /* its channel, RSH_TMFIFO_DST_DROP for control */
	unsigned int bytes;     /* its payload bytes */
	unsigned int next_ch;   /* round-robin start at the next boundary */
	uint64_t stuck_since;   /* TSC: mid-message with no credit; 0 = not */
	bool padded;            /* the rest of msg[] was replaced by zeros */
	uint64_t burst[RSH_TM_FIFO_SIZE];
};

/* RX demux state, poll lcore. */
struct rsh_tmfifo_rx {
	uint64_t w[RSH_TM_FIFO_SIZE]; /* popped, not yet parsed */
	unsigned int n;         /* words in w[] */
	unsigned int pos;       /* next word to parse */
	unsigned int left_words;/* payload words left of the message */
	unsigned int left_bytes;
	int dst;                /* channel, or RSH_TMFIFO_DST_DROP (draining) */
	struct rte_mbuf *m;     /* being filled */
	struct rte_mbuf *hold;  /* complete, waiting for ring space */
	int hold_ch;
};

/* Peer control values: written by the poll lcore under a seqcount. */
struct rsh_tmfifo_peer_state {
	uint32_t seq;           /* odd while the poll lcore writes */
	struct rsh_tmfifo_peer v;
};

struct rsh_tmfifo {
	struct rsh_dev *dev;
	struct rsh_tmfifo_chan_state ch[RSH_TMFIFO_NCHAN];
	struct rte_mempool *rx_pool;  /* poll lcore allocates, users free */
	struct rte_mempool *tx_pool;  /* users allocate, poll lcore frees */
	struct rte_ring *ctrl;        /* control words, MP enqueue, SC */
	struct rsh_tmfifo_tx tx;         /* poll lcore */
	struct rsh_tmfifo_rx rx;         /* poll lcore */
	bool was_booting;             /* poll lcore */
	bool booting;                 /* poll lcore: net RX is dropped */
	uint64_t unreach_since;       /* poll lcore, TSC: STS reads bad */
	bool resync;                  /* poll lcore: the ARM came back */
	uint32_t gone;                /* poll lcore (release): all-ones */
	uint64_t blocked_since;       /* poll lcore, TSC; 0 = not blocked */
	struct rsh_tmfifo_peer_state peer;
	struct rsh_tmfifo_stats st;   /* poll lcore (attach: control path) */
	struct rte_mbuf *con_rd;      /* user (console reader) */
	uint32_t con_rd_off;          /* user (console reader) */
};

/*
 * True when a user queued TX data or control words the next pass can
 * send (no MMIO; the poll lcore, before it dozes). While the last passes
 * found the host-to-DPU FIFO full (blocked_since), queued data is no
 * reason to stay awake: only the DPU reading frees room, and it raises no
 * interrupt, so the loop backs off and looks again at its ceiling (an
 * un-booted or stalled DPU and a host that sends, e.g. IPv6 neighbour
 * discovery on tmfifo_netN, used to keep the loop spinning on a core).
 */
static inline bool
rsh_tmfifo_user_pending(struct rsh_dev *dev)
{
	struct rsh_tmfifo *t = __atomic_load_n(&rsh_dev_tmfifo_state(dev)->t, __ATOMIC_ACQUIRE);
	unsigned int c;

	if (t == NULL || t->blocked_since != 0)
		return false;
	if (rsh_ring_count(t->ctrl) > 0)
		return true;
	for (c = 0; c < RSH_TMFIFO_NCHAN; c++)
		if (t->ch[c].tx != NULL && rsh_ring_count(t->ch[c].tx) > 0)
			return true;
	return false;
}

/* The TM FIFO service's poll step (rsh_svc.h): one TX pass and one RX
 * pass (poll lcore; tests step it by hand). */
unsigned int rsh_tmfifo_poll(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns);

/* Fill every free HTT slot with zero-length sync words (§4.10); poll
 * lcore only (the data path's resync and the attach command step). */
int rsh_tmfifo_sync_fill(struct rsh_tmfifo *t);

/* The device is back after it was gone: drop, discard, resync; 0 or the
 * errno of a bad STS read. Poll lcore only (the resync command step). */
int rsh_tmfifo_revive(struct rsh_tmfifo *t);

#endif /* RSH_TMFIFO_PRIV_H */
