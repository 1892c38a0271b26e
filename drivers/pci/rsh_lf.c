/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The livefish gateway as a backend: read64/write64/write_fifo/read_fifo
 * of the core on top of a backend that serves only config space, so the
 * core, the boot engine, the TM FIFO, misc and ownership run unchanged
 * on a function with no NIC firmware.
 *
 * The boot FIFO takes the fewest config cycles the gateway allows
 * (doc/hardware-notes.md §L7): each word is two 4-byte writes into the
 * holding register on BF1/BF2 (no widget), one 64-bit MSN access on BF3;
 * the BF1/BF3 gateway lock is taken once per burst; status reads are the
 * core's (one BOOT_FIFO_COUNT read per burst of up to the FIFO's depth);
 * BF1 reads a widget register after every 7 words (§1.9).
 *
 * Failures: a poll that hits its 2 s deadline, or a config access that
 * fails, makes the op answer without the gateway (reads 0xBAD00ACCE55,
 * the "not reachable" value the core already handles; writes dropped)
 * and leaves the gateway alone for 1 s. After a RESET_CONTROL write on
 * BF3 the gateway is not touched for the quiet window (10 s, §L6): ops
 * answer the same way meanwhile, and the core's reset delay covers it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RSH_LOGTYPE rsh_logtype_vfio
#include "rsh_lf.h"
#include "rsh_log.h"

static const struct rsh_backend_ops rsh_lf_ops, rsh_lf_bf3_ops;

/* The gateway behind a backend, NULL if it is not one. */
struct rsh_lf *
rsh_lf_of(struct rsh_backend *be)
{
	return be != NULL && (be->ops == &rsh_lf_ops ||
			      be->ops == &rsh_lf_bf3_ops) ?
	       (struct rsh_lf *)be : NULL;
}

/* After a failure: free a lock we hold, stay away for a while. */
static void
rsh_lf_fail(struct rsh_lf *lf)
{
	if (lf->held && lf->be.gen == RSH_GEN_BF1)
		(void)rsh_lf_trio_unlock(lf);
	else if (lf->held)
		(void)rsh_lf_msn_unlock(lf);
	lf->quiet_release = false;
	lf->fail_until = rsh_now() + rsh_ms_cyc(RSH_LF_FAIL_BACKOFF_MS);
}

/* Checks at the start of an op, then the op's lock (rshim-pmd's sequence:
 * once per op on BF1/BF3). 1: go on; 0: answer without the gateway. */
static int
rsh_lf_enter(struct rsh_lf *lf)
{
	uint64_t now;
	int rc = 0;

	if (lf->quiet_until != 0 || lf->fail_until != 0) {
		now = rsh_now();
		if (now < lf->quiet_until) {
			lf->st.quiet_ops++;
			return 0;
		}
		if (lf->quiet_until != 0) {
			lf->quiet_until = 0;
			if (rsh_lf_msn_finish(lf) < 0)
				rsh_lf_fail(lf);
		}
		if (now < lf->fail_until) {
			lf->st.failed_ops++;
			return 0;
		}
		lf->fail_until = 0;
	}
	if (!lf->ref && lf->be.gen == RSH_GEN_BF1)
		rc = rsh_lf_trio_lock(lf);
	else if (!lf->ref && lf->be.gen == RSH_GEN_BF3)
		rc = rsh_lf_msn_lock(lf);
	if (rc < 0) {
		rsh_lf_fail(lf);
		lf->st.failed_ops++;
		return 0;
	}
	return 1;
}

/* End of an op: free the op's lock (not across the BF3 quiet window). */
static void
rsh_lf_leave(struct rsh_lf *lf, int rc)
{
	if (lf->quiet_release && rc == 0) {
		uint32_t ms = lf->low->lf_quiet_ms ? lf->low->lf_quiet_ms :
						     RSH_LF_BF3_QUIET_MS;

		lf->quiet_until = rsh_now() + rsh_ms_cyc(ms);
		return;
	}
	if (rc == 0 && lf->held && lf->be.gen == RSH_GEN_BF1)
		rc = rsh_lf_trio_unlock(lf);
	else if (rc == 0 && lf->held)
		rc = rsh_lf_msn_unlock(lf);
	if (rc < 0) {
		rsh_lf_fail(lf);
		lf->st.failed_ops++;
	}
}

/* BF1/BF2 boot word: two 4-byte writes into the holding register; on
 * BF1 a widget register read first after 7 words (§1.9 on this path:
 * 14 4-byte writes, under the 15 posted writes the rshim absorbs). The
 * reference counts the words but its read does nothing (§L7). */
static int
rsh_lf_boot_word(struct rsh_lf *lf, uint64_t w)
{
	uint32_t v;
	int rc = 0;

	if (lf->be.gen == RSH_GEN_BF1 && lf->ref) {
		lf->bf1_words = (uint8_t)(lf->bf1_words + 1);
	} else if (lf->be.gen == RSH_GEN_BF1) {
		if (lf->bf1_words == RSH_LF_BF1_DRAIN_WORDS) {
			rc = rsh_lf_rsh_rd32(lf, 0x10000u | RSH_LF_BAW_CTL, &v);
			lf->st.drain_reads++;
			lf->bf1_words = 0;
		}
		lf->bf1_words++;
	}
	if (rc == 0)
		rc = rsh_lf_rsh_wr32(lf, lf->boot_off, (uint32_t)w);
	if (rc == 0)
		rc = rsh_lf_rsh_wr32(lf, lf->boot_off, (uint32_t)(w >> 32));
	return rc;
}

/* One 64-bit read of any register. */
static int
rsh_lf_rd(struct rsh_lf *lf, uint32_t off, uint64_t *v)
{
	if (lf->be.gen == RSH_GEN_BF3)
		return rsh_lf_msn_rd(lf, off, v, false);
	lf->bf1_words = 0; /* the widget reads: posted writes drained */
	return rsh_lf_baw_rd64(lf, off, v);
}

/* One 64-bit write of any register. */
static int
rsh_lf_wr(struct rsh_lf *lf, uint32_t off, uint64_t v)
{
	if (lf->be.gen == RSH_GEN_BF3)
		return rsh_lf_msn_wr(lf, off, v, off == lf->reset_off, false);
	if (off == lf->boot_off)
		return rsh_lf_boot_word(lf, v);
	if (lf->be.gen == RSH_GEN_BF1 && lf->ref)
		lf->bf1_words = (uint8_t)(lf->bf1_words + 1);
	else
		lf->bf1_words = 1; /* the widget's pending read drains */
	return rsh_lf_baw_wr64(lf, off, v);
}

/* ops: one register read; 0xBAD00ACCE55 when the gateway failed. */
static uint64_t
rsh_lf_read64(struct rsh_backend *be, uint32_t off)
{
	struct rsh_lf *lf = (struct rsh_lf *)be;
	uint64_t v = RSH_BACKEND_BAD_READ;
	int rc;

	if (!rsh_lf_enter(lf))
		return v;
	rc = rsh_lf_rd(lf, off, &v);
	rsh_lf_leave(lf, rc);
	return rc < 0 ? RSH_BACKEND_BAD_READ : v;
}

/* ops: one register write. */
static void
rsh_lf_write64(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	struct rsh_lf *lf = (struct rsh_lf *)be;

	if (rsh_lf_enter(lf))
		rsh_lf_leave(lf, rsh_lf_wr(lf, off, v));
}

/* ops: n writes to one FIFO data register, under one lock hold. */
static void
rsh_lf_write_fifo(struct rsh_backend *be, uint32_t off, const uint64_t *w,
		  unsigned int n)
{
	struct rsh_lf *lf = (struct rsh_lf *)be;
	unsigned int i;
	int rc = 0;

	if (n == 0 || !rsh_lf_enter(lf))
		return;
	for (i = 0; i < n && rc == 0; i++)
		rc = rsh_lf_wr(lf, off, w[i]);
	rsh_lf_leave(lf, rc);
}

/* ops: n pops of one FIFO data register, under one lock hold. */
static void
rsh_lf_read_fifo(struct rsh_backend *be, uint32_t off, uint64_t *w,
		 unsigned int n)
{
	struct rsh_lf *lf = (struct rsh_lf *)be;
	unsigned int i = 0;
	int rc = 0;

	if (n != 0 && rsh_lf_enter(lf)) {
		for (; i < n && rc == 0; i++)
			rc = rsh_lf_rd(lf, off, &w[i]);
		rsh_lf_leave(lf, rc);
		if (rc < 0)
			i--;
	}
	for (; i < n; i++)
		w[i] = RSH_BACKEND_BAD_READ;
}

/* ops (BF3): one 32-bit access through the MSN gateway's 32-bit width
 * (the YU block's OPN words, hardware-notes §1.4, §L5). BF1/BF2 have
 * none: their widget moves 64 bits (the reference ignores the size
 * there), so the core takes the half of a 64-bit read and refuses
 * 32-bit writes with a line that says why. */
static uint32_t
rsh_lf_read32(struct rsh_backend *be, uint32_t off)
{
	struct rsh_lf *lf = (struct rsh_lf *)be;
	uint64_t v = UINT32_MAX;
	int rc;

	if (!rsh_lf_enter(lf))
		return UINT32_MAX;
	rc = rsh_lf_msn_rd(lf, off, &v, true);
	rsh_lf_leave(lf, rc);
	return rc < 0 ? UINT32_MAX : (uint32_t)v;
}

static void
rsh_lf_write32(struct rsh_backend *be, uint32_t off, uint32_t v)
{
	struct rsh_lf *lf = (struct rsh_lf *)be;

	if (rsh_lf_enter(lf))
		rsh_lf_leave(lf, rsh_lf_msn_wr(lf, off, v, false, true));
}

/* ops: config space, passed through (the doctor looks at it). */
static int
rsh_lf_cfg_read(struct rsh_backend *be, uint32_t off, uint32_t *v)
{
	struct rsh_lf *lf = (struct rsh_lf *)be;

	return lf->low->ops->cfg_read(lf->low, off, v);
}

static int
rsh_lf_cfg_write(struct rsh_backend *be, uint32_t off, uint32_t v)
{
	struct rsh_lf *lf = (struct rsh_lf *)be;

	return lf->low->ops->cfg_write(lf->low, off, v);
}

/* ops: free a lock still held, close the config-space backend, free. */
static void
rsh_lf_close(struct rsh_backend *be)
{
	struct rsh_lf *lf = (struct rsh_lf *)be;

	if (lf == NULL)
		return;
	if (lf->held && lf->be.gen == RSH_GEN_BF1)
		(void)rsh_lf_trio_unlock(lf);
	else if (lf->held)
		(void)rsh_lf_msn_unlock(lf);
	lf->low->ops->close(lf->low);
	free(lf);
}

static const struct rsh_backend_ops rsh_lf_ops = {
	.read64 = rsh_lf_read64,
	.write64 = rsh_lf_write64,
	.write_fifo = rsh_lf_write_fifo,
	.read_fifo = rsh_lf_read_fifo,
	.cfg_read = rsh_lf_cfg_read,
	.cfg_write = rsh_lf_cfg_write,
	.close = rsh_lf_close,
};

static const struct rsh_backend_ops rsh_lf_bf3_ops = {
	.read64 = rsh_lf_read64,
	.write64 = rsh_lf_write64,
	.write_fifo = rsh_lf_write_fifo,
	.read_fifo = rsh_lf_read_fifo,
	.cfg_read = rsh_lf_cfg_read,
	.cfg_write = rsh_lf_cfg_write,
	.close = rsh_lf_close,
	.read32 = rsh_lf_read32,
	.write32 = rsh_lf_write32,
};

/* The backend fields the core reads, from the config-space one. */
static void
rsh_lf_be_init(struct rsh_lf *lf, struct rsh_backend *lower,
	       uint32_t boot_off, uint32_t reset_off)
{
	struct rsh_backend *be = &lf->be;

	*be = *lower;
	memset(&be->stats, 0, sizeof(be->stats));
	be->ops = be->gen == RSH_GEN_BF3 ? &rsh_lf_bf3_ops : &rsh_lf_ops;
	be->cfg_only = false;
	be->livefish = true;
	be->lower = lower;
	be->bar_size = rsh_backend_bar_size(be->gen);
	/* §L6: the reference waits 1 s, not 0.5 s, after a livefish reset;
	 * BF3 adds the quiet window after RESET_CONTROL. */
	be->reset_extra_ms = RSH_LF_RESET_EXTRA_MS;
	if (be->gen == RSH_GEN_BF3)
		be->reset_extra_ms += lower->lf_quiet_ms ? lower->lf_quiet_ms :
							   RSH_LF_BF3_QUIET_MS;
	lf->low = lower;
	lf->ref = lower->lf_seq == 1;
	lf->boot_off = boot_off;
	lf->reset_off = reset_off;
}

/* driver op "stack": a gateway on a cfg_only backend. */
int
rsh_lf_stack(struct rsh_backend *lower, struct rsh_backend **out)
{
	uint32_t boot_off, reset_off;
	struct rsh_lf *lf;

	if (lower->ops->cfg_read == NULL || lower->ops->cfg_write == NULL ||
	    rsh_backend_reg_off(lower->gen, RSH_BOOT_FIFO_DATA, &boot_off) < 0 ||
	    rsh_backend_reg_off(lower->gen, RSH_RESET_CONTROL, &reset_off) < 0) {
		rsh_err_set("%s: livefish function without config-space access",
			    lower->name);
		return -ENOTSUP;
	}
	lf = calloc(1, sizeof(*lf));
	if (lf == NULL) {
		rsh_err_set("%s: out of memory", lower->name);
		return -ENOMEM;
	}
	rsh_lf_be_init(lf, lower, boot_off, reset_off);
	RSH_DEV_LOG(INFO, &lf->be, "livefish: %s registers through the config-space gateway (%s)%s",
		    rsh_gen_name(lf->be.gen), lf->be.gen == RSH_GEN_BF1 ?
		    "TRIO CR gateway, Byte Access Widget" :
		    lf->be.gen == RSH_GEN_BF2 ? "CR window, Byte Access Widget" :
		    "MSN GW_CR_64B", lf->ref ? "; the reference daemon's sequence" : "");
	*out = &lf->be;
	return 0;
}
