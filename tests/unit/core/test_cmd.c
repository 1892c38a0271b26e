/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command path: register work from any thread runs on the poll lcore
 * (one thread at a time, nothing lost), inline when no poller runs, and
 * devices attach and detach while the poller runs; typed commands carry
 * their fields there and back, and a caller whose loop never runs gets
 * -ETIMEDOUT at its own deadline with the command freed exactly once.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include <cmocka.h>

#include <rte_cycles.h>

#include "rsh_boot_priv.h"
#include "rsh_cmd.h"
#include "rsh_poll_priv.h"
#include "rsh_t_mock.h"
#include "rsh_test_eal.h"

#define RSH_T_THREADS 4
#define RSH_T_OPS 500

/* Seconds on the TSC. */
static double
rsh_t_now(void)
{
	return (double)rte_get_timer_cycles() / rte_get_timer_hz();
}

/* No poller: the calling thread owns the device, commands run inline. */
static void
test_inline(void **state)
{
	struct rsh_dev *dev;
	uint64_t v;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	assert_int_equal(rsh_dev_reg_write(dev, RSH_SCRATCHPAD1, 0x1234), 0);
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD1, &v), 0);
	assert_int_equal(v, 0x1234);
	assert_int_equal(rsh_t_mock_of(dev)->thread_changes, 1);
	rsh_dev_close(dev);
}

struct rsh_t_writer {
	struct rsh_dev *dev;
	unsigned int id;
	unsigned int bad;
};

/* Write and read back SCRATCHPAD2 RSH_T_OPS times (value = id << 32 | i). */
static void *
rsh_t_writer_main(void *arg)
{
	struct rsh_t_writer *w = arg;
	uint64_t v;

	for (unsigned int i = 0; i < RSH_T_OPS; i++) {
		int rc1 = rsh_dev_reg_write(w->dev, RSH_SCRATCHPAD2, (uint64_t)w->id << 32 | i);
		int rc2 = rsh_dev_reg_read(w->dev, RSH_BREADCRUMB1, &v);

		if (rc1 != 0 || rc2 != 0 || v != 0x77) {
			print_error("op %u: %d %d 0x%" PRIx64 " %s\n", i, rc1, rc2, v, rsh_last_error());
			w->bad++;
		}
	}
	return NULL;
}

/* Four threads issue commands while the poller runs: every access on the
 * poll thread, none overlapping, every command answered. */
static void
test_many_threads(void **state)
{
	struct rsh_t_writer w[RSH_T_THREADS];
	pthread_t th[RSH_T_THREADS];
	struct rsh_mmio_stats st0, st1;
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m;
	uint32_t changes;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	m = rsh_t_mock_of(dev);
	/* Not SCRATCHPAD1: the ownership service keeps its keepalive there. */
	assert_int_equal(rsh_dev_reg_write(dev, RSH_BREADCRUMB1, 0x77), 0);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	assert_int_equal(rsh_poller_start(p), 0);
	/* The first command after the start: the poll thread owns it now. */
	assert_int_equal(rsh_dev_reg_write(dev, RSH_SCRATCHPAD3, 1), 0);
	changes = m->thread_changes;
	rsh_dev_get_stats(dev, &st0);
	for (unsigned int i = 0; i < RSH_T_THREADS; i++) {
		w[i] = (struct rsh_t_writer){ .dev = dev, .id = i + 1 };
		assert_int_equal(pthread_create(&th[i], NULL, rsh_t_writer_main, &w[i]), 0);
	}
	for (unsigned int i = 0; i < RSH_T_THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].bad, 0);
	}
	rsh_dev_get_stats(dev, &st1);
	assert_int_equal(m->overlaps, 0);
	assert_int_equal(m->thread_changes, changes);
	/* Each write is one MMIO write; housekeeping (SCRATCHPAD6) and the
	 * keepalive (SCRATCHPAD1, every 300 ms) add a few per second. */
	assert_true(st1.writes - st0.writes >= RSH_T_THREADS * RSH_T_OPS);
	assert_true(st1.writes - st0.writes <= RSH_T_THREADS * RSH_T_OPS + 200);
	assert_true(st1.reads - st0.reads >= RSH_T_THREADS * RSH_T_OPS);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
}

/* Attach and detach while the poller runs: housekeeping starts (bit 63
 * of SCRATCHPAD6 set) and stops (cleared) without a poller restart. */
static void
test_runtime_attach(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *a, *b;
	double until;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &a), 0);
	assert_int_equal(rsh_dev_open("mock:bf3", NULL, &b), 0);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_start(p), 0);
	assert_int_equal(rsh_poller_add(p, a), 0);
	assert_int_equal(rsh_poller_add(p, b), 0);
	assert_int_equal(rsh_poller_add(p, b), -EBUSY);
	until = rsh_t_now() + 10;
	while (rsh_t_now() < until) {
		assert_int_equal(rsh_dev_reg_read(b, RSH_SCRATCHPAD6, &v), 0);
		if (v & RSH_SP6__PCIE_MASK)
			break;
		struct timespec ts = { 0, 20000000 };

		nanosleep(&ts, NULL);
	}
	assert_true(v & RSH_SP6__PCIE_MASK);
	assert_int_equal(rsh_poller_remove(p, b), 0);
	assert_int_equal(rsh_poller_remove(p, b), -ENOENT);
	assert_true(rsh_poller_running(p));
	/* b is the caller's again: its stop step cleared the bit. */
	assert_int_equal(rsh_dev_reg_read(b, RSH_SCRATCHPAD6, &v), 0);
	assert_false(v & RSH_SP6__PCIE_MASK);
	/* a is still served. */
	assert_int_equal(rsh_dev_reg_write(a, RSH_BREADCRUMB1, 9), 0);
	assert_int_equal(rsh_dev_reg_read(a, RSH_BREADCRUMB1, &v), 0);
	assert_int_equal(v, 9);
	rsh_dev_close(a); /* detaches from the running poller first */
	rsh_poller_destroy(p);
	rsh_dev_close(b);
}

/* Commands on a poller that stopped: run by the stopping thread. */
static void
test_stop_runs_inline(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *dev;
	uint64_t v;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	assert_int_equal(rsh_poller_start(p), 0);
	rsh_poller_stop(p);
	assert_false(rsh_poller_running(p));
	assert_int_equal(rsh_dev_reg_write(dev, RSH_SCRATCHPAD1, 5), 0);
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD1, &v), 0);
	assert_int_equal(v, 5);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
}

/* All-ones reads reach the caller as -ENODEV with a line. */
static void
test_gone_read(void **state)
{
	struct rsh_dev *dev;
	uint64_t v;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	rsh_t_mock_of(dev)->after_reset = RSH_T_GONE;
	rsh_t_mock_of(dev)->reset_tsc = 1;
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD1, &v), -ENODEV);
	assert_non_null(strstr(rsh_last_error(), "gone"));
	rsh_dev_close(dev);
}

/* A typed test command: rsh_cmd in the middle (container_of with an
 * offset), inputs before, outputs and a multi-step state after. */
struct rsh_t_echo_cmd {
	uint64_t in;
	char text[24];
	struct rsh_cmd c;
	unsigned int *steps;  /* the test's counter (stays valid: the test waits) */
	unsigned int turn;    /* executor: steps taken so far */
	uint64_t out;
	char echo[32];
	pthread_t ran_on;
};

/* Step: twice AGAIN, then outputs from the inputs. */
static int
rsh_t_echo_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_t_echo_cmd *e = container_of(c, struct rsh_t_echo_cmd, c);

	(*e->steps)++;
	if (++e->turn < 3)
		return rsh_cmd_again(c, now, now);
	e->out = e->in * 3 + 1;
	snprintf(e->echo, sizeof(e->echo), "<%s>", e->text);
	e->ran_on = pthread_self();
	return rsh_cmd_finish(c, e->in == 0 ? -EINVAL : 7);
}

static const struct rsh_cmd_type rsh_t_echo_type = {
	.name = "test echo", .step = rsh_t_echo_step, .run_ms = 1000,
};

/* One echo through dev's owner: fields in, fields back, nothing leaked. */
static void
rsh_t_echo(struct rsh_dev *dev, uint64_t in, bool on_caller)
{
	unsigned int steps = 0;
	uint32_t live = rsh_cmd_live();
	struct rsh_t_echo_cmd e = { .in = in, .text = "bf3", .steps = &steps };

	assert_int_equal(RSH_CMD_CALL(&rsh_t_echo_type, dev, &e, c), 7);
	assert_int_equal(steps, 3);
	assert_int_equal(e.turn, 3);
	assert_int_equal(e.in, in);
	assert_string_equal(e.text, "bf3");
	assert_int_equal(e.out, in * 3 + 1);
	assert_string_equal(e.echo, "<bf3>");
	assert_int_equal(pthread_equal(e.ran_on, pthread_self()) != 0, on_caller);
	/* the loop thread drops its reference just after it wakes the
	 * caller (and the baseline may hold the previous call's): give it
	 * up to 2 s, then a copy still live is a leak */
	for (int i = 0; i < 2000 && rsh_cmd_live() > live; i++)
		usleep(1000);
	assert_true(rsh_cmd_live() <= live);
}

/* A typed command's fields round-trip inline, on a driven poller and on
 * a loop thread; a failure's line and result reach the caller. */
static void
test_typed_roundtrip(void **state)
{
	struct rsh_t_echo_cmd bad = { .text = "x" };
	struct rsh_poller *p;
	struct rsh_dev *dev;
	unsigned int steps = 0;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf3", NULL, &dev), 0);
	rsh_t_echo(dev, 5, true);
	bad.steps = &steps;
	assert_int_equal(RSH_CMD_CALL(&rsh_t_echo_type, dev, &bad, c), -EINVAL);
	assert_string_equal(bad.echo, "<x>");
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	assert_int_equal(rsh_poller_start_driven(p), 0);
	rsh_t_echo(dev, 6, true);
	rsh_poller_stop(p);
	assert_int_equal(rsh_poller_start(p), 0);
	rsh_t_echo(dev, 1u << 20, false);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
}

/*
 * A poll loop that never runs: the caller gets -ETIMEDOUT at its own
 * deadline and returns; the loop, when it runs again, drops the
 * abandoned command without stepping it, and frees it (once: under
 * ASan a second free or a late step would be caught). A command still
 * queued when the poller stops is dropped by the stopping thread.
 */
static void
test_wedged_loop_timeout(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *dev;
	unsigned int steps = 0;
	uint32_t live = rsh_cmd_live();
	struct rsh_t_echo_cmd e = { .in = 2, .text = "t", .steps = &steps,
				    .c = { .timeout_ms = 20 } };

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	assert_int_equal(rsh_poller_start_parked(p), 0);
	assert_int_equal(RSH_CMD_CALL(&rsh_t_echo_type, dev, &e, c), -ETIMEDOUT);
	assert_non_null(strstr(rsh_last_error(), "abandoned"));
	assert_int_equal(e.out, 0);             /* the caller's copy untouched */
	assert_int_equal(rsh_cmd_live(), live + 1); /* the loop still holds it */
	rsh_poller_run_once(p);
	assert_int_equal(steps, 0);
	assert_int_equal(rsh_cmd_live(), live);
	/* Abandoned while queued, then the poller stops. */
	assert_int_equal(RSH_CMD_CALL(&rsh_t_echo_type, dev, &e, c), -ETIMEDOUT);
	assert_int_equal(rsh_cmd_live(), live + 1);
	rsh_poller_stop(p);
	assert_int_equal(steps, 0);
	assert_int_equal(rsh_cmd_live(), live);
	/* Stopped: commands run inline again. */
	e.c.timeout_ms = 0;
	assert_int_equal(RSH_CMD_CALL(&rsh_t_echo_type, dev, &e, c), 7);
	assert_int_equal(steps, 3);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_runtime_attach),
		cmocka_unit_test(test_stop_runs_inline),
		cmocka_unit_test(test_gone_read),
		cmocka_unit_test(test_typed_roundtrip),
		cmocka_unit_test(test_wedged_loop_timeout),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
