/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the TM FIFO wire format and the host TX mux / RX demux
 * (lib/rshim/rsh_tmfifo.c) against a mock backend: two in-memory 256-word
 * FIFOs behind a struct rsh_backend_ops, checked word by word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rsh_dev_priv.h"
#include "rsh_tmfifo_api.h"
#include "rsh_tmfifo_proto.h"

#define RSH_T_FIFO 256u
#define RSH_T_LOG_MAX (1u << 16)

/* A 256-word FIFO with drop-on-full, like the hardware (§4.1). */
struct rsh_t_fifo {
	uint64_t w[RSH_T_FIFO];
	unsigned int head, cnt;
	unsigned int dropped;
};

/* The mock backend and what it observed. */
struct rsh_t_be {
	struct rsh_backend be;
	struct rsh_regmap map;
	struct rsh_t_fifo htt, tth;
	/* HTT side: STS reads in this poll pass, credit then. */
	unsigned int htt_sts_pass;
	unsigned int htt_credit;
	unsigned int htt_sts_reads, write_calls;
	unsigned int tth_sts_pass;
	unsigned int tth_sts_reads, read_calls;
	unsigned int credit_violations, sts_violations;
	unsigned int max_burst;
	/* Every word the ARM side popped from HTT, in order. */
	uint64_t log[RSH_T_LOG_MAX];
	unsigned int log_n;
};

/* One test's world: EAL already up; a fake device over the mock. */
struct rsh_t_ctx {
	struct rsh_t_be m;
	struct rsh_dev dev;
};

/* Push one word; drop when full. */
static void
rsh_t_push(struct rsh_t_fifo *f, uint64_t w)
{
	if (f->cnt == RSH_T_FIFO) {
		f->dropped++;
		return;
	}
	f->w[(f->head + f->cnt++) % RSH_T_FIFO] = w;
}

/* Pop one word; all-ones when empty. */
static uint64_t
rsh_t_pop(struct rsh_t_fifo *f)
{
	uint64_t w;

	if (f->cnt == 0)
		return UINT64_MAX;
	w = f->w[f->head];
	f->head = (f->head + 1) % RSH_T_FIFO;
	f->cnt--;
	return w;
}

/* Mock register read: the two STS registers. */
static uint64_t
rsh_t_read64(struct rsh_backend *be, uint32_t off)
{
	struct rsh_t_be *m = (struct rsh_t_be *)be;

	be->stats.reads++;
	if (off == m->map.off[RSH_TM_HOST_TO_TILE_STS]) {
		m->htt_sts_reads++;
		m->htt_sts_pass++;
		if (m->htt_sts_pass > 1)
			m->sts_violations++;
		m->htt_credit = m->htt.cnt >= 253 ? 0 : 253 - m->htt.cnt;
		return m->htt.cnt;
	}
	if (off == m->map.off[RSH_TM_TILE_TO_HOST_STS]) {
		m->tth_sts_reads++;
		m->tth_sts_pass++;
		assert_true(m->tth_sts_pass <= 1);
		return m->tth.cnt;
	}
	return 0;
}

/* Mock register write: nothing else is expected. */
static void
rsh_t_write64(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	RTE_SET_USED(off);
	RTE_SET_USED(v);
	be->stats.writes++;
}

/* HTT burst: checks one STS read per burst and the 256-count-3 credit. */
static void
rsh_t_write_fifo(struct rsh_backend *be, uint32_t off, const uint64_t *w,
		 unsigned int n)
{
	struct rsh_t_be *m = (struct rsh_t_be *)be;
	unsigned int i;

	assert_int_equal(off, m->map.off[RSH_TM_HOST_TO_TILE_DATA]);
	be->stats.writes += n;
	m->write_calls++;
	if (n > m->htt_credit)
		m->credit_violations++;
	assert_true(n <= m->htt_credit); /* on every call */
	assert_int_equal(m->htt_sts_pass, 1); /* checked in this very pass */
	m->htt_credit -= n;
	m->max_burst = RTE_MAX(m->max_burst, n);
	for (i = 0; i < n; i++)
		rsh_t_push(&m->htt, w[i]);
}

/* TTH burst: one STS read per burst, never more than available. */
static void
rsh_t_read_fifo(struct rsh_backend *be, uint32_t off, uint64_t *w,
		unsigned int n)
{
	struct rsh_t_be *m = (struct rsh_t_be *)be;
	unsigned int i;

	assert_int_equal(off, m->map.off[RSH_TM_TILE_TO_HOST_DATA]);
	be->stats.reads += n;
	m->read_calls++;
	assert_int_equal(m->tth_sts_pass, 1);
	assert_true(n <= m->tth.cnt);
	for (i = 0; i < n; i++)
		w[i] = rsh_t_pop(&m->tth);
}

static void
rsh_t_close(struct rsh_backend *be)
{
	RTE_SET_USED(be);
}

static const struct rsh_backend_ops rsh_t_ops = {
	.read64 = rsh_t_read64,
	.write64 = rsh_t_write64,
	.write_fifo = rsh_t_write_fifo,
	.read_fifo = rsh_t_read_fifo,
	.close = rsh_t_close,
};

/* ARM side: pop up to n words from HTT into the log. */
static unsigned int
rsh_t_arm_drain(struct rsh_t_ctx *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && c->m.htt.cnt > 0; i++) {
		assert_true(c->m.log_n < RSH_T_LOG_MAX);
		c->m.log[c->m.log_n++] = rsh_t_pop(&c->m.htt);
	}
	return i;
}

/* ARM side: queue a message into TTH (header + padded payload). */
static void
rsh_t_arm_send(struct rsh_t_ctx *c, uint64_t hdr, const void *p, size_t len)
{
	uint64_t w[8192];
	size_t i, nw = (len + 7) / 8;

	rsh_tmf_pack(w, p, len);
	rsh_t_push(&c->m.tth, hdr);
	for (i = 0; i < nw; i++)
		rsh_t_push(&c->m.tth, w[i]);
}

/* Per-case setup: a fresh mock and device (no shared globals). */
static int
rsh_t_setup(void **state)
{
	struct rsh_t_ctx *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return -1;
	c->m.be.ops = &rsh_t_ops;
	c->m.be.gen = RSH_GEN_BF3;
	snprintf(c->m.be.name, sizeof(c->m.be.name), "mock:bf3");
	if (rsh_regmap_init(&c->m.map, RSH_GEN_BF3) != 0) {
		free(c);
		return -1;
	}
	snprintf(c->dev.name, sizeof(c->dev.name), "mock:bf3");
	c->dev.be = &c->m.be;
	c->dev.map = c->m.map;
	*state = c;
	return 0;
}

/* Per-case teardown. */
static int
rsh_t_teardown(void **state)
{
	struct rsh_t_ctx *c = *state;

	rsh_tmfifo_detach(&c->dev);
	free(c);
	return 0;
}

/* Attach with small rings, no sync fill unless asked. */
static void
rsh_t_attach(struct rsh_t_ctx *c, unsigned int ring, bool sync)
{
	struct rsh_tmfifo_opts o;

	rsh_tmfifo_opts_default(&o);
	o.ring_size = ring;
	o.pool_size = 1023;
	o.no_sync = !sync;
	assert_int_equal(rsh_tmfifo_attach(&c->dev, &o), 0);
}

/* One poll pass. */
static unsigned int
rsh_t_poll(struct rsh_t_ctx *c)
{
	uint64_t sleep_ns = 1000000;

	c->m.htt_sts_pass = 0;
	c->m.tth_sts_pass = 0;
	return rsh_tmfifo_poll(&c->dev, rte_get_timer_cycles(), &sleep_ns);
}

/* A net frame whose bytes identify it: byte i = id + i, byte 0..1 = id. */
static struct rte_mbuf *
rsh_t_frame(struct rsh_t_ctx *c, unsigned int id, unsigned int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rsh_tmfifo_pool(&c->dev));
	uint8_t *p;
	unsigned int i;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	assert_non_null(p);
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(id + i);
	return m;
}

/* Golden vectors, reference §4.3 and dpu-side-tmfifo.md §2.1. */
static void
test_golden_vectors(void **state)
{
	uint8_t mac[6] = { 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x01 };
	uint8_t bytes[11] = "hello, arm";
	uint64_t w[2], out[2];
	uint64_t m1, m2;

	RTE_SET_USED(state);
	assert_true(rsh_tmf_hdr_encode(RSH_TMF_TYPE_NET, 0, NULL) ==
		    0xFF00000000000001ull);
	assert_true(RSH_TMF_SYNC_WORD == 0xFF00000000000001ull);
	assert_true(rsh_tmf_hdr_encode(RSH_TMF_TYPE_CONSOLE, 5, NULL) ==
		    0xF800000000050003ull);
	assert_true(rsh_tmf_hdr_encode(RSH_TMF_TYPE_CTRL_REQ, 0, NULL) ==
		    0x03000000000000FDull);
	assert_true(rsh_tmf_hdr_encode(RSH_TMF_TYPE_NET, 60, NULL) ==
		    0xC3000000003C0001ull);
	/* decode, big-endian length */
	assert_int_equal(rsh_tmf_hdr_len(0xC3000000003C0001ull), 60);
	assert_int_equal(rsh_tmf_hdr_len(rsh_tmf_hdr_encode(1, 0x1234, NULL)),
			 0x1234);
	assert_int_equal(rsh_tmf_hdr_encode(1, 0x1234, NULL) & 0xFFFFFF, 0x341201);
	assert_int_equal(rsh_tmf_hdr_type(0xF800000000050003ull), 3);
	/* checksum rule: 0 = unchecked, else sum 0 */
	assert_true(rsh_tmf_hdr_csum_ok(0x0000000000050003ull));
	assert_true(rsh_tmf_hdr_csum_ok(0xF800000000050003ull));
	assert_false(rsh_tmf_hdr_csum_ok(0xF700000000050003ull));
	/* control words */
	m1 = rsh_tmf_ctrl_mac(RSH_TMF_TYPE_MAC_1, mac);
	m2 = rsh_tmf_ctrl_mac(RSH_TMF_TYPE_MAC_2, mac);
	assert_true((m1 & 0x00FFFFFFFFFFFFFFull) == 0x0000CA1A000000FEull);
	assert_true((m2 & 0x00FFFFFFFFFFFFFFull) == 0x000001FFFF0000FFull);
	assert_int_equal(rsh_tmf_byte_sum(m1), 0);
	assert_int_equal(rsh_tmf_byte_sum(m2), 0);
	assert_int_equal(rsh_tmf_hdr_be16(rsh_tmf_ctrl_vlan(0x123, 0xABC), 2),
			 0xABC);
	assert_int_equal(rsh_tmf_hdr_be32(rsh_tmf_ctrl_pxe(0xDEADBEEF)),
			 0xDEADBEEF);
	assert_true((rsh_tmf_ctrl_pxe(0x01020304) & 0x00FFFFFFFF000000ull) ==
		    0x0004030201000000ull);
	/* payload: little-endian, zero padded */
	rsh_tmf_pack(w, bytes, 10);
	assert_true(w[0] == 0x61202c6f6c6c6568ull);
	assert_true(w[1] == 0x0000000000006d72ull);
	memset(out, 0xAA, sizeof(out));
	rsh_tmf_unpack(out, w, 10);
	assert_memory_equal(out, bytes, 10);
	assert_int_equal(rsh_tmf_msg_words(0), 1);
	assert_int_equal(rsh_tmf_msg_words(1), 2);
	assert_int_equal(rsh_tmf_msg_words(1536), 193);
}

/* Attach sends 256 − count − 3 sync words in one burst after one STS read. */
static void
test_attach_sync_fill(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_stats st;
	unsigned int i;

	for (i = 0; i < 10; i++)
		rsh_t_push(&c->m.htt, 0x1234);
	rsh_t_attach(c, 64, true);
	assert_int_equal(c->m.htt_sts_reads, 1);
	assert_int_equal(c->m.write_calls, 1);
	assert_int_equal(c->m.htt.cnt, 253);
	assert_int_equal(c->m.htt.dropped, 0);
	rsh_t_arm_drain(c, 300);
	assert_int_equal(c->m.log_n, 253);
	for (i = 10; i < 253; i++)
		assert_true(c->m.log[i] == RSH_TMF_SYNC_WORD);
	assert_int_equal(rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, NULL, &st), 0);
	assert_int_equal(st.tx_sync_words, 243);
	/* attaching twice is refused */
	assert_int_equal(rsh_tmfifo_attach(&c->dev, NULL), -EEXIST);
}

/* A full FIFO (count 254) gets no sync words and no write. */
static void
test_attach_sync_full(void **state)
{
	struct rsh_t_ctx *c = *state;
	unsigned int i;

	for (i = 0; i < 254; i++)
		rsh_t_push(&c->m.htt, 0);
	rsh_t_attach(c, 64, true);
	assert_int_equal(c->m.write_calls, 0);
	assert_int_equal(c->m.htt.cnt, 254);
}

/* Parsed view of the ARM-side log. */
struct rsh_t_parsed {
	unsigned int net_ids[512];
	unsigned int n_net;
	uint8_t con[65536];
	unsigned int n_con;
	uint8_t order[1024];   /* type of each data message, in order */
	unsigned int n_msgs;
	uint64_t ctrl[16];
	unsigned int n_ctrl;
	int ctrl_after;        /* data messages before the first control */
};

/*
 * Parse the ARM-side log as the ARM would. Any interleaving shows up as a
 * payload that does not match its frame's pattern.
 */
static void
rsh_t_parse_log(struct rsh_t_ctx *c, struct rsh_t_parsed *p)
{
	uint8_t buf[65536];
	unsigned int i = 0, len, j, nw;
	uint64_t h;

	memset(p, 0, sizeof(*p));
	p->ctrl_after = -1;
	while (i < c->m.log_n) {
		h = c->m.log[i++];
		len = rsh_tmf_hdr_len(h);
		assert_true(rsh_tmf_hdr_csum_ok(h));
		assert_int_equal(rsh_tmf_byte_sum(h), 0); /* host always sums */
		if (len == 0) {
			if (rsh_tmf_hdr_type(h) >= RSH_TMF_TYPE_CTRL_FIRST) {
				if (p->ctrl_after < 0)
					p->ctrl_after = (int)p->n_msgs;
				p->ctrl[p->n_ctrl++] = h;
			}
			continue;
		}
		nw = (len + 7) / 8;
		assert_true(i + nw <= c->m.log_n);
		rsh_tmf_unpack(buf, &c->m.log[i], len);
		for (j = len; j < nw * 8; j++) /* padding is zero */
			assert_int_equal((uint8_t)(c->m.log[i + j / 8] >> (8 * (j % 8))), 0);
		i += nw;
		p->order[p->n_msgs++] = rsh_tmf_hdr_type(h);
		if (rsh_tmf_hdr_type(h) == RSH_TMF_TYPE_NET) {
			for (j = 0; j < len; j++)
				assert_int_equal(buf[j], (uint8_t)(buf[0] + j));
			p->net_ids[p->n_net++] = buf[0];
		} else {
			assert_int_equal(rsh_tmf_hdr_type(h), RSH_TMF_TYPE_CONSOLE);
			memcpy(&p->con[p->n_con], buf, len);
			p->n_con += len;
		}
	}
}

/*
 * TX mux word by word: the ARM drains a pseudo-random number of words
 * between passes; the credit is checked on every write_fifo (in the mock);
 * messages arrive whole, in order, round-robin.
 */
static void
test_tx_mux_interleave_credit(void **state)
{
	struct rsh_t_ctx *c = *state;
	static struct rsh_t_parsed p;
	struct rsh_tmfifo_chan_stats cs, ns;
	uint8_t con[6000];
	struct rte_mbuf *m;
	unsigned int i, id, seed = 12345, polls = 0;

	rsh_t_attach(c, 256, false);
	for (i = 0; i < sizeof(con); i++)
		con[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(rsh_tmfifo_console_write(&c->dev, con, sizeof(con)),
			 sizeof(con));
	for (id = 0; id < 40; id++) {
		m = rsh_t_frame(c, id, 60 + (id * 97) % 1477);
		assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	}
	do {
		rsh_t_poll(c);
		seed = seed * 1103515245u + 12345u;
		rsh_t_arm_drain(c, (seed >> 16) % 300);
		polls++;
	} while ((c->m.htt.cnt > 0 || rsh_t_poll(c) > 0) && polls < 10000);
	rsh_t_arm_drain(c, 300);
	assert_int_equal(c->m.credit_violations, 0);
	assert_int_equal(c->m.sts_violations, 0);
	assert_int_equal(c->m.htt.dropped, 0);
	assert_true(c->m.max_burst <= 253);
	assert_true(c->m.write_calls > 10); /* messages were split */
	rsh_t_parse_log(c, &p);
	assert_int_equal(p.n_net, 40);
	for (id = 0; id < 40; id++)
		assert_int_equal(p.net_ids[id], id);
	assert_int_equal(p.n_con, sizeof(con));
	assert_memory_equal(p.con, con, sizeof(con));
	/* round-robin at message boundaries: the 3 console chunks alternate
	 * with network frames while both are backlogged */
	assert_int_equal(p.order[0], RSH_TMF_TYPE_CONSOLE);
	assert_int_equal(p.order[1], RSH_TMF_TYPE_NET);
	assert_int_equal(p.order[2], RSH_TMF_TYPE_CONSOLE);
	assert_int_equal(p.order[3], RSH_TMF_TYPE_NET);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_CONSOLE, &cs, NULL);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_int_equal(cs.tx_bytes, sizeof(con));
	assert_int_equal(cs.tx_msgs, 3);
	assert_int_equal(ns.tx_msgs, 40);
}

/* Control messages go at the next message boundary, before data. */
static void
test_tx_ctrl_at_boundary(void **state)
{
	struct rsh_t_ctx *c = *state;
	static struct rsh_t_parsed p;
	uint8_t mac[6] = { 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x05 };
	struct rte_mbuf *m;
	unsigned int id, i;

	rsh_t_attach(c, 64, false);
	for (i = 0; i < 250; i++) /* only 3 words of credit left */
		rsh_t_push(&c->m.htt, RSH_TMF_SYNC_WORD);
	for (id = 0; id < 3; id++) {
		m = rsh_t_frame(c, id, 100);
		assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	}
	rsh_t_poll(c); /* frame 0 partly written */
	assert_int_equal(c->m.htt.cnt, 253);
	assert_int_equal(rsh_tmfifo_ctrl_set_mac(&c->dev, mac), 0);
	assert_int_equal(rsh_tmfifo_ctrl_request(&c->dev), 0);
	for (i = 0; i < 50; i++) {
		rsh_t_arm_drain(c, 5);
		rsh_t_poll(c);
	}
	rsh_t_arm_drain(c, 300);
	memmove(c->m.log, c->m.log + 250, (c->m.log_n - 250) * sizeof(uint64_t));
	c->m.log_n -= 250;
	rsh_t_parse_log(c, &p);
	assert_int_equal(p.n_net, 3);
	assert_int_equal(p.n_ctrl, 3);
	assert_int_equal(p.ctrl_after, 1); /* right after the current frame */
	assert_true(p.ctrl[0] == rsh_tmf_ctrl_mac(RSH_TMF_TYPE_MAC_1, mac));
	assert_true(p.ctrl[1] == rsh_tmf_ctrl_mac(RSH_TMF_TYPE_MAC_2, mac));
	assert_true(p.ctrl[2] == 0x03000000000000FDull);
}

/* Oversize and empty transmit mbufs are dropped and counted. */
static void
test_tx_drops_counted(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_chan_stats ns;
	struct rte_mbuf *m[3];

	rsh_t_attach(c, 64, false);
	m[0] = rsh_t_frame(c, 1, 1600);
	m[1] = rte_pktmbuf_alloc(rsh_tmfifo_pool(&c->dev));
	m[2] = rsh_t_frame(c, 9, 64);
	assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, m, 3), 3);
	rsh_t_poll(c);
	rsh_t_arm_drain(c, 300);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_int_equal(ns.tx_drop_oversize, 1);
	assert_int_equal(ns.tx_drop_empty, 1);
	assert_int_equal(ns.tx_msgs, 1);
	assert_int_equal(c->m.log_n, 1 + 8);
	assert_true(c->m.log[0] == rsh_tmf_hdr_encode(1, 64, NULL));
}

/* Receive n net frames from the rx side, polling meanwhile. */
static unsigned int
rsh_t_rx_frames(struct rsh_t_ctx *c, struct rte_mbuf **out, unsigned int max,
		unsigned int passes)
{
	unsigned int n = 0, i;

	for (i = 0; i < passes && n < max; i++) {
		rsh_t_poll(c);
		n += rsh_tmfifo_net_rx_burst(&c->dev, out + n, (uint16_t)(max - n));
	}
	return n;
}

/* Check a received frame against rsh_t_frame()'s pattern. */
static void
rsh_t_check_frame(struct rte_mbuf *m, unsigned int id, unsigned int len)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned int i;

	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	assert_int_equal(m->nb_segs, 1);
	for (i = 0; i < len; i++)
		assert_int_equal(p[i], (uint8_t)(id + i));
	rte_pktmbuf_free(m);
}

/* RX demux: console and net routed, zero-length words skipped, one STS
 * read and one read_fifo per pass. */
static void
test_rx_demux(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_chan_stats cs, ns;
	struct rsh_tmfifo_stats st;
	uint8_t f[1536], con[64];
	struct rte_mbuf *m[8];
	unsigned int i, n, got = 0, reads;

	rsh_t_attach(c, 64, false);
	for (i = 0; i < sizeof(f); i++)
		f[i] = (uint8_t)(5 + i);
	rsh_t_arm_send(c, RSH_TMF_SYNC_WORD, NULL, 0);
	rsh_t_arm_send(c, 0, NULL, 0); /* ARM Tx-timeout zero word */
	rsh_t_arm_send(c, 0x0000000000050003ull, "hello", 5); /* byte 7 = 0 */
	rsh_t_arm_send(c, rsh_tmf_hdr_encode(1, 60, NULL), f, 60);
	assert_int_equal(rsh_t_poll(c), 1 + 1 + 2 + 9);
	assert_int_equal(c->m.read_calls, 1);
	assert_int_equal(c->m.tth_sts_reads, 1);
	/* a 1536-byte frame (193 words) arrives in pieces across passes */
	for (i = 0; i < 193; i += 50) {
		uint64_t w[200];

		w[0] = rsh_tmf_hdr_encode(1, 1536, NULL);
		rsh_tmf_pack(&w[1], f, 1536);
		for (n = i; n < RTE_MIN(i + 50, 193u); n++)
			rsh_t_push(&c->m.tth, w[n]);
		reads = c->m.tth_sts_reads;
		rsh_t_poll(c);
		assert_int_equal(c->m.tth_sts_reads, reads + 1); /* one per pass */
		assert_int_equal(c->m.tth.cnt, 0);
	}
	assert_int_equal(c->m.read_calls, 1 + 4);
	rsh_t_arm_send(c, 0x0000000000070003ull, "world!!", 7);
	n = rsh_t_rx_frames(c, m, 8, 20);
	assert_int_equal(n, 2);
	rsh_t_check_frame(m[0], 5, 60);
	rsh_t_check_frame(m[1], 5, 1536);
	got = (unsigned int)rsh_tmfifo_console_read(&c->dev, con, sizeof(con));
	assert_int_equal(got, 12);
	assert_memory_equal(con, "helloworld!!", 12);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_CONSOLE, &cs, &st);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_int_equal(st.rx_noop, 2);
	assert_int_equal(cs.rx_msgs, 2);
	assert_int_equal(ns.rx_msgs, 2);
	assert_int_equal(ns.rx_bytes, 1596);
	assert_int_equal(c->m.tth.cnt, 0);
}

/* Corrupt headers are drained and counted; the stream resynchronises. */
static void
test_rx_resync(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_chan_stats ns;
	struct rsh_tmfifo_stats st;
	uint8_t f[1700];
	struct rte_mbuf *m[4];
	unsigned int i;

	rsh_t_attach(c, 64, false);
	for (i = 0; i < sizeof(f); i++)
		f[i] = (uint8_t)(7 + i);
	rsh_t_arm_send(c, rsh_tmf_hdr_encode(1, 64, NULL), f, 64);
	rsh_t_arm_send(c, rsh_tmf_hdr_encode(0x42, 20, NULL), f, 20); /* unknown */
	rsh_t_arm_send(c, rsh_tmf_hdr_encode(1, 1600, NULL), f, 1600); /* oversize */
	rsh_t_arm_send(c, rsh_tmf_hdr_encode(1, 100, NULL), f, 100);
	assert_int_equal(c->m.tth.dropped, 0);
	assert_int_equal(rsh_t_rx_frames(c, m, 4, 30), 2);
	rsh_t_check_frame(m[0], 7, 64);
	rsh_t_check_frame(m[1], 7, 100);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, &st);
	assert_int_equal(st.rx_drop_unknown, 1);
	assert_int_equal(st.rx_drop_unknown_bytes, 20);
	assert_int_equal(ns.rx_drop_oversize, 1);
	assert_int_equal(ns.rx_drop_bytes, 1600);
	rsh_t_arm_send(c, rsh_tmf_hdr_encode(1, 100, NULL), f, 100);
	assert_int_equal(rsh_t_rx_frames(c, m, 4, 30), 1);
	rsh_t_check_frame(m[0], 7, 100);
}

/*
 * Back-pressure: with the net rx ring full the poll lcore stops popping,
 * data stays in the FIFO, and nothing is lost once the ring drains.
 */
static void
test_rx_backpressure_net(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_chan_stats ns;
	struct rte_mbuf *m[64];
	struct rte_ring *rx, *tx;
	uint8_t f[120];
	unsigned int i, id = 0, got = 0, sent = 0, reads;

	rsh_t_attach(c, 4, false); /* 3 usable ring slots */
	assert_int_equal(rsh_tmfifo_rings(&c->dev, RSH_TMFIFO_NET, &rx, &tx), 0);
	for (sent = 0; sent < 16; sent++) { /* 16 x 16 words = 256 */
		for (i = 0; i < sizeof(f); i++)
			f[i] = (uint8_t)(sent + i);
		rsh_t_arm_send(c, rsh_tmf_hdr_encode(1, 120, NULL), f, 120);
	}
	assert_int_equal(c->m.tth.dropped, 0);
	for (i = 0; i < 20; i++)
		rsh_t_poll(c);
	assert_int_equal(rte_ring_count(rx), 3);
	/* one burst popped at most; the FIFO is not drained further */
	reads = c->m.read_calls;
	for (i = 0; i < 20; i++)
		rsh_t_poll(c);
	assert_int_equal(c->m.read_calls, reads);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_true(ns.rx_ring_full > 0);
	/* the ARM keeps sending: the FIFO fills back up and holds it */
	for (; sent < 40 && c->m.tth.cnt + 16 <= RSH_T_FIFO; sent++) {
		for (i = 0; i < sizeof(f); i++)
			f[i] = (uint8_t)(sent + i);
		rsh_t_arm_send(c, rsh_tmf_hdr_encode(1, 120, NULL), f, 120);
	}
	rsh_t_poll(c);
	assert_true(c->m.tth.cnt >= 240);
	assert_int_equal(c->m.tth.dropped, 0);
	/* drain slowly: every frame arrives, in order */
	for (i = 0; i < 2000 && got < sent; i++) {
		rsh_t_poll(c);
		if (rsh_tmfifo_net_rx_burst(&c->dev, m, 1) == 1) {
			rsh_t_check_frame(m[0], id++, 120);
			got++;
		}
	}
	assert_int_equal(got, sent);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_int_equal(ns.rx_drop_bytes, 0);
	assert_int_equal(ns.rx_mbufs, sent);
}

/* Back-pressure on the console ring (long messages split over mbufs). */
static void
test_rx_backpressure_console(void **state)
{
	struct rsh_t_ctx *c = *state;
	static uint8_t sent[20000], got[20000];
	struct rte_ring *rx, *tx;
	size_t n = 0, k, s = 0;
	unsigned int i;

	rsh_t_attach(c, 2, false); /* 1 usable ring slot */
	assert_int_equal(rsh_tmfifo_rings(&c->dev, RSH_TMFIFO_CONSOLE, &rx, &tx), 0);
	for (i = 0; i < sizeof(sent); i++)
		sent[i] = (uint8_t)(i * 13);
	for (i = 0; i < 20000 && n < sizeof(got); i++) {
		/* the ARM writes console chunks as space allows (≤ 255−count) */
		if (s < sizeof(sent) && c->m.tth.cnt < 200) {
			k = RTE_MIN(sizeof(sent) - s, (size_t)400);
			rsh_t_arm_send(c, rsh_tmf_hdr_encode(3, (uint16_t)k, NULL),
				       sent + s, k);
			s += k;
		}
		rsh_t_poll(c);
		if (i % 3 == 0)
			n += rsh_tmfifo_console_read(&c->dev, got + n, 700);
		if (s == sizeof(sent) && i > 100 && c->m.tth.cnt > 0)
			assert_true(rte_ring_count(rx) <= 1);
	}
	assert_int_equal(c->m.tth.dropped, 0);
	assert_int_equal(n, sizeof(sent));
	assert_memory_equal(got, sent, sizeof(sent));
}

/* Control replies verified by checksum and recorded. */
static void
test_rx_ctrl(void **state)
{
	struct rsh_t_ctx *c = *state;
	uint8_t mac[6] = { 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x01 };
	struct rsh_tmfifo_peer p;
	struct rsh_tmfifo_stats st;

	rsh_t_attach(c, 64, false);
	assert_int_equal(rsh_tmfifo_peer_get(&c->dev, &p), 0);
	assert_int_equal(p.have, 0);
	rsh_t_arm_send(c, rsh_tmf_ctrl_mac(RSH_TMF_TYPE_MAC_1, mac), NULL, 0);
	rsh_t_arm_send(c, rsh_tmf_ctrl_mac(RSH_TMF_TYPE_MAC_2, mac), NULL, 0);
	rsh_t_arm_send(c, rsh_tmf_ctrl_vlan(10, 20) ^ (1ull << 56), NULL, 0); /* bad */
	rsh_t_arm_send(c, rsh_tmf_ctrl_vlan(30, 40) & 0x00FFFFFFFFFFFFFFull,
		       NULL, 0); /* checksum 0: accepted unchecked */
	rsh_t_arm_send(c, 0x00000000000000F0ull, NULL, 0); /* unknown, len 0 */
	rsh_t_arm_send(c, rsh_tmf_ctrl_pxe(0x0A0B0C0D), NULL, 0);
	rsh_t_poll(c);
	assert_int_equal(rsh_tmfifo_peer_get(&c->dev, &p), 0);
	assert_memory_equal(p.mac, mac, 6);
	assert_int_equal(p.vlan[0], 30);
	assert_int_equal(p.vlan[1], 40);
	assert_int_equal(p.pxe_id, 0x0A0B0C0D);
	assert_int_equal(p.replies, 1);
	assert_int_equal(p.have, 0xF);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, NULL, &st);
	assert_int_equal(st.rx_ctrl, 4);
	assert_int_equal(st.rx_ctrl_bad_csum, 1);
	assert_int_equal(st.rx_ctrl_unknown, 1);
}

/* While a boot push runs the TM FIFO is left alone; afterwards resync. */
static void
test_boot_leaves_fifo_alone(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_stats st;
	struct rte_mbuf *m;
	uint64_t reads;

	rsh_t_attach(c, 64, false);
	m = rsh_t_frame(c, 1, 64);
	assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	c->dev.boot = (struct rsh_boot *)(uintptr_t)0x1;
	reads = c->m.be.stats.reads;
	assert_int_equal(rsh_t_poll(c), 0);
	assert_int_equal(c->m.be.stats.reads, reads);
	assert_int_equal(c->m.write_calls, 0);
	c->dev.boot = NULL;
	rsh_t_poll(c);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, NULL, &st);
	assert_int_equal(st.resets, 1);
	assert_int_equal(st.tx_sync_words, 253);
	rsh_t_arm_drain(c, 300);
	for (int i = 0; i < 5; i++)
		rsh_t_poll(c);
	rsh_t_arm_drain(c, 300);
	assert_int_equal(c->m.log_n, 253 + 9);
	assert_true(c->m.log[253] == rsh_tmf_hdr_encode(1, 64, NULL));
}

/* Idle passes do no TX MMIO: one TTH STS read each, nothing else. */
static void
test_idle_mmio(void **state)
{
	struct rsh_t_ctx *c = *state;
	uint64_t r0;
	unsigned int i;

	rsh_t_attach(c, 64, false);
	r0 = c->m.be.stats.reads;
	for (i = 0; i < 100; i++)
		assert_int_equal(rsh_t_poll(c), 0);
	assert_int_equal(c->m.be.stats.reads - r0, 100);
	assert_int_equal(c->m.htt_sts_reads, 0);
	assert_int_equal(c->m.be.stats.writes, 0);
}

/* EAL once for the group (--no-huge so no hugepages are needed). */
static int
rsh_t_group_setup(void **state)
{
	char *argv[] = { "test_tmfifo", "--no-huge", "--no-shconf", "--no-pci",
			 "-l", "0", "--log-level=lib.eal:error", NULL };

	RTE_SET_USED(state);
	return rte_eal_init(7, argv) < 0 ? -1 : 0;
}

static int
rsh_t_group_teardown(void **state)
{
	RTE_SET_USED(state);
	rte_eal_cleanup();
	return 0;
}

int
main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, rsh_t_setup, rsh_t_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_vectors),
		T(test_attach_sync_fill),
		T(test_attach_sync_full),
		T(test_tx_mux_interleave_credit),
		T(test_tx_ctrl_at_boundary),
		T(test_tx_drops_counted),
		T(test_rx_demux),
		T(test_rx_resync),
		T(test_rx_backpressure_net),
		T(test_rx_backpressure_console),
		T(test_rx_ctrl),
		T(test_boot_leaves_fifo_alone),
		T(test_idle_mmio),
	};
#undef T
	return cmocka_run_group_tests(tests, rsh_t_group_setup,
				      rsh_t_group_teardown);
}
