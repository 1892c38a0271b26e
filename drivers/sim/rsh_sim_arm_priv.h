/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the emulated DPU's ARM side, the model of Linux's
 * mlxbf-tmfifo (hardware-notes §D2-§D4, §D8 and
 * hardware-notes §4.11), shared by rsh_sim_arm.c (life cycle,
 * scheduling, stats), rsh_sim_arm_rx.c (HOST_TO_TILE parser) and
 * rsh_sim_arm_tx.c (TILE_TO_HOST writer).
 *
 * Threads: everything here is written by the thread doing the MMIO (the
 * model runs inside the backend ops, no thread of its own); only "st" is
 * read elsewhere, with relaxed loads.
 */
#ifndef RSH_SIM_ARM_PRIV_H
#define RSH_SIM_ARM_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "rsh_sim_peer.h"
#include "rsh_sim_priv.h"
#include "rsh_tmfifo_proto.h"

/* mlxbf-tmfifo constants, hardware-notes §D3.6, §D3.7. */
#define RSH_SIM_ARM_NET_RESERVE (RSH_SIM_TM_DEPTH / 16) /* 16 words */
#define RSH_SIM_ARM_CON_RING (32u * 1024u)  /* console Tx staging */
#define RSH_SIM_ARM_OVERSIZE 1600u          /* oversize@ frame length */
#define RSH_SIM_ARM_TX_WORDS RSH_SIM_TM_DEPTH     /* >= 201 and 255 */
#define RSH_SIM_ARM_NET_WORDS ((RSH_TMFIFO_ARM_NET_MAX + 7u) / 8u)
#define RSH_SIM_ARM_CON_PEND 4096u          /* Rx console bytes in hand */
#define RSH_SIM_ARM_CON_CHUNK 4096u         /* one PTY read */
#define RSH_SIM_ARM_TAP_BUF 2048u           /* one TAP read */
#define RSH_SIM_ARM_UEFI_RING 1024u         /* UEFI console input, §D3.10 */
#define RSH_SIM_ARM_TX_TIMEOUT_NS 2000000000ull /* §D3.6, Linux >= 6.8 */

/* Where the HOST_TO_TILE parser is in the word stream (§D2.4, §D3.4). */
enum rsh_sim_arm_rx_state {
	RSH_SIM_ARM_RX_HDR,   /* next word is a header */
	RSH_SIM_ARM_RX_NET,   /* collecting a frame's words */
	RSH_SIM_ARM_RX_CON,   /* console payload words */
	RSH_SIM_ARM_RX_DRAIN, /* oversize frame: payload dropped */
};

/* HOST_TO_TILE parser state; cleared by an ARM reset. */
struct rsh_sim_arm_rx {
	enum rsh_sim_arm_rx_state st;
	uint32_t rem_words;   /* payload words left in this message */
	uint32_t rem_bytes;   /* payload bytes left (console) */
	uint32_t len;         /* payload length of this message */
	uint32_t got_words;   /* frame words collected */
	bool net_pend;        /* a whole frame waits for the TAP (EAGAIN) */
	uint64_t net_w[RSH_SIM_ARM_NET_WORDS];
	uint32_t con_off, con_len; /* bytes of con[] not yet at the PTY */
	uint8_t con[RSH_SIM_ARM_CON_PEND];
};

/* TILE_TO_HOST writer state; cleared by an ARM reset. */
struct rsh_sim_arm_tx {
	uint64_t msg[RSH_SIM_ARM_TX_WORDS]; /* message being pushed */
	uint32_t msg_n, msg_off;  /* words in msg, words pushed */
	bool msg_net;             /* budget: net (16-word reserve) or console */
	bool rr_con;              /* console goes first at the next boundary */
	uint64_t ctrl[4];         /* control replies waiting for a boundary */
	uint32_t ctrl_n;
	uint64_t stuck_since;     /* TSC a net frame found no space, 0 */
	uint32_t pad_words;       /* zero words owed after a Tx timeout */
	uint32_t con_head, con_cnt; /* 32 KiB console ring */
	uint8_t con[RSH_SIM_ARM_CON_RING];
};

/* The ARM side of one emulated device (sim->arm_priv). */
struct rsh_sim_arm {
	struct rsh_sim_peer *peer;  /* created at the first start */
	bool peer_tried;
	bool running;               /* Linux up: link up, FIFOs served */
	uint64_t poll_cyc;          /* armpoll= in TSC cycles */
	uint64_t net_next, con_next;/* TSC of the next TAP / PTY read try */
	uint64_t stall_until;       /* armstall: idle before this TSC */
	bool stall_done;
	uint64_t tx_seq, rx_seq;    /* data messages since the last start */
	bool con_dead;              /* the shell closed the PTY */
	/* UEFI-style values reported on CTRL_REQ (§D2.2, §4.7) */
	uint8_t mac[6];
	uint16_t vlan[2];
	uint32_t pxe;
	bool in_uefi;               /* uefi=: UEFI holds the FIFOs */
	uint32_t uefi_con_len;      /* bytes in the UEFI console ring */
	uint8_t uefi_con[RSH_SIM_ARM_UEFI_RING];
	struct rsh_sim_arm_rx rx;
	struct rsh_sim_arm_tx tx;
	struct rsh_sim_arm_watch *watch; /* TAP/PTY readiness, NULL: read */
	struct rsh_sim_arm_stats st;
};

/* Single-writer counter update (readers use relaxed loads). */
#define RSH_SIM_ARM_ADD(a, f, n) \
	__atomic_store_n(&(a)->st.f, (a)->st.f + (n), __ATOMIC_RELAXED)
#define RSH_SIM_ARM_SET(a, f, v) \
	__atomic_store_n(&(a)->st.f, (v), __ATOMIC_RELAXED)

/* ---- rsh_sim_arm_watch.c ---- */

#define RSH_SIM_ARM_WATCH_NET 0u  /* the TAP */
#define RSH_SIM_ARM_WATCH_CON 1u  /* the shell's PTY */
#define RSH_SIM_ARM_WATCH_N 2u
struct rsh_sim_arm_watch;

/* A thread blocking in poll() on the TAP and PTY; 0 or -errno. */
int rsh_sim_arm_watch_start(struct rsh_sim_arm_watch **out, int net_fd,
			    int con_fd);
void rsh_sim_arm_watch_stop(struct rsh_sim_arm_watch *w);
/* May descriptor i be read (it was reported readable)? */
bool rsh_sim_arm_watch_ready(struct rsh_sim_arm_watch *w, unsigned int i);
/* A read of descriptor i found it empty: watch it again. */
void rsh_sim_arm_watch_empty(struct rsh_sim_arm_watch *w, unsigned int i);

/* ---- rsh_sim_arm_rx.c ---- */

/* Move HOST_TO_TILE words to the peer until empty or back-pressured. */
void rsh_sim_arm_rx_run(struct rsh_sim *sim, struct rsh_sim_arm *a,
			uint64_t now);

/* ---- rsh_sim_arm_uefi.c ---- */

/* Serve HOST_TO_TILE as UEFI does (whole messages, 1 KiB console ring). */
void rsh_sim_arm_uefi_run(struct rsh_sim *sim, struct rsh_sim_arm *a);

/* ---- rsh_sim_arm_tx.c ---- */

/* Fill TILE_TO_HOST from the console ring, the TAP and control replies. */
void rsh_sim_arm_tx_run(struct rsh_sim *sim, struct rsh_sim_arm *a,
			uint64_t now);

/* Append console output to the 32 KiB ring; all or nothing (§D3.7). */
bool rsh_sim_arm_con_put(struct rsh_sim_arm *a, const void *b, uint32_t n);

/* Queue the four UEFI-style replies to a CTRL_REQ (§D2.2). */
void rsh_sim_arm_ctrl_reply(struct rsh_sim_arm *a);

#endif /* RSH_SIM_ARM_PRIV_H */
