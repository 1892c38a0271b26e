/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bench boot --load N [--bench-nice M]: the boot push on a busy host.
 * N CPU-bound processes at nice 0, free to run on every CPU, compete with
 * the push during each row (stopped between rows); the pushing thread runs
 * at nice M when asked (both policies: rshim-pmd's poll lcore, the
 * reference daemon's worker). Each row reports, beside the usual figures,
 * how late the pusher's timed sleeps came back, how long the boot FIFO
 * stood empty while the DPU could have taken more, and how much work the
 * competitors got done during the row against just before it, alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "bench.h"

#define RSH_LOAD_MAX 64u
#define RSH_LOAD_STRIDE 8u         /* counters 64 bytes apart */
#define RSH_LOAD_ALONE_S 0.5       /* the competitors alone before and after a
				    * row (less for rows shorter than 1 s) */

/* The competitors: stopped processes, a shared page of counters. */
struct rsh_load {
	unsigned int n;
	pid_t pid[RSH_LOAD_MAX];
	uint64_t *ctr;             /* MAP_SHARED: child i writes ctr[i * stride] */
};

/* A competitor: every CPU, nice 0, count loop iterations until killed. */
static void __attribute__((noreturn))
rsh_load_child(uint64_t *ctr, pid_t parent)
{
	cpu_set_t all;
	uint64_t x = 0x2545F4914F6CDD1Dull, i = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	CPU_ZERO(&all);
	for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; c++)
		CPU_SET((int)c, &all);
	/* the bench's main thread is pinned to the main lcore's CPU */
	(void)sched_setaffinity(0, sizeof(all), &all);
	(void)setpriority(PRIO_PROCESS, 0, 0);
	raise(SIGSTOP);
	for (;;) {
		for (int k = 0; k < 256; k++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		}
		__asm__ volatile("" : : "r"(x)); /* the work is kept */
		__atomic_store_n(ctr, ++i, __ATOMIC_RELAXED);
	}
}

/* Wait until every competitor is stopped. */
static void
rsh_load_wait_stopped(const struct rsh_load *l)
{
	for (unsigned int i = 0; i < l->n; i++) {
		int st;

		while (waitpid(l->pid[i], &st, WUNTRACED) < 0 && errno == EINTR)
			;
	}
}

/* Send sig to every competitor. */
static void
rsh_load_signal(const struct rsh_load *l, int sig)
{
	for (unsigned int i = 0; i < l->n; i++)
		kill(l->pid[i], sig);
}

/* Kill and reap the competitors. */
static void
rsh_load_stop(struct rsh_load *l)
{
	rsh_load_signal(l, SIGKILL);
	for (unsigned int i = 0; i < l->n; i++)
		while (waitpid(l->pid[i], NULL, 0) < 0 && errno == EINTR)
			;
	if (l->ctr != NULL)
		munmap(l->ctr, RSH_LOAD_MAX * RSH_LOAD_STRIDE * 8);
	memset(l, 0, sizeof(*l));
}

/* Fork n stopped competitors. @return 0 or -errno (none left running). */
static int
rsh_load_start(struct rsh_load *l, unsigned int n)
{
	pid_t self = getpid();

	memset(l, 0, sizeof(*l));
	l->ctr = mmap(NULL, RSH_LOAD_MAX * RSH_LOAD_STRIDE * 8, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->ctr == MAP_FAILED) {
		l->ctr = NULL;
		return -errno;
	}
	for (unsigned int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			int rc = -errno;

			rsh_load_wait_stopped(l);
			rsh_load_stop(l);
			return rc;
		}
		if (pid == 0)
			rsh_load_child(&l->ctr[i * RSH_LOAD_STRIDE], self);
		l->pid[l->n++] = pid;
	}
	rsh_load_wait_stopped(l);
	return 0;
}

/* Iterations the competitors did so far. */
static uint64_t
rsh_load_count(const struct rsh_load *l)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < l->n; i++)
		sum += __atomic_load_n(&l->ctr[i * RSH_LOAD_STRIDE], __ATOMIC_RELAXED);
	return sum;
}

/* Let the competitors run (cont) or stop them; their count then. */
static uint64_t
rsh_load_set(const struct rsh_load *l, bool run)
{
	if (run) {
		rsh_load_signal(l, SIGCONT);
		return rsh_load_count(l);
	}
	rsh_load_signal(l, SIGSTOP);
	rsh_load_wait_stopped(l);
	return rsh_load_count(l);
}

/* Set the nice of the calling thread (an lcore's). */
static int
rsh_load_nice_lcore(void *arg)
{
	return setpriority(PRIO_PROCESS, 0, *(const int *)arg) < 0 ? -errno : 0;
}

/* Every worker lcore's thread at nice (the poll lcore is one of them). */
static int
rsh_load_nice_workers(int nice)
{
	unsigned int l;
	int rc = 0;

	RTE_LCORE_FOREACH_WORKER(l) {
		if (rte_eal_remote_launch(rsh_load_nice_lcore, &nice, l) != 0)
			return -EBUSY;
		if (rte_eal_wait_lcore(l) < 0)
			rc = -EPERM;
	}
	return rc;
}

/* Percentile q (0-1) of a lateness histogram: its bucket's upper bound,
 * or the largest lateness seen when that is less. */
uint64_t
rsh_bench_late_pct(const struct rsh_bench_late *h, double q)
{
	uint64_t want, seen = 0;

	if (h->n == 0)
		return 0;
	want = (uint64_t)(q * (double)h->n + 0.999999);
	for (unsigned int i = 0; i < RSH_POLL_LATE_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			return i + 1 < RSH_POLL_LATE_BUCKETS ?
			       RTE_MIN(((const uint64_t[])RSH_POLL_LATE_BOUNDS_NS)[i], h->max_ns) : h->max_ns;
	}
	return h->max_ns;
}

/* Account one timed sleep late ns after its target. */
void
rsh_bench_late_add(struct rsh_bench_late *h, uint64_t ns)
{
	unsigned int i = 0;

	while (i + 1 < RSH_POLL_LATE_BUCKETS && ns >= ((const uint64_t[])RSH_POLL_LATE_BOUNDS_NS)[i])
		i++;
	h->n++;
	h->b[i]++;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

/* "<20us", "<1ms", "3.2ms" (the max), "-" */
static void
rsh_bench_ns_txt(uint64_t ns, bool bound, char *buf, size_t len)
{
	const char *lt = bound ? "<" : "";

	if (ns == 0)
		snprintf(buf, len, "-");
	else if (ns < 1000000)
		snprintf(buf, len, "%s%.0fus", lt, ns / 1e3);
	else
		snprintf(buf, len, "%s%.1fms", lt, ns / 1e6);
}

/* The policy column of a load row. */
static const char *
rsh_load_pol_name(const struct rsh_bench_cfg *c)
{
	if (c->pol == RSH_BENCH_REF)
		return "reference";
	if (c->pace == RSH_BENCH_PACE_BUSY)
		return "pmd busy";
	return c->pace == RSH_BENCH_PACE_NO_RT ? "pmd no-rt" : "rshim-pmd";
}

/* MiB/s as the DPU saw the stream: from the first word it took to the
 * last, on its clock (silicon time with the cost model). */
static double
rsh_load_mib_s(const struct rsh_bench_res *r)
{
	return r->dpu_s > 0 ? r->dpu_bytes / 1048576.0 / r->dpu_s : 0;
}

/* One line of the load table. */
static void
rsh_load_line(const struct rsh_bench_res *r)
{
	char p50[16], p99[16], mx[16];
	double mib_s = rsh_load_mib_s(r);
	double pct = r->cfg.drain > 0 ? 100.0 * mib_s * 1048576.0 / r->cfg.drain : 0;

	rsh_bench_ns_txt(rsh_bench_late_pct(&r->late, 0.50), true, p50, sizeof(p50));
	rsh_bench_ns_txt(rsh_bench_late_pct(&r->late, 0.99), true, p99, sizeof(p99));
	rsh_bench_ns_txt(r->late.max_ns, false, mx, sizeof(mx));
	printf("%-4s %4g %-4s %-10s %8.2f %7.1f%% %7s %7s %8s %7.1f%% %7.1f%% %4" PRIu64 "/%-3" PRIu64 "%s\n",
	       r->cfg.gen, r->cfg.drain / 1e6, r->cfg.cost ? "on" : "off",
	       rsh_load_pol_name(&r->cfg), mib_s, pct, p50, p99, mx,
	       r->dpu_s > 0 ? 100.0 * r->empty_s / r->dpu_s : 0,
	       r->load_pct, r->rt_raises, r->rt_capped,
	       r->rc < 0 ? "  (failed)" : r->partial ? "  (time budget)" : "");
}

/* The load table. */
static void
rsh_load_print(const struct rsh_app *app, const struct rsh_bench_res *rows,
	       unsigned int n, double alone_s, double alone)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	printf("\nboot FIFO push on a busy host: %d CPU-bound nice-0 competitors on %ld CPUs, pushing thread at nice %d\n",
	       app->bench_load, cpus, app->bench_nice > 0 ? app->bench_nice : 0);
	printf("%-4s %4s %-4s %-10s %8s %8s %7s %7s %8s %8s %8s %6s\n", "gen", "MB/s",
	       "cost", "policy", "MiB/s", "of drn", "late50", "late99", "latemax",
	       "empty", "work", "rt/cap");
	for (unsigned int i = 0; i < n; i++)
		rsh_load_line(&rows[i]);
	printf("(MiB/s: as the DPU saw the stream, first to last word it took, on its clock;\n"
	       " late50/99/max: how late the pusher's timed sleeps came back, percentiles as the\n"
	       " upper bound of their 1-2-5 bucket; empty: time the boot FIFO stood empty while\n"
	       " the DPU could take more, %% of the stream; work: the competitors' iterations\n"
	       " during the row against %.1f s alone before and after it, 100%% = the push took\n"
	       " nothing from them (alone: %.3g iterations/s); rt/cap: priority raises of the\n"
	       " poll lcore / times its CPU cap ended one; cost off: emulator CPU in the\n"
	       " figures, not hardware)\n",
	       alone_s, alone);
}

/* The load rows as JSON. */
static void
rsh_load_json(const struct rsh_app *app, const struct rsh_bench_res *rows,
	      unsigned int n)
{
	printf("{\"bench\": \"boot-load\", \"load\": %d, \"nice\": %d, \"cpus\": %ld, \"rows\": [\n",
	       app->bench_load, app->bench_nice > 0 ? app->bench_nice : 0,
	       sysconf(_SC_NPROCESSORS_ONLN));
	for (unsigned int i = 0; i < n; i++) {
		const struct rsh_bench_res *r = &rows[i];
		double mib_s = rsh_load_mib_s(r);

		printf("  {\"gen\": \"%s\", \"drain_bps\": %.0f, \"cost_model\": %s, \"policy\": \"%s\", "
		       "\"bytes\": %" PRIu64 ", \"dpu_s\": %.6f, \"mib_s\": %.3f, \"pct_of_drain\": %.2f, "
		       "\"sleeps\": %" PRIu64 ", \"late_p50_ns\": %" PRIu64 ", \"late_p99_ns\": %" PRIu64 ", "
		       "\"late_max_ns\": %" PRIu64 ", \"empty_s\": %.6f, \"competitor_work_pct\": %.2f, "
		       "\"host_cpu_s\": %.4f, \"rt_raises\": %" PRIu64 ", \"rt_capped\": %" PRIu64 ", "
		       "\"rt_yield_s\": %.4f, "
		       "\"partial\": %s, \"rc\": %d}%s\n",
		       r->cfg.gen, r->cfg.drain, r->cfg.cost ? "true" : "false",
		       rsh_load_pol_name(&r->cfg), r->dpu_bytes, r->dpu_s, mib_s,
		       r->cfg.drain > 0 ? 100.0 * mib_s * 1048576.0 / r->cfg.drain : 0,
		       r->late.n, rsh_bench_late_pct(&r->late, 0.5),
		       rsh_bench_late_pct(&r->late, 0.99), r->late.max_ns, r->empty_s,
		       r->load_pct, r->host_cpu_s, r->rt_raises, r->rt_capped, r->rt_yield_s,
		       r->partial ? "true" : "false", r->rc, i + 1 < n ? "," : "");
	}
	printf("]}\n");
}

/* The rows: BF2/BF3 at 2, 20, 50 MB/s, cost model on and off, rshim-pmd
 * with and without the priority raise and busy polling without it, and
 * the reference. */
static unsigned int
rsh_load_plan(const struct rsh_app *app, struct rsh_bench_res *rows, unsigned int max)
{
	static const double drains[] = { 2e6, 20e6, 50e6 };
	static const char *const gens[] = { "bf2", "bf3" };
	unsigned int n = 0;

	for (int cost = 0; cost < 2; cost++)
		for (unsigned int g = 0; g < RTE_DIM(gens); g++)
			for (unsigned int d = 0; d < RTE_DIM(drains); d++)
				for (int pol = 0; pol < 4 && n < max; pol++) {
					struct rsh_bench_cfg *c = &rows[n++].cfg;
					uint64_t size = app->bench_max_bytes;

					c->gen = gens[g];
					c->drain = drains[d];
					c->cost = cost == 0; /* model on first */
					c->pol = pol == 3 ? RSH_BENCH_REF : RSH_BENCH_PMD;
					c->pace = pol == 1 ? RSH_BENCH_PACE_NO_RT :
						  pol == 2 ? RSH_BENCH_PACE_BUSY :
							     RSH_BENCH_PACE_DEFAULT;
					if (c->drain * app->bench_seconds < size)
						size = (uint64_t)(c->drain * app->bench_seconds);
					c->size = RTE_MAX(size & ~7ull, (uint64_t)65536);
					c->budget_s = app->bench_seconds * 3 + 1;
					c->nice = app->bench_nice > 0 ? app->bench_nice : 0;
				}
	return n;
}

/* --bench boot --load N. */
int
rsh_app_bench_load(struct rsh_app *app, const uint8_t *pat)
{
	struct rsh_bench_res rows[48];
	struct rsh_load l;
	double alone_sum = 0;
	unsigned int n, i;
	int nice = app->bench_nice > 0 ? app->bench_nice : 0;
	int code = RSH_EXIT_OK, rc;
	double alone_s = RTE_MAX(RTE_MIN(RSH_LOAD_ALONE_S, app->bench_seconds / 2), 0.02);

	memset(rows, 0, sizeof(rows));
	n = rsh_load_plan(app, rows, RTE_DIM(rows));
	rc = rsh_load_start(&l, (unsigned int)RTE_MAX(app->bench_load, 0));
	if (rc < 0) {
		rsh_app_err("bench: cannot start %d competitors: %s", app->bench_load, strerror(-rc));
		return RSH_EXIT_FAIL;
	}
	if (nice > 0 && rsh_load_nice_workers(nice) < 0) {
		rsh_app_err("bench: cannot set the poll lcore's nice to %d", nice);
		rsh_load_stop(&l);
		return RSH_EXIT_FAIL;
	}
	for (i = 0; i < n && !rsh_bench_cancelled(); i++) {
		struct rsh_bench_res *r = &rows[i];
		double t0 = rsh_mono_s(), t1, t2, t3;
		uint64_t c0 = rsh_load_set(&l, true), c1, c2, c3;
		struct timespec ts = { 0, (long)(alone_s * 1e9) };

		nanosleep(&ts, NULL);
		c1 = rsh_load_count(&l);
		t1 = rsh_mono_s();
		rsh_bench_run(app, pat, r);
		c2 = rsh_load_count(&l);
		t2 = rsh_mono_s();
		nanosleep(&ts, NULL);
		c3 = rsh_load_set(&l, false);
		t3 = rsh_mono_s();
		if (l.n > 0 && c1 > c0 && c3 > c2 && t1 > t0 && t2 > t1 && t3 > t2) {
			double alone = ((double)(c1 - c0) + (double)(c3 - c2)) /
				       ((t1 - t0) + (t3 - t2));

			alone_sum += alone;
			r->load_pct = 100.0 * ((double)(c2 - c1) / (t2 - t1)) / alone;
		}
		if (r->rc < 0 && !rsh_bench_cancelled())
			code = RSH_EXIT_FAIL;
		if (!app->quiet)
			fprintf(stderr, "rshim-pmd-app: bench: row %u/%u done\n", i + 1, n);
	}
	rsh_load_stop(&l);
	if (nice > 0)
		(void)rsh_load_nice_workers(0);
	if (rsh_bench_cancelled()) {
		rsh_app_err("bench: interrupted after %u of %u rows; nothing printed", i, n);
		return RSH_EXIT_CANCEL;
	}
	if (app->json)
		rsh_load_json(app, rows, n);
	else
		rsh_load_print(app, rows, n, alone_s, n > 0 ? alone_sum / n : 0);
	return code;
}
