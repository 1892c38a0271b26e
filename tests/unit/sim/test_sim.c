/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the emulated rshim function (drivers/sim): device strings,
 * register decode through the core's table, boot FIFO, reset key,
 * semaphore, scratch log, TM FIFO pair, boot-ROM model and faults.
 * Every case opens its own device through the "sim" backend driver.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>

#include "rsh_backend.h"
#include "rsh_bfb.h"
#include "rsh_regs.h"
#include "rsh_sim.h"
#include "rsh_sim_priv.h"

/* One open device with its register map. */
struct tsim {
	struct rsh_backend *be;
	struct rsh_regmap map;
};

/* Open a device string through the registered "sim" driver. */
static void
tsim_open(struct tsim *t, const char *devstr)
{
	const struct rsh_backend_driver *drv = rsh_backend_find("sim");

	assert_non_null(drv);
	assert_int_equal(drv->probe(devstr, NULL, &t->be), 0);
	assert_int_equal(rsh_regmap_init(&t->map, t->be->gen), 0);
}

static void
tsim_close(struct tsim *t)
{
	t->be->ops->close(t->be);
}

static uint64_t
rd(struct tsim *t, enum rsh_reg r)
{
	return t->be->ops->read64(t->be, t->map.off[r]);
}

static void
wr(struct tsim *t, enum rsh_reg r, uint64_t v)
{
	t->be->ops->write64(t->be, t->map.off[r], v);
}

static struct rsh_sim_stats
stats(struct tsim *t)
{
	struct rsh_sim_stats st;

	assert_int_equal(rsh_sim_stats_get(t->be, &st), 0);
	return st;
}

/* Busy wait (virtual time is the TSC). */
static void
wait_ms(unsigned int ms)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;

	while (rte_get_timer_cycles() < end)
		;
}

/* The driver's boot-open: BOOT_CONTROL=0, RMW reset key, wait it out. */
static void
reset_for_fifo_boot(struct tsim *t)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz();
	uint64_t v;

	wr(t, RSH_BOOT_CONTROL, RSH_BOOT_CONTROL_NONE);
	v = rd(t, RSH_RESET_CONTROL);
	wr(t, RSH_RESET_CONTROL, (v & ~RSH_RESET_CONTROL__KEY_MASK) |
		  RSH_RESET_CONTROL__KEY);
	while (rsh_reg_val_is_bad(rd(t, RSH_FABRIC_DIM)))
		assert_true(rte_get_timer_cycles() < deadline);
}

/* Credit-based push (§3.3) of n words, giving up after ms. */
static uint64_t
push(struct tsim *t, const uint64_t *w, size_t n, unsigned int ms)
{
	uint64_t deadline = rte_get_timer_cycles() +
			    rte_get_timer_hz() * ms / 1000;
	size_t done = 0;

	while (done < n && rte_get_timer_cycles() < deadline) {
		uint64_t c = rd(t, RSH_BOOT_FIFO_COUNT);
		unsigned int room;

		if (rsh_reg_val_is_bad(c))
			break;
		room = RSH_BOOT_FIFO_SIZE - (unsigned int)c - RSH_BOOT_FIFO_RESERVE;
		if (c >= RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE)
			continue;
		room = RTE_MIN((size_t)room, n - done);
		t->be->ops->write_fifo(t->be, t->map.off[RSH_BOOT_FIFO_DATA],
				       w + done, room);
		done += room;
	}
	return done;
}

/* A BFB of three images plus trailing bytes, padded to whole words. */
struct tbfb {
	uint64_t *w;
	size_t words;
	size_t bfb_len;   /* bytes of images */
	size_t trail_len; /* trailing bytes (unpadded) */
	uint64_t img_off[3];
};

static void
tbfb_make(struct tbfb *b, size_t big, size_t trail)
{
	static uint8_t d0[1001], d2[77];
	uint8_t *d1 = malloc(big);
	struct rsh_bfb_wimage im[3] = {
		{ .id = 1, .data = d0, .len = sizeof(d0) },
		{ .id = 5, .data = d1, .len = (uint32_t)big },
		{ .id = 63, .data = d2, .len = sizeof(d2) },
	};
	size_t i, total;
	uint8_t *p;
	long n;

	assert_non_null(d1);
	srand(42);
	for (i = 0; i < sizeof(d0); i++)
		d0[i] = (uint8_t)rand();
	for (i = 0; i < big; i++)
		d1[i] = (uint8_t)rand();
	for (i = 0; i < sizeof(d2); i++)
		d2[i] = (uint8_t)rand();
	b->bfb_len = rsh_bfb_size(im, 3);
	b->trail_len = trail;
	total = RTE_ALIGN_CEIL(b->bfb_len + trail, 8);
	b->w = calloc(total / 8, 8);
	assert_non_null(b->w);
	p = (uint8_t *)b->w;
	n = rsh_bfb_write(im, 3, p, b->bfb_len);
	assert_int_equal(n, (long)b->bfb_len);
	for (i = 0; i < trail; i++)
		p[b->bfb_len + i] = (uint8_t)(i * 7 + 3);
	b->words = total / 8;
	b->img_off[0] = 0;
	b->img_off[1] = RSH_BFB_HDR_LEN + RTE_ALIGN_CEIL(sizeof(d0), 8);
	b->img_off[2] = b->img_off[1] + RSH_BFB_HDR_LEN + RTE_ALIGN_CEIL(big, 8);
	free(d1);
}

/* Read the scratch log like the host (§5.6); returns the words read. */
static unsigned int
log_read(struct tsim *t, uint64_t *w, unsigned int max)
{
	unsigned int idx, i;

	assert_int_equal(rd(t, RSH_SEMAPHORE0), 0);
	idx = (unsigned int)(rd(t, RSH_SCRATCH_BUF_CTL) & 0x7F);
	wr(t, RSH_SCRATCH_BUF_CTL, 0);
	for (i = 0; i < idx && i < max; i++)
		w[i] = rd(t, RSH_SCRATCH_BUF_DAT);
	wr(t, RSH_SCRATCH_BUF_CTL, idx);
	wr(t, RSH_SEMAPHORE0, 0);
	return i;
}

/* Index of the record whose header is hdr (exact word), or -1. */
static int
log_find(const uint64_t *w, unsigned int n, uint64_t hdr)
{
	unsigned int i = 0;

	while (i < n) {
		if (w[i] == hdr)
			return (int)i;
		i += 1 + ((w[i] >> 48) & 0x7F);
	}
	return -1;
}

/* ---------------------------------------------------------------- */

static void
test_args_good(void **state)
{
	struct rsh_sim_cfg cfg;
	struct tsim t;

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

	tsim_open(&t, "sim:bf3,resetdelay=7ms,rev=2");
	assert_string_equal(t.be->name, "sim:bf3,resetdelay=7ms,rev=2");
	assert_int_equal(t.be->gen, RSH_GEN_BF3);
	assert_int_equal(t.be->revision, 2);
	assert_int_equal(t.be->bar_size, RSH_BAR0_SIZE_BF3);
	assert_int_equal(t.be->reset_delay_ms, 7);
	tsim_close(&t);
	tsim_open(&t, "sim:bf2");
	assert_int_equal(t.be->bar_size, RSH_BAR0_SIZE_BF12);
	assert_int_equal(t.be->revision, 1);
	assert_true(t.be->reset_delay_ms > 0 && t.be->reset_delay_ms < 100);
	tsim_close(&t);
}

static void
test_args_bad(void **state)
{
	static const struct { const char *s; const char *want; } cases[] = {
		{ "sim:bf4", "sim:bf4: unknown generation 'bf4' (valid: bf1, bf2, bf3)" },
		{ "sim:", "unknown generation ''" },
		{ "sim:bf3,drian=1M", "sim:bf3,drian=1M: unknown option 'drian' (valid: drain=<rate>, stall=<dur>@<offset>, gone@<offset>, resetwin=<dur>, resetdelay=<dur>" },
		{ "sim:bf3,drain=fast", "sim:bf3,drain=fast: bad value 'fast' for drain (expected <rate>" },
		{ "sim:bf3,drain=1T", "bad value '1T' for drain" },
		{ "sim:bf3,drain=-5", "bad value '-5' for drain" },
		{ "sim:bf3,stall=2s", "bad value '2s' for stall (expected <dur>@<offset>" },
		{ "sim:bf3,stall=2x@1M", "bad value '2x@1M' for stall" },
		{ "sim:bf3,stall=1s@5Q", "bad value '1s@5Q' for stall" },
		{ "sim:bf3,resetwin=5", "bad value '5' for resetwin (expected <dur>: a number with ns, us, ms, s or m" },
		{ "sim:bf3,gone=1M", "option 'gone' needs a value: gone@<offset>" },
		{ "sim:bf3,gone@", "bad value '' for gone" },
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
		assert_non_null(strstr(info[i].detail, "drain="));
	}
	assert_int_equal(info[2].bar_size, RSH_BAR0_SIZE_BF3);
	assert_int_equal(drv->scan(NULL, info, 1), 3);
}

/* BF2: the boot FIFO count sits at BAR 0x10488, data at 0x10408 (§1.3). */
static void
test_decode_bf2(void **state)
{
	uint64_t w[5] = { 1, 2, 3, 4, 5 };
	struct tsim t;

	(void)state;
	tsim_open(&t, "sim:bf2");
	assert_int_equal(t.map.off[RSH_BOOT_FIFO_COUNT], 0x10488);
	t.be->ops->write_fifo(t.be, 0x10408, w, 5); /* eMMC boot: not read */
	assert_int_equal(t.be->ops->read64(t.be, 0x10488), 5);
	assert_int_equal(t.be->ops->read64(t.be, 0x10408), 1); /* pop */
	assert_int_equal(t.be->ops->read64(t.be, 0x10488), 4);
	assert_int_equal(rd(&t, RSH_FABRIC_DIM), 0x22);
	/* plain storage elsewhere, reads of never-written registers are 0 */
	assert_int_equal(t.be->ops->read64(t.be, 0x30008), 0);
	t.be->ops->write64(t.be, 0x30008, 0x1234);
	assert_int_equal(t.be->ops->read64(t.be, 0x30008), 0x1234);
	/* outside the BAR / unaligned: all-ones, counted */
	assert_int_equal(t.be->ops->read64(t.be, RSH_BAR0_SIZE_BF12), RSH_ALL_ONES);
	assert_int_equal(t.be->ops->read64(t.be, 0x10404), RSH_ALL_ONES);
	t.be->ops->write64(t.be, 0x10409, 7);
	assert_int_equal(stats(&t).bad_accesses, 3);
	assert_int_equal(t.be->stats.reads, 8);
	assert_int_equal(t.be->stats.writes, 7);
	tsim_close(&t);
}

/* BF3 offsets, FABRIC_DIM, UPTIME, the watchdog write (§1.3, §1.5). */
static void
test_decode_bf3(void **state)
{
	uint64_t u1, u2, por;
	struct tsim t;

	(void)state;
	tsim_open(&t, "sim:bf3");
	assert_int_equal(t.map.off[RSH_BOOT_FIFO_COUNT], 0x1000);
	t.be->ops->write64(t.be, 0x2000, 9);
	assert_int_equal(t.be->ops->read64(t.be, 0x1000), 1);
	assert_int_equal(rd(&t, RSH_FABRIC_DIM), 0x33);
	u1 = rd(&t, RSH_UPTIME);
	wait_ms(2);
	u2 = rd(&t, RSH_UPTIME);
	por = rd(&t, RSH_UPTIME_POR);
	/* 200 MHz: 2 ms is at least 400000 cycles */
	assert_true(u2 - u1 >= 400000 && u2 - u1 < 200000000);
	assert_true(por >= u2);
	wr(&t, RSH_ARM_WDG_CONTROL_WCS, 0);
	assert_int_equal(t.map.off[RSH_ARM_WDG_CONTROL_WCS], 0x40000);
	assert_int_equal(stats(&t).wdog_writes, 1);
	wr(&t, RSH_ARM_WDG_CONTROL_WCS, 0x55);
	assert_int_equal(stats(&t).wdog_writes, 2);
	assert_int_equal(stats(&t).wdog_last, 0x55);
	tsim_close(&t);
}

/* Depth and overflow with a consumer that does not read (eMMC mode). */
static void
check_depth(const char *devstr, unsigned int depth)
{
	static uint64_t w[1100];
	struct tsim t;
	unsigned int i;

	for (i = 0; i < RTE_DIM(w); i++)
		w[i] = 0x1000 + i;
	tsim_open(&t, devstr);
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, 1100);
	assert_int_equal(stats(&t).boot_overflows, 1100 - depth);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), depth & 0x3FF);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_DATA), 0x1000);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), depth - 1);
	t.be->ops->read_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, 2);
	assert_int_equal(w[0], 0x1001);
	assert_int_equal(w[1], 0x1002);
	wr(&t, RSH_BOOT_FIFO_DATA, 0xAA);
	wr(&t, RSH_BOOT_FIFO_DATA, 0xBB);
	wr(&t, RSH_BOOT_FIFO_DATA, 0xCC);
	wr(&t, RSH_BOOT_FIFO_DATA, 0xDD); /* full again: dropped */
	assert_int_equal(stats(&t).boot_overflows, 1100 - depth + 1);
	assert_int_equal(stats(&t).consumed_bytes, 0);
	tsim_close(&t);
}

static void
test_fifo_depth_bf2(void **state)
{
	(void)state;
	check_depth("sim:bf2", 512);
}

/* BF3: 1024 words; a full FIFO reads 0 in the 10-bit count field. */
static void
test_fifo_depth_bf3(void **state)
{
	(void)state;
	check_depth("sim:bf3", 1024);
}

/* Empty DATA read: 0, no state change. */
static void
test_fifo_empty_read(void **state)
{
	struct tsim t;

	(void)state;
	tsim_open(&t, "sim:bf2");
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_DATA), 0);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), 0);
	wr(&t, RSH_BOOT_FIFO_DATA, 77);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_DATA), 77);
	tsim_close(&t);
}

/* The reset key: bad reads for the window, FIFOs cleared, high bits kept. */
static void
test_reset_key(void **state)
{
	uint64_t w[10] = { 0 }, v;
	struct tsim t;

	(void)state;
	tsim_open(&t, "sim:bf3,resetwin=30ms");
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, 10);
	t.be->ops->write_fifo(t.be, t.map.off[RSH_TM_HOST_TO_TILE_DATA], w, 4);
	wr(&t, RSH_SCRATCHPAD2, 0x77);
	wr(&t, RSH_RESET_CONTROL, 5ull << 40);
	wr(&t, RSH_BOOT_CONTROL, 0);
	wr(&t, RSH_RESET_CONTROL, 5ull << 40 | RSH_RESET_CONTROL__KEY);
	assert_int_equal(rd(&t, RSH_FABRIC_DIM), RSH_BAD_ACCESS1);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), RSH_BAD_ACCESS1);
	wr(&t, RSH_SCRATCHPAD2, 0x99); /* ignored */
	assert_int_equal(stats(&t).resets, 1);
	assert_int_equal(stats(&t).reset_reads, 2);
	assert_int_equal(stats(&t).ignored_writes, 1);
	wait_ms(35);
	assert_int_equal(rd(&t, RSH_FABRIC_DIM), 0x33);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), 0);
	assert_int_equal(rd(&t, RSH_TM_HOST_TO_TILE_STS), 0);
	assert_int_equal(rd(&t, RSH_SCRATCHPAD2), 0x77);
	assert_int_equal(rd(&t, RSH_RESET_CONTROL), 5ull << 40);
	v = rd(&t, RSH_SCRATCHPAD3);
	assert_int_equal(v & 0xFF, RSH_SIM_PROG_ROM);
	assert_int_equal(stats(&t).progress, RSH_SIM_PROG_ROM);
	assert_true(rd(&t, RSH_UPTIME) < rd(&t, RSH_UPTIME_POR));
	/* reset with BOOT_CONTROL=1: eMMC boot, FIFO never read */
	wr(&t, RSH_BOOT_CONTROL, 1);
	wr(&t, RSH_RESET_CONTROL, RSH_RESET_CONTROL__KEY);
	wait_ms(35);
	assert_int_equal(stats(&t).progress, RSH_SIM_PROG_EMMC);
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, 10);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), 10);
	assert_int_equal(stats(&t).consumed_bytes, 0);
	tsim_close(&t);
}

/* DISABLE (bit 32) set: the key does nothing but flag REQ_PND. */
static void
test_reset_disable(void **state)
{
	uint64_t w = 1, v;
	struct tsim t;

	(void)state;
	tsim_open(&t, "sim:bf2,resetwin=30ms");
	wr(&t, RSH_BOOT_FIFO_DATA, w);
	wr(&t, RSH_RESET_CONTROL, RSH_RESET_CONTROL__DISABLE_MASK);
	v = rd(&t, RSH_RESET_CONTROL);
	wr(&t, RSH_RESET_CONTROL, (v & ~RSH_RESET_CONTROL__KEY_MASK) |
		  RSH_RESET_CONTROL__KEY);
	assert_int_equal(rd(&t, RSH_FABRIC_DIM), 0x22);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), 1);
	assert_int_equal(stats(&t).resets, 0);
	v = rd(&t, RSH_RESET_CONTROL);
	assert_true(v & RSH_RESET_CONTROL__DISABLE_MASK);
	assert_true(v & RSH_RESET_CONTROL__REQ_PND_MASK);
	assert_int_equal(v & RSH_RESET_CONTROL__KEY_MASK, 0);
	tsim_close(&t);
}

static void
test_semaphore(void **state)
{
	struct tsim t;

	(void)state;
	tsim_open(&t, "sim:bf3");
	assert_int_equal(t.map.off[RSH_SEMAPHORE0], 0xF10);
	assert_int_equal(rd(&t, RSH_SEMAPHORE0), 0); /* acquired */
	assert_int_equal(rd(&t, RSH_SEMAPHORE0), 1); /* held */
	assert_int_equal(rd(&t, RSH_SEMAPHORE0), 1);
	wr(&t, RSH_SEMAPHORE0, 0);
	assert_int_equal(rd(&t, RSH_SEMAPHORE0), 0);
	tsim_close(&t);
}

/* Scratch buffer: CTL sets the pointer, DAT auto-increments (§5.6). */
static void
test_scratch_buf(void **state)
{
	struct tsim t;

	(void)state;
	tsim_open(&t, "sim:bf2");
	assert_int_equal(rd(&t, RSH_SCRATCH_BUF_CTL), 0);
	wr(&t, RSH_SCRATCH_BUF_DAT, 0x11);
	wr(&t, RSH_SCRATCH_BUF_DAT, 0x22);
	assert_int_equal(rd(&t, RSH_SCRATCH_BUF_CTL), 2);
	wr(&t, RSH_SCRATCH_BUF_CTL, 0);
	assert_int_equal(rd(&t, RSH_SCRATCH_BUF_DAT), 0x11);
	assert_int_equal(rd(&t, RSH_SCRATCH_BUF_DAT), 0x22);
	assert_int_equal(rd(&t, RSH_SCRATCH_BUF_CTL), 2);
	wr(&t, RSH_SCRATCH_BUF_CTL, 0x1FF); /* bits 6:0 */
	assert_int_equal(rd(&t, RSH_SCRATCH_BUF_CTL), 0x7F);
	tsim_close(&t);
}

/* TM FIFO pair: drop on full, all-ones on empty, CTL fields (§1.2). */
static void
test_tmfifo(void **state)
{
	static uint64_t w[300];
	uint64_t ctl, in[3] = { 7, 8, 9 }, out[5];
	struct rsh_sim *sim;
	struct tsim t;

	(void)state;
	tsim_open(&t, "sim:bf3");
	sim = (struct rsh_sim *)t.be;
	t.be->ops->write_fifo(t.be, t.map.off[RSH_TM_HOST_TO_TILE_DATA], w, 300);
	assert_int_equal(rd(&t, RSH_TM_HOST_TO_TILE_STS), 256);
	assert_int_equal(stats(&t).htt_overflows, 44);
	wr(&t, RSH_TM_HOST_TO_TILE_DATA, 1);
	assert_int_equal(stats(&t).htt_overflows, 45);
	assert_int_equal(rsh_sim_htt_pop(sim, out, 5), 5);
	assert_int_equal(rsh_sim_htt_count(sim), 251);
	assert_int_equal(rd(&t, RSH_TM_TILE_TO_HOST_STS), 0);
	assert_int_equal(rd(&t, RSH_TM_TILE_TO_HOST_DATA), RSH_ALL_ONES);
	assert_int_equal(rd(&t, RSH_TM_TILE_TO_HOST_STS), 0);
	assert_int_equal(stats(&t).tth_empty_reads, 1);
	assert_int_equal(rsh_sim_tth_push(sim, in, 3), 3);
	assert_int_equal(rd(&t, RSH_TM_TILE_TO_HOST_STS), 3);
	t.be->ops->read_fifo(t.be, t.map.off[RSH_TM_TILE_TO_HOST_DATA], out, 5);
	assert_int_equal(out[0], 7);
	assert_int_equal(out[2], 9);
	assert_int_equal(out[3], RSH_ALL_ONES);
	assert_int_equal(stats(&t).tth_empty_reads, 3);
	ctl = rd(&t, RSH_TM_TILE_TO_HOST_CTL);
	assert_int_equal(ctl, 256ull << 32 | 128 << 8 | 128);
	wr(&t, RSH_TM_HOST_TO_TILE_CTL, 0x0100 | 5ull << 32);
	ctl = rd(&t, RSH_TM_HOST_TO_TILE_CTL);
	assert_int_equal(ctl, 256ull << 32 | 0x0100);
	tsim_close(&t);
}

/* A whole BFB: "DPU is ready", hash, trailing bytes kept (§6.5, §5.6). */
static void
test_bfb_boot(void **state)
{
	static uint64_t logw[128];
	uint8_t keep[2048];
	struct rsh_sim_stats st;
	struct tbfb b;
	struct tsim t;
	unsigned int n;
	int i;

	(void)state;
	tbfb_make(&b, 100003, 1000);
	tsim_open(&t, "sim:bf3,resetwin=1ms");
	reset_for_fifo_boot(&t);
	assert_int_equal(push(&t, b.w, b.words, 5000), b.words);
	rd(&t, RSH_BOOT_FIFO_COUNT);
	st = stats(&t);
	assert_true(st.booted);
	assert_false(st.stream_error);
	assert_int_equal(st.images_ok, 3);
	assert_int_equal(st.consumed_bytes, b.words * 8);
	assert_int_equal(st.hash, rsh_sim_hash_words(RSH_SIM_HASH_INIT, b.w,
						      b.words));
	assert_int_equal(st.trailing_bytes, b.words * 8 - b.bfb_len);
	assert_int_equal(st.progress, RSH_SIM_PROG_READY);
	assert_int_equal(rd(&t, RSH_SCRATCHPAD3) & 0xFF, RSH_SIM_PROG_READY);
	assert_int_equal(rd(&t, RSH_BOOT_CONTROL), 1);
	assert_int_equal(st.boot_control, 0);
	assert_int_equal(rsh_sim_bootfifo_read(t.be, keep, sizeof(keep)),
			 b.words * 8 - b.bfb_len);
	assert_memory_equal(keep, (uint8_t *)b.w + b.bfb_len, b.trail_len);
	/* scratch log, byte-exact (§5.6) */
	n = log_read(&t, logw, 128);
	assert_int_equal(st.log_records, 3);
	i = log_find(logw, n, 0x5402000000000000ull); /* UEFI MSG len 2 INFO */
	assert_true(i >= 0);
	assert_int_equal(logw[i + 1], 0x7220736920555044ull); /* "DPU is r" */
	assert_int_equal(logw[i + 2], 0x0000000079646165ull); /* "eady\0..." */
	/* BL2 "Boot stream: %d images", arg 3, has_arg 1 */
	i = log_find(logw, n, 0x2403000000030100ull);
	assert_true(i >= 0);
	assert_memory_equal(&logw[i + 1], "Boot stream: %d images\0\0", 24);
	assert_int_equal(n, 4 + 4 + 3);
	/* the reorder check of the hash */
	RTE_SWAP(b.w[4], b.w[5]);
	assert_int_not_equal(st.hash, rsh_sim_hash_words(RSH_SIM_HASH_INIT, b.w,
							  b.words));
	free(b.w);
	tsim_close(&t);
}

/* A header of 4 words (the extra one skipped, §6.5), 70000 trailing bytes
 * of which the first 64 KiB are kept. */
static void
test_bfb_long_header(void **state)
{
	static uint64_t w[5 + 70000 / 8];
	static uint8_t keep[RSH_SIM_BOOTFIFO_KEEP + 8];
	struct rsh_bfb_hdr h = { .magic = RSH_BFB_MAGIC, .major = 1,
				 .minor = 2, .hdr_words = 4, .id = 62,
				 .image_len = 5 };
	struct rsh_sim_stats st;
	struct tsim t;
	size_t i;

	(void)state;
	w[3] = 0xFFFFFFFFFFFFFFFFull; /* the extra header word */
	w[4] = 0x0000003332313000ull; /* 5 bytes + 3 bytes of padding */
	h.crc = rsh_bfb_crc32(0, &w[4], 8);
	rsh_bfb_hdr_encode(&h, w);
	for (i = 5; i < RTE_DIM(w); i++)
		w[i] = i * 0x0101010101010101ull;
	tsim_open(&t, "sim:bf1,resetwin=0");
	reset_for_fifo_boot(&t);
	assert_int_equal(push(&t, w, RTE_DIM(w), 1000), RTE_DIM(w));
	st = stats(&t);
	assert_true(st.booted);
	assert_int_equal(st.images_ok, 1);
	assert_int_equal(st.trailing_bytes, (RTE_DIM(w) - 5) * 8);
	assert_int_equal(rsh_sim_bootfifo_read(t.be, keep, sizeof(keep)),
			 RSH_SIM_BOOTFIFO_KEEP);
	assert_memory_equal(keep, &w[5], RSH_SIM_BOOTFIFO_KEEP);
	assert_int_equal(rsh_sim_bootfifo_read(t.be, keep, 3), 3);
	tsim_close(&t);
}

/* A record that does not fit the 7-bit-indexed buffer is dropped. */
static void
test_log_full(void **state)
{
	struct tbfb b;
	struct tsim t;

	(void)state;
	tbfb_make(&b, 64, 0);
	tsim_open(&t, "sim:bf2,resetwin=0");
	wr(&t, RSH_SCRATCH_BUF_CTL, 120);
	reset_for_fifo_boot(&t);
	push(&t, b.w, b.words, 1000);
	assert_true(stats(&t).booted);
	/* 120 + 4 ("Boot stream found") fits, +4 does not, +3 ("DPU is
	 * ready") ends at 127 */
	assert_int_equal(stats(&t).log_records, 2);
	assert_int_equal(stats(&t).log_dropped, 1);
	assert_int_equal(rd(&t, RSH_SCRATCH_BUF_CTL), 127);
	wr(&t, RSH_SCRATCH_BUF_CTL, 124);
	assert_int_equal(rd(&t, RSH_SCRATCH_BUF_DAT), 0x5402000000000000ull);
	free(b.w);
	tsim_close(&t);
}

/* The log waits while the host holds SEMAPHORE0. */
static void
test_log_semaphore(void **state)
{
	uint64_t logw[128];
	struct tbfb b;
	struct tsim t;

	(void)state;
	tbfb_make(&b, 64, 0);
	tsim_open(&t, "sim:bf2,resetwin=0");
	reset_for_fifo_boot(&t);
	assert_int_equal(rd(&t, RSH_SEMAPHORE0), 0);
	push(&t, b.w, b.words, 1000);
	assert_true(stats(&t).booted);
	assert_int_equal(rd(&t, RSH_SCRATCH_BUF_CTL), 0);
	assert_int_equal(stats(&t).log_records, 0);
	wr(&t, RSH_SEMAPHORE0, 0);
	assert_int_equal(stats(&t).log_records, 3);
	assert_int_equal(log_read(&t, logw, 128), 11);
	free(b.w);
	tsim_close(&t);
}

/* A CRC error: ERR[BL1] record with the header offset; consuming goes on. */
static void
test_bfb_crc_error(void **state)
{
	uint64_t logw[128], hdr;
	struct rsh_sim_stats st;
	struct tbfb b;
	struct tsim t;
	int i;

	(void)state;
	tbfb_make(&b, 5000, 100);
	((uint8_t *)b.w)[b.img_off[1] + RSH_BFB_HDR_LEN + 17] ^= 0x40;
	tsim_open(&t, "sim:bf2,resetwin=0");
	reset_for_fifo_boot(&t);
	push(&t, b.w, b.words, 1000);
	rd(&t, RSH_BOOT_FIFO_COUNT);
	st = stats(&t);
	assert_false(st.booted);
	assert_true(st.stream_error);
	assert_int_equal(st.images_ok, 1);
	assert_int_equal(st.images_bad, 1);
	assert_int_equal(st.consumed_bytes, b.words * 8);
	assert_int_equal(st.hash, rsh_sim_hash_words(RSH_SIM_HASH_INIT, b.w,
						      b.words));
	assert_true(st.error_bytes > 0);
	assert_int_equal(st.progress, RSH_SIM_PROG_ERROR);
	hdr = 1ull << 60 | 4ull << 56 | 4ull << 48 | b.img_off[1] << 16 |
	      1 << 8 | 2;
	i = log_find(logw, log_read(&t, logw, 128), hdr);
	assert_true(i >= 0);
	assert_memory_equal(&logw[i + 1], "bad image CRC at offset 0x%x", 28);
	free(b.w);
	tsim_close(&t);
}

/* Bad magic at offset 0 and a bad major version. */
static void
test_bfb_bad_magic(void **state)
{
	uint64_t logw[128], junk[8] = { 0x1122334455667788ull };
	struct tbfb b;
	struct tsim t;

	(void)state;
	tsim_open(&t, "sim:bf2,resetwin=0");
	reset_for_fifo_boot(&t);
	push(&t, junk, 8, 1000);
	assert_true(stats(&t).stream_error);
	assert_int_equal(stats(&t).error_bytes, 5 * 8);
	assert_true(log_find(logw, log_read(&t, logw, 128),
			     1ull << 60 | 4ull << 56 | 4ull << 48 | 1 << 8 | 2) >= 0);
	assert_memory_equal(&logw[1], "bad BFB magic at offset 0x%x", 28);
	tsim_close(&t);

	tbfb_make(&b, 64, 0);
	b.w[b.img_off[1] / 8] ^= 3ull << 32; /* image 2: major 1 -> 2 */
	tsim_open(&t, "sim:bf2,resetwin=0");
	reset_for_fifo_boot(&t);
	push(&t, b.w, b.words, 1000);
	assert_true(stats(&t).stream_error);
	assert_int_equal(stats(&t).images_ok, 1);
	log_read(&t, logw, 128);
	assert_int_equal(logw[4], 1ull << 60 | 4ull << 56 | 4ull << 48 |
			 b.img_off[1] << 16 | 1 << 8 | 2);
	assert_memory_equal(&logw[5], "bad BFB major at offset 0x%x", 28);
	free(b.w);
	tsim_close(&t);
}

/* drain=10M: the consumer takes 10 MB/s of virtual time, ±10 %. It can
 * never take more; it takes less only when this thread is preempted for
 * longer than the FIFO lasts (400 us), so up to 3 attempts may run. */
static void
test_drain_rate(void **state)
{
	static uint64_t w[1 << 17];
	uint64_t t0, t1, got = 0;
	double secs, want = 0;
	struct tsim t;
	int attempt;

	(void)state;
	for (attempt = 0; attempt < 3; attempt++) {
		tsim_open(&t, "sim:bf2,drain=10M,resetwin=0");
		reset_for_fifo_boot(&t);
		t0 = rte_get_timer_cycles();
		push(&t, w, RTE_DIM(w), 50);
		t1 = rte_get_timer_cycles();
		got = stats(&t).consumed_bytes;
		assert_int_equal(stats(&t).boot_overflows, 0);
		tsim_close(&t);
		secs = (double)(t1 - t0) / rte_get_timer_hz();
		want = 10e6 * secs;
		if ((double)got > want * 1.1)
			break;
		if ((double)got >= want * 0.9)
			return;
	}
	fail_msg("drain 10M: %" PRIu64 " bytes in %.4f s (want %.0f)", got,
		 secs, want);
}

/* Idle time is not banked: after 30 ms with an empty FIFO at drain=10M,
 * 509 words (4 KiB, 400 us worth) are not consumed at once (a retry covers
 * this thread being preempted between the write and the read). */
static void
test_drain_no_banking(void **state)
{
	static uint64_t w[509];
	struct tsim t;
	uint64_t c = 0;
	int attempt;

	(void)state;
	for (attempt = 0; attempt < 3 && c <= 400; attempt++) {
		tsim_open(&t, "sim:bf2,drain=10M,resetwin=0");
		reset_for_fifo_boot(&t);
		wait_ms(30);
		t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w,
				      509);
		c = rd(&t, RSH_BOOT_FIFO_COUNT);
		assert_true(c <= 509);
		wait_ms(1);
		assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), 0);
		assert_int_equal(stats(&t).consumed_bytes, 509 * 8);
		tsim_close(&t);
	}
	assert_true(c > 400);
}

/* stall=30ms@4K: the consumer stops at exactly 4 KiB, then resumes. */
static void
check_stall(const char *devstr)
{
	static uint64_t w[2048];
	uint64_t t0;
	struct tsim t;

	tsim_open(&t, devstr);
	reset_for_fifo_boot(&t);
	t0 = rte_get_timer_cycles();
	push(&t, w, RTE_DIM(w), 10);
	assert_int_equal(stats(&t).consumed_bytes, 4096);
	assert_int_equal(stats(&t).stalls, 1);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), 509);
	while (rte_get_timer_cycles() - t0 < rte_get_timer_hz() * 25 / 1000)
		assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), 509);
	push(&t, w, RTE_DIM(w), 100);
	assert_true(stats(&t).consumed_bytes > 4096);
	assert_true(rte_get_timer_cycles() - t0 >=
		    rte_get_timer_hz() * 30 / 1000);
	tsim_close(&t);
}

static void
test_stall(void **state)
{
	(void)state;
	check_stall("sim:bf2,stall=30ms@4K,resetwin=0");
	check_stall("sim:bf2,stall=30ms@4K,resetwin=0,drain=100M");
}

/* gone@8K: all-ones from the access after 8 KiB were consumed. */
static void
check_gone(const char *devstr)
{
	static uint64_t w[4096];
	struct tsim t;

	tsim_open(&t, devstr);
	reset_for_fifo_boot(&t);
	push(&t, w, RTE_DIM(w), 20);
	assert_int_equal(stats(&t).consumed_bytes, 8192);
	assert_true(stats(&t).gone);
	assert_int_equal(rd(&t, RSH_FABRIC_DIM), RSH_ALL_ONES);
	assert_int_equal(rd(&t, RSH_BOOT_FIFO_COUNT), RSH_ALL_ONES);
	wr(&t, RSH_SCRATCHPAD1, 5);
	assert_true(stats(&t).ignored_writes > 0);
	tsim_close(&t);
}

static void
test_gone(void **state)
{
	(void)state;
	check_gone("sim:bf3,gone@8K,resetwin=0");
	check_gone("sim:bf3,gone@8K,resetwin=0,drain=50M");
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

static int
eal_setup(void **state)
{
	char *argv[] = { "test_sim", "--no-huge", "--no-shconf", "--no-pci",
			 "-l", "0", "--log-level=lib.eal:error", NULL };

	(void)state;
	return rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0 ? -1 : 0;
}

static int
eal_teardown(void **state)
{
	(void)state;
	rte_eal_cleanup();
	return 0;
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
		cmocka_unit_test(test_bfb_boot),
		cmocka_unit_test(test_bfb_long_header),
		cmocka_unit_test(test_log_semaphore),
		cmocka_unit_test(test_log_full),
		cmocka_unit_test(test_bfb_crc_error),
		cmocka_unit_test(test_bfb_bad_magic),
		cmocka_unit_test(test_drain_rate),
		cmocka_unit_test(test_drain_no_banking),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_stats_not_sim),
	};

	return cmocka_run_group_tests(tests, eal_setup, eal_teardown);
}
