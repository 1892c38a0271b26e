/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bench boot: push a generated stream to the emulator at several drain
 * rates, with rshim-pmd's policy and with the reference daemon's (§3.3),
 * in one run, and print one table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "app.h"
#include "rsh_bfb.h"

#define RSH_BENCH_PATTERN (4u << 20)
#define RSH_BENCH_STEP (1u << 20)

/* One configuration's result. */
struct rsh_bench_row {
	double drain;      /* bytes/s, 0 = unlimited */
	enum rsh_boot_policy policy;
	double mib_s;
	double reads_mib, writes_mib;
	double cpu_s, wall_s;
	int rc;
};

/* Process CPU seconds (all threads: main, poll lcore, emulator). */
static double
rsh_bench_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Monotonic seconds. */
static double
rsh_bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A valid BFB (small images) at the start of a pseudo-random pattern. */
static uint8_t *
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

/* Feed size bytes of the pattern, stopping at the time budget. */
static int
rsh_bench_feed(struct rsh_boot *b, const uint8_t *pat, uint64_t size, double until)
{
	uint64_t off = 0;
	int rc;

	while (off < size) {
		uint64_t n = size - off < RSH_BENCH_STEP ? size - off : RSH_BENCH_STEP;

		if (rsh_bench_now() > until || __atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
			return -ECANCELED;
		rc = rsh_boot_write(b, pat + off % RSH_BENCH_PATTERN, n);
		if (rc < 0)
			return rc;
		off += n;
	}
	rsh_boot_end_input(b);
	while (rsh_boot_state(b) == 0) {
		struct timespec ts = { 0, 1000000 };

		if (rsh_bench_now() > until)
			return -ECANCELED;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Run one configuration on a fresh emulated BlueField-3. */
static void
rsh_bench_one(struct rsh_app *app, const uint8_t *pat, struct rsh_bench_row *row)
{
	struct rsh_boot_opts bo = app->boot;
	struct rsh_poller *p = NULL;
	struct rsh_dev *dev = NULL;
	struct rsh_boot_stats st;
	struct rsh_boot *b;
	char devstr[96];
	uint64_t size = app->bench_max_bytes;
	double t0, c0, mib;

	if (row->drain > 0 && row->drain * app->bench_seconds < size)
		size = (uint64_t)(row->drain * app->bench_seconds) & ~7ull;
	snprintf(devstr, sizeof(devstr), row->drain > 0 ? "sim:bf3,drain=%.0f" : "sim:bf3",
		 row->drain);
	bo.policy = row->policy;
	bo.reset_delay_ms = -1;
	row->rc = rsh_dev_open(devstr, NULL, &dev);
	if (row->rc == 0)
		row->rc = rsh_poller_create(&app->poll, &p);
	if (row->rc == 0)
		row->rc = rsh_poller_add(p, dev);
	if (row->rc == 0)
		row->rc = rsh_poller_start(p);
	if (row->rc == 0)
		row->rc = rsh_boot_open(dev, p, &bo, &b);
	if (row->rc < 0) {
		rsh_app_err("bench %s: %s", devstr, rsh_last_error());
		goto out;
	}
	t0 = rsh_bench_now();
	c0 = rsh_bench_cpu();
	row->rc = rsh_bench_feed(b, pat, size, t0 + app->bench_seconds * 1.5);
	if (row->rc < 0)
		rsh_boot_cancel(b);
	rsh_boot_close(b, &st);
	row->wall_s = st.elapsed_ns / 1e9;
	row->cpu_s = rsh_bench_cpu() - c0;
	mib = st.bytes_pushed / 1048576.0;
	row->mib_s = row->wall_s > 0 ? mib / row->wall_s : 0;
	row->reads_mib = mib > 0 ? st.mmio.reads / mib : 0;
	row->writes_mib = mib > 0 ? st.mmio.writes / mib : 0;
	if (row->rc == -ECANCELED)
		row->rc = 0; /* the time budget ended a slow configuration */
out:
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
}

/* Print the table. */
static void
rsh_bench_print(const struct rsh_bench_row *rows, unsigned int n)
{
	printf("\nboot FIFO push, emulated BlueField-3 (sim:bf3), one run\n");
	printf("%-10s %-10s %10s %9s %10s %11s %7s %8s\n", "drain", "policy",
	       "MiB/s", "of drain", "reads/MiB", "writes/MiB", "CPU s", "CPU %");
	for (unsigned int i = 0; i < n; i++) {
		const struct rsh_bench_row *r = &rows[i];
		char drain[32], ratio[32];

		if (r->drain > 0) {
			snprintf(drain, sizeof(drain), "%g MB/s", r->drain / 1e6);
			snprintf(ratio, sizeof(ratio), "%.1f %%",
				 100.0 * r->mib_s * 1048576.0 / r->drain);
		} else {
			snprintf(drain, sizeof(drain), "unlimited");
			snprintf(ratio, sizeof(ratio), "-");
		}
		printf("%-10s %-10s %10.1f %9s %10.1f %11.1f %7.2f %7.1f%%%s\n", drain,
		       r->policy == RSH_BOOT_POLICY_CREDIT ? "rshim-pmd" : "reference",
		       r->mib_s, ratio, r->reads_mib, r->writes_mib, r->cpu_s,
		       r->wall_s > 0 ? 100.0 * r->cpu_s / r->wall_s : 0,
		       r->rc < 0 ? "  (failed)" : "");
	}
	printf("\nrshim-pmd / reference, MiB/s:");
	for (unsigned int i = 0; i + 1 < n; i += 2) {
		char drain[32];

		if (rows[i].drain > 0)
			snprintf(drain, sizeof(drain), "%g MB/s", rows[i].drain / 1e6);
		else
			snprintf(drain, sizeof(drain), "unlimited");
		printf("%s %s %.2fx", i ? "," : "", drain,
		       rows[i + 1].mib_s > 0 ? rows[i].mib_s / rows[i + 1].mib_s : 0);
	}
	printf("\n(CPU %% = process CPU time / wall time, all threads: app, poll lcore and the emulator)\n");
}

/* --bench boot. */
int
rsh_app_bench(struct rsh_app *app)
{
	static const double drains[] = { 0, 1e9, 200e6, 20e6 };
	struct rsh_bench_row rows[2 * RTE_DIM(drains)];
	uint8_t *pat = rsh_bench_pattern();
	unsigned int n = 0;
	int code = RSH_EXIT_OK;

	if (pat == NULL) {
		rsh_app_err("bench: cannot build the %u MiB stream pattern", RSH_BENCH_PATTERN >> 20);
		return RSH_EXIT_FAIL;
	}
	for (unsigned int i = 0; i < RTE_DIM(drains); i++) {
		for (int pol = 0; pol < 2; pol++) {
			struct rsh_bench_row *r = &rows[n++];

			memset(r, 0, sizeof(*r));
			r->drain = drains[i];
			r->policy = pol ? RSH_BOOT_POLICY_REFERENCE : RSH_BOOT_POLICY_CREDIT;
			rsh_bench_one(app, pat, r);
			if (r->rc < 0)
				code = RSH_EXIT_FAIL;
			if (!app->quiet)
				fprintf(stderr, "rshim-pmd-app: bench: %s done\n",
					r->drain > 0 ? "one rate" : "unlimited");
		}
	}
	rsh_bench_print(rows, n);
	free(pat);
	return code;
}
