/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bench boot: push a generated stream to emulated BlueField-1, -2 and -3
 * at several drain rates, with rshim-pmd's policy and with the reference
 * daemon's (modelled on its code, lib/bench/rsh_bench_ref_boot.c), side by
 * side in one run, the MMIO cost model on; print one table (or JSON with
 * --json).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define RSH_BENCH_RD_NS 1000u /* the emulator's cost defaults (rsh_sim_cost.c) */
#define RSH_BENCH_WR_NS 100u

/* Per-MiB figure of a row. */
static double
rsh_bench_per_mib(const struct rsh_bench_res *r, double v)
{
	double mib = r->bytes / 1048576.0;

	return mib > 0 ? v / mib : 0;
}

/* MiB/s of a row (silicon time). */
static double
rsh_bench_mib_s(const struct rsh_bench_res *r)
{
	return r->time_s > 0 ? r->bytes / 1048576.0 / r->time_s : 0;
}

/* The rate a row can reach at best: the drain, or the one-core ceiling. */
static double
rsh_bench_limit(const struct rsh_bench_cfg *c)
{
	double ceil = c->cost ? rsh_bench_ceiling(c->gen, RSH_BENCH_RD_NS,
						  RSH_BENCH_WR_NS) * 1048576.0 : 0;

	if (c->livefish)
		ceil = rsh_bench_lf_ceiling(c->gen) * 1048576.0;

	if (c->drain > 0 && (ceil == 0 || c->drain < ceil))
		return c->drain;
	return ceil;
}

/* "% of limit" text: of drain, of the MMIO ceiling, or "-". */
static void
rsh_bench_pct(const struct rsh_bench_res *r, char *buf, size_t len)
{
	double lim = rsh_bench_limit(&r->cfg);

	if (lim <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%% %s", 100.0 * rsh_bench_mib_s(r) * 1048576.0 / lim,
			 r->cfg.drain > 0 && r->cfg.drain <= lim ? "drn" : "ceil");
}

/* "unlimited", "20 MB/s" */
static void
rsh_bench_drain_name(double drain, char *buf, size_t len)
{
	if (drain > 0)
		snprintf(buf, len, "%g MB/s", drain / 1e6);
	else
		snprintf(buf, len, "unlimited");
}

/* One table line. */
static void
rsh_bench_line(const struct rsh_bench_res *r)
{
	char drain[32], pct[32];

	rsh_bench_drain_name(r->cfg.drain, drain, sizeof(drain));
	rsh_bench_pct(r, pct, sizeof(pct));
	printf("%-4s %-10s %-10s %9.1f %11s %10.1f %12.0f %11.1f%s%s\n", r->cfg.gen,
	       drain, r->cfg.pol == RSH_BENCH_PMD ? "rshim-pmd" : "reference",
	       rsh_bench_mib_s(r), pct, rsh_bench_per_mib(r, r->reads),
	       rsh_bench_per_mib(r, r->host_cpu_s * 1e6),
	       rsh_bench_per_mib(r, r->wakeups),
	       r->cfg.cost ? "" : "  emulator CPU, not hardware",
	       r->rc < 0 ? "  (failed)" : r->partial ? "  (time budget)" : "");
}

/* The table and, per generation, the targets. */
static void
rsh_bench_print(const struct rsh_bench_res *rows, unsigned int n)
{
	if (n > 0 && rows[0].cfg.devstr != NULL)
		printf("\nboot FIFO push on %s\n", rows[0].cfg.devstr);
	else
		printf("\nboot FIFO push, emulated BlueField (sim:bfN), MMIO cost model on: read %u ns, posted write %u ns\n",
		       RSH_BENCH_RD_NS, RSH_BENCH_WR_NS);
	printf("%-4s %-10s %-10s %9s %11s %10s %12s %11s\n", "gen", "drain", "policy",
	       "MiB/s", "of limit", "reads/MiB", "CPU-us/MiB", "wakeups/MiB");
	for (unsigned int i = 0; i < n; i++)
		if (!rows[i].cfg.livefish)
			rsh_bench_line(&rows[i]);
	printf("(MiB/s over stream time on silicon = wall time + charged MMIO time; limit = the drain\n"
	       " rate (drn) or the one-core MMIO ceiling (ceil); reads include the reads BF1's\n"
	       " posted-write rule adds; CPU = poll lcore + feeder (+ the reference's threads)\n"
	       " without the emulator's own CPU, plus charged MMIO time; wakeups = voluntary\n"
	       " context switches of the process)\n");
	printf("MMIO ceilings, one core: ");
	for (unsigned int g = 1; g <= 3; g++) {
		char gen[8];

		snprintf(gen, sizeof(gen), "bf%u", g);
		printf("%s%s %.1f MiB/s (reads floor %.1f/MiB)", g > 1 ? ", " : "", gen,
		       rsh_bench_ceiling(gen, RSH_BENCH_RD_NS, RSH_BENCH_WR_NS),
		       rsh_bench_reads_floor(gen));
	}
	printf("\n");
}

/* One JSON object per row. */
static void
rsh_bench_json(const struct rsh_bench_res *rows, unsigned int n)
{
	printf("{\"bench\": \"boot\", \"rd_ns\": %u, \"wr_ns\": %u, \"rows\": [\n",
	       RSH_BENCH_RD_NS, RSH_BENCH_WR_NS);
	for (unsigned int i = 0; i < n; i++) {
		const struct rsh_bench_res *r = &rows[i];
		double lim = rsh_bench_limit(&r->cfg);

		printf("  {\"gen\": \"%s\", \"drain_bps\": %.0f, \"policy\": \"%s\", \"cost_model\": %s, "
		       "\"bytes\": %" PRIu64 ", \"time_s\": %.6f, \"mib_s\": %.3f, \"limit_bps\": %.0f, "
		       "\"pct_of_limit\": %.2f, \"reads_per_mib\": %.2f, \"status_reads_per_mib\": %.2f, "
		       "\"forced_reads_per_mib\": %.2f, "
		       "\"writes_per_mib\": %.2f, "
		       "\"cpu_us_per_mib\": %.2f, \"emu_cpu_s\": %.4f, \"wakeups_per_mib\": %.2f, "
		       "\"short_writes\": %" PRIu64 ", \"full_sleeps\": %" PRIu64 ", "
		       "\"livefish\": %s, \"cfg_floor_per_mib\": %.1f, "
		       "\"partial\": %s, \"rc\": %d}%s\n",
		       r->cfg.gen, r->cfg.drain, r->cfg.pol == RSH_BENCH_PMD ? "rshim-pmd" : "reference",
		       r->cfg.cost ? "true" : "false", r->bytes, r->time_s, rsh_bench_mib_s(r), lim,
		       lim > 0 ? 100.0 * rsh_bench_mib_s(r) * 1048576.0 / lim : 0,
		       rsh_bench_per_mib(r, r->reads), rsh_bench_per_mib(r, r->status_reads),
		       rsh_bench_per_mib(r, r->forced_reads),
		       rsh_bench_per_mib(r, r->writes),
		       rsh_bench_per_mib(r, r->host_cpu_s * 1e6), r->emu_cpu_s,
		       rsh_bench_per_mib(r, r->wakeups), r->short_writes, r->full_sleeps,
		       r->cfg.livefish ? "true" : "false",
		       r->cfg.livefish ? rsh_bench_lf_floor(r->cfg.gen) : 0.0,
		       r->partial ? "true" : "false", r->rc, i + 1 < n ? "," : "");
	}
	printf("]}\n");
}

/* Stream size of a row: what it can move in the time budget. */
static uint64_t
rsh_bench_size(struct rsh_app *app, const struct rsh_bench_cfg *c)
{
	double lim = rsh_bench_limit(c);
	uint64_t size = app->bench_max_bytes;

	if (lim > 0 && lim * app->bench_seconds < size)
		size = (uint64_t)(lim * app->bench_seconds);
	return RTE_MAX(size & ~7ull, (uint64_t)65536);
}

/*
 * --bench boot --device sim:bfN,...: both policies on that one emulated
 * device, with its own drain and cost options (e.g. the trap costs
 * measured in a guest: cost=1,rd_ns=15900,wr_ns=16300), to set the
 * model beside a measurement of the same device.
 */
static unsigned int
rsh_bench_plan_dev(struct rsh_app *app, struct rsh_bench_res *rows)
{
	static char gen[4];

	snprintf(gen, sizeof(gen), "%.3s", app->device + 4);
	for (int pol = 0; pol < 2; pol++) {
		struct rsh_bench_cfg *c = &rows[pol].cfg;

		c->gen = gen;
		c->devstr = app->device;
		c->cost = strstr(app->device, "cost=1") != NULL ||
			  strstr(app->device, "_ns=") != NULL;
		c->pol = pol ? RSH_BENCH_REF : RSH_BENCH_PMD;
		c->size = app->bench_max_bytes & ~7ull;
		c->budget_s = app->bench_seconds * 3 + 1;
	}
	return 2;
}

/* The rows: per generation and drain rate, both policies. */
static unsigned int
rsh_bench_plan(struct rsh_app *app, struct rsh_bench_res *rows, unsigned int max)
{
	static const double drains[] = { 0, 200e6, 50e6, 20e6, 2e6 };
	static const char *const gens[] = { "bf1", "bf2", "bf3" };
	unsigned int n = 0;

	if (app->device_given)
		return rsh_bench_plan_dev(app, rows);

	for (unsigned int g = 0; g < RTE_DIM(gens); g++)
		for (unsigned int d = 0; d < RTE_DIM(drains); d++)
			for (int pol = 0; pol < 2 && n < max; pol++) {
				struct rsh_bench_cfg *c = &rows[n++].cfg;

				c->gen = gens[g];
				c->drain = drains[d];
				c->cost = true;
				c->pol = pol ? RSH_BENCH_REF : RSH_BENCH_PMD;
			}
	for (int pol = 0; pol < 2 && n < max; pol++) { /* emulator CPU only */
		struct rsh_bench_cfg *c = &rows[n++].cfg;

		c->gen = "bf3";
		c->pol = pol ? RSH_BENCH_REF : RSH_BENCH_PMD;
	}
	n += rsh_bench_lf_plan(rows + n, max - n);
	for (unsigned int i = 0; i < n; i++) {
		rows[i].cfg.size = rsh_bench_size(app, &rows[i].cfg);
		rows[i].cfg.budget_s = app->bench_seconds * 3 + 1;
	}
	return n;
}

/* --bench boot (and --bench install). */
int
rsh_app_bench(struct rsh_app *app)
{
	struct rsh_bench_res rows[48];
	unsigned int n, i;
	uint8_t *pat;
	int code = RSH_EXIT_OK;

	if (strcmp(app->bench, "install") == 0)
		return rsh_app_bench_install(app);
	pat = rsh_bench_pattern();
	if (pat == NULL) {
		rsh_app_err("bench: cannot build the %u MiB stream pattern", RSH_BENCH_PATTERN >> 20);
		return RSH_EXIT_FAIL;
	}
	if (app->bench_load >= 0 || app->bench_nice >= 0) {
		code = rsh_app_bench_load(app, pat);
		free(pat);
		return code;
	}
	memset(rows, 0, sizeof(rows));
	n = rsh_bench_plan(app, rows, RTE_DIM(rows));
	for (i = 0; i < n && !rsh_bench_cancelled(); i++) {
		rows[i].cfg.write_ns = app->bench_write_ns;
		rsh_bench_run(app, pat, &rows[i]);
		if (rows[i].rc < 0 && !rsh_bench_cancelled())
			code = RSH_EXIT_FAIL;
		if (!app->quiet)
			fprintf(stderr, "rshim-pmd-app: bench: row %u/%u done\n", i + 1, n);
	}
	free(pat);
	if (rsh_bench_cancelled()) {
		rsh_app_err("bench: interrupted after %u of %u rows; nothing printed", i, n);
		return RSH_EXIT_CANCEL;
	}
	if (app->json)
		rsh_bench_json(rows, n);
	else
		rsh_bench_print(rows, n);
	if (!app->json && !app->device_given)
		rsh_bench_lf_print(rows, n);
	return code;
}
