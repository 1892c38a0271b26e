/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll loop's internal calls for the core and its tests: pollers
 * driven by the threads that wait on them, with the clock seam of
 * rsh_clock.h, so a unit test steps the loop on virtual time instead of
 * racing a loop thread against real deadlines.
 */
#ifndef RSH_POLL_PRIV_H
#define RSH_POLL_PRIV_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rte_ring.h>

#include "rsh.h"

struct rsh_cmd;

/* Run one pass on the calling thread (tests step the loop so).
 * @return the work done. */
unsigned int rsh_poller_run_once(struct rsh_poller *p);

/*
 * Start p without a loop thread: commands, boot pushes and channel users
 * then run the loop's passes on their own thread while they wait for it,
 * one thread at a time. @return 0, -EALREADY.
 */
int rsh_poller_start_driven(struct rsh_poller *p);

/* True when p was started driven (and not stopped). */
bool rsh_poller_is_driven(const struct rsh_poller *p);

/* One pass of a driven poller from the calling thread, then an idle
 * sleep of at most max_ns (another thread driving it: a yield). */
void rsh_poller_drive_step(struct rsh_poller *p, uint64_t max_ns);

/*
 * Tests: start p as a wedged loop would look: it takes commands and never
 * runs them, until the test runs a pass (rsh_poller_run_once).
 * @return 0, -EALREADY.
 */
int rsh_poller_start_parked(struct rsh_poller *p);

/* Run a driven poller for ns of clock time: passes, idle sleeps up to
 * the loop's next due time (tests). */
void rsh_poller_run_for(struct rsh_poller *p, uint64_t ns);

/*
 * A control thread waits up to ns for the loop's work (a free chunk, a
 * finished push, a reply): a driven poller gets a pass from the caller
 * first; otherwise the caller sleeps. p may be NULL.
 */
void rsh_poller_ctl_wait(struct rsh_poller *p, uint64_t ns);

/*
 * The loop thread's priority while a boot push streams (rsh_poll_rt.c):
 * raised to SCHED_FIFO 1 where the process may, bounded by a CPU cap per
 * window, dropped when no push streams. Loop thread only.
 */
/* What rsh_poll_rt asks of the system (tests replace it). */
struct rsh_poll_rt_os {
	uint64_t (*cpu_ns)(void);       /* the calling thread's CPU time */
	int (*nice)(void);              /* its nice */
	/* get (set false) or set its policy; 0 or an errno */
	int (*sched)(bool set, int *policy, struct sched_param *param);
	bool (*contended)(void);        /* more runnable threads than CPUs */
	void (*sleep_ns)(uint64_t ns);
};

struct rsh_poll_rt {
	const struct rsh_poll_rt_os *os; /* NULL: the real one */
	bool on;             /* raised now */
	bool saved;          /* policy/param hold the thread's own */
	bool denied;         /* the kernel refused once: never again */
	bool capped;         /* the cap took it back in this window */
	bool as_is;          /* already real-time: left alone for this push */
	uint32_t cap;        /* this raise's cap, per mille of a core (nice-scaled) */
	int policy;
	struct sched_param param;
	uint64_t win_end;    /* TSC: the window's end */
	uint64_t win_cpu0;   /* thread CPU ns at the window's start */
	uint64_t next_check; /* TSC: when the cap is looked at next */
};

/* After each pass of the loop thread: streaming = a push runs. */
void rsh_poll_rt_update(struct rsh_poll_rt *rt, const struct rsh_poll_opts *o,
			bool streaming, uint64_t now, struct rsh_poller_stats *st);

/* The loop ends: the thread's own priority back. */
void rsh_poll_rt_stop(struct rsh_poll_rt *rt);

/* Devices one poller serves. */
#define RSH_POLLER_MAX_DEVS 16
/* Commands in progress at once, and the command ring's size. */
#define RSH_POLLER_MAX_ACTIVE 32u
#define RSH_POLLER_CMD_RING 256u
/* First guess of how much a nanosleep overshoots; then measured. */
#define RSH_POLL_OVERSLEEP_INIT_NS 20000ull

/* A CPU clock's reading, ns. @return 0, or -1 (e.g. its thread ended). */
static inline int
rsh_poller_clock_ns(clockid_t cid, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(cid, &ts) != 0)
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return 0;
}

/*
 * A poller. devs and n_devs belong to the loop while it runs (changed by
 * attach/detach commands) and to the control thread otherwise. run is the
 * stop request (control path writes, loop reads). thread_set/thread are
 * written once by the loop (a threadless poller has neither). cmd_lock
 * orders submissions against a stop: held for an enqueue or to flip
 * accepting, never while waiting.
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
	/* Written by the loop once it runs (release), read by get_stats. */
	uint32_t thread_set;
	/* Set by the loop as its last act (release): from then on the
	 * stopping thread owns everything (also for ThreadSanitizer, which
	 * cannot see inside rte_eal_wait_lcore). */
	uint32_t exited;
	pthread_t thread;
	/* The loop thread's CPU clock, taken by the loop itself (valid while
	 * thread_set), and its CPU time when it last ended (relaxed): readers
	 * never name a thread that may already be joined. */
	clockid_t cpu_clock;
	bool cpu_clock_ok;
	uint64_t cpu_ns_end;
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

/* Upper bounds of the lateness buckets (RSH_POLL_LATE_BOUNDS_NS). */
extern const uint64_t rsh_poll_late_bound[RSH_POLL_LATE_BUCKETS];

/* One pass: commands, then every device's services (rsh_poll_pass.c);
 * lowers *sleep_ns to the loop's next due time. @return the work done. */
unsigned int rsh_poller_pass(struct rsh_poller *p, uint64_t *sleep_ns);

/* The longest idle sleep of p now (rsh_poll_loop.c). */
uint64_t rsh_poller_ceiling_ns(const struct rsh_poller *p);

/* Open or close the command ring to submitters (rsh_poll.c). */
void rsh_poller_accept(struct rsh_poller *p, bool on);

/* After the loop stopped: the calling thread runs the commands in
 * progress or queued to completion (rsh_poll.c). */
void rsh_poller_drain_cmds(struct rsh_poller *p);

#endif /* RSH_POLL_PRIV_H */
