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
 * Adding a command: write a step function, fill a struct rsh_cmd with
 * rsh_cmd_init() and call rsh_cmd_exec(). The step runs on the owning
 * thread; it may call rsh_err_set() and the line reaches the caller.
 */
#ifndef RSH_CMD_H
#define RSH_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "rsh_dev_priv.h"

/* What a step returns. */
#define RSH_CMD_DONE 0  /* finished: result holds 0 or -errno */
#define RSH_CMD_AGAIN 1 /* step again at wake_at (TSC) */

/* A command that never started within this is failed (-ETIMEDOUT). */
#define RSH_CMD_QUEUE_TIMEOUT_MS 5000u
/* A multi-step command checks for a cancel at least this often. */
#define RSH_CMD_CANCEL_POLL_MS 10u

struct rsh_cmd;

/* One step of a command on the device's owning thread (see above). */
typedef int (*rsh_cmd_step_fn)(struct rsh_cmd *c, uint64_t now);

/*
 * One command. The caller owns the memory (usually its stack) and waits
 * until done is set; the executor (poll lcore, or the caller inline) writes
 * state, wake_at, result, out and err, then done (release).
 */
struct rsh_cmd {
	struct rsh_dev *dev;
	struct rsh_poller *poller;  /* attach/detach: the target poller */
	rsh_cmd_step_fn step;
	const char *what;           /* for the "never started" error line */
	uint64_t queued;            /* TSC at submission */
	uint64_t wake_at;           /* executor: next step not before */
	uint64_t t0;                /* executor: the step's own timer */
	const int *cancel_flag;     /* the caller's flag (relaxed), or NULL */
	int state;                  /* executor: the step's state */
	int result;                 /* executor: 0 or -errno */
	uint64_t in[4];             /* caller: arguments */
	uint64_t out[2];            /* executor: results */
	void *ptr;                  /* caller: argument object */
	char err[256];              /* executor: the error line */
	uint32_t done;              /* futex word: 1 once finished */
};

/* Prepare a command on dev (zeroes it). */
void rsh_cmd_init(struct rsh_cmd *c, struct rsh_dev *dev, const char *what,
		  rsh_cmd_step_fn step);

/*
 * Run a command on the device's owning thread and wait for it; returns
 * its result and, on failure, sets the caller's error line from the step.
 */
int rsh_cmd_exec(struct rsh_cmd *c);

/* Run a command through poller p (attach: dev is not on p yet). */
int rsh_cmd_exec_on(struct rsh_poller *p, struct rsh_cmd *c);

/* True when the command's cancel flag is set. */
static inline bool
rsh_cmd_cancelled(const struct rsh_cmd *c)
{
	return c->cancel_flag != NULL &&
	       __atomic_load_n(c->cancel_flag, __ATOMIC_RELAXED) != 0;
}

/* Executor side: one step of c now; true when it finished (done set). */
bool rsh_cmd_step(struct rsh_cmd *c, uint64_t now);

/* Poll loop: fail c if it waited too long for its first step. */
bool rsh_cmd_expired(struct rsh_cmd *c, uint64_t now);

/* Executor side: run c to completion on the calling thread. */
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

/* Poller side (rsh_poll.c): queue c; false when the loop is not running. */
bool rsh_poller_submit(struct rsh_poller *p, struct rsh_cmd *c);

#endif /* RSH_CMD_H */
