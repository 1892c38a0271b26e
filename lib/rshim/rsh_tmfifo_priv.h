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

#include "rsh_dev_priv.h"
#include "rsh_tmfifo_api.h"
#include "rsh_tmfifo_proto.h"

/* Words of the largest staged message: header + 2016-byte console chunk. */
#define RSH_TMF_MSG_WORDS_MAX (1u + RSH_TMFIFO_CONSOLE_MSG_MAX / 8u)
/* Host TX budget with an empty FIFO, §4.1: 256 − 3. */
#define RSH_TMF_CREDIT_MAX (RSH_TM_FIFO_SIZE - RSH_TM_FIFO_RESERVE)
#define RSH_TMF_DST_DROP (-1)
#define RSH_TMF_CTRL_RING 64u
/* While blocked (no credit, ring full) ask to be polled this soon ... */
#define RSH_TMF_BLOCKED_SLEEP_NS 20000ull
/* ... for at most this long, then leave it to the idle back-off. */
#define RSH_TMF_BLOCKED_FAST_MS 10ull

_Static_assert(RSH_TMF_MSG_WORDS_MAX <= RSH_TMF_CREDIT_MAX,
	       "a console chunk fits one empty-FIFO credit");
_Static_assert(RSH_TMFIFO_CONSOLE_MSG_MAX % 8 == 0, "whole words");

/* Single-writer counter update (poll lcore or one user thread). */
#define RSH_TMF_ADD(f, n) \
	__atomic_store_n(&(f), (f) + (uint64_t)(n), __ATOMIC_RELAXED)

/* One channel: its rings and counters. */
struct rsh_tmf_chan {
	struct rte_ring *tx;   /* user → poll lcore */
	struct rte_ring *rx;   /* poll lcore → user */
	struct rsh_tmfifo_chan_stats st;
};

/* TX mux state, poll lcore. */
struct rsh_tmf_tx {
	uint64_t msg[RSH_TMF_MSG_WORDS_MAX]; /* the message being written */
	unsigned int len;       /* its words */
	unsigned int pos;       /* words already in the FIFO */
	int ch;                 /* its channel, RSH_TMF_DST_DROP for control */
	unsigned int bytes;     /* its payload bytes */
	unsigned int next_ch;   /* round-robin start at the next boundary */
	uint64_t burst[RSH_TM_FIFO_SIZE];
};

/* RX demux state, poll lcore. */
struct rsh_tmf_rx {
	uint64_t w[RSH_TM_FIFO_SIZE]; /* popped, not yet parsed */
	unsigned int n;         /* words in w[] */
	unsigned int pos;       /* next word to parse */
	unsigned int left_words;/* payload words left of the message */
	unsigned int left_bytes;
	int dst;                /* channel, or RSH_TMF_DST_DROP (draining) */
	struct rte_mbuf *m;     /* being filled */
	struct rte_mbuf *hold;  /* complete, waiting for ring space */
	int hold_ch;
};

/* Peer control values: written by the poll lcore under a seqcount. */
struct rsh_tmf_peer {
	uint32_t seq;           /* odd while the poll lcore writes */
	struct rsh_tmfifo_peer v;
};

struct rsh_tmfifo {
	struct rsh_dev *dev;
	struct rsh_tmf_chan ch[RSH_TMFIFO_NCHAN];
	struct rte_mempool *rx_pool;  /* poll lcore allocates, users free */
	struct rte_mempool *tx_pool;  /* users allocate, poll lcore frees */
	struct rte_ring *ctrl;        /* control words, MP enqueue, SC */
	struct rsh_tmf_tx tx;         /* poll lcore */
	struct rsh_tmf_rx rx;         /* poll lcore */
	bool was_booting;             /* poll lcore */
	bool booting;                 /* poll lcore: net RX is dropped */
	uint64_t blocked_since;       /* poll lcore, TSC; 0 = not blocked */
	struct rsh_tmf_peer peer;
	struct rsh_tmfifo_stats st;   /* poll lcore (attach: control path) */
	struct rte_mbuf *con_rd;      /* user (console reader) */
	uint32_t con_rd_off;          /* user (console reader) */
};


#endif /* RSH_TMFIFO_PRIV_H */
