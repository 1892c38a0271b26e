/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Extended statistics (rsh_dev_xstats_get_names / rsh_dev_xstats_get):
 * names and values line up by id, the counters move with register
 * accesses, a too-small array gets the count and stays untouched, a
 * backend without the ops has the core's two, a livefish gateway reports
 * the emulated function under it; the benchmarks' lookup by name
 * (lib/bench) on top of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rsh.h"
#include "rsh_bench_ref.h"
#include "rsh_dev_priv.h"
#include "rsh_sim.h"
#include "rsh_t_mock.h"
#include "rsh_test_eal.h"
#include "rsh_test_time.h"

#define RSH_T_XS_MAX 256u

/* The names of dev; their number is returned. */
static int
rsh_t_names(struct rsh_dev *dev, struct rsh_xstat_name *names)
{
	int n = rsh_dev_xstats_get_names(dev, NULL, 0);

	assert_true(n >= 2 && n <= (int)RSH_T_XS_MAX);
	assert_int_equal(rsh_dev_xstats_get_names(dev, names, RSH_T_XS_MAX), n);
	return n;
}

/* The value of the statistic called name (the test fails without it). */
static uint64_t
rsh_t_val(struct rsh_dev *dev, const char *name)
{
	static struct rsh_xstat_name names[RSH_T_XS_MAX];
	struct rsh_xstat xs[RSH_T_XS_MAX];
	int n = rsh_t_names(dev, names);

	assert_int_equal(rsh_dev_xstats_get(dev, xs, RSH_T_XS_MAX), n);
	for (int i = 0; i < n; i++)
		if (strcmp(names[i].name, name) == 0) {
			assert_int_equal(xs[i].id, i);
			return xs[i].value;
		}
	fail_msg("no statistic %s", name);
	return 0;
}

/* Names are unique and non-empty, ids are the names' indexes, the core's
 * come first, the emulator's values are the ones its own calls give. */
static void
test_xstats_consistent(void **state)
{
	static struct rsh_xstat_name names[RSH_T_XS_MAX];
	struct rsh_xstat xs[RSH_T_XS_MAX];
	struct rsh_sim_cost_stats cs;
	struct rsh_mmio_stats m;
	struct rsh_dev *dev;
	uint64_t v;
	int n;

	(void)state;
	assert_int_equal(rsh_dev_open("sim:bf3,cost=1,rd_ns=1234,wr_ns=567", NULL, &dev), 0);
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD1, &v), 0);
	n = rsh_t_names(dev, names);
	assert_int_equal(rsh_dev_xstats_get(dev, xs, RSH_T_XS_MAX), n);
	assert_string_equal(names[0].name, "mmio_reads");
	assert_string_equal(names[1].name, "mmio_writes");
	for (int i = 0; i < n; i++) {
		assert_int_equal(xs[i].id, i);
		assert_true(names[i].name[0] != '\0');
		for (int k = 0; k < i; k++)
			assert_string_not_equal(names[i].name, names[k].name);
	}
	rsh_dev_get_stats(dev, &m);
	assert_int_equal(xs[0].value, m.reads);
	assert_int_equal(xs[1].value, m.writes);
	assert_int_equal(rsh_sim_cost_get(dev->be, &cs), 0);
	assert_true(cs.enabled);
	assert_int_equal(rsh_t_val(dev, "sim_cost_enabled"), 1);
	assert_int_equal(rsh_t_val(dev, "sim_cost_rd_ns"), 1234);
	assert_int_equal(rsh_t_val(dev, "sim_cost_wr_ns"), 567);
	assert_int_equal(rsh_t_val(dev, "sim_booted"), 0);
	rsh_dev_close(dev);
}

/* A register read and a write move the MMIO counters and what the cost
 * model charged; a host BOOT_FIFO_COUNT read moves the emulator's own. */
static void
test_xstats_move(void **state)
{
	uint64_t r0, w0, c0, h0, v;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("sim:bf2,cost=1", NULL, &dev), 0);
	r0 = rsh_t_val(dev, "mmio_reads");
	w0 = rsh_t_val(dev, "mmio_writes");
	c0 = rsh_t_val(dev, "sim_cost_charged_ns");
	h0 = rsh_t_val(dev, "sim_host_count_reads");
	assert_int_equal(rsh_dev_reg_read(dev, RSH_BOOT_FIFO_COUNT, &v), 0);
	assert_int_equal(rsh_t_val(dev, "mmio_reads"), r0 + 1);
	assert_int_equal(rsh_t_val(dev, "sim_host_count_reads"), h0 + 1);
	assert_true(rsh_t_val(dev, "sim_cost_charged_ns") >= c0 + 900); /* 1000 ns */
	assert_int_equal(rsh_dev_reg_write(dev, RSH_SCRATCHPAD2, 7), 0);
	assert_int_equal(rsh_t_val(dev, "mmio_writes"), w0 + 1);
	rsh_dev_close(dev);
}

/* n below the count: the count back, nothing written (as DPDK's). */
static void
test_xstats_too_small(void **state)
{
	static struct rsh_xstat_name names[RSH_T_XS_MAX];
	struct rsh_xstat xs[RSH_T_XS_MAX];
	struct rsh_dev *dev;
	int n;

	(void)state;
	assert_int_equal(rsh_dev_open("sim:bf3", NULL, &dev), 0);
	n = rsh_dev_xstats_get_names(dev, NULL, 0);
	assert_true(n > 2);
	assert_int_equal(rsh_dev_xstats_get(dev, NULL, 0), n);
	memset(names, 0x5a, sizeof(names));
	memset(xs, 0x5a, sizeof(xs));
	assert_int_equal(rsh_dev_xstats_get_names(dev, names, (unsigned int)n - 1), n);
	assert_int_equal(rsh_dev_xstats_get(dev, xs, (unsigned int)n - 1), n);
	assert_int_equal(rsh_dev_xstats_get(dev, xs, 1), n);
	for (size_t i = 0; i < sizeof(names); i++)
		assert_int_equal(((uint8_t *)names)[i], 0x5a);
	for (size_t i = 0; i < sizeof(xs); i++)
		assert_int_equal(((uint8_t *)xs)[i], 0x5a);
	assert_int_equal(rsh_dev_xstats_get(dev, xs, (unsigned int)n), n);
	rsh_dev_close(dev);
}

/* A backend without the ops (the mock, as a PCI function): the core's two. */
static void
test_xstats_no_backend_ops(void **state)
{
	struct rsh_xstat_name names[2];
	struct rsh_xstat xs[2];
	struct rsh_dev *dev;
	uint64_t v;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, &dev), 0);
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD2, &v), 0);
	assert_int_equal(rsh_dev_xstats_get_names(dev, names, 2), 2);
	assert_string_equal(names[1].name, "mmio_writes");
	assert_int_equal(rsh_dev_xstats_get(dev, xs, 2), 2);
	assert_true(xs[0].value >= 1);
	rsh_dev_close(dev);
}

/* Livefish: the gateway on top, the emulated function under it; the
 * statistics are the core's (config cycles) and the function's. */
static void
test_xstats_livefish(void **state)
{
	struct rsh_dev_info info;
	uint64_t c0, v;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("sim:bf2,livefish=1", NULL, &dev), 0);
	assert_int_equal(rsh_dev_get_info(dev, &info), 0);
	assert_true(info.livefish);
	c0 = rsh_t_val(dev, "sim_lf_cfg_reads");
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD2, &v), 0);
	assert_true(rsh_t_val(dev, "sim_lf_cfg_reads") > c0);
	assert_true(rsh_t_val(dev, "mmio_reads") > 0);
	rsh_dev_close(dev);
}

/* lib/bench's lookup: names found or not, values as the list gives them;
 * the boot FIFO credit (depth less the 3 words kept free). */
static void
test_xstats_bench_lookup(void **state)
{
	static const char *const names[] = { "sim_cost_rd_ns", "no_such_counter",
					     "mmio_reads" };
	uint64_t vals[3], v;
	struct rsh_dev *dev;
	int ids[3];

	(void)state;
	assert_int_equal(rsh_dev_open("sim:bf3,cost=1,rd_ns=2500", NULL, &dev), 0);
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD1, &v), 0);
	assert_int_equal(rsh_bench_xstats_ids(dev, names, ids, 3), 2);
	assert_true(ids[0] >= 2);
	assert_int_equal(ids[1], -1);
	assert_int_equal(ids[2], 0);
	assert_int_equal(rsh_bench_xstats_by_name(dev, names, vals, 3), 2);
	assert_int_equal(vals[0], 2500);
	assert_int_equal(vals[1], 0);
	assert_int_equal(vals[2], rsh_t_val(dev, "mmio_reads"));
	rsh_dev_close(dev);
	assert_int_equal(rsh_bench_boot_credit(RSH_GEN_BF3), 1021);
	assert_int_equal(rsh_bench_boot_credit(RSH_GEN_BF2), 509);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		RSH_TEST_VIRTUAL(test_xstats_consistent),
		RSH_TEST_VIRTUAL(test_xstats_move),
		RSH_TEST_VIRTUAL(test_xstats_too_small),
		RSH_TEST_VIRTUAL(test_xstats_no_backend_ops),
		RSH_TEST_VIRTUAL(test_xstats_livefish),
		RSH_TEST_VIRTUAL(test_xstats_bench_lookup),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
