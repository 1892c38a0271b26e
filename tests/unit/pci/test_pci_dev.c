/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The direct backend through the core: rsh_dev_open("0000:03:00.2,mapping=direct")
 * with opts.sysfs_root, then rsh_dev_reg_write /
 * rsh_dev_reg_read land at the decoded BAR offsets of the fake resource0
 * (BF2 SCRATCHPAD1 at 0x10C20, BF3 at 0xC40).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <rte_common.h>
#include <rte_eal.h>

#include "rsh.h"
#include "rsh_fake_sysfs.h"

/* Per-case state. */
struct rsh_t {
	char root[PATH_MAX];
	struct rsh_open_opts opts;
};

/* Setup: an empty fake root. */
static int
rsh_t_setup(void **state)
{
	static struct rsh_t t;

	memset(&t, 0, sizeof(t));
	if (rsh_fake_root_new(t.root) < 0)
		return -1;
	t.opts.sysfs_root = t.root;
	*state = &t;
	return 0;
}

/* Teardown: remove the tree. */
static int
rsh_t_teardown(void **state)
{
	rsh_fake_root_free(((struct rsh_t *)*state)->root);
	return 0;
}

/* Open, write SCRATCHPAD1, check the file, read SCRATCHPAD3 back. */
static void
rsh_t_dev_regs(struct rsh_t *t, uint16_t id, uint64_t bar, enum rsh_gen gen,
	       uint32_t sp1_off, uint32_t sp3_off)
{
	struct rsh_fake_fn fn = { .bdf = "0000:03:00.2", .vendor = 0x15b3,
				  .device = id, .bar_size = bar, .group = 2 };
	struct rsh_dev_info inf;
	struct rsh_dev *dev = NULL;
	uint64_t v = 0;

	assert_int_equal(rsh_fake_fn_add(t->root, &fn), 0);
	rsh_fake_write64(t->root, fn.bdf, "resource0", 0x110, 0x22);
	assert_int_equal(rsh_dev_open("0000:03:00.2,mapping=direct", &t->opts, &dev), 0);
	assert_int_equal(rsh_dev_get_info(dev, &inf), 0);
	assert_int_equal(inf.gen, gen);
	assert_string_equal(inf.driver, "pci");
	assert_string_equal(inf.name, "0000:03:00.2");
	assert_int_equal(inf.bar_size, bar);
	assert_false(inf.livefish);
	assert_int_equal(rsh_dev_reg_write(dev, RSH_SCRATCHPAD1, 0xabc), 0);
	assert_int_equal(rsh_fake_read64(t->root, fn.bdf, "resource0",
					 sp1_off), 0xabc);
	rsh_fake_write64(t->root, fn.bdf, "resource0", sp3_off, 0x77);
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD3, &v), 0);
	assert_int_equal(v, 0x77);
	rsh_fake_write64(t->root, fn.bdf, "resource0", sp3_off, UINT64_MAX);
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD3, &v), -ENODEV);
	rsh_dev_close(dev);
}

/* BF2: SCRATCHPAD1 0x10C20, SCRATCHPAD3 0x10C30. */
static void
test_dev_direct_bf2(void **state)
{
	rsh_t_dev_regs(*state, 0xc2d3, 0x100000, RSH_GEN_BF2, 0x10C20, 0x10C30);
}

/* BF3: SCRATCHPAD1 0xC40, SCRATCHPAD3 0xC50. */
static void
test_dev_direct_bf3(void **state)
{
	rsh_t_dev_regs(*state, 0xc2d5, 0x800000, RSH_GEN_BF3, 0xC40, 0xC50);
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-huge", "--no-shconf", "--no-pci",
			"-l", "0", "--log-level=lib.eal:error" };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dev_direct_bf2,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_dev_direct_bf3,
						rsh_t_setup, rsh_t_teardown),
	};

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
