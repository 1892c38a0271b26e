/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The livefish gateway of drivers/pci (rsh_lf.c, rsh_lf_gw.c) on the
 * emulator's livefish=1 config space, in-process: register reads and
 * writes on BF1/BF2/BF3 with no protocol violation, the exact config
 * cycles of each access for rshim-pmd's sequence and for the reference
 * daemon's, boot FIFO words by the holding register, the BF1 7-word rule,
 * the BF3 quiet window after RESET_CONTROL, and the faults (a lock that
 * never frees, a busy that never clears) ending at the 2 s deadline on
 * the virtual clock, each config cycle costing 1 us of it. Then the PCI
 * backend of a livefish function on a fake sysfs tree: config space only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rsh_backend.h"
#include "rsh_clock.h"
#include "rsh_ctl.h"
#include "rsh_fake_sysfs.h"
#include "rsh_lf.h"
#include "rsh_pci_priv.h"
#include "rsh_regs.h"
#include "rsh_sim.h"
#include "rsh_test_eal.h"

/* A config-space backend between the gateway and the emulator: each
 * config cycle costs 1 us of virtual time (when it runs). */
struct rsh_t_shim {
	struct rsh_backend be;
	struct rsh_backend *sim;
	uint64_t cycles;
};

static int
rsh_t_shim_rd(struct rsh_backend *be, uint32_t off, uint32_t *v)
{
	struct rsh_t_shim *s = (struct rsh_t_shim *)be;

	s->cycles++;
	if (rsh_clock_is_virtual())
		rsh_clock_advance_ns(1000);
	return s->sim->ops->cfg_read(s->sim, off, v);
}

static int
rsh_t_shim_wr(struct rsh_backend *be, uint32_t off, uint32_t v)
{
	struct rsh_t_shim *s = (struct rsh_t_shim *)be;

	s->cycles++;
	if (rsh_clock_is_virtual())
		rsh_clock_advance_ns(1000);
	return s->sim->ops->cfg_write(s->sim, off, v);
}

static void
rsh_t_shim_close(struct rsh_backend *be)
{
	struct rsh_t_shim *s = (struct rsh_t_shim *)be;

	s->sim->ops->close(s->sim);
	free(s);
}

static const struct rsh_backend_ops rsh_t_shim_ops = {
	.cfg_read = rsh_t_shim_rd,
	.cfg_write = rsh_t_shim_wr,
	.close = rsh_t_shim_close,
};

/* One gateway on one emulated livefish function. */
struct rsh_t {
	struct rsh_backend *top;
	struct rsh_t_shim *shim;
	struct rsh_lf *lf;
	struct rsh_regmap map;
};

/* Open devstr (livefish=1 added) and stack the pci driver's gateway. */
static void
rsh_t_open(struct rsh_t *t, const char *devstr)
{
	const struct rsh_backend_driver *sim = rsh_backend_find("sim");
	const struct rsh_backend_driver *pci = rsh_backend_find("pci");
	char s[200];

	snprintf(s, sizeof(s), "%s,livefish=1", devstr);
	t->shim = calloc(1, sizeof(*t->shim));
	assert_non_null(t->shim);
	assert_int_equal(sim->probe(s, NULL, &t->shim->sim), 0);
	assert_true(t->shim->sim->cfg_only);
	t->shim->be = *t->shim->sim;
	t->shim->be.ops = &rsh_t_shim_ops;
	t->shim->be.lower = t->shim->sim;
	assert_int_equal(pci->stack(&t->shim->be, &t->top), 0);
	t->lf = rsh_lf_of(t->top);
	assert_non_null(t->lf);
	assert_true(t->top->livefish);
	assert_int_equal(rsh_regmap_init(&t->map, t->top->gen), 0);
}

static void
rsh_t_close(struct rsh_t *t)
{
	t->top->ops->close(t->top);
}

/* Config cycles the gateway issued so far. */
static uint64_t
rsh_t_cyc(const struct rsh_t *t)
{
	return t->top->stats.reads + t->top->stats.writes;
}

/* The emulator's counters; no protocol violation so far. */
static void
rsh_t_clean(const struct rsh_t *t, struct rsh_sim_stats *st)
{
	assert_int_equal(rsh_sim_stats_get(t->top, st), 0);
	assert_int_equal(st->lf_violations, 0);
	assert_int_equal(st->lf_early, 0);
	assert_int_equal(st->lf_bar_refused, 0);
}

/* Write then read SCRATCHPAD1; config cycles of each access. */
static void
rsh_t_rw(const char *dev, uint64_t want_wr, uint64_t want_rd)
{
	struct rsh_sim_stats st;
	struct rsh_t t;
	uint32_t sp1;
	uint64_t c0, c1;

	rsh_t_open(&t, dev);
	sp1 = t.map.off[RSH_SCRATCHPAD1];
	c0 = rsh_t_cyc(&t);
	t.top->ops->write64(t.top, sp1, 0x0123456789ABCDEFull);
	c1 = rsh_t_cyc(&t);
	assert_int_equal(t.top->ops->read64(t.top, sp1), 0x0123456789ABCDEFull);
	print_message("%s: write64 %lu, read64 %lu config cycles\n", dev,
		      (unsigned long)(c1 - c0),
		      (unsigned long)(rsh_t_cyc(&t) - c1));
	assert_int_equal(c1 - c0, want_wr);
	assert_int_equal(rsh_t_cyc(&t) - c1, want_rd);
	assert_int_equal(t.shim->cycles, rsh_t_cyc(&t));
	rsh_t_clean(&t, &st);
	rsh_t_close(&t);
}

/* rshim-pmd's sequence and the reference's, per generation: BF1 holds
 * the TRIO lock across the widget steps and skips reprogramming (62 vs
 * 98 and 46 vs 70); BF2 is the widget as the reference drives it; BF3
 * one MSN access either way. */
static void
test_lf_rw(void **state)
{
	(void)state;
	rsh_t_rw("sim:bf1", 46, 62);
	rsh_t_rw("sim:bf1,lfseq=ref", 70, 98);
	rsh_t_rw("sim:bf2", 14, 18);
	rsh_t_rw("sim:bf2,lfseq=ref", 14, 18);
	rsh_t_rw("sim:bf3", 20, 20);
	rsh_t_rw("sim:bf3,lfseq=ref", 20, 20);
}

/* 70 boot words in one burst: config cycles, words in the FIFO. */
static void
rsh_t_boot(const char *dev, uint64_t want, uint64_t want_drains)
{
	uint64_t w[70], c0;
	struct rsh_sim_stats st;
	struct rsh_t t;
	unsigned int i;

	for (i = 0; i < RTE_DIM(w); i++)
		w[i] = 0x1111111100000000ull * (i + 1) + i;
	rsh_t_open(&t, dev);
	c0 = rsh_t_cyc(&t);
	t.top->ops->write_fifo(t.top, t.map.off[RSH_BOOT_FIFO_DATA], w, 70);
	print_message("%s: 70 boot words, %lu config cycles\n", dev,
		      (unsigned long)(rsh_t_cyc(&t) - c0));
	assert_int_equal(rsh_t_cyc(&t) - c0, want);
	assert_int_equal(t.lf->st.drain_reads, want_drains);
	/* BOOT_CONTROL is eMMC at power-on: the words stay in the FIFO */
	assert_int_equal(t.top->ops->read64(t.top,
		t.map.off[RSH_BOOT_FIFO_COUNT]) & 0x3FF, 70);
	rsh_t_clean(&t, &st);
	assert_int_equal(st.lf_gw_ops, 70 + 1);
	rsh_t_close(&t);
}

/* The holding register path: BF2 4 cycles a word in either sequence;
 * BF1 8 a word plus a 12-cycle read every 7 words with the lock held
 * (the reference: 28 a word, its drain read does nothing); BF3 8 a word
 * in a burst (the reference: 20). */
static void
test_lf_boot_words(void **state)
{
	(void)state;
	rsh_t_boot("sim:bf2", 280, 0);
	rsh_t_boot("sim:bf2,lfseq=ref", 280, 0);
	rsh_t_boot("sim:bf1", 4 + 4 + 70 * 8 + 9 * 12 + 2, 9);
	rsh_t_boot("sim:bf1,lfseq=ref", 70 * 28, 0);
	rsh_t_boot("sim:bf3", 2 + 8 + 70 * 8 + 2, 0);
	rsh_t_boot("sim:bf3,lfseq=ref", 70 * 20, 0);
}

/* A busy/pending that lasts a few polls: more reads, same result. */
static void
test_lf_pending(void **state)
{
	const char *devs[] = { "sim:bf1,lfpend=3", "sim:bf2,lfpend=3",
			       "sim:bf3,lfpend=3" };
	struct rsh_sim_stats st;
	unsigned int i;
	struct rsh_t t;

	(void)state;
	for (i = 0; i < RTE_DIM(devs); i++) {
		rsh_t_open(&t, devs[i]);
		t.top->ops->write64(t.top, t.map.off[RSH_SCRATCHPAD2], 42);
		assert_int_equal(t.top->ops->read64(t.top,
			t.map.off[RSH_SCRATCHPAD2]), 42);
		assert_true(t.lf->st.busy_polls >= 3);
		rsh_t_clean(&t, &st);
		rsh_t_close(&t);
	}
}

/* A fault: the op fails at the 2 s deadline (virtual), the next ones
 * within 1 s fail at once without a config cycle, then it is retried. */
static void
rsh_t_stuck(const char *dev)
{
	uint64_t t0, c0;
	struct rsh_t t;
	uint32_t sp1;

	rsh_clock_virtual_set(true);
	rsh_t_open(&t, dev);
	sp1 = t.map.off[RSH_SCRATCHPAD1];
	t0 = rsh_now();
	assert_int_equal(t.top->ops->read64(t.top, sp1), RSH_BAD_ACCESS1);
	assert_int_equal(t.lf->st.timeouts, 1);
	assert_true(rsh_now() - t0 >= rsh_ms_cyc(RSH_LF_POLL_MS));
	assert_true(rsh_now() - t0 < rsh_ms_cyc(RSH_LF_POLL_MS + 100));
	c0 = rsh_t_cyc(&t);
	t.top->ops->write64(t.top, sp1, 1);
	assert_int_equal(t.top->ops->read64(t.top, sp1), RSH_BAD_ACCESS1);
	assert_int_equal(rsh_t_cyc(&t), c0);
	assert_int_equal(t.lf->st.failed_ops, 1 + 2);
	rsh_clock_advance_ns(1000000000ull);
	assert_int_equal(t.top->ops->read64(t.top, sp1), RSH_BAD_ACCESS1);
	assert_int_equal(t.lf->st.timeouts, 2);
	rsh_t_close(&t);
	rsh_clock_virtual_set(false);
}

static void
test_lf_stuck(void **state)
{
	(void)state;
	rsh_t_stuck("sim:bf1,lfstuck=lock");
	rsh_t_stuck("sim:bf1,lfstuck=busy");
	rsh_t_stuck("sim:bf2,lfstuck=lock");
	rsh_t_stuck("sim:bf2,lfstuck=busy");
	rsh_t_stuck("sim:bf3,lfstuck=lock");
	rsh_t_stuck("sim:bf3,lfstuck=busy");
}

/* BF3: after RESET_CONTROL the gateway is left alone for the quiet
 * window (the emulator counts any touch in lf_early), then the lock is
 * freed and accesses work; the core is told to wait that long. */
static void
test_lf_quiet(void **state)
{
	struct rsh_sim_stats st;
	struct rsh_t t;
	uint64_t c0;

	(void)state;
	rsh_clock_virtual_set(true);
	rsh_t_open(&t, "sim:bf3,lfquiet=300ms");
	assert_int_equal(t.top->reset_extra_ms, 300 + RSH_LF_RESET_EXTRA_MS);
	t.top->ops->write64(t.top, t.map.off[RSH_RESET_CONTROL], 0xCA710001ull);
	c0 = rsh_t_cyc(&t);
	assert_int_equal(t.top->ops->read64(t.top, t.map.off[RSH_SCRATCHPAD1]),
			 RSH_BAD_ACCESS1);
	assert_int_equal(rsh_t_cyc(&t), c0);
	assert_int_equal(t.lf->st.quiet_ops, 1);
	rsh_clock_advance_ns(301000000ull);
	t.top->ops->write64(t.top, t.map.off[RSH_SCRATCHPAD1], 7);
	assert_int_equal(t.top->ops->read64(t.top, t.map.off[RSH_SCRATCHPAD1]), 7);
	rsh_t_clean(&t, &st);
	assert_int_equal(st.resets, 1);
	rsh_t_close(&t);
	rsh_clock_virtual_set(false);
}

/* The emulator refuses BAR accesses of a livefish function. */
static void
test_lf_no_bar(void **state)
{
	const struct rsh_backend_driver *sim = rsh_backend_find("sim");
	struct rsh_sim_stats st;
	struct rsh_backend *be;

	(void)state;
	assert_int_equal(sim->probe("sim:bf2,livefish=1", NULL, &be), 0);
	assert_int_equal(be->ops->read64(be, 0x10C20), UINT64_MAX);
	assert_int_equal(rsh_sim_stats_get(be, &st), 0);
	assert_int_equal(st.lf_bar_refused, 1);
	be->ops->close(be);
}

/* The PCI backend of a livefish function (fake sysfs, direct mode):
 * config space only, through the sysfs config file at its offsets. */
static void
test_lf_pci_direct(void **state)
{
	struct rsh_fake_fn fn = { .bdf = "0000:05:00.0", .vendor = 0x15b3,
				  .device = 0x021c, .revision = 1,
				  .bar_size = 0, .group = -1 };
	const struct rsh_backend_driver *pci = rsh_backend_find("pci");
	struct rsh_open_opts o = { 0 };
	struct rsh_backend *be;
	char root[PATH_MAX];
	uint32_t v = 0;
	int fds;

	(void)state;
	assert_int_equal(rsh_fake_root_new(root), 0);
	assert_int_equal(rsh_fake_fn_add(root, &fn), 0);
	o.sysfs_root = root;
	fds = rsh_fake_open_fds();
	assert_int_equal(pci->probe("05:00.0,mapping=direct", &o, &be), 0);
	assert_true(be->cfg_only);
	assert_int_equal(be->gen, RSH_GEN_BF3);
	assert_int_equal(be->ops->cfg_write(be, RSH_LF_CFG_DATA, 0xA5A55A5A), 0);
	assert_int_equal(be->ops->cfg_read(be, RSH_LF_CFG_DATA, &v), 0);
	assert_int_equal(v, 0xA5A55A5A);
	assert_int_equal(rsh_fake_read64(root, fn.bdf, "config", 0x58) >> 32,
			 0xA5A55A5A);
	assert_int_equal(be->ops->cfg_read(be, 0, &v), 0);
	assert_int_equal(v, 0x021c15b3);
	be->ops->close(be);
	assert_int_equal(rsh_fake_open_fds(), fds);
	rsh_fake_root_free(root);
}

/* BF3: 32-bit accesses through the MSN gateway's 32-bit width (18
 * config cycles each: DATA_LOW only); BF1/BF2 have none (the core takes
 * the half of a 64-bit read, refuses a 32-bit write); misc OPN_STR on a
 * livefish BF3 goes through them. */
static void
test_lf_32bit(void **state)
{
	uint32_t yu = 0x400000 + 0x9BDC; /* the YU boot record's OPN, §1.5 */
	struct rsh_sim_stats st;
	struct rsh_dev *dev;
	struct rsh_t t;
	char buf[4096];
	uint64_t c0;

	(void)state;
	rsh_t_open(&t, "sim:bf3");
	assert_non_null(t.top->ops->read32);
	c0 = rsh_t_cyc(&t);
	t.top->ops->write32(t.top, yu, 0x4D424633);
	assert_int_equal(rsh_t_cyc(&t) - c0, 18);
	c0 = rsh_t_cyc(&t);
	assert_int_equal(t.top->ops->read32(t.top, yu), 0x4D424633);
	assert_int_equal(rsh_t_cyc(&t) - c0, 18);
	rsh_t_clean(&t, &st);
	rsh_t_close(&t);
	rsh_t_open(&t, "sim:bf2");
	assert_null(t.top->ops->read32);
	assert_null(t.top->ops->write32);
	rsh_t_close(&t);
	assert_int_equal(rsh_dev_open("sim:bf3,livefish=1,lfquiet=1ms", NULL, &dev), 0);
	assert_int_equal(rsh_misc_write(dev, "OPN_STR 900-LIVEFISH-1"), 0);
	assert_true(rsh_misc_read(dev, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "900-LIVEFISH-1"));
	rsh_dev_close(dev);
}

/* The service's policy (hardware-notes §6.4): with livefish_drop a
 * livefish function opens dropped; misc FORCE_CMD 1 activates it; a
 * function that is not livefish is not affected; naming it (no option)
 * opens it active. */
static void
test_lf_policy(void **state)
{
	struct rsh_open_opts o = { .livefish_drop = true };
	struct rsh_dev_info inf;
	struct rsh_own_info oi;
	struct rsh_dev *dev;
	uint64_t v;

	(void)state;
	assert_int_equal(rsh_dev_open("sim:bf2,livefish=1", &o, &dev), 0);
	assert_int_equal(rsh_dev_get_info(dev, &inf), 0);
	assert_true(inf.livefish);
	assert_int_equal(inf.gen, RSH_GEN_BF2);
	rsh_dev_own_info(dev, &oi);
	assert_true(oi.dropped);
	assert_int_equal(rsh_misc_write(dev, "FORCE_CMD 1"), 0);
	rsh_dev_own_info(dev, &oi);
	assert_false(oi.dropped);
	assert_int_equal(rsh_dev_reg_read(dev, RSH_SCRATCHPAD1, &v), 0);
	assert_int_equal(v, 0x0000005089836482ull); /* our keepalive */
	rsh_dev_close(dev);
	assert_int_equal(rsh_dev_open("sim:bf2", &o, &dev), 0);
	rsh_dev_own_info(dev, &oi);
	assert_false(oi.dropped);
	assert_int_equal(rsh_dev_get_info(dev, &inf), 0);
	assert_false(inf.livefish);
	rsh_dev_close(dev);
	assert_int_equal(rsh_dev_open("sim:bf3,livefish=1,lock=1", NULL, &dev), 0);
	rsh_dev_own_info(dev, &oi);
	assert_false(oi.dropped);
	assert_false(oi.locked); /* secure NIC mode: PCIe backend only */
	rsh_dev_close(dev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lf_rw),
		cmocka_unit_test(test_lf_boot_words),
		cmocka_unit_test(test_lf_pending),
		cmocka_unit_test(test_lf_stuck),
		cmocka_unit_test(test_lf_quiet),
		cmocka_unit_test(test_lf_no_bar),
		cmocka_unit_test(test_lf_pci_direct),
		cmocka_unit_test(test_lf_policy),
		cmocka_unit_test(test_lf_32bit),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
