/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control operations on a device: drop mode (hardware-notes §6.4), the
 * software reset without a push (§5.5 SW_RESET, §3.2 steps 6-7) and
 * register access by name or bf-reg address (§1.3, §5.3).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_cycles.h>

#include "rsh_boot_priv.h"
#include "rsh_cmd.h"
#include "rsh_log.h"
#include "rsh_own.h"

#define RSH_CTL_RESET_GUARD_MS 500u      /* §3.2 step 7 */
#define RSH_CTL_RESET_BF3_MS 3000u
#define RSH_CTL_RESET_BF12_MS 5000u
#define RSH_CTL_REACH_TIMEOUT_MS 2000u

/* Copy the ownership state. */
void
rsh_dev_own_info(const struct rsh_dev *dev, struct rsh_own_info *out)
{
	const struct rsh_own *o = rsh_dev_own(dev);

	out->dropped = rsh_own_dropped(o);
	out->locked = __atomic_load_n(&o->locked, __ATOMIC_ACQUIRE) != 0;
	out->keepalives = __atomic_load_n(&o->keepalives, __ATOMIC_RELAXED);
	out->releases = __atomic_load_n(&o->releases, __ATOMIC_RELAXED);
	out->takeovers = __atomic_load_n(&o->takeovers, __ATOMIC_RELAXED);
}

/* Enter or leave drop mode (commands on the owning thread). */
int
rsh_dev_drop(struct rsh_dev *dev, bool drop, bool force)
{
	int rc;

	if (__atomic_load_n(&rsh_dev_boot_state(dev)->push, __ATOMIC_ACQUIRE) != NULL) {
		rsh_err_set("%s: a boot push runs; drop mode changes after it", dev->name);
		return -EBUSY;
	}
	if (drop == rsh_own_dropped(rsh_dev_own(dev)))
		return 0;
	rc = drop ? rsh_own_drop(dev) : rsh_own_undrop(dev, force);
	if (rc == 0)
		RSH_DEV_LOG(NOTICE, dev, "%s drop mode", drop ? "entered" : "left");
	return rc;
}

/* Reset delay: option, backend hint, or the generation's default. */
static uint64_t
rsh_ctl_reset_delay(const struct rsh_dev *dev, int64_t ms)
{
	uint64_t extra = dev->be->reset_extra_ms; /* livefish, §1.7 */

	if (ms >= 0)
		return (uint64_t)ms + extra;
	if (dev->be->reset_delay_ms != 0)
		return dev->be->reset_delay_ms + extra;
	return extra + RSH_CTL_RESET_GUARD_MS + (dev->be->gen == RSH_GEN_BF3 ?
		RSH_CTL_RESET_BF3_MS : RSH_CTL_RESET_BF12_MS);
}

/* Reset states. */
enum { RSH_RS_KEY = 0, RSH_RS_DELAY, RSH_RS_REACH };

/* The software reset: its delay, and the executor's state and timer. */
struct rsh_ctl_reset_cmd {
	struct rsh_cmd c;
	uint64_t delay_ms;
	int state;
	uint64_t t0;         /* TSC: the key was written */
};

/* KEY: checks, then the key written read-modify-write into bits 31:0. */
static int
rsh_ctl_reset_key(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_ctl_reset_cmd *r = container_of(c, struct rsh_ctl_reset_cmd, c);
	struct rsh_dev *dev = c->dev;
	uint64_t v;
	int rc = rsh_own_boot_ok(dev, "the reset");

	if (rc == 0 && __atomic_load_n(&rsh_dev_boot_state(dev)->push, __ATOMIC_ACQUIRE) != NULL) {
		rsh_err_set("%s: a boot push runs; it resets the ARM itself", dev->name);
		rc = -EBUSY;
	}
	if (rc < 0)
		return rsh_cmd_finish(c, rc);
	v = rsh_dev_rd(dev, RSH_RESET_CONTROL);
	rc = rsh_dev_val_err(v);
	if (rc < 0) {
		rsh_err_set("%s: RESET_CONTROL reads 0x%" PRIx64 ": the rshim is not reachable",
			    dev->name, v);
		return rsh_cmd_finish(c, rc);
	}
	rsh_dev_wr(dev, RSH_RESET_CONTROL,
		   (v & ~RSH_RESET_CONTROL__KEY_MASK) | RSH_RESET_CONTROL__KEY);
	RSH_DEV_LOG(NOTICE, dev, "resetting the ARM (software reset)");
	r->t0 = now;
	r->state = RSH_RS_DELAY;
	return rsh_cmd_again(c, now, now + rsh_ms_cyc(r->delay_ms));
}

/*
 * The software reset as a command: KEY, then the delay (the poll loop
 * runs the keepalive meanwhile, §3.2 step 7), then FABRIC_DIM answers
 * (a 0 at the deadline is accepted).
 */
static int
rsh_ctl_reset_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_ctl_reset_cmd *r = container_of(c, struct rsh_ctl_reset_cmd, c);
	uint64_t until = r->t0 + rsh_ms_cyc(r->delay_ms), v;

	if (r->state == RSH_RS_KEY)
		return rsh_ctl_reset_key(c, now);
	if (rsh_cmd_cancelled(c)) {
		rsh_err_set("%s: reset delay cancelled (the ARM was reset already)", c->dev->name);
		return rsh_cmd_finish(c, -ECANCELED);
	}
	if (r->state == RSH_RS_DELAY && now < until)
		return rsh_cmd_again(c, now, until);
	r->state = RSH_RS_REACH;
	v = rsh_dev_rd(c->dev, RSH_FABRIC_DIM);
	if (!rsh_reg_val_is_bad(v) &&
	    (v != 0 || now - until > rsh_ms_cyc(RSH_CTL_REACH_TIMEOUT_MS)))
		return rsh_cmd_finish(c, 0);
	if (v != RSH_ALL_ONES && now - until <= rsh_ms_cyc(RSH_CTL_REACH_TIMEOUT_MS))
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(1));
	rsh_err_set("%s: the rshim %s after the reset (FABRIC_DIM 0x%" PRIx64 ")", c->dev->name,
		    v == RSH_ALL_ONES ? "is gone" : "did not come back within 2 s", v);
	return rsh_cmd_finish(c, v == RSH_ALL_ONES ? -ENODEV : -ETIMEDOUT);
}

static const struct rsh_cmd_type rsh_ctl_reset_type = {
	.name = "reset", .step = rsh_ctl_reset_step,
	.run_ms = RSH_CTL_REACH_TIMEOUT_MS + 1000, /* + the delay (extra_ms) */
};

/* Software reset without a push. */
int
rsh_dev_reset(struct rsh_dev *dev, int64_t reset_delay_ms, const int *cancel_flag)
{
	struct rsh_ctl_reset_cmd r = {
		.c = { .cancel_flag = cancel_flag },
		.delay_ms = rsh_ctl_reset_delay(dev, reset_delay_ms),
	};

	r.c.extra_ms = (uint32_t)RTE_MIN(r.delay_ms, (uint64_t)UINT32_MAX / 2);
	return RSH_CMD_CALL(&rsh_ctl_reset_type, dev, &r, c);
}
