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
#include <time.h>

#include <rte_cycles.h>

#include "rsh_boot_priv.h"
#include "rsh_log.h"
#include "rsh_own.h"

#define RSH_CTL_DROP_WAIT_MS 1000u
#define RSH_CTL_RESET_GUARD_MS 500u      /* §3.2 step 7 */
#define RSH_CTL_RESET_BF3_MS 3000u
#define RSH_CTL_RESET_BF12_MS 5000u
#define RSH_CTL_REACH_TIMEOUT_MS 2000u
#define RSH_CTL_BFREG_BIT 0x10000000u    /* bf-reg ORs bit 28 in, §1.3 */

/* Control-path sleep. */
static void
rsh_ctl_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Copy the ownership state. */
void
rsh_dev_own_info(const struct rsh_dev *dev, struct rsh_own_info *out)
{
	const struct rsh_own *o = &dev->own;

	out->dropped = rsh_own_dropped(o);
	out->locked = __atomic_load_n(&o->locked, __ATOMIC_ACQUIRE) != 0;
	out->keepalives = __atomic_load_n(&o->keepalives, __ATOMIC_RELAXED);
	out->releases = __atomic_load_n(&o->releases, __ATOMIC_RELAXED);
	out->takeovers = __atomic_load_n(&o->takeovers, __ATOMIC_RELAXED);
}

/* True when a poll loop runs this device. */
static bool
rsh_ctl_polled(const struct rsh_dev *dev)
{
	return dev->poller != NULL && rsh_poller_running(dev->poller);
}

/* Enter drop mode: the poll lcore releases the device, or we do when no
 * poll loop runs. */
static int
rsh_ctl_drop(struct rsh_dev *dev)
{
	uint64_t deadline;

	if (!rsh_ctl_polled(dev)) {
		rsh_dev_wr(dev, RSH_SCRATCHPAD1, 0);
		rsh_dev_wr(dev, RSH_SCRATCHPAD6, 0);
		__atomic_store_n(&dev->own.dropped, 1, __ATOMIC_RELEASE);
		return 0;
	}
	deadline = rte_get_timer_cycles() + RSH_CTL_DROP_WAIT_MS * rte_get_timer_hz() / 1000;
	__atomic_store_n(&dev->own.drop_req, 1, __ATOMIC_RELEASE);
	rsh_dev_kick(dev);
	while (!rsh_own_dropped(&dev->own)) {
		if (rte_get_timer_cycles() > deadline) {
			rsh_err_set("%s: the poll loop did not release the device within 1 s", dev->name);
			return -ETIMEDOUT;
		}
		rsh_ctl_sleep_ms(1);
	}
	return 0;
}

/* Enter or leave drop mode. */
int
rsh_dev_drop(struct rsh_dev *dev, bool drop, bool force)
{
	int rc = 0;

	pthread_mutex_lock(&dev->ctl_lock);
	if (__atomic_load_n(&dev->boot, __ATOMIC_ACQUIRE) != NULL) {
		rsh_err_set("%s: a boot push runs; drop mode changes after it", dev->name);
		rc = -EBUSY;
	} else if (drop != rsh_own_dropped(&dev->own)) {
		rc = drop ? rsh_ctl_drop(dev) : rsh_own_undrop(dev, force);
		if (rc == 0)
			RSH_DEV_LOG(NOTICE, dev, "%s drop mode", drop ? "entered" : "left");
	}
	pthread_mutex_unlock(&dev->ctl_lock);
	return rc;
}

/* Reset delay: option, backend hint, or the generation's default. */
static uint64_t
rsh_ctl_reset_delay(const struct rsh_dev *dev, int64_t ms)
{
	if (ms >= 0)
		return (uint64_t)ms;
	if (dev->be->reset_delay_ms != 0)
		return dev->be->reset_delay_ms;
	return RSH_CTL_RESET_GUARD_MS + (dev->be->gen == RSH_GEN_BF3 ?
		RSH_CTL_RESET_BF3_MS : RSH_CTL_RESET_BF12_MS);
}

/* Wait out the delay (cancellable), then for FABRIC_DIM to answer. */
static int
rsh_ctl_reset_wait(struct rsh_dev *dev, uint64_t delay_ms, const int *cancel)
{
	uint64_t hz = rte_get_timer_hz();
	uint64_t until = rte_get_timer_cycles() + delay_ms * hz / 1000;
	uint64_t deadline = until + RSH_CTL_REACH_TIMEOUT_MS * hz / 1000;
	uint64_t v;

	while (rte_get_timer_cycles() < until) {
		if (cancel != NULL && __atomic_load_n(cancel, __ATOMIC_RELAXED)) {
			rsh_err_set("%s: reset delay cancelled (the ARM was reset already)", dev->name);
			return -ECANCELED;
		}
		rsh_ctl_sleep_ms(1);
	}
	do {
		v = rsh_dev_rd(dev, RSH_FABRIC_DIM);
		if (!rsh_reg_val_is_bad(v))
			return 0; /* a 0 is accepted, as in the access check */
		rsh_ctl_sleep_ms(1);
	} while (v != RSH_ALL_ONES && rte_get_timer_cycles() < deadline);
	rsh_err_set("%s: the rshim %s after the reset (FABRIC_DIM 0x%" PRIx64 ")", dev->name,
		    v == RSH_ALL_ONES ? "is gone" : "did not come back within 2 s", v);
	return v == RSH_ALL_ONES ? -ENODEV : -ETIMEDOUT;
}

/*
 * Software reset: the reset key written read-modify-write into bits 31:0
 * of RESET_CONTROL, then the delay. The poll loop keeps the keepalive
 * going meanwhile (§3.2 step 7); the control lock is not held while we
 * sleep.
 */
int
rsh_dev_reset(struct rsh_dev *dev, int64_t reset_delay_ms, const int *cancel_flag)
{
	uint64_t v;
	int rc;

	pthread_mutex_lock(&dev->ctl_lock);
	rc = rsh_own_boot_ok(dev, "the reset");
	if (rc == 0 && __atomic_load_n(&dev->boot, __ATOMIC_ACQUIRE) != NULL) {
		rsh_err_set("%s: a boot push runs; it resets the ARM itself", dev->name);
		rc = -EBUSY;
	}
	if (rc == 0) {
		v = rsh_dev_rd(dev, RSH_RESET_CONTROL);
		rc = rsh_dev_val_err(v);
		if (rc < 0)
			rsh_err_set("%s: RESET_CONTROL reads 0x%" PRIx64 ": the rshim is not reachable",
				    dev->name, v);
	}
	if (rc == 0) {
		rsh_dev_wr(dev, RSH_RESET_CONTROL,
			   (v & ~RSH_RESET_CONTROL__KEY_MASK) | RSH_RESET_CONTROL__KEY);
		RSH_DEV_LOG(NOTICE, dev, "resetting the ARM (software reset)");
	}
	pthread_mutex_unlock(&dev->ctl_lock);
	if (rc < 0)
		return rc;
	return rsh_ctl_reset_wait(dev, rsh_ctl_reset_delay(dev, reset_delay_ms), cancel_flag);
}
