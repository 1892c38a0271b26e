/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands, caller and executor sides (the poll loop's part is in
 * rsh_poll.c). See rsh_cmd.h for the model.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rsh_cmd.h"
#include "rsh_log.h"
#include "rsh_poll_priv.h"

/* Prepare a command on dev. */
void
rsh_cmd_init(struct rsh_cmd *c, struct rsh_dev *dev, const char *what,
	     rsh_cmd_step_fn step)
{
	memset(c, 0, sizeof(*c));
	c->dev = dev;
	c->what = what;
	c->step = step;
}

/* Publish the end of c and wake its waiter (the last touch of c). */
static void
rsh_cmd_complete(struct rsh_cmd *c)
{
	if (c->result < 0 && c->err[0] == '\0')
		snprintf(c->err, sizeof(c->err), "%s", rsh_last_error());
	/* Pairs with the acquire load in rsh_cmd_wait(). */
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	/* c may be gone once done is seen: a late wake is harmless. */
	syscall(SYS_futex, &c->done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Fail a command that waited too long for its first step. */
bool
rsh_cmd_expired(struct rsh_cmd *c, uint64_t now)
{
	/* now may predate the submission (sampled at the start of the pass). */
	if (c->wake_at != 0 || now < c->queued ||
	    now - c->queued <= rsh_ms_cyc(RSH_CMD_QUEUE_TIMEOUT_MS))
		return false;
	snprintf(c->err, sizeof(c->err),
		 "%s: %s: the poll loop did not take the command within %u ms",
		 c->dev->name, c->what, RSH_CMD_QUEUE_TIMEOUT_MS);
	c->result = -ETIMEDOUT;
	rsh_cmd_complete(c);
	return true;
}

__thread const char *rsh_reg_trace_cmd;

/* One line of the register trace: device, command, access, value and
 * what the value means (all-ones: gone; a "not reachable" pattern). */
void
rsh_reg_trace(const struct rsh_dev *dev, uint32_t off, unsigned int bits, bool wr,
	      uint64_t v)
{
	int rc = wr ? 0 : rsh_dev_val_err(bits == 32 && v == UINT32_MAX ? RSH_ALL_ONES : v);

	if (!rte_log_can_log(rsh_logtype_reg, RTE_LOG_DEBUG))
		return;
	rte_log(RTE_LOG_DEBUG, rsh_logtype_reg, "rshim: reg: %s: %s: %s%u BAR 0x%06x %s 0x%0*" PRIx64 "%s\n",
		dev->name, rsh_reg_trace_cmd != NULL ? rsh_reg_trace_cmd : "-",
		wr ? "W" : "R", bits, off, wr ? "<-" : "->", (int)bits / 4, v,
		rc == -ENODEV ? " (all-ones: gone)" : rc == -EIO ? " (not reachable)" : "");
}

/* One step of c now; true when it finished. The register accesses of
 * the step are traced under its name. */
bool
rsh_cmd_step(struct rsh_cmd *c, uint64_t now)
{
	int r;

	rsh_err_set("%s", "");
	rsh_reg_trace_cmd = rte_log_can_log(rsh_logtype_reg, RTE_LOG_DEBUG) ? c->what : NULL;
	r = c->step(c, now);
	rsh_reg_trace_cmd = NULL;
	if (r == RSH_CMD_AGAIN) {
		if (c->wake_at == 0)
			c->wake_at = now;
		return false;
	}
	rsh_cmd_complete(c);
	return true;
}

/* Sleep on the calling thread until clock time t (at most 1 ms at a
 * time, so a cancel is seen; on the virtual clock the clock jumps). */
static void
rsh_cmd_nap_until(uint64_t t)
{
	uint64_t limit = rsh_now() + rsh_ms_cyc(1);

	rsh_clock_sleep_until(rsh_clock_is_virtual() || t < limit ? t : limit);
}

/* Run c to completion on the calling thread (it owns the device). */
void
rsh_cmd_run_inline(struct rsh_cmd *c)
{
	while (!rsh_cmd_step(c, rsh_now()))
		rsh_cmd_nap_until(c->wake_at);
}

/* Wait for the executor: futex on done, 100 ms slices. */
static void
rsh_cmd_wait(struct rsh_cmd *c)
{
	struct timespec ts = { 0, 100000000L };

	/* Pairs with the release store in rsh_cmd_complete(). */
	while (!__atomic_load_n(&c->done, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &c->done, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
}

/* The result for the caller, with the step's error line. */
static int
rsh_cmd_result(struct rsh_cmd *c)
{
	if (c->result < 0 && c->err[0] != '\0')
		rsh_err_set("%s", c->err);
	return c->result;
}

/* Run c through poller p, or inline when p does not run. */
int
rsh_cmd_exec_on(struct rsh_poller *p, struct rsh_cmd *c)
{
	c->queued = rsh_now();
	if (p != NULL && rsh_poller_submit(p, c)) {
		if (rsh_poller_is_driven(p))
			rsh_poller_drive_until(p, &c->done);
		else
			rsh_cmd_wait(c);
	} else {
		rsh_cmd_run_inline(c);
	}
	return rsh_cmd_result(c);
}

/* Run c on the device's owning thread and wait for it. */
int
rsh_cmd_exec(struct rsh_cmd *c)
{
	return rsh_cmd_exec_on(c->dev->poller, c);
}
