/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll loop's internal calls for the core and its tests: pollers
 * driven by the threads that wait on them, with the clock seam of
 * rsh_clock.h, so a unit test steps the loop on virtual time instead of
 * racing a loop thread against real deadlines.
 */
#ifndef RSH_POLL_PRIV_H
#define RSH_POLL_PRIV_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "rsh.h"

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

#endif /* RSH_POLL_PRIV_H */
