/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * livefish=1: the emulated function has no NIC firmware. It shows the
 * livefish device ID of its generation, refuses BAR accesses, and serves
 * its registers only through the config-space window and the gateway of
 * its generation, as the hardware notes describe them:
 *
 *   0x58/0x5C  address (bit 0 = read) / data of one CR-space dword (§1.7)
 *   BF1        TRIO CR gateway: lock at 0xE38A0 (0x80000000 takes it,
 *              0xE0000000 triggers, 0 frees), 4-byte rshim accesses with
 *              big-endian data (§L2)
 *   BF2        rshim channel-1 registers at CR 0x310000 + offset (§L3)
 *   BF1/BF2    Byte Access Widget: CTL.pending, RDAT low then high,
 *              WDAT low then high, the BF2 INTERLOCK (§L4); the boot FIFO
 *              holding register merges two 4-byte writes (§1.7)
 *   BF3        MSN GW_CR_64B: REG0 (a read that finds bit 31 clear takes
 *              the lock, inferred), REG0_COPY, BUSY, ADDR in dwords
 *              without bit 28; no access in the quiet window after a
 *              RESET_CONTROL write (§L5, §L6)
 *
 * A driver that breaks the protocol (a widget read while pending, a
 * trigger without the lock, a 4-byte access of a FIFO data register, an
 * access in the BF3 quiet window) is counted in lf_violations / lf_early
 * and gets all-ones; faults: lfstuck=lock|busy. The gateway's rshim
 * accesses go to the same register model as BAR accesses do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_parse.h"
#include "rsh_sim_priv.h"

#define RSH_SIM_LF_ADDR 0x58u
#define RSH_SIM_LF_DATA 0x5Cu
#define RSH_SIM_LF_RSH_BASE 0x80000000u  /* BF1/BF2 rshim address */
#define RSH_SIM_LF_CH1 0x10000u
#define RSH_SIM_TRIO_LOCK 0xE38A0u
#define RSH_SIM_TRIO_DATA 0xE38B0u
#define RSH_SIM_TRIO_CTL 0xE38B4u
#define RSH_SIM_TRIO_ADDR 0xE38BCu
#define RSH_SIM_TRIO_HELD 0x80000000u
#define RSH_SIM_TRIO_TRIGGER 0xE0000000u
#define RSH_SIM_BF2_CR 0x310000u
#define RSH_SIM_BAW_CTL 0x490u
#define RSH_SIM_BAW_WDAT 0x498u
#define RSH_SIM_BAW_RDAT 0x4A0u
#define RSH_SIM_BAW_ADDR 0x4A8u
#define RSH_SIM_BAW_INTERLOCK 0x4B0u
#define RSH_SIM_BAW_TRIGGER 0x40u
#define RSH_SIM_BAW_PENDING 0x20u
#define RSH_SIM_MSN_REG0 0xAE01040u
#define RSH_SIM_MSN_COPY 0xAE01044u
#define RSH_SIM_MSN_TYPE 0xAE0104Cu
#define RSH_SIM_MSN_HI 0xAE01050u
#define RSH_SIM_MSN_LO 0xAE01054u
#define RSH_SIM_MSN_ADDR 0xAE01058u
#define RSH_SIM_MSN_WIDTH 0xAE0105Cu
#define RSH_SIM_MSN_LOCK 0x80000000u
#define RSH_SIM_MSN_BUSY 0x40000000u
#define RSH_SIM_MSN_W32 0x1F00u
#define RSH_SIM_BF3_LF_BASE 0x03000000u

/* A protocol violation: counted; reads then get all-ones. */
static uint32_t
rsh_sim_lf_bad(struct rsh_sim *sim)
{
	RSH_SIM_ST_ADD(sim, lf_violations, 1);
	return UINT32_MAX;
}

/* BF1/BF2 rshim address (0x80000000 | BAR offset) to a BAR offset. */
static int64_t
rsh_sim_lf_rsh_off(const struct rsh_sim *sim, uint32_t addr)
{
	uint32_t off = addr & ~RSH_SIM_LF_RSH_BASE;

	if (!(addr & RSH_SIM_LF_RSH_BASE) || off >= sim->bar_size)
		return -1;
	return off;
}

/* One 64-bit access the widget or the MSN gateway makes. */
static uint64_t
rsh_sim_lf_rd64(struct rsh_sim *sim, uint32_t off, uint64_t now)
{
	RSH_SIM_ST_ADD(sim, lf_gw_ops, 1);
	return rsh_sim_do_read64(&sim->be, off, now);
}

static void
rsh_sim_lf_wr64(struct rsh_sim *sim, uint32_t off, uint64_t v, uint64_t now)
{
	RSH_SIM_ST_ADD(sim, lf_gw_ops, 1);
	rsh_sim_do_write64(&sim->be, off, v, now);
}

/* ---- Byte Access Widget and 4-byte rshim accesses (BF1/BF2) ---- */

/* Widget CTL read: pending for lf_pend polls after a step. */
static uint32_t
rsh_sim_baw_ctl(struct rsh_sim *sim)
{
	struct rsh_sim_lf *l = &sim->lf;

	if (sim->cfg.lf_stuck == RSH_SIM_LF_STUCK_BUSY)
		return l->baw_ctl | RSH_SIM_BAW_PENDING;
	if (l->baw_pend == 0)
		return l->baw_ctl & ~RSH_SIM_BAW_PENDING;
	l->baw_pend--;
	return l->baw_ctl | RSH_SIM_BAW_PENDING;
}

/* BF2 widget accesses need the interlock (§L4). */
static bool
rsh_sim_baw_locked(struct rsh_sim *sim)
{
	return sim->cfg.gen != RSH_GEN_BF2 || sim->lf.baw_interlock;
}

/* One 4-byte read of a channel-1 or widget register at BAR offset off. */
static uint32_t
rsh_sim_lf_rd32(struct rsh_sim *sim, uint32_t off, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;
	uint64_t v;

	switch (off) {
	case RSH_SIM_LF_CH1 | RSH_SIM_BAW_CTL:
		return rsh_sim_baw_ctl(sim);
	case RSH_SIM_LF_CH1 | RSH_SIM_BAW_RDAT:
		if (l->baw_pend != 0 || !rsh_sim_baw_locked(sim) ||
		    sim->cfg.lf_stuck == RSH_SIM_LF_STUCK_BUSY)
			return rsh_sim_lf_bad(sim);
		v = l->baw_rhalf ? l->baw_rval >> 32 : l->baw_rval;
		l->baw_rhalf = !l->baw_rhalf;
		l->baw_pend = l->baw_rhalf ? sim->cfg.lf_pend : 0;
		return (uint32_t)v;
	case RSH_SIM_LF_CH1 | RSH_SIM_BAW_INTERLOCK:
		if (sim->cfg.gen != RSH_GEN_BF2 || l->baw_interlock ||
		    sim->cfg.lf_stuck == RSH_SIM_LF_STUCK_LOCK)
			return 0; /* held (by someone) */
		l->baw_interlock = true;
		return 1;
	case RSH_SIM_LF_CH1 | RSH_SIM_BAW_ADDR:
		return l->baw_addr;
	default:
		break;
	}
	if (rsh_sim_reg_side_effect((int)sim->cfg.gen, off) || off >= sim->bar_size)
		return rsh_sim_lf_bad(sim);
	v = rsh_sim_lf_rd64(sim, off & ~7u, now);
	return (off & 4) ? (uint32_t)(v >> 32) : (uint32_t)v;
}

/* Widget CTL write: a read trigger fetches the whole 64-bit register. */
static void
rsh_sim_baw_ctl_wr(struct rsh_sim *sim, uint32_t v, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;
	int64_t t = rsh_sim_lf_rsh_off(sim, l->baw_addr);

	l->baw_ctl = v & ~RSH_SIM_BAW_PENDING;
	l->baw_whalf = false;
	if (!(v & RSH_SIM_BAW_TRIGGER))
		return;
	if (t < 0 || (t & 7) != 0) {
		rsh_sim_lf_bad(sim);
		return;
	}
	l->baw_rval = rsh_sim_lf_rd64(sim, (uint32_t)t, now);
	l->baw_rhalf = false;
	l->baw_pend = sim->cfg.lf_pend;
}

/* Widget WDAT write: the low half, then the high half commits. */
static void
rsh_sim_baw_wdat(struct rsh_sim *sim, uint32_t v, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;
	int64_t t = rsh_sim_lf_rsh_off(sim, l->baw_addr);

	if (!l->baw_whalf) {
		l->baw_wlo = v;
		l->baw_whalf = true;
		l->baw_pend = sim->cfg.lf_pend;
		return;
	}
	l->baw_whalf = false;
	if (l->baw_pend != 0 || t < 0 || (t & 7) != 0) {
		rsh_sim_lf_bad(sim);
		return;
	}
	rsh_sim_lf_wr64(sim, (uint32_t)t, (uint64_t)v << 32 | l->baw_wlo, now);
}

/* One 4-byte write: the widget, or the boot FIFO holding register. */
static void
rsh_sim_lf_wr32(struct rsh_sim *sim, uint32_t off, uint32_t v, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;
	uint64_t w;

	if (off == sim->off[RSH_SIM_REG_BOOT_FIFO_DATA]) {
		if (!l->hold_half) {
			l->hold_lo = v;
			l->hold_half = true;
			return;
		}
		l->hold_half = false;
		w = (uint64_t)v << 32 | l->hold_lo;
		RSH_SIM_ST_ADD(sim, lf_gw_ops, 1);
		rsh_sim_boot_write(sim, &w, 1, now);
		return;
	}
	if (off == (RSH_SIM_LF_CH1 | RSH_SIM_BAW_INTERLOCK)) {
		if (v == 0)
			l->baw_interlock = false;
		return;
	}
	if (!rsh_sim_baw_locked(sim)) {
		rsh_sim_lf_bad(sim);
		return;
	}
	if (off == (RSH_SIM_LF_CH1 | RSH_SIM_BAW_ADDR))
		l->baw_addr = v;
	else if (off == (RSH_SIM_LF_CH1 | RSH_SIM_BAW_CTL))
		rsh_sim_baw_ctl_wr(sim, v, now);
	else if (off == (RSH_SIM_LF_CH1 | RSH_SIM_BAW_WDAT))
		rsh_sim_baw_wdat(sim, v, now);
	else
		rsh_sim_lf_bad(sim); /* a half write of a 64-bit register */
}

/* ---- BF1 TRIO CR gateway ---- */

/* A trigger: one 4-byte rshim access; data big-endian (§L2). */
static void
rsh_sim_trio_trigger(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;
	int64_t off = rsh_sim_lf_rsh_off(sim, l->trio_addr);

	if (!(l->trio_lock & RSH_SIM_TRIO_HELD) || off < 0 || (off & 3) ||
	    (l->trio_ctl != 6 && l->trio_ctl != 2)) {
		rsh_sim_lf_bad(sim);
		return;
	}
	if (l->trio_ctl == 6)
		l->trio_data = rte_cpu_to_be_32(
			rsh_sim_lf_rd32(sim, (uint32_t)off, now));
	else
		rsh_sim_lf_wr32(sim, (uint32_t)off,
				rte_be_to_cpu_32(l->trio_data), now);
}

/* Lock register write: take (if free), trigger (held), free. */
static void
rsh_sim_trio_lock_wr(struct rsh_sim *sim, uint32_t v, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;

	if (v == RSH_SIM_TRIO_TRIGGER)
		return rsh_sim_trio_trigger(sim, now);
	if (v == 0) {
		l->trio_lock = 0;
		return;
	}
	if ((l->trio_lock & RSH_SIM_TRIO_HELD) ||
	    sim->cfg.lf_stuck == RSH_SIM_LF_STUCK_LOCK) {
		rsh_sim_lf_bad(sim); /* taken while another holds it */
		return;
	}
	l->trio_lock = v & RSH_SIM_TRIO_HELD;
}

/* ---- BF3 MSN GW_CR_64B ---- */

/* A 32-bit MSN access (ACC_WIDTH 0x1F00): the half of the 64-bit
 * register; a write merges into the stored other half (no read, so a
 * FIFO does not pop), as 32-bit BAR writes do. */
static void
rsh_sim_msn_w32(struct rsh_sim *sim, uint32_t off, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;
	uint32_t a = off & ~7u;
	uint64_t v, old = sim->mem[a >> 3];

	if (l->msn_type == 1) {
		if (rsh_sim_reg_side_effect((int)sim->cfg.gen, a)) {
			l->msn_lo = rsh_sim_lf_bad(sim);
			return;
		}
		v = rsh_sim_lf_rd64(sim, a, now);
		l->msn_lo = (off & 4) ? (uint32_t)(v >> 32) : (uint32_t)v;
		l->msn_hi = 0;
		return;
	}
	v = (off & 4) ? (old & UINT32_MAX) | (uint64_t)l->msn_lo << 32 :
			(old & ~(uint64_t)UINT32_MAX) | l->msn_lo;
	rsh_sim_lf_wr64(sim, a, v, now);
}

/* A trigger: the access ADDR/ACC_WIDTH/ACC_TYPE describe. */
static void
rsh_sim_msn_trigger(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;
	uint64_t g = (uint64_t)l->msn_addr << 2, v;
	uint32_t off = (uint32_t)(g - RSH_SIM_BF3_LF_BASE);
	bool w32 = l->msn_width == RSH_SIM_MSN_W32;

	if (!(l->msn_reg0 & RSH_SIM_MSN_LOCK) || g < RSH_SIM_BF3_LF_BASE ||
	    off >= sim->bar_size || (off & (w32 ? 3 : 7))) {
		rsh_sim_lf_bad(sim);
		return;
	}
	l->msn_busy = sim->cfg.lf_pend;
	if (w32)
		return rsh_sim_msn_w32(sim, off, now);
	if (l->msn_type == 1) {
		v = rsh_sim_lf_rd64(sim, off, now);
		l->msn_lo = (uint32_t)v;
		l->msn_hi = (uint32_t)(v >> 32);
		return;
	}
	v = (uint64_t)l->msn_hi << 32 | l->msn_lo;
	rsh_sim_lf_wr64(sim, off, v, now);
	if (off == sim->off[RSH_SIM_REG_RESET_CONTROL])
		l->quiet_until = now + rsh_sim_ns_to_cyc(sim, sim->cfg.lf_quiet_ns);
}

/* REG0 write: BUSY triggers (lock held); bit 31 clear frees the lock. */
static void
rsh_sim_msn_reg0_wr(struct rsh_sim *sim, uint32_t v, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;

	if (v & RSH_SIM_MSN_BUSY) {
		if (l->msn_busy != 0)
			rsh_sim_lf_bad(sim); /* triggered while busy */
		else
			rsh_sim_msn_trigger(sim, now);
		l->msn_reg0 = (l->msn_reg0 & RSH_SIM_MSN_LOCK) |
			      (v & ~RSH_SIM_MSN_BUSY);
		return;
	}
	if (l->msn_busy != 0 && sim->cfg.lf_stuck != RSH_SIM_LF_STUCK_BUSY)
		rsh_sim_lf_bad(sim); /* freed while busy */
	l->msn_busy = 0;
	l->msn_reg0 = v & ~RSH_SIM_MSN_BUSY;
}

/* REG0 / REG0_COPY read; a REG0 read with the lock free takes it. */
static uint32_t
rsh_sim_msn_reg0_rd(struct rsh_sim *sim, bool copy)
{
	struct rsh_sim_lf *l = &sim->lf;
	bool busy = l->msn_busy != 0 ||
		    (sim->cfg.lf_stuck == RSH_SIM_LF_STUCK_BUSY &&
		     l->msn_reg0 & RSH_SIM_MSN_LOCK);
	uint32_t v = l->msn_reg0 | (busy ? RSH_SIM_MSN_BUSY : 0);

	if (copy) {
		if (l->msn_busy != 0)
			l->msn_busy--;
		return v;
	}
	if (sim->cfg.lf_stuck == RSH_SIM_LF_STUCK_LOCK)
		return v | RSH_SIM_MSN_LOCK; /* another agent holds it */
	l->msn_reg0 |= RSH_SIM_MSN_LOCK;
	return v;
}

/* ---- CR space ---- */

/* One CR-space read of the generation's gateway. */
static uint32_t
rsh_sim_cr_rd(struct rsh_sim *sim, uint32_t a, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;

	if (sim->cfg.gen == RSH_GEN_BF2 && a >= RSH_SIM_BF2_CR &&
	    a < RSH_SIM_BF2_CR + 0x10000u)
		return rsh_sim_lf_rd32(sim, RSH_SIM_LF_CH1 | (a & 0xFFFFu), now);
	if (sim->cfg.gen == RSH_GEN_BF1) {
		switch (a) {
		case RSH_SIM_TRIO_LOCK:
			return sim->cfg.lf_stuck == RSH_SIM_LF_STUCK_LOCK ?
			       RSH_SIM_TRIO_HELD : l->trio_lock;
		case RSH_SIM_TRIO_DATA: return l->trio_data;
		case RSH_SIM_TRIO_CTL: return l->trio_ctl;
		case RSH_SIM_TRIO_ADDR: return l->trio_addr;
		default: return 0;
		}
	}
	if (sim->cfg.gen != RSH_GEN_BF3)
		return 0;
	switch (a) {
	case RSH_SIM_MSN_REG0: return rsh_sim_msn_reg0_rd(sim, false);
	case RSH_SIM_MSN_COPY: return rsh_sim_msn_reg0_rd(sim, true);
	case RSH_SIM_MSN_TYPE: return l->msn_type;
	case RSH_SIM_MSN_HI: return l->msn_busy ? rsh_sim_lf_bad(sim) : l->msn_hi;
	case RSH_SIM_MSN_LO: return l->msn_busy ? rsh_sim_lf_bad(sim) : l->msn_lo;
	case RSH_SIM_MSN_ADDR: return l->msn_addr;
	case RSH_SIM_MSN_WIDTH: return l->msn_width;
	default: return 0;
	}
}

/* One CR-space write of the generation's gateway. */
static void
rsh_sim_cr_wr(struct rsh_sim *sim, uint32_t a, uint32_t v, uint64_t now)
{
	struct rsh_sim_lf *l = &sim->lf;

	if (sim->cfg.gen == RSH_GEN_BF2 && a >= RSH_SIM_BF2_CR &&
	    a < RSH_SIM_BF2_CR + 0x10000u)
		return rsh_sim_lf_wr32(sim, RSH_SIM_LF_CH1 | (a & 0xFFFFu), v, now);
	if (sim->cfg.gen == RSH_GEN_BF1) {
		switch (a) {
		case RSH_SIM_TRIO_LOCK: return rsh_sim_trio_lock_wr(sim, v, now);
		case RSH_SIM_TRIO_DATA: l->trio_data = v; return;
		case RSH_SIM_TRIO_CTL: l->trio_ctl = v; return;
		case RSH_SIM_TRIO_ADDR: l->trio_addr = v; return;
		default: return;
		}
	}
	if (sim->cfg.gen != RSH_GEN_BF3)
		return;
	switch (a) {
	case RSH_SIM_MSN_REG0: return rsh_sim_msn_reg0_wr(sim, v, now);
	case RSH_SIM_MSN_TYPE: l->msn_type = v; return;
	case RSH_SIM_MSN_HI: l->msn_hi = v; return;
	case RSH_SIM_MSN_LO: l->msn_lo = v; return;
	case RSH_SIM_MSN_ADDR: l->msn_addr = v; return;
	case RSH_SIM_MSN_WIDTH: l->msn_width = v; return;
	default: return;
	}
}

/* ---- config space: the window ---- */

/* BF3 quiet window: the gateway is not to be touched (§L6). */
static bool
rsh_sim_lf_early(struct rsh_sim *sim, uint64_t now)
{
	if (now >= sim->lf.quiet_until)
		return false;
	RSH_SIM_ST_ADD(sim, lf_early, 1);
	return true;
}

/* backend op: one config dword (only the window is modelled here; the
 * rest of config space is the PCI front end's). */
int
rsh_sim_lf_cfg_read(struct rsh_backend *be, uint32_t off, uint32_t *v)
{
	struct rsh_sim *sim = rsh_sim_of_mut(be);
	uint64_t now;

	if (sim == NULL || !sim->cfg.livefish)
		return -ENOTSUP;
	now = rsh_sim_cost_cfg(sim);
	RSH_SIM_ST_ADD(sim, lf_cfg_reads, 1);
	if (off == RSH_SIM_LF_ADDR)
		*v = sim->lf.win_addr;
	else if (off == RSH_SIM_LF_DATA)
		*v = rsh_sim_lf_early(sim, now) ? UINT32_MAX : sim->lf.win_data;
	else
		*v = 0;
	rsh_sim_cost_leave(sim);
	return 0;
}

/* The address register: a read fetches the dword, a write stores it. */
int
rsh_sim_lf_cfg_write(struct rsh_backend *be, uint32_t off, uint32_t v)
{
	struct rsh_sim *sim = rsh_sim_of_mut(be);
	uint64_t now;

	if (sim == NULL || !sim->cfg.livefish)
		return -ENOTSUP;
	now = rsh_sim_cost_cfg(sim);
	RSH_SIM_ST_ADD(sim, lf_cfg_writes, 1);
	if (off == RSH_SIM_LF_DATA) {
		sim->lf.win_data = v;
	} else if (off == RSH_SIM_LF_ADDR && !rsh_sim_lf_early(sim, now)) {
		sim->lf.win_addr = v;
		if (v & 1u)
			sim->lf.win_data = rsh_sim_cr_rd(sim, v & ~1u, now);
		else
			rsh_sim_cr_wr(sim, v, sim->lf.win_data, now);
	}
	rsh_sim_cost_leave(sim);
	return 0;
}

/* livefish=1: no usable BAR, every BAR access refused (counted). */
bool
rsh_sim_lf_nobar(struct rsh_sim *sim, unsigned int n)
{
	if (!sim->cfg.livefish)
		return false;
	RSH_SIM_ST_ADD(sim, lf_bar_refused, n);
	return true;
}

/* ---- options ---- */

int
rsh_sim_opt_livefish(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_parse_bool(v, &cfg->livefish);
}

int
rsh_sim_opt_lfstuck(struct rsh_sim_cfg *cfg, const char *v)
{
	if (strcmp(v, "lock") == 0)
		cfg->lf_stuck = RSH_SIM_LF_STUCK_LOCK;
	else if (strcmp(v, "busy") == 0)
		cfg->lf_stuck = RSH_SIM_LF_STUCK_BUSY;
	else
		return -EINVAL;
	return 0;
}

int
rsh_sim_opt_lfpend(struct rsh_sim_cfg *cfg, const char *v)
{
	uint64_t n;

	if (rsh_parse_uint(v, 0, 1000, &n) < 0)
		return -EINVAL;
	cfg->lf_pend = (uint32_t)n;
	return 0;
}

int
rsh_sim_opt_lfquiet(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_parse_duration(v, 0, 0, 60000000000ull, &cfg->lf_quiet_ns);
}

int
rsh_sim_opt_lfseq(struct rsh_sim_cfg *cfg, const char *v)
{
	if (strcmp(v, "pmd") == 0)
		cfg->lf_seq = 0;
	else if (strcmp(v, "ref") == 0)
		cfg->lf_seq = 1;
	else
		return -EINVAL;
	return 0;
}

int
rsh_sim_opt_cfgns(struct rsh_sim_cfg *cfg, const char *v)
{
	cfg->cost_on = true;
	return rsh_parse_uint(v, 0, 1000000, &cfg->cfg_ns);
}
