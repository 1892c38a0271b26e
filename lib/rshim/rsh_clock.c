/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The clock (rsh_clock.h): sleeps that honour the virtual clock, and the
 * virtual clock's switch and step for tests.
 */
#include <sched.h>
#include <time.h>

#include "rsh_clock.h"

struct rsh_clock_state rsh_clock_g;

/* Move the virtual clock to t unless it is past it already. */
static void
rsh_clock_jump(uint64_t t)
{
	uint64_t cur = __atomic_load_n(&rsh_clock_g.now, __ATOMIC_RELAXED);

	while (cur < t &&
	       !__atomic_compare_exchange_n(&rsh_clock_g.now, &cur, t, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/* Sleep until TSC t; on the virtual clock, jump there and yield. */
void
rsh_clock_sleep_until(uint64_t t)
{
	uint64_t now = rsh_now(), ns;
	struct timespec ts;

	if (t <= now)
		return;
	if (rsh_clock_is_virtual()) {
		rsh_clock_jump(t);
		sched_yield();
		return;
	}
	ns = rsh_cyc_ns(t - now);
	ts.tv_sec = (time_t)(ns / 1000000000u);
	ts.tv_nsec = (long)(ns % 1000000000u);
	nanosleep(&ts, NULL);
}

/* Sleep ns nanoseconds. */
void
rsh_clock_sleep_ns(uint64_t ns)
{
	rsh_clock_sleep_until(rsh_now() + rsh_ns_cyc(ns));
}

/* Switch between the TSC and the virtual clock (tests). */
void
rsh_clock_virtual_set(bool on)
{
	if (on)
		__atomic_store_n(&rsh_clock_g.now, rte_get_timer_cycles(), __ATOMIC_RELEASE);
	__atomic_store_n(&rsh_clock_g.virt, on ? 1 : 0, __ATOMIC_RELEASE);
}

/* Step the virtual clock (tests). */
void
rsh_clock_advance_ns(uint64_t ns)
{
	rsh_clock_jump(__atomic_load_n(&rsh_clock_g.now, __ATOMIC_ACQUIRE) + rsh_ns_cyc(ns));
}
