/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TM FIFO console channel, user side: bytes in and out of mbufs (§4.4).
 * Users call these from their own thread; they touch only the rings, the
 * pools and the "user" fields of rsh_tmfifo_priv.h (one writer and one
 * reader thread per channel, SP/SC rings).
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#define RSH_LOGTYPE rsh_logtype_fifo
#include "rsh_log.h"
#include "rsh_tmfifo_priv.h"

/* Queue console bytes, see rsh_tmfifo_api.h. */
size_t
rsh_tmfifo_console_write(struct rsh_dev *dev, const void *buf, size_t len)
{
	struct rsh_tmfifo *t = rsh_dev_tmfifo_state(dev)->t;
	struct rte_mbuf *m;
	size_t done = 0, n;

	if (t == NULL || t->ch[RSH_TMFIFO_CONSOLE].tx == NULL)
		return 0;
	while (done < len) {
		n = RTE_MIN(len - done, (size_t)RSH_TMFIFO_CONSOLE_MSG_MAX);
		m = rte_pktmbuf_alloc(t->tx_pool);
		if (m == NULL) {
			RSH_TMFIFO_ADD(t->ch[RSH_TMFIFO_CONSOLE].st.user_nombuf, 1);
			break;
		}
		memcpy(rte_pktmbuf_append(m, (uint16_t)n),
		       (const char *)buf + done, n);
		if (rte_ring_enqueue(t->ch[RSH_TMFIFO_CONSOLE].tx, m) != 0) {
			rte_pktmbuf_free(m);
			break;
		}
		done += n;
	}
	if (done > 0)
		rsh_dev_kick(dev);
	return done;
}

/* Take console bytes, see rsh_tmfifo_api.h. */
size_t
rsh_tmfifo_console_read(struct rsh_dev *dev, void *buf, size_t len)
{
	struct rsh_tmfifo *t = rsh_dev_tmfifo_state(dev)->t;
	size_t done = 0, k;
	void *m;

	if (t == NULL || t->ch[RSH_TMFIFO_CONSOLE].rx == NULL)
		return 0;
	while (done < len) {
		if (t->con_rd == NULL) {
			if (rte_ring_dequeue(t->ch[RSH_TMFIFO_CONSOLE].rx, &m) != 0)
				break;
			t->con_rd = m;
			t->con_rd_off = 0;
		}
		k = RTE_MIN(len - done,
			    (size_t)(rte_pktmbuf_data_len(t->con_rd) - t->con_rd_off));
		memcpy((char *)buf + done,
		       rte_pktmbuf_mtod_offset(t->con_rd, char *, t->con_rd_off), k);
		done += k;
		t->con_rd_off += (uint32_t)k;
		if (t->con_rd_off == rte_pktmbuf_data_len(t->con_rd)) {
			rte_pktmbuf_free(t->con_rd);
			t->con_rd = NULL;
		}
	}
	return done;
}
