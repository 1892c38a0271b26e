/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the emulated rshim function (drivers/sim), register side:
 * device strings and arguments, register decode through the core's table,
 * boot FIFO depth and empty reads, reset key, semaphore, scratch buffer,
 * TM FIFO pair. Every case opens its own device through the "sim" backend
 * driver. The boot-ROM model and faults are in test_sim_boot.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>

#include "rsh_backend.h"
#include "rsh_regs.h"
#include "rsh_sim.h"
#include "rsh_sim_priv.h"
#include "rsh_t_sim.h"
#include "rsh_test_eal.h"

/* Every option parsed into rsh_sim_cfg; devices carry the identity. */
static void
test_args_good(void **state)
{
	struct rsh_sim_cfg cfg;
	struct rsh_t_sim t;

	(void)state;
	assert_int_equal(rsh_sim_args_parse("sim:bf3,drain=200M,stall=2s@64M,"
		"stall=1ms@1K,gone@1G,resetwin=3ms,resetdelay=7ms,rev=2,"
		"bootctl=0", &cfg), 0);
	assert_int_equal(cfg.gen, RSH_GEN_BF3);
	assert_int_equal(cfg.drain_bps, 200000000ull);
	assert_int_equal(cfg.n_stalls, 2);
	assert_int_equal(cfg.stall[0].offset, 1024);       /* sorted */
	assert_int_equal(cfg.stall[0].dur_ns, 1000000);
	assert_int_equal(cfg.stall[1].offset, 64ull << 20);
	assert_int_equal(cfg.stall[1].dur_ns, 2000000000ull);
	assert_int_equal(cfg.gone_offset, 1ull << 30);
	assert_int_equal(cfg.resetwin_ns, 3000000);
	assert_int_equal(cfg.resetdelay_ns, 7000000);
	assert_int_equal(cfg.revision, 2);
	assert_int_equal(cfg.bootctl, 0);
	assert_int_equal(rsh_sim_args_parse("sim:bf1,drain=5K,resetwin=1m,"
		"resetdelay=250us", &cfg), 0);
	assert_int_equal(cfg.gen, RSH_GEN_BF1);
	assert_int_equal(cfg.drain_bps, 5000);
	assert_int_equal(cfg.resetwin_ns, 60000000000ull);
	assert_int_equal(cfg.resetdelay_ns, 250000);
	assert_int_equal(cfg.gone_offset, RSH_SIM_NO_OFFSET);
	assert_true(cfg.arm.ctrl_ignore); /* the public peers never answer */
	assert_int_equal(cfg.owner, RSH_SIM_OWNER_NONE);
	assert_int_equal(rsh_sim_args_parse("sim:bf2,gone=tm:64K,"
		"armreset@time:250ms,owner=bmc-request,lock=1,rst=nic:45ms@2s,"
		"crash=exception,shared=t-1,ctrl=reply,oversize=3", &cfg), 0);
	assert_int_equal(cfg.gone.kind, RSH_SIM_TRIG_TM);
	assert_int_equal(cfg.gone.at, 65536);
	assert_int_equal(cfg.gone_offset, RSH_SIM_NO_OFFSET);
	assert_int_equal(cfg.armreset.kind, RSH_SIM_TRIG_TIME);
	assert_int_equal(cfg.armreset.at, 250000000);
	assert_int_equal(cfg.owner, RSH_SIM_OWNER_BMC_REQ);
	assert_true(cfg.locked);
	assert_int_equal(cfg.rst.type, 2);
	assert_int_equal(cfg.rst.downtime, 5); /* 45 ms rounded up to 10 ms units */
	assert_int_equal(cfg.rst.at_ns, 2000000000ull);
	assert_int_equal(cfg.crash, 2);
	assert_string_equal(cfg.shared, "t-1");
	assert_false(cfg.arm.ctrl_ignore);
	assert_int_equal(cfg.arm.oversize_at, 3);

	rsh_t_sim_open(&t, "sim:bf3,resetdelay=7ms,rev=2");
	assert_string_equal(t.be->name, "sim:bf3,resetdelay=7ms,rev=2");
	assert_int_equal(t.be->gen, RSH_GEN_BF3);
	assert_int_equal(t.be->revision, 2);
	assert_int_equal(t.be->bar_size, RSH_BAR0_SIZE_BF3);
	assert_int_equal(t.be->reset_delay_ms, 7);
	rsh_t_sim_close(&t);
	rsh_t_sim_open(&t, "sim:bf2");
	assert_int_equal(t.be->bar_size, RSH_BAR0_SIZE_BF12);
	assert_int_equal(t.be->revision, 1);
	assert_true(t.be->reset_delay_ms > 0 && t.be->reset_delay_ms < 100);
	rsh_t_sim_close(&t);
}

/* Bad device strings: -EINVAL and a one-line, specific message. */
static void
test_args_bad(void **state)
{
	static const struct { const char *s; const char *want; } cases[] = {
		{ "sim:bf4", "sim:bf4: unknown generation 'bf4' (valid: bf1, bf2, bf3)" },
		{ "sim:", "unknown generation ''" },
		{ "sim:bf3,drian=1M", "sim:bf3,drian=1M: unknown option 'drian'; valid: drain, stall, gone, armreset, return, resetwin," },
		{ "sim:bf3,drain=fast", "sim:bf3,drain=fast: bad value 'fast' for drain (expected drain=<rate>: boot-ROM consumer speed" },
		{ "sim:bf3,drain=1Q", "bad value '1Q' for drain" },
		{ "sim:bf3,drain=-5", "bad value '-5' for drain" },
		{ "sim:bf3,stall=2s", "bad value '2s' for stall (expected stall=<dur>@<off>" },
		{ "sim:bf3,stall=2x@1M", "bad value '2x@1M' for stall" },
		{ "sim:bf3,stall=1s@5Q", "bad value '1s@5Q' for stall" },
		{ "sim:bf3,resetwin=5", "bad value '5' for resetwin (expected resetwin=<dur>" },
		{ "sim:bf3,gone", "option 'gone' needs a value: gone@<trigger>" },
		{ "sim:bf3,gone@", "option 'gone' needs a value: gone@<trigger>" },
		{ "sim:bf3,gone@tm:x", "bad value 'tm:x' for gone" },
		{ "sim:bf3,gone@time:5", "bad value 'time:5' for gone" },
		{ "sim:bf3,owner=cat", "bad value 'cat' for owner" },
		{ "sim:bf3,rst=dpu", "bad value 'dpu' for rst" },
		{ "sim:bf3,rst=cpu@1s", "bad value 'cpu@1s' for rst" },
		{ "sim:bf3,crash=oops", "bad value 'oops' for crash" },
		{ "sim:bf3,shared=a/b", "bad value 'a/b' for shared" },
		{ "sim:bf3,,drain=1", "unknown option ''" },
		{ "sim:bf3,rev=300", "bad value '300' for rev" },
		{ "sim:bf3,bootctl=4", "bad value '4' for bootctl" },
		{ "sim:bf3,drain=1M,drain=2M", "option 'drain' given twice" },
		{ "sim:bf3,stall=1s@1,stall=1s@2,stall=1s@3,stall=1s@4,stall=1s@5,"
		  "stall=1s@6,stall=1s@7,stall=1s@8,stall=1s@9", "too many stall= options (at most 8)" },
		{ "pci:0000:03:00.2", "not an emulator device string" },
	};
	const struct rsh_backend_driver *drv = rsh_backend_find("sim");
	struct rsh_backend *be = NULL;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		rsh_err_set("%s", "");
		assert_int_equal(drv->probe(cases[i].s, NULL, &be), -EINVAL);
		if (strstr(rsh_last_error(), cases[i].want) == NULL)
			fail_msg("'%s': got '%s', want '%s'", cases[i].s,
				 rsh_last_error(), cases[i].want);
		assert_null(strchr(rsh_last_error(), '\n'));
	}
	assert_null(be);
}

/* match() and scan(): one emulated device per generation. */
static void
test_scan_match(void **state)
{
	const struct rsh_backend_driver *drv = rsh_backend_find("sim");
	struct rsh_dev_info info[4];
	unsigned int i;

	(void)state;
	assert_true(drv->match("sim:bf3,drain=1M"));
	assert_false(drv->match("0000:03:00.2"));
	assert_false(drv->match("simbf3"));
	assert_int_equal(drv->scan(NULL, info, 4), 3);
	for (i = 0; i < 3; i++) {
		char want[16];

		snprintf(want, sizeof(want), "sim:bf%u", i + 1);
		assert_string_equal(info[i].name, want);
		assert_string_equal(info[i].driver, "sim");
		assert_int_equal(info[i].gen, (int)(i + 1));
		assert_true(info[i].supported);
		/* no host side: no kernel driver, IOMMU group, NUMA node, link */
		assert_string_equal(info[i].kdriver, "");
		assert_int_equal(info[i].iommu_group, -1);
		assert_int_equal(info[i].numa_node, -1);
		assert_int_equal(info[i].link.max_speed_mts, 0);
		assert_false(info[i].livefish);
	}
	assert_int_equal(info[2].bar_size, RSH_BAR0_SIZE_BF3);
	assert_int_equal(drv->scan(NULL, info, 1), 3);
}

/* BF2: the boot FIFO count sits at BAR 0x10488, data at 0x10408 (§1.3). */
static void
test_decode_bf2(void **state)
{
	uint64_t w[5] = { 1, 2, 3, 4, 5 };
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2");
	assert_int_equal(t.map.off[RSH_BOOT_FIFO_COUNT], 0x10488);
	t.be->ops->write_fifo(t.be, 0x10408, w, 5); /* eMMC boot: not read */
	assert_int_equal(t.be->ops->read64(t.be, 0x10488), 5);
	assert_int_equal(t.be->ops->read64(t.be, 0x10408), 1); /* pop */
	assert_int_equal(t.be->ops->read64(t.be, 0x10488), 4);
	assert_int_equal(rsh_t_rd(&t, RSH_FABRIC_DIM), 0x22);
	/* plain storage elsewhere, reads of never-written registers are 0 */
	assert_int_equal(t.be->ops->read64(t.be, 0x30008), 0);
	t.be->ops->write64(t.be, 0x30008, 0x1234);
	assert_int_equal(t.be->ops->read64(t.be, 0x30008), 0x1234);
	/* outside the BAR / unaligned: all-ones, counted */
	assert_int_equal(t.be->ops->read64(t.be, RSH_BAR0_SIZE_BF12), RSH_ALL_ONES);
	assert_int_equal(t.be->ops->read64(t.be, 0x10404), RSH_ALL_ONES);
	t.be->ops->write64(t.be, 0x10409, 7);
	assert_int_equal(rsh_t_stats(&t).bad_accesses, 3);
	assert_int_equal(t.be->stats.reads, 8);
	assert_int_equal(t.be->stats.writes, 7);
	rsh_t_sim_close(&t);
}

/* BF3 offsets, FABRIC_DIM, UPTIME, the watchdog write (§1.3, §1.5). */
static void
test_decode_bf3(void **state)
{
	uint64_t u1, u2, por;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3");
	assert_int_equal(t.map.off[RSH_BOOT_FIFO_COUNT], 0x1000);
	t.be->ops->write64(t.be, 0x2000, 9);
	assert_int_equal(t.be->ops->read64(t.be, 0x1000), 1);
	assert_int_equal(rsh_t_rd(&t, RSH_FABRIC_DIM), 0x33);
	u1 = rsh_t_rd(&t, RSH_UPTIME);
	rsh_t_wait_ms(2);
	u2 = rsh_t_rd(&t, RSH_UPTIME);
	por = rsh_t_rd(&t, RSH_UPTIME_POR);
	/* 200 MHz: 2 ms is at least 400000 cycles */
	assert_true(u2 - u1 >= 400000 && u2 - u1 < 200000000);
	assert_true(por >= u2);
	rsh_t_wr(&t, RSH_ARM_WDG_CONTROL_WCS, 0);
	assert_int_equal(t.map.off[RSH_ARM_WDG_CONTROL_WCS], 0x40000);
	assert_int_equal(rsh_t_stats(&t).wdog_writes, 1);
	rsh_t_wr(&t, RSH_ARM_WDG_CONTROL_WCS, 0x55);
	assert_int_equal(rsh_t_stats(&t).wdog_writes, 2);
	assert_int_equal(rsh_t_stats(&t).wdog_last, 0x55);
	rsh_t_sim_close(&t);
}

/* Depth and overflow with a consumer that does not read (eMMC mode). */
static void
rsh_t_check_depth(const char *devstr, unsigned int depth)
{
	static uint64_t w[1100];
	struct rsh_t_sim t;
	unsigned int i;

	for (i = 0; i < RTE_DIM(w); i++)
		w[i] = 0x1000 + i;
	rsh_t_sim_open(&t, devstr);
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, 1100);
	assert_int_equal(rsh_t_stats(&t).boot_overflows, 1100 - depth);
	/* every word the host wrote is counted, kept or dropped */
	assert_int_equal(rsh_t_stats(&t).host_boot_words, 1100);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), depth & 0x3FF);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_DATA), 0x1000);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), depth - 1);
	assert_int_equal(rsh_t_stats(&t).host_count_reads, 2);
	t.be->ops->read_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, 2);
	assert_int_equal(w[0], 0x1001);
	assert_int_equal(w[1], 0x1002);
	rsh_t_wr(&t, RSH_BOOT_FIFO_DATA, 0xAA);
	rsh_t_wr(&t, RSH_BOOT_FIFO_DATA, 0xBB);
	rsh_t_wr(&t, RSH_BOOT_FIFO_DATA, 0xCC);
	rsh_t_wr(&t, RSH_BOOT_FIFO_DATA, 0xDD); /* full again: dropped */
	assert_int_equal(rsh_t_stats(&t).boot_overflows, 1100 - depth + 1);
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, 0);
	rsh_t_sim_close(&t);
}

/* BF2: 512 words. */
static void
test_fifo_depth_bf2(void **state)
{
	(void)state;
	rsh_t_check_depth("sim:bf2", 512);
}

/* BF3: 1024 words; a full FIFO reads 0 in the 10-bit count field. */
static void
test_fifo_depth_bf3(void **state)
{
	(void)state;
	rsh_t_check_depth("sim:bf3", 1024);
}

/* Empty DATA read: 0, no state change. */
static void
test_fifo_empty_read(void **state)
{
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2");
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_DATA), 0);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 0);
	rsh_t_wr(&t, RSH_BOOT_FIFO_DATA, 77);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_DATA), 77);
	rsh_t_sim_close(&t);
}

/* The reset key: bad reads for the window, FIFOs cleared, high bits kept. */
static void
test_reset_key(void **state)
{
	uint64_t w[10] = { 0 }, v;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,resetwin=30ms");
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, 10);
	t.be->ops->write_fifo(t.be, t.map.off[RSH_TM_HOST_TO_TILE_DATA], w, 4);
	rsh_t_wr(&t, RSH_SCRATCHPAD2, 0x77);
	rsh_t_wr(&t, RSH_RESET_CONTROL, 5ull << 40);
	rsh_t_wr(&t, RSH_BOOT_CONTROL, 0);
	rsh_t_wr(&t, RSH_RESET_CONTROL, 5ull << 40 | RSH_RESET_CONTROL__KEY);
	assert_int_equal(rsh_t_rd(&t, RSH_FABRIC_DIM), RSH_BAD_ACCESS1);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), RSH_BAD_ACCESS1);
	rsh_t_wr(&t, RSH_SCRATCHPAD2, 0x99); /* ignored */
	assert_int_equal(rsh_t_stats(&t).resets, 1);
	assert_int_equal(rsh_t_stats(&t).reset_reads, 2);
	assert_int_equal(rsh_t_stats(&t).ignored_writes, 1);
	rsh_t_wait_ms(35);
	assert_int_equal(rsh_t_rd(&t, RSH_FABRIC_DIM), 0x33);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 0);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 0);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD2), 0x77);
	assert_int_equal(rsh_t_rd(&t, RSH_RESET_CONTROL), 5ull << 40);
	v = rsh_t_rd(&t, RSH_SCRATCHPAD3);
	assert_int_equal(v & 0xFF, RSH_SIM_PROG_ROM);
	assert_int_equal(rsh_t_stats(&t).progress, RSH_SIM_PROG_ROM);
	assert_true(rsh_t_rd(&t, RSH_UPTIME) < rsh_t_rd(&t, RSH_UPTIME_POR));
	/* reset with BOOT_CONTROL=1: eMMC boot, FIFO never read */
	rsh_t_wr(&t, RSH_BOOT_CONTROL, 1);
	rsh_t_wr(&t, RSH_RESET_CONTROL, RSH_RESET_CONTROL__KEY);
	rsh_t_wait_ms(35);
	assert_int_equal(rsh_t_stats(&t).progress, RSH_SIM_PROG_EMMC);
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, 10);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 10);
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, 0);
	rsh_t_sim_close(&t);
}

/* DISABLE (bit 32) set: the key does nothing but flag REQ_PND. */
static void
test_reset_disable(void **state)
{
	uint64_t w = 1, v;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2,resetwin=30ms");
	rsh_t_wr(&t, RSH_BOOT_FIFO_DATA, w);
	rsh_t_wr(&t, RSH_RESET_CONTROL, RSH_RESET_CONTROL__DISABLE_MASK);
	v = rsh_t_rd(&t, RSH_RESET_CONTROL);
	rsh_t_wr(&t, RSH_RESET_CONTROL, (v & ~RSH_RESET_CONTROL__KEY_MASK) |
		  RSH_RESET_CONTROL__KEY);
	assert_int_equal(rsh_t_rd(&t, RSH_FABRIC_DIM), 0x22);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 1);
	assert_int_equal(rsh_t_stats(&t).resets, 0);
	v = rsh_t_rd(&t, RSH_RESET_CONTROL);
	assert_true(v & RSH_RESET_CONTROL__DISABLE_MASK);
	assert_true(v & RSH_RESET_CONTROL__REQ_PND_MASK);
	assert_int_equal(v & RSH_RESET_CONTROL__KEY_MASK, 0);
	rsh_t_sim_close(&t);
}

/* SEMAPHORE0: the first read acquires, a write of 0 releases. */
static void
test_semaphore(void **state)
{
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3");
	assert_int_equal(t.map.off[RSH_SEMAPHORE0], 0xF10);
	assert_int_equal(rsh_t_rd(&t, RSH_SEMAPHORE0), 0); /* acquired */
	assert_int_equal(rsh_t_rd(&t, RSH_SEMAPHORE0), 1); /* held */
	assert_int_equal(rsh_t_rd(&t, RSH_SEMAPHORE0), 1);
	rsh_t_wr(&t, RSH_SEMAPHORE0, 0);
	assert_int_equal(rsh_t_rd(&t, RSH_SEMAPHORE0), 0);
	rsh_t_sim_close(&t);
}

/* Scratch buffer: CTL sets the pointer, DAT auto-increments (§5.6). */
static void
test_scratch_buf(void **state)
{
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2");
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCH_BUF_CTL), 0);
	rsh_t_wr(&t, RSH_SCRATCH_BUF_DAT, 0x11);
	rsh_t_wr(&t, RSH_SCRATCH_BUF_DAT, 0x22);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCH_BUF_CTL), 2);
	rsh_t_wr(&t, RSH_SCRATCH_BUF_CTL, 0);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCH_BUF_DAT), 0x11);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCH_BUF_DAT), 0x22);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCH_BUF_CTL), 2);
	rsh_t_wr(&t, RSH_SCRATCH_BUF_CTL, 0x1FF); /* bits 6:0 */
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCH_BUF_CTL), 0x7F);
	rsh_t_sim_close(&t);
}

/* TM FIFO pair: drop on full, all-ones on empty, CTL fields (§D1.2). */
static void
test_tmfifo(void **state)
{
	static uint64_t w[300];
	uint64_t ctl, in[3] = { 7, 8, 9 }, out[5];
	struct rsh_sim *sim;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3");
	sim = (struct rsh_sim *)t.be;
	t.be->ops->write_fifo(t.be, t.map.off[RSH_TM_HOST_TO_TILE_DATA], w, 300);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 256);
	assert_int_equal(rsh_t_stats(&t).htt_overflows, 44);
	rsh_t_wr(&t, RSH_TM_HOST_TO_TILE_DATA, 1);
	assert_int_equal(rsh_t_stats(&t).htt_overflows, 45);
	assert_int_equal(rsh_sim_htt_pop(sim, out, 5), 5);
	assert_int_equal(rsh_sim_htt_count(sim), 251);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_STS), 0);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_DATA), RSH_ALL_ONES);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_STS), 0);
	assert_int_equal(rsh_t_stats(&t).tth_empty_reads, 1);
	assert_int_equal(rsh_sim_tth_push(sim, in, 3), 3);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_STS), 3);
	t.be->ops->read_fifo(t.be, t.map.off[RSH_TM_TILE_TO_HOST_DATA], out, 5);
	assert_int_equal(out[0], 7);
	assert_int_equal(out[2], 9);
	assert_int_equal(out[3], RSH_ALL_ONES);
	assert_int_equal(rsh_t_stats(&t).tth_empty_reads, 3);
	ctl = rsh_t_rd(&t, RSH_TM_TILE_TO_HOST_CTL);
	assert_int_equal(ctl, 256ull << 32 | 128 << 8 | 128);
	rsh_t_wr(&t, RSH_TM_HOST_TO_TILE_CTL, 0x0100 | 5ull << 32);
	ctl = rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_CTL);
	assert_int_equal(ctl, 256ull << 32 | 0x0100);
	rsh_t_sim_close(&t);
}

/* stats of something that is not a sim backend. */
static void
test_stats_not_sim(void **state)
{
	static const struct rsh_backend_ops other = { 0 };
	struct rsh_backend be = { .ops = &other };
	struct rsh_sim_stats st;
	uint8_t buf[8];

	(void)state;
	assert_int_equal(rsh_sim_stats_get(&be, &st), -EINVAL);
	assert_int_equal(rsh_sim_stats_get(NULL, &st), -EINVAL);
	assert_int_equal(rsh_sim_bootfifo_read(&be, buf, sizeof(buf)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_good),
		cmocka_unit_test(test_args_bad),
		cmocka_unit_test(test_scan_match),
		cmocka_unit_test(test_decode_bf2),
		cmocka_unit_test(test_decode_bf3),
		cmocka_unit_test(test_fifo_depth_bf2),
		cmocka_unit_test(test_fifo_depth_bf3),
		cmocka_unit_test(test_fifo_empty_read),
		cmocka_unit_test(test_reset_key),
		cmocka_unit_test(test_reset_disable),
		cmocka_unit_test(test_semaphore),
		cmocka_unit_test(test_scratch_buf),
		cmocka_unit_test(test_tmfifo),
		cmocka_unit_test(test_stats_not_sim),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
