/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TM FIFO channels: the host TX mux and RX demux that run on the poll
 * lcore. The control-path attach/detach, status and counters live in
 * rsh_tmfifo_attach.c; the user-side calls in rsh_console.c and
 * rsh_net.c; the shared object in rsh_tmfifo_priv.h.
 * Facts: hardware-notes §4.3-§4.10 and
 * hardware-notes §D2. The wire format is rsh_tmfifo_proto.h.
 *
 * Threads: the poll lcore owns everything under "poll lcore" below and is
 * the only writer of the stats (single-writer relaxed atomic stores, read
 * with relaxed loads). Users touch only the rings and the "user" fields.
 * Rings are SP/SC: one producer and one consumer each; the ring's own
 * head/tail barriers order the mbuf contents against the pointer hand-off
 * (store-release of the producer tail pairs with the consumer's
 * load-acquire in rte_ring's C11 model).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#define RSH_LOGTYPE rsh_logtype_fifo
#include "rsh_log.h"
#include "rsh_own.h"
#include "rsh_cmd.h"
#include "rsh_tmfifo_priv.h"

/* Signal every channel's eventfd (the device went away). */
static void
rsh_tmfifo_wake_all(struct rsh_tmfifo *t)
{
	static const uint64_t one = 1;
	unsigned int c;

	for (c = 0; c < RSH_TMFIFO_NCHAN; c++)
		if (t->ch[c].efd >= 0 && write(t->ch[c].efd, &one, sizeof(one)) < 0)
			RSH_TMFIFO_ADD(t->st.wake_errors, 1);
}

/*
 * Note one STS value (§1.4). Bad patterns open an "unreachable" window;
 * a sane value after it means the ARM was reset (resync at the next
 * pass); all-ones for RSH_TMFIFO_GONE_MS means the device is gone.
 * Returns 0 when v is usable.
 */
static int
rsh_tmfifo_sts_check(struct rsh_tmfifo *t, uint64_t v)
{
	int rc = rsh_dev_val_err(v);
	uint64_t now;

	if (rc == 0) {
		if (t->unreach_since != 0) {
			t->unreach_since = 0;
			t->resync = true;
		}
		return 0;
	}
	RSH_TMFIFO_ADD(t->st.sts_bad, 1);
	now = rsh_now();
	if (t->unreach_since == 0)
		t->unreach_since = now;
	if (rc == -ENODEV && !t->gone &&
	    now - t->unreach_since > rsh_ms_cyc(RSH_TMFIFO_GONE_MS)) {
		/* Pairs with the acquire load in rsh_tmfifo_status(). */
		__atomic_store_n(&t->gone, 1, __ATOMIC_RELEASE);
		RSH_DEV_LOG(ERR, t->dev, "TM FIFO status reads all-ones: device gone");
		rsh_tmfifo_wake_all(t);
	}
	return rc;
}

/* HTT credit from one STS read, §4.1/§4.10; -errno on a bad pattern. */
static int
rsh_tmfifo_tx_credit(struct rsh_tmfifo *t, unsigned int *credit)
{
	uint64_t v = rsh_dev_rd(t->dev, RSH_TM_HOST_TO_TILE_STS);
	unsigned int cnt = (unsigned int)(v & RSH_TM_STS__COUNT_MASK);
	int rc = rsh_tmfifo_sts_check(t, v);

	if (rc != 0)
		return rc;
	*credit = cnt >= RSH_TMFIFO_CREDIT_MAX ? 0 : RSH_TMFIFO_CREDIT_MAX - cnt;
	if (t->dev->be->gen == RSH_GEN_BF1)
		*credit = RTE_MIN(*credit, RSH_TMFIFO_BF1_WRITE_RUN);
	return 0;
}

/* §4.10: fill every free HTT slot with zero-length sync words. */
int
rsh_tmfifo_sync_fill(struct rsh_tmfifo *t)
{
	unsigned int credit, i;
	int rc = rsh_tmfifo_tx_credit(t, &credit);

	if (rc != 0 || credit == 0)
		return rc;
	for (i = 0; i < credit; i++)
		t->tx.burst[i] = RSH_TMFIFO_SYNC_WORD;
	t->dev->be->ops->write_fifo(t->dev->be,
				    t->dev->map.off[RSH_TM_HOST_TO_TILE_DATA],
				    t->tx.burst, credit);
	RSH_TMFIFO_ADD(t->st.tx_sync_words, credit);
	RSH_TMFIFO_ADD(t->st.tx_words, credit);
	RSH_TMFIFO_ADD(t->st.tx_bursts, 1);
	return 0;
}

/* Stage one mbuf as a message (frees it). False when it was dropped. */
static bool
rsh_tmfifo_tx_stage(struct rsh_tmfifo *t, unsigned int c, struct rte_mbuf *m)
{
	struct rsh_tmfifo_chan_stats *st = &t->ch[c].st;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint32_t max = c == RSH_TMFIFO_NET ? RSH_TMFIFO_NET_FRAME_MAX :
			RSH_TMFIFO_CONSOLE_MSG_MAX;
	uint8_t type = c == RSH_TMFIFO_NET ? RSH_TMFIFO_TYPE_NET :
			RSH_TMFIFO_TYPE_CONSOLE;
	uint64_t scratch[RSH_TMFIFO_CONSOLE_MSG_MAX / 8];
	const void *p;

	if (len == 0 || len > max) {
		RSH_TMFIFO_ADD(*(len == 0 ? &st->tx_drop_empty :
			      &st->tx_drop_oversize), 1);
		rte_pktmbuf_free(m);
		return false;
	}
	p = rte_pktmbuf_read(m, 0, len, scratch);
	rsh_tmfifo_pack(&t->tx.msg[1], p, len);
	t->tx.msg[0] = rsh_tmfifo_hdr_encode(type, (uint16_t)len, NULL);
	t->tx.len = rsh_tmfifo_msg_words(len);
	t->tx.pos = 0;
	t->tx.ch = (int)c;
	t->tx.bytes = len;
	t->tx.padded = false;
	rte_pktmbuf_free(m);
	return true;
}

/*
 * Pick the next message at a boundary, §4.4: pending control messages
 * first, then the channels round-robin. False when nothing is queued.
 */
static bool
rsh_tmfifo_tx_next(struct rsh_tmfifo *t)
{
	struct rte_mbuf *m;
	unsigned int c, empty;

	if (rte_ring_dequeue_elem(t->ctrl, &t->tx.msg[0], sizeof(uint64_t)) == 0) {
		t->tx.len = 1;
		t->tx.pos = 0;
		t->tx.ch = RSH_TMFIFO_DST_DROP;
		t->tx.bytes = 0;
		t->tx.padded = false;
		return true;
	}
	/* Stop after every channel in a row had nothing queued. */
	for (c = t->tx.next_ch, empty = 0; empty < RSH_TMFIFO_NCHAN;) {
		if (t->ch[c].tx == NULL ||
		    rte_ring_dequeue(t->ch[c].tx, (void **)&m) != 0) {
			empty++;
			c = (c + 1) % RSH_TMFIFO_NCHAN;
			continue;
		}
		if (!rsh_tmfifo_tx_stage(t, c, m))
			continue; /* dropped and counted: same channel again */
		t->tx.next_ch = (c + 1) % RSH_TMFIFO_NCHAN;
		return true;
	}
	return false;
}

/* The current message went out whole: account it. */
static void
rsh_tmfifo_tx_done(struct rsh_tmfifo *t)
{
	if (t->tx.ch == RSH_TMFIFO_DST_DROP) {
		RSH_TMFIFO_ADD(t->st.tx_ctrl, 1);
		return;
	}
	if (t->tx.padded)
		return; /* counted as tx_drop_timeout when it was cut */
	RSH_TMFIFO_ADD(t->ch[t->tx.ch].st.tx_msgs, 1);
	RSH_TMFIFO_ADD(t->ch[t->tx.ch].st.tx_bytes, t->tx.bytes);
}

/* Anything to send: a message in progress, control, or channel data. */
static bool
rsh_tmfifo_tx_pending(const struct rsh_tmfifo *t)
{
	unsigned int c;

	if (t->tx.pos < t->tx.len || rsh_ring_count(t->ctrl) > 0)
		return true;
	for (c = 0; c < RSH_TMFIFO_NCHAN; c++)
		if (t->ch[c].tx != NULL && rsh_ring_count(t->ch[c].tx) > 0)
			return true;
	return false;
}

/*
 * No credit. A message stuck half-written for 2 s is cut: the rest of it
 * becomes zero words (written when space returns, so the peer's parser
 * stays on a message boundary; zero words are no-ops to it) and the
 * message counts as dropped (hardware-notes §D3.6, the peer's rule).
 */
static void
rsh_tmfifo_tx_stuck(struct rsh_tmfifo *t, uint64_t now)
{
	struct rsh_tmfifo_tx *tx = &t->tx;

	if (tx->pos == 0 || tx->pos >= tx->len || tx->padded)
		return;
	if (tx->stuck_since == 0) {
		tx->stuck_since = now;
		return;
	}
	if (now - tx->stuck_since < rsh_ms_cyc(RSH_TMFIFO_TX_STUCK_MS))
		return;
	memset(&tx->msg[tx->pos], 0, (tx->len - tx->pos) * sizeof(uint64_t));
	tx->padded = true;
	if (tx->ch != RSH_TMFIFO_DST_DROP)
		RSH_TMFIFO_ADD(t->ch[tx->ch].st.tx_drop_timeout, 1);
}

/*
 * TX mux, §4.5/§4.10: one STS read gives the credit; whole messages in
 * order, the current one first; one write_fifo burst of at most the
 * credit, so a burst is never committed beyond the space checked.
 * Returns the words written; *blocked when data waits for credit.
 */
static unsigned int
rsh_tmfifo_tx_pass(struct rsh_tmfifo *t, uint64_t now, bool *blocked)
{
	unsigned int credit, n = 0, k;

	if (!rsh_tmfifo_tx_pending(t) || rsh_tmfifo_tx_credit(t, &credit) != 0)
		return 0;
	if (credit == 0) {
		RSH_TMFIFO_ADD(t->st.tx_full, 1);
		rsh_tmfifo_tx_stuck(t, now);
		*blocked = true;
		return 0;
	}
	t->tx.stuck_since = 0;
	while (n < credit) {
		if (t->tx.pos == t->tx.len && !rsh_tmfifo_tx_next(t))
			break;
		k = RTE_MIN(credit - n, t->tx.len - t->tx.pos);
		memcpy(&t->tx.burst[n], &t->tx.msg[t->tx.pos], k * sizeof(uint64_t));
		n += k;
		t->tx.pos += k;
		if (t->tx.pos == t->tx.len)
			rsh_tmfifo_tx_done(t);
	}
	if (n == 0)
		return 0;
	t->dev->be->ops->write_fifo(t->dev->be,
				    t->dev->map.off[RSH_TM_HOST_TO_TILE_DATA],
				    t->tx.burst, n);
	RSH_TMFIFO_ADD(t->st.tx_words, n);
	RSH_TMFIFO_ADD(t->st.tx_bursts, 1);
	return n;
}

/* Mark a peer value as received (poll lcore, single writer). */
static void
rsh_tmfifo_peer_have(struct rsh_tmfifo_peer *v, uint32_t bit)
{
	__atomic_store_n(&v->have, v->have | bit, __ATOMIC_RELAXED);
}

/* Record a verified control message from the peer, §4.7. */
static void
rsh_tmfifo_rx_ctrl(struct rsh_tmfifo *t, uint64_t w)
{
	struct rsh_tmfifo_peer *v = &t->peer.v;
	uint8_t type = rsh_tmfifo_hdr_type(w);
	unsigned int i;

	if (!rsh_tmfifo_hdr_csum_ok(w)) {
		RSH_TMFIFO_ADD(t->st.rx_ctrl_bad_csum, 1);
		return;
	}
	RSH_TMFIFO_ADD(t->st.rx_ctrl, 1);
	/* Seqcount: odd while writing; the release fence pairs with the
	 * reader's acquire fence in rsh_tmfifo_peer_get(). */
	__atomic_store_n(&t->peer.seq, t->peer.seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (type == RSH_TMFIFO_TYPE_MAC_1 || type == RSH_TMFIFO_TYPE_MAC_2) {
		for (i = 0; i < 3; i++)
			__atomic_store_n(&v->mac[i + (type == RSH_TMFIFO_TYPE_MAC_2 ? 3 : 0)],
					 rsh_tmfifo_hdr_data(w, i), __ATOMIC_RELAXED);
		rsh_tmfifo_peer_have(v, type == RSH_TMFIFO_TYPE_MAC_1 ?
				  RSH_TMFIFO_PEER_HAVE_MAC1 :
				  RSH_TMFIFO_PEER_HAVE_MAC2);
	} else if (type == RSH_TMFIFO_TYPE_VLAN_ID) {
		__atomic_store_n(&v->vlan[0], rsh_tmfifo_hdr_be16(w, 0), __ATOMIC_RELAXED);
		__atomic_store_n(&v->vlan[1], rsh_tmfifo_hdr_be16(w, 2), __ATOMIC_RELAXED);
		rsh_tmfifo_peer_have(v, RSH_TMFIFO_PEER_HAVE_VLAN);
	} else if (type == RSH_TMFIFO_TYPE_PXE_ID) {
		/* PXE_ID is the last reply: it completes a query, §4.7. */
		__atomic_store_n(&v->pxe_id, rsh_tmfifo_hdr_be32(w), __ATOMIC_RELAXED);
		rsh_tmfifo_peer_have(v, RSH_TMFIFO_PEER_HAVE_PXE);
		__atomic_store_n(&v->replies, v->replies + 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&t->peer.seq, t->peer.seq + 1, __ATOMIC_RELEASE);
}

/* Decide where a message with payload goes (drops counted here). */
static int
rsh_tmfifo_rx_route(struct rsh_tmfifo *t, uint8_t type, unsigned int len)
{
	int c = type == RSH_TMFIFO_TYPE_NET ? RSH_TMFIFO_NET :
		type == RSH_TMFIFO_TYPE_CONSOLE ? RSH_TMFIFO_CONSOLE : -1;

	if (c < 0) {
		/* Unknown type with len > 0: drain it, resync after, §4.6. */
		RSH_TMFIFO_ADD(t->st.rx_drop_unknown, 1);
		RSH_TMFIFO_ADD(t->st.rx_drop_unknown_bytes, len);
		return RSH_TMFIFO_DST_DROP;
	}
	if (c == RSH_TMFIFO_NET && len > RSH_TMFIFO_HOST_NET_MAX) {
		RSH_TMFIFO_ADD(t->ch[c].st.rx_drop_oversize, 1);
		RSH_TMFIFO_ADD(t->ch[c].st.rx_drop_bytes, len);
		return RSH_TMFIFO_DST_DROP;
	}
	if (c == RSH_TMFIFO_NET && t->booting) {
		/* §3.2 notes: network frames are discarded during a push. */
		RSH_TMFIFO_ADD(t->ch[c].st.rx_drop_boot, 1);
		RSH_TMFIFO_ADD(t->ch[c].st.rx_drop_bytes, len);
		return RSH_TMFIFO_DST_DROP;
	}
	if (t->ch[c].rx == NULL) {
		RSH_TMFIFO_ADD(t->ch[c].st.rx_drop_closed, 1);
		RSH_TMFIFO_ADD(t->ch[c].st.rx_drop_bytes, len);
		return RSH_TMFIFO_DST_DROP;
	}
	return c;
}

/* Parse one header word, §4.3/§4.6. */
static void
rsh_tmfifo_rx_header(struct rsh_tmfifo *t, uint64_t w)
{
	uint8_t type = rsh_tmfifo_hdr_type(w);
	unsigned int len = rsh_tmfifo_hdr_len(w);

	if (len == 0) {
		if (type >= RSH_TMFIFO_TYPE_CTRL_FIRST)
			rsh_tmfifo_rx_ctrl(t, w);
		else if (type == RSH_TMFIFO_TYPE_NET || type == RSH_TMFIFO_TYPE_CONSOLE ||
			 type == RSH_TMFIFO_TYPE_PAD)
			RSH_TMFIFO_ADD(t->st.rx_noop, 1); /* sync/keepalive */
		else
			RSH_TMFIFO_ADD(t->st.rx_ctrl_unknown, 1);
		return;
	}
	t->rx.dst = rsh_tmfifo_rx_route(t, type, len);
	t->rx.left_bytes = len;
	t->rx.left_words = (len + 7) / 8;
	if (t->rx.dst != RSH_TMFIFO_DST_DROP)
		RSH_TMFIFO_ADD(t->ch[t->rx.dst].st.rx_msgs, 1);
}

/* Hand a filled mbuf to its ring; on a full ring hold it (back-pressure). */
static bool
rsh_tmfifo_rx_deliver(struct rsh_tmfifo *t, int c, struct rte_mbuf *m)
{
	if (rte_ring_enqueue(t->ch[c].rx, m) != 0) {
		t->rx.hold = m;
		t->rx.hold_ch = c;
		RSH_TMFIFO_ADD(t->ch[c].st.rx_ring_full, 1);
		return false;
	}
	RSH_TMFIFO_ADD(t->ch[c].st.rx_mbufs, 1);
	t->ch[c].delivered = true;
	RSH_TMFIFO_ADD(t->ch[c].st.rx_bytes, rte_pktmbuf_data_len(m));
	return true;
}

/* Move payload words of the current message into its mbuf. False: stop. */
static bool
rsh_tmfifo_rx_payload(struct rsh_tmfifo *t)
{
	struct rsh_tmfifo_rx *rx = &t->rx;
	unsigned int k = RTE_MIN(rx->left_words, rx->n - rx->pos), room, bytes;
	struct rte_mbuf *m;

	if (rx->dst == RSH_TMFIFO_DST_DROP) {
		rx->left_bytes -= RTE_MIN(k * 8, rx->left_bytes);
		rx->left_words -= k;
		rx->pos += k;
		return true;
	}
	if (rx->m == NULL && (rx->m = rte_pktmbuf_alloc(t->rx_pool)) == NULL) {
		RSH_TMFIFO_ADD(t->ch[rx->dst].st.rx_nombuf, 1);
		return false; /* words stay; retried on the next pass */
	}
	m = rx->m;
	room = rte_pktmbuf_tailroom(m) / 8;
	if (room > 0) {
		k = RTE_MIN(k, room);
		bytes = RTE_MIN(k * 8, rx->left_bytes);
		rsh_tmfifo_unpack(rte_pktmbuf_append(m, (uint16_t)bytes),
			       &rx->w[rx->pos], bytes);
		rx->pos += k;
		rx->left_words -= k;
		rx->left_bytes -= bytes;
		if (rx->left_words > 0)
			return true;
	}
	/* Message complete, or a console chunk longer than an mbuf: split. */
	rx->m = NULL;
	return rsh_tmfifo_rx_deliver(t, rx->dst, m);
}

/* Parse the popped words until they run out or delivery must wait. */
static void
rsh_tmfifo_rx_parse(struct rsh_tmfifo *t)
{
	struct rsh_tmfifo_rx *rx = &t->rx;

	while (rx->pos < rx->n) {
		if (rx->left_words == 0)
			rsh_tmfifo_rx_header(t, rx->w[rx->pos++]);
		else if (!rsh_tmfifo_rx_payload(t))
			return;
	}
}

/*
 * RX demux, §4.6/§4.10: deliver a held mbuf first; pop only when every
 * popped word is parsed (so a full ring leaves data in the hardware FIFO);
 * one TILE_TO_HOST_STS read, then one read_fifo burst of that many words.
 */
static unsigned int
rsh_tmfifo_rx_pass(struct rsh_tmfifo *t, bool *blocked)
{
	struct rsh_tmfifo_rx *rx = &t->rx;
	unsigned int cnt = 0;
	uint64_t v;

	if (rx->hold != NULL) {
		if (rte_ring_enqueue(t->ch[rx->hold_ch].rx, rx->hold) != 0) {
			*blocked = true;
			return 0;
		}
		RSH_TMFIFO_ADD(t->ch[rx->hold_ch].st.rx_mbufs, 1);
		t->ch[rx->hold_ch].delivered = true;
		RSH_TMFIFO_ADD(t->ch[rx->hold_ch].st.rx_bytes,
			    rte_pktmbuf_data_len(rx->hold));
		rx->hold = NULL;
		cnt = 1;
	}
	if (rx->pos == rx->n) {
		v = rsh_dev_rd(t->dev, RSH_TM_TILE_TO_HOST_STS);
		if (rsh_tmfifo_sts_check(t, v) != 0)
			return cnt;
		rx->n = RTE_MIN((unsigned int)(v & RSH_TM_STS__COUNT_MASK),
				RSH_TM_FIFO_SIZE);
		rx->pos = 0;
		if (rx->n == 0)
			return cnt;
		t->dev->be->ops->read_fifo(t->dev->be,
					   t->dev->map.off[RSH_TM_TILE_TO_HOST_DATA],
					   rx->w, rx->n);
		RSH_TMFIFO_ADD(t->st.rx_words, rx->n);
		RSH_TMFIFO_ADD(t->st.rx_bursts, 1);
		cnt += rx->n;
	}
	rsh_tmfifo_rx_parse(t);
	*blocked = *blocked || rx->hold != NULL || rx->pos < rx->n;
	return cnt;
}

/* Signal the eventfd of every armed channel that got data this pass. */
static void
rsh_tmfifo_wake_users(struct rsh_tmfifo *t)
{
	static const uint64_t one = 1;
	unsigned int c;

	for (c = 0; c < RSH_TMFIFO_NCHAN; c++) {
		struct rsh_tmfifo_chan_state *ch = &t->ch[c];

		if (!ch->delivered)
			continue;
		ch->delivered = false;
		/* Pairs with the seq_cst store in rsh_tmfifo_rx_arm(). */
		if (ch->efd >= 0 && __atomic_load_n(&ch->armed, __ATOMIC_SEQ_CST) &&
		    __atomic_exchange_n(&ch->armed, 0, __ATOMIC_SEQ_CST)) {
			if (write(ch->efd, &one, sizeof(one)) < 0)
				RSH_TMFIFO_ADD(t->st.wake_errors, 1);
			RSH_TMFIFO_ADD(ch->st.rx_wakeups, 1);
		}
	}
}

/* Drop the RX parser state: a partial message is counted and discarded. */
static void
rsh_tmfifo_rx_discard(struct rsh_tmfifo *t)
{
	if (t->rx.left_words > 0 && t->rx.dst != RSH_TMFIFO_DST_DROP) {
		RSH_TMFIFO_ADD(t->ch[t->rx.dst].st.rx_drop_reset, 1);
		RSH_TMFIFO_ADD(t->ch[t->rx.dst].st.rx_drop_bytes, t->rx.left_bytes);
	}
	rte_pktmbuf_free(t->rx.m);
	t->rx.m = NULL;
	t->rx.left_words = t->rx.left_bytes = 0;
	t->rx.n = t->rx.pos = 0;
}

/* Drop the half-sent TX message (counted against its channel). */
static void
rsh_tmfifo_tx_discard(struct rsh_tmfifo *t)
{
	if (t->tx.pos < t->tx.len && t->tx.ch != RSH_TMFIFO_DST_DROP)
		RSH_TMFIFO_ADD(t->ch[t->tx.ch].st.tx_drop_reset, 1);
	t->tx.pos = t->tx.len = 0;
}

/* After a boot push the ARM side was reset: drop partial state, resync. */
static void
rsh_tmfifo_reset(struct rsh_tmfifo *t)
{
	rsh_tmfifo_tx_discard(t);
	rsh_tmfifo_rx_discard(t);
	RSH_TMFIFO_ADD(t->st.resets, 1);
	rsh_tmfifo_sync_fill(t);
}

/* The ARM is being reset (§6.7 START): discard, resync when back. */
void
rsh_tmfifo_discard(struct rsh_dev *dev)
{
	struct rsh_tmfifo *t = rsh_dev_tmfifo_state(dev)->t;

	if (t == NULL)
		return;
	rsh_tmfifo_tx_discard(t);
	rsh_tmfifo_rx_discard(t);
	/* The next full pass resets the counters' view and sends sync words. */
	t->was_booting = true;
}

/*
 * While a boot opens or streams (§3.2 notes): no host TX (the ARM is being
 * reset), but the console keeps being read so it shows the boot as it
 * happens; network frames are drained and counted as rx_drop_boot.
 */
static unsigned int
rsh_tmfifo_poll_booting(struct rsh_tmfifo *t)
{
	bool blocked = false;
	unsigned int work;

	if (!t->was_booting) {
		/* The ARM resets: a message it was sending never ends. */
		t->was_booting = true;
		rsh_tmfifo_rx_discard(t);
	}
	t->booting = true;
	work = rsh_tmfifo_rx_pass(t, &blocked);
	rsh_tmfifo_wake_users(t);
	return work;
}

/*
 * The device is gone: what users queue can never be sent. Drop it and
 * count it per channel (control words too), so a user sees why nothing
 * moves and nothing old reaches the DPU when it returns.
 */
static unsigned int
rsh_tmfifo_drop_gone(struct rsh_tmfifo *t)
{
	struct rte_mbuf *m;
	unsigned int c, n = 0;
	uint64_t w;

	for (c = 0; c < RSH_TMFIFO_NCHAN; c++) {
		while (t->ch[c].tx != NULL && rte_ring_dequeue(t->ch[c].tx, (void **)&m) == 0) {
			RSH_TMFIFO_ADD(t->ch[c].st.tx_drop_gone, 1);
			rte_pktmbuf_free(m);
			n++;
		}
	}
	while (rte_ring_dequeue_elem(t->ctrl, &w, sizeof(w)) == 0)
		n++;
	return n;
}

/* The device is back (the resync command): see rsh_tmfifo_resync(). */
int
rsh_tmfifo_revive(struct rsh_tmfifo *t)
{
	/* TILE_TO_HOST: the sync fill reads the other status itself. */
	uint64_t v = rsh_dev_rd(t->dev, RSH_TM_TILE_TO_HOST_STS);
	int rc = rsh_dev_val_err(v);

	if (rc != 0)
		return rc;
	rsh_tmfifo_drop_gone(t);
	rsh_tmfifo_tx_discard(t);
	rsh_tmfifo_rx_discard(t);
	t->unreach_since = 0;
	t->resync = false;
	t->blocked_since = 0;
	RSH_TMFIFO_ADD(t->st.returns, 1);
	/* Pairs with the acquire load in rsh_tmfifo_status(). */
	__atomic_store_n(&t->gone, 0, __ATOMIC_RELEASE);
	if (rsh_dev_boot_state(t->dev)->opening || __atomic_load_n(&rsh_dev_boot_state(t->dev)->push, __ATOMIC_ACQUIRE) != NULL) {
		t->was_booting = true; /* synced when the push ends */
		return 0;
	}
	return rsh_tmfifo_sync_fill(t);
}

/* Poll-lcore step: one TX pass and one RX pass (rsh_svc.h). */
unsigned int
rsh_tmfifo_poll(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns)
{
	struct rsh_tmfifo *t = rsh_dev_tmfifo_state(dev)->t;
	bool blocked = false;
	unsigned int work;

	if (t == NULL)
		return 0;
	/* The boot job is published by this lcore (the open command). */
	if (rsh_dev_boot_state(dev)->opening || __atomic_load_n(&rsh_dev_boot_state(dev)->push, __ATOMIC_ACQUIRE) != NULL)
		return rsh_tmfifo_poll_booting(t);
	t->booting = false;
	if (__atomic_load_n(&t->gone, __ATOMIC_RELAXED))
		return rsh_tmfifo_drop_gone(t); /* reported; until rsh_tmfifo_resync() */
	if (t->was_booting) {
		t->was_booting = false;
		t->resync = false;
		rsh_tmfifo_reset(t);
	} else if (t->resync) {
		/* The ARM was reset under us: no pre-reset byte may reach it. */
		t->resync = false;
		RSH_TMFIFO_ADD(t->st.arm_resets, 1);
		rsh_tmfifo_reset(t);
	}
	work = rsh_tmfifo_tx_pass(t, now, &blocked);
	work += rsh_tmfifo_rx_pass(t, &blocked);
	rsh_tmfifo_wake_users(t);
	if (work > 0 || !blocked) {
		t->blocked_since = 0;
	} else {
		if (t->blocked_since == 0)
			t->blocked_since = now;
		if (now - t->blocked_since <
		    rsh_ms_cyc(RSH_TMFIFO_BLOCKED_FAST_MS))
			*sleep_ns = RTE_MIN(*sleep_ns, RSH_TMFIFO_BLOCKED_SLEEP_NS);
	}
	return work;
}

/*
 * TM FIFO console and network (§4). No stop step: when the device leaves
 * its poller the channels stay attached (the user detaches them) and a
 * message half in the FIFO is finished by the next poller that takes it.
 */
const struct rsh_svc rsh_tmfifo_svc = {
	.name = "tmfifo",
	.poll = rsh_tmfifo_poll,
	.flags = RSH_SVC_F_FW_RESET_PAUSE,
	.state_size = sizeof(struct rsh_tmfifo_state),
};
