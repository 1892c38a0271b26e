/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rshim scratch log (boot/firmware log): read under SEMAPHORE0 as a
 * command, hardware-notes §5.6; the words are decoded afterwards on the
 * caller's thread (rsh_scratchlog_decode.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "rsh_cmd.h"
#include "rsh_dev_priv.h"
#include "rsh_log.h"
#include "rsh_scratchlog_decode.h"
#include "rsh_own.h"

#define RSH_SCRATCHLOG_SEM_TIMEOUT_MS 3000u

/*
 * Read the words of every record up to the index (§5.6 steps 2-5): a
 * header, then its len words; a record that would pass the index is the
 * wrap-around and ends the read. Returns the number of words read.
 */
static int
rsh_scratchlog_read_words(struct rsh_dev *dev, bool clear, uint64_t *words)
{
	uint64_t v = rsh_dev_rd(dev, RSH_SCRATCH_BUF_CTL);
	unsigned int idx, i = 0;

	if (rsh_reg_val_is_bad(v))
		return rsh_dev_val_err(v);
	idx = v & RSH_SCRATCH_BUF_CTL__IDX_MASK;
	if (idx <= 1)
		return 0;
	rsh_dev_wr(dev, RSH_SCRATCH_BUF_CTL, 0);
	while (i < idx) {
		uint64_t hdr = rsh_dev_rd(dev, RSH_SCRATCH_BUF_DAT);
		unsigned int len = RSH_SCRATCHLOG_HDR__LEN(hdr), k;

		if (i + 1 + len > idx)
			break;
		words[i] = hdr;
		for (k = 0; k < len; k++)
			words[i + 1 + k] = rsh_dev_rd(dev, RSH_SCRATCH_BUF_DAT);
		i += 1 + len;
	}
	rsh_dev_wr(dev, RSH_SCRATCH_BUF_CTL, clear ? 0 : idx);
	return (int)i;
}

/* The scratch-log read: the words, read under SEMAPHORE0. */
struct rsh_scratchlog_cmd {
	struct rsh_cmd c;
	bool clear_on_read;
	uint64_t t0;                              /* TSC: the first try */
	uint64_t words[RSH_SCRATCH_BUF_WORDS];    /* out */
};

/*
 * Command step: take SEMAPHORE0 (a read of 0 means acquired, §5.6 step 1;
 * retried every millisecond for 3 s without blocking the poll loop), read
 * the words, release it.
 */
static int
rsh_scratchlog_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_scratchlog_cmd *l = container_of(c, struct rsh_scratchlog_cmd, c);
	struct rsh_dev *dev = c->dev;
	uint64_t v;
	int rc;

	if (__atomic_load_n(&rsh_dev_boot_state(dev)->push, __ATOMIC_ACQUIRE) != NULL) {
		rsh_err_set("%s: a boot push owns the device; read the log after it", dev->name);
		return rsh_cmd_finish(c, -EBUSY);
	}
	rc = rsh_own_access_ok(dev);
	if (rc < 0)
		return rsh_cmd_finish(c, rc);
	if (l->t0 == 0)
		l->t0 = now;
	v = rsh_dev_rd(dev, RSH_SEMAPHORE0);
	if (rsh_reg_val_is_bad(v)) {
		rsh_err_set("%s: SEMAPHORE0 reads 0x%" PRIx64 ": the rshim is not reachable",
			    dev->name, v);
		return rsh_cmd_finish(c, rsh_dev_val_err(v));
	}
	if (v != 0) {
		if (now - l->t0 > rsh_ms_cyc(RSH_SCRATCHLOG_SEM_TIMEOUT_MS)) {
			rsh_err_set("%s: the scratch-log semaphore stayed taken for 3 s (another rshim driver reading the log?)",
				    dev->name);
			return rsh_cmd_finish(c, -ETIMEDOUT);
		}
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(1));
	}
	rc = rsh_scratchlog_read_words(dev, l->clear_on_read, l->words);
	rsh_dev_wr(dev, RSH_SEMAPHORE0, 0);
	return rsh_cmd_finish(c, rc);
}

static const struct rsh_cmd_type rsh_scratchlog_type = {
	.name = "scratch-log read", .step = rsh_scratchlog_step,
	.run_ms = RSH_SCRATCHLOG_SEM_TIMEOUT_MS + 1000,
};

/* Read the scratch log under SEMAPHORE0 (a command), then decode. */
int
rsh_scratchlog_read(struct rsh_dev *dev, bool clear_on_read, struct rsh_scratchlog_rec *recs,
		    unsigned int max)
{
	struct rsh_scratchlog_cmd l = { .clear_on_read = clear_on_read };
	int rc;

	rc = RSH_CMD_CALL(&rsh_scratchlog_type, dev, &l, c);
	if (rc < 0)
		return rc;
	return (int)rsh_scratchlog_decode_words(l.words, (unsigned int)rc, recs, max);
}
