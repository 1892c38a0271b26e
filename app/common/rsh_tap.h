/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host end of the tmfifo network: the tmfifo_netN TAP, shared by
 * rshim-pmd-app (--net tap) and the rshim-pmd service.
 *
 * With offloads on (the default), the TAP is opened with IFF_VNET_HDR and
 * TUN_F_CSUM | TUN_F_TSO4: one read returns a TCP/IPv4 super-frame of up
 * to 64 KiB, cut here into frames of at most 1514 bytes for the FIFO, and
 * TCP/IPv4 frames from the DPU are merged before one write
 * (rsh_tap_offload.h). TSO for IPv6 is not offered: librte_gso in DPDK
 * 22.11 cuts TCP/IPv4 only, so the kernel cuts IPv6 itself and only the
 * checksum is left to complete here. Where the kernel refuses the vnet
 * header or the offloads, the TAP runs as a plain IFF_TAP | IFF_NO_PI
 * device, one frame per read and write.
 *
 * One thread owns a struct rsh_tap (the app's main lcore, the service's
 * relay thread); nothing here blocks or locks.
 */
#ifndef RSH_TAP_H
#define RSH_TAP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "rsh.h"
#include "rsh_tap_offload.h"

#define RSH_TAP_PEND 512u          /* frames read (and cut) not yet queued */
#define RSH_TAP_MTU 1500           /* hardware-notes §4.8 */

/* One tmfifo_netN; every field is written by the owning thread. */
struct rsh_tap {
	int fd;                    /* -1 when closed */
	char name[16];
	bool vnet;                 /* IFF_VNET_HDR + TUN_F_CSUM|TUN_F_TSO4 */
	bool offload;              /* and 64 KiB buffers: TSO/GRO running */
	int offload_err;           /* why offloads were refused (errno), 0 */
	bool drained;              /* a read found it empty: wait for POLLIN */
	struct rte_mempool *big;   /* 64 KiB read buffers (vnet only) */
	struct rte_mbuf *spare;    /* the next read's big buffer */
	struct rte_mbuf *spare_tail; /* and its tail beyond 64 KiB - 1 */
	struct rte_mbuf *pend[RSH_TAP_PEND]; /* to the DPU, in order */
	unsigned int n_pend;
	struct rsh_tap_ol ol;      /* segmenting/merging state and counters */
	uint64_t reads;            /* TAP reads that returned a frame */
	uint64_t writes;           /* TAP writes (a merged packet is one) */
	uint64_t tx_frames;        /* frames queued to the DPU */
	uint64_t rx_frames;        /* frames received from the DPU */
	uint64_t tx_down;          /* frames from the DPU while the TAP was down (EIO) */
	uint64_t tx_errors;        /* frames from the DPU the TAP refused otherwise */
	int tx_last_errno;         /* why the last of those was refused (0: none) */
};

/**
 * Create tmfifo_net<index> (not configured, not up), non-blocking.
 * With @p offload, try the vnet header and offloads first and fall back
 * to a plain TAP, leaving the reason in t->offload_err.
 *
 * @return 0, or -errno with *what naming the step that failed.
 */
int rsh_tap_create(struct rsh_tap *t, unsigned int index, bool offload,
		   const char **what);

/**
 * Ready the data path once the device's network channel is attached (EAL
 * running): the read buffers and segment pool.
 *
 * @return 0; -ENOMEM when the 64 KiB buffers cannot be had (offloads are
 *   then turned off on the TAP, which keeps working with plain frames).
 */
int rsh_tap_start(struct rsh_tap *t, struct rsh_dev *dev);

/** Whether the owner should wait for POLLIN (room for a 64 KiB read). */
bool rsh_tap_want_read(const struct rsh_tap *t);

/** What ppoll() said about the TAP: readable again (or an error to see). */
void rsh_tap_polled(struct rsh_tap *t, short revents);

/** TAP → DPU: read, cut and queue what the channel takes; the work done. */
unsigned int rsh_tap_to_dpu(struct rsh_tap *t, struct rsh_dev *dev);

/** DPU → TAP: receive, merge and write; the frames received. */
unsigned int rsh_tap_from_dpu(struct rsh_tap *t, struct rsh_dev *dev);

/**
 * Create tmfifo_net<index> as rsh_tap_create() does, after checking that
 * no interface has that name yet (another rshim daemon, another
 * rshim-pmd-app): the host end's one way to open it.
 *
 * @return 0; -EEXIST (*what = "name") when the name is taken; otherwise
 *   rsh_tap_create()'s -errno and step.
 */
int rsh_tap_open(struct rsh_tap *t, unsigned int index, bool offload,
		 const char **what);

/** An IPv4 address for the TAP (network byte order) and its prefix. */
struct rsh_tap_ip {
	uint32_t addr;
	unsigned int prefix;
};

/**
 * Configure tmfifo_net<index> as the reference daemon does
 * (hardware-notes §4.8): MAC rsh_tmfifo_host_mac(index), MTU
 * RSH_TAP_MTU, the address when @p ip is not NULL, then link up.
 *
 * @return 0, or -errno with *what naming the step ("socket", "MAC",
 *   "MTU", "address", "link up").
 */
int rsh_tap_config(const struct rsh_tap *t, unsigned int index,
		   const struct rsh_tap_ip *ip, const char **what);

/** Set the interface's link up (IFF_UP | IFF_RUNNING) or down; -errno. */
int rsh_tap_set_up(const char *name, bool up);

/** Close the TAP (the kernel removes it) and free what it holds. */
void rsh_tap_close(struct rsh_tap *t);

/** Every counter on one line, "key=value" pairs, for logs and stats. */
int rsh_tap_stats_line(const struct rsh_tap *t, char *buf, size_t size);

#endif /* RSH_TAP_H */
