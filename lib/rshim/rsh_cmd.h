/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands: how any thread gets register work done on a device. The poll
 * lcore that owns a device is the only thread that touches its registers
 * while the poller runs; everybody else describes the work as a command,
 * queues it on the poller's multi-producer ring and waits for its
 * completion. The poll loop steps commands between data bursts. A command
 * that needs time (a reset delay, a semaphore, a device coming back) is a
 * state machine: each step is short, and asks to be stepped again at a TSC
 * time instead of sleeping, so a slow command on one device never delays
 * another device's data.
 *
 * A device that is not attached to a running poller is owned by the thread
 * that calls the library (one control thread at a time); its commands run
 * inline on that thread, stepped the same way with short naps.
 *
 * Typed commands. A command is a struct of its own that embeds struct
 * rsh_cmd (anywhere) next to its arguments and results; its step recovers
 * it with container_of. What the loop needs to know about a kind of
 * command is in a constant struct rsh_cmd_type (name, step, how long it
 * may run). Adding a command:
 *
 *	struct rsh_foo_cmd { struct rsh_cmd c; uint64_t in; uint64_t out; };
 *	static int rsh_foo_step(struct rsh_cmd *c, uint64_t now)
 *	{
 *		struct rsh_foo_cmd *f = container_of(c, struct rsh_foo_cmd, c);
 *		...
 *		return rsh_cmd_finish(c, 0);
 *	}
 *	static const struct rsh_cmd_type rsh_foo_type = {
 *		.name = "foo", .step = rsh_foo_step, .run_ms = 1000 };
 *
 *	struct rsh_foo_cmd f = { .in = 1 };
 *	rc = RSH_CMD_CALL(&rsh_foo_type, dev, &f, c);   f.out is the result
 *
 * The step runs on the owning thread; it may call rsh_err_set() and the
 * line reaches the caller.
 *
 * The caller's deadline, and who frees. rsh_cmd_call() copies the typed
 * command into memory of its own (heap) and hands that copy to the loop;
 * the caller's struct (all but its struct rsh_cmd) is written back only
 * when the command finished. The caller waits at most its deadline: the
 * time the loop may take to start a command (RSH_CMD_QUEUE_TIMEOUT_MS) +
 * the type's run_ms + the caller's extra_ms (a reset delay) +
 * RSH_CMD_SLACK_MS, or timeout_ms when the caller sets it. A loop that is wedged, or parked, does not hang the
 * caller: at the deadline the caller abandons the command and returns
 * -ETIMEDOUT. The copy's state word (st) makes that safe:
 *
 *   PENDING  queued, or between two steps
 *   RUNNING  the executor is inside a step (claimed PENDING -> RUNNING)
 *   DONE     finished; result and err are final (release)
 *   ABANDONED the caller gave up (PENDING -> ABANDONED, by the caller)
 *
 * The caller abandons only a PENDING command; when its deadline finds a
 * step RUNNING it waits for that step to end (steps are short and never
 * sleep), then abandons or collects. So no step ever runs after the
 * caller returned, and the pointers a command carries to the caller's
 * objects (a boot object, a request) are only used while the caller
 * waits. The executor never steps an ABANDONED command again: it drops
 * it (running the type's abandon hook when the command had started, for
 * state the command left on the device). The copy has two references,
 * the caller's and the executor's; whoever lets go last frees it.
 * A loop wedged inside one step (a register access that never returns)
 * still holds its caller: no deadline can take a step back.
 */
#ifndef RSH_CMD_H
#define RSH_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#include "rsh_dev_priv.h"

/* What a step returns. */
#define RSH_CMD_DONE 0  /* finished: result holds 0 or -errno */
#define RSH_CMD_AGAIN 1 /* step again at wake_at (TSC) */

/* A command that never started within this is failed (-ETIMEDOUT). */
#define RSH_CMD_QUEUE_TIMEOUT_MS 5000u
/* A multi-step command checks for a cancel at least this often. */
#define RSH_CMD_CANCEL_POLL_MS 10u
/* Added to the caller's deadline: the loop's own passes, a busy host. */
#define RSH_CMD_SLACK_MS 2000u

/* States of a command (its st word). */
enum rsh_cmd_st {
	RSH_CMD_ST_PENDING = 0,
	RSH_CMD_ST_RUNNING,
	RSH_CMD_ST_DONE,
	RSH_CMD_ST_ABANDONED,
};

struct rsh_cmd;

/* One step of a command on the device's owning thread (see above). */
typedef int (*rsh_cmd_step_fn)(struct rsh_cmd *c, uint64_t now);

/* A kind of command (a constant; see above). */
struct rsh_cmd_type {
	const char *name;        /* errors and the register trace */
	rsh_cmd_step_fn step;
	/* Optional: the executor drops an abandoned command that had
	 * started; undo what it left on the device (not the caller's
	 * objects: they may be gone). */
	void (*abandon)(struct rsh_cmd *c);
	uint32_t run_ms;         /* longest run once started (its own deadlines) */
};

/*
 * The generic part of a command. The caller may set cancel_flag,
 * extra_ms and timeout_ms before the call; rsh_cmd_call() sets the rest.
 * The executor (poll lcore, or the caller inline) writes wake_at, result
 * and err, then st.
 */
struct rsh_cmd {
	const int *cancel_flag;     /* caller: its flag (relaxed), or NULL */
	uint32_t extra_ms;          /* caller: added to the deadline */
	uint32_t timeout_ms;        /* caller: its own deadline, 0 = computed */
	const struct rsh_cmd_type *type;
	struct rsh_dev *dev;
	void *mem;                  /* the copy's allocation (container) */
	uint64_t queued;            /* TSC at submission */
	uint64_t wake_at;           /* executor: next step not before */
	int result;                 /* executor: 0 or -errno */
	uint32_t st;                /* enum rsh_cmd_st; futex word */
	uint32_t refs;              /* caller + executor (atomic) */
	bool started;               /* executor: a step ran */
	char err[256];              /* executor: the error line */
};

/*
 * Run the typed command obj (size bytes, c embedded in it) of type t on
 * dev's owning thread and wait for it (see above). Returns its result; on
 * success or a failure of the command obj holds what the step wrote back;
 * -ETIMEDOUT with obj untouched when the caller's deadline passed;
 * -ENOMEM. On failure the caller's error line is set.
 */
int rsh_cmd_call(const struct rsh_cmd_type *t, struct rsh_dev *dev,
		 struct rsh_cmd *c, void *obj, size_t size);

/* The same through poller p (attach: dev is not on p yet; NULL inline). */
int rsh_cmd_call_on(struct rsh_poller *p, const struct rsh_cmd_type *t,
		    struct rsh_dev *dev, struct rsh_cmd *c, void *obj, size_t size);

/* rsh_cmd_call on a typed command: obj a pointer, member its rsh_cmd. */
#define RSH_CMD_CALL(t, dev, obj, member) \
	rsh_cmd_call((t), (dev), &(obj)->member, (obj), sizeof(*(obj)))

/* True when the command's cancel flag is set. */
static inline bool
rsh_cmd_cancelled(const struct rsh_cmd *c)
{
	return c->cancel_flag != NULL &&
	       __atomic_load_n(c->cancel_flag, __ATOMIC_RELAXED) != 0;
}

/*
 * Executor side: one turn of c at now (claim, expiry, one step); true
 * when the executor is done with c (finished or dropped), which then may
 * be gone.
 */
bool rsh_cmd_turn(struct rsh_cmd *c, uint64_t now);

/* Executor side: run c to completion (or drop it) on the calling thread. */
void rsh_cmd_run_inline(struct rsh_cmd *c);

/* Ask to be stepped again at t, but no later than the cancel poll. */
static inline int
rsh_cmd_again(struct rsh_cmd *c, uint64_t now, uint64_t t)
{
	uint64_t poll = now + rsh_ms_cyc(RSH_CMD_CANCEL_POLL_MS);

	c->wake_at = t < poll ? t : poll;
	return RSH_CMD_AGAIN;
}

/* Finish with a result. */
static inline int
rsh_cmd_finish(struct rsh_cmd *c, int rc)
{
	c->result = rc;
	return RSH_CMD_DONE;
}

/* Tests: command copies alive now (allocated, not yet freed). */
uint32_t rsh_cmd_live(void);

/* Poller side (rsh_poll.c): queue c; false when the loop is not running. */
bool rsh_poller_submit(struct rsh_poller *p, struct rsh_cmd *c);

#endif /* RSH_CMD_H */
