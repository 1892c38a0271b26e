/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll engine: one loop that owns the hardware of its devices. It
 * round-robins the boot FIFO refill and the TM FIFO channels of every
 * attached device, spins while data moves and backs off when idle
 * (doc/architecture.md). No locks on this path.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_thread.h>

#include "rsh_boot_priv.h"
#include "rsh_cmd.h"
#include "rsh_tmfifo_priv.h"
#include "rsh_log.h"
#include "rsh_poll_priv.h"

#define RSH_POLLER_MAX_DEVS 16
/* Commands in progress at once, and the command ring's size. */
#define RSH_POLLER_MAX_ACTIVE 32u
#define RSH_POLLER_CMD_RING 256u
/* Below this (plus the measured oversleep) the loop spins on the TSC
 * instead of sleeping: a sleep would overshoot the wait. */
#define RSH_POLL_MIN_SLEEP_NS 5000ull
/* First guess of how much a nanosleep overshoots; then measured. */
#define RSH_POLL_OVERSLEEP_INIT_NS 20000ull
/* First back-off step once the idle spin period is over. */
#define RSH_POLL_BACKOFF_START_NS 10000ull

/*
 * A poller. devs and n_devs belong to the loop while it runs (changed by
 * attach/detach commands) and to the control thread otherwise. run is the
 * stop request (control path writes, loop reads). thread_set/thread are
 * written once by the loop. cmd_lock orders submissions against a stop:
 * held for an enqueue or to flip accepting, never while waiting.
 */
struct rsh_poller {
	struct rsh_poll_opts opts;
	struct rsh_dev *devs[RSH_POLLER_MAX_DEVS];
	unsigned int n_devs;
	struct rte_ring *cmds;       /* any thread -> loop (MP/SC) */
	pthread_mutex_t cmd_lock;
	bool accepting;              /* under cmd_lock: the loop takes commands */
	/* Commands being stepped, in arrival order (loop only). */
	struct rsh_cmd *active[RSH_POLLER_MAX_ACTIVE];
	unsigned int n_active;
	uint32_t run;
	bool started;
	bool on_ctrl_thread;
	bool driven;                 /* no thread: waiters run the loop */
	bool parked;                 /* tests: accepts commands, never runs */
	uint32_t driving;            /* driven: 1 while a waiter runs a pass */
	unsigned int lcore;
	pthread_t ctrl_thread;
	/* Written by the loop once it runs (release), read by cpu_seconds. */
	uint32_t thread_set;
	/* Set by the loop as its last act (release): from then on the
	 * stopping thread owns everything (also for ThreadSanitizer, which
	 * cannot see inside rte_eal_wait_lcore). */
	uint32_t exited;
	pthread_t thread;
	/* Loop-private back-off state. */
	uint64_t idle_since;
	uint64_t backoff_ns;
	uint64_t oversleep_ns; /* EWMA of how late nanosleep returns */
	/* 1 while the loop dozes in an idle back-off (futex word): the loop
	 * sets it, a user that queued data clears it and wakes the loop. */
	uint32_t dozing;
	bool has_tmfifo;             /* loop: a device has TM FIFO channels */
	uint64_t last_pass;          /* loop: TSC of the previous pass */
	struct rsh_poller_stats st;  /* loop writes (relaxed), any reads */
	struct rsh_poll_rt rt;       /* loop thread: its priority for pushes */
};

/* Defaults of the poll policy. */
void
rsh_poll_opts_default(struct rsh_poll_opts *o)
{
	o->busy_poll = false;
	o->idle_spin_us = 200;
	o->max_sleep_us = RSH_POLL_MAX_SLEEP_US_DEFAULT;
	o->tmfifo_sleep_us = RSH_POLL_TMFIFO_SLEEP_US_DEFAULT;
	o->no_rt_boost = false;
	o->rt_cap_pct = RSH_POLL_RT_CAP_DEFAULT;
}

/* Create a poller. */
int
rsh_poller_create(const struct rsh_poll_opts *opts, struct rsh_poller **out)
{
	static uint32_t seq;
	struct rsh_poller *p = calloc(1, sizeof(*p));
	char name[RTE_RING_NAMESIZE];

	if (p == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "rsh_cmd%u",
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	p->cmds = rte_ring_create(name, RSH_POLLER_CMD_RING, SOCKET_ID_ANY,
				  RING_F_SC_DEQ);
	if (p->cmds == NULL) {
		free(p);
		rsh_err_set("cannot create the poller's command ring: %s (give EAL more memory with -m)",
			    rte_strerror(rte_errno));
		return -ENOMEM;
	}
	pthread_mutex_init(&p->cmd_lock, NULL);
	if (opts != NULL)
		p->opts = *opts;
	else
		rsh_poll_opts_default(&p->opts);
	if (p->opts.max_sleep_us == 0)
		p->opts.max_sleep_us = RSH_POLL_MAX_SLEEP_US_DEFAULT;
	if (p->opts.tmfifo_sleep_us == 0)
		p->opts.tmfifo_sleep_us = RSH_POLL_TMFIFO_SLEEP_US_DEFAULT;
	p->lcore = RTE_MAX_LCORE;
	p->oversleep_ns = RSH_POLL_OVERSLEEP_INIT_NS;
	*out = p;
	return 0;
}

/* Attach and detach: the poller the device joins or leaves. */
struct rsh_poller_cmd {
	struct rsh_cmd c;
	struct rsh_poller *p;
};

/* Command step: put dev in the loop's device list. */
static int
rsh_poller_add_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_poller *p = container_of(c, struct rsh_poller_cmd, c)->p;

	RTE_SET_USED(now);
	if (p->n_devs == RSH_POLLER_MAX_DEVS) {
		rsh_err_set("%s: the poller already serves %u devices; start another poller",
			    c->dev->name, RSH_POLLER_MAX_DEVS);
		return rsh_cmd_finish(c, -ENOSPC);
	}
	p->devs[p->n_devs++] = c->dev;
	return rsh_cmd_finish(c, 0);
}

static const struct rsh_cmd_type rsh_poller_add_type = {
	.name = "poller attach", .step = rsh_poller_add_step, .run_ms = 1000,
};

/* Attach a device, also while the loop runs. */
int
rsh_poller_add(struct rsh_poller *p, struct rsh_dev *dev)
{
	struct rsh_poller_cmd a = { .p = p };
	int rc;

	if (dev->poller != NULL)
		return -EBUSY;
	rc = rsh_cmd_call_on(p, &rsh_poller_add_type, dev, &a.c, &a, sizeof(a));
	if (rc == 0)
		dev->poller = p;
	return rc;
}

/* Command step: stop dev's services and drop it from the device list. */
static int
rsh_poller_remove_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_poller *p = container_of(c, struct rsh_poller_cmd, c)->p;
	unsigned int i;

	RTE_SET_USED(now);
	for (i = 0; i < p->n_devs; i++)
		if (p->devs[i] == c->dev)
			break;
	if (i == p->n_devs)
		return rsh_cmd_finish(c, -ENOENT);
	rsh_dev_svc_stop(c->dev);
	memmove(&p->devs[i], &p->devs[i + 1], (p->n_devs - i - 1) * sizeof(p->devs[0]));
	p->n_devs--;
	return rsh_cmd_finish(c, 0);
}

static const struct rsh_cmd_type rsh_poller_remove_type = {
	.name = "poller detach", .step = rsh_poller_remove_step, .run_ms = 1000,
};

/* Detach a device, also while the loop runs. */
int
rsh_poller_remove(struct rsh_poller *p, struct rsh_dev *dev)
{
	struct rsh_poller_cmd d = { .p = p };
	int rc;

	if (dev->poller != p)
		return -ENOENT;
	rc = rsh_cmd_call_on(p, &rsh_poller_remove_type, dev, &d.c, &d, sizeof(d));
	/* -ETIMEDOUT: the command never ran, the loop still serves dev. */
	if (rc != -ETIMEDOUT)
		dev->poller = NULL;
	return rc;
}

/* Queue a command for the loop; false when the loop does not run. */
bool
rsh_poller_submit(struct rsh_poller *p, struct rsh_cmd *c)
{
	bool queued = false;

	pthread_mutex_lock(&p->cmd_lock);
	/* The ring holds more than callers can have waiting: a full ring
	 * means a wedged loop, and the caller then runs the command. */
	if (p->accepting)
		queued = rte_ring_mp_enqueue(p->cmds, c) == 0;
	pthread_mutex_unlock(&p->cmd_lock);
	if (queued)
		rsh_poller_kick(p);
	return queued;
}

/* True when an earlier active command works on the same device. */
static bool
rsh_poller_dev_busy(const struct rsh_poller *p, unsigned int i)
{
	unsigned int j;

	for (j = 0; j < i; j++)
		if (p->active[j]->dev == p->active[i]->dev)
			return true;
	return false;
}

/*
 * Take new commands and step the due ones; one device's commands run in
 * arrival order, one at a time. Lowers *sleep_ns to the next due step.
 */
static unsigned int
rsh_poller_cmds(struct rsh_poller *p, uint64_t now, uint64_t *sleep_ns)
{
	unsigned int i = 0, work = 0;
	void *obj;

	while (p->n_active < RSH_POLLER_MAX_ACTIVE &&
	       rte_ring_sc_dequeue(p->cmds, &obj) == 0)
		p->active[p->n_active++] = obj;
	while (i < p->n_active) {
		struct rsh_cmd *c = p->active[i];
		/* An abandoned command goes at once (it does not wait its
		 * turn or its wake-up); rsh_cmd_turn drops it. */
		bool gone = __atomic_load_n(&c->st, __ATOMIC_RELAXED) ==
			    RSH_CMD_ST_ABANDONED;

		if (!gone && (rsh_poller_dev_busy(p, i) || c->wake_at > now)) {
			if (c->wake_at > now)
				*sleep_ns = RTE_MIN(*sleep_ns,
						   rsh_cyc_ns(c->wake_at - now));
			i++;
			continue;
		}
		work++;
		if (!rsh_cmd_turn(c, now)) {
			i++;
			continue;
		}
		memmove(&p->active[i], &p->active[i + 1],
			(p->n_active - i - 1) * sizeof(p->active[0]));
		p->n_active--;
	}
	return work;
}

/* Run the services of one device. */
static unsigned int
rsh_poller_dev(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns)
{
	bool fw_reset = false;
	unsigned int s, work = 0;

	for (s = 0; s < dev->n_svcs; s++) {
		const struct rsh_svc *svc = dev->svcs[s];

		/* Drop mode: the device is another driver's; only the
		 * ownership service looks at it (§6.4). */
		if (!(svc->flags & RSH_SVC_F_RUNS_DROPPED) &&
		    rsh_own_dropped(rsh_dev_own(dev)))
			continue;
		/* A NIC-firmware reset in progress: hands off (§6.7). */
		if ((svc->flags & RSH_SVC_F_FW_RESET_PAUSE) &&
		    (fw_reset || (fw_reset = rsh_hk_blocked(dev, now))))
			continue;
		work += svc->poll(dev, now, sleep_ns);
	}
	return work;
}

/* Account the gap since the previous pass (single writer: the loop). */
static void
rsh_poller_note_pass(struct rsh_poller *p, uint64_t now)
{
	uint64_t gap = p->last_pass != 0 ? rsh_cyc_ns(now - p->last_pass) : 0;

	p->last_pass = now;
	__atomic_store_n(&p->st.last_pass_tsc, now, __ATOMIC_RELAXED);
	__atomic_store_n(&p->st.passes, p->st.passes + 1, __ATOMIC_RELAXED);
	if (gap > p->st.gap_max_ns)
		__atomic_store_n(&p->st.gap_max_ns, gap, __ATOMIC_RELAXED);
	__atomic_store_n(&p->st.gap_sum_ns, p->st.gap_sum_ns + gap, __ATOMIC_RELAXED);
}

/* One pass: commands, then every device; lowers *sleep_ns. */
static unsigned int
rsh_poller_pass(struct rsh_poller *p, uint64_t *sleep_ns)
{
	uint64_t now = rsh_now();
	unsigned int i, work;
	bool tmf = false;

	rsh_poller_note_pass(p, now);
	work = rsh_poller_cmds(p, now, sleep_ns);
	for (i = 0; i < p->n_devs; i++) {
		work += rsh_poller_dev(p->devs[i], now, sleep_ns);
		tmf |= rsh_dev_tmfifo_state(p->devs[i])->t != NULL;
	}
	p->has_tmfifo = tmf;
	return work;
}

/* Pass counters of the loop (any thread, relaxed loads). */
void
rsh_poller_get_stats(const struct rsh_poller *p, struct rsh_poller_stats *st)
{
	st->passes = __atomic_load_n(&p->st.passes, __ATOMIC_RELAXED);
	st->gap_max_ns = __atomic_load_n(&p->st.gap_max_ns, __ATOMIC_RELAXED);
	st->gap_sum_ns = __atomic_load_n(&p->st.gap_sum_ns, __ATOMIC_RELAXED);
	st->last_pass_tsc = __atomic_load_n(&p->st.last_pass_tsc, __ATOMIC_RELAXED);
	st->naps = __atomic_load_n(&p->st.naps, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < RSH_POLL_LATE_BUCKETS; i++)
		st->nap_late[i] = __atomic_load_n(&p->st.nap_late[i], __ATOMIC_RELAXED);
	st->nap_late_max_ns = __atomic_load_n(&p->st.nap_late_max_ns, __ATOMIC_RELAXED);
	st->rt_raises = __atomic_load_n(&p->st.rt_raises, __ATOMIC_RELAXED);
	st->rt_capped = __atomic_load_n(&p->st.rt_capped, __ATOMIC_RELAXED);
	st->rt_yield_ns = __atomic_load_n(&p->st.rt_yield_ns, __ATOMIC_RELAXED);
}

/* Upper bounds of the lateness buckets: 1-2-5 steps from 1 us to 50 ms. */
static const uint64_t rsh_poll_late_bound[RSH_POLL_LATE_BUCKETS] = {
	1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
	1000000, 2000000, 5000000, 10000000, 20000000, 50000000, UINT64_MAX,
};

uint64_t
rsh_poller_late_bound_ns(unsigned int i)
{
	return i < RSH_POLL_LATE_BUCKETS ? rsh_poll_late_bound[i] : UINT64_MAX;
}

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

/* Run one pass from the caller's thread (tests drive the engine so). */
unsigned int
rsh_poller_run_once(struct rsh_poller *p)
{
	uint64_t sleep_ns = UINT64_MAX;

	return rsh_poller_pass(p, &sleep_ns);
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

/*
 * Decide how to wait after an idle pass: a device hint (e.g. the boot
 * FIFO drains at a known rate) is honoured at once; without a hint the loop
 * spins for idle_spin_us, then dozes with a doubling step up to the
 * ceiling, woken early when a user queues data.
 */
/* The longest idle sleep: the back-off ceiling. The host has no
 * interrupt for data the DPU sends (§4.9): with TM FIFO channels this gap
 * bounds DPU-initiated latency. */
static uint64_t
rsh_poller_ceiling_ns(const struct rsh_poller *p)
{
	uint64_t ceiling = p->opts.max_sleep_us * 1000ull;

	if (p->has_tmfifo)
		ceiling = RTE_MIN(ceiling, p->opts.tmfifo_sleep_us * 1000ull);
	return ceiling;
}

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

	p->thread = pthread_self();
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

/* Open or close the command ring to submitters. */
static void
rsh_poller_accept(struct rsh_poller *p, bool on)
{
	pthread_mutex_lock(&p->cmd_lock);
	p->accepting = on;
	pthread_mutex_unlock(&p->cmd_lock);
}

/*
 * After the loop returned: the calling thread owns the devices now, so it
 * runs the commands still in progress or queued to completion (and drops
 * those their callers abandoned).
 */
static void
rsh_poller_drain_cmds(struct rsh_poller *p)
{
	unsigned int i;
	void *obj;

	for (i = 0; i < p->n_active; i++)
		rsh_cmd_run_inline(p->active[i]);
	p->n_active = 0;
	while (rte_ring_sc_dequeue(p->cmds, &obj) == 0)
		rsh_cmd_run_inline(obj);
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

/*
 * Driven pollers (tests, rsh_poll_priv.h): no loop thread; a thread that
 * waits for the loop's work runs passes itself, one thread at a time, and
 * sleeps on the clock seam while the loop is idle (on the virtual clock:
 * the clock jumps to the loop's next due time).
 */
static int
rsh_poller_start_threadless(struct rsh_poller *p, bool parked)
{
	if (p->started)
		return -EALREADY;
	__atomic_store_n(&p->run, 1, __ATOMIC_RELEASE);
	p->driven = !parked;
	p->parked = parked;
	p->started = true;
	rsh_poller_accept(p, true);
	return 0;
}

int
rsh_poller_start_driven(struct rsh_poller *p)
{
	return rsh_poller_start_threadless(p, false);
}

/* Tests: a poller that takes commands and never runs them (a wedged
 * loop); rsh_poller_run_once() runs a pass. @return 0, -EALREADY. */
int
rsh_poller_start_parked(struct rsh_poller *p)
{
	return rsh_poller_start_threadless(p, true);
}

/* One pass of a driven poller, then an idle sleep of at most max_ns;
 * another thread driving it just yields. The pass runs other commands'
 * steps on this thread: its own error line is kept across them. */
void
rsh_poller_drive_step(struct rsh_poller *p, uint64_t max_ns)
{
	uint64_t hint = UINT64_MAX;
	unsigned int work;
	char line[512];

	if (__atomic_exchange_n(&p->driving, 1, __ATOMIC_ACQUIRE)) {
		sched_yield();
		return;
	}
	snprintf(line, sizeof(line), "%s", rsh_last_error());
	work = rsh_poller_pass(p, &hint);
	rsh_err_set("%s", line);
	__atomic_store_n(&p->driving, 0, __ATOMIC_RELEASE);
	if (work == 0)
		rsh_clock_sleep_ns(RTE_MIN(RTE_MIN(hint, rsh_poller_ceiling_ns(p)), max_ns));
}

/* Run a driven poller for ns of clock time (tests). */
void
rsh_poller_run_for(struct rsh_poller *p, uint64_t ns)
{
	uint64_t end = rsh_now() + rsh_ns_cyc(ns), now;

	while ((now = rsh_now()) < end)
		rsh_poller_drive_step(p, rsh_cyc_ns(end - now));
}

/* A control thread waits up to ns for the loop: a driven poller gets a
 * pass from it first; otherwise it just sleeps. */
void
rsh_poller_ctl_wait(struct rsh_poller *p, uint64_t ns)
{
	if (p != NULL && p->driven && p->started)
		rsh_poller_drive_step(p, ns);
	else
		rsh_clock_sleep_ns(ns);
}

/* The control path waits for dev's poll loop. */
void
rsh_dev_ctl_wait(struct rsh_dev *dev, uint64_t ns)
{
	rsh_poller_ctl_wait(dev->poller, ns);
}

/* True when p has no thread of its own. */
bool
rsh_poller_is_driven(const struct rsh_poller *p)
{
	return p->driven && p->started;
}

/* Public form of rsh_dev_kick for users of the raw channel rings. */
void
rsh_dev_notify(struct rsh_dev *dev)
{
	rsh_dev_kick(dev);
}

/* Stop, detach devices, free. */
void
rsh_poller_destroy(struct rsh_poller *p)
{
	unsigned int i;

	if (p == NULL)
		return;
	rsh_poller_stop(p);
	rsh_poller_drain_cmds(p);
	for (i = 0; i < p->n_devs; i++) {
		rsh_dev_svc_stop(p->devs[i]);
		p->devs[i]->poller = NULL;
	}
	rte_ring_free(p->cmds);
	pthread_mutex_destroy(&p->cmd_lock);
	free(p);
}

/* CPU time of the loop's thread (0 before it ran). */
double
rsh_poller_cpu_seconds(const struct rsh_poller *p)
{
	struct timespec ts;
	clockid_t cid;

	if (!__atomic_load_n(&p->thread_set, __ATOMIC_ACQUIRE))
		return 0.0;
	if (pthread_getcpuclockid(p->thread, &cid) != 0 ||
	    clock_gettime(cid, &ts) != 0)
		return 0.0;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* True while the loop runs (control path). */
bool
rsh_poller_running(const struct rsh_poller *p)
{
	return p->started;
}
