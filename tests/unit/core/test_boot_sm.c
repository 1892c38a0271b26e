/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The boot open state machine on the poll lcore, with a mock backend:
 * the register sequence of hardware-notes §3.2, a cancel in each state
 * (before the reset: no reset), a device that is gone or slow to come
 * back, BOOT_CONTROL restored to the value read before the open, and a
 * reset delay on one device that does not hold up another device.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include <rte_cycles.h>

#include "rsh_boot_priv.h"
#include "rsh_t_core_mock.h"
#include "rsh_test_eal.h"
#include "rsh_test_time.h"

static int rsh_t_cancel;

struct rsh_t_env {
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m;
	struct rsh_boot_opts o;
};

/* A device on a running poller, reset delay delay_ms. */
static void
rsh_t_env_open(struct rsh_t_env *e, const char *devstr, int64_t delay_ms)
{
	__atomic_store_n(&rsh_t_cancel, 0, __ATOMIC_RELAXED);
	assert_int_equal(rsh_dev_open(devstr, NULL, &e->dev), 0);
	e->m = rsh_t_mock_of(e->dev);
	assert_int_equal(rsh_poller_create(NULL, &e->p), 0);
	assert_int_equal(rsh_poller_add(e->p, e->dev), 0);
	assert_int_equal(rsh_poller_start(e->p), 0);
	rsh_boot_opts_default(&e->o);
	e->o.reset_delay_ms = delay_ms;
	e->o.stall_timeout_ms = 2000;
	e->o.cancel_flag = &rsh_t_cancel;
}

static void
rsh_t_env_close(struct rsh_t_env *e)
{
	rsh_poller_destroy(e->p);
	rsh_dev_close(e->dev);
}

/* BF2: BOOT_CONTROL=0, WDOG1=0, key RMW (upper half kept); close: 1. */
static void
test_sequence_bf2(void **state)
{
	struct rsh_boot_stats st;
	struct rsh_t_env e;
	struct rsh_boot *b;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 50);
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), 0);
	assert_true(rsh_t_wrote(e.m, RSH_BOOT_CONTROL, 0));
	assert_true(rsh_t_wrote(e.m, RSH_ARM_WDG_CONTROL_WCS, 0));
	assert_true(rsh_t_wrote(e.m, RSH_RESET_CONTROL, 0x5CA710001ull));
	assert_int_equal(e.m->resets, 1);
	assert_int_equal(rsh_boot_write(b, "12345678", 8), 0);
	assert_int_equal(rsh_boot_close(b, &st), 0);
	assert_int_equal(*rsh_t_reg(e.m, RSH_BOOT_CONTROL), 1);
	assert_int_equal(st.bytes_pushed, 8);
	assert_int_equal(e.m->overlaps, 0);
	rsh_t_env_close(&e);
}

/* BF3: no WDOG1 write (hardware-notes §3.2 notes). */
static void
test_sequence_bf3(void **state)
{
	struct rsh_t_env e;
	struct rsh_boot *b;

	(void)state;
	rsh_t_env_open(&e, "mock:bf3", 50);
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), 0);
	assert_int_equal(rsh_t_writes_to(e.m, RSH_ARM_WDG_CONTROL_WCS), 0);
	assert_int_equal(e.m->resets, 1);
	assert_int_equal(rsh_boot_close(b, NULL), 0);
	rsh_t_env_close(&e);
}

/* Cancel before the open: no register changes, no reset. */
static void
test_cancel_before_reset(void **state)
{
	struct rsh_t_env e;
	struct rsh_boot *b;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 50);
	__atomic_store_n(&rsh_t_cancel, 1, __ATOMIC_RELAXED);
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), -ECANCELED);
	assert_int_equal(e.m->resets, 0);
	assert_int_equal(rsh_t_writes_to(e.m, RSH_BOOT_CONTROL), 0);
	assert_int_equal(*rsh_t_reg(e.m, RSH_BOOT_CONTROL), 2);
	assert_non_null(strstr(rsh_last_error(), "cancelled"));
	rsh_t_env_close(&e);
}

/* Set the cancel flag after ms milliseconds. */
static void *
rsh_t_cancel_later(void *arg)
{
	rsh_t_sleep_ms((unsigned int)(uintptr_t)arg);
	__atomic_store_n(&rsh_t_cancel, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Cancel during a 20 s reset delay: prompt, BOOT_CONTROL back to 2. */
static void
test_cancel_in_delay(void **state)
{
	struct rsh_t_env e;
	struct rsh_boot *b;
	pthread_t th;
	double t0;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 20000);
	pthread_create(&th, NULL, rsh_t_cancel_later, (void *)(uintptr_t)200);
	t0 = rsh_t_now();
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), -ECANCELED);
	assert_true(rsh_t_now() - t0 < 10.0);
	pthread_join(th, NULL);
	assert_int_equal(e.m->resets, 1);
	assert_int_equal(*rsh_t_reg(e.m, RSH_BOOT_CONTROL), 2);
	assert_non_null(strstr(rsh_last_error(), "restored to 2"));
	rsh_t_env_close(&e);
}

/* The rshim comes back only after the reach deadline: the open fails
 * -ETIMEDOUT, the restore waits for it and writes 2 back. */
static void
test_slow_return(void **state)
{
	struct rsh_t_env e;
	struct rsh_boot *b;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 20);
	e.m->down_ms = 3000;
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), -ETIMEDOUT);
	assert_non_null(strstr(rsh_last_error(), "did not come back"));
	assert_non_null(strstr(rsh_last_error(), "restored to 2"));
	assert_int_equal(*rsh_t_reg(e.m, RSH_BOOT_CONTROL), 2);
	rsh_t_env_close(&e);
}

/* Gone after the reset: -ENODEV, and the line says it was not restored. */
static void
test_gone_after_reset(void **state)
{
	struct rsh_t_env e;
	struct rsh_boot *b;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 20);
	e.m->after_reset = RSH_T_GONE;
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), -ENODEV);
	assert_non_null(strstr(rsh_last_error(), "could NOT be restored"));
	rsh_t_env_close(&e);
}

/* A push that fails mid-stream (ARM reset): close restores the value
 * read before the open once the rshim answers. */
static void
test_close_after_reset_mid_push(void **state)
{
	struct rsh_t_env e;
	struct rsh_boot *b;
	int rc;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 20);
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), 0);
	/* The mock resets again: the FIFO count reads a bad pattern. */
	e.m->down_ms = 500;
	e.m->reset_tsc = rte_get_timer_cycles();
	(void)rsh_boot_write(b, "abcdefgh", 8); /* may see the reset already */
	rc = rsh_boot_close(b, NULL);
	assert_int_equal(rc, -EIO);
	assert_non_null(strstr(rsh_last_error(), "restored to 2"));
	assert_int_equal(*rsh_t_reg(e.m, RSH_BOOT_CONTROL), 2);
	rsh_t_env_close(&e);
}

/* The DPU stalls (FIFO full); Ctrl-C (the caller's flag) ends the push at
 * once, long before the stall timeout, and BOOT_CONTROL goes back to 2. */
static void
test_cancel_in_stall(void **state)
{
	struct rsh_t_env e;
	struct rsh_boot *b;
	pthread_t th;
	double t0;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 20);
	e.o.stall_timeout_ms = 60000;
	*rsh_t_reg(e.m, RSH_BOOT_FIFO_COUNT) = RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE;
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), 0);
	assert_int_equal(rsh_boot_write(b, "abcdefgh", 8), 0);
	pthread_create(&th, NULL, rsh_t_cancel_later, (void *)(uintptr_t)200);
	t0 = rsh_t_now();
	assert_int_equal(rsh_boot_close(b, NULL), -ECANCELED);
	assert_true(rsh_t_now() - t0 < 20.0);
	pthread_join(th, NULL);
	assert_non_null(strstr(rsh_last_error(), "restored to 2"));
	assert_int_equal(*rsh_t_reg(e.m, RSH_BOOT_CONTROL), 2);
	rsh_t_env_close(&e);
}

struct rsh_t_opener {
	struct rsh_t_env *e;
	int rc;
	int done;
};

static void *
rsh_t_open_main(void *arg)
{
	struct rsh_t_opener *o = arg;
	struct rsh_boot *b;

	o->rc = rsh_boot_open(o->e->dev, o->e->p, &o->e->o, &b);
	if (o->rc == 0)
		o->rc = rsh_boot_close(b, NULL);
	__atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* One device in a 1.5 s reset delay; another on the same poller answers
 * 50 commands meanwhile. */
static void
test_other_device_not_blocked(void **state)
{
	struct rsh_t_opener op = { 0 };
	struct rsh_t_env e;
	struct rsh_dev *other;
	pthread_t th;
	uint64_t v;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 1500);
	assert_int_equal(rsh_dev_open("mock:bf3", NULL, &other), 0);
	assert_int_equal(rsh_poller_add(e.p, other), 0);
	op.e = &e;
	pthread_create(&th, NULL, rsh_t_open_main, &op);
	while (__atomic_load_n(&rsh_t_mock_of(e.dev)->resets, __ATOMIC_RELAXED) == 0)
		rsh_t_sleep_ms(1);
	for (unsigned int i = 0; i < 50; i++) {
		assert_int_equal(rsh_dev_reg_write(other, RSH_BREADCRUMB1, i), 0);
		assert_int_equal(rsh_dev_reg_read(other, RSH_BREADCRUMB1, &v), 0);
		assert_int_equal(v, i);
	}
	assert_int_equal(__atomic_load_n(&op.done, __ATOMIC_ACQUIRE), 0);
	pthread_join(th, NULL);
	assert_int_equal(op.rc, 0);
	rsh_dev_close(other);
	rsh_t_env_close(&e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence_bf2),
		cmocka_unit_test(test_sequence_bf3),
		cmocka_unit_test(test_cancel_before_reset),
		cmocka_unit_test(test_cancel_in_delay),
		cmocka_unit_test(test_slow_return),
		cmocka_unit_test(test_gone_after_reset),
		cmocka_unit_test(test_close_after_reset_mid_push),
		cmocka_unit_test(test_cancel_in_stall),
		cmocka_unit_test(test_other_device_not_blocked),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
