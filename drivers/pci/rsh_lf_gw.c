/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The livefish gateways, one access each: the config-space window, the
 * BF1 TRIO CR gateway, the BF2 CR window, the Byte Access Widget (BF1,
 * BF2) and the BF3 MSN GW_CR_64B gateway. Every lock, busy and pending
 * poll ends at the reference's 2 s (RSHIM_LOCK_RETRY_TIME) with an error
 * line naming the register: a gateway that never frees is an error.
 *
 * Two sequences (rsh_lf.ref): the reference daemon's, as its code
 * behaves, for the benchmark's baseline; and rshim-pmd's, which takes the
 * BF1/BF3 gateway lock once per backend op (a whole FIFO burst) and does
 * not reprogram gateway registers that still hold the value it wrote
 * while it held the lock (inferred: the hardware notes give no reason for
 * them to change under a held lock, §L2, §L5).
 *
 * Facts: doc/hardware-notes.md §1.7, §L1-§L6.
 */
#include <errno.h>

#include <rte_byteorder.h>

#define RSH_LOGTYPE rsh_logtype_vfio
#include "rsh_lf.h"
#include "rsh_log.h"

#define RSH_LF_CH1 0x10000u /* BAR offset of rshim channel 1, §1.3 */

/* One config-space dword, counted as a config cycle. */
static int
rsh_lf_cfg_rd(struct rsh_lf *lf, uint32_t off, uint32_t *v)
{
	int rc = lf->low->ops->cfg_read(lf->low, off, v);

	rsh_backend_count(&lf->be.stats.reads, 1);
	if (rc < 0)
		lf->st.cfg_errors++;
	return rc;
}

static int
rsh_lf_cfg_wr(struct rsh_lf *lf, uint32_t off, uint32_t v)
{
	int rc = lf->low->ops->cfg_write(lf->low, off, v);

	rsh_backend_count(&lf->be.stats.writes, 1);
	if (rc < 0)
		lf->st.cfg_errors++;
	return rc;
}

/* CR read: the address with bit 0 set into 0x58, then 0x5C (§1.7). */
int
rsh_lf_cr_rd(struct rsh_lf *lf, uint32_t addr, uint32_t *v)
{
	int rc = rsh_lf_cfg_wr(lf, RSH_LF_CFG_ADDR, addr | RSH_LF_CFG_READ);

	return rc < 0 ? rc : rsh_lf_cfg_rd(lf, RSH_LF_CFG_DATA, v);
}

/* CR write: the data into 0x5C, then the address (bit 0 clear). */
int
rsh_lf_cr_wr(struct rsh_lf *lf, uint32_t addr, uint32_t v)
{
	int rc = rsh_lf_cfg_wr(lf, RSH_LF_CFG_DATA, v);

	return rc < 0 ? rc : rsh_lf_cfg_wr(lf, RSH_LF_CFG_ADDR, addr);
}

typedef int (*rsh_lf_rd_fn)(struct rsh_lf *lf, uint32_t addr, uint32_t *v);

/* Read addr with rd until (v & mask) == want; at most 2 s (§L6). The
 * clock is read only once the first read found it busy. */
static int
rsh_lf_poll(struct rsh_lf *lf, rsh_lf_rd_fn rd, uint32_t addr, uint32_t mask,
	    uint32_t want, uint64_t *polls, const char *what, uint32_t *out)
{
	uint64_t end = 0;
	uint32_t v = 0;
	int rc;

	for (;;) {
		rc = rd(lf, addr, &v);
		if (rc < 0)
			return rc;
		if ((v & mask) == want)
			break;
		(*polls)++;
		if (end == 0) {
			end = rsh_now() + rsh_ms_cyc(RSH_LF_POLL_MS);
		} else if (rsh_now() >= end) {
			lf->st.timeouts++;
			RSH_DEV_LOG(ERR, &lf->be, "livefish gateway: %s (0x%x) still reads 0x%08x after %u ms: another agent holds it or the gateway is stuck; accesses fail for %u ms, then it is tried again",
				    what, addr, v, RSH_LF_POLL_MS,
				    RSH_LF_FAIL_BACKOFF_MS);
			return -ETIMEDOUT;
		}
	}
	if (out != NULL)
		*out = v;
	return 0;
}

/* ---- BF1: TRIO CR gateway (§L2) ---- */

/* Take the lock: wait until bit 31 is clear, then write it. */
int
rsh_lf_trio_lock(struct rsh_lf *lf)
{
	int rc = rsh_lf_poll(lf, rsh_lf_cr_rd, RSH_LF_TRIO_LOCK,
			     RSH_LF_TRIO_LOCKED, 0, &lf->st.lock_polls,
			     "TRIO CR gateway lock", NULL);

	if (rc == 0)
		rc = rsh_lf_cr_wr(lf, RSH_LF_TRIO_LOCK, RSH_LF_TRIO_LOCKED);
	lf->held = rc == 0;
	lf->cache_ok = false;
	return rc;
}

/* Free the lock. */
int
rsh_lf_trio_unlock(struct rsh_lf *lf)
{
	lf->held = false;
	lf->cache_ok = false;
	return rsh_lf_cr_wr(lf, RSH_LF_TRIO_LOCK, 0);
}

/* Address and control of the next trigger, unless they hold them. */
static int
rsh_lf_trio_setup(struct rsh_lf *lf, uint32_t addr, uint32_t ctl)
{
	int rc;

	if (!lf->ref && lf->cache_ok && lf->trio_addr == addr &&
	    lf->trio_ctl == ctl)
		return 0;
	rc = rsh_lf_cr_wr(lf, RSH_LF_TRIO_ADDR_LO, addr);
	if (rc == 0)
		rc = rsh_lf_cr_wr(lf, RSH_LF_TRIO_CTL, ctl);
	lf->cache_ok = rc == 0 && lf->held;
	lf->trio_addr = addr;
	lf->trio_ctl = ctl;
	return rc;
}

/* One 4-byte rshim read; the data register is big-endian (§L2). The
 * lock is taken here unless the op holds it. */
static int
rsh_lf_trio_rd(struct rsh_lf *lf, uint32_t addr, uint32_t *v)
{
	bool own = !lf->held;
	uint32_t d = 0;
	int rc = own ? rsh_lf_trio_lock(lf) : 0;

	if (rc < 0)
		return rc;
	rc = rsh_lf_trio_setup(lf, addr, RSH_LF_TRIO_RD4);
	if (rc == 0)
		rc = rsh_lf_cr_wr(lf, RSH_LF_TRIO_LOCK, RSH_LF_TRIO_TRIGGER);
	if (rc == 0)
		rc = rsh_lf_cr_rd(lf, RSH_LF_TRIO_DATA_LO, &d);
	*v = rte_be_to_cpu_32(d);
	if (own && rsh_lf_trio_unlock(lf) < 0 && rc == 0)
		rc = -EIO;
	return rc;
}

/* One 4-byte rshim write (data byte-swapped, then address, control,
 * trigger, as the reference orders them). */
static int
rsh_lf_trio_wr(struct rsh_lf *lf, uint32_t addr, uint32_t v)
{
	bool own = !lf->held;
	int rc = own ? rsh_lf_trio_lock(lf) : 0;

	if (rc < 0)
		return rc;
	rc = rsh_lf_cr_wr(lf, RSH_LF_TRIO_DATA_LO, rte_cpu_to_be_32(v));
	if (rc == 0)
		rc = rsh_lf_trio_setup(lf, addr, RSH_LF_TRIO_WR4);
	if (rc == 0)
		rc = rsh_lf_cr_wr(lf, RSH_LF_TRIO_LOCK, RSH_LF_TRIO_TRIGGER);
	if (own && rsh_lf_trio_unlock(lf) < 0 && rc == 0)
		rc = -EIO;
	return rc;
}

/* ---- BF1/BF2: 4-byte rshim access, the Byte Access Widget ---- */

/* BF2: channel-1 registers straight in CR space (§L3); BF1: TRIO. */
int
rsh_lf_rsh_rd32(struct rsh_lf *lf, uint32_t off, uint32_t *v)
{
	if (lf->be.gen == RSH_GEN_BF2)
		return rsh_lf_cr_rd(lf, RSH_LF_BF2_CR_BASE + (off & 0xFFFFu), v);
	return rsh_lf_trio_rd(lf, RSH_LF_RSH_BASE | off, v);
}

int
rsh_lf_rsh_wr32(struct rsh_lf *lf, uint32_t off, uint32_t v)
{
	if (lf->be.gen == RSH_GEN_BF2)
		return rsh_lf_cr_wr(lf, RSH_LF_BF2_CR_BASE + (off & 0xFFFFu), v);
	return rsh_lf_trio_wr(lf, RSH_LF_RSH_BASE | off, v);
}

/* Wait until the widget's CTL.pending (bit 5) is clear. */
static int
rsh_lf_baw_pending(struct rsh_lf *lf)
{
	return rsh_lf_poll(lf, rsh_lf_rsh_rd32, RSH_LF_CH1 | RSH_LF_BAW_CTL,
			   RSH_LF_BAW_PENDING, 0, &lf->st.busy_polls,
			   "Byte Access Widget CTL.pending", NULL);
}

/* BF2: spin until INTERLOCK reads bit 0 set (ours); BF1 has none. */
static int
rsh_lf_baw_lock(struct rsh_lf *lf)
{
	if (lf->be.gen != RSH_GEN_BF2)
		return 0;
	return rsh_lf_poll(lf, rsh_lf_rsh_rd32, RSH_LF_CH1 |
			   RSH_LF_BAW_INTERLOCK, 1, 1, &lf->st.lock_polls,
			   "Byte Access Widget INTERLOCK", NULL);
}

/* BF2: release the interlock, keeping the first error. */
static int
rsh_lf_baw_unlock(struct rsh_lf *lf, int rc)
{
	int rc2;

	if (lf->be.gen != RSH_GEN_BF2)
		return rc;
	rc2 = rsh_lf_rsh_wr32(lf, RSH_LF_CH1 | RSH_LF_BAW_INTERLOCK, 0);
	return rc < 0 ? rc : rc2;
}

/* 64-bit read: pending, interlock, ADDR, CTL = trigger | 4 bytes, then
 * the low and the high half from RDAT, each after pending (§L4). */
int
rsh_lf_baw_rd64(struct rsh_lf *lf, uint32_t off, uint64_t *v)
{
	uint32_t lo = 0, hi = 0;
	int rc = rsh_lf_baw_pending(lf);

	if (rc == 0)
		rc = rsh_lf_baw_lock(lf);
	if (rc < 0)
		return rc;
	rc = rsh_lf_rsh_wr32(lf, RSH_LF_CH1 | RSH_LF_BAW_ADDR,
			     RSH_LF_RSH_BASE | off);
	if (rc == 0)
		rc = rsh_lf_rsh_wr32(lf, RSH_LF_CH1 | RSH_LF_BAW_CTL,
				     RSH_LF_BAW_TRIGGER | RSH_LF_BAW_SIZE4);
	if (rc == 0)
		rc = rsh_lf_baw_pending(lf);
	if (rc == 0)
		rc = rsh_lf_rsh_rd32(lf, RSH_LF_CH1 | RSH_LF_BAW_RDAT, &lo);
	if (rc == 0)
		rc = rsh_lf_baw_pending(lf);
	if (rc == 0)
		rc = rsh_lf_rsh_rd32(lf, RSH_LF_CH1 | RSH_LF_BAW_RDAT, &hi);
	*v = (uint64_t)hi << 32 | lo;
	return rsh_lf_baw_unlock(lf, rc);
}

/* 64-bit write: interlock, ADDR, CTL = 4 bytes, WDAT low, pending, WDAT
 * high (§L4; no pending wait first, as the reference). */
int
rsh_lf_baw_wr64(struct rsh_lf *lf, uint32_t off, uint64_t v)
{
	int rc = rsh_lf_baw_lock(lf);

	if (rc < 0)
		return rc;
	rc = rsh_lf_rsh_wr32(lf, RSH_LF_CH1 | RSH_LF_BAW_ADDR,
			     RSH_LF_RSH_BASE | off);
	if (rc == 0)
		rc = rsh_lf_rsh_wr32(lf, RSH_LF_CH1 | RSH_LF_BAW_CTL,
				     RSH_LF_BAW_SIZE4);
	if (rc == 0)
		rc = rsh_lf_rsh_wr32(lf, RSH_LF_CH1 | RSH_LF_BAW_WDAT,
				     (uint32_t)v);
	if (rc == 0)
		rc = rsh_lf_baw_pending(lf);
	if (rc == 0)
		rc = rsh_lf_rsh_wr32(lf, RSH_LF_CH1 | RSH_LF_BAW_WDAT,
				     (uint32_t)(v >> 32));
	return rsh_lf_baw_unlock(lf, rc);
}

/* ---- BF3: MSN GW_CR_64B (§L5) ---- */

/* Take the lock: REG0 reads with bit 31 clear (inferred: the read takes
 * it; the reference never writes the bit, it only waits and triggers). */
int
rsh_lf_msn_lock(struct rsh_lf *lf)
{
	int rc = rsh_lf_poll(lf, rsh_lf_cr_rd, RSH_LF_MSN_REG0,
			     RSH_LF_MSN_LOCK, 0, &lf->st.lock_polls,
			     "MSN GW_CR_64B lock (REG0 bit 31)", NULL);

	lf->held = rc == 0;
	lf->cache_ok = false;
	lf->reg0_ok = false;
	return rc;
}

/* Free the lock: REG0 = 0. */
int
rsh_lf_msn_unlock(struct rsh_lf *lf)
{
	lf->held = false;
	lf->cache_ok = false;
	lf->reg0_ok = false;
	return rsh_lf_cr_wr(lf, RSH_LF_MSN_REG0, 0);
}

/* ADDR (dwords, bit 28 stripped), ACC_WIDTH, ACC_TYPE, unless held. */
static int
rsh_lf_msn_setup(struct rsh_lf *lf, uint32_t off, uint32_t type, bool w32)
{
	uint32_t addr = (RSH_LF_BF3_BASE + off) >> 2;
	uint32_t width = w32 ? RSH_LF_MSN_W32 : RSH_LF_MSN_W64;
	int rc;

	if (!lf->ref && lf->cache_ok && lf->msn_addr == addr &&
	    lf->msn_type == type && lf->msn_width == width)
		return 0;
	rc = rsh_lf_cr_wr(lf, RSH_LF_MSN_ADDR, addr);
	if (rc == 0)
		rc = rsh_lf_cr_wr(lf, RSH_LF_MSN_ACC_WIDTH, width);
	if (rc == 0)
		rc = rsh_lf_cr_wr(lf, RSH_LF_MSN_ACC_TYPE, type);
	lf->cache_ok = rc == 0 && lf->held && !lf->ref;
	lf->msn_addr = addr;
	lf->msn_type = type;
	lf->msn_width = width;
	return rc;
}

/* Set BUSY on the REG0 value: read back (the reference, and the first
 * trigger of a hold) or as the last busy poll's REG0_COPY showed it. */
static int
rsh_lf_msn_trigger(struct rsh_lf *lf)
{
	int rc = 0;

	if (lf->ref || !lf->reg0_ok)
		rc = rsh_lf_cr_rd(lf, RSH_LF_MSN_REG0, &lf->msn_reg0);
	lf->reg0_ok = rc == 0 && !lf->ref;
	return rc < 0 ? rc : rsh_lf_cr_wr(lf, RSH_LF_MSN_REG0,
					  lf->msn_reg0 | RSH_LF_MSN_BUSY);
}

/* Wait for BUSY to clear in REG0_COPY (no side effect there). */
static int
rsh_lf_msn_busy(struct rsh_lf *lf)
{
	return rsh_lf_poll(lf, rsh_lf_cr_rd, RSH_LF_MSN_REG0_COPY,
			   RSH_LF_MSN_BUSY, 0, &lf->st.busy_polls,
			   "MSN GW_CR_64B busy (REG0 bit 30)", &lf->msn_reg0);
}

/* One 64-bit read, or a 32-bit one (w32: ACC_WIDTH 0x1F00, DATA_LOW
 * only, as the reference does for a 4-byte access). */
int
rsh_lf_msn_rd(struct rsh_lf *lf, uint32_t off, uint64_t *v, bool w32)
{
	bool own = !lf->held;
	uint32_t lo = 0, hi = 0;
	int rc = own ? rsh_lf_msn_lock(lf) : 0;

	if (rc < 0)
		return rc;
	rc = rsh_lf_msn_setup(lf, off, RSH_LF_MSN_READ, w32);
	if (rc == 0)
		rc = rsh_lf_msn_trigger(lf);
	if (rc == 0)
		rc = rsh_lf_msn_busy(lf);
	if (rc == 0)
		rc = rsh_lf_cr_rd(lf, RSH_LF_MSN_DATA_LO, &lo);
	if (rc == 0 && !w32)
		rc = rsh_lf_cr_rd(lf, RSH_LF_MSN_DATA_HI, &hi);
	*v = (uint64_t)hi << 32 | lo;
	if (own && rsh_lf_msn_unlock(lf) < 0 && rc == 0)
		rc = -EIO;
	return rc;
}

/* One 64-bit (or w32: 32-bit) write. A write to RESET_CONTROL leaves the busy wait and
 * the release to rsh_lf_msn_finish after the quiet window (§L6). */
int
rsh_lf_msn_wr(struct rsh_lf *lf, uint32_t off, uint64_t v, bool reset_write,
	      bool w32)
{
	bool own = !lf->held;
	int rc = own ? rsh_lf_msn_lock(lf) : 0;

	if (rc < 0)
		return rc;
	rc = rsh_lf_msn_setup(lf, off, RSH_LF_MSN_WRITE, w32);
	if (rc == 0)
		rc = rsh_lf_cr_wr(lf, RSH_LF_MSN_DATA_LO, (uint32_t)v);
	if (rc == 0 && !w32)
		rc = rsh_lf_cr_wr(lf, RSH_LF_MSN_DATA_HI, (uint32_t)(v >> 32));
	if (rc == 0)
		rc = rsh_lf_msn_trigger(lf);
	if (rc == 0 && reset_write) {
		lf->held = true; /* freed by rsh_lf_msn_finish */
		lf->quiet_release = true;
		return 0;
	}
	if (rc == 0)
		rc = rsh_lf_msn_busy(lf);
	if (own && rsh_lf_msn_unlock(lf) < 0 && rc == 0)
		rc = -EIO;
	return rc;
}

/* The quiet window is over: busy wait, then free the lock. */
int
rsh_lf_msn_finish(struct rsh_lf *lf)
{
	int rc = rsh_lf_msn_busy(lf);
	int rc2 = rsh_lf_msn_unlock(lf);

	lf->quiet_release = false;
	return rc < 0 ? rc : rc2;
}
