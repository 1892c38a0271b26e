/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bench tmfifo: the console and network channels on the emulator, one
 * run, one table per figure. Every case is one entry of a small table of
 * callbacks (as DPDK's test-pmd forwarding modes): it gets a fresh
 * emulated BlueField-3 whose ARM side is the built-in ARP/ICMP responder
 * and line echo (peer=none, no root needed), and fills one result row.
 *
 *   console, net    throughput both ways through the echo / ICMP echo:
 *                   MiB/s, messages/s, MMIO reads and writes per KiB
 *   rtt-64, rtt-1500  ICMP echo round trips, p50/p99, default policy and
 *                   --busy-poll
 *   idle            poll-lcore CPU % over an idle period, then the RTT of
 *                   the first packet after it
 *   tcp             (root, iperf3) TCP through tmfifo_net0 against a
 *                   TAP-to-TAP userspace forwarder measured in the same run
 *                   (bench_tmfifo_tcp.c would be its own file; here it is
 *                   the last case)
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "app.h"
#include "bench_tmfifo.h"
#include "rsh_pump.h"
#include "rsh_tmfifo_addr.h"

#define RSH_TB_MAX_SAMPLES 4096u
#define RSH_TB_WINDOW 48u          /* ICMP requests in flight (throughput) */
#define RSH_TB_HDRS (RTE_ETHER_HDR_LEN + 20 + 8)

/* TSC cycles (rte_get_timer_cycles, the poll loop's pass stamps) as
 * microseconds: only this benchmark reads the loop's TSC. */
static inline double
rsh_tsc_us(uint64_t cycles)
{
	return (double)cycles * 1e6 / (double)rte_get_timer_hz();
}

/* One emulated device with both channels and a running poller. */
struct rsh_tb {
	struct rsh_app *app;
	struct rsh_dev *dev;
	struct rsh_poller *p;
	struct rsh_poll_opts po;
	uint16_t seq;
};

/* One result row. */
struct rsh_tb_row {
	char name[40];
	double mib_s, msgs_s, rd_kib, wr_kib; /* throughput cases */
	double p50_us, p99_us, max_us;        /* latency cases */
	double cpu_pct;                       /* idle case */
	bool cost;                            /* MMIO cost model on */
	double rx_mib_s;                      /* DPU -> host frames (cost rows) */
	double rx_ceil_pct;                   /* of the one-core read ceiling */
	double rx_only_pct;                   /* same, host->DPU writes' time out */
	double mmio_pct;                      /* core time in charged MMIO */
	unsigned int n;                       /* samples / messages */
	int rc;
};

/* One case: what it runs on and how. */
struct rsh_tb_case {
	const char *name;
	bool busy;                /* poller with --busy-poll */
	unsigned int len;         /* frame length for the rtt cases */
	void (*run)(struct rsh_tb *b, const struct rsh_tb_case *c,
		    struct rsh_tb_row *r);
	bool cost;                /* emulator MMIO cost model on (cost=1) */
};

/* True until the deadline passes or Ctrl-C was pressed. */
static bool
rsh_tb_running(double until)
{
	return rsh_mono_s() < until &&
	       !__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED);
}

/* Open sim:bf3 (booted, built-in responder) and start a poller. */
static int
rsh_tb_open(struct rsh_tb *b, bool busy, bool cost)
{
	struct rsh_tmfifo_opts o;
	int rc;

	b->po = b->app->poll;
	b->po.busy_poll = busy;
	rc = rsh_dev_open(cost ? "sim:bf3,booted=1,peer=none,cost=1" :
			  "sim:bf3,booted=1,peer=none", NULL, &b->dev);
	if (rc == 0)
		rc = rsh_poller_create(&b->po, &b->p);
	if (rc == 0)
		rc = rsh_poller_add(b->p, b->dev);
	rsh_tmfifo_opts_default(&o);
	if (rc == 0)
		rc = rsh_tmfifo_attach(b->dev, &o);
	if (rc == 0)
		rc = rsh_poller_start(b->p);
	if (rc < 0)
		rsh_app_err("bench tmfifo: %s", rsh_last_error());
	return rc;
}

/* Stop and free the device of a case. */
static void
rsh_tb_close(struct rsh_tb *b)
{
	if (b->p != NULL)
		rsh_poller_stop(b->p);
	if (b->dev != NULL)
		rsh_tmfifo_detach(b->dev);
	rsh_poller_destroy(b->p);
	rsh_dev_close(b->dev);
	b->p = NULL;
	b->dev = NULL;
}

/* An ICMP echo request host → DPU of len bytes (Ethernet header on). */
static struct rte_mbuf *
rsh_tb_ping(struct rsh_tb *b, unsigned int len)
{
	static const struct rte_ether_addr dpu = { RSH_TMFIFO_DPU_MAC };
	static const struct rte_ether_addr host = { RSH_TMFIFO_HOST_MAC };
	struct rte_mbuf *m = rte_pktmbuf_alloc(rsh_tmfifo_pool(b->dev));
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *ic;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)len);
	memset(eh, 0, len);
	eh->dst_addr = dpu;
	eh->src_addr = host;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(0xC0A86401); /* 192.168.100.1 */
	ip->dst_addr = rte_cpu_to_be_32(0xC0A86402); /* 192.168.100.2 */
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	ic = (struct rte_icmp_hdr *)(ip + 1);
	ic->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	ic->icmp_ident = rte_cpu_to_be_16(0x5253);
	ic->icmp_seq_nb = rte_cpu_to_be_16(b->seq++);
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic, len - RTE_ETHER_HDR_LEN - 20);
	return m;
}

/* Take received frames; returns the number of ICMP echo replies. */
static unsigned int
rsh_tb_replies(struct rsh_tb *b)
{
	struct rte_mbuf *pk[32];
	uint16_t n = rsh_tmfifo_net_rx_burst(b->dev, pk, 32), i;
	unsigned int k = 0;

	for (i = 0; i < n; i++) {
		const struct rte_icmp_hdr *ic = rte_pktmbuf_mtod_offset(pk[i],
			const struct rte_icmp_hdr *, RTE_ETHER_HDR_LEN + 20);

		if (rte_pktmbuf_data_len(pk[i]) >= RSH_TB_HDRS &&
		    ic->icmp_type == RTE_IP_ICMP_ECHO_REPLY)
			k++;
		rte_pktmbuf_free(pk[i]);
	}
	return k;
}

/* One round trip of a len-byte frame in µs; <0 on a 1 s timeout. */
static double
rsh_tb_rtt(struct rsh_tb *b, unsigned int len)
{
	struct rte_mbuf *m = rsh_tb_ping(b, len);
	uint64_t hz = rte_get_timer_hz(), t0 = rte_get_timer_cycles(), t;

	if (m == NULL || rsh_tmfifo_net_tx_burst(b->dev, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return -1;
	}
	do {
		t = rte_get_timer_cycles();
		if (rsh_tb_replies(b) > 0)
			return rsh_tsc_us(t - t0);
	} while (t - t0 < hz);
	return -1;
}

/* Sort helper. */
static int
rsh_tb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* rtt-*: sequential round trips for the time budget. */
static void
rsh_tb_run_rtt(struct rsh_tb *b, const struct rsh_tb_case *c, struct rsh_tb_row *r)
{
	static double s[RSH_TB_MAX_SAMPLES];
	double until = rsh_mono_s() + b->app->bench_seconds, v;
	unsigned int n = 0;

	rsh_tb_rtt(b, c->len); /* warm-up: ARP-free, but wakes both sides */
	while (n < RSH_TB_MAX_SAMPLES && rsh_tb_running(until)) {
		v = rsh_tb_rtt(b, c->len);
		if (v < 0) {
			r->rc = -ETIMEDOUT;
			break;
		}
		s[n++] = v;
	}
	if (n == 0)
		return;
	rsh_bench_tmfifo_pctl(s, n, &r->p50_us, &r->p99_us);
	r->n = n;
	r->max_us = s[n - 1];
}

/* Throughput figures of a case from bytes and messages moved. */
static void
rsh_tb_rate(struct rsh_tb *b, struct rsh_tb_row *r, double bytes,
	    double msgs, double sec, const struct rsh_mmio_stats *m0)
{
	struct rsh_mmio_stats m1;
	double kib = bytes / 1024.0;

	rsh_dev_get_stats(b->dev, &m1);
	r->mib_s = sec > 0 ? bytes / 1048576.0 / sec : 0;
	r->msgs_s = sec > 0 ? msgs / sec : 0;
	r->rd_kib = kib > 0 ? (m1.reads - m0->reads) / kib : 0;
	r->wr_kib = kib > 0 ? (m1.writes - m0->writes) / kib : 0;
	r->n = (unsigned int)msgs;
}

/* The emulator's MMIO cost model counters (its extended statistics). */
struct rsh_tb_cost {
	uint64_t enabled, rd_ns, wr_ns, charged_ns, emu_ns;
};

/* Cost model counters of the case's device (zero when it has none). */
static struct rsh_tb_cost
rsh_tb_cost(struct rsh_tb *b)
{
	static const char *const names[] = { "sim_cost_enabled", "sim_cost_rd_ns",
					     "sim_cost_wr_ns", "sim_cost_charged_ns",
					     "sim_cost_emu_ns" };
	uint64_t v[RTE_DIM(names)];

	rsh_bench_xstats_by_name(b->dev, names, v, RTE_DIM(names));
	return (struct rsh_tb_cost){ .enabled = v[0], .rd_ns = v[1], .wr_ns = v[2],
				     .charged_ns = v[3], .emu_ns = v[4] };
}

/* Seconds on silicon for a cost-model case: wall time without the
 * emulator's own time, plus the charged MMIO time; the read ceiling use
 * of rx_words received words (as many sent: an echo). */
static double
rsh_tb_cost_time(struct rsh_tb *b, struct rsh_tb_row *r, const struct rsh_tb_cost *c0,
		 double wall, double rx_words)
{
	struct rsh_tb_cost c1 = rsh_tb_cost(b);
	double charged = rsh_ns_s(c1.charged_ns - c0->charged_ns);
	double sec = wall - rsh_ns_s(c1.emu_ns - c0->emu_ns) + charged;

	if (!c1.enabled || sec <= 0)
		return wall;
	r->mmio_pct = 100.0 * charged / sec;
	r->rx_ceil_pct = 100.0 * rx_words * c1.rd_ns / 1e9 / sec;
	r->rx_only_pct = 100.0 * rx_words * c1.rd_ns / 1e9 /
			 (sec - rx_words * c1.wr_ns / 1e9);
	return sec;
}

/* net: keep RSH_TB_WINDOW 1500-byte echo requests in flight. */
static void
rsh_tb_run_net(struct rsh_tb *b, const struct rsh_tb_case *c, struct rsh_tb_row *r)
{
	struct rsh_tb_cost c0;
	struct rsh_mmio_stats m0;
	double t0, until, sec;
	unsigned int inflight = 0, got = 0, k;
	struct rte_mbuf *m;

	rsh_tb_rtt(b, c->len);
	rsh_dev_get_stats(b->dev, &m0);
	c0 = rsh_tb_cost(b);
	t0 = rsh_mono_s();
	until = t0 + b->app->bench_seconds;
	while (rsh_tb_running(until)) {
		while (inflight < RSH_TB_WINDOW && (m = rsh_tb_ping(b, c->len)) != NULL) {
			if (rsh_tmfifo_net_tx_burst(b->dev, &m, 1) != 1) {
				rte_pktmbuf_free(m);
				break;
			}
			inflight++;
		}
		k = rsh_tb_replies(b);
		got += k;
		inflight -= RTE_MIN(k, inflight);
	}
	/* Each reply is one frame each way; a frame is a header word and
	 * its bytes in whole words (hardware-notes §4.3). */
	sec = rsh_tb_cost_time(b, r, &c0, rsh_mono_s() - t0,
			       (double)got * (1 + (c->len + 7) / 8));
	rsh_tb_rate(b, r, 2.0 * got * c->len, got, sec, &m0);
	r->rx_mib_s = sec > 0 ? (double)got * c->len / 1048576.0 / sec : 0;
}

/* console: lines into the echo and back, counting returned bytes. */
static void
rsh_tb_run_console(struct rsh_tb *b, const struct rsh_tb_case *c,
		   struct rsh_tb_row *r)
{
	static char line[4096], in[8192];
	struct rsh_mmio_stats m0;
	double t0, until;
	uint64_t sent = 0, got = 0, msgs = 0;
	size_t k;

	(void)c;
	for (k = 0; k < sizeof(line); k++)
		line[k] = (k % 64) == 63 ? '\n' : (char)('a' + k % 26);
	rsh_dev_get_stats(b->dev, &m0);
	t0 = rsh_mono_s();
	until = t0 + b->app->bench_seconds;
	while (rsh_tb_running(until)) {
		if (sent - got < 64 * 1024) {
			k = rsh_tmfifo_console_write(b->dev, line, sizeof(line));
			sent += k;
			msgs += (k + RSH_TMFIFO_CONSOLE_MSG_MAX - 1) / RSH_TMFIFO_CONSOLE_MSG_MAX;
		}
		got += rsh_tmfifo_console_read(b->dev, in, sizeof(in));
	}
	if (got == 0)
		r->rc = -EIO;
	rsh_tb_rate(b, r, (double)sent + (double)got, (double)msgs,
		    rsh_mono_s() - t0, &m0);
}

/* idle: poll-lcore CPU over an idle period, then the first RTT. */
static void
rsh_tb_run_idle(struct rsh_tb *b, const struct rsh_tb_case *c, struct rsh_tb_row *r)
{
	double idle = b->app->bench_seconds * 2, c0, t0, v;
	struct timespec ts = { 0, 50000000 };

	rsh_tb_rtt(b, c->len);
	c0 = rsh_poller_get_cpu_ns(b->p) / 1e9;
	t0 = rsh_mono_s();
	while (rsh_tb_running(t0 + idle)) /* Ctrl-C ends the wait at once */
		nanosleep(&ts, NULL);
	r->cpu_pct = 100.0 * (rsh_poller_get_cpu_ns(b->p) / 1e9 - c0) / (rsh_mono_s() - t0);
	v = rsh_tb_rtt(b, c->len);
	r->rc = v < 0 ? -ETIMEDOUT : 0;
	r->p50_us = r->p99_us = r->max_us = v;
	r->n = 1;
}

/*
 * dpu-first: data the DPU sends waits for the poll loop's next TM FIFO
 * status read (the host has no interrupt for it), then the channel's
 * eventfd wakes the user. After 10 s idle (the loop at its deepest
 * back-off; 5 bench periods when --bench-time is shorter than 2 s, as the
 * smoke test runs it), sample that read delay at 50 random instants: the
 * time from the instant to the next pass, plus the eventfd wake path
 * measured on this machine (write, then ppoll returns).
 */
static double
rsh_tb_wake_path_us(void)
{
	int fd = eventfd(0, EFD_NONBLOCK);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t one = 1;
	double t0, dt;

	if (fd < 0)
		return 0;
	t0 = rsh_mono_s();
	if (write(fd, &one, sizeof(one)) < 0 || poll(&pfd, 1, 100) != 1)
		dt = 0;
	else
		dt = (rsh_mono_s() - t0) * 1e6;
	close(fd);
	return dt;
}

static void
rsh_tb_run_dpu_first(struct rsh_tb *b, const struct rsh_tb_case *c,
		     struct rsh_tb_row *r)
{
	static double s[64];
	double idle = RTE_MIN(10.0, b->app->bench_seconds * 5);
	struct timespec ts = { (time_t)idle, (long)((idle - (time_t)idle) * 1e9) };
	struct rsh_poller_stats st;
	unsigned int n = 0, spins;
	double wake = rsh_tb_wake_path_us();
	uint64_t t0;

	rsh_tb_rtt(b, c->len);
	nanosleep(&ts, NULL);
	while (n < RTE_DIM(s) && !__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED)) {
		ts = (struct timespec){ 0, 1000000L + (rand() % 20000) * 1000L };
		nanosleep(&ts, NULL);
		t0 = rte_get_timer_cycles();
		for (spins = 0; spins < 10000000u; spins++) {
			rsh_poller_get_stats(b->p, &st);
			if (st.last_pass_tsc > t0)
				break;
			rte_pause();
		}
		s[n++] = rsh_tsc_us(st.last_pass_tsc - t0) + wake;
	}
	if (n == 0)
		return;
	qsort(s, n, sizeof(s[0]), rsh_tb_cmp);
	r->n = n;
	r->p50_us = s[n / 2];
	r->p99_us = s[(n * 99) / 100];
	r->max_us = s[n - 1];
}

static const struct rsh_tb_case rsh_tb_cases[] = {
	{ "console (echo, both ways)", false, 0, rsh_tb_run_console, false },
	{ "net 1500 B (ICMP, both ways)", false, 1500, rsh_tb_run_net, false },
	{ "net 64 B (ICMP, both ways)", false, 64, rsh_tb_run_net, false },
	{ "net 1500 B, cost model", false, 1500, rsh_tb_run_net, true },
	{ "net 64 B, cost model", false, 64, rsh_tb_run_net, true },
	{ "rtt 64 B, default policy", false, 64, rsh_tb_run_rtt, false },
	{ "rtt 1500 B, default policy", false, 1500, rsh_tb_run_rtt, false },
	{ "rtt 64 B, --busy-poll", true, 64, rsh_tb_run_rtt, false },
	{ "rtt 1500 B, --busy-poll", true, 1500, rsh_tb_run_rtt, false },
	{ "idle, default policy", false, 64, rsh_tb_run_idle, false },
	{ "dpu-first after 10 s idle", false, 64, rsh_tb_run_dpu_first, false },
};

/* Print the tables. */
static void
rsh_tb_print(const struct rsh_tb_row *rows, unsigned int n)
{
	unsigned int i;

	printf("\ntmfifo channels, emulated BlueField-3 (sim:bf3,peer=none), one run\n");
	printf("%-30s %9s %10s %10s %11s\n", "throughput", "MiB/s", "msgs/s",
	       "reads/KiB", "writes/KiB");
	for (i = 0; i < n; i++)
		if (strncmp(rows[i].name, "rtt", 3) && strncmp(rows[i].name, "idle", 4) &&
		    strncmp(rows[i].name, "dpu", 3) && !rows[i].cost)
			printf("%-30s %9.1f %10.0f %10.2f %11.2f%s\n", rows[i].name,
				       rows[i].mib_s, rows[i].msgs_s, rows[i].rd_kib,
				       rows[i].wr_kib, rows[i].rc < 0 ? "  (failed)" : "");
	printf("\nwith the MMIO cost model (sim:bf3,cost=1: read 1000 ns, posted write 100 ns)\n");
	printf("%-30s %9s %11s %13s %11s %11s\n", "", "MiB/s", "DPU->host", "read ceiling",
	       "rx only", "MMIO time");
	for (i = 0; i < n; i++)
		if (rows[i].cost)
			printf("%-30s %9.2f %11.2f %12.1f%% %10.1f%% %10.1f%%%s\n", rows[i].name,
			       rows[i].mib_s, rows[i].rx_mib_s, rows[i].rx_ceil_pct,
			       rows[i].rx_only_pct, rows[i].mmio_pct,
			       rows[i].rc < 0 ? "  (failed)" : "");
	printf("(time on silicon = wall - emulator + charged MMIO; DPU->host = frames received;\n"
	       " read ceiling = share of the core spent popping received words, one 1 us read\n"
	       " each: 100%% = 7.6 MiB/s of frame words one way; rx only = the same without the\n"
	       " time of the echo requests' posted writes; MMIO time = share in charged MMIO)\n");
	printf("\n%-30s %9s %9s %9s %8s\n", "latency", "p50 us", "p99 us",
	       "max us", "samples");
	for (i = 0; i < n; i++)
		if (!strncmp(rows[i].name, "rtt", 3) || !strncmp(rows[i].name, "idle", 4) ||
		    !strncmp(rows[i].name, "dpu", 3))
			printf("%-30s %9.1f %9.1f %9.1f %8u%s\n", rows[i].name,
			       rows[i].p50_us, rows[i].p99_us, rows[i].max_us, rows[i].n,
			       rows[i].rc < 0 ? "  (failed)" : "");
	for (i = 0; i < n; i++)
		if (!strncmp(rows[i].name, "idle", 4))
			printf("idle: poll lcore %.2f %% of a core; first packet after the idle period %.1f us\n",
			       rows[i].cpu_pct, rows[i].p50_us);
	printf("(MiB/s and MMIO per KiB count the bytes of both directions; targets: busy-poll p50 < 100 us,\n first packet after idle < 1500 us, DPU-first after 10 s idle < 500 us, idle CPU < 2 %%)\n");
}

/* Open an emulated BlueField-3 for the reference schedule. */
static int
rsh_tb_ref_open(bool cost, struct rsh_dev **dev)
{
	int rc = rsh_dev_open(cost ? "sim:bf3,booted=1,peer=none,cost=1" :
			      "sim:bf3,booted=1,peer=none", NULL, dev);

	if (rc < 0)
		rsh_app_err("bench tmfifo: %s", rsh_last_error());
	return rc;
}

/* Run the reference schedule's rows (lib/bench) into r. */
int
rsh_bench_tmfifo_ref(struct rsh_app *app, struct rsh_tb_ref *r)
{
	struct rsh_dev *dev;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = rsh_tb_ref_open(false, &dev);
	if (rc < 0)
		return rc;
	rsh_bench_ref_tmfifo_latency(dev, app->bench_seconds, &rsh_app_cancel, r);
	rsh_dev_close(dev);
	rc = rsh_tb_ref_open(true, &dev);
	if (rc < 0)
		return rc;
	rsh_bench_ref_tmfifo_net(dev, app->bench_seconds, &rsh_app_cancel, r);
	rsh_dev_close(dev);
	return r->rtt_p50_us > 0 && r->idle_first_us > 0 ? 0 : -ETIMEDOUT;
}

/* The reference daemon's schedule beside rshim-pmd's rows. */
static int
rsh_tb_print_ref(struct rsh_app *app, const struct rsh_tb_row *rows, unsigned int n)
{
	const struct rsh_tb_row *rtt = NULL, *idle = NULL, *net = NULL;
	struct rsh_tb_ref ref;
	int rc = rsh_bench_tmfifo_ref(app, &ref);

	for (unsigned int i = 0; i < n; i++) {
		if (!strcmp(rows[i].name, "rtt 64 B, default policy"))
			rtt = &rows[i];
		else if (!strncmp(rows[i].name, "idle", 4))
			idle = &rows[i];
		else if (!strcmp(rows[i].name, "net 1500 B, cost model"))
			net = &rows[i];
	}
	if (rtt == NULL || idle == NULL || net == NULL)
		return -EINVAL;
	printf("\nagainst the reference daemon's TM FIFO schedule (1 ms tick, net every 10th tick\n"
	       "when idle; modelled on its code, same emulator)%s\n", rc < 0 ? "  (failed)" : "");
	printf("%-44s %12s %12s\n", "", "rshim-pmd", "reference");
	printf("%-44s %12.1f %12.1f\n", "rtt 64 B p50, us", rtt->p50_us, ref.rtt_p50_us);
	printf("%-44s %12.1f %12.1f\n", "rtt 64 B p99, us", rtt->p99_us, ref.rtt_p99_us);
	printf("%-44s %12.1f %12.1f\n", "first packet after the idle period, us",
	       idle->p50_us, ref.idle_first_us);
	printf("%-44s %12.2f %12.2f\n", "idle CPU, % of a core", idle->cpu_pct, ref.idle_cpu_pct);
	printf("%-44s %12s %12.0f\n", "idle wake-ups per second", "-", ref.idle_wakeups_s);
	printf("%-44s %12.2f %12.2f\n", "net 1500 B echo, DPU->host MiB/s (cost model)",
	       net->rx_mib_s, ref.net_rx_mib_s);
	return rc;
}

/* --- tcp: iperf3 through tmfifo_net0 against a TAP-to-TAP forwarder --- */

/* A forwarding thread: the tmfifo TAP loop, or the baseline TAP pair. */
struct rsh_tb_fwd {
	pthread_t th;
	int stop;
	struct rsh_tap *tap;       /* tmfifo: TAP ↔ channel */
	struct rsh_dev *dev;
	int fd[2];                 /* baseline: TAP ↔ TAP */
};

/* Baseline: copy every frame from one TAP to the other (poll, no spin). */
static void *
rsh_tb_fwd_pair(void *arg)
{
	struct rsh_tb_fwd *f = arg;
	struct pollfd pfd[2] = { { .fd = f->fd[0], .events = POLLIN },
				 { .fd = f->fd[1], .events = POLLIN } };
	char buf[2048];
	ssize_t n;
	int i;

	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED)) {
		if (poll(pfd, 2, 100) <= 0)
			continue;
		for (i = 0; i < 2; i++)
			while ((n = read(f->fd[i], buf, sizeof(buf))) > 0)
				if (write(f->fd[1 - i], buf, (size_t)n) < 0)
					break;
	}
	return NULL;
}

/* tmfifo: the same loop as --net tap (spin while busy, then ppoll). */
static void *
rsh_tb_fwd_tmfifo(void *arg)
{
	struct rsh_tb_fwd *f = arg;
	struct pollfd pfd = { .fd = f->tap->fd, .events = POLLIN };
	uint64_t idle = 0;

	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED)) {
		if (rsh_pump_tap(f->tap, f->dev) > 0)
			idle = 0;
		else
			idle++;
		if (!f->tap->drained)
			continue;
		/* Readiness of an emptied TAP: a zero timeout while busy. */
		pfd.revents = 0;
		if (ppoll(&pfd, 1, &(struct timespec){ 0, idle > 2000 ? 200000 : 0 },
			  NULL) > 0)
			rsh_tap_polled(f->tap, pfd.revents);
	}
	return NULL;
}

/* Run a shell command quietly; true on exit 0. */
static bool
rsh_tb_sh(const char *fmt, const char *arg)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), fmt, arg, arg, arg, arg);
	return system(cmd) == 0;
}

/* iperf3 client to addr (server in netns ns); Mbit/s, 0 on failure. */
static double
rsh_tb_iperf(const char *ns, const char *addr, double sec)
{
	char cmd[256], line[512];
	double mbit = 0, v;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip netns exec %s iperf3 -s -1 -D >/dev/null 2>&1", ns);
	if (system(cmd) != 0)
		return 0;
	usleep(300000);
	snprintf(cmd, sizeof(cmd), "iperf3 -c %s -t %.0f -f m 2>&1", addr, sec < 1 ? 1 : sec);
	f = popen(cmd, "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, "receiver") != NULL &&
		    sscanf(strstr(line, "MBytes") ? strstr(line, "MBytes") + 6 : line,
			   "%lf", &v) == 1)
			mbit = v;
	pclose(f);
	return mbit;
}

/* Baseline: rshbase0 (host, 192.168.101.1) ↔ rshbase1 (netns rshim-bench). */
static double
rsh_tb_tcp_baseline(struct rsh_app *app)
{
	struct rsh_tb_fwd f = { .fd = { -1, -1 } };
	struct rsh_tap t[2];
	double mbit = 0;

	if (rsh_app_tap_create(90, false, &t[0]) != 0 ||
	    rsh_app_tap_create(91, false, &t[1]) != 0)
		goto out;
	f.fd[0] = t[0].fd;
	f.fd[1] = t[1].fd;
	if (!rsh_tb_sh("ip link set tmfifo_net90 name rshbase0 && ip link set tmfifo_net91 name rshbase1"
		       " && ip netns add rshim-bench && ip link set rshbase1 netns rshim-bench"
		       " && ip addr add 192.168.101.1/24 dev rshbase0 && ip link set rshbase0 up"
		       " && ip -n rshim-bench addr add 192.168.101.2/24 dev rshbase1"
		       " && ip -n rshim-bench link set rshbase1 up && ip -n rshim-bench link set lo up%s", ""))
		goto out;
	pthread_create(&f.th, NULL, rsh_tb_fwd_pair, &f);
	mbit = rsh_tb_iperf("rshim-bench", "192.168.101.2", app->bench_seconds * 2);
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELAXED);
	pthread_join(f.th, NULL);
out:
	rsh_tb_sh("ip netns del rshim-bench 2>/dev/null%s", "");
	if (f.fd[0] >= 0)
		close(f.fd[0]);
	if (f.fd[1] >= 0)
		close(f.fd[1]);
	return mbit;
}

/* tmfifo: sim:bf3 with its namespace peer, tmfifo_net0 192.168.100.1. */
static double
rsh_tb_tcp_tmfifo(struct rsh_app *app)
{
	struct rsh_tb b = { .app = app };
	struct rsh_tb_fwd f = { 0 };
	struct rsh_tap t;
	struct rsh_tmfifo_opts o;
	double mbit = 0;
	int rc;

	if (rsh_app_tap_create(0, app->net_offload, &t) != 0)
		return 0;
	b.po = app->poll;
	rc = rsh_dev_open("sim:bf3,booted=1,peer=0", NULL, &b.dev);
	if (rc == 0)
		rc = rsh_poller_create(&b.po, &b.p);
	if (rc == 0)
		rc = rsh_poller_add(b.p, b.dev);
	rsh_tmfifo_opts_default(&o);
	o.console = false;
	if (rc == 0)
		rc = rsh_tmfifo_attach(b.dev, &o);
	if (rc == 0)
		rc = rsh_poller_start(b.p);
	if (rc == 0 && rsh_app_tap_config(&t, 0, "192.168.100.1/24") == 0) {
		rsh_app_tap_start(app, &t, b.dev);
		f.tap = &t;
		f.dev = b.dev;
		pthread_create(&f.th, NULL, rsh_tb_fwd_tmfifo, &f);
		rsh_tb_sh("ping -c 3 -i 0.2 -W 2 -q 192.168.100.2 >/dev/null 2>&1%s", "");
		mbit = rsh_tb_iperf("rshim-sim0", "192.168.100.2", app->bench_seconds * 2);
		__atomic_store_n(&f.stop, 1, __ATOMIC_RELAXED);
		pthread_join(f.th, NULL);
	}
	rsh_tb_close(&b);
	rsh_tap_close(&t);
	return mbit;
}

/* tcp case: both paths, one line with the ratio. 0, or -1 when it ran and failed. */
static int
rsh_app_bench_tcp(struct rsh_app *app)
{
	double base, tmf;

	if (geteuid() != 0 || system("command -v iperf3 >/dev/null 2>&1") != 0) {
		printf("\ntcp: skipped (needs root and iperf3: apt-get install iperf3)\n");
		return 0;
	}
	base = rsh_tb_tcp_baseline(app);
	tmf = rsh_tb_tcp_tmfifo(app);
	printf("\nTCP (iperf3 -c <peer> -t %.0f, one stream, host -> namespace)\n",
	       app->bench_seconds * 2 < 1 ? 1 : app->bench_seconds * 2);
	printf("%-40s %10.0f Mbit/s\n", "TAP-to-TAP userspace forwarder (baseline)", base);
	printf("%-40s %10.0f Mbit/s\n", "tmfifo_net0 through the emulated DPU", tmf);
	printf("ratio tmfifo / baseline: %.2f (target >= 0.5)\n", base > 0 ? tmf / base : 0);
	return base > 0 && tmf > 0 ? 0 : -1;
}

/* --bench tmfifo. */
int
rsh_app_bench_tmfifo(struct rsh_app *app)
{
	struct rsh_tb_row rows[RTE_DIM(rsh_tb_cases)];
	unsigned int i;
	int code = RSH_EXIT_OK;

	for (i = 0; i < RTE_DIM(rsh_tb_cases); i++) {
		const struct rsh_tb_case *c = &rsh_tb_cases[i];
		struct rsh_tb b = { .app = app };

		if (__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
			break;
		memset(&rows[i], 0, sizeof(rows[i]));
		snprintf(rows[i].name, sizeof(rows[i].name), "%s", c->name);
		rows[i].rc = rsh_tb_open(&b, c->busy, c->cost);
		rows[i].cost = c->cost;
		if (rows[i].rc == 0)
			c->run(&b, c, &rows[i]);
		rsh_tb_close(&b);
		if (rows[i].rc < 0)
			code = RSH_EXIT_FAIL;
		if (!app->quiet)
			fprintf(stderr, "rshim-pmd-app: bench: %s done\n", c->name);
	}
	if (__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED)) {
		rsh_app_err("bench: interrupted; nothing printed");
		return RSH_EXIT_CANCEL;
	}
	rsh_tb_print(rows, RTE_DIM(rsh_tb_cases));
	if (rsh_tb_print_ref(app, rows, RTE_DIM(rsh_tb_cases)) < 0)
		code = RSH_EXIT_FAIL;
	if (__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED)) {
		rsh_app_err("bench: interrupted");
		return RSH_EXIT_CANCEL;
	}
	if (getenv("RSH_BENCH_NO_TCP") != NULL) /* shared machines, CI */
		return code;
	code = rsh_app_bench_tcp(app) != 0 && code == 0 ? RSH_EXIT_FAIL : code;
	return code;
}
