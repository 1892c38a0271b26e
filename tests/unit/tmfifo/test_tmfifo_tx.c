/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the host TX mux (lib/rshim/rsh_tmfifo.c) against the mock
 * backend of rsh_t_tmfifo_mock.h: the attach sync fill, the 256-count-3
 * credit checked on every burst, round-robin at message boundaries, control
 * messages, drops, the hands-off during a boot push, idle MMIO.
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
#include "rsh_t_tmfifo_mock.h"
#include "rsh_test_eal.h"
#include "rsh_tmfifo_api.h"
#include "rsh_tmfifo_priv.h"
#include "rsh_tmfifo_proto.h"

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
		assert_true(c->m.log[i] == RSH_TMFIFO_SYNC_WORD);
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
		len = rsh_tmfifo_hdr_len(h);
		assert_true(rsh_tmfifo_hdr_csum_ok(h));
		assert_int_equal(rsh_tmfifo_byte_sum(h), 0); /* host always sums */
		if (len == 0) {
			if (rsh_tmfifo_hdr_type(h) >= RSH_TMFIFO_TYPE_CTRL_FIRST) {
				if (p->ctrl_after < 0)
					p->ctrl_after = (int)p->n_msgs;
				p->ctrl[p->n_ctrl++] = h;
			}
			continue;
		}
		nw = (len + 7) / 8;
		assert_true(i + nw <= c->m.log_n);
		rsh_tmfifo_unpack(buf, &c->m.log[i], len);
		for (j = len; j < nw * 8; j++) /* padding is zero */
			assert_int_equal((uint8_t)(c->m.log[i + j / 8] >> (8 * (j % 8))), 0);
		i += nw;
		p->order[p->n_msgs++] = rsh_tmfifo_hdr_type(h);
		if (rsh_tmfifo_hdr_type(h) == RSH_TMFIFO_TYPE_NET) {
			for (j = 0; j < len; j++)
				assert_int_equal(buf[j], (uint8_t)(buf[0] + j));
			p->net_ids[p->n_net++] = buf[0];
		} else {
			assert_int_equal(rsh_tmfifo_hdr_type(h), RSH_TMFIFO_TYPE_CONSOLE);
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
	assert_int_equal(p.order[0], RSH_TMFIFO_TYPE_CONSOLE);
	assert_int_equal(p.order[1], RSH_TMFIFO_TYPE_NET);
	assert_int_equal(p.order[2], RSH_TMFIFO_TYPE_CONSOLE);
	assert_int_equal(p.order[3], RSH_TMFIFO_TYPE_NET);
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
	struct rsh_tmfifo_ctrl mac_msg = { .type = RSH_TMFIFO_CTRL_MAC,
		.mac = { 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x05 } };
	struct rsh_tmfifo_ctrl req_msg = { .type = RSH_TMFIFO_CTRL_REQ };
	struct rte_mbuf *m;
	unsigned int id, i;

	rsh_t_attach(c, 64, false);
	for (i = 0; i < 250; i++) /* only 3 words of credit left */
		rsh_t_push(&c->m.htt, RSH_TMFIFO_SYNC_WORD);
	for (id = 0; id < 3; id++) {
		m = rsh_t_frame(c, id, 100);
		assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	}
	rsh_t_poll(c); /* frame 0 partly written */
	assert_int_equal(c->m.htt.cnt, 253);
	assert_int_equal(rsh_tmfifo_ctrl_send(&c->dev, &mac_msg), 0);
	assert_int_equal(rsh_tmfifo_ctrl_send(&c->dev, &req_msg), 0);
	assert_int_equal(rsh_tmfifo_ctrl_send(&c->dev, &(struct rsh_tmfifo_ctrl){
		.type = (enum rsh_tmfifo_ctrl_type)99 }), -EINVAL);
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
	assert_true(p.ctrl[0] == rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_1, mac_msg.mac));
	assert_true(p.ctrl[1] == rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_2, mac_msg.mac));
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
	assert_true(c->m.log[0] == rsh_tmfifo_hdr_encode(1, 64, NULL));
}

/*
 * While a boot push runs there is no host TX (only the console is read,
 * hardware-notes §3.2 notes); afterwards resync.
 */
static void
test_boot_leaves_fifo_alone(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_stats st;
	struct rte_mbuf *m;
	unsigned int htt;

	rsh_t_attach(c, 64, false);
	m = rsh_t_frame(c, 1, 64);
	assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	rsh_dev_boot_state(&c->dev)->push = (struct rsh_boot *)(uintptr_t)0x1;
	htt = c->m.htt_sts_reads;
	assert_int_equal(rsh_t_poll(c), 0);
	assert_int_equal(c->m.write_calls, 0);
	assert_int_equal(c->m.htt_sts_reads, htt);
	rsh_dev_boot_state(&c->dev)->push = NULL;
	rsh_t_poll(c);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, NULL, &st);
	assert_int_equal(st.resets, 1);
	assert_int_equal(st.tx_sync_words, 253);
	rsh_t_arm_drain(c, 300);
	for (int i = 0; i < 5; i++)
		rsh_t_poll(c);
	rsh_t_arm_drain(c, 300);
	assert_int_equal(c->m.log_n, 253 + 9);
	assert_true(c->m.log[253] == rsh_tmfifo_hdr_encode(1, 64, NULL));
}

/*
 * A frame stuck half-written for 2 s (the ARM stopped reading) is
 * finished with zero words once space returns and counted as dropped;
 * the next frame starts on a clean boundary (hardware-notes §D3.6). Not
 * cut a moment before the 2 s (virtual clock).
 */
static void
test_tx_stuck_padding(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_chan_stats ns;
	struct rte_mbuf *m;
	unsigned int i, first;

	rsh_t_attach(c, 64, false);
	for (i = 0; i < 153; i++)
		rsh_t_push(&c->m.htt, 0); /* 100 words of credit left */
	m = rsh_t_frame(c, 1, 1500);  /* 1 + 188 words */
	assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	assert_int_equal(rsh_t_poll(c), 100);
	assert_int_equal(rsh_t_poll(c), 0); /* stuck from now */
	rsh_clock_advance_ns(1999000000ull);
	assert_int_equal(rsh_t_poll(c), 0);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_int_equal(ns.tx_drop_timeout, 0);
	rsh_clock_advance_ns(1000000ull);
	assert_int_equal(rsh_t_poll(c), 0);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_int_equal(ns.tx_drop_timeout, 1);
	rsh_t_arm_drain(c, 300);
	first = c->m.log_n;
	m = rsh_t_frame(c, 2, 64);
	assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	assert_int_equal(rsh_t_poll(c), 89 + 9);
	rsh_t_arm_drain(c, 300);
	assert_int_equal(c->m.log_n, first + 89 + 9);
	for (i = 0; i < 89; i++)
		assert_true(c->m.log[first + i] == 0);
	assert_true(c->m.log[first + 89] == rsh_tmfifo_hdr_encode(1, 64, NULL));
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_int_equal(ns.tx_msgs, 1);
	assert_int_equal(ns.tx_drop_timeout, 1);
}

/* TX data queued while the DPU does not read (a full host-to-DPU FIFO) is
 * no reason for the poll loop to stay awake: once a pass found the FIFO
 * full, rsh_tmfifo_user_pending() is false (the loop backs off) until a
 * pass sends again. */
static void
test_tx_blocked_lets_loop_doze(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rte_mbuf *m;
	unsigned int i;

	rsh_t_attach(c, 64, false);
	m = rsh_t_frame(c, 1, 64);
	assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	assert_true(rsh_tmfifo_user_pending(&c->dev)); /* room: send it */
	for (i = 0; i < 253; i++)
		rsh_t_push(&c->m.htt, 0); /* the DPU reads nothing */
	assert_int_equal(rsh_t_poll(c), 0);
	m = rsh_t_frame(c, 2, 64);
	assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	assert_false(rsh_tmfifo_user_pending(&c->dev));
	rsh_t_arm_drain(c, 253); /* the DPU reads again */
	assert_int_equal(rsh_t_poll(c), 9 + 9); /* both frames */
	m = rsh_t_frame(c, 3, 64);
	assert_int_equal(rsh_tmfifo_net_tx_burst(&c->dev, &m, 1), 1);
	assert_true(rsh_tmfifo_user_pending(&c->dev));
}

/* Idle passes do no TX MMIO: one TTH STS read each, nothing else. */
static void
test_idle_mmio(void **state)
{
	struct rsh_t_ctx *c = *state;
	uint64_t r0;
	unsigned int i;

	rsh_t_attach(c, 64, false);
	r0 = c->m.mk.be.stats.reads;
	for (i = 0; i < 100; i++)
		assert_int_equal(rsh_t_poll(c), 0);
	assert_int_equal(c->m.mk.be.stats.reads - r0, 100);
	assert_int_equal(c->m.htt_sts_reads, 0);
	assert_int_equal(c->m.mk.be.stats.writes, 0);
}

/* BlueField-1: no HOST_TO_TILE burst longer than 15 posted writes (each
 * is preceded by the STS read of its pass), and everything still arrives
 * in order. */
static void
test_tx_bf1_write_runs(void **state)
{
	struct rsh_t_ctx *c = *state;
	static struct rsh_t_parsed p;
	uint8_t con[3000];
	unsigned int i, polls = 0;

	c->m.mk.be.gen = RSH_GEN_BF1;
	rsh_t_attach(c, 256, false);
	for (i = 0; i < sizeof(con); i++)
		con[i] = (uint8_t)(i * 13 + 1);
	assert_int_equal(rsh_tmfifo_console_write(&c->dev, con, sizeof(con)),
			 sizeof(con));
	do {
		rsh_t_poll(c);
		rsh_t_arm_drain(c, 300);
		polls++;
	} while ((c->m.htt.cnt > 0 || rsh_t_poll(c) > 0) && polls < 10000);
	rsh_t_arm_drain(c, 300);
	assert_int_equal(c->m.credit_violations, 0);
	assert_int_equal(c->m.sts_violations, 0);
	assert_true(c->m.max_burst <= 15);
	assert_true(c->m.max_burst > 0);
	rsh_t_parse_log(c, &p);
	assert_int_equal(p.n_con, sizeof(con));
	assert_memory_equal(p.con, con, sizeof(con));
}

int
main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, rsh_t_setup, rsh_t_teardown)
	const struct CMUnitTest tests[] = {
		T(test_attach_sync_fill),
		T(test_attach_sync_full),
		T(test_tx_mux_interleave_credit),
		T(test_tx_ctrl_at_boundary),
		T(test_tx_drops_counted),
		T(test_boot_leaves_fifo_alone),
		T(test_tx_stuck_padding),
		T(test_idle_mmio),
		T(test_tx_blocked_lets_loop_doze),
		T(test_tx_bf1_write_runs),
	};
#undef T
	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
