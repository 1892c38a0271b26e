/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Boot benchmarks: the measures every row takes the same way (the
 * device's counters by their extended-statistics names), one row with
 * rshim-pmd's policy (the boot engine feeding its poll lcore) and one with
 * the reference daemon's model (lib/bench).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"
#include "rsh_bench_ref.h"
#include "rsh_bfb_fmt.h"

/* The device counters the rows read (the emulator's: 0 elsewhere). */
enum {
	RSH_XS_READS, RSH_XS_WRITES, RSH_XS_COUNT_READS, RSH_XS_CHARGED,
	RSH_XS_EMU, RSH_XS_DRAIN_READS, RSH_XS_N
};
static const char *const rsh_bench_xs_names[RSH_XS_N] = {
	"mmio_reads", "mmio_writes", "sim_host_count_reads", "sim_cost_charged_ns",
	"sim_cost_emu_ns", "sim_cost_bf1_drain_reads",
};

/* True once Ctrl-C (SIGINT/SIGTERM) was seen. */
bool
rsh_bench_cancelled(void)
{
	return __atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED) != 0;
}

/* Process counters and, with dev, the device's MMIO and cost counters. */
void
rsh_bench_snap(struct rsh_dev *dev, struct rsh_bench_snap *s)
{
	uint64_t v[RSH_XS_N];
	struct rusage ru;

	memset(s, 0, sizeof(*s));
	getrusage(RUSAGE_SELF, &ru);
	s->wall_s = rsh_mono_s();
	s->cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		   ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	s->nvcsw = (uint64_t)ru.ru_nvcsw;
	if (dev == NULL)
		return;
	rsh_bench_xstats_by_name(dev, rsh_bench_xs_names, v, RSH_XS_N);
	s->reads = v[RSH_XS_READS];
	s->writes = v[RSH_XS_WRITES];
	s->count_reads = v[RSH_XS_COUNT_READS];
	s->charged_s = rsh_ns_s(v[RSH_XS_CHARGED]);
	s->emu_s = rsh_ns_s(v[RSH_XS_EMU]);
	s->drain_reads = v[RSH_XS_DRAIN_READS];
}

/* Measures of a row from two snapshots; stream_s = real stream time. */
void
rsh_bench_fill(struct rsh_bench_res *r, const struct rsh_bench_snap *a,
	       const struct rsh_bench_snap *b, double stream_s)
{
	double charged = b->charged_s - a->charged_s;
	double emu = b->emu_s - a->emu_s;
	double host = b->cpu_s - a->cpu_s - emu;

	/* the emulator runs inline in the MMIO thread: its time is not host
	 * time on silicon, the charged MMIO time is */
	r->time_s = RTE_MAX(stream_s - emu, 0.0) + charged;
	r->emu_cpu_s = emu;
	r->host_cpu_s = (host > 0 ? host : 0) + charged;
	if (!r->cfg.cost) { /* emulator CPU rows: everything, as measured */
		r->time_s = stream_s;
		r->host_cpu_s = b->cpu_s - a->cpu_s;
	}
	r->forced_reads = b->drain_reads - a->drain_reads;
	r->reads = b->reads - a->reads + r->forced_reads;
	r->writes = b->writes - a->writes;
	r->status_reads = b->count_reads - a->count_reads;
	r->wakeups = b->nvcsw - a->nvcsw;
}

/* The emulator device string of a row. */
void
rsh_bench_devstr(const struct rsh_bench_cfg *c, char *buf, size_t len)
{
	int n;

	if (c->devstr != NULL) { /* as the user gave it, reset waits cut */
		snprintf(buf, len, "%s,resetwin=0,resetdelay=1ms", c->devstr);
		return;
	}
	n = snprintf(buf, len, "sim:%s,resetwin=0,resetdelay=1ms", c->gen);

	if (c->profile != 0)
		n += snprintf(buf + n, len - n, ",profile=install/%u", c->profile);
	else if (c->drain > 0)
		n += snprintf(buf + n, len - n, ",drain=%.0f", c->drain);
	if (c->livefish) /* a 1 ms BF3 quiet window: the bench is not about it */
		n += snprintf(buf + n, len - n, ",livefish=1,lfquiet=1ms%s",
			      c->pol == RSH_BENCH_REF ? ",lfseq=ref" : "");
	if (c->cost)
		snprintf(buf + n, len - n, ",cost=1");
}

/* A valid BFB (small images) at the start of a pseudo-random pattern. */
uint8_t *
rsh_bench_pattern(void)
{
	uint8_t *buf = malloc(RSH_BENCH_PATTERN);
	static uint8_t img[3][64 * 1024];
	struct rsh_bfb_wimage w[5] = { /* bl2, bl31, bl33, kernel, initramfs */
		{ .id = 1, .data = img[0], .len = sizeof(img[0]) },
		{ .id = 3, .data = img[1], .len = 4096 },
		{ .id = 5, .data = img[2], .len = 4096 },
		{ .id = 62, .data = img[1], .len = sizeof(img[1]) },
		{ .id = 63, .data = img[2], .len = sizeof(img[2]) - 3 },
	};
	uint64_t x = 0x9E3779B97F4A7C15ull;

	if (buf == NULL)
		return NULL;
	for (size_t i = 0; i < RSH_BENCH_PATTERN; i += 8) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
	memcpy(img, buf, sizeof(img));
	if (rsh_bfb_write(w, RTE_DIM(w), buf, RSH_BENCH_PATTERN) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Words per status read rshim-pmd can write: the depth it assumes - 3
 * (BlueField-3 1024 words, others 512). */
static double
rsh_bench_credit(const char *gen)
{
	return rsh_bench_boot_credit(strcmp(gen, "bf3") == 0 ? RSH_GEN_BF3 : RSH_GEN_BF2);
}

/* Floor of status reads per MiB: one per full credit, and on BF1 the
 * drain reads its rule adds inside each credit (one before the 16th,
 * 31st, ... write, hardware-notes §1.9). */
double
rsh_bench_reads_floor(const char *gen)
{
	double c = rsh_bench_credit(gen);
	double per = 1;

	if (strcmp(gen, "bf1") == 0)
		per += (double)(((unsigned int)c - 1) / 15);
	return 131072.0 / c * per;
}

/* MiB/s one core can push at these costs: 131072 writes and the floor of
 * reads per MiB. */
double
rsh_bench_ceiling(const char *gen, uint64_t rd_ns, uint64_t wr_ns)
{
	double ns = 131072.0 * wr_ns + rsh_bench_reads_floor(gen) * rd_ns;

	return ns > 0 ? 1e9 / ns : 0;
}

/* Feed size bytes of the pattern, then wait for the FIFO to take it all. */
static int
rsh_bench_feed(struct rsh_boot *b, const uint8_t *pat, uint64_t size, double until)
{
	uint64_t off = 0;
	int rc;

	while (off < size) {
		uint64_t n = RTE_MIN(size - off, (uint64_t)RSH_BENCH_STEP);

		if (rsh_mono_s() > until || rsh_bench_cancelled())
			return -ECANCELED;
		rc = rsh_boot_write(b, pat + off % RSH_BENCH_PATTERN, n);
		if (rc < 0)
			return rc;
		off += n;
	}
	rsh_boot_end_input(b);
	while (rsh_boot_state(b) == 0) {
		struct timespec ts = { 0, 1000000 };

		if (rsh_mono_s() > until || rsh_bench_cancelled())
			return -ECANCELED;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Open the device of a row with a running poller. */
static int
rsh_bench_pmd_open(const struct rsh_poll_opts *po, const char *devstr,
		   struct rsh_dev **dev, struct rsh_poller **p)
{
	int rc = rsh_dev_open(devstr, NULL, dev);

	if (rc == 0)
		rc = rsh_poller_create(po, p);
	if (rc == 0)
		rc = rsh_poller_add(*p, *dev);
	if (rc == 0)
		rc = rsh_poller_start(*p);
	if (rc < 0)
		rsh_app_err("bench %s: %s", devstr, rsh_last_error());
	return rc;
}

/* What the emulated DPU saw of a row: the time its boot FIFO stood
 * empty, its first to last word taken, the bytes taken. */
static void
rsh_bench_dpu_side(struct rsh_dev *dev, struct rsh_bench_res *r)
{
	static const char *const names[] = { "sim_boot_empty_ns", "sim_boot_first_ns",
					     "sim_boot_last_ns", "sim_consumed_bytes" };
	uint64_t v[RTE_DIM(names)];

	if (rsh_bench_xstats_by_name(dev, names, v, RTE_DIM(names)) <= 0)
		return;
	r->empty_s = rsh_ns_s(v[0]);
	r->dpu_s = rsh_ns_s(v[2] - v[1]);
	r->dpu_bytes = v[3];
}

/* The busy-host figures of a row: the poll loop's timed sleeps and
 * priority raises, the time the emulated FIFO stood empty. */
static void
rsh_bench_pmd_extra(struct rsh_dev *dev, struct rsh_poller *p, struct rsh_bench_res *r)
{
	struct rsh_poller_stats ps;

	rsh_poller_get_stats(p, &ps);
	r->late.n = ps.naps;
	memcpy(r->late.b, ps.nap_late, sizeof(r->late.b));
	r->late.max_ns = ps.nap_late_max_ns;
	r->rt_raises = ps.rt_raises;
	r->rt_capped = ps.rt_capped;
	r->rt_yield_s = rsh_ns_s(ps.rt_yield_ns);
	rsh_bench_dpu_side(dev, r);
}

/* One row with rshim-pmd's policy. */
void
rsh_bench_run_pmd(struct rsh_app *app, const uint8_t *pat, struct rsh_bench_res *r)
{
	struct rsh_poll_opts po = app->poll;
	struct rsh_boot_opts bo = app->boot;
	struct rsh_bench_snap a, z;
	struct rsh_poller *p = NULL;
	struct rsh_dev *dev = NULL;
	struct rsh_boot_stats st;
	struct rsh_boot *b;
	char devstr[160];

	rsh_bench_devstr(&r->cfg, devstr, sizeof(devstr));
	bo.reset_delay_ms = -1;
	if (r->cfg.pace != RSH_BENCH_PACE_DEFAULT)
		po.no_rt_boost = true;
	if (r->cfg.pace == RSH_BENCH_PACE_BUSY)
		po.busy_poll = true;
	r->rc = rsh_bench_pmd_open(&po, devstr, &dev, &p);
	if (r->rc == 0)
		r->rc = rsh_boot_open(dev, p, &bo, &b);
	if (r->rc < 0) {
		if (dev != NULL && p != NULL)
			rsh_app_err("bench %s: %s", devstr, rsh_last_error());
		goto out;
	}
	rsh_bench_snap(dev, &a);
	r->rc = rsh_bench_feed(b, pat, r->cfg.size, a.wall_s + r->cfg.budget_s);
	if (r->rc < 0)
		rsh_boot_cancel(b);
	rsh_boot_close(b, &st);
	rsh_bench_snap(dev, &z);
	/* wall time measured here: the engine's elapsed_ns is not used (it
	 * overflowed past ~7 s in rshim-pmd 0.1) */
	rsh_bench_fill(r, &a, &z, z.wall_s - a.wall_s);
	rsh_bench_pmd_extra(dev, p, r);
	r->bytes = st.bytes_pushed;
	r->partial = r->rc == -ECANCELED;
	if (r->partial && !rsh_bench_cancelled())
		r->rc = 0; /* the time budget ended a slow configuration */
out:
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
}

/* The reference model's 1 ms sleeps into the row's lateness figures. */
static void
rsh_bench_ref_late(void *arg, uint64_t ns)
{
	rsh_bench_late_add(arg, ns);
}

/* One row with the reference daemon's model (lib/bench). */
void
rsh_bench_run_ref(struct rsh_app *app, const uint8_t *pat, struct rsh_bench_res *res)
{
	struct rsh_bench_ref_boot rb = {
		.pat = pat, .pat_len = RSH_BENCH_PATTERN, .size = res->cfg.size,
		.nice = res->cfg.nice, .write_ns = res->cfg.write_ns,
		.cancel = &rsh_app_cancel, .late = rsh_bench_ref_late, .late_arg = &res->late,
	};
	struct rsh_bench_snap a, z;
	struct rsh_dev *dev;
	char devstr[160];

	RTE_SET_USED(app);
	rsh_bench_devstr(&res->cfg, devstr, sizeof(devstr));
	res->rc = rsh_dev_open(devstr, NULL, &dev);
	if (res->rc < 0) {
		rsh_app_err("bench %s: %s", devstr, rsh_last_error());
		return;
	}
	res->rc = rsh_bench_ref_boot_open(dev);
	if (res->rc == 0) {
		rsh_bench_snap(dev, &a);
		rb.until_s = a.wall_s + res->cfg.budget_s;
		res->rc = rsh_bench_ref_boot_push(dev, &rb);
		rsh_bench_snap(dev, &z);
		rsh_bench_fill(res, &a, &z, z.wall_s - a.wall_s);
		res->bytes = rb.bytes;
		res->short_writes = rb.short_writes;
		res->full_sleeps = rb.full_sleeps;
		rsh_bench_dpu_side(dev, res);
	} else {
		rsh_app_err("bench %s: the emulated rshim did not come back after the reset", devstr);
	}
	rsh_bench_ref_boot_close(dev);
	res->partial = res->rc == -ECANCELED;
	if (res->partial && !rsh_bench_cancelled())
		res->rc = 0;
	rsh_dev_close(dev);
}

/* Run one row with its policy. */
void
rsh_bench_run(struct rsh_app *app, const uint8_t *pat, struct rsh_bench_res *r)
{
	if (r->cfg.pol == RSH_BENCH_REF)
		rsh_bench_run_ref(app, pat, r);
	else
		rsh_bench_run_pmd(app, pat, r);
}

/* The cost-model line of a push summary: the time the push would take on
 * one host core at the modelled MMIO costs, as the bench rows count it
 * (stream time, less the emulator's own, plus the charged MMIO time). */
void
rsh_bench_push_cost_line(struct rsh_dev *dev, const struct rsh_boot_stats *st)
{
	static const char *const names[] = { "sim_cost_enabled", "sim_cost_rd_ns",
					     "sim_cost_wr_ns", "sim_cost_charged_ns",
					     "sim_cost_emu_ns" };
	uint64_t cs[RTE_DIM(names)]; /* as named */
	double t;

	if (rsh_bench_xstats_by_name(dev, names, cs, RTE_DIM(names)) <= 0 || !cs[0])
		return;
	t = RTE_MAX((double)st->elapsed_ns - (double)cs[4], 0.0) / 1e9 +
	    rsh_ns_s(cs[3]);
	printf("%s: MMIO cost model (rd_ns=%" PRIu64 ", wr_ns=%" PRIu64 "): %.3f s, %.3f MiB/s over the modelled time (emulator %.3f s not counted)\n",
	       rsh_dev_name(dev), cs[1], cs[2], t,
	       t > 0 ? (double)st->bytes_pushed / 1048576.0 / t : 0.0,
	       rsh_ns_s(cs[4]));
}
