/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TM FIFO channels, control path: attach (rings, pools, eventfds, the
 * HTT sync of hardware-notes §4.10), detach, health and counters. The
 * poll-lcore data path is rsh_tmfifo.c; the shared object is
 * rsh_tmfifo_priv.h. Attach and detach hand the channels to and from the
 * poll lcore through commands, so no lock is held while it runs.
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

static uint32_t rsh_tmfifo_seq; /* unique ring/pool names */

/* Copy a stats struct made only of uint64_t fields with relaxed loads. */
static void
rsh_tmfifo_stats_copy(uint64_t *dst, const uint64_t *src, size_t size)
{
	size_t i;

	for (i = 0; i < size / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/* Fill defaults. */
void
rsh_tmfifo_opts_default(struct rsh_tmfifo_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->console = true;
	o->net = true;
	o->ring_size = 1024;
	o->pool_size = 4095;
	o->socket_id = SOCKET_ID_ANY;
}

/* Free every mbuf left in a ring, then the ring. */
static void
rsh_tmfifo_ring_free(struct rte_ring *r)
{
	void *m;

	if (r == NULL)
		return;
	while (rte_ring_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

/* Free everything of a tmfifo object (any subset may be NULL). */
static void
rsh_tmfifo_free(struct rsh_tmfifo *t)
{
	unsigned int c;

	for (c = 0; c < RSH_TMFIFO_NCHAN; c++) {
		rsh_tmfifo_ring_free(t->ch[c].tx);
		rsh_tmfifo_ring_free(t->ch[c].rx);
		if (t->ch[c].efd >= 0)
			close(t->ch[c].efd);
	}
	rte_pktmbuf_free(t->rx.m);
	rte_pktmbuf_free(t->rx.hold);
	rte_pktmbuf_free(t->con_rd);
	rte_ring_free(t->ctrl);
	rte_mempool_free(t->rx_pool);
	rte_mempool_free(t->tx_pool);
	rte_free(t);
}

/* One SP/SC ring of mbuf pointers named rshtmf<id><suffix>. */
static struct rte_ring *
rsh_tmfifo_ring(uint32_t id, const char *sfx, const struct rsh_tmfifo_opts *o)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "rshtmf%u%s", id, sfx);
	return rte_ring_create(name, o->ring_size, o->socket_id,
			       RING_F_SP_ENQ | RING_F_SC_DEQ);
}

/* Create rings and pools of an attach; -ENOMEM on failure. */
static int
rsh_tmfifo_create(struct rsh_tmfifo *t, const struct rsh_tmfifo_opts *o)
{
	static const char *const sfx[RSH_TMFIFO_NCHAN][2] = {
		{ "c_tx", "c_rx" }, { "n_tx", "n_rx" } };
	bool open[RSH_TMFIFO_NCHAN] = { o->console, o->net };
	uint32_t id = __atomic_fetch_add(&rsh_tmfifo_seq, 1, __ATOMIC_RELAXED);
	unsigned int cache = RTE_MIN(64u, o->pool_size / 2);
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int c;

	snprintf(name, sizeof(name), "rshtmf%u_rx", id);
	t->rx_pool = rte_pktmbuf_pool_create(name, o->pool_size, cache, 0,
					     RTE_MBUF_DEFAULT_BUF_SIZE, o->socket_id);
	snprintf(name, sizeof(name), "rshtmf%u_tx", id);
	t->tx_pool = rte_pktmbuf_pool_create(name, o->pool_size, cache, 0,
					     RTE_MBUF_DEFAULT_BUF_SIZE, o->socket_id);
	snprintf(name, sizeof(name), "rshtmf%u_ctl", id);
	t->ctrl = rte_ring_create_elem(name, sizeof(uint64_t), RSH_TMFIFO_CTRL_RING,
				       o->socket_id, RING_F_SC_DEQ);
	if (t->rx_pool == NULL || t->tx_pool == NULL || t->ctrl == NULL)
		return -ENOMEM; /* the caller names what to reserve */
	for (c = 0; c < RSH_TMFIFO_NCHAN; c++) {
		if (!open[c])
			continue;
		t->ch[c].tx = rsh_tmfifo_ring(id, sfx[c][0], o);
		t->ch[c].rx = rsh_tmfifo_ring(id, sfx[c][1], o);
		if (t->ch[c].tx == NULL || t->ch[c].rx == NULL)
			return -ENOMEM;
		t->ch[c].efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (t->ch[c].efd < 0)
			return -errno;
	}
	return 0;
}

/* Check attach options and the device state. */
static int
rsh_tmfifo_check(struct rsh_dev *dev, const struct rsh_tmfifo_opts *o)
{
	if (!o->console && !o->net) {
		rsh_err_set("%s: tmfifo attach with no channel", dev->name);
		return -EINVAL;
	}
	if (o->ring_size < 2 || !rte_is_power_of_2(o->ring_size) ||
	    o->pool_size < 2 * o->ring_size) {
		rsh_err_set("%s: tmfifo ring size %u must be a power of two and "
			    "the pool (%u) at least twice it", dev->name,
			    o->ring_size, o->pool_size);
		return -EINVAL;
	}
	if (rsh_dev_tmfifo_state(dev)->t != NULL) {
		rsh_err_set("%s: tmfifo channels already open", dev->name);
		return -EEXIST;
	}
	return 0;
}

/* The attach: the channels to publish, and whether to sync first. */
struct rsh_tmfifo_attach_cmd {
	struct rsh_cmd c;
	struct rsh_tmfifo *t;
	bool no_sync;
};

/* Command step: sync the HTT stream and publish the channels. */
static int
rsh_tmfifo_attach_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_tmfifo_attach_cmd *a = container_of(c, struct rsh_tmfifo_attach_cmd, c);
	struct rsh_tmfifo *t = a->t;
	int rc;

	RTE_SET_USED(now);
	if (rsh_dev_tmfifo_state(c->dev)->t != NULL) {
		rsh_err_set("%s: tmfifo channels already open", c->dev->name);
		return rsh_cmd_finish(c, -EEXIST);
	}
	if (rsh_dev_boot_state(c->dev)->opening ||
	    __atomic_load_n(&rsh_dev_boot_state(c->dev)->push, __ATOMIC_ACQUIRE) != NULL)
		t->was_booting = true; /* synced when the push ends */
	rc = a->no_sync || t->was_booting ? 0 : rsh_tmfifo_sync_fill(t);
	if (rc != 0) {
		rsh_err_set("%s: TM FIFO status unreadable (%s)", c->dev->name,
			    rc == -ENODEV ? "device gone" : "device in reset");
		return rsh_cmd_finish(c, rc);
	}
	/* Pairs with the acquire loads of the user-side calls. */
	__atomic_store_n(&rsh_dev_tmfifo_state(c->dev)->t, t, __ATOMIC_RELEASE);
	return rsh_cmd_finish(c, 0);
}

static const struct rsh_cmd_type rsh_tmfifo_attach_type = {
	.name = "tmfifo attach", .step = rsh_tmfifo_attach_step, .run_ms = 1000,
};

/* Create the channels and sync the HTT stream, see rsh_tmfifo_api.h. */
int
rsh_tmfifo_attach(struct rsh_dev *dev, const struct rsh_tmfifo_opts *o)
{
	struct rsh_tmfifo_attach_cmd a = { .no_sync = false };
	struct rsh_tmfifo_opts def;
	struct rsh_tmfifo *t;
	int rc;

	if (o == NULL) {
		rsh_tmfifo_opts_default(&def);
		o = &def;
	}
	rc = rsh_tmfifo_check(dev, o);
	if (rc != 0)
		return rc;
	/* Dropped: hands off; secure NIC mode refuses the console (§6.6). */
	rc = o->console ? rsh_own_boot_ok(dev, "the console") : rsh_own_access_ok(dev);
	if (rc != 0)
		return rc;
	t = rte_zmalloc_socket("rsh_tmfifo", sizeof(*t), RTE_CACHE_LINE_SIZE,
			       o->socket_id);
	if (t == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	t->dev = dev;
	t->tx.ch = RSH_TMFIFO_DST_DROP;
	for (unsigned int c = 0; c < RSH_TMFIFO_NCHAN; c++)
		t->ch[c].efd = -1;
	rc = rsh_tmfifo_create(t, o);
	if (rc != 0)
		goto fail_free;
	/* The poll lcore writes the sync words and starts serving t. */
	a.t = t;
	a.no_sync = o->no_sync;
	rc = RSH_CMD_CALL(&rsh_tmfifo_attach_type, dev, &a, c);
	/* Failed or abandoned (-ETIMEDOUT): the loop never published t. */
	if (rc != 0)
		goto fail_free;
	return 0;
fail_free:
	rsh_tmfifo_free(t);
fail:
	if (rc == -ENOMEM)
		rsh_err_set("%s: out of DPDK memory for the tmfifo rings and mbuf pools (%u MiB for %u + %u mbufs); reserve more hugepages (e.g. dpdk-hugepages.py -p 2M -r 1G) or, without hugepages, give EAL more memory (-m)",
			    dev->name, (unsigned int)(((uint64_t)o->pool_size * 2 *
			    (RTE_MBUF_DEFAULT_BUF_SIZE + 192) >> 20) + 1), o->pool_size, o->pool_size);
	return rc;
}

/* Command step: the poll lcore lets go of the channels. */
static int
rsh_tmfifo_detach_step(struct rsh_cmd *c, uint64_t now)
{
	RTE_SET_USED(now);
	__atomic_store_n(&rsh_dev_tmfifo_state(c->dev)->t, NULL, __ATOMIC_RELEASE);
	return rsh_cmd_finish(c, 0);
}

static const struct rsh_cmd_type rsh_tmfifo_detach_type = {
	.name = "tmfifo detach", .step = rsh_tmfifo_detach_step, .run_ms = 1000,
};

/* Free the channels, see rsh_tmfifo_api.h (also while the poller runs). */
void
rsh_tmfifo_detach(struct rsh_dev *dev)
{
	struct rsh_tmfifo *t = __atomic_load_n(&rsh_dev_tmfifo_state(dev)->t, __ATOMIC_ACQUIRE);
	struct rsh_cmd c = { 0 };

	if (t == NULL)
		return;
	/* Abandoned (a wedged loop): the loop may still serve t; keep it. */
	if (rsh_cmd_call(&rsh_tmfifo_detach_type, dev, &c, &c, sizeof(c)) == -ETIMEDOUT) {
		RSH_DEV_LOG(ERR, dev, "%s; the channels are left to the poll loop", rsh_last_error());
		return;
	}
	rsh_tmfifo_free(t);
}

/* Command step: the device is back; drop, discard and resync. */
static int
rsh_tmfifo_resync_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_tmfifo *t = rsh_dev_tmfifo_state(c->dev)->t;
	int rc;

	RTE_SET_USED(now);
	if (t == NULL) {
		rsh_err_set("%s: tmfifo channels not open", c->dev->name);
		return rsh_cmd_finish(c, -ENOENT);
	}
	rc = rsh_tmfifo_revive(t);
	if (rc != 0)
		rsh_err_set("%s: TM FIFO status still unreadable (%s); not resynchronised",
			    c->dev->name, rc == -ENODEV ? "device gone" : "device in reset");
	return rsh_cmd_finish(c, rc);
}

static const struct rsh_cmd_type rsh_tmfifo_resync_type = {
	.name = "tmfifo resync", .step = rsh_tmfifo_resync_step, .run_ms = 1000,
};

/* The device is back after it was gone, see rsh_tmfifo_api.h. */
int
rsh_tmfifo_resync(struct rsh_dev *dev)
{
	struct rsh_cmd c = { 0 };

	if (__atomic_load_n(&rsh_dev_tmfifo_state(dev)->t, __ATOMIC_ACQUIRE) == NULL) {
		rsh_err_set("%s: tmfifo channels not open", dev->name);
		return -ENOENT;
	}
	return rsh_cmd_call(&rsh_tmfifo_resync_type, dev, &c, &c, sizeof(c));
}

/* Health of the TM FIFO path, see rsh_tmfifo_api.h. */
int
rsh_tmfifo_status(struct rsh_dev *dev)
{
	struct rsh_tmfifo *t = __atomic_load_n(&rsh_dev_tmfifo_state(dev)->t, __ATOMIC_ACQUIRE);

	if (t == NULL)
		return -ENOENT;
	/* Pairs with the release store in rsh_tmfifo_sts_check(). */
	if (!__atomic_load_n(&t->gone, __ATOMIC_ACQUIRE))
		return 0;
	rsh_err_set("%s: the TM FIFO reads all-ones: the device is gone (removed, reset or powered off); check lspci and the DPU power",
		    dev->name);
	return -ENODEV;
}

/* True when channels are attached. */
bool
rsh_tmfifo_attached(const struct rsh_dev *dev)
{
	return rsh_dev_tmfifo_state(dev)->t != NULL;
}

/* Copy counters, see rsh_tmfifo_api.h. */
int
rsh_tmfifo_get_stats(struct rsh_dev *dev, enum rsh_tmfifo_chan ch,
		     struct rsh_tmfifo_chan_stats *cst,
		     struct rsh_tmfifo_stats *dst)
{
	if ((unsigned int)ch >= RSH_TMFIFO_NCHAN)
		return -EINVAL;
	if (rsh_dev_tmfifo_state(dev)->t == NULL)
		return -ENOENT;
	if (cst != NULL)
		rsh_tmfifo_stats_copy((uint64_t *)cst,
				   (const uint64_t *)&rsh_dev_tmfifo_state(dev)->t->ch[ch].st,
				   sizeof(*cst));
	if (dst != NULL)
		rsh_tmfifo_stats_copy((uint64_t *)dst,
				   (const uint64_t *)&rsh_dev_tmfifo_state(dev)->t->st, sizeof(*dst));
	return 0;
}
