/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the emulated DPU's ARM side (drivers/sim/rsh_sim_arm*.c):
 * the emulator is driven through the backend ops with hand-made TM FIFO
 * words (encoded with rsh_tmfifo_proto.h) and its TILE_TO_HOST stream is
 * decoded word by word. Default: peer=none (built-in ARP/ICMP responder
 * and line echo, no privileges). "--netns": the same traffic through a
 * namespace TAP and a shell on a PTY (root; exits 77 otherwise).
 * Every case runs on the virtual clock (the emulator's device time): a
 * wait steps it 50 us between looks, so the 2 s Tx timeout, UEFI's hold
 * and the ARM stall take no real time and are asserted exactly; with a
 * namespace peer, which runs in real time, each step also naps 50 us.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rsh_t_arm.h"
#include "rsh_test_eal.h"

/* Console both ways: banner, then a line comes back from echo/shell. */
static void
test_console(void **state)
{
	const char *in = "echo marker-4711\n";
	struct rsh_sim_arm_stats st;
	struct rsh_t_arm t;

	(void)state;
	rsh_t_open(&t, "sim:bf3,booted=1");
	assert_true(rsh_t_hwait(&t, rsh_t_pred_console_has,
			  "rshim-pmd emulated BlueField-3 (sim:bf3)", 2000));
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_CONSOLE, in, (uint16_t)strlen(in));
	if (!rsh_t_hwait(&t, rsh_t_pred_console_answer, "marker-4711\r", 5000)) {
		static char s[65536];

		rsh_t_console(&t, s, sizeof(s));
		print_error("console so far: '%s'\n", s);
		fail();
	}
	st = rsh_t_astats(&t);
	assert_int_equal(st.up, 1);
	assert_int_equal(st.starts, 1);
	assert_int_equal(st.rx_con_bytes, strlen(in));
	assert_int_equal(st.rx_msgs, 1);
	assert_true(st.tx_con_msgs >= 2);
	if (rsh_t_netns && st.peer_netns == 0) {
		rsh_t_close(&t);
		skip(); /* namespaces not permitted here */
	}
	assert_int_equal(st.peer_netns, rsh_t_netns);
	assert_int_equal(st.peer_shell, rsh_t_netns);
	rsh_t_check_headers(&t);
	rsh_t_close(&t);
}

/* A network frame: an ARP request for 192.168.100.2 is answered. */
static void
test_net_arp(void **state)
{
	unsigned int one = 1;
	uint8_t f[60];
	struct rsh_t_arm t;

	(void)state;
	rsh_t_open(&t, "sim:bf2,booted=1");
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_NET, f, (uint16_t)rsh_test_arp_req(f));
	assert_true(rsh_t_hwait(&t, rsh_t_pred_arp_replies, &one, 3000));
	assert_int_equal(rsh_t_astats(&t).rx_net_frames, 1);
	assert_int_equal(rsh_t_astats(&t).rx_net_bytes, 60);
	assert_true(rsh_t_astats(&t).tx_net_frames >= 1);
	rsh_t_check_headers(&t);
	rsh_t_close(&t);
}

/* Zero-length words are skipped; a message split across polls parses. */
static void
test_sync_and_split(void **state)
{
	const char *in = "echo split-line-abcdefghijklmnop\n";
	uint64_t w[16];
	unsigned int i, one = 1;
	uint8_t f[60];
	struct rsh_t_arm t;

	(void)state;
	rsh_t_open(&t, "sim:bf3,booted=1");
	for (i = 0; i < 10; i++)
		w[i] = RSH_TMFIFO_SYNC_WORD;
	for (; i < 15; i++)
		w[i] = 0;
	w[15] = rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_CONSOLE, 0, NULL);
	rsh_t_hsend(&t, w, 16);
	rsh_t_hpoll(&t);
	w[0] = rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_CONSOLE, (uint16_t)strlen(in), NULL);
	rsh_tmfifo_pack(&w[1], in, strlen(in));
	rsh_t_hsend(&t, w, 2);      /* header + first word ... */
	rsh_t_hpoll(&t);
	rsh_t_hsend(&t, w + 2, 4);  /* ... the rest later */
	rsh_test_arp_req(f);
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_NET, f, 60);
	assert_true(rsh_t_hwait(&t, rsh_t_pred_console_answer,
			  "split-line-abcdefghijklmnop\r", 5000));
	assert_true(rsh_t_hwait(&t, rsh_t_pred_arp_replies, &one, 3000));
	assert_int_equal(rsh_t_astats(&t).rx_sync_words, 16);
	assert_int_equal(rsh_t_astats(&t).rx_msgs, 2);
	assert_int_equal(rsh_t_astats(&t).rx_con_bytes, strlen(in));
	rsh_t_close(&t);
}

/* An oversize frame (> 1518) is drained and counted; the next parses. */
static void
test_oversize_rx(void **state)
{
	static uint64_t w[RSH_TM_FIFO_SIZE];
	unsigned int one = 1;
	uint8_t f[60];
	struct rsh_t_arm t;

	(void)state;
	rsh_t_open(&t, "sim:bf3,booted=1");
	w[0] = rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_NET, 1600, NULL);
	memset(&w[1], 0x01, 200 * 8); /* would look like headers if parsed */
	rsh_t_hsend(&t, w, 201);
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_NET, f, (uint16_t)rsh_test_arp_req(f));
	assert_true(rsh_t_hwait(&t, rsh_t_pred_arp_replies, &one, 3000));
	assert_int_equal(rsh_t_astats(&t).rx_drop_oversize, 1);
	assert_int_equal(rsh_t_astats(&t).rx_net_frames, 1);
	assert_int_equal(rsh_t_astats(&t).rx_msgs, 2);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 0);
	rsh_t_close(&t);
}

/* Number of ICMP echo replies from the DPU among the messages. */
static unsigned int
rsh_t_icmp_replies(struct rsh_t_arm *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->n; i++) {
		const uint8_t *f = t->m[i].data;

		if (t->m[i].type == RSH_TMFIFO_TYPE_NET && t->m[i].len >= 42 &&
		    f[12] == 0x08 && f[13] == 0x00 && f[23] == 1 &&
		    f[34] == 0 && memcmp(f + 26, rsh_test_peer_ip, 4) == 0)
			n++;
	}
	return n;
}

static bool
rsh_t_pred_icmp_replies(struct rsh_t_arm *t, const void *arg)
{
	return rsh_t_icmp_replies(t) >= *(const unsigned int *)arg;
}

/* Read HOST_TO_TILE's count (each read runs the ARM side) until it is
 * empty, stepping the clock, for at most ms of it. */
static void
rsh_t_htt_drained_ms(struct rsh_t_arm *t, unsigned int ms)
{
	uint64_t end = rsh_now() + rsh_ms_cyc(ms);

	while ((rsh_t_rd(t, RSH_TM_HOST_TO_TILE_STS) & RSH_TM_STS__COUNT_MASK) != 0) {
		assert_true(rsh_now() < end);
		rsh_t_step();
	}
}

/* Send one frame and wait until the ARM has taken it from HTT. */
static void
rsh_t_hsend_frame_wait(struct rsh_t_arm *t, const uint8_t *f, size_t len)
{
	rsh_t_hsend_msg(t, RSH_TMFIFO_TYPE_NET, f, (uint16_t)len);
	rsh_t_htt_drained_ms(t, 500);
}

/* Network TX keeps 16 words for the console and never overflows TTH:
 * two 952-byte replies (2 x 120 words) fill the network budget exactly;
 * a third waits (1000 looks over 50 ms of clock time) while a console
 * message still gets through. */
static void
test_tx_reserve(void **state)
{
	const char *in = "echo reserve-ok\n";
	unsigned int i, c = 0, three = 3;
	static uint8_t f[952];
	struct rsh_t_arm t;

	(void)state;
	if (rsh_t_netns)
		skip(); /* needs a peer that answers at once, without ARP */
	rsh_t_open(&t, "sim:bf3,booted=1");
	assert_true(rsh_t_hwait(&t, rsh_t_pred_console_has, "no shell", 2000));
	for (i = 0; i < 3; i++)
		rsh_t_hsend_frame_wait(&t, f, rsh_test_icmp_req(f, sizeof(f), (uint16_t)i));
	for (i = 0; i < 1000; i++) {
		c = (unsigned int)rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_STS);
		assert_true(c <= RSH_TM_FIFO_SIZE - 16);
		rsh_t_step();
	}
	assert_int_equal(c, RSH_TM_FIFO_SIZE - 16); /* it did fill up */
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_CONSOLE, in, (uint16_t)strlen(in));
	for (i = 0; c <= RSH_TM_FIFO_SIZE - 16 && i < 20000; i++) {
		c = (unsigned int)rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_STS);
		rsh_t_step();
	}
	assert_true(c > RSH_TM_FIFO_SIZE - 16 && c <= RSH_TM_FIFO_SIZE - 1);
	assert_true(rsh_t_hwait(&t, rsh_t_pred_icmp_replies, &three, 3000));
	assert_true(rsh_t_pred_console_has(&t, "reserve-ok\r"));
	assert_int_equal(t.m[t.n - 1].len, 952); /* console went before it */
	rsh_t_check_headers(&t);
	rsh_t_close(&t);
}

/* corrupt@2 and oversize@3: garbage header with the true length, then a
 * 1600-byte frame; the stream stays decodable and ARP still works. */
static void
test_tx_faults(void **state)
{
	const char *in = "echo after-fault\n";
	struct rsh_sim_arm_stats st;
	unsigned int one = 1;
	uint8_t f[60];
	struct rsh_t_arm t;

	(void)state;
	if (rsh_t_netns)
		skip(); /* message numbers depend on the shell's output */
	rsh_t_open(&t, "sim:bf3,booted=1,corrupt@2,oversize@3");
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_CONSOLE, in, (uint16_t)strlen(in));
	assert_true(rsh_t_hwait(&t, rsh_t_pred_console_has, "rshim-pmd emulated", 2000));
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_NET, f, (uint16_t)rsh_test_arp_req(f));
	assert_true(rsh_t_hwait(&t, rsh_t_pred_arp_replies, &one, 3000));
	assert_true(t.n >= 4);
	assert_int_equal(t.m[1].type, 0x5A);
	assert_true(t.m[1].len > 0);
	assert_false(rsh_tmfifo_hdr_csum_ok(t.m[1].hdr));
	assert_int_equal(t.m[2].type, RSH_TMFIFO_TYPE_NET);
	assert_int_equal(t.m[2].len, 1600);
	st = rsh_t_astats(&t);
	assert_int_equal(st.fault_corrupt, 1);
	assert_int_equal(st.fault_oversize, 1);
	assert_false(t.in_msg);
	rsh_t_close(&t);
}

/* armstall=60ms@1: after the first message HOST_TO_TILE is left alone
 * for 60 ms of the device's clock (exact), then drained. */
static void
test_arm_stall(void **state)
{
	const char *in = "echo x\n";
	unsigned int one = 1;
	uint8_t f[60];
	struct rsh_t_arm t;
	uint64_t t0;

	(void)state;
	rsh_t_open(&t, "sim:bf3,booted=1,armstall=60ms@1");
	rsh_t_hpoll(&t);
	t0 = rsh_now();
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_CONSOLE, in, (uint16_t)strlen(in));
	rsh_t_hpoll(&t);
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_NET, f, (uint16_t)rsh_test_arp_req(f));
	/* 59 ms in: the ARP request still sits in HOST_TO_TILE. */
	for (unsigned int ms = 0; ms < 59; ms++) {
		assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 9);
		assert_int_equal(rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_STS), 0);
		rsh_clock_advance_ns(1000000);
	}
	assert_int_equal(rsh_t_astats(&t).fault_stalls, 1);
	assert_true(rsh_t_hwait(&t, rsh_t_pred_arp_replies, &one, 3000));
	assert_true(rsh_cyc_ns(rsh_now() - t0) >= 60000000ull);
	assert_int_equal(rsh_t_astats(&t).rx_net_frames, 1);
	rsh_t_close(&t);
}

/* ctrl=reply: CTRL_REQ is answered with MAC_1, MAC_2, VLAN_ID, PXE_ID
 * at the ARM's next run (the host's next look, no time passing); a MAC
 * set by the host is reported back; by default (as the public peers do)
 * control messages are only counted. */
static void
test_ctrl(void **state)
{
	static const uint8_t mac2[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	uint64_t w[3];
	unsigned int i, k = 0;
	struct rsh_t_arm t;

	(void)state;
	if (rsh_t_netns)
		skip(); /* the same with any peer; shell output would interleave */
	rsh_t_open(&t, "sim:bf3,booted=1,ctrl=reply");
	w[0] = rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_CTRL_REQ, 0, NULL);
	rsh_t_hsend(&t, w, 1);
	rsh_t_hpoll(&t);
	rsh_t_hpoll(&t);
	for (i = 0; i < t.n; i++)
		if (t.m[i].len == 0) {
			assert_true(rsh_tmfifo_hdr_csum_ok(t.m[i].hdr));
			k++;
		}
	assert_int_equal(k, 4);
	assert_int_equal(t.m[t.n - 1].type, RSH_TMFIFO_TYPE_PXE_ID);
	w[0] = rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_1, mac2);
	w[1] = rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_2, mac2);
	w[2] = rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_CTRL_REQ, 0, NULL);
	rsh_t_hsend(&t, w, 3);
	rsh_t_hpoll(&t);
	rsh_t_hpoll(&t);
	assert_int_equal(t.m[t.n - 4].hdr, rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_1, mac2));
	assert_int_equal(t.m[t.n - 3].hdr, rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_2, mac2));
	assert_int_equal(rsh_t_astats(&t).rx_ctrl_msgs, 4);
	assert_int_equal(rsh_t_astats(&t).tx_ctrl_msgs, 8);
	assert_int_equal(rsh_t_astats(&t).rx_sync_words, 0);
	rsh_t_close(&t);
	rsh_t_open(&t, "sim:bf3,booted=1");
	w[0] = rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_CTRL_REQ, 0, NULL);
	rsh_t_hsend(&t, w, 1);
	rsh_t_hpoll(&t);
	rsh_t_hpoll(&t);
	assert_int_equal(rsh_t_astats(&t).rx_ctrl_msgs, 1);
	assert_int_equal(rsh_t_astats(&t).tx_ctrl_msgs, 0);
	rsh_t_close(&t);
}

/* HOST_TO_TILE read back until empty, within 5 s of clock time. */
static void
rsh_t_htt_drained(struct rsh_t_arm *t)
{
	rsh_t_htt_drained_ms(t, 5000);
}

/* MTU + 18: a 1518-byte frame reaches the peer, a 1519-byte one is
 * drained and dropped, as Linux >= 6.6 does (§D3.9). */
static void
test_mtu_boundary(void **state)
{
	static uint8_t f[1519];
	struct rsh_t_arm t;

	(void)state;
	rsh_t_open(&t, "sim:bf3,booted=1");
	memset(f, 0x5A, sizeof(f));
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_NET, f, 1518);
	rsh_t_htt_drained(&t);
	assert_int_equal(rsh_t_astats(&t).rx_net_frames, 1);
	assert_int_equal(rsh_t_astats(&t).rx_drop_oversize, 0);
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_NET, f, 1519);
	rsh_t_htt_drained(&t);
	assert_int_equal(rsh_t_astats(&t).rx_net_frames, 1);
	assert_int_equal(rsh_t_astats(&t).rx_drop_oversize, 1);
	rsh_t_close(&t);
}

/* The 2 s Tx timeout (§D3.6): the host stops reading; ARP replies fill
 * the 240 words the ARM may use for the network, one is stuck part way;
 * 2 s of clock time later (not a millisecond sooner) it is dropped and
 * the words it owed come as zeros once the host reads again; traffic
 * goes on in step. */
static void
test_tx_timeout_padding(void **state)
{
	unsigned int i, b, before, want, ms;
	uint8_t f[64];
	struct rsh_t_arm t;

	(void)state;
	if (rsh_t_netns)
		skip(); /* the responder answers every request, in order */
	rsh_t_open(&t, "sim:bf3,booted=1");
	rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_STS); /* ARM up */
	for (b = 0; b < 3; b++) { /* 27 requests, 9 words each */
		for (i = 0; i < 9; i++)
			rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_NET, f,
					(uint16_t)rsh_test_arp_req(f));
		rsh_t_htt_drained(&t);
	}
	/* stuck since the fill, at this clock time: a look every 1 ms */
	for (ms = 0; rsh_t_astats(&t).tx_timeouts == 0; ms++) {
		assert_true(ms <= 10000);
		rsh_clock_advance_ns(1000000);
		assert_int_equal(rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_STS) &
				 RSH_TM_STS__COUNT_MASK, 240);
	}
	assert_int_equal(ms, 2000);
	assert_int_equal(rsh_t_astats(&t).tx_drop_net, 1);
	while (rsh_t_hpoll(&t) > 0)
		;
	/* a 9-word reply cut part way owes 1-8 words (the exact number
	 * depends on the banner's share of the FIFO) */
	assert_in_range(rsh_t_astats(&t).tx_pad_words, 1, 8);
	before = rsh_t_arp_replies(&t);
	assert_true(before >= 24);
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_NET, f, (uint16_t)rsh_test_arp_req(f));
	want = before + 1;
	assert_true(rsh_t_hwait(&t, rsh_t_pred_arp_replies, &want, 3000));
	rsh_t_close(&t);
}

/* Reset key from the host (BF3 layout via the table); the registers
 * answer again within 1 s of clock time. */
static void
rsh_t_reset(struct rsh_t_arm *t, uint64_t bootctl)
{
	uint64_t end = rsh_now() + rsh_ms_cyc(1000);

	t->be->ops->write64(t->be, t->map.off[RSH_BOOT_CONTROL], bootctl);
	t->be->ops->write64(t->be, t->map.off[RSH_RESET_CONTROL],
			    RSH_RESET_CONTROL__KEY);
	while (rsh_reg_val_is_bad(rsh_t_rd(t, RSH_FABRIC_DIM))) {
		assert_true(rsh_now() < end);
		rsh_t_step();
	}
}

/* uefi=: after the boot stream UEFI holds the FIFOs: a 1000-byte console
 * message fits its 1 KiB ring, the next one waits in HOST_TO_TILE until
 * Linux takes over, 1 s of clock time after the stream, and gets it. */
static void
test_uefi_ring(void **state)
{
	static uint8_t d0[64], bfb[512], con[1000];
	struct rsh_bfb_wimage im[3] = {
		{ .id = 1, .data = d0, .len = 8 }, { .id = 3, .data = d0, .len = 8 },
		{ .id = 5, .data = d0, .len = 8 },
	};
	long len = rsh_bfb_write(im, 3, bfb, sizeof(bfb));
	struct rsh_t_arm t;
	uint64_t t0;

	(void)state;
	if (rsh_t_netns)
		skip(); /* the same with any peer */
	assert_true(len > 0);
	memset(con, 'u', sizeof(con));
	rsh_t_open(&t, "sim:bf3,uefi=1s,resetwin=1ms");
	rsh_t_reset(&t, 0);
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA],
			      (const uint64_t *)bfb, (unsigned int)len / 8);
	t0 = rsh_now();
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_CONSOLE, con, 1000);
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_CONSOLE, con, 100);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 1 + 13);
	assert_int_equal(rsh_t_astats(&t).rx_uefi_con_bytes, 1000);
	assert_true(rsh_t_astats(&t).rx_uefi_con_full > 0);
	assert_int_equal(rsh_t_astats(&t).up, 0); /* Linux not yet */
	rsh_clock_advance_ns(999000000ull);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 1 + 13);
	assert_int_equal(rsh_t_astats(&t).up, 0); /* 1 ms before */
	rsh_t_htt_drained_ms(&t, 10000);
	assert_int_equal(rsh_cyc_ns(rsh_now() - t0) / 1000000, 1000);
	assert_int_equal(rsh_t_astats(&t).up, 1);
	assert_int_equal(rsh_t_astats(&t).rx_con_bytes, 100); /* Linux got it */
	rsh_t_close(&t);
}

/* Boot coupling: down until a boot stream completes; a reset takes the
 * link down; booted=1 comes back after an eMMC reset. */
static void
test_boot_coupling(void **state)
{
	static uint8_t d0[1001], bfb[4096];
	struct rsh_bfb_wimage im[3] = { /* bl2, bl31, bl33: the boot chain */
		{ .id = 1, .data = d0, .len = sizeof(d0) },
		{ .id = 3, .data = d0, .len = 8 },
		{ .id = 5, .data = d0, .len = 16 },
	};
	uint64_t w[RSH_TM_FIFO_SIZE];
	size_t len = rsh_bfb_size(im, 3);
	struct rsh_t_arm t;

	(void)state;
	assert_true(len <= sizeof(bfb));
	assert_int_equal(rsh_bfb_write(im, 3, bfb, len), (long)len);
	rsh_t_open(&t, "sim:bf3,resetwin=1ms");
	w[0] = RSH_TMFIFO_SYNC_WORD;
	rsh_t_hsend(&t, w, 1);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 1); /* not read */
	assert_int_equal(rsh_t_hpoll(&t), 0);
	assert_int_equal(rsh_t_astats(&t).up, 0);
	rsh_t_reset(&t, RSH_BOOT_CONTROL_NONE);
	memcpy(w, bfb, RTE_ALIGN_CEIL(len, 8));
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w,
			      (unsigned int)(RTE_ALIGN_CEIL(len, 8) / 8));
	rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
	assert_true(rsh_t_hwait(&t, rsh_t_pred_console_has, "emulated BlueField-3", 2000));
	assert_int_equal(rsh_t_astats(&t).up, 1);
	rsh_t_reset(&t, RSH_BOOT_CONTROL_NONE); /* waits for a stream again */
	assert_int_equal(rsh_t_astats(&t).up, 0);
	rsh_t_hpoll(&t);
	assert_int_equal(rsh_t_astats(&t).starts, 1);
	rsh_t_close(&t);
	rsh_t_open(&t, "sim:bf1,booted=1,resetwin=1ms");
	rsh_t_hpoll(&t);
	rsh_t_reset(&t, RSH_BOOT_CONTROL_EMMC);
	rsh_t_hpoll(&t);
	assert_int_equal(rsh_t_astats(&t).starts, 2);
	assert_int_equal(rsh_t_astats(&t).up, 1);
	rsh_t_close(&t);
}

/* An idle peer (netns): the model waits for TAP/PTY readiness instead of
 * reading them every armpoll= (10 us), so 2000 polls 20 us of clock
 * time apart, once the shell printed its prompt after a command, cost
 * (next to) no peer reads. */
static void
test_idle_reads(void **state)
{
	const char *in = "echo idle-mark\n";
	struct rsh_t_arm t;
	uint64_t before, polls;

	(void)state;
	if (!rsh_t_netns)
		skip(); /* the responder is not a descriptor */
	rsh_t_open(&t, "sim:bf3,booted=1");
	rsh_t_hsend_msg(&t, RSH_TMFIFO_TYPE_CONSOLE, in, (uint16_t)strlen(in));
	assert_true(rsh_t_hwait(&t, rsh_t_pred_console_has, "idle-mark\r\ndpu# ", 10000));
	before = rsh_t_astats(&t).peer_syscalls;
	for (polls = 0; polls < 2000; polls++) {
		rsh_t_hpoll(&t);
		rsh_clock_advance_ns(20000);
	}
	/* Without readiness: a TAP and a PTY read per poll (>= 2 x polls). */
	if ((rsh_t_astats(&t).peer_syscalls - before) * 10 >= polls) {
		print_error("%" PRIu64 " peer reads in %" PRIu64 " idle polls\n",
			    rsh_t_astats(&t).peer_syscalls - before, polls);
		fail();
	}
	rsh_t_close(&t);
}

/* New options: one-line errors naming the option; stats of a non-sim. */
static void
test_args(void **state)
{
	static const char *bad[] = {
		"sim:bf3,booted=2", "sim:bf3,peer=x", "sim:bf3,ctrl=maybe",
		"sim:bf3,armpoll=5", "sim:bf3,corrupt@0", "sim:bf3,oversize@x",
		"sim:bf3,armstall=1s", "sim:bf3,armstall=1s@0",
	};
	const struct rsh_backend_driver *drv = rsh_backend_find("sim");
	struct rsh_backend fake = { 0 };
	struct rsh_sim_arm_stats st;
	struct rsh_backend *be;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		assert_int_equal(drv->probe(bad[i], NULL, &be), -EINVAL);
		assert_non_null(strstr(rsh_last_error(), bad[i]));
	}
	assert_int_equal(drv->probe("sim:bf3,bogus=1", NULL, &be), -EINVAL);
	assert_non_null(strstr(rsh_last_error(), "profile, shared"));
	assert_int_equal(rsh_sim_arm_stats_get(&fake, &st), -EINVAL);
	assert_int_equal(rsh_sim_arm_stats_get(NULL, &st), -EINVAL);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		RSH_TEST_VIRTUAL(test_console),
		RSH_TEST_VIRTUAL(test_net_arp),
		RSH_TEST_VIRTUAL(test_sync_and_split),
		RSH_TEST_VIRTUAL(test_oversize_rx),
		RSH_TEST_VIRTUAL(test_tx_reserve),
		RSH_TEST_VIRTUAL(test_tx_faults),
		RSH_TEST_VIRTUAL(test_arm_stall),
		RSH_TEST_VIRTUAL(test_ctrl),
		RSH_TEST_VIRTUAL(test_boot_coupling),
		RSH_TEST_VIRTUAL(test_mtu_boundary),
		RSH_TEST_VIRTUAL(test_tx_timeout_padding),
		RSH_TEST_VIRTUAL(test_uefi_ring),
		RSH_TEST_VIRTUAL(test_idle_reads),
		RSH_TEST_VIRTUAL(test_args),
	};

	char prefix[24];

	/* This run's own namespace names: nothing else on the host meets them. */
	snprintf(prefix, sizeof(prefix), "rsht%d-", (int)getpid());
	setenv("RSHIM_SIM_NETNS_PREFIX", prefix, 1);
	rsh_t_netns = argc > 1 && strcmp(argv[1], "--netns") == 0;
	if (rsh_t_netns && geteuid() != 0) {
		printf("skipped: namespace tests need root\n");
		return 77;
	}
	if (rsh_test_eal_init(argv[0]) < 0) {
		printf("skipped: EAL init failed\n");
		return 77;
	}
	rte_log_set_level_pattern("pmd.rshim.sim", RTE_LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
