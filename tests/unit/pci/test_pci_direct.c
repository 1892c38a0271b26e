/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct (resource0) and UIO backends on fake sysfs trees: register writes
 * through the ops table land at the table's decoded BAR offsets in the
 * sparse resource0 file, bounds checks, BF1 drain reads, PCI_COMMAND,
 * driver_override set and cleared, lockdown refusal, nothing left open.
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
#include "rsh_regs.h"

/* Per-case state. */
struct rsh_t {
	char root[PATH_MAX];
	struct rsh_open_opts opts;
	const char *args;       /* devargs added to every probe */
	const struct rsh_backend_driver *drv;
	int fds;
};

/* Setup: an empty fake root, direct mapping forced. */
static int
rsh_t_setup(void **state)
{
	static struct rsh_t t;

	memset(&t, 0, sizeof(t));
	if (rsh_fake_root_new(t.root) < 0)
		return -1;
	t.opts.sysfs_root = t.root;
	t.args = ",mapping=direct";
	t.drv = rsh_backend_find("pci");
	t.fds = rsh_fake_open_fds();
	*state = &t;
	return t.drv == NULL ? -1 : 0;
}

/* Probe addr with the case's devargs. */
static int
rsh_t_probe(struct rsh_t *t, const char *addr, struct rsh_backend **be)
{
	char dev[128];

	snprintf(dev, sizeof(dev), "%s%s", addr, t->args);
	return t->drv->probe(dev, &t->opts, be);
}

/* Teardown: nothing left open; remove the tree. */
static int
rsh_t_teardown(void **state)
{
	struct rsh_t *t = *state;
	int fds = rsh_fake_open_fds();

	rsh_fake_root_free(t->root);
	return fds == t->fds ? 0 : -1;
}

/* Add a function of a generation, unbound. */
static void
rsh_t_add(struct rsh_t *t, const char *bdf, uint16_t id, uint64_t bar,
	  const char *drv)
{
	struct rsh_fake_fn fn = { .bdf = bdf, .vendor = 0x15b3, .device = id,
				  .revision = 3, .bar_size = bar,
				  .driver = drv, .group = 5 };

	assert_int_equal(rsh_fake_fn_add(t->root, &fn), 0);
}

/* Read a sysfs attribute of the function. */
static void
rsh_t_attr(struct rsh_t *t, const char *bdf, const char *file, char *buf,
	   size_t len)
{
	char dir[PATH_MAX + 64];

	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", t->root, bdf);
	assert_int_equal(rsh_pci_read_str(dir, file, buf, len), 0);
}

/* Write SCRATCHPAD1 through the ops and find it at off in resource0. */
static void
rsh_t_reg_lands(struct rsh_t *t, const char *bdf, enum rsh_gen gen,
		uint32_t want_off)
{
	struct rsh_backend *be = NULL;
	struct rsh_regmap map;
	uint64_t cfgw;
	char ov[32];

	assert_int_equal(rsh_t_probe(t, bdf, &be), 0);
	assert_int_equal(be->gen, gen);
	assert_int_equal(be->revision, 3);
	assert_string_equal(be->name, "0000:03:00.2");
	assert_int_equal(rsh_regmap_init(&map, gen), 0);
	assert_int_equal(map.off[RSH_SCRATCHPAD1], want_off);
	be->ops->write64(be, map.off[RSH_SCRATCHPAD1], 0x5089836482ull);
	assert_int_equal(rsh_fake_read64(t->root, "0000:03:00.2", "resource0",
					 want_off), 0x5089836482ull);
	rsh_fake_write64(t->root, "0000:03:00.2", "resource0",
			 map.off[RSH_SCRATCHPAD3], 0x1234abcdull);
	assert_int_equal(be->ops->read64(be, map.off[RSH_SCRATCHPAD3]),
			 0x1234abcdull);
	assert_int_equal(be->stats.writes, 1);
	assert_int_equal(be->stats.reads, 1);
	cfgw = rsh_fake_read64(t->root, "0000:03:00.2", "config", 0);
	assert_int_equal((cfgw >> 32) & 0x6, 0x6); /* PCI_COMMAND MEM|MASTER */
	rsh_t_attr(t, "0000:03:00.2", "driver_override", ov, sizeof(ov));
	assert_string_equal(ov, "rshim");
	be->ops->close(be);
	rsh_t_attr(t, "0000:03:00.2", "driver_override", ov, sizeof(ov));
	assert_string_equal(ov, "");
}

/* BF2: SCRATCHPAD1 at channel 1 << 16 | 0xC20 = 0x10C20. */
static void
test_direct_bf2_offsets(void **state)
{
	struct rsh_t *t = *state;

	rsh_t_add(t, "0000:03:00.2", 0xc2d3, 0x100000, NULL);
	rsh_t_reg_lands(t, "pcie-0000:03:00.2", RSH_GEN_BF2, 0x10C20);
}

/* BF3: SCRATCHPAD1 at 0xC40 in the 8 MiB window. */
static void
test_direct_bf3_offsets(void **state)
{
	struct rsh_t *t = *state;

	rsh_t_add(t, "0000:03:00.2", 0xc2d5, 0x800000, NULL);
	rsh_t_reg_lands(t, "03:00.2", RSH_GEN_BF3, 0xC40);
}

/* Out-of-range and unaligned: all-ones, write dropped, not counted. */
static void
test_direct_bounds(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_backend *be = NULL;
	uint64_t w[2] = { 0 };

	rsh_t_add(t, "0000:03:00.2", 0xc2d3, 0x100000, NULL);
	assert_int_equal(rsh_t_probe(t, "03:00.2", &be), 0);
	assert_int_equal(be->bar_size, 0x100000);
	assert_int_equal(be->ops->read64(be, 0x100000), UINT64_MAX);
	assert_int_equal(be->ops->read64(be, 0xFFFFC), UINT64_MAX);
	assert_int_equal(be->ops->read64(be, 0x10004), UINT64_MAX);
	be->ops->write64(be, 0x100000, 1);
	be->ops->read_fifo(be, 0x200000, w, 2);
	assert_int_equal(w[0], UINT64_MAX);
	assert_int_equal(w[1], UINT64_MAX);
	assert_int_equal(be->stats.reads, 0);
	assert_int_equal(be->stats.writes, 0);
	assert_int_equal(be->ops->read64(be, 0xFFFF8), 0);
	assert_int_equal(be->stats.reads, 1);
	be->ops->close(be);
}

/* FIFO bursts: every word lands; BF1 gets a drain read per 15 writes. */
static void
test_direct_fifo_bf1_drain(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_backend *be = NULL;
	struct rsh_regmap map;
	uint64_t w[31], r[3];
	unsigned int i;

	for (i = 0; i < 31; i++)
		w[i] = 0x1000 + i;
	rsh_t_add(t, "0000:03:00.2", 0xc2d2, 0x100000, NULL);
	assert_int_equal(rsh_t_probe(t, "03:00.2", &be), 0);
	assert_int_equal(be->gen, RSH_GEN_BF1);
	rsh_regmap_init(&map, RSH_GEN_BF1);
	be->ops->write_fifo(be, map.off[RSH_BOOT_FIFO_DATA], w, 31);
	assert_int_equal(be->stats.writes, 31);
	assert_int_equal(be->stats.reads, 2); /* after words 15 and 30 */
	assert_int_equal(rsh_fake_read64(t->root, "0000:03:00.2", "resource0",
					 map.off[RSH_BOOT_FIFO_DATA]), 0x101e);
	be->ops->read_fifo(be, map.off[RSH_BOOT_FIFO_DATA], r, 3);
	assert_int_equal(r[2], 0x101e);
	assert_int_equal(be->stats.reads, 5);
	/* the read reset the posted count: 14 more writes, no drain */
	be->ops->write_fifo(be, map.off[RSH_BOOT_FIFO_DATA], w, 14);
	assert_int_equal(be->stats.reads, 5);
	be->ops->write64(be, map.off[RSH_SCRATCHPAD2], 1);
	assert_int_equal(be->stats.reads, 6);
	be->ops->close(be);
}

/* BF2 never issues drain reads. */
static void
test_direct_fifo_bf2_no_drain(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_backend *be = NULL;
	uint64_t w[40] = { 0 };

	rsh_t_add(t, "0000:03:00.2", 0xc2d3, 0x100000, NULL);
	assert_int_equal(rsh_t_probe(t, "03:00.2", &be), 0);
	be->ops->write_fifo(be, 0x0, w, 40);
	assert_int_equal(be->stats.writes, 40);
	assert_int_equal(be->stats.reads, 0);
	be->ops->close(be);
}

/* Kernel lockdown refuses direct mode and says VFIO is required. */
static void
test_direct_lockdown(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_backend *be = NULL;
	char ov[32];

	rsh_t_add(t, "0000:03:00.2", 0xc2d3, 0x100000, NULL);
	rsh_fake_write(t->root, "kernel/security/lockdown",
		       "none [integrity] confidentiality\n");
	assert_int_equal(rsh_t_probe(t, "03:00.2", &be), -EPERM);
	assert_null(be);
	assert_non_null(strstr(rsh_last_error(), "kernel lockdown "
			       "[integrity]"));
	assert_non_null(strstr(rsh_last_error(), "VFIO is required"));
	assert_non_null(strstr(rsh_last_error(), "intel_iommu=on"));
	rsh_t_attr(t, "0000:03:00.2", "driver_override", ov, sizeof(ov));
	assert_string_equal(ov, "(null)");
}

/* Default order on an unbound function under lockdown: the VFIO line. */
static void
test_fallback_keeps_vfio_message(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_backend *be = NULL;

	t->args = "";
	rsh_t_add(t, "0000:03:00.2", 0xc2d3, 0x100000, NULL);
	rsh_fake_write(t->root, "kernel/security/lockdown",
		       "none integrity [confidentiality]\n");
	assert_int_equal(rsh_t_probe(t, "03:00.2", &be), -ENODEV);
	assert_string_equal(rsh_last_error(), "0000:03:00.2: not bound to any "
			    "driver; run: rshim-devbind.py -b vfio-pci "
			    "0000:03:00.2");
	/* without lockdown the same function falls back to direct */
	rsh_fake_write(t->root, "kernel/security/lockdown", "[none]\n");
	assert_int_equal(rsh_t_probe(t, "03:00.2", &be), 0);
	be->ops->close(be);
}

/* UIO: bound to uio_pci_generic maps resource0 and keeps /dev/uioN. */
static void
test_uio_map(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_backend *be = NULL;
	char node[PATH_MAX + 16];

	t->args = "";
	rsh_t_add(t, "0000:03:00.2", 0xc2d3, 0x100000, "uio_pci_generic");
	rsh_fake_write(t->root, "bus/pci/devices/0000:03:00.2/uio/uio4/name",
		       "uio_pci_generic\n");
	rsh_fake_write(t->root, "dev/uio4", "");
	snprintf(node, sizeof(node), "%s/dev", t->root);
	rsh_pci_dev_dir = node;
	assert_int_equal(rsh_t_probe(t, "03:00.2", &be), 0);
	assert_int_equal(((struct rsh_pci_dev *)be)->mapping, RSH_PCI_MAP_UIO);
	assert_true(((struct rsh_pci_dev *)be)->uio_fd >= 0);
	be->ops->write64(be, 0x10C20, 42);
	assert_int_equal(rsh_fake_read64(t->root, "0000:03:00.2", "resource0",
					 0x10C20), 42);
	be->ops->close(be);
	rsh_pci_dev_dir = "/dev";
	t->args = ",mapping=uio";
	rsh_fake_fn_add(t->root, &(struct rsh_fake_fn){ .bdf = "0000:04:00.2",
			.vendor = 0x15b3, .device = 0xc2d3,
			.bar_size = 0x100000, .group = 6 });
	assert_int_equal(rsh_t_probe(t, "04:00.2", &be), -ENODEV);
	assert_non_null(strstr(rsh_last_error(), "run: rshim-devbind.py -b "
			       "uio_pci_generic 0000:04:00.2"));
}

/* Direct mode: PCI_STATUS.INTx (0x08 at config offset 6) is the
 * interrupt source of the SCRATCHPAD6 handshake (§1.8, §2.7). */
static void
test_direct_irq_poll(void **state)
{
	struct rsh_t *t = *state;
	struct rsh_backend *be = NULL;
	uint64_t cfgw;

	rsh_t_add(t, "0000:03:00.2", 0xc2d3, 0x100000, NULL);
	assert_int_equal(rsh_t_probe(t, "0000:03:00.2", &be), 0);
	assert_non_null(be->ops->irq_poll);
	assert_int_equal(be->ops->irq_poll(be), 0);
	cfgw = rsh_fake_read64(t->root, "0000:03:00.2", "config", 0);
	rsh_fake_write64(t->root, "0000:03:00.2", "config", 0,
			 cfgw | (0x08ull << 48));
	assert_int_equal(be->ops->irq_poll(be), 1);
	rsh_fake_write64(t->root, "0000:03:00.2", "config", 0, cfgw);
	assert_int_equal(be->ops->irq_poll(be), 0);
	be->ops->close(be);
}

int
main(void)
{
#define RSH_T(f) cmocka_unit_test_setup_teardown(f, rsh_t_setup, rsh_t_teardown)
	const struct CMUnitTest tests[] = {
		RSH_T(test_direct_bf2_offsets),
		RSH_T(test_direct_bf3_offsets),
		RSH_T(test_direct_bounds),
		RSH_T(test_direct_fifo_bf1_drain),
		RSH_T(test_direct_fifo_bf2_no_drain),
		RSH_T(test_direct_lockdown),
		RSH_T(test_fallback_keeps_vfio_message),
		RSH_T(test_uio_map),
		RSH_T(test_direct_irq_poll),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
