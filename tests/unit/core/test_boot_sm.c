/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The boot open state machine on the poll lcore, with a mock backend:
 * the register sequence of hardware-notes §3.2, a cancel in each state
 * (before the reset: no reset), a device that is gone or slow to come
 * back, BOOT_CONTROL restored to the value read before the open, and a
 * reset delay on one device that does not hold up another device. On the
 * virtual clock with a poller the test thread drives (a cancel is a mock
 * hook that fires at a clock time), except the last case, which is about
 * two threads and runs a real poll thread: it asserts the order of the
 * events (commands answered, open still waiting, cancel), not a time.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "rsh_boot_priv.h"
#include "rsh_poll_priv.h"
#include "rsh_t_mock.h"
#include "rsh_test_eal.h"

static int rsh_t_cancel;
/* Clock time at which a register access sets rsh_t_cancel (0: never). */
static uint64_t rsh_t_cancel_at;

static bool
rsh_t_cancel_rd(struct rsh_t_mock *m, uint32_t off, uint64_t *v)
{
	(void)m;
	(void)off;
	(void)v;
	if (rsh_t_cancel_at != 0 && rsh_now() >= rsh_t_cancel_at)
		__atomic_store_n(&rsh_t_cancel, 1, __ATOMIC_RELAXED);
	return false;
}

static const struct rsh_t_hooks rsh_t_cancel_hooks = { .rd = rsh_t_cancel_rd };

/* Cancel ms of clock time from now (at the next register read then). */
static void
rsh_t_cancel_after(unsigned int ms)
{
	rsh_t_cancel_at = rsh_now() + rsh_ms_cyc(ms);
}

/* Virtual milliseconds since t0. */
static uint64_t
rsh_t_ms_since(uint64_t t0)
{
	return rsh_cyc_ns(rsh_now() - t0) / 1000000;
}

struct rsh_t_env {
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m;
	struct rsh_boot_opts o;
};

/* Open options of a device whose SCRATCHPAD1 holds a stale word (the
 * mock's sp1): no owner, a 1 ms ownership window (the real-clock case). */
static const struct rsh_open_opts rsh_t_short_own = { .own_wait_ms = 1 };

/* A device on a poller (driven on the virtual clock, or a thread on the
 * TSC), reset delay delay_ms, opened with oo (NULL: defaults). */
static void
rsh_t_env_open_oo(struct rsh_t_env *e, const char *devstr, int64_t delay_ms,
		  const struct rsh_open_opts *oo)
{
	__atomic_store_n(&rsh_t_cancel, 0, __ATOMIC_RELAXED);
	rsh_t_cancel_at = 0;
	memset(&rsh_t_next, 0, sizeof(rsh_t_next));
	rsh_t_next.hooks = &rsh_t_cancel_hooks;
	rsh_t_next.set_sp1 = oo != NULL;
	rsh_t_next.sp1 = 0x5eed;
	assert_int_equal(rsh_dev_open(devstr, oo, &e->dev), 0);
	e->m = rsh_t_mock_of(e->dev);
	assert_int_equal(rsh_poller_create(NULL, &e->p), 0);
	assert_int_equal(rsh_poller_add(e->p, e->dev), 0);
	if (rsh_clock_is_virtual())
		assert_int_equal(rsh_poller_start_driven(e->p), 0);
	else
		assert_int_equal(rsh_poller_start(e->p), 0);
	rsh_boot_opts_default(&e->o);
	e->o.reset_delay_ms = delay_ms;
	e->o.stall_timeout_ms = 2000;
	e->o.cancel_flag = &rsh_t_cancel;
}

/* rsh_t_env_open_oo with the default open options. */
static void
rsh_t_env_open(struct rsh_t_env *e, const char *devstr, int64_t delay_ms)
{
	rsh_t_env_open_oo(e, devstr, delay_ms, NULL);
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

/* Cancel 200 ms into a 20 s reset delay: the open returns within the
 * command's cancel poll (10 ms), BOOT_CONTROL back to 2. */
static void
test_cancel_in_delay(void **state)
{
	struct rsh_t_env e;
	struct rsh_boot *b;
	uint64_t t0;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 20000);
	rsh_t_cancel_after(200);
	t0 = rsh_now();
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), -ECANCELED);
	/* the hook fires at the first read past 200 ms (the 100 ms ownership
	 * look at the latest), the command sees it within its 10 ms poll */
	assert_true(rsh_t_ms_since(t0) >= 200 && rsh_t_ms_since(t0) < 320);
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
	e.m->reset_tsc = rsh_now();
	(void)rsh_boot_write(b, "abcdefgh", 8); /* may see the reset already */
	rc = rsh_boot_close(b, NULL);
	assert_int_equal(rc, -EIO);
	assert_non_null(strstr(rsh_last_error(), "restored to 2"));
	assert_int_equal(*rsh_t_reg(e.m, RSH_BOOT_CONTROL), 2);
	rsh_t_env_close(&e);
}

/* The DPU stalls (FIFO full); Ctrl-C (the caller's flag) 200 ms in ends
 * the push at once, long before the 60 s stall timeout, and BOOT_CONTROL
 * goes back to 2. */
static void
test_cancel_in_stall(void **state)
{
	struct rsh_t_env e;
	struct rsh_boot *b;
	uint64_t t0;

	(void)state;
	rsh_t_env_open(&e, "mock:bf2", 20);
	e.o.stall_timeout_ms = 60000;
	*rsh_t_reg(e.m, RSH_BOOT_FIFO_COUNT) = RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE;
	assert_int_equal(rsh_boot_open(e.dev, e.p, &e.o, &b), 0);
	assert_int_equal(rsh_boot_write(b, "abcdefgh", 8), 0);
	rsh_t_cancel_after(200);
	t0 = rsh_now();
	assert_int_equal(rsh_boot_close(b, NULL), -ECANCELED);
	assert_true(rsh_t_ms_since(t0) >= 200 && rsh_t_ms_since(t0) < 320);
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

/* One device in a 30 s reset delay; another on the same poller answers
 * 50 commands meanwhile, before the delay ends: the open is still
 * waiting when they are done, and a cancel then ends it. (Nothing waits
 * for the delay: a loop that blocked in it would answer the commands
 * only after 30 s, with the open done.) */
static void
test_other_device_not_blocked(void **state)
{
	struct rsh_t_opener op = { 0 };
	struct rsh_t_env e;
	struct rsh_dev *other;
	pthread_t th;
	uint64_t v;

	(void)state;
	rsh_t_env_open_oo(&e, "mock:bf2", 30000, &rsh_t_short_own);
	assert_int_equal(rsh_dev_open("mock:bf3", &rsh_t_short_own, &other), 0);
	assert_int_equal(rsh_poller_add(e.p, other), 0);
	op.e = &e;
	pthread_create(&th, NULL, rsh_t_open_main, &op);
	while (__atomic_load_n(&rsh_t_mock_of(e.dev)->resets, __ATOMIC_RELAXED) == 0)
		rsh_clock_sleep_ns(1000000);
	for (unsigned int i = 0; i < 50; i++) {
		assert_int_equal(rsh_dev_reg_write(other, RSH_BREADCRUMB1, i), 0);
		assert_int_equal(rsh_dev_reg_read(other, RSH_BREADCRUMB1, &v), 0);
		assert_int_equal(v, i);
	}
	assert_int_equal(__atomic_load_n(&op.done, __ATOMIC_ACQUIRE), 0);
	__atomic_store_n(&rsh_t_cancel, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	assert_int_equal(op.rc, -ECANCELED);
	assert_int_equal(*rsh_t_reg(e.m, RSH_BOOT_CONTROL), 2); /* restored */
	rsh_dev_close(other);
	rsh_t_env_close(&e);
}

static int
rsh_t_virtual(void **state)
{
	(void)state;
	rsh_clock_virtual_set(true);
	return 0;
}

static int
rsh_t_real(void **state)
{
	(void)state;
	rsh_clock_virtual_set(false);
	return 0;
}

#define RSH_T_VIRTUAL(f) cmocka_unit_test_setup_teardown(f, rsh_t_virtual, rsh_t_real)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		RSH_T_VIRTUAL(test_sequence_bf2),
		RSH_T_VIRTUAL(test_sequence_bf3),
		RSH_T_VIRTUAL(test_cancel_before_reset),
		RSH_T_VIRTUAL(test_cancel_in_delay),
		RSH_T_VIRTUAL(test_slow_return),
		RSH_T_VIRTUAL(test_gone_after_reset),
		RSH_T_VIRTUAL(test_close_after_reset_mid_push),
		RSH_T_VIRTUAL(test_cancel_in_stall),
		/* Two threads, a real poll thread, the TSC: */
		cmocka_unit_test(test_other_device_not_blocked),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
