/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service table drives the poll loop (rsh_svc.h): a table with two
 * test services behind the core's ownership and housekeeping ones, on a
 * mock device stepped by hand. The loop polls the service flagged
 * RSH_SVC_F_RUNS_DROPPED in drop mode and skips the other one until the
 * device is undropped; each service finds its zeroed state through
 * rsh_dev_svc_state(); init runs in table order, stop and fini in
 * reverse, and a failed init fails the open after undoing the earlier.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rsh.h"
#include "rsh_ctl.h"
#include "rsh_clock.h"
#include "rsh_poll_priv.h"
#include "rsh_t_mock.h"
#include "rsh_test_eal.h"

/* The test services' slots in the test table. */
enum { T_DROPPED = RSH_SVC_COUNT, T_PLAIN, T_N };

struct t_state {
	uint64_t polls;
	uint64_t magic;
	uint8_t pad[40];     /* a size that is not a multiple of 16 */
};

#define T_MAGIC 0x5eed5eedull

/* What the hooks saw: the order of init/stop/fini calls, by slot. */
static char t_log[64];
static int t_init_rc;        /* what the plain service's init returns */
static bool t_init_zeroed;   /* every init found its state all zero */

static void
t_log_add(char what, unsigned int slot)
{
	size_t n = strlen(t_log);

	if (n + 2 < sizeof(t_log)) {
		t_log[n] = what;
		t_log[n + 1] = (char)('0' + slot);
	}
}

static struct t_state *
t_st(struct rsh_dev *dev, unsigned int slot)
{
	return rsh_dev_svc_state(dev, (enum rsh_svc_id)slot);
}

static bool
t_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n-- > 0)
		if (*b++ != 0)
			return false;
	return true;
}

static int
t_init(struct rsh_dev *dev, unsigned int slot, int rc)
{
	struct t_state *s = t_st(dev, slot);

	t_log_add('i', slot);
	t_init_zeroed &= t_zero(s, sizeof(*s));
	s->magic = T_MAGIC;
	return rc;
}

static int
t_init_dropped(struct rsh_dev *dev, const struct rsh_open_opts *o)
{
	(void)o;
	return t_init(dev, T_DROPPED, 0);
}

static int
t_init_plain(struct rsh_dev *dev, const struct rsh_open_opts *o)
{
	(void)o;
	return t_init(dev, T_PLAIN, t_init_rc);
}

static unsigned int
t_poll_dropped(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns)
{
	(void)now;
	(void)sleep_ns;
	t_st(dev, T_DROPPED)->polls++;
	return 0;
}

static unsigned int
t_poll_plain(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns)
{
	(void)now;
	(void)sleep_ns;
	t_st(dev, T_PLAIN)->polls++;
	return 0;
}

static void
t_stop_dropped(struct rsh_dev *dev)
{
	(void)dev;
	t_log_add('s', T_DROPPED);
}

static void
t_stop_plain(struct rsh_dev *dev)
{
	(void)dev;
	t_log_add('s', T_PLAIN);
}

/* fini sees the state as the service left it. */
static void
t_fini(struct rsh_dev *dev, unsigned int slot)
{
	t_log_add(t_st(dev, slot)->magic == T_MAGIC ? 'f' : 'F', slot);
}

static void
t_fini_dropped(struct rsh_dev *dev)
{
	t_fini(dev, T_DROPPED);
}

static void
t_fini_plain(struct rsh_dev *dev)
{
	t_fini(dev, T_PLAIN);
}

static const struct rsh_svc t_svc_dropped = {
	.name = "test dropped", .poll = t_poll_dropped, .stop = t_stop_dropped,
	.flags = RSH_SVC_F_RUNS_DROPPED, .state_size = sizeof(struct t_state),
	.init = t_init_dropped, .fini = t_fini_dropped,
};

static const struct rsh_svc t_svc_plain = {
	.name = "test plain", .poll = t_poll_plain, .stop = t_stop_plain,
	.state_size = sizeof(struct t_state),
	.init = t_init_plain, .fini = t_fini_plain,
};

static const struct rsh_svc *const t_table[T_N] = {
	[RSH_SVC_OWN] = &rsh_own_svc,
	[RSH_SVC_HK] = &rsh_hk_svc,
	[RSH_SVC_BOOT] = &rsh_boot_svc,
	[RSH_SVC_TMFIFO] = &rsh_tmfifo_svc,
	[T_DROPPED] = &t_svc_dropped,
	[T_PLAIN] = &t_svc_plain,
};

static int
t_setup(void **state)
{
	(void)state;
	rsh_clock_virtual_set(true);
	memset(t_log, 0, sizeof(t_log));
	t_init_rc = 0;
	t_init_zeroed = true;
	memset(&rsh_t_next, 0, sizeof(rsh_t_next));
	return rsh_svc_table_set(t_table, T_N);
}

static int
t_teardown(void **state)
{
	(void)state;
	rsh_svc_table_set(NULL, 0);
	rsh_clock_virtual_set(false);
	return 0;
}

/* Open a mock BF2 with the test table, in drop mode or not. */
static struct rsh_dev *
t_open(bool drop)
{
	struct rsh_open_opts o = { .drop = drop };
	struct rsh_dev *dev;

	assert_int_equal(rsh_dev_open("mock:bf2", &o, &dev), 0);
	return dev;
}

/* Drop mode: only the flagged service runs; undropped: both. */
static void
test_drop_flag(void **state)
{
	struct rsh_poller_stats st;
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	dev = t_open(true);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	for (int i = 0; i < 3; i++)
		rsh_poller_run_once(p);
	assert_int_equal(t_st(dev, T_DROPPED)->polls, 3);
	assert_int_equal(t_st(dev, T_PLAIN)->polls, 0);

	assert_int_equal(rsh_dev_drop(dev, false, false), 0);
	rsh_poller_run_once(p);
	assert_int_equal(t_st(dev, T_DROPPED)->polls, 4);
	assert_int_equal(t_st(dev, T_PLAIN)->polls, 1);
	/* Four passes, none on a thread of the poller's own. */
	rsh_poller_get_stats(p, &st);
	assert_int_equal(st.passes, 4);
	assert_int_equal(rsh_poller_get_cpu_ns(p), 0);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
}

/* States: zeroed at open, apart, aligned, reached through the accessor;
 * init in table order, stop (detach) and fini (close) in reverse. */
static void
test_state_life(void **state)
{
	struct t_state *a, *b;
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	dev = t_open(false);
	assert_true(t_init_zeroed);
	assert_string_equal(t_log, "i4i5");
	a = t_st(dev, T_DROPPED);
	b = t_st(dev, T_PLAIN);
	assert_non_null(a);
	assert_non_null(b);
	assert_true((uintptr_t)a % alignof(max_align_t) == 0);
	assert_true((uintptr_t)b % alignof(max_align_t) == 0);
	assert_true((char *)b >= (char *)(a + 1) || (char *)a >= (char *)(b + 1));
	/* The core's services have theirs, apart from the test's. */
	assert_non_null(rsh_dev_own(dev));
	assert_non_null(rsh_dev_hk(dev));
	assert_ptr_not_equal((void *)rsh_dev_own(dev), (void *)a);
	assert_ptr_equal(rsh_dev_svc_state(dev, RSH_SVC_HK), (void *)rsh_dev_hk(dev));

	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_poller_run_once(p);
	rsh_poller_run_once(p);
	assert_int_equal(a->polls, 2);
	assert_int_equal(b->polls, 2);
	assert_int_equal(rsh_poller_remove(p, dev), 0);
	assert_string_equal(t_log, "i4i5s5s4");
	rsh_dev_close(dev);
	/* Off the poller, close runs the stop steps again, then fini. */
	assert_string_equal(t_log, "i4i5s5s4s5s4f5f4");
	rsh_poller_destroy(p);
}

/* A failed init fails the open; the services before it are undone. */
static void
test_init_fails(void **state)
{
	struct rsh_open_opts o = { .drop = true };
	struct rsh_dev *dev = NULL;

	(void)state;
	t_init_rc = -EPERM;
	assert_int_equal(rsh_dev_open("mock:bf2", &o, &dev), -EPERM);
	assert_null(dev);
	assert_string_equal(t_log, "i4i5f4");
}

/* A table that does not begin with the core's services, row for row, is
 * refused (the core reaches their states by id for every device). */
static void
test_table_checked(void **state)
{
	static const struct rsh_svc *const bad[2] = { &t_svc_dropped, &rsh_hk_svc };
	/* The core's own rows all there, but one in another's place. */
	static const struct rsh_svc *const swapped[RSH_SVC_COUNT + 1] = {
		&rsh_own_svc, &rsh_hk_svc, &rsh_tmfifo_svc, &rsh_boot_svc, &t_svc_plain,
	};

	(void)state;
	assert_int_equal(rsh_svc_table_set(bad, 2), -EINVAL);
	assert_int_equal(rsh_svc_table_set(t_table, RSH_SVC_COUNT - 1), -EINVAL);
	assert_int_equal(rsh_svc_table_set(swapped, RSH_SVC_COUNT + 1), -EINVAL);
	assert_int_equal(rsh_svc_table_set(t_table, RSH_SVC_MAX + 1), -EINVAL);
	assert_int_equal(rsh_svc_table_set(NULL, 0), 0);
	assert_int_equal(RSH_SVC_COUNT, 4);
	assert_ptr_equal(rsh_svcs[RSH_SVC_BOOT], &rsh_boot_svc);
	assert_true(rsh_boot_svc.flags & RSH_SVC_F_FW_RESET_PAUSE);
	assert_true(rsh_own_svc.flags & RSH_SVC_F_RUNS_DROPPED);
	assert_false(rsh_hk_svc.flags & RSH_SVC_F_RUNS_DROPPED);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_drop_flag, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_state_life, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_init_fails, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_table_checked, t_setup, t_teardown),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
