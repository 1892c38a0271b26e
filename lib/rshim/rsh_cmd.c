/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands, caller and executor sides (the poll loop's part is in
 * rsh_poll.c). See rsh_cmd.h for the model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rsh_cmd.h"
#include "rsh_log.h"
#include "rsh_poll_priv.h"

/* Command copies alive (tests look for leaks and double frees). */
static uint32_t rsh_cmd_n_live;

uint32_t
rsh_cmd_live(void)
{
	return __atomic_load_n(&rsh_cmd_n_live, __ATOMIC_ACQUIRE);
}

/* Let go of one reference to c's copy; the last one frees it. */
static void
rsh_cmd_put(struct rsh_cmd *c)
{
	/* acq_rel: the last one sees every write of the other holder. */
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	free(c->mem);
	__atomic_fetch_sub(&rsh_cmd_n_live, 1, __ATOMIC_RELEASE);
}

/* Publish the end of c, wake its waiter and let go of it. */
static void
rsh_cmd_complete(struct rsh_cmd *c)
{
	if (c->result < 0 && c->err[0] == '\0')
		snprintf(c->err, sizeof(c->err), "%s", rsh_last_error());
	/* Pairs with the acquire loads in rsh_cmd_wait(). */
	__atomic_store_n(&c->st, RSH_CMD_ST_DONE, __ATOMIC_RELEASE);
	/* c is alive until our put below, whatever the waiter does. */
	syscall(SYS_futex, &c->st, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	rsh_cmd_put(c);
}

/* Fail a command that waited too long for its first step. */
static bool
rsh_cmd_expired(struct rsh_cmd *c, uint64_t now)
{
	/* now may predate the submission (sampled at the start of the pass). */
	if (c->started || now < c->queued ||
	    now - c->queued <= rsh_ms_cyc(RSH_CMD_QUEUE_TIMEOUT_MS))
		return false;
	snprintf(c->err, sizeof(c->err),
		 "%s: %s: the poll loop did not take the command within %u ms",
		 c->dev->name, c->type->name, RSH_CMD_QUEUE_TIMEOUT_MS);
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

/*
 * One turn of c now: claim it (PENDING -> RUNNING), or drop it when its
 * caller abandoned it; then one step. True when the executor is done
 * with c. The register accesses of the step are traced under its name.
 */
bool
rsh_cmd_turn(struct rsh_cmd *c, uint64_t now)
{
	uint32_t st = RSH_CMD_ST_PENDING;
	int r;

	/* Pairs with the caller's CAS in rsh_cmd_wait(): one of the two wins. */
	if (!__atomic_compare_exchange_n(&c->st, &st, RSH_CMD_ST_RUNNING, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		if (c->started && c->type->abandon != NULL)
			c->type->abandon(c);
		rsh_cmd_put(c);
		return true;
	}
	if (rsh_cmd_expired(c, now))
		return true;
	c->started = true;
	rsh_err_set("%s", "");
	rsh_reg_trace_cmd = rte_log_can_log(rsh_logtype_reg, RTE_LOG_DEBUG) ? c->type->name : NULL;
	r = c->type->step(c, now);
	rsh_reg_trace_cmd = NULL;
	if (r == RSH_CMD_AGAIN) {
		if (c->wake_at == 0)
			c->wake_at = now;
		/* Pairs with the caller's acquire CAS: the step's writes. */
		__atomic_store_n(&c->st, RSH_CMD_ST_PENDING, __ATOMIC_RELEASE);
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
	while (!rsh_cmd_turn(c, rsh_now()))
		rsh_cmd_nap_until(c->wake_at);
}

/* The caller's deadline of c, ms. */
static uint64_t
rsh_cmd_timeout_ms(const struct rsh_cmd *c)
{
	if (c->timeout_ms != 0)
		return c->timeout_ms;
	return (uint64_t)RSH_CMD_QUEUE_TIMEOUT_MS + c->type->run_ms + c->extra_ms +
	       RSH_CMD_SLACK_MS;
}

/* The caller's clock: a driven poller runs on the clock seam (the caller
 * steps it); a loop thread is judged in real time. */
static uint64_t
rsh_cmd_caller_now(bool driven)
{
	return driven ? rsh_now() : rte_get_timer_cycles();
}

/*
 * Wait for the executor until the caller's deadline: futex on st in
 * slices of at most 100 ms, or passes of a driven poller. True when c
 * finished; false when the caller abandoned it (only ever a PENDING one).
 */
static bool
rsh_cmd_wait(struct rsh_poller *p, struct rsh_cmd *c)
{
	bool driven = rsh_poller_is_driven(p);
	uint64_t end = rsh_cmd_caller_now(driven) + rsh_ms_cyc(rsh_cmd_timeout_ms(c));

	for (;;) {
		/* Pairs with the release stores of the executor. */
		uint32_t st = __atomic_load_n(&c->st, __ATOMIC_ACQUIRE);
		uint64_t now = rsh_cmd_caller_now(driven);
		uint64_t ns = now < end ? RTE_MIN(rsh_cyc_ns(end - now), 100000000ull) : 1000000ull;
		struct timespec ts = { 0, (long)ns };

		if (st == RSH_CMD_ST_DONE)
			return true;
		if (now >= end && st == RSH_CMD_ST_PENDING &&
		    __atomic_compare_exchange_n(&c->st, &st, RSH_CMD_ST_ABANDONED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return false;
		if (driven)
			rsh_poller_drive_step(p, ns);
		else
			syscall(SYS_futex, &c->st, FUTEX_WAIT_PRIVATE, st, &ts, NULL, 0);
	}
}

/* Run a typed command through poller p, or inline when p does not run. */
int
rsh_cmd_call_on(struct rsh_poller *p, const struct rsh_cmd_type *t, struct rsh_dev *dev,
		struct rsh_cmd *c, void *obj, size_t size)
{
	size_t off = (size_t)((char *)c - (char *)obj);
	void *mem = malloc(size);
	struct rsh_cmd *h;
	int rc;

	if (mem == NULL) {
		rsh_err_set("%s: %s: out of memory for the command", dev->name, t->name);
		return -ENOMEM;
	}
	__atomic_fetch_add(&rsh_cmd_n_live, 1, __ATOMIC_RELAXED);
	memcpy(mem, obj, size);
	h = (struct rsh_cmd *)((char *)mem + off);
	h->type = t;
	h->dev = dev;
	h->mem = mem;
	h->queued = rsh_now();
	h->wake_at = 0;
	h->result = 0;
	h->st = RSH_CMD_ST_PENDING;
	h->refs = 2; /* the caller's and the executor's */
	h->started = false;
	h->err[0] = '\0';
	if (p == NULL || !rsh_poller_submit(p, h)) {
		rsh_cmd_run_inline(h);
	} else if (!rsh_cmd_wait(p, h)) {
		rsh_err_set("%s: %s: the poll loop did not finish the command within %" PRIu64 " ms (wedged?); abandoned",
			    dev->name, t->name, rsh_cmd_timeout_ms(h));
		rsh_cmd_put(h);
		return -ETIMEDOUT;
	}
	rc = h->result;
	if (rc < 0 && h->err[0] != '\0')
		rsh_err_set("%s", h->err);
	/* The typed fields back, around the header: the executor may still
	 * touch the header's st and refs atomically (its wake and put). */
	memcpy(obj, mem, off);
	memcpy((char *)obj + off + sizeof(*h), (char *)mem + off + sizeof(*h),
	       size - off - sizeof(*h));
	rsh_cmd_put(h);
	return rc;
}

/* Run a typed command on the device's owning thread and wait for it. */
int
rsh_cmd_call(const struct rsh_cmd_type *t, struct rsh_dev *dev, struct rsh_cmd *c,
	     void *obj, size_t size)
{
	return rsh_cmd_call_on(dev->poller, t, dev, c, obj, size);
}
