/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TM FIFO network channel and control messages, user side (§4.4, §4.7, §4.8).
 * Users call these from their own thread; they touch only the rings, the
 * pools and the "user" fields of rsh_tmfifo_priv.h (one writer and one
 * reader thread per channel, SP/SC rings).
 */
#include <errno.h>
#include <unistd.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#define RSH_LOGTYPE rsh_logtype_fifo
#include "rsh_log.h"
#include "rsh_tmfifo_priv.h"

/* Queue frames, see rsh_tmfifo_api.h. */
uint16_t
rsh_tmfifo_net_tx_burst(struct rsh_dev *dev, struct rte_mbuf **pkts, uint16_t n)
{
	struct rsh_tmfifo *t = rsh_dev_tmfifo_state(dev)->t;

	uint16_t k;

	if (t == NULL || t->ch[RSH_TMFIFO_NET].tx == NULL)
		return 0;
	k = (uint16_t)rte_ring_enqueue_burst(t->ch[RSH_TMFIFO_NET].tx,
					     (void **)pkts, n, NULL);
	if (k > 0)
		rsh_dev_kick(dev);
	return k;
}

/* Take frames, see rsh_tmfifo_api.h. */
uint16_t
rsh_tmfifo_net_rx_burst(struct rsh_dev *dev, struct rte_mbuf **pkts, uint16_t n)
{
	struct rsh_tmfifo *t = rsh_dev_tmfifo_state(dev)->t;

	if (t == NULL || t->ch[RSH_TMFIFO_NET].rx == NULL)
		return 0;
	return (uint16_t)rte_ring_dequeue_burst(t->ch[RSH_TMFIFO_NET].rx,
						(void **)pkts, n, NULL);
}

/* The channel's wake-up eventfd, see rsh_tmfifo_api.h. */
int
rsh_tmfifo_rx_fd(struct rsh_dev *dev, enum rsh_tmfifo_chan ch)
{
	struct rsh_tmfifo *t = __atomic_load_n(&rsh_dev_tmfifo_state(dev)->t, __ATOMIC_ACQUIRE);

	if (t == NULL || (unsigned int)ch >= RSH_TMFIFO_NCHAN || t->ch[ch].rx == NULL)
		return -1;
	return t->ch[ch].efd;
}

/* Arm the wake-up, see rsh_tmfifo_api.h (pairs with rsh_tmfifo_wake_users). */
bool
rsh_tmfifo_rx_arm(struct rsh_dev *dev, enum rsh_tmfifo_chan ch)
{
	struct rsh_tmfifo *t = __atomic_load_n(&rsh_dev_tmfifo_state(dev)->t, __ATOMIC_ACQUIRE);
	uint64_t v;

	if (t == NULL || (unsigned int)ch >= RSH_TMFIFO_NCHAN || t->ch[ch].rx == NULL)
		return false;
	/* Clear a stale signal first, so a readable fd means new data. */
	if (read(t->ch[ch].efd, &v, sizeof(v)) < 0)
		v = 0;
	__atomic_store_n(&t->ch[ch].armed, 1, __ATOMIC_SEQ_CST);
	if (ch == RSH_TMFIFO_CONSOLE && t->con_rd != NULL)
		return true;
	return rsh_ring_count(t->ch[ch].rx) > 0;
}

/* The rings of a channel, see rsh_tmfifo_api.h. */
int
rsh_tmfifo_rings(struct rsh_dev *dev, enum rsh_tmfifo_chan ch,
		 struct rte_ring **rx, struct rte_ring **tx)
{
	if ((unsigned int)ch >= RSH_TMFIFO_NCHAN)
		return -EINVAL;
	if (rsh_dev_tmfifo_state(dev)->t == NULL || rsh_dev_tmfifo_state(dev)->t->ch[ch].rx == NULL)
		return -ENOENT;
	*rx = rsh_dev_tmfifo_state(dev)->t->ch[ch].rx;
	*tx = rsh_dev_tmfifo_state(dev)->t->ch[ch].tx;
	return 0;
}

/* The transmit pool, see rsh_tmfifo_api.h. */
struct rte_mempool *
rsh_tmfifo_pool(struct rsh_dev *dev)
{
	return rsh_dev_tmfifo_state(dev)->t == NULL ? NULL : rsh_dev_tmfifo_state(dev)->t->tx_pool;
}

/* Queue n control words as one unit. */
static int
rsh_tmfifo_ctrl_put(struct rsh_dev *dev, const uint64_t *w, unsigned int n)
{
	if (rsh_dev_tmfifo_state(dev)->t == NULL)
		return -ENOENT;
	if (rte_ring_enqueue_bulk_elem(rsh_dev_tmfifo_state(dev)->t->ctrl, w, sizeof(*w), n,
				       NULL) != n)
		return -EAGAIN;
	rsh_dev_kick(dev);
	return 0;
}

/* Encode one control message into w (1 or 2 words); 0 for a bad type. */
static unsigned int
rsh_tmfifo_ctrl_encode(const struct rsh_tmfifo_ctrl *m, uint64_t w[2])
{
	switch (m->type) {
	case RSH_TMFIFO_CTRL_REQ:
		w[0] = rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_CTRL_REQ, 0, NULL);
		return 1;
	case RSH_TMFIFO_CTRL_MAC:
		w[0] = rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_1, m->mac);
		w[1] = rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_2, m->mac);
		return 2;
	case RSH_TMFIFO_CTRL_VLAN:
		w[0] = rsh_tmfifo_ctrl_vlan(m->vlan[0], m->vlan[1]);
		return 1;
	case RSH_TMFIFO_CTRL_PXE:
		w[0] = rsh_tmfifo_ctrl_pxe(m->pxe_id);
		return 1;
	}
	return 0;
}

/* One control message, §4.7, see rsh_tmfifo_api.h. */
int
rsh_tmfifo_ctrl_send(struct rsh_dev *dev, const struct rsh_tmfifo_ctrl *msg)
{
	uint64_t w[2];
	unsigned int n = rsh_tmfifo_ctrl_encode(msg, w);

	if (n == 0) {
		rsh_err_set("%s: unknown TM FIFO control message type %d",
			    dev->name, (int)msg->type);
		return -EINVAL;
	}
	return rsh_tmfifo_ctrl_put(dev, w, n);
}

/* Seqcount read of the peer values, see rsh_tmfifo_api.h. */
int
rsh_tmfifo_peer_get(struct rsh_dev *dev, struct rsh_tmfifo_peer *out)
{
	struct rsh_tmfifo_peer_state *p;
	uint32_t s;
	unsigned int i;

	if (rsh_dev_tmfifo_state(dev)->t == NULL)
		return -ENOENT;
	p = &rsh_dev_tmfifo_state(dev)->t->peer;
	do {
		/* Acquire pairs with the writer's final release store. */
		s = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		for (i = 0; i < 6; i++)
			out->mac[i] = __atomic_load_n(&p->v.mac[i], __ATOMIC_RELAXED);
		out->vlan[0] = __atomic_load_n(&p->v.vlan[0], __ATOMIC_RELAXED);
		out->vlan[1] = __atomic_load_n(&p->v.vlan[1], __ATOMIC_RELAXED);
		out->pxe_id = __atomic_load_n(&p->v.pxe_id, __ATOMIC_RELAXED);
		out->have = __atomic_load_n(&p->v.have, __ATOMIC_RELAXED);
		out->replies = __atomic_load_n(&p->v.replies, __ATOMIC_RELAXED);
		/* Pairs with the writer's release fence after seq goes odd. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((s & 1) != 0 || __atomic_load_n(&p->seq, __ATOMIC_RELAXED) != s);
	return 0;
}

/* CTRL_REQ and wait for PXE_ID, with a deadline, see rsh_tmfifo_api.h. */
int
rsh_tmfifo_ctrl_query(struct rsh_dev *dev, unsigned int timeout_ms,
		      struct rsh_tmfifo_peer *out)
{
	uint64_t deadline = rsh_now() + rsh_ms_cyc(timeout_ms);
	struct rsh_tmfifo_peer before;
	int rc = rsh_tmfifo_peer_get(dev, &before);

	if (rc == 0)
		rc = rsh_tmfifo_ctrl_send(dev,
			&(struct rsh_tmfifo_ctrl){ .type = RSH_TMFIFO_CTRL_REQ });
	if (rc != 0)
		return rc;
	do {
		rsh_tmfifo_peer_get(dev, out);
		if (out->replies != before.replies)
			return 0;
		rsh_dev_ctl_wait(dev, 1000000);
	} while (rsh_now() < deadline);
	return -ETIMEDOUT;
}
