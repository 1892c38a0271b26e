/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Threadless pollers (tests, rsh_poll_priv.h): no loop thread; a thread
 * that waits for the loop's work runs passes itself, one thread at a
 * time, and sleeps on the clock seam while the loop is idle (on the
 * virtual clock: the clock jumps to the loop's next due time).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>

#include <rte_common.h>

#include "rsh_dev_priv.h"
#include "rsh_log.h"
#include "rsh_poll_priv.h"

/* Start p without a thread: driven (waiters run its passes) or parked. */
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
