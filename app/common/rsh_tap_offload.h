/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP segmentation and receive merging for tmfifo_netN in user space.
 *
 * With IFF_VNET_HDR and TUN_F_CSUM | TUN_F_TSO4 the kernel hands the TAP
 * reader TCP/IPv4 super-frames of up to 64 KiB with a partial checksum,
 * and takes merged packets back. The DPU end of the tmfifo network offers
 * no offloads and runs at MTU 1500 (hardware-notes §4.8, §D3.1), so what
 * goes into the FIFO must be complete frames of at most 1514 bytes: this
 * unit cuts super-frames with librte_gso and completes every checksum, and
 * merges the DPU's TCP/IPv4 frames with librte_gro before the TAP write.
 *
 * Only the thread that owns the TAP calls these; no locks.
 */
#ifndef RSH_TAP_OFFLOAD_H
#define RSH_TAP_OFFLOAD_H

#include <stdint.h>
#include <linux/virtio_net.h>

#include <rte_mbuf.h>

/* Most frames one rsh_tap_ol_merge() call takes (librte_gro's limit). */
#define RSH_TAP_OL_MERGE_MAX 64u

/* Counters of one TAP's offload path; written by its owning thread. */
struct rsh_tap_ol_stats {
	uint64_t csum_done;        /* partial checksums completed (no GSO) */
	uint64_t gso_frames;       /* super-frames cut */
	uint64_t gso_segments;     /* frames they were cut into */
	uint64_t gro_in;           /* DPU frames offered for merging */
	uint64_t gro_out;          /* merged packets written (each ≥ 2 frames) */
	uint64_t gro_merged;       /* frames that went into a merged packet */
	uint64_t drop_short;       /* shorter than an Ethernet header */
	uint64_t drop_bad_csum;    /* csum_start/csum_offset outside the frame */
	uint64_t drop_bad_gso;     /* GSO with gso_size 0 or unparsable headers */
	uint64_t drop_gso_type;    /* a GSO type we did not offer (UDP, TCPv6, ECN) */
	uint64_t drop_nombuf;      /* frames: no mbuf for a segment; super-frames:
				    * no mbuf for librte_gso, or too many segments */
};

/* Segmenting and merging state of one TAP. */
struct rsh_tap_ol {
	struct rte_mempool *pool;  /* segment headers and indirect mbufs */
	struct rsh_tap_ol_stats st;
};

/**
 * Host → DPU: turn one frame read from the TAP, with its vnet header, into
 * frames the FIFO can carry: checksums complete, TCP/IPv4 super-frames cut
 * to the header's gso_size. Consumes @p m.
 *
 * @return the frames stored in @p out (≤ @p max); 0 when the frame was
 *   dropped (counted in ol->st with its reason).
 */
unsigned int rsh_tap_ol_segment(struct rsh_tap_ol *ol,
				const struct virtio_net_hdr *h,
				struct rte_mbuf *m, struct rte_mbuf **out,
				unsigned int max);

/**
 * DPU → host: merge consecutive TCP/IPv4 frames of a flow whose checksums
 * are correct, in place; frame order per flow is kept. @p hdr[i] receives
 * the vnet header for the packet left in @p pkts[i]: a GSO header for a
 * merged packet, DATA_VALID for a checked TCP frame, empty otherwise.
 *
 * @return the number of packets left in @p pkts (≤ n ≤ RSH_TAP_OL_MERGE_MAX).
 */
unsigned int rsh_tap_ol_merge(struct rsh_tap_ol *ol, struct rte_mbuf **pkts,
			      unsigned int n, struct virtio_net_hdr *hdr);

#endif /* RSH_TAP_OFFLOAD_H */
