/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll loop's back-off and wake-up, and the boot engine's credit
 * arithmetic (hardware-notes §3.3: one BOOT_FIFO_COUNT read gives
 * depth - count - 3 words: 512 on BF1/BF2, 1024 on BF3), with the mock
 * backend.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ring.h>

#include "rsh_boot_priv.h"
#include "rsh_t_mock.h"
#include "rsh_test_eal.h"
#include "rsh_clock.h"

/*
 * An idle loop backs off to its ceiling (few passes), on the virtual
 * clock: the loop thread's dozes move the clock, so a second of idling
 * costs no real time and the pass count is the loop's own decision.
 */
static void
test_backoff(void **state)
{
	struct rsh_poller_stats s0, s1;
	const uint64_t bounds[RSH_POLL_LATE_BUCKETS] = RSH_POLL_LATE_BOUNDS_NS;
	uint64_t cpu0, cpu1;
	struct rsh_poll_opts po;
	struct rsh_poller *p;
	struct rsh_dev *dev;
	uint64_t t;

	(void)state;
	rsh_clock_virtual_set(true);
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	rsh_poll_opts_default(&po);
	po.max_sleep_us = 1000000;
	assert_int_equal(rsh_poller_create(&po, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	assert_int_equal(rsh_poller_start(p), 0);
	/* past the spin, into 100s-of-ms dozes */
	for (t = rsh_now() + rsh_ms_cyc(600); rsh_now() < t;)
		sched_yield();
	rsh_poller_get_stats(p, &s0);
	cpu0 = rsh_poller_get_cpu_ns(p);
	for (t = rsh_now() + rsh_ms_cyc(1000); rsh_now() < t;)
		sched_yield();
	rsh_poller_get_stats(p, &s1);
	cpu1 = rsh_poller_get_cpu_ns(p);
	/* Timer services (ownership every 100 ms, housekeeping every 300 ms)
	 * restart the back-off after their work; a spinning loop would make
	 * millions of passes a second, a backed-off one a few dozen. */
	assert_true(s1.passes - s0.passes < 2000);
	assert_true(s1.gap_max_ns >= 20000000ull);
	/* The loop thread's CPU time, and the lateness bucket bounds. */
	assert_true(cpu0 > 0);
	assert_true(cpu1 >= cpu0);
	assert_int_equal(bounds[0], 1000);
	assert_int_equal(bounds[RSH_POLL_LATE_BUCKETS - 2], 50000000);
	assert_true(bounds[RSH_POLL_LATE_BUCKETS - 1] == UINT64_MAX);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_clock_virtual_set(false);
}

/* The guard of test_wakeup: a command waited out a doze. */
static void
rsh_t_no_wakeup(int sig)
{
	static const char msg[] = "test_wakeup: a command waited for the loop's 100 s back-off: the kick did not wake it\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(2);
}

/*
 * A command wakes a dozing loop at once (the futex kick, real time): with
 * a 100 s ceiling, 20 register reads complete only if every one of them
 * woke the loop; the alarm turns a missed kick into a failure instead of
 * a wait.
 */
static void
test_wakeup(void **state)
{
	struct rsh_poll_opts po;
	struct rsh_poller *p;
	struct rsh_dev *dev;
	uint64_t v;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	rsh_poll_opts_default(&po);
	po.max_sleep_us = 100000000;
	po.idle_spin_us = 1;
	assert_int_equal(rsh_poller_create(&po, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	assert_int_equal(rsh_poller_start(p), 0);
	signal(SIGALRM, rsh_t_no_wakeup);
	alarm(60);
	for (unsigned int i = 0; i < 20; i++) {
		struct rsh_poller_stats st;
		uint64_t passes;

		/* until the loop dozes again (its pass count stops) */
		rsh_poller_get_stats(p, &st);
		do {
			passes = st.passes;
			rsh_clock_sleep_ns(20000000);
			rsh_poller_get_stats(p, &st);
		} while (st.passes != passes);
		assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD1, &v), 0);
	}
	alarm(0);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
}

/* A boot job on dev with one chunk of n words, driven by hand. */
struct rsh_t_job {
	struct rsh_boot b;
	struct rsh_boot_chunk *c;
};

static void
rsh_t_job_init(struct rsh_t_job *j, struct rsh_dev *dev, unsigned int words)
{
	static unsigned int seq;
	char name[32];

	memset(j, 0, sizeof(*j));
	j->b.dev = dev;
	rsh_boot_opts_default(&j->b.opts);
	j->b.stall_cycles = rsh_hz() * 100;
	j->b.credit_max = RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE; /* BF2 */
	snprintf(name, sizeof(name), "rsh_t_tp%u", seq);
	j->b.to_poll = rte_ring_create(name, 8, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rsh_t_tf%u", seq++);
	j->b.free = rte_ring_create(name, 8, SOCKET_ID_ANY, RING_F_SC_DEQ);
	assert_non_null(j->b.to_poll);
	assert_non_null(j->b.free);
	j->c = calloc(1, sizeof(*j->c) + words * 8);
	j->c->len = words * 8;
	for (unsigned int i = 0; i < words; i++)
		j->c->words[i] = 0x1000 + i;
	assert_int_equal(rte_ring_enqueue(j->b.to_poll, j->c), 0);
	j->b.start_tsc = j->b.last_progress = rsh_now();
	__atomic_store_n(&rsh_dev_boot_state(dev)->push, &j->b, __ATOMIC_RELEASE);
}

static void
rsh_t_job_free(struct rsh_t_job *j)
{
	rte_ring_free(j->b.to_poll);
	rte_ring_free(j->b.free);
	free(j->c);
}

/* One poll of the boot service; returns the words written by it. */
static unsigned int
rsh_t_boot_pass(struct rsh_dev *dev, struct rsh_t_mock *m)
{
	uint64_t sleep_ns = UINT64_MAX;

	m->wlog_n = 0;
	rsh_boot_poll(dev, rsh_now(), &sleep_ns);
	return rsh_t_writes_to(m, RSH_BOOT_FIFO_DATA);
}

/*
 * Credit: with count c the burst is 512 - c - 3 words (509 from empty),
 * never more than the chunk has; a full FIFO writes nothing; the words
 * go out in order.
 */
static void
test_credit_arithmetic(void **state)
{
	static const unsigned int counts[] = { 0, 100, 300, 500, 509, 512 };
	struct rsh_t_mock *m;
	struct rsh_dev *dev;
	struct rsh_t_job j;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	m = rsh_t_mock_of(dev);
	for (unsigned int i = 0; i < RTE_DIM(counts); i++) {
		unsigned int max = RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE;
		unsigned int want = counts[i] >= max ? 0 : max - counts[i];

		rsh_t_job_init(&j, dev, 4096);
		*rsh_t_reg(m, RSH_BOOT_FIFO_COUNT) = counts[i];
		assert_int_equal(rsh_t_boot_pass(dev, m), want);
		assert_int_equal(j.b.words_pushed, want);
		if (want > 0)
			assert_true(m->wlog_val[want - 1] == 0x1000 + want - 1);
		__atomic_store_n(&rsh_dev_boot_state(dev)->push, NULL, __ATOMIC_RELEASE);
		rsh_t_job_free(&j);
	}
	/* A short chunk: only what it holds, then the chunk goes back. */
	rsh_t_job_init(&j, dev, 10);
	*rsh_t_reg(m, RSH_BOOT_FIFO_COUNT) = 0;
	assert_int_equal(rsh_t_boot_pass(dev, m), 10);
	assert_int_equal(rte_ring_count(j.b.free), 1);
	assert_null(j.b.cur);
	__atomic_store_n(&rsh_dev_boot_state(dev)->push, NULL, __ATOMIC_RELEASE);
	rsh_t_job_free(&j);
	rsh_dev_close(dev);
}

/*
 * A planned wait is kept: a pass that decided to wait for the FIFO to
 * drain reads BOOT_FIFO_COUNT again only when that wait ends, however
 * often the loop wakes before it (TM FIFO channels, commands), and asks
 * the loop to sleep no longer than what is left of it.
 */
static void
test_wait_kept(void **state)
{
	uint64_t sleep_ns = UINT64_MAX, now, reads;
	struct rsh_t_mock *m;
	struct rsh_dev *dev;
	struct rsh_t_job j;

	(void)state;
	rsh_clock_virtual_set(true);
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	m = rsh_t_mock_of(dev);
	rsh_t_job_init(&j, dev, 4096);
	/* A full FIFO and no rate yet: the push backs off. */
	*rsh_t_reg(m, RSH_BOOT_FIFO_COUNT) = RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE;
	now = rsh_now();
	assert_int_equal(rsh_boot_poll(dev, now, &sleep_ns), 0);
	reads = m->count_reads;
	assert_int_equal(reads, 1);
	assert_true(sleep_ns > 0 && sleep_ns < UINT64_MAX);
	assert_true(j.b.next_read > now);
	/* Early wake-ups, before the wait ends: no register access, and a
	 * sleep hint that ends with the wait. */
	for (uint64_t t = now; t < j.b.next_read; t += (j.b.next_read - now) / 4 + 1) {
		uint64_t s = UINT64_MAX;

		assert_int_equal(rsh_boot_poll(dev, t, &s), 0);
		assert_int_equal(m->count_reads, reads);
		assert_true(s <= rsh_cyc_ns(j.b.next_read - t));
	}
	/* The wait over and the FIFO drained: the count is read, words go. */
	*rsh_t_reg(m, RSH_BOOT_FIFO_COUNT) = 0;
	m->wlog_n = 0;
	sleep_ns = UINT64_MAX;
	assert_true(rsh_boot_poll(dev, j.b.next_read, &sleep_ns) > 0);
	assert_int_equal(m->count_reads, reads + 1);
	assert_true(rsh_t_writes_to(m, RSH_BOOT_FIFO_DATA) > 0);
	__atomic_store_n(&rsh_dev_boot_state(dev)->push, NULL, __ATOMIC_RELEASE);
	rsh_t_job_free(&j);
	rsh_dev_close(dev);
	rsh_clock_virtual_set(false);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_credit_arithmetic),
		cmocka_unit_test(test_wait_kept),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_wakeup),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
