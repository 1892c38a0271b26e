/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bench install: both policies push a stream through the emulator's
 * install profile (profile=install/N: fast firmware, a 30 s and a 40 s
 * stall, a 2 MB/s eMMC-bound tail; rsh_sim_profile.c), compressed N times
 * so one row takes about 5 x --bench-time, with the MMIO cost model on.
 * Reports total time, host CPU seconds, status reads and wake-ups, as
 * measured and scaled back to the whole install (x N).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define RSH_INSTALL_BYTES (896ull << 20) /* the profile's stream */
#define RSH_INSTALL_SECONDS 523.5        /* its length at full scale */

/* The compression: about 5 x --bench-time per row. */
static unsigned int
rsh_install_scale(const struct rsh_app *app)
{
	double n = ceil(RSH_INSTALL_SECONDS / (5 * app->bench_seconds));

	return (unsigned int)RTE_MIN(RTE_MAX(n, 1.0), 10000.0);
}

/* One line: measured, then x N. */
static void
rsh_install_line(const struct rsh_bench_res *r, unsigned int n)
{
	printf("%-10s %9.2f %9.3f %9" PRIu64 " %8" PRIu64 "   %9.1f %9.2f %10" PRIu64 " %9" PRIu64 "%s\n",
	       r->cfg.pol == RSH_BENCH_PMD ? "rshim-pmd" : "reference",
	       r->time_s, r->host_cpu_s, r->reads, r->wakeups,
	       r->time_s * n, r->host_cpu_s * n, r->reads * n, r->wakeups * n,
	       r->rc < 0 ? "  (failed)" : r->partial ? "  (time budget)" : "");
}

/* Table and the ratios the targets are about. */
static void
rsh_install_print(const struct rsh_bench_res *r, unsigned int n)
{
	printf("\ninstall profile, emulated BlueField-3 (sim:bf3,profile=install/%u,cost=1),\n"
	       "%.1f MiB pushed per row (1/%u of an 896 MiB install)\n", n,
	       r[0].cfg.size / 1048576.0, n);
	printf("%-10s %9s %9s %9s %8s   %9s %9s %10s %9s\n", "", "time s", "CPU s", "reads",
	       "wakeups", "x N: s", "CPU s", "reads", "wakeups");
	rsh_install_line(&r[0], n);
	rsh_install_line(&r[1], n);
	printf("rshim-pmd / reference: time %.3f, host CPU %.3f, reads %.3f, wake-ups %.3f\n",
	       r[1].time_s > 0 ? r[0].time_s / r[1].time_s : 0,
	       r[1].host_cpu_s > 0 ? r[0].host_cpu_s / r[1].host_cpu_s : 0,
	       r[1].reads ? (double)r[0].reads / r[1].reads : 0,
	       r[1].wakeups ? (double)r[0].wakeups / r[1].wakeups : 0);
	printf("(time = stream time on silicon, wall + charged MMIO; CPU = host CPU without the\n"
	       " emulator's, plus charged MMIO; x N = scaled back to the whole install)\n");
}

/* JSON: both rows. */
static void
rsh_install_json(const struct rsh_bench_res *r, unsigned int n)
{
	printf("{\"bench\": \"install\", \"scale\": %u, \"rows\": [\n", n);
	for (int i = 0; i < 2; i++)
		printf("  {\"policy\": \"%s\", \"bytes\": %" PRIu64 ", \"time_s\": %.4f, "
		       "\"cpu_s\": %.5f, \"reads\": %" PRIu64 ", \"wakeups\": %" PRIu64 ", "
		       "\"full_time_s\": %.1f, \"full_cpu_s\": %.3f, \"partial\": %s, \"rc\": %d}%s\n",
		       r[i].cfg.pol == RSH_BENCH_PMD ? "rshim-pmd" : "reference", r[i].bytes,
		       r[i].time_s, r[i].host_cpu_s, r[i].reads, r[i].wakeups,
		       r[i].time_s * n, r[i].host_cpu_s * n, r[i].partial ? "true" : "false",
		       r[i].rc, i == 0 ? "," : "");
	printf("]}\n");
}

/* --bench install. */
int
rsh_app_bench_install(struct rsh_app *app)
{
	unsigned int n = rsh_install_scale(app);
	struct rsh_bench_res rows[2];
	uint8_t *pat = rsh_bench_pattern();
	int code = RSH_EXIT_OK;

	if (pat == NULL) {
		rsh_app_err("bench: cannot build the %u MiB stream pattern", RSH_BENCH_PATTERN >> 20);
		return RSH_EXIT_FAIL;
	}
	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < 2 && !rsh_bench_cancelled(); i++) {
		struct rsh_bench_cfg *c = &rows[i].cfg;

		c->gen = "bf3";
		c->cost = true;
		c->profile = n;
		c->pol = i ? RSH_BENCH_REF : RSH_BENCH_PMD;
		c->size = (RSH_INSTALL_BYTES / n) & ~7ull;
		c->budget_s = 2 * RSH_INSTALL_SECONDS / n + 5;
		rsh_bench_run(app, pat, &rows[i]);
		if (rows[i].rc < 0 && !rsh_bench_cancelled())
			code = RSH_EXIT_FAIL;
		if (!app->quiet)
			fprintf(stderr, "rshim-pmd-app: bench: install row %d/2 done\n", i + 1);
	}
	free(pat);
	if (rsh_bench_cancelled()) {
		rsh_app_err("bench: interrupted; nothing printed");
		return RSH_EXIT_CANCEL;
	}
	if (app->json)
		rsh_install_json(rows, n);
	else
		rsh_install_print(rows, n);
	return code;
}
