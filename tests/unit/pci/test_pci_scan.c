/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/pci discovery and probe identity checks against fake sysfs
 * trees: device-string forms, libpci scan (BF2, BF3, other vendors,
 * livefish, small BAR, degraded link), and the one-line errors the scan prints
 * §3 that happen before any mapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rsh_backend.h"
#include "rsh_fake_sysfs.h"
#include "rsh_pci_priv.h"

#define RSH_T_MAX 8

/* Per-case state: one fake root. */
struct rsh_t {
	char root[PATH_MAX];
	struct rsh_open_opts opts;
	const struct rsh_backend_driver *drv;
};

static const struct rsh_fake_fn rsh_t_bf2 = {
	.bdf = "0000:03:00.2", .vendor = 0x15b3, .device = 0xc2d3,
	.revision = 1, .bar_size = 0x100000, .driver = "vfio-pci", .group = 7,
};
static const struct rsh_fake_fn rsh_t_bf3 = {
	.bdf = "0000:65:00.1", .vendor = 0x15b3, .device = 0xc2d5,
	.revision = 2, .bar_size = 0x800000, .driver = NULL, .group = 9,
	.cur_speed = "2.5 GT/s PCIe", .max_speed = "16.0 GT/s PCIe",
	.cur_width = 4, .max_width = 16,
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
	t.drv = rsh_backend_find("pci");
	*state = &t;
	return t.drv == NULL ? -1 : 0;
}

/* Teardown: remove the tree. */
static int
rsh_t_teardown(void **state)
{
	struct rsh_t *t = *state;

	rsh_fake_root_free(t->root);
	return 0;
}

/* Find a scan entry by name. */
static const struct rsh_dev_info *
rsh_t_find(const struct rsh_dev_info *inf, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(inf[i].name, name) == 0)
			return &inf[i];
	return NULL;
}

/* All three device-string forms match and normalise; others do not. */
static void
test_match_forms(void **state)
{
	struct rsh_t *t = *state;
	char bdf[RSH_PCI_BDF_LEN];

	assert_int_equal(rsh_pci_addr_parse("0000:03:00.1", bdf), 0);
	assert_string_equal(bdf, "0000:03:00.1");
	assert_int_equal(rsh_pci_addr_parse("03:00.1", bdf), 0);
	assert_string_equal(bdf, "0000:03:00.1");
	assert_int_equal(rsh_pci_addr_parse("pcie-0000:a3:1f.7", bdf), 0);
	assert_string_equal(bdf, "0000:a3:1f.7");
	assert_true(t->drv->match("pcie-0001:03:00.2"));
	assert_false(t->drv->match("sim:bf3"));
	assert_false(t->drv->match("03:00"));
	assert_false(t->drv->match("03:00.8"));
	assert_false(t->drv->match("0000:03:00.1x"));
}

/* Scan finds BF2 and BF3, skips other vendors and non-rshim IDs. */
static void
test_scan_finds_bf2_bf3(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_fake_fn nic = { .bdf = "0000:03:00.0", .vendor = 0x15b3,
				   .device = 0xa2d6, .bar_size = 0x2000000,
				   .driver = "mlx5_core", .group = 7 };
	struct rsh_fake_fn intel = { .bdf = "0000:00:1f.0", .vendor = 0x8086,
				     .device = 0xc2d3, .bar_size = 0x100000,
				     .group = 1 };
	struct rsh_dev_info inf[RSH_T_MAX];
	const struct rsh_dev_info *a, *b;
	int n;

	assert_int_equal(rsh_fake_fn_add(t->root, &rsh_t_bf2), 0);
	assert_int_equal(rsh_fake_fn_add(t->root, &rsh_t_bf3), 0);
	assert_int_equal(rsh_fake_fn_add(t->root, &nic), 0);
	assert_int_equal(rsh_fake_fn_add(t->root, &intel), 0);
	n = t->drv->scan(&t->opts, inf, RSH_T_MAX);
	assert_int_equal(n, 2);
	a = rsh_t_find(inf, n, "0000:03:00.2");
	b = rsh_t_find(inf, n, "0000:65:00.1");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->gen, RSH_GEN_BF2);
	assert_int_equal(a->revision, 1);
	assert_int_equal(a->bar_size, 0x100000);
	assert_true(a->supported);
	assert_string_equal(a->driver, "pci");
	assert_string_equal(a->kdriver, "vfio-pci");
	assert_int_equal(a->iommu_group, 7);
	assert_int_equal(a->numa_node, 0);
	assert_int_equal(a->link.speed_mts, 8000);
	assert_int_equal(a->link.max_speed_mts, 8000);
	assert_int_equal(a->link.width, 16);
	assert_int_equal(a->link.max_width, 16);
	assert_false(a->livefish);
	assert_int_equal(b->gen, RSH_GEN_BF3);
	assert_int_equal(b->bar_size, 0x800000);
	assert_true(b->supported);
	assert_string_equal(b->kdriver, "");
	assert_int_equal(b->iommu_group, 9);
	assert_int_equal(b->link.speed_mts, 2500);
	assert_int_equal(b->link.max_speed_mts, 16000);
	assert_int_equal(b->link.width, 4);
	assert_int_equal(b->link.max_width, 16);
	/* max smaller than the number found: count still complete */
	assert_int_equal(t->drv->scan(&t->opts, inf, 1), 2);
}

/* Livefish IDs are listed as supported (the config-space gateway), a
 * too-small BAR as unsupported. */
static void
test_scan_livefish_small_bar(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_fake_fn lf = { .bdf = "0000:04:00.0", .vendor = 0x15b3,
				  .device = 0x0214, .bar_size = 0x100000,
				  .group = 3 };
	struct rsh_fake_fn small = { .bdf = "0000:05:00.1", .vendor = 0x15b3,
				     .device = 0xc2d5, .bar_size = 0x100000,
				     .group = 4 };
	struct rsh_dev_info inf[RSH_T_MAX];
	const struct rsh_dev_info *a, *b;
	int n;

	rsh_fake_fn_add(t->root, &lf);
	rsh_fake_fn_add(t->root, &small);
	n = t->drv->scan(&t->opts, inf, RSH_T_MAX);
	assert_int_equal(n, 2);
	a = rsh_t_find(inf, n, "0000:04:00.0");
	b = rsh_t_find(inf, n, "0000:05:00.1");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->gen, RSH_GEN_BF2);
	assert_true(a->supported);
	assert_true(a->livefish);
	assert_int_equal(b->gen, RSH_GEN_BF3);
	assert_false(b->supported);
	assert_false(b->livefish);
}

/* A root without bus/pci scans to zero, not an error or an exit. */
static void
test_scan_empty_root(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_open_opts o = { .sysfs_root = "/nonexistent-rsh-root" };
	struct rsh_dev_info inf[1];

	assert_int_equal(t->drv->scan(&o, inf, 1), 0);
	assert_int_equal(t->drv->scan(&t->opts, inf, 1), 0);
}

/* Probe and expect rc and a message containing want. */
static void
rsh_t_probe_err(struct rsh_t *t, const char *dev, int rc, const char *want)
{
	struct rsh_backend *be = NULL;
	int fds = rsh_fake_open_fds();

	assert_int_equal(t->drv->probe(dev, &t->opts, &be), rc);
	assert_null(be);
	if (strstr(rsh_last_error(), want) == NULL)
		fail_msg("message '%s' lacks '%s'", rsh_last_error(), want);
	assert_int_equal(rsh_fake_open_fds(), fds);
}

/* A livefish function probes to a config-space-only backend (direct
 * mode here: nothing bound), which the core stacks the gateway on. */
static void
rsh_t_livefish_ok(struct rsh_t *t, const char *dev)
{
	struct rsh_backend *be = NULL;
	int fds = rsh_fake_open_fds();

	assert_int_equal(t->drv->probe(dev, &t->opts, &be), 0);
	assert_true(be->cfg_only);
	assert_int_equal(be->gen, RSH_GEN_BF3);
	be->ops->close(be);
	assert_int_equal(rsh_fake_open_fds(), fds);
}

/* §3: no such address; not an rshim function; BAR too small; livefish
 * is opened. */
static void
test_probe_identity_errors(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_fake_fn nic = { .bdf = "0000:03:00.0", .vendor = 0x15b3,
				   .device = 0xa2d6, .bar_size = 0x2000000,
				   .group = 7 };
	struct rsh_fake_fn lf = { .bdf = "0000:04:00.0", .vendor = 0x15b3,
				  .device = 0x021c, .bar_size = 0x100000,
				  .group = 3 };
	struct rsh_fake_fn small = { .bdf = "0000:05:00.1", .vendor = 0x15b3,
				     .device = 0xc2d5, .bar_size = 0x100000,
				     .group = 4 };

	rsh_fake_fn_add(t->root, &nic);
	rsh_fake_fn_add(t->root, &lf);
	rsh_fake_fn_add(t->root, &small);
	rsh_t_probe_err(t, "bogus", -EINVAL, "not a PCI address");
	rsh_t_probe_err(t, "09:00.2", -ENODEV,
			"0000:09:00.2: no such PCI address");
	rsh_t_probe_err(t, "03:00.0", -ENODEV, "0000:03:00.0: not an rshim "
			"function (vendor 0x15b3 device 0xa2d6); ");
	rsh_t_probe_err(t, "03:00.0", -ENODEV, "force-id=1");
	rsh_t_livefish_ok(t, "pcie-0000:04:00.0");
	rsh_t_probe_err(t, "05:00.1", -ENODEV, "BAR0 is 1024 KiB but "
			"BlueField-3 needs 8192 KiB");
}

/* §3: bound to another driver names it and the exact command. */
static void
test_probe_foreign_driver(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_fake_fn fn = rsh_t_bf2;

	fn.driver = "mlx5_core";
	rsh_fake_fn_add(t->root, &fn);
	rsh_t_probe_err(t, "03:00.2", -EBUSY, "0000:03:00.2: bound to "
			"mlx5_core; run: rshim-devbind.py -b vfio-pci "
			"0000:03:00.2");
}

/* §3: not bound, VFIO forced: the exact bind command. */
static void
test_probe_unbound_vfio(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_fake_fn fn = rsh_t_bf2;

	fn.driver = NULL;
	rsh_fake_fn_add(t->root, &fn);
	rsh_t_probe_err(t, "0000:03:00.2,mapping=vfio", -ENODEV, "0000:03:00.2: "
			"not bound to any driver; run: rshim-devbind.py -b "
			"vfio-pci 0000:03:00.2");
}

/* Devargs: the canonical address and the options of the one table. */
static void
test_devargs_good(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_pci_args a;
	char bdf[RSH_PCI_BDF_LEN], key[32];

	assert_int_equal(rsh_pci_devstr_addr("pcie-0000:03:00.2,mapping=uio", bdf), 0);
	assert_string_equal(bdf, "0000:03:00.2");
	assert_int_equal(rsh_pci_args_parse("03:00.2", &a), 0);
	assert_int_equal(a.mapping, -1);
	assert_false(a.force_id);
	assert_int_equal(rsh_pci_args_parse("03:00.2,mapping=direct,force-id=1", &a), 0);
	assert_int_equal(a.mapping, RSH_PCI_MAP_DIRECT);
	assert_true(a.force_id);
	assert_int_equal(rsh_pci_args_parse("03:00.2,force-id=0,mapping=vfio", &a), 0);
	assert_int_equal(a.mapping, RSH_PCI_MAP_VFIO);
	assert_false(a.force_id);
	/* The host key (locks) stays the address without devargs. */
	assert_true(t->drv->match("0000:03:00.2,mapping=uio"));
	assert_int_equal(t->drv->host_key("03:00.2,mapping=uio,force-id=1", key,
					  sizeof(key)), 1);
	assert_string_equal(key, "0000:03:00.2");
}

/* One bad devarg: -EINVAL and one line naming the key and the valid ones. */
static void
rsh_t_devarg_bad(struct rsh_t *t, const char *dev, const char *want)
{
	struct rsh_pci_args a;
	char key[32];

	assert_int_equal(rsh_pci_args_parse(dev, &a), -EINVAL);
	if (strstr(rsh_last_error(), want) == NULL)
		fail_msg("message '%s' lacks '%s'", rsh_last_error(), want);
	assert_null(strchr(rsh_last_error(), '\n'));
	assert_int_equal(t->drv->host_key(dev, key, sizeof(key)), -EINVAL);
	rsh_t_probe_err(t, dev, -EINVAL, want);
}

static void
test_devargs_unknown_key(void **state)
{
	rsh_t_devarg_bad(*state, "0000:03:00.2,maping=vfio",
			 "unknown PCI option 'maping'; valid: mapping, force-id");
	rsh_t_devarg_bad(*state, "0000:03:00.2,mapping=vfio,drain=1M",
			 "unknown PCI option 'drain'; valid: mapping, force-id");
}

static void
test_devargs_bad_value(void **state)
{
	rsh_t_devarg_bad(*state, "0000:03:00.2,mapping=bogus",
			 "bad value 'bogus' for PCI option mapping (expected mapping=vfio|uio|direct");
	rsh_t_devarg_bad(*state, "0000:03:00.2,force-id=maybe",
			 "bad value 'maybe' for PCI option force-id");
	rsh_t_devarg_bad(*state, "0000:03:00.2,mapping",
			 "PCI option 'mapping' needs a value: mapping=vfio|uio|direct");
	rsh_t_devarg_bad(*state, "0000:03:00.2,force-id=,mapping=uio",
			 "PCI option 'force-id' needs a value");
}

static void
test_devargs_duplicate(void **state)
{
	rsh_t_devarg_bad(*state, "0000:03:00.2,mapping=vfio,mapping=uio",
			 "PCI option 'mapping' given twice");
	rsh_t_devarg_bad(*state, "0000:03:00.2,force-id=1,mapping=uio,force-id=1",
			 "PCI option 'force-id' given twice");
}

/* force-id=1 accepts a non-rshim ID (then fails later only on mapping). */
static void
test_probe_force_id(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_fake_fn fn = { .bdf = "0000:06:00.0", .vendor = 0x1234,
				  .device = 0x5678, .bar_size = 0x800000,
				  .group = -1 };
	struct rsh_backend *be = NULL;

	rsh_fake_fn_add(t->root, &fn);
	assert_int_equal(t->drv->probe("06:00.0,force-id=1,mapping=direct", &t->opts,
					&be), 0);
	assert_non_null(be);
	assert_int_equal(be->gen, RSH_GEN_BF3);
	be->ops->close(be);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_match_forms, rsh_t_setup,
						rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_scan_finds_bf2_bf3,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_scan_livefish_small_bar,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_scan_empty_root,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_probe_identity_errors,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_probe_foreign_driver,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_probe_unbound_vfio,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_probe_force_id,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_devargs_good,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_devargs_unknown_key,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_devargs_bad_value,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_devargs_duplicate,
						rsh_t_setup, rsh_t_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
