/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bench tmfifo baseline: the reference daemon's TM FIFO schedule,
 * modelled on its code (rshim-user-space src/rshim.c rshim_fifo_input,
 * rshim_fifo_output, src/rshim_net.c and the epoll loop of rshim.c), on a
 * fresh emulated BlueField-3 with the built-in ICMP responder:
 *
 *  - one thread, a 1 ms timer tick; network RX and TX run every tick
 *    while there was traffic, every 10th tick when idle (hardware-notes
 *    §4.9, rshim-user-space PR #244);
 *  - a frame the host sends is written at once if it fits (the TAP fd
 *    wakes the loop, §4.8), the rest waits for a later pass; the free
 *    HTT space is read before each burst (256 - count - 3, §4.5);
 *  - RX reads TILE_TO_HOST_STS and pops that many words, again while
 *    words keep arriving (§4.6).
 *
 * Not modelled: the TAP and FUSE system calls, the 2 KiB staging copies.
 * The rows: round trips while active and after an idle period, ICMP echo
 * throughput with the MMIO cost model, and the idle loop's wake-ups.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "rsh_bench_ref.h"
#include "rsh_dev_priv.h"
#include "rsh_mono.h"
#include "rsh_tmfifo_addr.h"
#include "rsh_tmfifo_proto.h"

#define RSH_TR_TICK_NS 1000000ull    /* timerfd period, §4.9 */
#define RSH_TR_IDLE_TICKS 10u        /* net polled every 10th tick when idle */
#define RSH_TR_MSG_WORDS 256u
#define RSH_TR_WINDOW 48u            /* as the rshim-pmd throughput rows */

/* The model's state: one thread owns the device. */
struct rsh_tr {
	struct rsh_dev *dev;
	uint64_t tx[RSH_TR_MSG_WORDS];   /* frame being sent */
	unsigned int tx_words, tx_done;
	uint64_t msg[RSH_TR_MSG_WORDS];  /* frame being received */
	unsigned int msg_have, msg_words;
	uint64_t replies;                /* ICMP echo replies received */
	uint64_t rx_words;
	bool active;                     /* traffic since the last pass */
	uint64_t tick;
	double next_tick;
	uint16_t seq;
	const int *cancel;               /* the caller's Ctrl-C flag */
};

/* True once the caller's cancel flag is set. */
static bool
rsh_tr_cancelled(const struct rsh_tr *t)
{
	return t->cancel != NULL && __atomic_load_n(t->cancel, __ATOMIC_RELAXED) != 0;
}

/* Sort helper. */
static int
rsh_tr_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median and 99th percentile of n samples (sorted in place). */
void
rsh_bench_tmfifo_pctl(double *s, unsigned int n, double *p50, double *p99)
{
	if (n == 0) {
		*p50 = *p99 = 0;
		return;
	}
	qsort(s, n, sizeof(s[0]), rsh_tr_cmp);
	*p50 = s[n / 2];
	*p99 = s[(n * 99) / 100];
}

/* An ICMP echo request of len bytes as FIFO words: header + frame. */
static void
rsh_tr_frame(struct rsh_tr *t, unsigned int len)
{
	static const uint8_t dst[6] = RSH_TMFIFO_DPU_MAC, src[6] = RSH_TMFIFO_HOST_MAC;
	uint8_t f[1536] = { 0 };
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	uint8_t *ic = f + 34;
	uint16_t ck;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08; /* IPv4 */
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - 14));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(0xC0A86401);
	ip->dst_addr = rte_cpu_to_be_32(0xC0A86402);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	ic[0] = 8; /* echo request */
	ic[4] = 0x52; ic[5] = 0x53;
	ic[6] = (uint8_t)(t->seq >> 8); ic[7] = (uint8_t)t->seq;
	t->seq++;
	ck = (uint16_t)~rte_raw_cksum(ic, len - 34);
	memcpy(ic + 2, &ck, 2);
	t->tx[0] = rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_NET, (uint16_t)len, NULL);
	memset(&t->tx[1], 0, (len + 7) / 8 * 8);
	memcpy(&t->tx[1], f, len);
	t->tx_words = rsh_tmfifo_msg_words(len);
	t->tx_done = 0;
}

/* fifo_output: write what fits of the current frame; true when done. */
static bool
rsh_tr_tx(struct rsh_tr *t)
{
	uint64_t c = rsh_dev_rd(t->dev, RSH_TM_HOST_TO_TILE_STS) & RSH_TM_STS__COUNT_MASK;
	int space = (int)RSH_TM_FIFO_SIZE - (int)c - (int)RSH_TM_FIFO_RESERVE;
	unsigned int n;

	if (space <= 0)
		return false;
	n = RTE_MIN((unsigned int)space, t->tx_words - t->tx_done);
	t->dev->be->ops->write_fifo(t->dev->be, t->dev->map.off[RSH_TM_HOST_TO_TILE_DATA],
				    &t->tx[t->tx_done], n);
	t->tx_done += n;
	t->active = true;
	return t->tx_done == t->tx_words;
}

/* One received word into the frame parser; counts echo replies. */
static void
rsh_tr_rx_word(struct rsh_tr *t, uint64_t w)
{
	if (t->msg_have == 0) {
		uint16_t len = rsh_tmfifo_hdr_len(w);

		if (rsh_tmfifo_hdr_type(w) != RSH_TMFIFO_TYPE_NET || len == 0 ||
		    len > RSH_TMFIFO_HOST_NET_MAX)
			return; /* sync, console, control: not this bench's */
		t->msg_words = rsh_tmfifo_msg_words(len);
	}
	t->msg[t->msg_have++] = w;
	if (t->msg_have < t->msg_words)
		return;
	if (((const uint8_t *)&t->msg[1])[34] == 0) /* ICMP echo reply */
		t->replies++;
	t->msg_have = 0;
}

/* fifo_input: pop what TILE_TO_HOST holds, again while words arrive. */
static void
rsh_tr_rx(struct rsh_tr *t)
{
	uint64_t w[RSH_TM_FIFO_SIZE];

	for (;;) {
		unsigned int n = rsh_dev_rd(t->dev, RSH_TM_TILE_TO_HOST_STS) &
				 RSH_TM_STS__COUNT_MASK;

		if (n == 0)
			return;
		t->dev->be->ops->read_fifo(t->dev->be,
					   t->dev->map.off[RSH_TM_TILE_TO_HOST_DATA], w, n);
		for (unsigned int i = 0; i < n; i++)
			rsh_tr_rx_word(t, w[i]);
		t->rx_words += n;
		t->active = true;
	}
}

/* Sleep to the next 1 ms tick; true when the network runs on it. A tick
 * missed while the thread was busy or preempted is not made up: like the
 * reference's timerfd, whose one read returns every missed expiration,
 * the next wake-up is the next tick of the same grid. */
static bool
rsh_tr_tick(struct rsh_tr *t)
{
	double period = rsh_ns_s(RSH_TR_TICK_NS), now = rsh_mono_s();
	struct timespec ts;
	bool run;

	t->next_tick += period;
	if (t->next_tick <= now)
		t->next_tick += ceil((now - t->next_tick) / period) * period;
	ts.tv_sec = (time_t)t->next_tick;
	ts.tv_nsec = (long)((t->next_tick - (double)ts.tv_sec) * 1e9);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	t->tick++;
	run = t->active || t->tick % RSH_TR_IDLE_TICKS == 0;
	if (run)
		t->active = false;
	return run;
}

/* Take the opened emulated device and sync the HTT stream (§4.10). */
static void
rsh_tr_open(struct rsh_tr *t, struct rsh_dev *dev, const int *cancel)
{
	uint64_t sync[RSH_TM_FIFO_SIZE - RSH_TM_FIFO_RESERVE];

	memset(t, 0, sizeof(*t));
	t->dev = dev;
	t->cancel = cancel;
	for (unsigned int i = 0; i < RTE_DIM(sync); i++)
		sync[i] = RSH_TMFIFO_SYNC_WORD;
	t->dev->be->ops->write_fifo(t->dev->be, t->dev->map.off[RSH_TM_HOST_TO_TILE_DATA],
				    sync, RTE_DIM(sync));
	t->next_tick = rsh_mono_s();
}

/* One round trip in us: send now, replies seen on the ticks; <0 after 1 s. */
static double
rsh_tr_rtt(struct rsh_tr *t, unsigned int len)
{
	uint64_t before = t->replies;
	double t0 = rsh_mono_s();

	rsh_tr_frame(t, len);
	while (!rsh_tr_tx(t))
		if (rsh_tr_tick(t))
			rsh_tr_rx(t);
	while (t->replies == before) {
		if (rsh_mono_s() - t0 > 1 || rsh_tr_cancelled(t))
			return -1;
		if (rsh_tr_tick(t))
			rsh_tr_rx(t);
	}
	return (rsh_mono_s() - t0) * 1e6;
}

/* Round trips for secs: p50 / p99 into r. */
static void
rsh_tr_run_rtt(struct rsh_tr *t, double secs, struct rsh_tb_ref *r)
{
	static double s[4096];
	double until = rsh_mono_s() + secs;
	unsigned int n = 0;

	while (n < RTE_DIM(s) && rsh_mono_s() < until && !rsh_tr_cancelled(t)) {
		double v = rsh_tr_rtt(t, 64);

		if (v < 0)
			break;
		s[n++] = v;
	}
	rsh_bench_tmfifo_pctl(s, n, &r->rtt_p50_us, &r->rtt_p99_us);
}

/* Idle for secs: wake-ups per second and CPU %; then the first RTT. */
static void
rsh_tr_run_idle(struct rsh_tr *t, double secs, struct rsh_tb_ref *r)
{
	struct rusage a, b;
	double t0 = rsh_mono_s(), cpu;

	getrusage(RUSAGE_THREAD, &a);
	while (rsh_mono_s() - t0 < secs && !rsh_tr_cancelled(t))
		if (rsh_tr_tick(t))
			rsh_tr_rx(t);
	getrusage(RUSAGE_THREAD, &b);
	cpu = (b.ru_utime.tv_sec - a.ru_utime.tv_sec) + (b.ru_stime.tv_sec - a.ru_stime.tv_sec) +
	      ((b.ru_utime.tv_usec - a.ru_utime.tv_usec) + (b.ru_stime.tv_usec - a.ru_stime.tv_usec)) / 1e6;
	r->idle_wakeups_s = (b.ru_nvcsw - a.ru_nvcsw) / (rsh_mono_s() - t0);
	r->idle_cpu_pct = 100.0 * cpu / (rsh_mono_s() - t0);
	r->idle_first_us = rsh_tr_rtt(t, 64);
}

/* ICMP echo throughput, 48 requests in flight, with the cost model. */
static void
rsh_tr_run_net(struct rsh_tr *t, double secs, struct rsh_tb_ref *r)
{
	static const char *const names[] = { "sim_cost_charged_ns", "sim_cost_emu_ns" };
	uint64_t c0[2], c1[2]; /* charged_ns, emu_ns */
	double t0, sec;
	uint64_t sent = 0, r0 = t->replies;
	bool pending = false;
	int ids[2];

	rsh_bench_xstats_ids(t->dev, names, ids, 2);
	t0 = rsh_mono_s();
	rsh_bench_xstats_read(t->dev, ids, c0, 2);
	while (rsh_mono_s() - t0 < secs && !rsh_tr_cancelled(t)) {
		/* the TAP wakes the loop: send while the window allows */
		while (sent - (t->replies - r0) < RSH_TR_WINDOW) {
			if (!pending) {
				rsh_tr_frame(t, 1500);
				pending = true;
			}
			if (!rsh_tr_tx(t))
				break;
			pending = false;
			sent++;
		}
		if (rsh_tr_tick(t))
			rsh_tr_rx(t);
	}
	rsh_bench_xstats_read(t->dev, ids, c1, 2);
	sec = rsh_mono_s() - t0 - rsh_ns_s(c1[1] - c0[1]) +
	      rsh_ns_s(c1[0] - c0[0]);
	r->net_rx_mib_s = sec > 0 ? (t->replies - r0) * 1500.0 / 1048576.0 / sec : 0;
}

/* Round trips while active, then the idle period. */
void
rsh_bench_ref_tmfifo_latency(struct rsh_dev *dev, double secs, const int *cancel,
			     struct rsh_tb_ref *r)
{
	static struct rsh_tr t;

	rsh_tr_open(&t, dev, cancel);
	rsh_tr_run_rtt(&t, secs, r);
	rsh_tr_run_idle(&t, secs * 2, r);
}

/* Echo throughput with the cost model. */
void
rsh_bench_ref_tmfifo_net(struct rsh_dev *dev, double secs, const int *cancel,
			 struct rsh_tb_ref *r)
{
	static struct rsh_tr t;

	rsh_tr_open(&t, dev, cancel);
	rsh_tr_run_net(&t, secs, r);
}
