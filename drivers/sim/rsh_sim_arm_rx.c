/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ARM side's HOST_TO_TILE parser, as mlxbf-tmfifo reads its Rx FIFO
 * (hardware-notes §D2.4, §D2.5, §D3.4, §D3.8, §D8 item 3):
 * zero-length headers are skipped, type 1 is a network frame (accepted up
 * to 1518 bytes, larger ones drained and dropped, the post-2023 behaviour),
 * any other type with a length is console input; a message may arrive over
 * many polls. Words are consumed in place from the FIFO (peek + drop), so
 * back-pressure from the peer leaves them in HOST_TO_TILE, where the host
 * sees them as occupancy (hardware-notes §4.10).
 */
#include <errno.h>
#include <inttypes.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_sim_arm_priv.h"

/*
 * Control messages (len 0, types 0xFB-0xFF, §D2.2): upstream Linux drops
 * them unseen; the emulator by default plays UEFI, the presumed responder
 * (inferred, §D2.2): a host "set" is recorded, CTRL_REQ gets the four
 * replies. With ctrl=ignore they are only counted.
 */
static void
rsh_sim_arm_rx_ctrl(struct rsh_sim *sim, struct rsh_sim_arm *a, uint64_t h)
{
	RSH_SIM_ARM_ADD(a, rx_ctrl_msgs, 1);
	if (sim->cfg.arm.ctrl_ignore || !rsh_tmfifo_hdr_csum_ok(h))
		return;
	switch (rsh_tmfifo_hdr_type(h)) {
	case RSH_TMFIFO_TYPE_CTRL_REQ:
		rsh_sim_arm_ctrl_reply(a);
		break;
	case RSH_TMFIFO_TYPE_MAC_1:
	case RSH_TMFIFO_TYPE_MAC_2: {
		unsigned int o = rsh_tmfifo_hdr_type(h) == RSH_TMFIFO_TYPE_MAC_2 ? 3 : 0;

		a->mac[o] = rsh_tmfifo_hdr_data(h, 0);
		a->mac[o + 1] = rsh_tmfifo_hdr_data(h, 1);
		a->mac[o + 2] = rsh_tmfifo_hdr_data(h, 2);
		break;
	}
	case RSH_TMFIFO_TYPE_VLAN_ID:
		a->vlan[0] = rsh_tmfifo_hdr_be16(h, 0);
		a->vlan[1] = rsh_tmfifo_hdr_be16(h, 2);
		break;
	default: /* PXE_ID */
		a->pxe = rsh_tmfifo_hdr_be32(h);
	}
}

/* A data message is complete: count it; start an armstall= once the n-th
 * one is in. */
static void
rsh_sim_arm_rx_counted(struct rsh_sim *sim, struct rsh_sim_arm *a,
		       uint64_t now)
{
	RSH_SIM_ARM_ADD(a, rx_msgs, 1);
	a->rx_seq++;
	if (a->stall_done || sim->cfg.arm.stall_at == 0 ||
	    a->rx_seq < sim->cfg.arm.stall_at)
		return;
	a->stall_done = true;
	a->stall_until = now + rsh_sim_ns_to_cyc(sim, sim->cfg.arm.stall_ns);
	RSH_SIM_ARM_ADD(a, fault_stalls, 1);
	RSH_DEV_LOG(DEBUG, &sim->be, "ARM stall after message %" PRIu64,
		    a->rx_seq);
}

/* One header word: pick the state for its payload (§D3.4 "start of
 * message"). */
static void
rsh_sim_arm_rx_hdr(struct rsh_sim *sim, struct rsh_sim_arm *a, uint64_t h)
{
	struct rsh_sim_arm_rx *r = &a->rx;
	uint8_t type = rsh_tmfifo_hdr_type(h);

	r->len = rsh_tmfifo_hdr_len(h);
	if (r->len == 0) {
		if (type >= RSH_TMFIFO_TYPE_CTRL_FIRST)
			rsh_sim_arm_rx_ctrl(sim, a, h);
		else
			RSH_SIM_ARM_ADD(a, rx_sync_words, 1);
		return;
	}
	r->rem_words = (r->len + 7) / 8;
	r->rem_bytes = r->len;
	r->got_words = 0;
	if (type != RSH_TMFIFO_TYPE_NET) {
		r->st = RSH_SIM_ARM_RX_CON; /* any non-net type, §D3.8 */
	} else if (r->len > RSH_TMFIFO_ARM_NET_MAX) {
		r->st = RSH_SIM_ARM_RX_DRAIN;
		RSH_SIM_ARM_ADD(a, rx_drop_oversize, 1);
	} else {
		r->st = RSH_SIM_ARM_RX_NET;
	}
}

/* Give the collected frame to the TAP; false when it must wait. */
static bool
rsh_sim_arm_rx_net_flush(struct rsh_sim_arm *a, uint64_t now)
{
	struct rsh_sim_arm_rx *r = &a->rx;
	uint8_t f[RSH_TMFIFO_ARM_NET_MAX];
	ssize_t n = r->len;

	if (!r->net_pend)
		return true;
	if (a->peer != NULL) {
		rsh_tmfifo_unpack(f, r->net_w, r->len);
		n = rsh_sim_peer_net_write(a->peer, f, r->len);
		RSH_SIM_ARM_ADD(a, peer_syscalls, 1);
	}
	if (n == -EAGAIN)
		return false;
	r->net_pend = false;
	if (n < 0) {
		RSH_SIM_ARM_ADD(a, rx_drop_peer, 1);
		return true;
	}
	RSH_SIM_ARM_ADD(a, rx_net_frames, 1);
	RSH_SIM_ARM_ADD(a, rx_net_bytes, r->len);
	a->net_next = now; /* a reply is likely on the TAP right away */
	return true;
}

/* Give buffered console bytes to the PTY; false when some must wait. */
static bool
rsh_sim_arm_rx_con_flush(struct rsh_sim_arm *a)
{
	struct rsh_sim_arm_rx *r = &a->rx;
	ssize_t n;

	while (r->con_off < r->con_len) {
		n = (ssize_t)(r->con_len - r->con_off);
		if (a->peer != NULL && !a->con_dead) {
			n = rsh_sim_peer_con_write(a->peer, r->con + r->con_off,
						   r->con_len - r->con_off);
			RSH_SIM_ARM_ADD(a, peer_syscalls, 1);
		}
		if (n == -EAGAIN || n == 0)
			return false;
		if (n < 0) { /* shell gone: console input is dropped */
			a->con_dead = true;
			n = (ssize_t)(r->con_len - r->con_off);
		}
		RSH_SIM_ARM_ADD(a, rx_con_bytes, n);
		r->con_off += (uint32_t)n;
	}
	r->con_off = r->con_len = 0;
	a->con_next = 0; /* the echo/shell answers soon */
	return true;
}

/* Payload words of a frame (or of a dropped one). */
static unsigned int
rsh_sim_arm_rx_net(struct rsh_sim_arm *a, const uint64_t *w, unsigned int n)
{
	struct rsh_sim_arm_rx *r = &a->rx;
	unsigned int k = RTE_MIN(n, r->rem_words);

	if (r->st == RSH_SIM_ARM_RX_NET)
		memcpy(&r->net_w[r->got_words], w, (size_t)k * 8);
	r->got_words += k;
	r->rem_words -= k;
	if (r->rem_words == 0) {
		r->net_pend = r->st == RSH_SIM_ARM_RX_NET;
		r->st = RSH_SIM_ARM_RX_HDR;
	}
	return k;
}

/* Payload words of a console message, into the pending-bytes buffer. */
static unsigned int
rsh_sim_arm_rx_con(struct rsh_sim_arm *a, const uint64_t *w, unsigned int n)
{
	struct rsh_sim_arm_rx *r = &a->rx;
	unsigned int room = (RSH_SIM_ARM_CON_PEND - r->con_len) / 8;
	unsigned int k = RTE_MIN(RTE_MIN(n, r->rem_words), room);
	uint32_t bytes = RTE_MIN(r->rem_bytes, k * 8u);

	rsh_tmfifo_unpack(r->con + r->con_len, w, bytes);
	r->con_len += bytes;
	r->rem_bytes -= bytes;
	r->rem_words -= k;
	if (r->rem_words == 0)
		r->st = RSH_SIM_ARM_RX_HDR;
	return k;
}

/* Parse a contiguous span of words; returns how many were consumed
 * (fewer when a frame is complete, the console buffer is full or a stall
 * began). */
static unsigned int
rsh_sim_arm_rx_span(struct rsh_sim *sim, struct rsh_sim_arm *a,
		    const uint64_t *w, unsigned int n, uint64_t now)
{
	struct rsh_sim_arm_rx *r = &a->rx;
	unsigned int i = 0, k;

	while (i < n && !r->net_pend && now >= a->stall_until) {
		switch (r->st) {
		case RSH_SIM_ARM_RX_HDR:
			rsh_sim_arm_rx_hdr(sim, a, w[i++]);
			continue;
		case RSH_SIM_ARM_RX_CON:
			k = rsh_sim_arm_rx_con(a, w + i, n - i);
			break;
		default:
			k = rsh_sim_arm_rx_net(a, w + i, n - i);
			break;
		}
		if (k == 0)
			break; /* console buffer full */
		i += k;
		if (r->st == RSH_SIM_ARM_RX_HDR)
			rsh_sim_arm_rx_counted(sim, a, now);
	}
	return i;
}

/* Move HOST_TO_TILE words to the peer, see rsh_sim_arm_priv.h. */
void
rsh_sim_arm_rx_run(struct rsh_sim *sim, struct rsh_sim_arm *a, uint64_t now)
{
	const uint64_t *w;
	unsigned int n, used;

	for (;;) {
		if (!rsh_sim_arm_rx_net_flush(a, now) ||
		    !rsh_sim_arm_rx_con_flush(a)) {
			if (rsh_sim_htt_count(sim) > 0)
				RSH_SIM_ARM_ADD(a, rx_backpressure, 1);
			return;
		}
		if (now < a->stall_until)
			return;
		n = rsh_sim_fifo_peek(&sim->htt, &w);
		if (n == 0)
			return;
		used = rsh_sim_arm_rx_span(sim, a, w, n, now);
		rsh_sim_fifo_drop(&sim->htt, used);
		if (used == 0 && !a->rx.net_pend && a->rx.con_len == 0)
			return; /* nothing can move (not reached) */
	}
}
