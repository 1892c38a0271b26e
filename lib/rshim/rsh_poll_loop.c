/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll loop's thread: a worker lcore (else a control thread) that
 * runs passes while there is work and backs off when idle (spin, exact
 * naps sized to the device's drain time, then a doze a user can cut
 * short), started and stopped by the control path.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_thread.h>

#include "rsh_log.h"
#include "rsh_tmfifo_priv.h"
#include "rsh_poll_priv.h"

/* Below this (plus the measured oversleep) the loop spins on the TSC
 * instead of sleeping: a sleep would overshoot the wait. */
#define RSH_POLL_MIN_SLEEP_NS 5000ull
/* First back-off step once the idle spin period is over. */
#define RSH_POLL_BACKOFF_START_NS 10000ull

/* Upper bounds of the lateness buckets (rsh.h). */
const uint64_t rsh_poll_late_bound[RSH_POLL_LATE_BUCKETS] = RSH_POLL_LATE_BOUNDS_NS;

/* Account one timed sleep that came back late ns after its target. */
static void
rsh_poller_note_late(struct rsh_poller *p, uint64_t late)
{
	unsigned int i = 0;

	while (late >= rsh_poll_late_bound[i])
		i++;
	__atomic_store_n(&p->st.naps, p->st.naps + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&p->st.nap_late[i], p->st.nap_late[i] + 1, __ATOMIC_RELAXED);
	if (late > p->st.nap_late_max_ns)
		__atomic_store_n(&p->st.nap_late_max_ns, late, __ATOMIC_RELAXED);
}

/* One spin step: a pause, or 1 us on the virtual clock (which would
 * otherwise never reach the end of a spin). */
static void
rsh_poller_pause(void)
{
	if (rsh_clock_is_virtual())
		rsh_clock_sleep_ns(1000);
	else
		rte_pause();
}

/* Spin on the clock for ns nanoseconds (no MMIO, no syscall). */
static void
rsh_poller_spin(uint64_t ns)
{
	uint64_t until = rsh_now() + rsh_ns_cyc(ns);

	if (rsh_clock_is_virtual()) {
		rsh_clock_sleep_until(until);
		return;
	}
	do
		rte_pause();
	while (rsh_now() < until);
}

/*
 * Wait ns nanoseconds as exactly as we can: sleep for ns minus the
 * measured oversleep of nanosleep, spin when that is too short.
 */
static void
rsh_poller_nap(struct rsh_poller *p, uint64_t ns)
{
	uint64_t t0, late;
	struct timespec ts;

	if (ns <= p->oversleep_ns + RSH_POLL_MIN_SLEEP_NS) {
		rsh_poller_spin(ns);
		return;
	}
	if (rsh_clock_is_virtual()) {
		rsh_clock_sleep_ns(ns);
		return;
	}
	ts.tv_sec = (ns - p->oversleep_ns) / 1000000000ull;
	ts.tv_nsec = (ns - p->oversleep_ns) % 1000000000ull;
	t0 = rsh_now();
	nanosleep(&ts, NULL);
	late = rsh_cyc_ns(rsh_now() - t0);
	rsh_poller_note_late(p, late > ns ? late - ns : 0);
	late = late > ns - p->oversleep_ns ? late - (ns - p->oversleep_ns) : 0;
	/* EWMA with weight 1/8; capped so one preemption does not skew it. */
	late = RTE_MIN(late, 200000ull);
	p->oversleep_ns = (p->oversleep_ns * 7 + late) / 8;
}

/*
 * Anything users queued since the last pass? Commands and TM FIFO TX are
 * looked at in their rings (no MMIO); a running push takes a full pass.
 * Returns true when the doze must not sleep.
 */
static bool
rsh_poller_user_work(struct rsh_poller *p)
{
	uint64_t hint = UINT64_MAX;
	unsigned int i;

	if (rsh_ring_count(p->cmds) > 0)
		return true;
	for (i = 0; i < p->n_devs; i++) {
		if (__atomic_load_n(&rsh_dev_boot_state(p->devs[i])->push, __ATOMIC_ACQUIRE) != NULL)
			return rsh_poller_pass(p, &hint) > 0 || hint != UINT64_MAX;
		if (rsh_tmfifo_user_pending(p->devs[i]))
			return true;
	}
	return false;
}

/*
 * Idle back-off sleep that a user can cut short (rsh_poller_kick). The
 * flag is set, then the user-side queues are looked at once more: either
 * that look sees what a user queued, or the user sees the flag and wakes
 * us (both sides use sequentially consistent operations, pairing with
 * rsh_poller_kick).
 */
static void
rsh_poller_doze(struct rsh_poller *p, uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ull,
		.tv_nsec = ns % 1000000000ull,
	};

	__atomic_store_n(&p->dozing, 1, __ATOMIC_SEQ_CST);
	if (rsh_poller_user_work(p))
		p->backoff_ns = 0;
	else if (rsh_clock_is_virtual())
		rsh_clock_sleep_ns(ns);
	else
		syscall(SYS_futex, &p->dozing, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
	__atomic_store_n(&p->dozing, 0, __ATOMIC_RELAXED);
}

/* The longest idle sleep: the back-off ceiling. The host has no
 * interrupt for data the DPU sends (§4.9): with TM FIFO channels this gap
 * bounds DPU-initiated latency. */
uint64_t
rsh_poller_ceiling_ns(const struct rsh_poller *p)
{
	uint64_t ceiling = p->opts.max_sleep_us * 1000ull;

	if (p->has_tmfifo)
		ceiling = RTE_MIN(ceiling, p->opts.tmfifo_sleep_us * 1000ull);
	return ceiling;
}

/*
 * Decide how to wait after an idle pass: a device hint (e.g. the boot
 * FIFO drains at a known rate) is honoured at once; without a hint the loop
 * spins for idle_spin_us, then dozes with a doubling step up to the
 * ceiling, woken early when a user queues data.
 */
static void
rsh_poller_idle(struct rsh_poller *p, uint64_t hint_ns)
{
	uint64_t now = rsh_now();
	uint64_t ceiling = rsh_poller_ceiling_ns(p);

	if (p->idle_since == 0)
		p->idle_since = now;
	if (hint_ns != UINT64_MAX) {
		rsh_poller_nap(p, RTE_MIN(hint_ns, ceiling));
		return;
	}
	uint64_t idle_ns = rsh_cyc_ns(now - p->idle_since);

	if (idle_ns < p->opts.idle_spin_us * 1000ull) {
		rsh_poller_pause();
		return;
	}
	p->backoff_ns = p->backoff_ns == 0 ? RSH_POLL_BACKOFF_START_NS :
					     p->backoff_ns * 2;
	p->backoff_ns = RTE_MIN(p->backoff_ns, ceiling);
	rsh_poller_doze(p, p->backoff_ns);
}

/* Wake a dozing loop: a user queued data (any thread, cheap when awake). */
void
rsh_poller_kick(struct rsh_poller *p)
{
	/* Pairs with the seq_cst store in rsh_poller_doze(). */
	if (__atomic_load_n(&p->dozing, __ATOMIC_SEQ_CST) &&
	    __atomic_exchange_n(&p->dozing, 0, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &p->dozing, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* A boot push is attached to one of the loop's devices. */
static bool
rsh_poller_streaming(const struct rsh_poller *p)
{
	for (unsigned int i = 0; i < p->n_devs; i++)
		if (__atomic_load_n(&rsh_dev_boot_state(p->devs[i])->push, __ATOMIC_ACQUIRE) != NULL)
			return true;
	return false;
}

/* The loop, on a worker lcore or a control thread. */
static int
rsh_poller_loop(void *arg)
{
	struct rsh_poller *p = arg;
	uint64_t ns;

	p->thread = pthread_self();
	p->cpu_clock_ok = pthread_getcpuclockid(p->thread, &p->cpu_clock) == 0;
	__atomic_store_n(&p->thread_set, 1, __ATOMIC_RELEASE);
	/* Sleeps are sized to the device's drain time: keep them exact. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* 1 ns: the least (0 means the default) */
	/* Pairs with the release store in rsh_poller_stop(). */
	while (__atomic_load_n(&p->run, __ATOMIC_ACQUIRE)) {
		uint64_t hint = UINT64_MAX;
		unsigned int work = rsh_poller_pass(p, &hint);

		rsh_poll_rt_update(&p->rt, &p->opts, rsh_poller_streaming(p),
				   rsh_now(), &p->st);
		if (work > 0) {
			p->idle_since = 0;
			p->backoff_ns = 0;
			continue;
		}
		if (p->opts.busy_poll) {
			rsh_poller_pause();
			continue;
		}
		rsh_poller_idle(p, hint);
	}
	rsh_poll_rt_stop(&p->rt);
	if (p->cpu_clock_ok && rsh_poller_clock_ns(p->cpu_clock, &ns) == 0)
		__atomic_store_n(&p->cpu_ns_end, ns, __ATOMIC_RELAXED);
	/* Pairs with the acquire load in rsh_poller_stop(). */
	__atomic_store_n(&p->exited, 1, __ATOMIC_RELEASE);
	return 0;
}

/* pthread adapter for the control-thread fallback. */
static void *
rsh_poller_thread(void *arg)
{
	rsh_poller_loop(arg);
	return NULL;
}

/* A worker lcore that is not running anything, or RTE_MAX_LCORE. */
static unsigned int
rsh_poller_free_lcore(void)
{
	unsigned int l;

	RTE_LCORE_FOREACH_WORKER(l)
		if (rte_eal_get_lcore_state(l) == WAIT)
			return l;
	return RTE_MAX_LCORE;
}

/* Start the loop on a free worker lcore, else on a control thread. */
int
rsh_poller_start(struct rsh_poller *p)
{
	unsigned int l;
	int rc;

	if (p->started)
		return -EALREADY;
	__atomic_store_n(&p->run, 1, __ATOMIC_RELEASE);
	rsh_poller_accept(p, true);
	l = rsh_poller_free_lcore();
	if (l != RTE_MAX_LCORE && rte_eal_remote_launch(rsh_poller_loop, p, l) == 0) {
		p->lcore = l;
	} else {
		rc = rte_ctrl_thread_create(&p->ctrl_thread, "rsh-poll", NULL,
					    rsh_poller_thread, p);
		if (rc != 0) {
			rsh_poller_accept(p, false);
			__atomic_store_n(&p->run, 0, __ATOMIC_RELEASE);
			rsh_err_set("cannot start the poll thread: %s", strerror(rc));
			return -ENOTSUP;
		}
		p->on_ctrl_thread = true;
		RSH_LOG(NOTICE, "no free worker lcore: polling from a control thread (give EAL two lcores, e.g. -l 0-1, for a dedicated poll lcore)");
	}
	p->started = true;
	return 0;
}

/* Stop the loop and wait for it. */
void
rsh_poller_stop(struct rsh_poller *p)
{
	if (!p->started)
		return;
	rsh_poller_accept(p, false);
	/* Pairs with the acquire load in rsh_poller_loop(). */
	__atomic_store_n(&p->run, 0, __ATOMIC_RELEASE);
	if (p->driven || p->parked) {
		rsh_poller_drain_cmds(p);
		p->driven = false;
		p->parked = false;
		p->started = false;
		return;
	}
	rsh_poller_kick(p);
	if (p->on_ctrl_thread)
		pthread_join(p->ctrl_thread, NULL);
	else
		rte_eal_wait_lcore(p->lcore);
	/* Pairs with the release store at the end of rsh_poller_loop(). */
	while (!__atomic_load_n(&p->exited, __ATOMIC_ACQUIRE))
		rte_pause();
	__atomic_store_n(&p->exited, 0, __ATOMIC_RELAXED);
	rsh_poller_drain_cmds(p);
	p->started = false;
	p->on_ctrl_thread = false;
	__atomic_store_n(&p->thread_set, 0, __ATOMIC_RELEASE);
}
