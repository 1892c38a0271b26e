/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host end's pump, the steps both owners run: rshim-pmd-app's channel
 * loop (console.c: one device, spins while data moves, then backs off
 * adaptively) and the service's relay thread (relay.c: every device,
 * sleeps on descriptors only). Each owner keeps its own wait policy; what
 * moves the data and what it sleeps on are these.
 */
#ifndef RSH_PUMP_H
#define RSH_PUMP_H

#include <poll.h>
#include <stdbool.h>

#include "rsh.h"
#include "rsh_tap.h"

/**
 * Before sleeping: add the channel's wake-up eventfd to pfd[*n] (POLLIN)
 * and arm it (rsh_tmfifo_rx_arm, which clears a stale wake-up first).
 *
 * @return true when data is already queued (do not sleep); false, and
 *   nothing added, when the channel is not open.
 */
bool rsh_pump_chan_arm(struct rsh_dev *dev, enum rsh_tmfifo_chan ch,
		       struct pollfd *pfd, nfds_t *n);

/** Move TAP frames both ways (rsh_tap_to_dpu, rsh_tap_from_dpu); the work done. */
unsigned int rsh_pump_tap(struct rsh_tap *t, struct rsh_dev *dev);

#endif /* RSH_PUMP_H */
