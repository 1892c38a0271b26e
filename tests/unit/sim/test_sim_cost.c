/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulator's MMIO cost model (cost=, rd_ns=, wr_ns=), BF1's
 * posted-write drain rule, bootdepth= and the install drain profile. On
 * the virtual clock: device time is the clock's plus what the model
 * charged, so drain times are exact and nothing waits in real time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rsh_t_sim.h"
#include "rsh_test_eal.h"
#include "rsh_test_time.h"

/* The cost model's counters; the call itself must succeed. */
static struct rsh_sim_cost_stats
rsh_t_cost(struct rsh_t_sim *t)
{
	struct rsh_sim_cost_stats cs;

	assert_int_equal(rsh_sim_cost_get(t->be, &cs), 0);
	return cs;
}

/* n posted writes to BOOT_FIFO_DATA in one burst. */
static void
rsh_t_burst(struct rsh_t_sim *t, unsigned int n)
{
	static uint64_t w[1024];

	assert_true(n <= RTE_DIM(w));
	t->be->ops->write_fifo(t->be, t->map.off[RSH_BOOT_FIFO_DATA], w, n);
}

/* BOOT_CONTROL=0 and the reset key: the boot-ROM consumer starts (the
 * callers' resetwin=0: at once). */
static void
rsh_t_fifo_boot(struct rsh_t_sim *t)
{
	uint64_t v;

	rsh_t_wr(t, RSH_BOOT_CONTROL, RSH_BOOT_CONTROL_NONE);
	v = rsh_t_rd(t, RSH_RESET_CONTROL);
	rsh_t_wr(t, RSH_RESET_CONTROL, (v & ~RSH_RESET_CONTROL__KEY_MASK) |
		 RSH_RESET_CONTROL__KEY);
	assert_false(rsh_reg_val_is_bad(rsh_t_rd(t, RSH_FABRIC_DIM)));
}

/* Within 1 % (ns -> TSC cycles -> ns rounds). */
static void
rsh_t_near(uint64_t got, uint64_t want)
{
	if (got * 100 < want * 99 || got * 100 > want * 101)
		fail_msg("charged %" PRIu64 " ns, expected %" PRIu64, got, want);
}

/* Off by default: nothing charged, defaults reported. */
static void
test_cost_off(void **state)
{
	struct rsh_sim_cost_stats cs;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2");
	rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
	rsh_t_burst(&t, 100);
	cs = rsh_t_cost(&t);
	assert_false(cs.enabled);
	assert_int_equal(cs.charged_ns, 0);
	assert_int_equal(cs.rd_ns, 1000);
	assert_int_equal(cs.wr_ns, 100);
	rsh_t_sim_close(&t);
}

/* Reads and writes charged at their cost; no drain reads on BF2. */
static void
test_cost_charges(void **state)
{
	struct rsh_sim_cost_stats cs;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2,rd_ns=2000,wr_ns=50");
	for (int i = 0; i < 3; i++)
		rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
	rsh_t_burst(&t, 100);
	cs = rsh_t_cost(&t);
	assert_true(cs.enabled);
	rsh_t_near(cs.charged_ns, 3 * 2000 + 100 * 50);
	assert_int_equal(cs.bf1_drain_reads, 0);
	rsh_t_sim_close(&t);
}

/* BF1: one read before the 16th, 31st, ... write of a run; a read ends
 * the run (hardware-notes §1.9). */
static void
test_bf1_drain_reads(void **state)
{
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf1,cost=1");
	rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
	rsh_t_burst(&t, 15);
	assert_int_equal(rsh_t_cost(&t).bf1_drain_reads, 0);
	rsh_t_burst(&t, 1);            /* 16th */
	assert_int_equal(rsh_t_cost(&t).bf1_drain_reads, 1);
	rsh_t_burst(&t, 30);           /* 46: before the 31st and the 46th */
	assert_int_equal(rsh_t_cost(&t).bf1_drain_reads, 3);
	rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
	rsh_t_burst(&t, 15);
	assert_int_equal(rsh_t_cost(&t).bf1_drain_reads, 3);
	rsh_t_wr(&t, RSH_SCRATCHPAD1, 1); /* any posted write counts */
	assert_int_equal(rsh_t_cost(&t).bf1_drain_reads, 4);
	rsh_t_near(rsh_t_cost(&t).charged_ns, 2 * 1000 + 62 * 100 + 4 * 1000);
	rsh_t_sim_close(&t);
}

/* The consumer runs on the device's clock: at 1 ms per read 64 bytes
 * drain at 1 KB/s in 64 ms of charged time, the clock standing still. */
static void
test_cost_virtual_time(void **state)
{
	struct rsh_t_sim t;
	int i;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2,rd_ns=1000000,drain=1K,resetwin=0");
	rsh_t_fifo_boot(&t);
	rsh_t_burst(&t, 8);
	for (i = 0; i < 100 && rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT) != 0; i++)
		;
	assert_true(i < 100);
	assert_in_range(i, 63, 64); /* 64 ms of device time, 1 ms a read */
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, 64);
	rsh_t_sim_close(&t);
}

/* bootdepth=512 on BF3: the 513th queued word is dropped and counted. */
static void
test_bootdepth(void **state)
{
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,bootdepth=512");
	rsh_t_burst(&t, 600);           /* no consumer: eMMC boot mode */
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 512);
	assert_int_equal(rsh_t_stats(&t).boot_overflows, 88);
	rsh_t_sim_close(&t);
	rsh_t_sim_open(&t, "sim:bf3");
	rsh_t_burst(&t, 600);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 600);
	rsh_t_sim_close(&t);
}

/* Bad values: one error line naming the option. */
static void
test_args(void **state)
{
	static const char *const bad[] = {
		"sim:bf3,cost=2", "sim:bf3,rd_ns=2000000", "sim:bf3,wr_ns=x",
		"sim:bf3,bootdepth=600", "sim:bf3,profile=boot",
		"sim:bf3,profile=install/0", "sim:bf3,profile=install/x",
		"sim:bf3,stall=1s@1M,profile=install",
		"sim:bf3,profile=install,stall=1s@1M",
	};
	const struct rsh_backend_driver *drv = rsh_backend_find("sim");
	struct rsh_backend *be;

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		assert_int_equal(drv->probe(bad[i], NULL, &be), -EINVAL);
		assert_non_null(strstr(rsh_last_error(), bad[i]));
	}
}

/* profile=install/1000: the whole compressed install is consumed, with
 * its four stalls, at the phases' rates: 90 ms of stalls, 8 KiB at
 * 100 MB/s, 64 KiB at 50 MB/s and the 825 KiB tail at 2 MB/s, 0.523 s
 * of device time in all (the host writes whenever there is room; the
 * clock moves 100 us between its looks). */
static void
test_profile(void **state)
{
	static uint64_t w[1021];
	const uint64_t words = ((896ull << 20) / 1000) / 8;
	uint64_t done = 0, t0, looks = 0;
	struct rsh_t_sim t;
	double secs;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,profile=install/1000,resetwin=0");
	rsh_t_fifo_boot(&t);
	t0 = rsh_now();
	while (done < words && looks++ < 100000) {
		uint64_t c = rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
		uint64_t n = c >= 1021 ? 0 : RTE_MIN(1021 - c, words - done);

		t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, n);
		done += n;
		rsh_clock_advance_ns(100000);
	}
	while (rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT) != 0 && looks++ < 100000)
		rsh_clock_advance_ns(100000);
	secs = rsh_cyc_s(rsh_now() - t0);
	assert_int_equal(done, words);
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, words * 8);
	assert_int_equal(rsh_t_stats(&t).stalls, 4);
	assert_int_equal(rsh_t_stats(&t).boot_overflows, 0);
	if (secs < 0.5230 || secs > 0.5245)
		fail_msg("compressed install took %.4f s of device time, expected 0.523", secs);
	rsh_t_sim_close(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		RSH_TEST_VIRTUAL(test_cost_off),
		RSH_TEST_VIRTUAL(test_cost_charges),
		RSH_TEST_VIRTUAL(test_bf1_drain_reads),
		RSH_TEST_VIRTUAL(test_cost_virtual_time),
		RSH_TEST_VIRTUAL(test_bootdepth),
		RSH_TEST_VIRTUAL(test_args),
		RSH_TEST_VIRTUAL(test_profile),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
