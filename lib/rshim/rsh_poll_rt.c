/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll loop's priority while a boot push streams. The boot FIFO holds
 * 200-400 us of a 20 MB/s drain (hardware-notes §3.3, §D6.1); on a host
 * whose CPUs are busy, the scheduler gives a sleeping loop its CPU back
 * milliseconds later than asked and the DPU waits for the host. While a
 * push streams, the loop's thread runs SCHED_FIFO (priority 1) where the
 * process may (root or CAP_SYS_NICE), so its wake-ups preempt ordinary
 * work; it goes back to its own policy and nice at once when no push
 * streams. The raise is bounded: in each 100 ms window, once the thread
 * has used rt_cap_pct of it, it sleeps to the window's end when the host
 * is contended (the host's work gets the rest), or runs at its own
 * priority until then when CPUs are free. A thread an admin reniced keeps a smaller budget, the cap
 * scaled by (20 - nice) / 20: nice 19 leaves 4.5 % of a core at the
 * default, enough for a slow drain, not enough to take the CPU the admin
 * withheld. Without the permission it says so once and runs as it is.
 * SCHED_DEADLINE would state such a budget directly, but the kernel
 * refuses it to a thread pinned to fewer CPUs than its root domain, and a
 * poll lcore is pinned.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "rsh_clock.h"
#include "rsh_log.h"
#include "rsh_poll_priv.h"

#define RSH_RT_WINDOW_NS 100000000ull /* the cap's accounting window */
#define RSH_RT_CHECK_NS 1000000ull    /* how often the cap is looked at */

/* CPU time of the calling thread, ns. */
static uint64_t
rsh_rt_os_cpu_ns(void)
{
	uint64_t ns;

	return rsh_poller_clock_ns(CLOCK_THREAD_CPUTIME_ID, &ns) == 0 ? ns : 0;
}

/* The calling thread's nice (0 when it cannot be read). */
static int
rsh_rt_os_nice(void)
{
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	return errno != 0 ? 0 : nice;
}

/* The calling thread's scheduling policy: get (set false) or set. */
static int
rsh_rt_os_sched(bool set, int *policy, struct sched_param *param)
{
	if (set)
		return pthread_setschedparam(pthread_self(), *policy, param);
	return pthread_getschedparam(pthread_self(), policy, param);
}

/*
 * More runnable threads than CPUs right now (the 4th field of
 * /proc/loadavg counts them, this one included)? Looked at once per
 * window, when the cap is reached.
 */
static bool
rsh_rt_os_contended(void)
{
	char buf[128];
	unsigned long running = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	ssize_t n;
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	if (sscanf(buf, "%*s %*s %*s %lu/", &running) != 1)
		return true;
	return cpus > 0 && running > (unsigned long)cpus;
}

/* Sleep ns at the thread's current priority. */
static void
rsh_rt_os_sleep(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

static const struct rsh_poll_rt_os rsh_rt_os_real = {
	.cpu_ns = rsh_rt_os_cpu_ns,
	.nice = rsh_rt_os_nice,
	.sched = rsh_rt_os_sched,
	.contended = rsh_rt_os_contended,
	.sleep_ns = rsh_rt_os_sleep,
};

static const struct rsh_poll_rt_os *
rsh_rt_os(const struct rsh_poll_rt *rt)
{
	return rt->os != NULL ? rt->os : &rsh_rt_os_real;
}

/*
 * The cap of this raise, per mille of a core: the configured one, scaled
 * down by the thread's nice when an admin lowered it (nice 10 halves it,
 * nice 19 leaves a twentieth): the push keeps a small budget that does
 * not take the CPU the admin withheld.
 */
static uint32_t
rsh_rt_cap(const struct rsh_poll_rt *rt, const struct rsh_poll_opts *o)
{
	uint32_t pct = o->rt_cap_pct != 0 ? o->rt_cap_pct : RSH_POLL_RT_CAP_DEFAULT;
	uint32_t pm = RTE_MIN(pct, 100u) * 10; /* per mille */
	int nice = rsh_rt_os(rt)->nice();

	if (nice <= 0)
		return pm;
	return RTE_MAX(pm * (uint32_t)(20 - RTE_MIN(nice, 19)) / 20, 1u);
}

/*
 * Switch the calling thread to SCHED_FIFO 1; false when it stays as it
 * is: refused (said once, never tried again), or already real-time (an
 * admin's chrt is left alone).
 */
static bool
rsh_rt_raise(struct rsh_poll_rt *rt, const struct rsh_poll_opts *o)
{
	const struct rsh_poll_rt_os *os = rsh_rt_os(rt);
	struct sched_param sp = { .sched_priority = 1 };
	int fifo = SCHED_FIFO;
	int rc;

	/* looked at before each raise: a renice or chrt between pushes counts */
	if (os->sched(false, &rt->policy, &rt->param) != 0)
		return false;
	rt->saved = true;
	if (rt->policy == SCHED_FIFO || rt->policy == SCHED_RR) {
		rt->as_is = true; /* until this push ends */
		return false;
	}
	rt->cap = rsh_rt_cap(rt, o);
	rc = os->sched(true, &fifo, &sp);
	if (rc == 0)
		return true;
	rt->denied = true;
	RSH_LOG(NOTICE, "the poll lcore may not raise its priority while a boot push streams (%s; needs root or CAP_SYS_NICE): on a busy host the push may run below the DPU's drain rate",
		strerror(rc));
	return false;
}

/* Back to the thread's own policy (its nice is kept by the kernel). */
static void
rsh_rt_lower(struct rsh_poll_rt *rt)
{
	if (rt->saved)
		(void)rsh_rt_os(rt)->sched(true, &rt->policy, &rt->param);
	rt->on = false;
}

/* A new accounting window at now: the thread's CPU time from here. */
static void
rsh_rt_window(struct rsh_poll_rt *rt, uint64_t now)
{
	rt->win_end = now + rsh_ns_cyc(RSH_RT_WINDOW_NS);
	rt->win_cpu0 = rsh_rt_os(rt)->cpu_ns();
	rt->next_check = now + rsh_ns_cyc(RSH_RT_CHECK_NS);
	rt->capped = false;
}

/* Over the cap in this window? Looked at every millisecond. */
static bool
rsh_rt_over_cap(struct rsh_poll_rt *rt, uint64_t now)
{
	if (rt->cap >= 1000 || now < rt->next_check)
		return false;
	rt->next_check = now + rsh_ns_cyc(RSH_RT_CHECK_NS);
	return rsh_rt_os(rt)->cpu_ns() - rt->win_cpu0 > RSH_RT_WINDOW_NS / 1000 * rt->cap;
}

/*
 * The cap is used up. On a contended host the thread keeps its priority
 * and sleeps to the window's end: the host's work gets the rest of the
 * window, and the push resumes on time (dropped to a nice-19 policy among
 * busy threads it would get the CPU back hundreds of ms later). On a host
 * with CPUs to spare it goes back to its own priority instead, which costs
 * nothing there.
 */
static void
rsh_rt_capped(struct rsh_poll_rt *rt, uint64_t now, struct rsh_poller_stats *st)
{
	__atomic_store_n(&st->rt_capped, st->rt_capped + 1, __ATOMIC_RELAXED);
	if (rsh_rt_os(rt)->contended() && rt->win_end > now) {
		uint64_t ns = rsh_cyc_ns(rt->win_end - now);

		rsh_rt_os(rt)->sleep_ns(ns);
		__atomic_store_n(&st->rt_yield_ns, st->rt_yield_ns + ns, __ATOMIC_RELAXED);
		rsh_rt_window(rt, rsh_now());
		return;
	}
	rsh_rt_lower(rt);
	rt->capped = true;
}

/*
 * Called by the loop thread after each pass: raise while streaming, lower
 * when it stops; the window's cap used up yields or lowers (above).
 * Counters into st (the loop's own, relaxed stores).
 */
void
rsh_poll_rt_update(struct rsh_poll_rt *rt, const struct rsh_poll_opts *o,
		   bool streaming, uint64_t now, struct rsh_poller_stats *st)
{
	if (o->no_rt_boost || rt->denied)
		return;
	if (!streaming) {
		if (rt->on)
			rsh_rt_lower(rt);
		rt->as_is = false;
		/* the next push gets a window and a budget of its own */
		rt->capped = false;
		rt->win_end = 0;
		return;
	}
	if (rt->as_is)
		return;
	if (now >= rt->win_end)
		rsh_rt_window(rt, now);
	if (rt->on && rsh_rt_over_cap(rt, now)) {
		rsh_rt_capped(rt, now, st);
		return;
	}
	if (!rt->on && !rt->capped && rsh_rt_raise(rt, o)) {
		rt->on = true;
		__atomic_store_n(&st->rt_raises, st->rt_raises + 1, __ATOMIC_RELAXED);
	}
}

/* The loop ends: its thread's own priority back. */
void
rsh_poll_rt_stop(struct rsh_poll_rt *rt)
{
	if (rt->on)
		rsh_rt_lower(rt);
}
