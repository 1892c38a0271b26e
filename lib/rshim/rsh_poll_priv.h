/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll loop's internal calls for the core and its tests: pollers
 * driven by the threads that wait on them, with the clock seam of
 * rsh_clock.h, so a unit test steps the loop on virtual time instead of
 * racing a loop thread against real deadlines.
 */
#ifndef RSH_POLL_PRIV_H
#define RSH_POLL_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "rsh.h"

/*
 * Start p without a loop thread: commands, boot pushes and channel users
 * then run the loop's passes on their own thread while they wait for it,
 * one thread at a time. @return 0, -EALREADY.
 */
int rsh_poller_start_driven(struct rsh_poller *p);

/* True when p was started driven (and not stopped). */
bool rsh_poller_is_driven(const struct rsh_poller *p);

/* Run a driven poller until *flag reads non-zero (acquire). */
void rsh_poller_drive_until(struct rsh_poller *p, const uint32_t *flag);

/* Run a driven poller for ns of clock time: passes, idle sleeps up to
 * the loop's next due time (tests). */
void rsh_poller_run_for(struct rsh_poller *p, uint64_t ns);

/*
 * A control thread waits up to ns for the loop's work (a free chunk, a
 * finished push, a reply): a driven poller gets a pass from the caller
 * first; otherwise the caller sleeps. p may be NULL.
 */
void rsh_poller_ctl_wait(struct rsh_poller *p, uint64_t ns);

#endif /* RSH_POLL_PRIV_H */
