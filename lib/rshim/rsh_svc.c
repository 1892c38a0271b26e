/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-device services: what the poll loop runs for every attached
 * device, in this order, on the poll lcore. Each has a poll step (returns
 * the data work done, may lower the loop's sleep) and a stop step (the
 * device leaves the poller: let go of everything, on the poll lcore).
 * Work means data moved or about to move: any non-zero return restarts
 * the loop's idle spin, so a step that only serves a timer (a keepalive
 * write, a periodic register look) returns 0 and relies on the loop's
 * sleep ceiling to run again in time.
 *
 * Adding a service: write its poll and stop steps (rsh_dev_priv.h) and add
 * one line here. The flags say when the loop skips it: a service that
 * must keep off the device while the NIC firmware resets it (§6.7) sets
 * RSH_SVC_F_FW_RESET_PAUSE; only a service with RSH_SVC_F_RUNS_DROPPED
 * runs for a device in drop mode (§6.4).
 */
#include "rsh_dev_priv.h"

const struct rsh_svc rsh_svcs[] = {
	/* Ownership: keepalive, takeover, LOCK (§6.2-§6.6); the only
	 * service that runs for a dropped device. */
	{ "ownership", rsh_own_poll, NULL, RSH_SVC_F_RUNS_DROPPED },
	/* SCRATCHPAD6 handshake and "host driver present" (§6.7). */
	{ "housekeeping", rsh_hk_poll, rsh_hk_stop, 0 },
	/* Boot FIFO streaming (§3.3). */
	{ "boot", rsh_boot_poll, rsh_boot_stop, RSH_SVC_F_FW_RESET_PAUSE },
	/* TM FIFO console and network (§4). */
	{ "tmfifo", rsh_tmfifo_poll, rsh_tmfifo_stop, RSH_SVC_F_FW_RESET_PAUSE },
	/* Telemetry counters go here, last. */
};

const unsigned int rsh_n_svcs = RTE_DIM(rsh_svcs);
