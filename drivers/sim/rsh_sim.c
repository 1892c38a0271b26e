/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated BlueField rshim function: the register file, the backend
 * ops and the "sim" backend driver.
 *
 * Offsets come from the emulator's own table (rsh_sim_regs.c, written
 * from the hardware notes, never from the driver's); a reverse lookup
 * built from it turns a BAR offset back into a register to find its side
 * effects, and agrees with rsh_sim_reg_decode(). Registers outside the
 * table are plain 64-bit storage (reads of never-written ones return 0).
 * Facts: hardware-notes §1.3-§1.5, §3, §5.6, §10; §D1, §D6, §D7, §D8.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_sim_priv.h"

/* FABRIC_DIM must read non-zero; rshim -c takes (v & 0xFF) == 0x22 as
 * BF1/BF2 (§1.4). 0x33 on BF3 is the emulator's choice. */
#define RSH_SIM_FABRIC_DIM_BF12 0x22ull
#define RSH_SIM_FABRIC_DIM_BF3 0x33ull
/* UPTIME rate: 200 MHz on BF3 (§1.5); BF1/BF2 use the same rate
 * (inferred: the hardware notes give no rate for them). */
/* TM FIFO CTL reset value: MAX_ENTRIES 256, HWM 128, LWM 128
 * (hardware-notes §D1.2). */
#define RSH_SIM_TM_CTL_RESET \
	((uint64_t)RSH_SIM_TM_DEPTH << RSH_SIM_TM_CTL_MAX_SHIFT | \
	 128ull << RSH_SIM_TM_CTL_HWM_SHIFT | 128ull)
#define RSH_SIM_TM_CTL_RW 0xFFFFull /* LWM and HWM are writable */

static const struct rsh_backend_ops rsh_sim_ops;
static struct rsh_backend_driver rsh_sim_drv;

/* Outcome of the checks every access goes through first. */
enum rsh_sim_gate {
	RSH_SIM_OPEN,
	RSH_SIM_BAD,   /* outside the BAR or unaligned */
	RSH_SIM_GONE,  /* surprise removal: all-ones */
	RSH_SIM_RESET, /* in the reset window: 0xBAD00ACCE55 */
};

/* Reverse-lookup slot of a BAR offset. */
static unsigned int
rsh_sim_lut_slot(uint32_t off)
{
	return ((off >> 3) * 0x9E3779B1u) >> 26;
}

/* BAR offsets of every register, then the reverse lookup. */
static int
rsh_sim_map_init(struct rsh_sim *sim)
{
	unsigned int r, s;

	RTE_BUILD_BUG_ON(RSH_SIM_LUT_SLOTS != 64 ||
			 RSH_SIM_REG_COUNT * 2 > RSH_SIM_LUT_SLOTS);
	sim->bar_size = rsh_sim_bar_size(sim->cfg.gen);
	for (r = 0; r < RSH_SIM_REG_COUNT; r++) {
		if (rsh_sim_reg_bar_off(sim->cfg.gen, r, &sim->off[r]) < 0)
			return -EINVAL;
		s = rsh_sim_lut_slot(sim->off[r]);
		while (sim->lut[s].reg1 != 0) {
			if (sim->lut[s].off == sim->off[r])
				return -EINVAL; /* two registers, one offset */
			s = (s + 1) % RSH_SIM_LUT_SLOTS;
		}
		sim->lut[s].off = sim->off[r];
		sim->lut[s].reg1 = (uint8_t)(r + 1);
	}
	return 0;
}

/* Table register at a BAR offset, or -1 for plain storage. */
static int
rsh_sim_lut_find(const struct rsh_sim *sim, uint32_t off)
{
	unsigned int s = rsh_sim_lut_slot(off);

	while (sim->lut[s].reg1 != 0) {
		if (sim->lut[s].off == off)
			return sim->lut[s].reg1 - 1;
		s = (s + 1) % RSH_SIM_LUT_SLOTS;
	}
	return -1;
}

/* Checks before any access; the consumer catches up first (it may fire a
 * gone@ fault that this very access then sees). */
static enum rsh_sim_gate
rsh_sim_gate(struct rsh_sim *sim, uint32_t off, unsigned int n, uint64_t now)
{
	if (off >= sim->be.bar_size || (off & 7) != 0) {
		RSH_SIM_ST_ADD(sim, bad_accesses, n);
		return RSH_SIM_BAD;
	}
	if (sim->gone && !rsh_sim_return_check(sim, now))
		return RSH_SIM_GONE;
	rsh_sim_event_tick(sim, now);
	if (sim->gone || now < sim->linkdown_until)
		return RSH_SIM_GONE;
	if (now < sim->reset_until)
		return RSH_SIM_RESET;
	rsh_sim_boot_advance(sim, now);
	return sim->gone ? RSH_SIM_GONE : RSH_SIM_OPEN;
}

/* Value a read gets when the gate is closed (§1.4). */
static uint64_t
rsh_sim_gate_val(struct rsh_sim *sim, enum rsh_sim_gate g, unsigned int n)
{
	if (g == RSH_SIM_RESET) {
		RSH_SIM_ST_ADD(sim, reset_reads, n);
		return RSH_SIM_BAD_ACCESS;
	}
	return RSH_SIM_ALL_ONES;
}

/* TSC cycles into UPTIME cycles. */
static uint64_t
rsh_sim_uptime(const struct rsh_sim *sim, uint64_t cyc)
{
	return (uint64_t)((unsigned __int128)cyc * RSH_SIM_UPTIME_HZ / sim->hz);
}

/* TM FIFO CTL registers to their reset value (§D1.2). */
static void
rsh_sim_tm_reset(struct rsh_sim *sim)
{
	rsh_sim_fifo_clear(&sim->htt);
	rsh_sim_fifo_clear(&sim->tth);
	*rsh_sim_reg(sim, RSH_SIM_REG_HTT_CTL) = RSH_SIM_TM_CTL_RESET;
	*rsh_sim_reg(sim, RSH_SIM_REG_TTH_CTL) = RSH_SIM_TM_CTL_RESET;
}

/* ARM reset by the key (§3.2 step 6, §10 item 3) or on its own (watchdog,
 * NIC firmware DPU reset): a window of bad reads, boot FIFO and TM FIFOs
 * cleared, boot ROM restarted. Scratchpads, the semaphore and the scratch
 * log survive: they are rshim registers, not ARM state (emulator choice). */
void
rsh_sim_arm_reset(struct rsh_sim *sim, uint64_t now, bool key)
{
	if (key)
		RSH_SIM_ST_ADD(sim, resets, 1);
	else
		RSH_SIM_ST_ADD(sim, arm_resets, 1);
	sim->reset_tsc = now;
	sim->reset_until = now + sim->resetwin_cyc;
	rsh_sim_fifo_clear(&sim->boot);
	rsh_sim_tm_reset(sim);
	rsh_sim_boot_restart(sim, sim->reset_until);
	if (sim->arm != NULL && sim->arm->arm_reset != NULL)
		sim->arm->arm_reset(sim);
	RSH_DEV_LOG(DEBUG, &sim->be, "ARM reset (%s), boot mode %u",
		    key ? "reset key" : "on its own",
		    (unsigned int)(*rsh_sim_reg(sim, RSH_SIM_REG_BOOT_CONTROL) &
				   RSH_SIM_BOOTMODE_MASK));
}

/*
 * RESET_CONTROL write: the key 0xCA710001 in bits 31:0 resets the ARM
 * (bits 63:32 are stored as written). With bit 32 DISABLE set in the
 * written value the key does nothing except set bit 33 REQ_PND: the reset
 * is deferred (inferred from §3.2 "can make the ARM reset be deferred";
 * the emulator never carries it out later).
 */
static void
rsh_sim_reset_write(struct rsh_sim *sim, uint64_t v, uint64_t now)
{
	uint64_t *m = rsh_sim_reg(sim, RSH_SIM_REG_RESET_CONTROL);

	if ((v & RSH_SIM_RESET_KEY_MASK) != RSH_SIM_RESET_KEY) {
		*m = v;
		return;
	}
	*m = v & ~RSH_SIM_RESET_KEY_MASK;
	if ((v & RSH_SIM_RESET_DISABLE) != 0) {
		*m |= RSH_SIM_RESET_REQ_PND;
		return;
	}
	rsh_sim_arm_reset(sim, now, true);
}

/* Count n words through a TM FIFO data register (tm: triggers). */
static void
rsh_sim_tm_count(struct rsh_sim *sim, unsigned int n)
{
	sim->tm_bytes += (uint64_t)n * 8;
	RSH_SIM_ST_SET(sim, tm_bytes, sim->tm_bytes);
}

/* Let the ARM-side peer run before a TM FIFO access. */
static void
rsh_sim_arm_poll(struct rsh_sim *sim, uint64_t now)
{
	if (sim->arm != NULL && sim->arm->arm_poll != NULL)
		sim->arm->arm_poll(sim, now);
}

/* TM FIFO register reads (hardware-notes §D1.2). The host cannot pop
 * HOST_TO_TILE: its DATA reads 0 with no state change (inferred). */
static uint64_t
rsh_sim_tm_read(struct rsh_sim *sim, int reg, uint64_t now)
{
	uint64_t v;

	rsh_sim_arm_poll(sim, now);
	switch (reg) {
	case RSH_SIM_REG_HTT_STS:
		return sim->htt.count & RSH_SIM_TM_COUNT_MASK;
	case RSH_SIM_REG_TTH_STS:
		return sim->tth.count & RSH_SIM_TM_COUNT_MASK;
	case RSH_SIM_REG_TTH_DATA:
		if (rsh_sim_fifo_pop(&sim->tth, &v, 1) == 1) {
			rsh_sim_tm_count(sim, 1);
			return v;
		}
		RSH_SIM_ST_ADD(sim, tth_empty_reads, 1);
		return RSH_SIM_ALL_ONES; /* empty: no state change */
	case RSH_SIM_REG_HTT_DATA:
		return 0;
	default: /* CTL */
		return *rsh_sim_reg(sim, reg);
	}
}

/* TM FIFO register writes: DATA to a full HOST_TO_TILE is dropped, only
 * LWM/HWM of CTL are writable, STS and TILE_TO_HOST DATA are read-only. */
static void
rsh_sim_tm_write(struct rsh_sim *sim, int reg, uint64_t v, uint64_t now)
{
	uint64_t *m = rsh_sim_reg(sim, reg);

	rsh_sim_arm_poll(sim, now);
	switch (reg) {
	case RSH_SIM_REG_HTT_DATA:
		if (rsh_sim_fifo_push(&sim->htt, &v, 1) == 0)
			RSH_SIM_ST_ADD(sim, htt_overflows, 1);
		else
			rsh_sim_tm_count(sim, 1);
		return;
	case RSH_SIM_REG_HTT_CTL:
	case RSH_SIM_REG_TTH_CTL:
		*m = (*m & ~RSH_SIM_TM_CTL_RW) | (v & RSH_SIM_TM_CTL_RW);
		return;
	default:
		return;
	}
}

/* True for the six TM FIFO registers. */
static bool
rsh_sim_is_tm(int reg)
{
	return reg >= RSH_SIM_REG_HTT_DATA && reg <= RSH_SIM_REG_TTH_CTL;
}

/* One read of an open register. */
static uint64_t
rsh_sim_reg_read(struct rsh_sim *sim, int reg, uint32_t off, uint64_t now)
{
	uint64_t *m = &sim->mem[off >> 3];
	uint64_t v = 0;

	if (rsh_sim_is_tm(reg))
		return rsh_sim_tm_read(sim, reg, now);
	switch (reg) {
	case RSH_SIM_REG_BOOT_FIFO_DATA: /* pop; empty: 0, no state change (§D6.1) */
		rsh_sim_fifo_pop(&sim->boot, &v, 1);
		return v;
	case RSH_SIM_REG_BOOT_FIFO_COUNT: /* bits 9:0 (a full BF3 FIFO wraps to 0) */
		RSH_SIM_ST_ADD(sim, host_count_reads, 1);
		return sim->boot.count & RSH_SIM_BOOT_COUNT_MASK;
	case RSH_SIM_REG_SEMAPHORE0: /* read returns the old value and takes
				      * it (atomic: shared= processes) */
		return __atomic_exchange_n(m, 1, __ATOMIC_ACQ_REL);
	case RSH_SIM_REG_SCRATCH_BUF_CTL:
		return sim->log_ptr & RSH_SIM_LOG_IDX_MASK;
	case RSH_SIM_REG_SCRATCH_BUF_DAT: /* auto-increment (§5.6, §D7) */
		v = sim->log[sim->log_ptr];
		sim->log_ptr = (sim->log_ptr + 1) & RSH_SIM_LOG_IDX_MASK;
		return v;
	case RSH_SIM_REG_UPTIME:
		return rsh_sim_uptime(sim, now - sim->reset_tsc);
	case RSH_SIM_REG_UPTIME_POR:
		return rsh_sim_uptime(sim, now - sim->por_tsc);
	default:
		return *m;
	}
}

/* One write of an open register. */
static void
rsh_sim_reg_write(struct rsh_sim *sim, int reg, uint32_t off, uint64_t v,
		  uint64_t now)
{
	uint64_t *m = &sim->mem[off >> 3];

	if (rsh_sim_is_tm(reg))
		return rsh_sim_tm_write(sim, reg, v, now);
	switch (reg) {
	case RSH_SIM_REG_BOOT_FIFO_DATA:
		return rsh_sim_boot_write(sim, &v, 1, now);
	case RSH_SIM_REG_BOOT_FIFO_COUNT:
	case RSH_SIM_REG_FABRIC_DIM:
	case RSH_SIM_REG_UPTIME:
	case RSH_SIM_REG_UPTIME_POR:
		return; /* read-only */
	case RSH_SIM_REG_RESET_CONTROL:
		return rsh_sim_reset_write(sim, v, now);
	case RSH_SIM_REG_BOOT_CONTROL:
		*m = v;
		RSH_SIM_ST_SET(sim, boot_control, v);
		return;
	case RSH_SIM_REG_SEMAPHORE0: /* write 0 releases */
		*m = v != 0;
		if (v == 0)
			rsh_sim_log_flush(sim);
		return;
	case RSH_SIM_REG_SCRATCH_BUF_CTL: /* sets the read/write pointer */
		sim->log_ptr = v & RSH_SIM_LOG_IDX_MASK;
		return;
	case RSH_SIM_REG_SCRATCH_BUF_DAT:
		sim->log[sim->log_ptr] = v;
		sim->log_ptr = (sim->log_ptr + 1) & RSH_SIM_LOG_IDX_MASK;
		return;
	case RSH_SIM_REG_SCRATCHPAD1: /* firmware blocks it when locked */
		if (sim->ev.locked)
			RSH_SIM_ST_ADD(sim, sp1_blocked, 1);
		else
			*m = v;
		return;
	case RSH_SIM_REG_MEM_ACC_CTL:
		return rsh_sim_memacc_ctl(sim, v);
	case RSH_SIM_REG_WDOG1_WCS:
		*m = v;
		RSH_SIM_ST_ADD(sim, wdog_writes, 1);
		RSH_SIM_ST_SET(sim, wdog_last, v);
		return;
	default:
		*m = v;
	}
}

/* One 64-bit read at device time now. */
uint64_t
rsh_sim_do_read64(struct rsh_backend *be, uint32_t off, uint64_t now)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;
	enum rsh_sim_gate g;

	rsh_backend_count(&be->stats.reads, 1);
	g = rsh_sim_gate(sim, off, 1, now);
	if (g != RSH_SIM_OPEN)
		return rsh_sim_gate_val(sim, g, 1);
	return rsh_sim_reg_read(sim, rsh_sim_lut_find(sim, off), off, now);
}

/* One 64-bit write at device time now. */
void
rsh_sim_do_write64(struct rsh_backend *be, uint32_t off, uint64_t v, uint64_t now)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;
	enum rsh_sim_gate g;

	rsh_backend_count(&be->stats.writes, 1);
	g = rsh_sim_gate(sim, off, 1, now);
	if (g == RSH_SIM_GONE || g == RSH_SIM_RESET)
		RSH_SIM_ST_ADD(sim, ignored_writes, 1);
	if (g != RSH_SIM_OPEN)
		return;
	rsh_sim_reg_write(sim, rsh_sim_lut_find(sim, off), off, v, now);
}

/* n writes to one FIFO data register (bursts on the fast paths, word by
 * word for any other register) at device time now. */
static void
rsh_sim_do_write_fifo(struct rsh_backend *be, uint32_t off, const uint64_t *w,
		      unsigned int n, uint64_t now)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;
	enum rsh_sim_gate g;
	unsigned int i, k;
	int reg;

	rsh_backend_count(&be->stats.writes, n);
	g = rsh_sim_gate(sim, off, n, now);
	if (g == RSH_SIM_GONE || g == RSH_SIM_RESET)
		RSH_SIM_ST_ADD(sim, ignored_writes, n);
	if (g != RSH_SIM_OPEN)
		return;
	reg = rsh_sim_lut_find(sim, off);
	if (reg == RSH_SIM_REG_BOOT_FIFO_DATA) {
		rsh_sim_boot_write(sim, w, n, now);
	} else if (reg == RSH_SIM_REG_HTT_DATA) {
		rsh_sim_arm_poll(sim, now);
		k = rsh_sim_fifo_push(&sim->htt, w, n);
		RSH_SIM_ST_ADD(sim, htt_overflows, n - k);
		rsh_sim_tm_count(sim, k);
	} else {
		for (i = 0; i < n; i++)
			rsh_sim_reg_write(sim, reg, off, w[i], now);
	}
}

/* n reads (pops) of one FIFO data register at device time now. */
static void
rsh_sim_do_read_fifo(struct rsh_backend *be, uint32_t off, uint64_t *w,
		     unsigned int n, uint64_t now)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;
	enum rsh_sim_gate g;
	unsigned int i, k;
	int reg;

	rsh_backend_count(&be->stats.reads, n);
	g = rsh_sim_gate(sim, off, n, now);
	if (g != RSH_SIM_OPEN) {
		uint64_t v = rsh_sim_gate_val(sim, g, n);

		for (i = 0; i < n; i++)
			w[i] = v;
		return;
	}
	reg = rsh_sim_lut_find(sim, off);
	if (reg == RSH_SIM_REG_TTH_DATA) {
		rsh_sim_arm_poll(sim, now);
		k = rsh_sim_fifo_pop(&sim->tth, w, n);
		rsh_sim_tm_count(sim, k);
		for (i = k; i < n; i++)
			w[i] = RSH_SIM_ALL_ONES;
		RSH_SIM_ST_ADD(sim, tth_empty_reads, n - k);
		return;
	}
	for (i = 0; i < n; i++)
		w[i] = rsh_sim_reg_read(sim, reg, off, now);
}

/* backend ops: each access is charged by the MMIO cost model first
 * (rsh_sim_cost.c) and runs at the device's time. */
static uint64_t
rsh_sim_read64(struct rsh_backend *be, uint32_t off)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;
	uint64_t v;

	if (rsh_sim_lf_nobar(sim, 1))
		return RSH_SIM_ALL_ONES;
	v = rsh_sim_do_read64(be, off, rsh_sim_cost_read(sim, 1));

	rsh_sim_cost_leave(sim);
	return v;
}

static void
rsh_sim_write64(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;

	if (rsh_sim_lf_nobar(sim, 1))
		return;
	rsh_sim_do_write64(be, off, v, rsh_sim_cost_write(sim, 1));
	rsh_sim_cost_leave(sim);
}

/* backend op: a 32-bit read, the half of the 64-bit word it is in. */
static uint32_t
rsh_sim_read32(struct rsh_backend *be, uint32_t off)
{
	uint64_t w = rsh_sim_read64(be, off & ~7u);

	return (off & 4) ? (uint32_t)(w >> 32) : (uint32_t)w;
}

/* backend op: a 32-bit write. A plain register takes the half as it is;
 * one with side effects gets a 64-bit write of the new half and the
 * stored other half (no read, so nothing pops). */
static void
rsh_sim_write32(struct rsh_backend *be, uint32_t off, uint32_t v)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;
	uint32_t a = off & ~7u;
	uint64_t old, nw;

	if ((off & 3) != 0 || a >= be->bar_size) {
		rsh_sim_write64(be, off, v); /* counted and refused there */
		return;
	}
	old = sim->mem[a >> 3];
	nw = (off & 4) ? (old & UINT32_MAX) | (uint64_t)v << 32 :
			 (old & ~(uint64_t)UINT32_MAX) | v;
	rsh_sim_write64(be, a, nw);
}

static void
rsh_sim_write_fifo(struct rsh_backend *be, uint32_t off, const uint64_t *w,
		   unsigned int n)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;

	if (rsh_sim_lf_nobar(sim, n))
		return;
	rsh_sim_do_write_fifo(be, off, w, n, rsh_sim_cost_write(sim, n));
	rsh_sim_cost_leave(sim);
}

static void
rsh_sim_read_fifo(struct rsh_backend *be, uint32_t off, uint64_t *w,
		  unsigned int n)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;

	if (rsh_sim_lf_nobar(sim, n)) {
		memset(w, 0xFF, (size_t)n * 8);
		return;
	}
	rsh_sim_do_read_fifo(be, off, w, n, rsh_sim_cost_read(sim, n));
	rsh_sim_cost_leave(sim);
}

/* backend op: free the device. */
static void
rsh_sim_close(struct rsh_backend *be)
{
	struct rsh_sim *sim = (struct rsh_sim *)be;

	if (sim == NULL)
		return;
	if (sim->arm != NULL && sim->arm->arm_close != NULL)
		sim->arm->arm_close(sim);
	rsh_sim_mem_detach(sim);
	free(sim);
}

static const struct rsh_backend_ops rsh_sim_ops = {
	.read64 = rsh_sim_read64,
	.write64 = rsh_sim_write64,
	.write_fifo = rsh_sim_write_fifo,
	.read_fifo = rsh_sim_read_fifo,
	.cfg_read = rsh_sim_lf_cfg_read,
	.cfg_write = rsh_sim_lf_cfg_write,
	.close = rsh_sim_close,
	.read32 = rsh_sim_read32,
	.write32 = rsh_sim_write32,
	.xstats_get_names = rsh_sim_xstats_get_names,
	.xstats_get = rsh_sim_xstats_get,
};

/*
 * Power-on state: FIFOs empty, reset values, boot mode from bootctl=.
 * BOOT_CONTROL defaults to 1 (eMMC): the host writes 1 on every boot close
 * (hardware-notes §3.4) and ATF sets it back to eMMC early in boot
 * (§D6.2 step 4), so a running board reads 1 (inferred; the hardware
 * notes give no reset value).
 */
static void
rsh_sim_power_on(struct rsh_sim *sim, bool fresh)
{
	uint64_t now = rsh_now();
	bool bf3 = sim->cfg.gen == RSH_GEN_BF3;

	sim->boot = (struct rsh_sim_fifo){ .w = sim->boot_w,
		.cap = RSH_SIM_BOOT_DEPTH_BF3,
		.depth = sim->cfg.boot_depth ? sim->cfg.boot_depth :
			 bf3 ? RSH_SIM_BOOT_DEPTH_BF3 : RSH_SIM_BOOT_DEPTH_BF12 };
	sim->htt = (struct rsh_sim_fifo){ .w = sim->htt_w,
		.cap = RSH_SIM_TM_DEPTH, .depth = RSH_SIM_TM_DEPTH };
	sim->tth = (struct rsh_sim_fifo){ .w = sim->tth_w,
		.cap = RSH_SIM_TM_DEPTH, .depth = RSH_SIM_TM_DEPTH };
	sim->hz = rsh_hz();
	sim->resetwin_cyc = rsh_sim_ns_to_cyc(sim, sim->cfg.resetwin_ns);
	sim->por_tsc = sim->reset_tsc = sim->reset_until = now;
	if (fresh) { /* shared=: only the first process powers it on */
		*rsh_sim_reg(sim, RSH_SIM_REG_FABRIC_DIM) =
			bf3 ? RSH_SIM_FABRIC_DIM_BF3 : RSH_SIM_FABRIC_DIM_BF12;
		*rsh_sim_reg(sim, RSH_SIM_REG_BOOT_CONTROL) = sim->cfg.bootctl;
		rsh_sim_tm_reset(sim);
	}
	rsh_sim_boot_restart(sim, now);
	rsh_sim_event_power_on(sim, now);
}

/*
 * A gone device plugged back in (return=, or rsh_sim_inject RETURN): it
 * is powered on like a new card, every register at its reset value and
 * BOOT_CONTROL at its power-on value, FIFOs, scratch log and ARM state
 * cleared. gone@ is one-shot: it does not fire again after the return.
 */
void
rsh_sim_replug(struct rsh_sim *sim, uint64_t now)
{
	uint32_t mbox = sim->ev.mbox;

	memset(sim->mem, 0, sim->bar_size);
	sim->cfg.gone.kind = RSH_SIM_TRIG_NONE;
	sim->cfg.gone_offset = RSH_SIM_NO_OFFSET;
	sim->gone = false;
	RSH_SIM_ST_SET(sim, gone, false);
	sim->linkdown_until = 0;
	sim->tm_bytes = 0;
	sim->log_ptr = 0;
	sim->log_pend_n = 0;
	memset(&sim->ev, 0, sizeof(sim->ev));
	sim->ev.mbox = mbox;
	rsh_sim_power_on(sim, true);
	if (sim->arm != NULL && sim->arm->arm_reset != NULL)
		sim->arm->arm_reset(sim);
	RSH_DEV_LOG(INFO, &sim->be, "device returned: powered on, registers at reset values");
	RTE_SET_USED(now);
}

/* Fill the backend part the core reads. */
static void
rsh_sim_be_init(struct rsh_sim *sim, const char *devstr)
{
	struct rsh_backend *be = &sim->be;

	be->ops = &rsh_sim_ops;
	be->drv = &rsh_sim_drv;
	snprintf(be->name, sizeof(be->name), "%s", devstr);
	be->gen = sim->cfg.gen;
	be->revision = sim->cfg.revision;
	be->bar_size = sim->bar_size;
	/* ms, rounded up; 0 asks the core for the generation default */
	be->reset_delay_ms = (uint32_t)((sim->cfg.resetdelay_ns + 999999) /
					1000000);
	/* Only this process reaches a private device; owner= is the model
	 * of another driver on it (an injected owner clears this too). */
	be->sole_driver = sim->cfg.shared[0] == '\0' &&
			  sim->cfg.owner == RSH_SIM_OWNER_NONE;
	/* livefish=1: config space only; the core stacks the gateway */
	be->cfg_only = sim->cfg.livefish;
	be->lf_quiet_ms = (uint32_t)(sim->cfg.lf_quiet_ns / 1000000);
	be->lf_seq = sim->cfg.lf_seq;
}

/* driver op: create an emulated device from its string. */
static int
rsh_sim_probe(const char *devstr, const struct rsh_open_opts *opts,
	      struct rsh_backend **out)
{
	struct rsh_sim_cfg cfg;
	struct rsh_sim *sim;
	bool fresh;
	int rc;

	RTE_SET_USED(opts);
	rc = rsh_sim_args_parse(devstr, &cfg);
	if (rc < 0)
		return rc;
	rc = -ENOMEM;
	sim = calloc(1, sizeof(*sim));
	if (sim == NULL)
		goto fail;
	sim->cfg = cfg;
	rc = rsh_sim_map_init(sim);
	if (rc < 0)
		goto fail_free;
	rsh_sim_be_init(sim, devstr);
	rc = rsh_sim_mem_attach(sim, &fresh);
	if (rc < 0)
		goto fail_free;
	rsh_sim_power_on(sim, fresh);
	rsh_sim_memacc_init(sim);
	rsh_sim_mem_ready(sim);
	rsh_sim_cost_init(sim);
	rc = rsh_sim_arm_attach(sim);
	if (rc < 0)
		goto fail_mem;
	*out = &sim->be;
	return 0;
fail_mem:
	rsh_sim_mem_detach(sim);
fail_free:
	free(sim);
fail:
	if (rc != -EINVAL) /* -EINVAL: the line is set already */
		rsh_err_set("%s: cannot create the emulated device: %s", devstr,
			    strerror(-rc));
	return rc;
}

/* driver op: 1 for "sim:..." strings. */
static int
rsh_sim_match(const char *devstr)
{
	return devstr != NULL && strncmp(devstr, "sim:", 4) == 0;
}

/* driver op: list the three emulated generations. */
static int
rsh_sim_scan(const struct rsh_open_opts *opts, struct rsh_dev_info *info,
	     unsigned int max)
{
	static const enum rsh_gen gens[] = { RSH_GEN_BF1, RSH_GEN_BF2,
					     RSH_GEN_BF3 };
	unsigned int i;

	RTE_SET_USED(opts);
	for (i = 0; i < RTE_DIM(gens) && i < max; i++) {
		struct rsh_dev_info *d = &info[i];

		memset(d, 0, sizeof(*d));
		snprintf(d->name, sizeof(d->name), "sim:bf%d", (int)gens[i]);
		snprintf(d->driver, sizeof(d->driver), "sim");
		d->gen = gens[i];
		d->revision = 1;
		d->bar_size = gens[i] == RSH_GEN_BF3 ? RSH_SIM_BAR_BF3 :
						       RSH_SIM_BAR_BF12;
		d->supported = true;
		d->iommu_group = -1; /* no host side: no kernel driver, IOMMU, link */
		d->numa_node = -1;
	}
	return (int)RTE_DIM(gens);
}

/* driver op: a shared= device is one for the host (every process that
 * names it meets the same registers); any other is private. */
static int
rsh_sim_host_key(const char *devstr, char *key, size_t len)
{
	struct rsh_sim_cfg cfg;
	int rc = rsh_sim_args_parse(devstr, &cfg);

	if (rc < 0)
		return rc;
	if (cfg.shared[0] == '\0')
		return 0;
	if ((size_t)snprintf(key, len, "sim-shared-%s", cfg.shared) >= len)
		return -ENAMETOOLONG;
	return 1;
}

static struct rsh_backend_driver rsh_sim_drv = {
	.name = "sim",
	.emulated = true,
	.match = rsh_sim_match,
	.probe = rsh_sim_probe,
	.scan = rsh_sim_scan,
	.host_key = rsh_sim_host_key,
	.help = rsh_sim_help,
};

RSH_BACKEND_REGISTER(rsh_sim_drv);

/* The sim device behind a backend, NULL if it is not one. */
static const struct rsh_sim *
rsh_sim_of(const struct rsh_backend *be)
{
	while (be != NULL && be->ops != &rsh_sim_ops && be->lower != NULL)
		be = be->lower; /* livefish: the gateway on top of us */
	if (be == NULL || be->ops != &rsh_sim_ops)
		return NULL;
	return (const struct rsh_sim *)be;
}

struct rsh_sim *
rsh_sim_of_mut(struct rsh_backend *be)
{
	return (struct rsh_sim *)rsh_sim_of(be);
}

/* The sim device behind a backend, for rsh_sim_cost.c. */
const struct rsh_sim *
rsh_sim_cast(const struct rsh_backend *be)
{
	return rsh_sim_of(be);
}
