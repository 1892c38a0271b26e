/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ARM side's TILE_TO_HOST writer, as mlxbf-tmfifo fills its Tx FIFO
 * (hardware-notes §D2.1-§D2.4, §D3.6, §D3.7, §D8 item 4): the ARM
 * looks only at its own TILE_TO_HOST count; network frames may use
 * 256 - 16 - COUNT words (16 kept for the console) and may be spread over
 * several polls; a console message needs 255 - COUNT >= 2 words and
 * carries at most (avail - 1) * 8 bytes of the 32 KiB console ring.
 * Messages are never interleaved. Headers come from rsh_tmfifo_proto.h
 * (bytes 3-6 zero, byte 7 a correct checksum, §D2.3).
 */
#include <errno.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_sim_arm_priv.h"

#define RSH_SIM_ARM_BAD_TYPE 0x5A /* corrupt@: a type nobody defines */
#define RSH_SIM_ARM_FILL_READS 8  /* PTY reads per poll at most */

/* Append console output, see rsh_sim_arm_priv.h. */
bool
rsh_sim_arm_con_put(struct rsh_sim_arm *a, const void *b, uint32_t n)
{
	struct rsh_sim_arm_tx *t = &a->tx;
	uint32_t tail = (t->con_head + t->con_cnt) % RSH_SIM_ARM_CON_RING;
	uint32_t first = RTE_MIN(n, RSH_SIM_ARM_CON_RING - tail);

	if (n > RSH_SIM_ARM_CON_RING - t->con_cnt)
		return false;
	memcpy(&t->con[tail], b, first);
	memcpy(&t->con[0], (const uint8_t *)b + first, n - first);
	t->con_cnt += n;
	return true;
}

/* Queue the control replies, see rsh_sim_arm_priv.h. PXE_ID goes last:
 * the host takes it as the end of the answer (§D2.2). */
void
rsh_sim_arm_ctrl_reply(struct rsh_sim_arm *a)
{
	struct rsh_sim_arm_tx *t = &a->tx;

	t->ctrl[0] = rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_1, a->mac);
	t->ctrl[1] = rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_2, a->mac);
	t->ctrl[2] = rsh_tmfifo_ctrl_vlan(a->vlan[0], a->vlan[1]);
	t->ctrl[3] = rsh_tmfifo_ctrl_pxe(a->pxe);
	t->ctrl_n = 4;
}

/* TILE_TO_HOST words the ARM may fill now (§D3.6). */
static unsigned int
rsh_sim_arm_tx_avail(const struct rsh_sim *sim, bool net)
{
	unsigned int c = rsh_sim_tth_count(sim);
	unsigned int lim = net ? RSH_SIM_TM_DEPTH - RSH_SIM_ARM_NET_RESERVE :
				 RSH_SIM_TM_DEPTH - 1;

	return c >= lim ? 0 : lim - c;
}

/* Push what the budget allows of the current message; true when done. */
static bool
rsh_sim_arm_tx_push(struct rsh_sim *sim, struct rsh_sim_arm *a)
{
	struct rsh_sim_arm_tx *t = &a->tx;
	unsigned int k = RTE_MIN(t->msg_n - t->msg_off,
				 rsh_sim_arm_tx_avail(sim, t->msg_net));

	t->msg_off += rsh_sim_tth_push(sim, t->msg + t->msg_off, k);
	if (k > 0)
		t->stuck_since = 0;
	if (t->msg_off < t->msg_n)
		return false;
	t->msg_n = t->msg_off = 0;
	return true;
}

/* Pending control replies, in one go at a message boundary. */
static bool
rsh_sim_arm_tx_ctrl(struct rsh_sim *sim, struct rsh_sim_arm *a)
{
	struct rsh_sim_arm_tx *t = &a->tx;

	if (rsh_sim_arm_tx_avail(sim, false) < t->ctrl_n)
		return false;
	rsh_sim_tth_push(sim, t->ctrl, t->ctrl_n);
	RSH_SIM_ARM_ADD(a, tx_ctrl_msgs, t->ctrl_n);
	t->ctrl_n = 0;
	return true;
}

/* Start message number tx_seq + 1 from len payload bytes: header (or the
 * corrupt@ garbage, which keeps the true length so a host that drains
 * unknown types stays in step) and packed, zero-padded payload. */
static void
rsh_sim_arm_tx_build(struct rsh_sim *sim, struct rsh_sim_arm *a, uint8_t type,
		     const uint8_t *p, uint16_t len)
{
	static const uint8_t junk[4] = { 0xDE, 0xAD, 0xBE, 0xEF };
	struct rsh_sim_arm_tx *t = &a->tx;

	a->tx_seq++;
	RSH_SIM_ARM_ADD(a, tx_msgs, 1);
	if (a->tx_seq == sim->cfg.arm.corrupt_at) {
		t->msg[0] = rsh_tmfifo_hdr_encode(RSH_SIM_ARM_BAD_TYPE, len, junk) ^
			    0x77ull << 56; /* and a wrong checksum */
		RSH_SIM_ARM_ADD(a, fault_corrupt, 1);
	} else {
		t->msg[0] = rsh_tmfifo_hdr_encode(type, len, NULL);
	}
	rsh_tmfifo_pack(&t->msg[1], p, len);
	t->msg_n = rsh_tmfifo_msg_words(len);
	t->msg_off = 0;
	t->msg_net = type == RSH_TMFIFO_TYPE_NET;
}

/* oversize@: a 1600-byte broadcast frame the host must drain (> 1536). */
static bool
rsh_sim_arm_tx_oversize(struct rsh_sim *sim, struct rsh_sim_arm *a)
{
	uint8_t f[RSH_SIM_ARM_OVERSIZE];

	if (rsh_sim_arm_tx_avail(sim, true) == 0)
		return false;
	memset(f, 0x6F, sizeof(f));
	memset(f, 0xFF, 6);
	memcpy(f + 6, a->mac, 6);
	RSH_SIM_ARM_ADD(a, fault_oversize, 1);
	rsh_sim_arm_tx_build(sim, a, RSH_TMFIFO_TYPE_NET, f, sizeof(f));
	return true;
}

/* Next network frame from the TAP (read at most every armpoll= while
 * none comes); true when a message was started or a frame dropped. */
static bool
rsh_sim_arm_tx_net(struct rsh_sim *sim, struct rsh_sim_arm *a, uint64_t now)
{
	uint8_t f[RSH_SIM_ARM_TAP_BUF];
	ssize_t n;

	if (a->peer == NULL || now < a->net_next ||
	    !rsh_sim_arm_watch_ready(a->watch, RSH_SIM_ARM_WATCH_NET) ||
	    rsh_sim_arm_tx_avail(sim, true) == 0)
		return false;
	n = rsh_sim_peer_net_read(a->peer, f, sizeof(f));
	RSH_SIM_ARM_ADD(a, peer_syscalls, 1);
	if (n <= 0) {
		/* Empty: the watcher says when it is readable again (an
		 * error is retried after armpoll=, as without it). */
		if (a->watch != NULL && (n == -EAGAIN || n == 0))
			rsh_sim_arm_watch_empty(a->watch, RSH_SIM_ARM_WATCH_NET);
		else
			a->net_next = now + a->poll_cyc;
		return false;
	}
	if (n > (ssize_t)RSH_TMFIFO_ARM_NET_MAX) { /* MTU 1500: not expected */
		RSH_SIM_ARM_ADD(a, tx_drop_net, 1);
		return true;
	}
	RSH_SIM_ARM_ADD(a, tx_net_frames, 1);
	RSH_SIM_ARM_ADD(a, tx_net_bytes, n);
	rsh_sim_arm_tx_build(sim, a, RSH_TMFIFO_TYPE_NET, f, (uint16_t)n);
	return true;
}

/* Next console message: as much of the ring as fits (§D3.7). */
static bool
rsh_sim_arm_tx_con(struct rsh_sim *sim, struct rsh_sim_arm *a)
{
	struct rsh_sim_arm_tx *t = &a->tx;
	unsigned int avail = rsh_sim_arm_tx_avail(sim, false);
	uint8_t b[(RSH_SIM_TM_DEPTH - 2) * 8];
	uint32_t size, first;

	if (t->con_cnt == 0 || avail < 2)
		return false;
	size = RTE_MIN(t->con_cnt, (avail - 1) * 8);
	first = RTE_MIN(size, RSH_SIM_ARM_CON_RING - t->con_head);
	memcpy(b, &t->con[t->con_head], first);
	memcpy(b + first, &t->con[0], size - first);
	t->con_head = (t->con_head + size) % RSH_SIM_ARM_CON_RING;
	t->con_cnt -= size;
	RSH_SIM_ARM_ADD(a, tx_con_msgs, 1);
	RSH_SIM_ARM_ADD(a, tx_con_bytes, size);
	rsh_sim_arm_tx_build(sim, a, RSH_TMFIFO_TYPE_CONSOLE, b, (uint16_t)size);
	return true;
}

/* Console output of the shell into the ring; a chunk that does not fit
 * is dropped and counted, as the driver drops it (§D3.7). */
static void
rsh_sim_arm_tx_con_fill(struct rsh_sim_arm *a, uint64_t now)
{
	uint8_t b[RSH_SIM_ARM_CON_CHUNK];
	unsigned int i;
	ssize_t n;

	if (a->peer == NULL || a->con_dead || now < a->con_next ||
	    !rsh_sim_arm_watch_ready(a->watch, RSH_SIM_ARM_WATCH_CON))
		return;
	for (i = 0; i < RSH_SIM_ARM_FILL_READS; i++) {
		n = rsh_sim_peer_con_read(a->peer, b, sizeof(b));
		RSH_SIM_ARM_ADD(a, peer_syscalls, 1);
		if (n == -EAGAIN || n == 0) {
			rsh_sim_arm_watch_empty(a->watch, RSH_SIM_ARM_WATCH_CON);
			break;
		}
		if (n < 0) { /* EIO: the shell exited */
			a->con_dead = true;
			RSH_LOG(NOTICE, "emulated DPU console closed: %s",
				strerror((int)-n));
			return;
		}
		if (!rsh_sim_arm_con_put(a, b, (uint32_t)n))
			RSH_SIM_ARM_ADD(a, tx_drop_con_ring, n);
		if ((size_t)n < sizeof(b))
			break;
	}
	if (a->watch == NULL)
		a->con_next = now + a->poll_cyc;
}

/* Start the next message at a boundary: a due oversize@ frame first,
 * then the two channels round-robin. */
static bool
rsh_sim_arm_tx_next(struct rsh_sim *sim, struct rsh_sim_arm *a, uint64_t now)
{
	struct rsh_sim_arm_tx *t = &a->tx;
	bool ok;

	if (a->tx_seq + 1 == sim->cfg.arm.oversize_at)
		return rsh_sim_arm_tx_oversize(sim, a);
	if (t->rr_con)
		ok = rsh_sim_arm_tx_con(sim, a) || rsh_sim_arm_tx_net(sim, a, now);
	else
		ok = rsh_sim_arm_tx_net(sim, a, now) || rsh_sim_arm_tx_con(sim, a);
	if (ok && t->msg_n > 0)
		t->rr_con = t->msg_net;
	return ok;
}

/*
 * The Tx timeout of mlxbf-tmfifo (§D3.6, Linux 6.8 and the stable trees):
 * a network frame that finds no TILE_TO_HOST space for 2 s is dropped
 * where it stands, and the words it still owed are written as zeros once
 * space returns, so the host sees no-op headers (or a truncated frame it
 * drops) and the stream stays in step.
 */
static void
rsh_sim_arm_tx_timeout(struct rsh_sim *sim, struct rsh_sim_arm *a,
		       uint64_t now)
{
	struct rsh_sim_arm_tx *t = &a->tx;

	if (!t->msg_net || rsh_sim_arm_tx_avail(sim, true) > 0) {
		t->stuck_since = 0;
		return;
	}
	if (t->stuck_since == 0) {
		t->stuck_since = now;
		return;
	}
	if (now - t->stuck_since <
	    rsh_sim_ns_to_cyc(sim, RSH_SIM_ARM_TX_TIMEOUT_NS))
		return;
	t->pad_words += t->msg_n - t->msg_off;
	t->msg_n = t->msg_off = 0;
	t->stuck_since = 0;
	RSH_SIM_ARM_ADD(a, tx_timeouts, 1);
	RSH_SIM_ARM_ADD(a, tx_drop_net, 1);
}

/* Zero words owed after a Tx timeout, within the network budget; true
 * when all are written. */
static bool
rsh_sim_arm_tx_pad(struct rsh_sim *sim, struct rsh_sim_arm *a)
{
	static const uint64_t zeros[RSH_SIM_TM_DEPTH];
	struct rsh_sim_arm_tx *t = &a->tx;
	unsigned int k = RTE_MIN(t->pad_words,
				 rsh_sim_arm_tx_avail(sim, true));

	k = rsh_sim_tth_push(sim, zeros, k);
	t->pad_words -= k;
	RSH_SIM_ARM_ADD(a, tx_pad_words, k);
	return t->pad_words == 0;
}

/* Fill TILE_TO_HOST, see rsh_sim_arm_priv.h. */
void
rsh_sim_arm_tx_run(struct rsh_sim *sim, struct rsh_sim_arm *a, uint64_t now)
{
	struct rsh_sim_arm_tx *t = &a->tx;

	rsh_sim_arm_tx_con_fill(a, now);
	if (t->pad_words > 0 && !rsh_sim_arm_tx_pad(sim, a))
		return;
	for (;;) {
		if (t->msg_off < t->msg_n && !rsh_sim_arm_tx_push(sim, a)) {
			rsh_sim_arm_tx_timeout(sim, a, now);
			return;
		}
		if (t->ctrl_n > 0 && !rsh_sim_arm_tx_ctrl(sim, a))
			return;
		if (!rsh_sim_arm_tx_next(sim, a, now))
			return;
	}
}
