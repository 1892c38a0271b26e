/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TAP offload unit on crafted packets: a 64 KiB TCP/IPv4 super-frame
 * with a vnet header is cut into complete frames of at most 1514 bytes,
 * merged back into one packet; other frames pass unchanged; corrupt vnet
 * headers are dropped and counted. Checksums are verified here with an
 * independent RFC 1071 sum, not with the code under test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rsh_test_eal.h"
#include "rsh_tap_offload.h"
#include "rsh_test_csum.h"

#define T_MSS 1448u
#define T_HDR 66u                  /* Ethernet 14 + IPv4 20 + TCP 32 */
#define T_FRAME (64u * 1024)       /* the super-frame, headers included */
#define T_PAYLOAD (T_FRAME - T_HDR)
#define T_SEQ 0x01020304u

struct t_ctx {
	struct rte_mempool *big, *pool;
	struct rsh_tap_ol ol;
};

static unsigned int t_seq;

/* The bytes of a (chained) mbuf, copied to buf. */
static void
t_read(const struct rte_mbuf *m, uint32_t len, uint8_t *buf)
{
	const void *p = rte_pktmbuf_read(m, 0, len, buf);

	assert_non_null(p);
	if (p != buf)
		memcpy(buf, p, len);
}

/* Payload byte k of the crafted stream. */
static uint8_t
t_byte(size_t k)
{
	return (uint8_t)(k * 7 + 3 + (k >> 9));
}

/* Ethernet + IPv4 + TCP (12 option bytes) headers for tlen IP bytes. */
static void
t_headers(uint8_t *f, uint16_t ip_len, uint8_t flags)
{
	static const uint8_t mac[12] = { 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x01,
					 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x02 };

	memset(f, 0, T_HDR);
	memcpy(f, mac, 12);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)(ip_len >> 8); f[17] = (uint8_t)ip_len;
	f[18] = 0x12; f[19] = 0x34;   /* IP ID */
	f[20] = 0x40;                 /* DF */
	f[22] = 64; f[23] = 6;
	f[24] = 0xEE; f[25] = 0xEE;   /* wrong IP checksum: must be redone */
	f[26] = 192; f[27] = 168; f[28] = 100; f[29] = 1;
	f[30] = 192; f[31] = 168; f[32] = 100; f[33] = 2;
	f[34] = 0x9C; f[35] = 0x40; f[36] = 0x14; f[37] = 0x51; /* ports */
	f[38] = T_SEQ >> 24; f[39] = T_SEQ >> 16 & 0xFF;
	f[40] = T_SEQ >> 8 & 0xFF; f[41] = T_SEQ & 0xFF;
	f[45] = 1;
	f[46] = 0x80;                 /* data offset 8 words */
	f[47] = flags;
	f[48] = 0x01; f[49] = 0xF5;
	f[50] = 0xAB; f[51] = 0xCD;   /* partial checksum seed: redone */
	f[54] = 1; f[55] = 1; f[56] = 8; f[57] = 10; /* NOP NOP TS */
	f[58] = 0; f[59] = 0; f[60] = 0x11; f[61] = 0x22;
}

/* The super-frame in a chain: the big mbuf (no headroom) and a tail. */
static struct rte_mbuf *
t_superframe(struct t_ctx *c, uint8_t flags)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(c->big), *tail;
	uint16_t room;
	uint8_t *p;
	size_t k;

	assert_non_null(m);
	m->data_off = 0;
	room = rte_pktmbuf_tailroom(m);
	p = (uint8_t *)rte_pktmbuf_append(m, room);
	t_headers(p, (uint16_t)(T_FRAME - 14), flags);
	for (k = 0; k < room - T_HDR; k++)
		p[T_HDR + k] = t_byte(k);
	tail = rte_pktmbuf_alloc(c->pool);
	assert_non_null(tail);
	p = (uint8_t *)rte_pktmbuf_append(tail, (uint16_t)(T_FRAME - room));
	for (; k < T_PAYLOAD; k++)
		*p++ = t_byte(k);
	assert_int_equal(rte_pktmbuf_chain(m, tail), 0);
	assert_int_equal(rte_pktmbuf_pkt_len(m), T_FRAME);
	return m;
}

/* A vnet header as the kernel writes it for a TSO super-frame. */
static struct virtio_net_hdr
t_tso_hdr(void)
{
	return (struct virtio_net_hdr){
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = T_HDR, .gso_size = T_MSS,
		.csum_start = 34, .csum_offset = 16,
	};
}

/* Verify IPv4 and TCP checksums of a linear frame. */
static void
t_check_csums(const uint8_t *f, size_t len)
{
	uint16_t ip_len = (uint16_t)(f[16] << 8 | f[17]);
	uint32_t ph;

	assert_int_equal(ip_len, len - 14);
	assert_int_equal(rsh_test_fold(rsh_test_sum(0, f + 14, 20)), 0);
	ph = rsh_test_sum(0, f + 26, 8) + 6 + (uint32_t)(ip_len - 20);
	assert_int_equal(rsh_test_fold(rsh_test_sum(ph, f + 34, len - 34)), 0);
}

/* A frame copied into one linear mbuf of the pool (as the DPU sends it). */
static struct rte_mbuf *
t_linear(struct t_ctx *c, const struct rte_mbuf *m)
{
	struct rte_mbuf *l = rte_pktmbuf_alloc(c->pool);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t *p;

	assert_non_null(l);
	p = (uint8_t *)rte_pktmbuf_append(l, (uint16_t)len);
	assert_non_null(p);
	t_read(m, len, p);
	return l;
}

/* Cut the super-frame; check every segment; return them linearised. */
static unsigned int
t_cut(struct t_ctx *c, uint8_t flags, struct rte_mbuf **lin)
{
	struct virtio_net_hdr h = t_tso_hdr();
	struct rte_mbuf *seg[128];
	static uint8_t f[2048];
	unsigned int n, i;
	size_t off = 0, k;
	uint32_t seq;

	n = rsh_tap_ol_segment(&c->ol, &h, t_superframe(c, flags), seg, RTE_DIM(seg));
	assert_int_equal(n, (T_PAYLOAD + T_MSS - 1) / T_MSS);
	for (i = 0; i < n; i++) {
		uint32_t len = rte_pktmbuf_pkt_len(seg[i]);

		assert_true(len <= 1514);
		assert_true(len > T_HDR);
		t_read(seg[i], len, f);
		t_check_csums(f, len);
		seq = (uint32_t)f[38] << 24 | f[39] << 16 | f[40] << 8 | f[41];
		assert_int_equal(seq, T_SEQ + off);
		/* PSH/FIN only on the last segment. */
		assert_int_equal(f[47], i + 1 < n ? (flags & ~0x09) : flags);
		for (k = T_HDR; k < len; k++, off++)
			if (f[k] != t_byte(off))
				fail_msg("segment %u byte %zu differs", i, k);
		lin[i] = t_linear(c, seg[i]);
		rte_pktmbuf_free(seg[i]);
	}
	assert_int_equal(off, T_PAYLOAD);
	assert_int_equal(c->ol.st.gso_frames, 1);
	assert_int_equal(c->ol.st.gso_segments, n);
	return n;
}

/* A merged packet: header, checksums, payload from payload byte *off. */
static void
t_check_merged(const struct rte_mbuf *m, size_t *off)
{
	static uint8_t f[T_FRAME];
	uint32_t len = rte_pktmbuf_pkt_len(m), k;

	t_read(m, len, f);
	t_check_csums(f, len);
	for (k = T_HDR; k < len; k++, (*off)++)
		if (f[k] != t_byte(*off))
			fail_msg("merged byte %u differs", k);
}

/* 64 KiB super-frame → ≤ 1514-byte frames → one packet again. */
static void
test_superframe_round_trip(void **state)
{
	struct t_ctx *c = *state;
	struct rte_mbuf *lin[128];
	struct virtio_net_hdr hdr[RSH_TAP_OL_MERGE_MAX];
	unsigned int n, k;
	size_t off = 0;

	n = t_cut(c, 0x10 /* ACK */, lin);
	k = rsh_tap_ol_merge(&c->ol, lin, n, hdr);
	assert_int_equal(k, 1);
	assert_int_equal(lin[0]->nb_segs, n);
	assert_int_equal(hdr[0].gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(hdr[0].gso_size, T_MSS);
	assert_int_equal(hdr[0].hdr_len, T_HDR);
	assert_int_equal(hdr[0].flags, VIRTIO_NET_HDR_F_DATA_VALID);
	assert_int_equal(rte_pktmbuf_pkt_len(lin[0]), T_FRAME);
	t_check_merged(lin[0], &off);
	assert_int_equal(off, T_PAYLOAD);
	assert_int_equal(c->ol.st.gro_out, 1);
	assert_int_equal(c->ol.st.gro_merged, n);
	rte_pktmbuf_free(lin[0]);
}

/* PSH on the last segment: merged packet first, then that frame. */
static void
test_merge_keeps_order(void **state)
{
	struct t_ctx *c = *state;
	struct rte_mbuf *lin[128];
	struct virtio_net_hdr hdr[RSH_TAP_OL_MERGE_MAX];
	unsigned int n, k, i;
	size_t off = 0;

	n = t_cut(c, 0x18 /* ACK|PSH */, lin);
	k = rsh_tap_ol_merge(&c->ol, lin, n, hdr);
	assert_int_equal(k, 2);
	assert_int_equal(lin[0]->nb_segs, n - 1);
	assert_int_equal(hdr[0].gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(lin[1]->nb_segs, 1);
	assert_int_equal(hdr[1].gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(hdr[1].flags, VIRTIO_NET_HDR_F_DATA_VALID);
	for (i = 0; i < k; i++) {
		t_check_merged(lin[i], &off);
		rte_pktmbuf_free(lin[i]);
	}
	assert_int_equal(off, T_PAYLOAD);
}

/* A UDP frame: partial checksum completed, bytes otherwise unchanged;
 * an ARP frame passes both ways untouched with an empty header. */
static void
test_non_tcp_passes(void **state)
{
	struct t_ctx *c = *state;
	struct virtio_net_hdr h = { .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
				    .csum_start = 34, .csum_offset = 6 };
	struct virtio_net_hdr none = { 0 }, hdr[1];
	struct rte_mbuf *m = rte_pktmbuf_alloc(c->pool), *out[4];
	uint8_t f[200], ref[200];
	uint32_t ph;

	t_headers(f, 186, 0);
	f[23] = 17;                                 /* UDP */
	f[24] = f[25] = 0;
	f[39] = 186 - 20;                           /* UDP length */
	f[38] = 0;
	for (unsigned int k = 42; k < sizeof(f); k++)
		f[k] = t_byte(k);
	f[24] = 0; f[25] = 0;
	/* seed: the pseudo-header sum, as the kernel leaves it */
	ph = rsh_test_sum(0, f + 26, 8) + 17 + 166;
	f[40] = 0; f[41] = 0;
	while (ph >> 16)
		ph = (ph & 0xFFFF) + (ph >> 16);
	f[40] = (uint8_t)(ph >> 8); f[41] = (uint8_t)ph;
	f[24] = 0; f[25] = 0;
	{
		uint32_t s = rsh_test_sum(0, f + 14, 20);
		uint16_t ipc = rsh_test_fold(s);

		f[24] = (uint8_t)(ipc >> 8); f[25] = (uint8_t)ipc;
	}
	memcpy(ref, f, sizeof(f));
	memcpy(rte_pktmbuf_append(m, sizeof(f)), f, sizeof(f));
	assert_int_equal(rsh_tap_ol_segment(&c->ol, &h, m, out, 4), 1);
	assert_ptr_equal(out[0], m);
	memcpy(f, rte_pktmbuf_mtod(m, uint8_t *), sizeof(f));
	assert_int_equal(rsh_test_fold(rsh_test_sum(rsh_test_sum(0, f + 26, 8) + 17 + 166, f + 34, 166)), 0);
	assert_memory_equal(f, ref, 40);            /* only the checksum changed */
	assert_memory_equal(f + 42, ref + 42, sizeof(f) - 42);
	assert_int_equal(c->ol.st.csum_done, 1);
	rte_pktmbuf_free(m);

	m = rte_pktmbuf_alloc(c->pool);
	memset(f, 0, 60);
	memset(f, 0xFF, 6);
	f[12] = 0x08; f[13] = 0x06;
	memcpy(rte_pktmbuf_append(m, 60), f, 60);
	assert_int_equal(rsh_tap_ol_segment(&c->ol, &none, m, out, 4), 1);
	assert_ptr_equal(out[0], m);
	assert_int_equal(rsh_tap_ol_merge(&c->ol, out, 1, hdr), 1);
	assert_ptr_equal(out[0], m);
	assert_int_equal(hdr[0].flags, 0);
	assert_int_equal(hdr[0].gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 60);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), f, 60);
	rte_pktmbuf_free(m);
}

/* Corrupt vnet headers: dropped, each with its reason, no leak. */
static void
test_corrupt_headers(void **state)
{
	struct t_ctx *c = *state;
	struct virtio_net_hdr h;
	struct rte_mbuf *out[128];
	unsigned int avail = rte_mempool_avail_count(c->pool);
	unsigned int big = rte_mempool_avail_count(c->big);
	struct rte_mbuf *m;

	h = t_tso_hdr();
	h.csum_start = 40000;                       /* beyond the frame */
	m = rte_pktmbuf_alloc(c->pool);
	t_headers((uint8_t *)rte_pktmbuf_append(m, 200), 186, 0x10);
	assert_int_equal(rsh_tap_ol_segment(&c->ol, &h, m, out, 128), 0);
	assert_int_equal(c->ol.st.drop_bad_csum, 1);

	h = t_tso_hdr();
	h.gso_size = 0;
	assert_int_equal(rsh_tap_ol_segment(&c->ol, &h, t_superframe(c, 0x10),
					    out, 128), 0);
	assert_int_equal(c->ol.st.drop_bad_gso, 1);

	h = t_tso_hdr();
	m = rte_pktmbuf_alloc(c->pool);
	memset(rte_pktmbuf_append(m, 10), 0, 10);   /* shorter than Ethernet */
	assert_int_equal(rsh_tap_ol_segment(&c->ol, &h, m, out, 128), 0);
	assert_int_equal(c->ol.st.drop_short, 1);

	h = t_tso_hdr();
	h.gso_type = VIRTIO_NET_HDR_GSO_UDP;        /* never offered */
	assert_int_equal(rsh_tap_ol_segment(&c->ol, &h, t_superframe(c, 0x10),
					    out, 128), 0);
	assert_int_equal(c->ol.st.drop_gso_type, 1);

	h = t_tso_hdr();                            /* too many segments */
	assert_int_equal(rsh_tap_ol_segment(&c->ol, &h, t_superframe(c, 0x10),
					    out, 8), 0);
	assert_int_equal(c->ol.st.drop_nombuf, 1);
	assert_int_equal(c->ol.st.gso_segments, 0);

	assert_int_equal(rte_mempool_avail_count(c->pool), avail);
	assert_int_equal(rte_mempool_avail_count(c->big), big);
}

/* Fresh pools and counters per case. */
static int
t_setup(void **state)
{
	struct t_ctx *c = calloc(1, sizeof(*c));
	char name[32];

	if (c == NULL)
		return -1;
	snprintf(name, sizeof(name), "tbig%u", t_seq);
	c->big = rte_pktmbuf_pool_create(name, 4, 0, 0, UINT16_MAX, SOCKET_ID_ANY);
	snprintf(name, sizeof(name), "tseg%u", t_seq++);
	c->pool = rte_pktmbuf_pool_create(name, 1023, 0, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (c->big == NULL || c->pool == NULL)
		return -1;
	c->ol.pool = c->pool;
	*state = c;
	return 0;
}

static int
t_teardown(void **state)
{
	struct t_ctx *c = *state;

	rte_mempool_free(c->big);
	rte_mempool_free(c->pool);
	free(c);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_superframe_round_trip, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_merge_keeps_order, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_non_tcp_passes, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_headers, t_setup, t_teardown),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup, rsh_test_eal_teardown);
}
