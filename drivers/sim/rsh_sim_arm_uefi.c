/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UEFI on the emulated DPU's TM FIFO (uefi=<dur>): between "DPU is ready"
 * and Linux, UEFI's TmFifoDxe owns the FIFOs (hardware-notes §D3.10). It
 * polls whole messages only: console input is kept in a 1 KiB ring and
 * taken only when the whole message fits (otherwise it stays in
 * HOST_TO_TILE and the host backs up), network frames are read and
 * dropped (no stack is configured in the emulated UEFI), control messages
 * are ignored. The ring is UEFI memory: Linux starts without it.
 */
#include "rsh_sim_arm_priv.h"

/* Room left in the 1 KiB ring. */
static uint32_t
rsh_sim_uefi_room(const struct rsh_sim_arm *a)
{
	return RSH_SIM_ARM_UEFI_RING - a->uefi_con_len;
}

/* One whole message at the head of HOST_TO_TILE, if it can be taken:
 * popped, and the console bytes kept. False when it must wait. */
static bool
rsh_sim_uefi_take(struct rsh_sim *sim, struct rsh_sim_arm *a)
{
	uint64_t m[1 + RSH_SIM_TM_DEPTH];
	const uint64_t *w;
	unsigned int words, len;
	uint8_t type;

	if (rsh_sim_fifo_peek(&sim->htt, &w) == 0)
		return false;
	len = rsh_tmfifo_hdr_len(w[0]);
	type = rsh_tmfifo_hdr_type(w[0]);
	words = 1 + (len + 7) / 8;
	if (words > RSH_SIM_TM_DEPTH) { /* cannot all be in the FIFO: drain */
		rsh_sim_htt_pop(sim, m, 1);
		RSH_SIM_ARM_ADD(a, rx_drop_oversize, 1);
		return true;
	}
	if (rsh_sim_htt_count(sim) < words)
		return false; /* UEFI reads whole messages only */
	if (len > 0 && type != RSH_TMFIFO_TYPE_NET && len > rsh_sim_uefi_room(a)) {
		RSH_SIM_ARM_ADD(a, rx_uefi_con_full, 1);
		return false;
	}
	rsh_sim_htt_pop(sim, m, words);
	if (len == 0) {
		if (type >= RSH_TMFIFO_TYPE_CTRL_FIRST)
			RSH_SIM_ARM_ADD(a, rx_ctrl_msgs, 1);
		else
			RSH_SIM_ARM_ADD(a, rx_sync_words, 1);
		return true;
	}
	RSH_SIM_ARM_ADD(a, rx_msgs, 1);
	if (type == RSH_TMFIFO_TYPE_NET) {
		RSH_SIM_ARM_ADD(a, rx_drop_peer, 1);
		return true;
	}
	rsh_tmfifo_unpack(a->uefi_con + a->uefi_con_len, &m[1], len);
	a->uefi_con_len += len;
	RSH_SIM_ARM_ADD(a, rx_uefi_con_bytes, len);
	return true;
}

/* Serve HOST_TO_TILE the UEFI way until it must wait. */
void
rsh_sim_arm_uefi_run(struct rsh_sim *sim, struct rsh_sim_arm *a)
{
	while (rsh_sim_uefi_take(sim, a))
		;
}
