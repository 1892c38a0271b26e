/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated DPU's ARM side of the TM FIFO: a model of Linux's
 * mlxbf-tmfifo (hardware-notes §D2-§D4, §D8;
 * hardware-notes §4.11) joined to Linux ends (rsh_sim_peer.c): a
 * TAP in namespace rshim-sim<N> and a shell on a PTY, or the built-in
 * responder and line echo.
 *
 * Life cycle: installed at probe; "up" (banner, link up, FIFOs served)
 * once a boot stream completed ("DPU is ready"), or from power-on and
 * after eMMC resets with booted=1; the peer is created at the first start
 * and destroyed at close; a reset (the key) takes it down and clears its
 * parser and writer state (the register file clears the FIFOs).
 *
 * Scheduling: the register file calls arm_poll before every TM FIFO
 * access with the TSC; the model then moves words in bursts. With a real
 * TAP/PTY a watcher thread (rsh_sim_arm_watch.c) blocks in poll() on the
 * ones found empty, and the model reads only those reported readable.
 * Without it (responder, or the thread could not start), reads that found
 * nothing are retried only after armpoll= (10 us), except right after the
 * host gave the peer data (a reply is likely).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_sim_arm_priv.h"

/* Namespace index of the next peer without peer=<N> (per process). */
/* Linux runs on the ARM: after a completed boot stream, or with booted=1
 * at power-on and after resets that boot from eMMC. */
static bool
rsh_sim_arm_is_up(const struct rsh_sim *sim)
{
	if (sim->st.booted)
		return true;
	return sim->cfg.arm.booted && (sim->arm_up || sim->st.resets == 0);
}

/* Record what kind of peer we got. */
static void
rsh_sim_arm_peer_stats(struct rsh_sim_arm *a, unsigned int index)
{
	RSH_SIM_ARM_SET(a, peer_index, index);
	RSH_SIM_ARM_SET(a, peer_netns,
			a->peer != NULL && rsh_sim_peer_is_netns(a->peer));
	RSH_SIM_ARM_SET(a, peer_shell,
			a->peer != NULL && rsh_sim_peer_has_shell(a->peer));
}

/* Create the Linux ends; on failure fall back to the responder/echo. */
static void
rsh_sim_arm_peer_open(struct rsh_sim *sim, struct rsh_sim_arm *a)
{
	struct rsh_sim_peer_opts o = { 0 };
	int rc;

	a->peer_tried = true;
	o.auto_index = sim->cfg.arm.peer_index < 0;
	o.index = o.auto_index ? 0 : (unsigned int)sim->cfg.arm.peer_index;
	o.no_netns = sim->cfg.arm.no_peer;
	rc = rsh_sim_peer_create(&o, &a->peer);
	if (rc < 0 && !o.no_netns) {
		RSH_DEV_LOG(WARNING, &sim->be, "DPU peer: %s; using the built-in responder",
			    rc == -EBUSY ? rsh_last_error() : strerror(-rc));
		o.no_netns = true;
		rc = rsh_sim_peer_create(&o, &a->peer);
	}
	if (rc < 0) {
		RSH_DEV_LOG(ERR, &sim->be, "no DPU peer: %s; ARM traffic is dropped",
			    strerror(-rc));
		a->peer = NULL;
	}
	rsh_sim_arm_peer_stats(a, a->peer != NULL ?
			       rsh_sim_peer_index(a->peer) : o.index);
	/* Real descriptors: block in poll() on them instead of reading. */
	if (a->peer != NULL && rsh_sim_peer_is_netns(a->peer) &&
	    rsh_sim_arm_watch_start(&a->watch, rsh_sim_peer_net_fd(a->peer),
				    rsh_sim_peer_con_fd(a->peer)) < 0)
		RSH_DEV_LOG(NOTICE, &sim->be, "DPU peer: no readiness thread; polling the TAP every armpoll=");
}

/* The ARM's Linux came up: console banner, link up (§D8 item 6). */
static void
rsh_sim_arm_start(struct rsh_sim *sim, struct rsh_sim_arm *a, uint64_t now)
{
	char b[128];
	int n;

	if (!a->peer_tried)
		rsh_sim_arm_peer_open(sim, a);
	n = snprintf(b, sizeof(b), "\r\nrshim-pmd emulated %s (sim:bf%d)\r\n%s",
		     rsh_gen_name(sim->cfg.gen), (int)sim->cfg.gen,
		     a->peer != NULL && rsh_sim_peer_has_shell(a->peer) ? "" :
		     "line-echo console (no shell)\r\n");
	rsh_sim_arm_con_put(a, b, (uint32_t)n);
	a->running = true;
	a->tx_seq = a->rx_seq = 0;
	a->stall_until = 0;
	a->stall_done = false;
	a->net_next = a->con_next = now;
	RSH_SIM_ARM_SET(a, up, 1);
	RSH_SIM_ARM_ADD(a, starts, 1);
	RSH_DEV_LOG(DEBUG, &sim->be, "ARM side up");
}

/* uefi=: after a boot stream UEFI owns the FIFOs for a while; its
 * console ring is gone when Linux starts. */
static bool
rsh_sim_arm_uefi_holds(const struct rsh_sim *sim, struct rsh_sim_arm *a,
		       uint64_t now)
{
	bool uefi = sim->cfg.arm.uefi_ns != 0 && sim->st.booted &&
		    now - sim->ready_tsc <
		    rsh_sim_ns_to_cyc(sim, sim->cfg.arm.uefi_ns);

	if (a->in_uefi && !uefi)
		a->uefi_con_len = 0;
	a->in_uefi = uefi;
	return uefi;
}

/* arm_poll hook: serve HOST_TO_TILE, then TILE_TO_HOST. */
static void
rsh_sim_arm_poll_cb(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_arm *a = sim->arm_priv;

	if (!a->running) {
		if (!rsh_sim_arm_is_up(sim))
			return;
		if (rsh_sim_arm_uefi_holds(sim, a, now)) {
			rsh_sim_arm_uefi_run(sim, a);
			return;
		}
		rsh_sim_arm_start(sim, a, now);
	}
	if (now < a->stall_until)
		return;
	rsh_sim_arm_rx_run(sim, a, now);
	if (now < a->stall_until)
		return;
	rsh_sim_arm_tx_run(sim, a, now);
}

/* arm_reset hook: link down, parser and writer state gone (the console
 * ring is ARM memory too). The peer stays for the next boot. */
static void
rsh_sim_arm_reset_cb(struct rsh_sim *sim)
{
	struct rsh_sim_arm *a = sim->arm_priv;

	a->running = false;
	memset(&a->rx, 0, sizeof(a->rx));
	memset(&a->tx, 0, sizeof(a->tx));
	a->stall_until = 0;
	RSH_SIM_ARM_SET(a, up, 0);
}

/* arm_close hook: remove the Linux ends, free. */
static void
rsh_sim_arm_close_cb(struct rsh_sim *sim)
{
	struct rsh_sim_arm *a = sim->arm_priv;

	if (a == NULL)
		return;
	rsh_sim_arm_watch_stop(a->watch);
	rsh_sim_peer_destroy(a->peer);
	free(a);
	sim->arm_priv = NULL;
	sim->arm = NULL;
}

static const struct rsh_sim_arm_ops rsh_sim_arm_hooks = {
	.arm_poll = rsh_sim_arm_poll_cb,
	.arm_reset = rsh_sim_arm_reset_cb,
	.arm_close = rsh_sim_arm_close_cb,
};

/* Install the model, see rsh_sim_priv.h. */
int
rsh_sim_arm_attach(struct rsh_sim *sim)
{
	static const uint8_t mac[6] = RSH_SIM_PEER_MAC;
	struct rsh_sim_arm *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return -ENOMEM;
	memcpy(a->mac, mac, sizeof(mac));
	a->poll_cyc = rsh_sim_ns_to_cyc(sim, sim->cfg.arm.poll_ns);
	a->st.peer_index = UINT64_MAX;
	sim->arm_priv = a;
	sim->arm = &rsh_sim_arm_hooks;
	return 0;
}

/* Copy the ARM counters (relaxed loads; any thread). */
int
rsh_sim_arm_stats_get(const struct rsh_backend *be,
		      struct rsh_sim_arm_stats *st)
{
	const struct rsh_sim *sim = (const struct rsh_sim *)be;
	const uint64_t *src;
	uint64_t *dst = (uint64_t *)st;
	size_t i;

	RTE_BUILD_BUG_ON(sizeof(*st) % sizeof(uint64_t) != 0);
	if (be == NULL || st == NULL || be->drv == NULL ||
	    strcmp(be->drv->name, "sim") != 0)
		return -EINVAL;
	if (sim->arm_priv == NULL) {
		memset(st, 0, sizeof(*st));
		st->peer_index = UINT64_MAX;
		return 0;
	}
	src = (const uint64_t *)&((const struct rsh_sim_arm *)sim->arm_priv)->st;
	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	return 0;
}
