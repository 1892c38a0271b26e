/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tmfifo_netN: create with or without offloads, move frames both ways.
 * See rsh_tap.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rte_mbuf.h>

#include "rsh_tap.h"

#define RSH_TAP_BIG_N 4u           /* 64 KiB buffers: 256 KiB a TAP */
#define RSH_TAP_BIG_ROOM UINT16_MAX
#define RSH_TAP_SEG_ROOM 256u      /* pend slots kept free for one read */
#define RSH_TAP_RX_BURST RSH_TAP_OL_MERGE_MAX
#define RSH_TAP_OFFLOADS (TUN_F_CSUM | TUN_F_TSO4)

/* TUNSETIFF on a fresh /dev/net/tun fd; the fd or -errno. */
static int
rsh_tap_open_fd(const char *name, bool vnet, const char **what)
{
	struct ifreq ifr;
	int fd, err;

	*what = "/dev/net/tun";
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | (vnet ? IFF_VNET_HDR : 0);
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	*what = "TUNSETIFF";
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/* The vnet header size and the offloads we segment; -errno. */
static int
rsh_tap_offload_on(int fd)
{
	int sz = sizeof(struct virtio_net_hdr);

	if (ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0 ||
	    ioctl(fd, TUNSETOFFLOAD, (unsigned long)RSH_TAP_OFFLOADS) < 0)
		return -errno;
	return 0;
}

/* Create the TAP, see rsh_tap.h. */
int
rsh_tap_create(struct rsh_tap *t, unsigned int index, bool offload,
	       const char **what)
{
	int fd = -1, rc;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	snprintf(t->name, sizeof(t->name), "tmfifo_net%u", index);
	if (offload) {
		fd = rsh_tap_open_fd(t->name, true, what);
		rc = fd < 0 ? fd : rsh_tap_offload_on(fd);
		if (rc == 0) {
			t->fd = fd;
			t->vnet = true;
			return 0;
		}
		/* Refused: a plain TAP (closing removed the interface). */
		t->offload_err = -rc;
		if (fd >= 0)
			close(fd);
	}
	fd = rsh_tap_open_fd(t->name, false, what);
	if (fd < 0)
		return fd;
	t->fd = fd;
	return 0;
}

/* Segment pool and 64 KiB buffers, see rsh_tap.h. */
int
rsh_tap_start(struct rsh_tap *t, struct rsh_dev *dev)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	t->ol.pool = rsh_tmfifo_pool(dev);
	if (!t->vnet || t->big != NULL)
		return 0;
	snprintf(name, sizeof(name), "rshtap_%s", t->name);
	t->big = rte_pktmbuf_pool_create(name, RSH_TAP_BIG_N, 0, 0,
					 RSH_TAP_BIG_ROOM, SOCKET_ID_ANY);
	if (t->big != NULL) {
		t->offload = true;
		return 0;
	}
	/* The vnet header stays; without offloads frames fit an mbuf. */
	if (ioctl(t->fd, TUNSETOFFLOAD, 0ul) < 0)
		t->offload_err = errno;
	else
		t->offload_err = ENOMEM;
	return -ENOMEM;
}

/* Readiness, see rsh_tap.h. */
bool
rsh_tap_want_read(const struct rsh_tap *t)
{
	return t->n_pend + RSH_TAP_SEG_ROOM <= RSH_TAP_PEND;
}

/* See rsh_tap.h. */
void
rsh_tap_polled(struct rsh_tap *t, short revents)
{
	if (revents & (POLLIN | POLLERR | POLLHUP))
		t->drained = false;
}

/* Plain TAP: one frame per read into a channel mbuf; NULL when none. */
static struct rte_mbuf *
rsh_tap_read_plain(struct rsh_tap *t)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t->ol.pool);
	ssize_t n;

	if (m == NULL)
		return NULL;
	n = read(t->fd, rte_pktmbuf_mtod(m, void *), rte_pktmbuf_tailroom(m));
	if (n <= 0) {
		t->drained = true;
		rte_pktmbuf_free(m);
		return NULL;
	}
	rte_pktmbuf_append(m, (uint16_t)n);
	return m;
}

/* Have the next read's buffers; false when a pool is empty. */
static bool
rsh_tap_spares(struct rsh_tap *t)
{
	if (t->spare == NULL) {
		t->spare = rte_pktmbuf_alloc(t->big != NULL ? t->big : t->ol.pool);
		if (t->spare == NULL)
			return false;
		t->spare->data_off = 0; /* no headroom needed: 64 KiB - 1 */
	}
	if (t->spare_tail == NULL && t->big != NULL)
		t->spare_tail = rte_pktmbuf_alloc(t->ol.pool);
	return t->big == NULL || t->spare_tail != NULL;
}

/* A small frame leaves the big buffer for the next read: copy it out. */
static struct rte_mbuf *
rsh_tap_take(struct rsh_tap *t, uint32_t len)
{
	struct rte_mbuf *m = t->spare, *c;

	if (len > (uint32_t)(m->buf_len - m->data_off)) {
		m->data_len = (uint16_t)(m->buf_len - m->data_off);
		t->spare_tail->data_len = (uint16_t)(len - m->data_len);
		t->spare_tail->pkt_len = t->spare_tail->data_len;
		m->pkt_len = m->data_len;
		rte_pktmbuf_chain(m, t->spare_tail);
		t->spare_tail = NULL;
		t->spare = NULL;
		return m;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	if (t->big == NULL || len > RTE_MBUF_DEFAULT_DATAROOM ||
	    (c = rte_pktmbuf_alloc(t->ol.pool)) == NULL) {
		t->spare = NULL;
		return m;
	}
	memcpy(rte_pktmbuf_append(c, (uint16_t)len), rte_pktmbuf_mtod(m, void *), len);
	return c;
}

/* vnet TAP: header + frame in one readv; NULL when none. */
static struct rte_mbuf *
rsh_tap_read_vnet(struct rsh_tap *t, struct virtio_net_hdr *h)
{
	struct iovec iov[3];
	unsigned int niov = 2;
	ssize_t n;

	if (!rsh_tap_spares(t))
		return NULL;
	iov[0] = (struct iovec){ h, sizeof(*h) };
	iov[1] = (struct iovec){ rte_pktmbuf_mtod(t->spare, void *),
				 t->spare->buf_len - t->spare->data_off };
	if (t->big != NULL)
		iov[niov++] = (struct iovec){ rte_pktmbuf_mtod(t->spare_tail, void *),
					      rte_pktmbuf_tailroom(t->spare_tail) };
	n = readv(t->fd, iov, (int)niov);
	if (n <= 0) {
		t->drained = true;
		return NULL;
	}
	if ((size_t)n < sizeof(*h))
		n = sizeof(*h); /* nothing after the header: counted as short */
	return rsh_tap_take(t, (uint32_t)((size_t)n - sizeof(*h)));
}

/* Read one frame (or super-frame) and append what it becomes to pend. */
static bool
rsh_tap_read_one(struct rsh_tap *t)
{
	struct virtio_net_hdr h;
	struct rte_mbuf *m;

	m = t->vnet ? rsh_tap_read_vnet(t, &h) : rsh_tap_read_plain(t);
	if (m == NULL)
		return false;
	t->reads++;
	if (!t->vnet) {
		t->pend[t->n_pend++] = m;
		return true;
	}
	t->n_pend += rsh_tap_ol_segment(&t->ol, &h, m, &t->pend[t->n_pend],
					RSH_TAP_PEND - t->n_pend);
	return true;
}

/* TAP → DPU, see rsh_tap.h. */
unsigned int
rsh_tap_to_dpu(struct rsh_tap *t, struct rsh_dev *dev)
{
	unsigned int got = 0, k;

	while (!t->drained && t->ol.pool != NULL && rsh_tap_want_read(t) &&
	       got < 32 && rsh_tap_read_one(t))
		got++;
	if (t->n_pend == 0)
		return got;
	k = rsh_tmfifo_net_tx_burst(dev, t->pend, (uint16_t)t->n_pend);
	/* The ring is full: keep the rest, stop reading (back-pressure). */
	memmove(t->pend, t->pend + k, (t->n_pend - k) * sizeof(t->pend[0]));
	t->n_pend -= k;
	t->tx_frames += k;
	return got + k;
}

/* Write one packet (a chain) with its vnet header; -errno. */
static int
rsh_tap_write_vnet(struct rsh_tap *t, struct rte_mbuf *m,
		   struct virtio_net_hdr *h)
{
	struct iovec iov[1 + RSH_TAP_OL_MERGE_MAX + 1];
	unsigned int n = 0;

	iov[n++] = (struct iovec){ h, sizeof(*h) };
	for (; m != NULL && n < RTE_DIM(iov); m = m->next)
		iov[n++] = (struct iovec){ rte_pktmbuf_mtod(m, void *),
					   rte_pktmbuf_data_len(m) };
	return writev(t->fd, iov, (int)n) < 0 ? -errno : 0;
}

/* DPU → TAP, see rsh_tap.h. */
unsigned int
rsh_tap_from_dpu(struct rsh_tap *t, struct rsh_dev *dev)
{
	struct rte_mbuf *pkts[RSH_TAP_RX_BURST];
	struct virtio_net_hdr hdr[RSH_TAP_RX_BURST];
	uint16_t n = rsh_tmfifo_net_rx_burst(dev, pkts, RSH_TAP_RX_BURST);
	unsigned int k = n, i;
	int rc;

	if (n == 0)
		return 0;
	if (t->vnet)
		k = rsh_tap_ol_merge(&t->ol, pkts, n, hdr);
	for (i = 0; i < k; i++) {
		if (t->vnet)
			rc = rsh_tap_write_vnet(t, pkts[i], &hdr[i]);
		else
			rc = write(t->fd, rte_pktmbuf_mtod(pkts[i], void *),
				   rte_pktmbuf_data_len(pkts[i])) < 0 ? -errno : 0;
		if (rc == -EIO) {
			/* The kernel drops what a down interface is given
			 * (set down, or moved to another namespace). */
			t->tx_down += pkts[i]->nb_segs;
		} else if (rc < 0) {
			t->tx_errors += pkts[i]->nb_segs;
			t->tx_last_errno = -rc;
		} else
			t->writes++;
		rte_pktmbuf_free(pkts[i]);
	}
	t->rx_frames += n;
	return n;
}

/* Close, see rsh_tap.h. */
void
rsh_tap_close(struct rsh_tap *t)
{
	rte_pktmbuf_free_bulk(t->pend, t->n_pend);
	t->n_pend = 0;
	rte_pktmbuf_free(t->spare);
	rte_pktmbuf_free(t->spare_tail);
	t->spare = t->spare_tail = NULL;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	/* Segments are copies; only an odd frame over 2 KiB sent as it was
	 * read (not cut) can still sit in the channel: then the buffers stay. */
	if (t->big != NULL && rte_mempool_avail_count(t->big) == RSH_TAP_BIG_N)
		rte_mempool_free(t->big);
	t->big = NULL;
}

/* Counters, see rsh_tap.h. */
int
rsh_tap_stats_line(const struct rsh_tap *t, char *buf, size_t size)
{
	const struct rsh_tap_ol_stats *o = &t->ol.st;

	return snprintf(buf, size,
		"offload=%s reads=%lu to_dpu=%lu from_dpu=%lu writes=%lu drop_down=%lu write_errors=%lu%s%s csum_done=%lu gso_frames=%lu gso_segments=%lu gro_in=%lu gro_out=%lu gro_merged=%lu drop_short=%lu drop_bad_csum=%lu drop_bad_gso=%lu drop_gso_type=%lu drop_nombuf=%lu",
		t->offload ? "on" : "off", t->reads, t->tx_frames,
		t->rx_frames, t->writes, t->tx_down, t->tx_errors,
		t->tx_last_errno != 0 ? " last_write_error=" : "",
		t->tx_last_errno != 0 ? strerror(t->tx_last_errno) : "",
		o->csum_done, o->gso_frames,
		o->gso_segments, o->gro_in, o->gro_out, o->gro_merged, o->drop_short,
		o->drop_bad_csum, o->drop_bad_gso, o->drop_gso_type, o->drop_nombuf);
}
