/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll loop's priority while a boot push streams (rsh_poll_rt.c):
 * raised only while streaming, back to the thread's own policy at once,
 * bounded by its CPU cap per 100 ms window (yield on a contended host,
 * lower on an idle one), the cap scaled by the thread's nice, an admin's
 * real-time policy left alone, a refusal said once and not retried. The
 * system is a fake (struct rsh_poll_rt_os) on the virtual clock.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rsh_clock.h"
#include "rsh_poll_priv.h"
#include "rsh_test_eal.h"

/* The fake system: one thread's policy, CPU time, nice, load. */
static struct {
	int policy;
	int prio;
	int nice;
	int set_rc;        /* what a set returns */
	unsigned int sets; /* set calls */
	uint64_t cpu_ns;
	bool contended;
	uint64_t slept_ns;
} fk;

static uint64_t fk_cpu_ns(void) { return fk.cpu_ns; }
static int fk_nice(void) { return fk.nice; }
static bool fk_contended(void) { return fk.contended; }

static int
fk_sched(bool set, int *policy, struct sched_param *param)
{
	if (!set) {
		*policy = fk.policy;
		param->sched_priority = fk.prio;
		return 0;
	}
	fk.sets++;
	if (fk.set_rc != 0)
		return fk.set_rc;
	fk.policy = *policy;
	fk.prio = param->sched_priority;
	return 0;
}

/* Sleeping moves the virtual clock, as a real sleep moves time. */
static void
fk_sleep(uint64_t ns)
{
	fk.slept_ns += ns;
	rsh_clock_sleep_ns(ns);
}

static const struct rsh_poll_rt_os fk_os = {
	.cpu_ns = fk_cpu_ns, .nice = fk_nice, .sched = fk_sched,
	.contended = fk_contended, .sleep_ns = fk_sleep,
};

struct t_rt {
	struct rsh_poll_rt rt;
	struct rsh_poll_opts o;
	struct rsh_poller_stats st;
};

static int
setup(void **state)
{
	static struct t_rt t;

	memset(&fk, 0, sizeof(fk));
	fk.policy = SCHED_OTHER;
	memset(&t, 0, sizeof(t));
	t.rt.os = &fk_os;
	rsh_poll_opts_default(&t.o);
	rsh_clock_virtual_set(true);
	*state = &t;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	rsh_clock_virtual_set(false);
	return 0;
}

/* One pass of the loop ms of clock after the previous, having used
 * cpu_ms of CPU since. */
static void
pass(struct t_rt *t, bool streaming, double ms, double cpu_ms)
{
	rsh_clock_advance_ns((uint64_t)(ms * 1e6));
	fk.cpu_ns += (uint64_t)(cpu_ms * 1e6);
	rsh_poll_rt_update(&t->rt, &t->o, streaming, rsh_now(), &t->st);
}

/* Raised when a push streams, back to SCHED_OTHER when it ends; nothing
 * happens while none streams. */
static void
test_raise_while_streaming(void **state)
{
	struct t_rt *t = *state;

	pass(t, false, 1, 0);
	assert_int_equal(fk.sets, 0);
	pass(t, true, 1, 0.01);
	assert_int_equal(fk.policy, SCHED_FIFO);
	assert_int_equal(fk.prio, 1);
	assert_int_equal(t->st.rt_raises, 1);
	for (int i = 0; i < 50; i++)
		pass(t, true, 1, 0.05);
	assert_int_equal(fk.sets, 1); /* raised once, not per pass */
	pass(t, false, 1, 0);
	assert_int_equal(fk.policy, SCHED_OTHER);
	assert_int_equal(fk.prio, 0);
	pass(t, false, 1, 0);
	assert_int_equal(fk.sets, 2);
	rsh_poll_rt_stop(&t->rt);
	assert_int_equal(fk.sets, 2);
	/* the next push raises again */
	pass(t, true, 1, 0.01);
	assert_int_equal(fk.policy, SCHED_FIFO);
	assert_int_equal(t->st.rt_raises, 2);
	rsh_poll_rt_stop(&t->rt);
	assert_int_equal(fk.policy, SCHED_OTHER);
}

/* --no-rt-boost / POLL_RT_BOOST 0: never touched. */
static void
test_off(void **state)
{
	struct t_rt *t = *state;

	t->o.no_rt_boost = true;
	for (int i = 0; i < 10; i++)
		pass(t, true, 1, 0.5);
	pass(t, false, 1, 0);
	assert_int_equal(fk.sets, 0);
	assert_int_equal(t->st.rt_raises, 0);
}

/* Refused (no CAP_SYS_NICE): tried once, then the loop runs as it is. */
static void
test_refused_once(void **state)
{
	struct t_rt *t = *state;

	fk.set_rc = EPERM;
	pass(t, true, 1, 0.01);
	for (int i = 0; i < 20; i++)
		pass(t, i % 2 == 0, 1, 0.01);
	assert_int_equal(fk.sets, 1);
	assert_int_equal(fk.policy, SCHED_OTHER);
	assert_int_equal(t->st.rt_raises, 0);
}

/* An admin's chrt -f 50 is neither lowered to 1 nor "restored". */
static void
test_admin_rt_left_alone(void **state)
{
	struct t_rt *t = *state;

	fk.policy = SCHED_FIFO;
	fk.prio = 50;
	for (int i = 0; i < 10; i++)
		pass(t, true, 1, 0.5);
	pass(t, false, 1, 0);
	rsh_poll_rt_stop(&t->rt);
	assert_int_equal(fk.sets, 0);
	assert_int_equal(fk.prio, 50);
}

/* The cap on a contended host: 90 % of a core used 45 ms into the window
 * (2 ms of CPU per ms of clock is impossible; the fake counts what it is
 * told): the loop keeps its priority and sleeps to the window's end. */
static void
test_cap_yields_when_contended(void **state)
{
	struct t_rt *t = *state;

	fk.contended = true;
	pass(t, true, 0, 0);               /* window starts, raised */
	assert_int_equal(fk.policy, SCHED_FIFO);
	for (int i = 0; i < 44; i++)
		pass(t, true, 1, 2);       /* 88 ms of CPU by 44 ms */
	assert_int_equal(t->st.rt_capped, 0);
	pass(t, true, 1, 3);               /* 91 ms by 45 ms: over */
	assert_int_equal(t->st.rt_capped, 1);
	assert_int_equal(fk.policy, SCHED_FIFO);
	/* slept the rest of the window: 100 - 45 ms */
	assert_true(fk.slept_ns >= 54000000 && fk.slept_ns <= 56000000);
	assert_int_equal(t->st.rt_yield_ns, fk.slept_ns);
	/* a new window: under the cap again */
	for (int i = 0; i < 50; i++)
		pass(t, true, 1, 0.5);
	assert_int_equal(t->st.rt_capped, 1);
	assert_int_equal(fk.sets, 1);
}

/* The cap on a host with CPUs to spare: back to its own priority for the
 * rest of the window (nothing is taken there), raised again after it. */
static void
test_cap_lowers_when_idle(void **state)
{
	struct t_rt *t = *state;

	pass(t, true, 0, 0);
	for (int i = 0; i < 10; i++)
		pass(t, true, 1, 10);     /* 100 ms of CPU by 10 ms */
	assert_int_equal(t->st.rt_capped, 1);
	assert_int_equal(fk.policy, SCHED_OTHER);
	assert_int_equal(fk.slept_ns, 0);
	for (int i = 0; i < 80; i++)
		pass(t, true, 1, 1);
	assert_int_equal(fk.policy, SCHED_OTHER); /* still this window */
	for (int i = 0; i < 15; i++)
		pass(t, true, 1, 0.1);
	assert_int_equal(fk.policy, SCHED_FIFO);
	assert_int_equal(t->st.rt_raises, 2);
}

/* An admin's nice scales the budget: at nice 19 and the default cap of
 * 90 %, 4.5 ms of CPU per 100 ms window; at nice 10, 45 ms. */
static void
test_nice_scales_cap(void **state)
{
	struct t_rt *t = *state;

	fk.nice = 19;
	fk.contended = true;
	pass(t, true, 0, 0);
	assert_int_equal(fk.policy, SCHED_FIFO);
	for (int i = 0; i < 4; i++)
		pass(t, true, 1, 1);       /* 4 ms */
	assert_int_equal(t->st.rt_capped, 0);
	pass(t, true, 1, 1);               /* 5 ms > 4.5 ms */
	assert_int_equal(t->st.rt_capped, 1);
	assert_true(fk.slept_ns >= 94000000 && fk.slept_ns <= 96000000);
	pass(t, false, 1, 0);
	fk.nice = 10;
	fk.slept_ns = 0;
	pass(t, true, 0, 0);
	for (int i = 0; i < 44; i++)
		pass(t, true, 1, 1);
	assert_int_equal(t->st.rt_capped, 1);
	pass(t, true, 1, 2);               /* 46 ms > 45 ms */
	assert_int_equal(t->st.rt_capped, 2);
	/* --rt-cap 100 at nice 0: no cap at all */
	pass(t, false, 1, 0);
	fk.nice = 0;
	t->o.rt_cap_pct = 100;
	pass(t, true, 0, 0);
	for (int i = 0; i < 50; i++)
		pass(t, true, 1, 5);
	assert_int_equal(t->st.rt_capped, 2);
}

/* A push that ends while capped leaves nothing to the next one: a new
 * push in the same window is raised at once, with a budget of its own
 * (the CPU used between the pushes does not count). */
static void
test_next_push_fresh_window(void **state)
{
	struct t_rt *t = *state;

	pass(t, true, 0, 0);
	for (int i = 0; i < 10; i++)
		pass(t, true, 1, 10);     /* capped at 10 ms (idle host: lowered) */
	assert_int_equal(t->st.rt_capped, 1);
	assert_int_equal(fk.policy, SCHED_OTHER);
	pass(t, false, 1, 5);             /* the push ends, 5 ms of other work */
	pass(t, true, 1, 0.1);            /* the next push, same 100 ms */
	assert_int_equal(fk.policy, SCHED_FIFO);
	assert_int_equal(t->st.rt_raises, 2);
	for (int i = 0; i < 80; i++)
		pass(t, true, 1, 1);      /* 80 ms of CPU in its own window */
	assert_int_equal(t->st.rt_capped, 1);
	assert_int_equal(fk.policy, SCHED_FIFO);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_raise_while_streaming, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_admin_rt_left_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap_yields_when_contended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap_lowers_when_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nice_scales_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_next_push_fresh_window, setup, teardown),
	};

	if (rsh_test_eal_init("test_poll_rt") < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
