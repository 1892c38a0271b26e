/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Boot open and device-state restore as commands, stepped by the poll
 * lcore that owns the device (hardware-notes §3.2, §3.4):
 *
 *   CHECK    not dropped or locked (§6.4, §6.6); FABRIC_DIM answers (a 0
 *            is retried 10 x 100 ms, then accepted, §1.4); save
 *            BOOT_CONTROL; a cancel here: no reset
 *   BOOTCTL  BOOT_CONTROL = 0 (boot from the rshim boot FIFO)
 *   WDOG     WDOG1 = 0, not on BF3 (the write never reaches the chip there)
 *   RESET    RESET_CONTROL read-modify-write with the key in bits 31:0
 *   DELAY    the reset delay (TSC deadline; cancel checked every 10 ms)
 *   REACH    FABRIC_DIM answers again (deadline; a 0 at the deadline is
 *            accepted), and BOOT_CONTROL still reads the 0 written before
 *            the reset (a device removed and back meanwhile does not)
 *            -> the push starts
 *
 * With BOOT_RESET_SKIP only BOOTCTL and RESET are left out: the watchdog
 * write and the delays stay, as in the reference (§3.2 details).
 *   RESTORE  on any failure after BOOTCTL: wait until the rshim answers,
 *            write the saved BOOT_CONTROL back, read it back
 *
 * No state sleeps: each asks to be stepped again at a TSC time, so other
 * devices' data keep moving while one device resets.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#define RSH_LOGTYPE rsh_logtype_boot
#include "rsh_boot_priv.h"
#include "rsh_cmd.h"
#include "rsh_log.h"
#include "rsh_own.h"

/* §3.2 step 7: 0.5 s with the device held, then the reset delay. */
#define RSH_BOOT_RESET_GUARD_MS 500u
#define RSH_BOOT_RESET_DELAY_BF3_MS 3000u
#define RSH_BOOT_RESET_DELAY_BF12_MS 5000u
/* How long the rshim may stay unreachable after the reset delay. */
#define RSH_BOOT_REACH_TIMEOUT_MS 2000u
/* How long a restore waits for the rshim to answer (an ARM reset). */
#define RSH_BOOT_RESTORE_TIMEOUT_MS 8000u
/* FABRIC_DIM reading 0 before the reset: 10 tries, 100 ms apart. */
#define RSH_BOOT_FABRIC_TRIES 10u
#define RSH_BOOT_FABRIC_RETRY_MS 100u
/* While waiting for the rshim, read FABRIC_DIM this often. */
#define RSH_BOOT_REACH_POLL_MS 1u

enum rsh_boot_open_state {
	RSH_BO_CHECK = 0,
	RSH_BO_BOOTCTL,
	RSH_BO_WDOG,
	RSH_BO_RESET,
	RSH_BO_DELAY,
	RSH_BO_REACH,
	RSH_BO_RESTORE,
};

/* The open: the push it opens for (the caller's, used only while the
 * caller waits) and the executor's state. */
struct rsh_boot_open_cmd {
	struct rsh_cmd c;
	struct rsh_boot *b;
	int state;              /* enum rsh_boot_open_state */
	uint64_t t0;            /* TSC: the state's timer */
	uint64_t first_zero;    /* TSC: FABRIC_DIM first read 0 */
	int fail_rc;            /* RESTORE: the failure it finishes with */
	bool bootctl_written;   /* BOOT_CONTROL = 0 was written */
};

/* The open command of c, and its boot object. */
static struct rsh_boot_open_cmd *
rsh_boot_open_of(struct rsh_cmd *c)
{
	return container_of(c, struct rsh_boot_open_cmd, c);
}

/* The reset delay for this device: option, backend hint, or §3.2 default. */
static uint64_t
rsh_boot_reset_delay_ms(const struct rsh_dev *dev, const struct rsh_boot_opts *o)
{
	uint64_t extra = dev->be->reset_extra_ms;

	if (o->reset_delay_ms >= 0)
		return o->reset_delay_ms + extra;
	if (dev->be->reset_delay_ms != 0)
		return dev->be->reset_delay_ms + extra;
	return extra + RSH_BOOT_RESET_GUARD_MS + (dev->be->gen == RSH_GEN_BF3 ?
		RSH_BOOT_RESET_DELAY_BF3_MS : RSH_BOOT_RESET_DELAY_BF12_MS);
}

/* Name the errno of a bad read for the user. */
static int
rsh_boot_bad_read(struct rsh_dev *dev, enum rsh_reg reg, uint64_t v)
{
	int rc = rsh_dev_val_err(v);

	if (v == 0) {
		rsh_err_set("%s: %s reads 0: the rshim is not ready", dev->name,
			    rsh_reg_name(reg));
		return -EIO;
	}
	if (rc == -ENODEV)
		rsh_err_set("%s: %s reads all-ones: the device is gone (surprise removal or link down); check lspci and the PCIe link",
			    dev->name, rsh_reg_name(reg));
	else
		rsh_err_set("%s: %s reads 0x%" PRIx64 ": the rshim is not reachable (held in reset?)",
			    dev->name, rsh_reg_name(reg), v);
	return rc;
}

/* True when FABRIC_DIM answers with a sane value. */
static bool
rsh_boot_reachable(uint64_t v)
{
	return v != 0 && !rsh_reg_val_is_bad(v);
}

/*
 * One restore step: wait until the rshim answers, write the value back,
 * read it back. Returns 1 while waiting, 0 restored, <0 not restored (with
 * the reason in why).
 */
int
rsh_boot_restore_step(struct rsh_dev *dev, uint64_t value, uint64_t since,
		      uint64_t now, char *why, size_t why_len)
{
	uint64_t v = rsh_dev_rd(dev, RSH_FABRIC_DIM);

	if (v == RSH_ALL_ONES) {
		snprintf(why, why_len, "the device is gone");
		return -ENODEV;
	}
	if (!rsh_boot_reachable(v)) {
		if (now - since < rsh_ms_cyc(RSH_BOOT_RESTORE_TIMEOUT_MS))
			return 1;
		snprintf(why, why_len, "the rshim did not answer for %u ms",
			 RSH_BOOT_RESTORE_TIMEOUT_MS);
		return -ETIMEDOUT;
	}
	rsh_dev_wr(dev, RSH_BOOT_CONTROL, value);
	v = rsh_dev_rd(dev, RSH_BOOT_CONTROL);
	if ((v & RSH_BOOT_CONTROL__MODE_MASK) != value || rsh_reg_val_is_bad(v)) {
		snprintf(why, why_len, "it reads back 0x%" PRIx64, v);
		return -EIO;
	}
	return 0;
}

/* Keep the failure's error line and rc, then restore BOOT_CONTROL. */
static int
rsh_boot_open_fail(struct rsh_cmd *c, uint64_t now, int rc)
{
	struct rsh_boot_open_cmd *o = rsh_boot_open_of(c);
	struct rsh_boot *b = o->b;

	if (rc == -ECANCELED && rsh_last_error()[0] == '\0')
		rsh_err_set(b->bootctl_written ?
			    "%s: boot push cancelled before the ARM reset" :
			    "%s: boot push cancelled before the ARM reset; the device was not changed",
			    c->dev->name);
	snprintf(c->err, sizeof(c->err), "%s", rsh_last_error());
	rsh_dev_boot_state(c->dev)->opening = false;
	if (!b->bootctl_written)
		return rsh_cmd_finish(c, rc);
	o->fail_rc = rc;
	o->state = RSH_BO_RESTORE;
	o->t0 = now;
	return rsh_cmd_again(c, now, now);
}

/* RESTORE: one step; finishes with the failure's rc and both stories. */
static int
rsh_boot_open_restore(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_boot_open_cmd *o = rsh_boot_open_of(c);
	struct rsh_boot *b = o->b;
	size_t len = strlen(c->err);
	char why[96];
	int rc;

	rc = rsh_boot_restore_step(c->dev, b->saved_bootctl, o->t0, now, why, sizeof(why));
	if (rc > 0)
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(RSH_BOOT_REACH_POLL_MS));
	if (rc == 0)
		snprintf(c->err + len, sizeof(c->err) - len,
			 "; BOOT_CONTROL restored to %" PRIu64, b->saved_bootctl);
	else
		snprintf(c->err + len, sizeof(c->err) - len,
			 "; BOOT_CONTROL could NOT be restored to %" PRIu64 " (%s): power-cycle the DPU or write it with --misc",
			 b->saved_bootctl, why);
	return rsh_cmd_finish(c, o->fail_rc);
}

/* The device is back after the reset: start the stream on this lcore. */
static int
rsh_boot_open_publish(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_boot_open_cmd *o = rsh_boot_open_of(c);
	struct rsh_boot *b = o->b;

	rsh_dev_boot_state(c->dev)->opening = false;
	rsh_dev_get_stats(c->dev, &b->mmio_start);
	b->start_tsc = now;
	b->last_progress = now;
	/* Pairs with the acquire loads of the user-side calls. */
	__atomic_store_n(&rsh_dev_boot_state(c->dev)->push, b, __ATOMIC_RELEASE);
	return rsh_cmd_finish(c, 0);
}

/* CHECK: the rshim answers; save BOOT_CONTROL. No device change yet. */
static int
rsh_boot_open_check(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_boot_open_cmd *o = rsh_boot_open_of(c);
	struct rsh_boot *b = o->b;
	uint64_t v;
	int rc;

	if (__atomic_load_n(&rsh_dev_boot_state(c->dev)->push, __ATOMIC_ACQUIRE) != NULL) {
		rsh_err_set("%s: a boot push is already running", c->dev->name);
		return rsh_cmd_finish(c, -EBUSY);
	}
	rc = rsh_own_boot_ok(c->dev, "boot push");
	if (rc < 0)
		return rsh_cmd_finish(c, rc);
	if (rsh_cmd_cancelled(c))
		return rsh_boot_open_fail(c, now, -ECANCELED);
	v = rsh_dev_rd(c->dev, RSH_FABRIC_DIM);
	if (v == 0 && o->first_zero == 0)
		o->first_zero = now; /* the first 0 seen */
	if (v == 0 && now - o->first_zero < rsh_ms_cyc(RSH_BOOT_FABRIC_TRIES * RSH_BOOT_FABRIC_RETRY_MS))
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(RSH_BOOT_FABRIC_RETRY_MS));
	if (rsh_reg_val_is_bad(v))
		return rsh_boot_open_fail(c, now, rsh_boot_bad_read(c->dev, RSH_FABRIC_DIM, v));
	v = rsh_dev_rd(c->dev, RSH_BOOT_CONTROL);
	if (rsh_reg_val_is_bad(v))
		return rsh_boot_open_fail(c, now, rsh_boot_bad_read(c->dev, RSH_BOOT_CONTROL, v));
	b->saved_bootctl = v & RSH_BOOT_CONTROL__MODE_MASK;
	o->state = b->opts.skip_reset ? RSH_BO_WDOG : RSH_BO_BOOTCTL;
	return rsh_cmd_again(c, now, now);
}

/* BOOTCTL, WDOG, RESET: the three writes of §3.2 steps 3, 5 and 6. */
static int
rsh_boot_open_writes(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_boot_open_cmd *o = rsh_boot_open_of(c);
	struct rsh_boot *b = o->b;
	uint64_t v;

	if (rsh_cmd_cancelled(c))
		return rsh_boot_open_fail(c, now, -ECANCELED);
	switch (o->state) {
	case RSH_BO_BOOTCTL:
		rsh_dev_wr(c->dev, RSH_BOOT_CONTROL, RSH_BOOT_CONTROL_NONE);
		b->bootctl_written = true;
		o->bootctl_written = true;
		rsh_dev_boot_state(c->dev)->opening = true;
		o->state = RSH_BO_WDOG;
		break;
	case RSH_BO_WDOG:
		/* hardware-notes §3.2 notes: never issued on BF3 over PCIe. */
		if (c->dev->be->gen != RSH_GEN_BF3)
			rsh_dev_wr(c->dev, RSH_ARM_WDG_CONTROL_WCS, 0);
		if (!b->opts.skip_reset) {
			o->state = RSH_BO_RESET;
			break;
		}
		RSH_DEV_LOG(NOTICE, c->dev, "BOOT_RESET_SKIP: not resetting the ARM");
		o->t0 = now;
		o->state = RSH_BO_DELAY;
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(b->delay_ms));
	default:
		v = rsh_dev_rd(c->dev, RSH_RESET_CONTROL);
		if (rsh_reg_val_is_bad(v))
			return rsh_boot_open_fail(c, now,
				rsh_boot_bad_read(c->dev, RSH_RESET_CONTROL, v));
		v = (v & ~RSH_RESET_CONTROL__KEY_MASK) | RSH_RESET_CONTROL__KEY;
		rsh_dev_wr(c->dev, RSH_RESET_CONTROL, v);
		b->reset_done = true;
		o->t0 = now;
		o->state = RSH_BO_DELAY;
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(b->delay_ms));
	}
	return rsh_cmd_again(c, now, now);
}

/*
 * The rshim answers after the reset: BOOT_CONTROL must still hold the 0
 * written before it (§3.2 step 3; the ARM reset keeps it, the ROM reads
 * the FIFO because of it — (inferred): BOOT_CONTROL is an rshim
 * register, not ARM state, and NVIDIA's daemon writes it back to 1 at
 * close, so nothing else is expected to; not checked on silicon). Another value means the device was removed or
 * reset meanwhile and came back with its power-on value: its ROM will
 * never read the stream, and the push would only fail at the boot
 * timeout, so the open fails now (BOOT_CONTROL restored).
 */
static int
rsh_boot_open_reached(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_boot_open_cmd *o = rsh_boot_open_of(c);
	struct rsh_boot *b = o->b;
	uint64_t v;

	if (!b->bootctl_written)
		return rsh_boot_open_publish(c, now);
	v = rsh_dev_rd(c->dev, RSH_BOOT_CONTROL);
	if (rsh_reg_val_is_bad(v))
		return rsh_boot_open_fail(c, now, rsh_boot_bad_read(c->dev, RSH_BOOT_CONTROL, v));
	if ((v & RSH_BOOT_CONTROL__MODE_MASK) == RSH_BOOT_CONTROL_NONE)
		return rsh_boot_open_publish(c, now);
	rsh_err_set("%s: BOOT_CONTROL reads %" PRIu64 " after the reset delay instead of the 0 written before it: the device was removed or reset meanwhile and would not read the boot stream; push again",
		    c->dev->name, (uint64_t)(v & RSH_BOOT_CONTROL__MODE_MASK));
	return rsh_boot_open_fail(c, now, -EIO);
}

/* DELAY and REACH: wait out the reset, then for the rshim to answer. */
static int
rsh_boot_open_wait(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_boot_open_cmd *o = rsh_boot_open_of(c);
	struct rsh_boot *b = o->b;
	uint64_t v, until = o->t0 + rsh_ms_cyc(b->delay_ms);

	if (rsh_cmd_cancelled(c)) {
		rsh_err_set("%s: boot push cancelled during the reset delay", c->dev->name);
		return rsh_boot_open_fail(c, now, -ECANCELED);
	}
	if (o->state == RSH_BO_DELAY) {
		if (now < until)
			return rsh_cmd_again(c, now, until);
		o->state = RSH_BO_REACH;
	}
	v = rsh_dev_rd(c->dev, RSH_FABRIC_DIM);
	if (rsh_boot_reachable(v))
		return rsh_boot_open_reached(c, now);
	if (v == RSH_ALL_ONES)
		return rsh_boot_open_fail(c, now, rsh_boot_bad_read(c->dev, RSH_FABRIC_DIM, v));
	if (now - until > rsh_ms_cyc(RSH_BOOT_REACH_TIMEOUT_MS) && v == 0)
		return rsh_boot_open_reached(c, now); /* retried, then accepted (§1.4) */
	if (now - until > rsh_ms_cyc(RSH_BOOT_REACH_TIMEOUT_MS)) {
		rsh_err_set("%s: the rshim did not come back within %u ms after the ARM reset (FABRIC_DIM 0x%" PRIx64 "); try a longer --reset-delay",
			    c->dev->name, RSH_BOOT_REACH_TIMEOUT_MS, v);
		return rsh_boot_open_fail(c, now, -ETIMEDOUT);
	}
	return rsh_cmd_again(c, now, now + rsh_ms_cyc(RSH_BOOT_REACH_POLL_MS));
}

/* The open command: one state per step. */
static int
rsh_boot_open_step(struct rsh_cmd *c, uint64_t now)
{
	switch (rsh_boot_open_of(c)->state) {
	case RSH_BO_CHECK:
		return rsh_boot_open_check(c, now);
	case RSH_BO_BOOTCTL:
	case RSH_BO_WDOG:
	case RSH_BO_RESET:
		return rsh_boot_open_writes(c, now);
	case RSH_BO_DELAY:
	case RSH_BO_REACH:
		return rsh_boot_open_wait(c, now);
	default:
		return rsh_boot_open_restore(c, now);
	}
}

/*
 * The caller gave up on a started open (a wedged loop): its boot object
 * may be gone, so nothing of it is touched; the TM FIFO gets its channels
 * back, and the log says what the device was left with.
 */
static void
rsh_boot_open_abandon(struct rsh_cmd *c)
{
	rsh_dev_boot_state(c->dev)->opening = false;
	if (rsh_boot_open_of(c)->bootctl_written)
		RSH_DEV_LOG(ERR, c->dev, "boot open abandoned by its caller after BOOT_CONTROL = 0; write BOOT_CONTROL back with --misc");
}

static const struct rsh_cmd_type rsh_boot_open_type = {
	.name = "boot open", .step = rsh_boot_open_step,
	.abandon = rsh_boot_open_abandon,
	/* FABRIC_DIM tries, the reach and the restore; + the delay */
	.run_ms = RSH_BOOT_FABRIC_TRIES * RSH_BOOT_FABRIC_RETRY_MS +
		  RSH_BOOT_REACH_TIMEOUT_MS + RSH_BOOT_RESTORE_TIMEOUT_MS,
};

/* Run the open sequence for b on the device's poll lcore. */
int
rsh_boot_open_cmd(struct rsh_boot *b)
{
	struct rsh_boot_open_cmd o = {
		.c = { .cancel_flag = b->opts.cancel_flag },
		.b = b,
	};

	b->delay_ms = rsh_boot_reset_delay_ms(b->dev, &b->opts);
	o.c.extra_ms = (uint32_t)RTE_MIN(b->delay_ms, (uint64_t)UINT32_MAX / 2);
	return RSH_CMD_CALL(&rsh_boot_open_type, b->dev, &o, c);
}

/* The restore command (close): the value, and the executor's timer. */
struct rsh_boot_close_cmd {
	struct rsh_cmd c;
	uint64_t value;
	uint64_t t0;     /* TSC: the first step */
};

/* Command step: write the value back once the rshim answers. */
static int
rsh_boot_close_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_boot_close_cmd *r = container_of(c, struct rsh_boot_close_cmd, c);
	char why[96];
	int rc;

	if (r->t0 == 0)
		r->t0 = now;
	rc = rsh_boot_restore_step(c->dev, r->value, r->t0, now, why, sizeof(why));
	if (rc > 0)
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(RSH_BOOT_REACH_POLL_MS));
	if (rc < 0)
		snprintf(c->err, sizeof(c->err), "BOOT_CONTROL could NOT be restored to %" PRIu64 " (%s)",
			 r->value, why);
	return rsh_cmd_finish(c, rc);
}

static const struct rsh_cmd_type rsh_boot_close_type = {
	.name = "BOOT_CONTROL restore", .step = rsh_boot_close_step,
	.run_ms = RSH_BOOT_RESTORE_TIMEOUT_MS + 1000,
};

/* Write BOOT_CONTROL = value once the rshim answers; 0 or -errno. */
int
rsh_boot_restore_cmd(struct rsh_dev *dev, uint64_t value)
{
	struct rsh_boot_close_cmd r = { .value = value };

	return RSH_CMD_CALL(&rsh_boot_close_type, dev, &r, c);
}
