/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the host RX demux (lib/rshim/rsh_tmfifo.c) against the mock
 * backend of rsh_t_tmfifo_mock.h: console and net routing, frames across
 * passes, resynchronisation after corrupt headers, back-pressure from full
 * rings, control replies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
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
#include "rsh_tmfifo_proto.h"

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
	rsh_t_arm_send(c, RSH_TMFIFO_SYNC_WORD, NULL, 0);
	rsh_t_arm_send(c, 0, NULL, 0); /* ARM Tx-timeout zero word */
	rsh_t_arm_send(c, 0x0000000000050003ull, "hello", 5); /* byte 7 = 0 */
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 60, NULL), f, 60);
	assert_int_equal(rsh_t_poll(c), 1 + 1 + 2 + 9);
	assert_int_equal(c->m.read_calls, 1);
	assert_int_equal(c->m.tth_sts_reads, 1);
	/* a 1536-byte frame (193 words) arrives in pieces across passes */
	for (i = 0; i < 193; i += 50) {
		uint64_t w[200];

		w[0] = rsh_tmfifo_hdr_encode(1, 1536, NULL);
		rsh_tmfifo_pack(&w[1], f, 1536);
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

/*
 * During a boot push the console is still read (hardware-notes §3.2
 * notes) and network frames are drained and counted with their reason.
 */
static void
test_rx_console_during_boot(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_chan_stats cs, ns;
	uint8_t f[100], con[64];
	struct rte_mbuf *m[4];
	unsigned int i;
	ssize_t got;

	rsh_t_attach(c, 64, false);
	for (i = 0; i < sizeof(f); i++)
		f[i] = (uint8_t)i;
	rsh_dev_boot_state(&c->dev)->push = (struct rsh_boot *)(uintptr_t)0x1;
	rsh_t_arm_send(c, 0x0000000000050003ull, "UEFI ", 5);
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 100, NULL), f, 100);
	rsh_t_arm_send(c, 0x0000000000040003ull, "boot", 4);
	rsh_t_poll(c);
	assert_int_equal(c->m.tth.cnt, 0);
	assert_int_equal(c->m.write_calls, 0);
	got = rsh_tmfifo_console_read(&c->dev, con, sizeof(con));
	assert_int_equal(got, 9);
	assert_memory_equal(con, "UEFI boot", 9);
	assert_int_equal(rsh_tmfifo_net_rx_burst(&c->dev, m, 4), 0);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_CONSOLE, &cs, NULL);
	assert_int_equal(ns.rx_drop_boot, 1);
	assert_int_equal(ns.rx_drop_bytes, 100);
	assert_int_equal(cs.rx_msgs, 2);
	/* After the push network frames flow again. */
	rsh_dev_boot_state(&c->dev)->push = NULL;
	rsh_t_poll(c);
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 100, NULL), f, 100);
	assert_int_equal(rsh_t_rx_frames(c, m, 4, 20), 1);
	rsh_t_check_frame(m[0], 0, 100);
}

/* True when fd is readable now. */
static bool
rsh_t_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/*
 * The user is woken through the channel's eventfd when data arrives after
 * it armed; not signalled when it did not arm; arm reports queued data.
 */
static void
test_rx_wakeup_fd(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_chan_stats cs;
	uint8_t con[16];
	int fd;

	rsh_t_attach(c, 64, false);
	fd = rsh_tmfifo_rx_fd(&c->dev, RSH_TMFIFO_CONSOLE);
	assert_true(fd >= 0);
	assert_false(rsh_tmfifo_rx_arm(&c->dev, RSH_TMFIFO_CONSOLE));
	assert_false(rsh_t_readable(fd));
	rsh_t_arm_send(c, 0x0000000000020003ull, "ok", 2);
	rsh_t_poll(c);
	assert_true(rsh_t_readable(fd));
	/* Data queued: arm says so (and clears the old signal). */
	assert_true(rsh_tmfifo_rx_arm(&c->dev, RSH_TMFIFO_CONSOLE));
	assert_false(rsh_t_readable(fd));
	assert_int_equal(rsh_tmfifo_console_read(&c->dev, con, sizeof(con)), 2);
	/* Armed once: one signal for two passes with data. */
	rsh_t_arm_send(c, 0x0000000000010003ull, "a", 1);
	rsh_t_poll(c);
	rsh_t_arm_send(c, 0x0000000000010003ull, "b", 1);
	rsh_t_poll(c);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_CONSOLE, &cs, NULL);
	assert_int_equal(cs.rx_wakeups, 2);
	assert_int_equal(rsh_tmfifo_console_read(&c->dev, con, sizeof(con)), 2);
	assert_int_equal(rsh_tmfifo_rx_fd(&c->dev, RSH_TMFIFO_NET) >= 0, 1);
}

/*
 * An unreachable window (ARM reset) then recovery: the half-received
 * message is discarded and sync words go out; all-ones for a second: the
 * device is gone, reported once and the user woken.
 */
static void
test_rx_arm_reset_and_gone(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_chan_stats ns;
	struct rsh_tmfifo_stats st;
	uint8_t f[100] = { 0 };
	int fd;

	rsh_t_attach(c, 64, false);
	/* Half a frame, then the ARM resets. */
	rsh_t_push(&c->m.tth, rsh_tmfifo_hdr_encode(1, 100, NULL));
	rsh_t_push(&c->m.tth, 0x1111);
	rsh_t_poll(c);
	c->m.sts_bad = RSH_BAD_ACCESS1;
	rsh_t_poll(c);
	rsh_t_poll(c);
	c->m.sts_bad = 0;
	rsh_t_poll(c); /* recovery seen */
	rsh_t_poll(c); /* discard and resync */
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, &st);
	assert_int_equal(st.arm_resets, 1);
	assert_int_equal(ns.rx_drop_reset, 1);
	assert_true(st.tx_sync_words > 0);
	assert_int_equal(rsh_tmfifo_status(&c->dev), 0);
	/* A whole frame after the reset is delivered intact. */
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 100, NULL), f, 100);
	rsh_t_poll(c);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_int_equal(ns.rx_mbufs, 1);
	/* Gone: all-ones for over a second (a second exactly is not yet). */
	fd = rsh_tmfifo_rx_fd(&c->dev, RSH_TMFIFO_NET);
	c->m.sts_bad = RSH_ALL_ONES;
	rsh_t_poll(c);
	assert_int_equal(rsh_tmfifo_status(&c->dev), 0);
	rsh_clock_advance_ns(1000000000ull);
	rsh_t_poll(c);
	assert_int_equal(rsh_tmfifo_status(&c->dev), 0);
	assert_false(rsh_t_readable(fd));
	rsh_clock_advance_ns(1000000ull);
	rsh_t_poll(c);
	assert_int_equal(rsh_tmfifo_status(&c->dev), -ENODEV);
	assert_non_null(strstr(rsh_last_error(), "gone"));
	assert_true(rsh_t_readable(fd));
}

/*
 * Gone, then back (a hot return): while gone nothing is written to the
 * FIFO and what users queue is dropped and counted; rsh_tmfifo_resync()
 * is refused while the status still reads all-ones, then clears the gone
 * state, discards the half-received message, sends sync words, and both
 * directions carry data again.
 */
static void
test_gone_then_resync(void **state)
{
	struct rsh_t_ctx *c = *state;
	struct rsh_tmfifo_chan_stats cs, ns;
	struct rsh_tmfifo_stats st;
	uint8_t f[100] = { 0 }, got[16];
	unsigned int writes, sync, i;

	rsh_t_attach(c, 64, false);
	rsh_t_push(&c->m.tth, rsh_tmfifo_hdr_encode(1, 100, NULL)); /* half a frame */
	rsh_t_push(&c->m.tth, 0x2222);
	rsh_t_poll(c);
	c->m.sts_bad = RSH_ALL_ONES;
	rsh_t_poll(c);
	rsh_clock_advance_ns(1001000000ull);
	rsh_t_poll(c);
	assert_int_equal(rsh_tmfifo_status(&c->dev), -ENODEV);
	writes = c->m.write_calls;
	assert_int_equal(rsh_tmfifo_console_write(&c->dev, "lost", 4), 4);
	for (i = 0; i < 3; i++)
		rsh_t_poll(c);
	assert_int_equal(c->m.write_calls, writes);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_CONSOLE, &cs, NULL);
	assert_int_equal(cs.tx_drop_gone, 1);
	/* Still all-ones: refused, still gone. */
	assert_int_equal(rsh_tmfifo_resync(&c->dev), -ENODEV);
	assert_int_equal(rsh_tmfifo_status(&c->dev), -ENODEV);
	/* Back, powered on fresh: empty FIFOs. */
	c->m.sts_bad = 0;
	c->m.htt.cnt = c->m.tth.cnt = 0;
	c->m.htt_sts_pass = c->m.tth_sts_pass = 0; /* the command is a pass */
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, NULL, &st);
	sync = (unsigned int)st.tx_sync_words;
	assert_int_equal(rsh_tmfifo_resync(&c->dev), 0);
	assert_int_equal(rsh_tmfifo_status(&c->dev), 0);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, &st);
	assert_int_equal(st.returns, 1);
	assert_true(st.tx_sync_words > sync);
	assert_int_equal(ns.rx_drop_reset, 1); /* the half frame */
	/* Host to DPU: the console message reaches the FIFO, whole. */
	rsh_t_arm_drain(c, RSH_T_FIFO);
	c->m.log_n = 0;
	assert_int_equal(rsh_tmfifo_console_write(&c->dev, "back", 4), 4);
	rsh_t_poll(c);
	rsh_t_arm_drain(c, RSH_T_FIFO);
	assert_int_equal(c->m.log_n, 2);
	assert_int_equal(rsh_tmfifo_hdr_len(c->m.log[0]), 4);
	rsh_t_poll(c);
	rsh_t_arm_drain(c, RSH_T_FIFO);
	assert_int_equal(c->m.log_n, 2);
	/* DPU to host: a frame and console bytes are delivered. */
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 100, NULL), f, 100);
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(3, 2, NULL), "ok", 2);
	rsh_t_poll(c);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, NULL);
	assert_int_equal(ns.rx_mbufs, 1);
	assert_int_equal(rsh_tmfifo_console_read(&c->dev, got, sizeof(got)), 2);
	assert_memory_equal(got, "ok", 2);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_CONSOLE, &cs, NULL);
	assert_int_equal(cs.tx_drop_gone, 1);
	assert_int_equal(cs.tx_msgs, 1);
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
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 64, NULL), f, 64);
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(0x42, 20, NULL), f, 20); /* unknown */
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 1600, NULL), f, 1600); /* oversize */
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 100, NULL), f, 100);
	assert_int_equal(c->m.tth.dropped, 0);
	assert_int_equal(rsh_t_rx_frames(c, m, 4, 30), 2);
	rsh_t_check_frame(m[0], 7, 64);
	rsh_t_check_frame(m[1], 7, 100);
	rsh_tmfifo_get_stats(&c->dev, RSH_TMFIFO_NET, &ns, &st);
	assert_int_equal(st.rx_drop_unknown, 1);
	assert_int_equal(st.rx_drop_unknown_bytes, 20);
	assert_int_equal(ns.rx_drop_oversize, 1);
	assert_int_equal(ns.rx_drop_bytes, 1600);
	rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 100, NULL), f, 100);
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
		rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 120, NULL), f, 120);
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
		rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(1, 120, NULL), f, 120);
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
			rsh_t_arm_send(c, rsh_tmfifo_hdr_encode(3, (uint16_t)k, NULL),
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
	rsh_t_arm_send(c, rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_1, mac), NULL, 0);
	rsh_t_arm_send(c, rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_2, mac), NULL, 0);
	rsh_t_arm_send(c, rsh_tmfifo_ctrl_vlan(10, 20) ^ (1ull << 56), NULL, 0); /* bad */
	rsh_t_arm_send(c, rsh_tmfifo_ctrl_vlan(30, 40) & 0x00FFFFFFFFFFFFFFull,
		       NULL, 0); /* checksum 0: accepted unchecked */
	rsh_t_arm_send(c, 0x00000000000000F0ull, NULL, 0); /* unknown, len 0 */
	rsh_t_arm_send(c, rsh_tmfifo_ctrl_pxe(0x0A0B0C0D), NULL, 0);
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

int
main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, rsh_t_setup, rsh_t_teardown)
	const struct CMUnitTest tests[] = {
		T(test_rx_demux),
		T(test_rx_console_during_boot),
		T(test_rx_wakeup_fd),
		T(test_rx_arm_reset_and_gone),
		T(test_gone_then_resync),
		T(test_rx_resync),
		T(test_rx_backpressure_net),
		T(test_rx_backpressure_console),
		T(test_rx_ctrl),
	};
#undef T
	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
