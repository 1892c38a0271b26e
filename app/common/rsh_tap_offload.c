/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host → DPU: complete partial checksums and cut TCP/IPv4 super-frames
 * (librte_gso); DPU → host: merge TCP/IPv4 frames (librte_gro). See
 * rsh_tap_offload.h for why.
 *
 * librte_gso (DPDK 22.11) neither checks nor updates checksums, and its
 * segments are two mbufs (a copied header, an indirect mbuf on the
 * super-frame's payload): each segment is copied into one mbuf of the
 * channel's pool (at most 1514 bytes, so the super-frame's buffer is free
 * again at once) and its IPv4 and TCP checksums are computed there.
 * librte_gro merges only frames whose TCP flags are exactly ACK and places
 * what it does not take after what it merged: merging runs of frames it
 * takes, one run at a time, keeps each flow's order.
 */
#include <string.h>

#include <rte_ether.h>
#include <rte_gro.h>
#include <rte_gso.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include <rte_ethdev.h>

#include "rsh_tap_offload.h"

/* Where a frame's IPv4 and TCP headers are. */
struct rsh_tap_l4 {
	uint16_t l2, l3, l4;       /* header lengths */
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *tcp;
};

/*
 * Locate Ethernet (one optional 802.1Q tag), IPv4 and TCP headers, all in
 * the first mbuf. False when the frame is not unfragmented TCP/IPv4.
 */
static bool
rsh_tap_parse_tcp4(struct rte_mbuf *m, struct rsh_tap_l4 *p)
{
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint16_t type;

	if (len < sizeof(struct rte_ether_hdr))
		return false;
	p->l2 = sizeof(struct rte_ether_hdr);
	type = ((struct rte_ether_hdr *)b)->ether_type;
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) &&
	    len >= p->l2 + sizeof(struct rte_vlan_hdr)) {
		type = ((struct rte_vlan_hdr *)(b + p->l2))->eth_proto;
		p->l2 += sizeof(struct rte_vlan_hdr);
	}
	if (type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    len < p->l2 + sizeof(struct rte_ipv4_hdr))
		return false;
	p->ip = (struct rte_ipv4_hdr *)(b + p->l2);
	p->l3 = rte_ipv4_hdr_len(p->ip);
	if (p->l3 < sizeof(struct rte_ipv4_hdr) ||
	    p->ip->next_proto_id != IPPROTO_TCP ||
	    (p->ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
						       RTE_IPV4_HDR_OFFSET_MASK)) ||
	    len < (uint32_t)p->l2 + p->l3 + sizeof(struct rte_tcp_hdr))
		return false;
	p->tcp = (struct rte_tcp_hdr *)(b + p->l2 + p->l3);
	p->l4 = (uint16_t)((p->tcp->data_off >> 4) * 4);
	return p->l4 >= sizeof(struct rte_tcp_hdr) &&
	       len >= (uint32_t)p->l2 + p->l3 + p->l4 &&
	       rte_be_to_cpu_16(p->ip->total_length) >= p->l3 + p->l4 &&
	       rte_pktmbuf_pkt_len(m) >= (uint32_t)p->l2 + rte_be_to_cpu_16(p->ip->total_length);
}

/* Recompute the IPv4 header and TCP checksums of a (chained) frame. */
static void
rsh_tap_csum_tcp4(struct rte_mbuf *m, const struct rsh_tap_l4 *p)
{
	p->ip->hdr_checksum = 0;
	p->ip->hdr_checksum = rte_ipv4_cksum(p->ip);
	p->tcp->cksum = 0;
	p->tcp->cksum = rte_ipv4_udptcp_cksum_mbuf(m, p->ip, p->l2 + p->l3);
}

/*
 * Finish a partial checksum, as the kernel leaves it with NEEDS_CSUM: the
 * field at csum_start + csum_offset holds the pseudo-header sum; the
 * checksum covers csum_start to the end. A UDP zero result is sent as
 * 0xFFFF (RFC 768).
 */
static void
rsh_tap_csum_partial(struct rte_mbuf *m, uint16_t start, uint16_t off)
{
	uint16_t sum = 0, c;

	if (rte_raw_cksum_mbuf(m, start, rte_pktmbuf_pkt_len(m) - start, &sum) != 0)
		return;
	c = (uint16_t)~sum;
	if (c == 0 && off == offsetof(struct rte_udp_hdr, dgram_cksum))
		c = 0xFFFF;
	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, start + off), &c, sizeof(c));
}

/*
 * A segment copied into one mbuf of the channel's pool; frees the
 * segment. The copy lets go of the super-frame's 64 KiB buffer at once,
 * so nothing queued to the FIFO refers to the TAP's buffers. NULL when
 * the pool is empty.
 */
static struct rte_mbuf *
rsh_tap_linear(struct rte_mempool *mp, struct rte_mbuf *seg)
{
	uint32_t len = rte_pktmbuf_pkt_len(seg);
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	const void *src;
	void *p = NULL;

	if (m != NULL && len <= UINT16_MAX)
		p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p != NULL) {
		src = rte_pktmbuf_read(seg, 0, len, p);
		if (src != p)
			memcpy(p, src, len);
	} else {
		rte_pktmbuf_free(m);
		m = NULL;
	}
	rte_pktmbuf_free(seg);
	return m;
}

/* Cut a TCP/IPv4 super-frame to gso_size payload per frame. */
static unsigned int
rsh_tap_gso_tcp4(struct rsh_tap_ol *ol, uint16_t mss, struct rte_mbuf *m,
		 struct rte_mbuf **out, unsigned int max)
{
	struct rte_gso_ctx ctx = {
		.direct_pool = ol->pool, .indirect_pool = ol->pool,
		.gso_types = RTE_ETH_TX_OFFLOAD_TCP_TSO,
	};
	struct rsh_tap_l4 p, s;
	unsigned int hdr, i, k;
	int n;

	if (mss == 0 || !rsh_tap_parse_tcp4(m, &p)) {
		ol->st.drop_bad_gso++;
		rte_pktmbuf_free(m);
		return 0;
	}
	hdr = p.l2 + p.l3 + p.l4;
	if (rte_pktmbuf_pkt_len(m) <= hdr + mss) {
		/* One frame's worth: only the checksums to complete. */
		rsh_tap_csum_tcp4(m, &p);
		out[0] = m;
		return 1;
	}
	m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4;
	m->l2_len = p.l2;
	m->l3_len = p.l3;
	m->l4_len = p.l4;
	ctx.gso_size = (uint16_t)RTE_MIN(hdr + mss, (unsigned int)UINT16_MAX);
	n = rte_gso_segment(m, &ctx, out, (uint16_t)RTE_MIN(max, (unsigned int)UINT16_MAX));
	rte_pktmbuf_free(m); /* the segments hold their own references */
	if (n <= 0) {
		ol->st.drop_nombuf++;
		return 0;
	}
	for (i = 0, k = 0; i < (unsigned int)n; i++) {
		struct rte_mbuf *f = rsh_tap_linear(ol->pool, out[i]);

		if (f == NULL) {
			ol->st.drop_nombuf++;
			continue;
		}
		if (rsh_tap_parse_tcp4(f, &s))
			rsh_tap_csum_tcp4(f, &s);
		out[k++] = f;
	}
	ol->st.gso_frames++;
	ol->st.gso_segments += k;
	return k;
}

/* Host → DPU, see rsh_tap_offload.h. */
unsigned int
rsh_tap_ol_segment(struct rsh_tap_ol *ol, const struct virtio_net_hdr *h,
		   struct rte_mbuf *m, struct rte_mbuf **out, unsigned int max)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	bool partial = h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;

	if (len < sizeof(struct rte_ether_hdr)) {
		ol->st.drop_short++;
		goto drop;
	}
	if (partial && ((uint32_t)h->csum_start + h->csum_offset + 2 > len ||
			h->csum_start < sizeof(struct rte_ether_hdr) ||
			(uint32_t)h->csum_start + h->csum_offset + 2 >
			rte_pktmbuf_data_len(m))) {
		ol->st.drop_bad_csum++;
		goto drop;
	}
	switch (h->gso_type) {
	case VIRTIO_NET_HDR_GSO_NONE:
		if (partial) {
			rsh_tap_csum_partial(m, h->csum_start, h->csum_offset);
			ol->st.csum_done++;
		}
		out[0] = m;
		return 1;
	case VIRTIO_NET_HDR_GSO_TCPV4:
		return rsh_tap_gso_tcp4(ol, h->gso_size, m, out, max);
	default:
		/* Not offered with TUNSETOFFLOAD: the kernel should not send it. */
		ol->st.drop_gso_type++;
		goto drop;
	}
drop:
	rte_pktmbuf_free(m);
	return 0;
}

/* What a DPU frame is to the merger. */
enum rsh_tap_kind {
	RSH_TAP_OTHER,             /* not TCP/IPv4, or a bad checksum */
	RSH_TAP_CHECKED,           /* TCP/IPv4, checksums correct */
	RSH_TAP_MERGEABLE,         /* and librte_gro takes it (flags ACK, data) */
};

/*
 * Classify one frame from the DPU; trims Ethernet padding and sets the
 * packet type and header lengths librte_gro reads.
 */
static enum rsh_tap_kind
rsh_tap_classify(struct rte_mbuf *m)
{
	struct rsh_tap_l4 p;
	uint32_t ip_len;

	if (m->nb_segs != 1 || !rsh_tap_parse_tcp4(m, &p))
		return RSH_TAP_OTHER;
	ip_len = rte_be_to_cpu_16(p.ip->total_length);
	if (rte_pktmbuf_pkt_len(m) > p.l2 + ip_len)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - p.l2 - ip_len));
	if (rte_ipv4_cksum(p.ip) != 0 ||
	    rte_ipv4_udptcp_cksum_verify(p.ip, p.tcp) != 0)
		return RSH_TAP_OTHER;
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP;
	m->l2_len = p.l2;
	m->l3_len = p.l3;
	m->l4_len = p.l4;
	if (p.tcp->tcp_flags != RTE_TCP_ACK_FLAG || ip_len == p.l3 + p.l4)
		return RSH_TAP_CHECKED;
	return RSH_TAP_MERGEABLE;
}

/* Largest payload among the frames merged into m (its segment sizes). */
static uint16_t
rsh_tap_merged_mss(const struct rte_mbuf *m, unsigned int hdr)
{
	uint16_t mss = (uint16_t)(rte_pktmbuf_data_len(m) - hdr);

	for (m = m->next; m != NULL; m = m->next)
		mss = RTE_MAX(mss, rte_pktmbuf_data_len(m));
	return mss;
}

/* The vnet header of a packet librte_gro returned (merged or not). */
static void
rsh_tap_merged_hdr(struct rsh_tap_ol *ol, struct rte_mbuf *m,
		   struct virtio_net_hdr *h)
{
	struct rsh_tap_l4 p;
	unsigned int hdr;

	memset(h, 0, sizeof(*h));
	h->flags = VIRTIO_NET_HDR_F_DATA_VALID;
	if (m->nb_segs == 1 || !rsh_tap_parse_tcp4(m, &p))
		return;
	hdr = p.l2 + p.l3 + p.l4;
	p.ip->total_length = rte_cpu_to_be_16((uint16_t)(rte_pktmbuf_pkt_len(m) - p.l2));
	/* DATA_VALID says the checksums are right: make them right. */
	rsh_tap_csum_tcp4(m, &p);
	h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	h->gso_size = rsh_tap_merged_mss(m, hdr);
	h->hdr_len = (uint16_t)hdr;
	ol->st.gro_out++;
	ol->st.gro_merged += m->nb_segs;
}

/* Merge pkts[0..n) (all mergeable); returns the packets left. */
static unsigned int
rsh_tap_gro_run(struct rsh_tap_ol *ol, struct rte_mbuf **pkts, unsigned int n,
		struct virtio_net_hdr *hdr)
{
	struct rte_gro_param param = {
		.gro_types = RTE_GRO_TCP_IPV4,
		.max_flow_num = RSH_TAP_OL_MERGE_MAX,
		.max_item_per_flow = RSH_TAP_OL_MERGE_MAX,
	};
	unsigned int k, i;

	ol->st.gro_in += n;
	k = n > 1 ? rte_gro_reassemble_burst(pkts, (uint16_t)n, &param) : n;
	for (i = 0; i < k; i++)
		rsh_tap_merged_hdr(ol, pkts[i], &hdr[i]);
	return k;
}

/* DPU → host, see rsh_tap_offload.h. */
unsigned int
rsh_tap_ol_merge(struct rsh_tap_ol *ol, struct rte_mbuf **pkts, unsigned int n,
		 struct virtio_net_hdr *hdr)
{
	enum rsh_tap_kind kind[RSH_TAP_OL_MERGE_MAX];
	unsigned int i, j, k = 0, left;

	n = RTE_MIN(n, RSH_TAP_OL_MERGE_MAX);
	for (i = 0; i < n; i++)
		kind[i] = rsh_tap_classify(pkts[i]);
	for (i = 0; i < n; i = j) {
		if (kind[i] != RSH_TAP_MERGEABLE) {
			memset(&hdr[k], 0, sizeof(hdr[k]));
			if (kind[i] == RSH_TAP_CHECKED)
				hdr[k].flags = VIRTIO_NET_HDR_F_DATA_VALID;
			pkts[k++] = pkts[i];
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < n && kind[j] == RSH_TAP_MERGEABLE; j++)
			;
		/* The run moves down to k first (k ≤ i), then merges there. */
		memmove(&pkts[k], &pkts[i], (j - i) * sizeof(pkts[0]));
		left = rsh_tap_gro_run(ol, &pkts[k], j - i, &hdr[k]);
		k += left;
	}
	return k;
}
