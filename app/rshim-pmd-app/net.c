/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --net tap | ethdev: the host end of the tmfifo network channel.
 *
 * tap: a TAP device tmfifo_net<N> (IFF_TAP | IFF_NO_PI, with the vnet
 * header and TSO/GRO in user space unless --net-offload off; MAC
 * 00:1A:CA:FF:FF:02 + 2·N, MTU 1500, up, optional --ip: rsh_tap.h, the
 * host end shared with the service), as the reference daemon creates it
 * (hardware-notes §4.8). It is created
 * through /dev/net/tun before EAL starts (so a missing permission or a
 * name in use fails at once with nothing started) and is not persistent:
 * the kernel removes it when the process exits, however it exits.
 *
 * ethdev: the channel's rings as a DPDK port (rte_eth_from_rings), with a
 * tiny ARP + ICMP echo responder for --ip (default 192.168.100.1) so the
 * port is demonstrable: `ping 192.168.100.1` from the DPU answers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_arp.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "app.h"
#include "rsh_tmfifo_addr.h"

#define RSH_APP_BURST 32u
#define RSH_APP_DEFAULT_IP "192.168.100.1/24"

/* Parse "A.B.C.D[/P]". */
int
rsh_app_parse_cidr(const char *s, uint32_t *addr, unsigned int *prefix)
{
	char buf[32], *slash, *end;
	struct in_addr a;
	unsigned long p = 24;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -EINVAL;
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash++ = '\0';
		errno = 0;
		p = strtoul(slash, &end, 10);
		if (errno != 0 || end == slash || *end != '\0' || p > 32)
			return -EINVAL;
	}
	if (inet_pton(AF_INET, buf, &a) != 1)
		return -EINVAL;
	*addr = a.s_addr;
	*prefix = (unsigned int)p;
	return 0;
}

/* Create tmfifo_net<index> (down, unconfigured), with the vnet header
 * and TSO offloads when offload is set (rsh_tap.h). Exit code. */
int
rsh_app_tap_create(unsigned int index, bool offload, struct rsh_tap *t)
{
	const char *what = "";
	char name[16];
	int rc;

	snprintf(name, sizeof(name), "tmfifo_net%u", index);
	rc = rsh_tap_open(t, index, offload, &what);
	if (rc == 0)
		return 0;
	if (rc == -EEXIST && strcmp(what, "name") == 0)
		rsh_app_err("%s already exists (another rshim or rshim-pmd-app is running?); stop it or remove it with: ip link delete %s",
			    name, name);
	else if (strcmp(what, "/dev/net/tun") == 0)
		rsh_app_err("cannot create TAP %s: /dev/net/tun: %s (needs the tun module and root or CAP_NET_ADMIN)",
			    name, strerror(-rc));
	else
		rsh_app_err("cannot create TAP %s: %s%s", name, strerror(-rc),
			    rc == -EPERM || rc == -EACCES ?
			    " (needs root or CAP_NET_ADMIN)" :
			    rc == -EBUSY ? " (the name is in use)" : "");
	return RSH_EXIT_NET;
}

/* MAC, MTU, optional address, then up (rsh_tap_config). Exit code. */
int
rsh_app_tap_config(struct rsh_tap *t, unsigned int index, const char *cidr)
{
	struct rsh_tap_ip ip;
	const char *what = "address";
	int rc = 0;

	if (cidr != NULL && rsh_app_parse_cidr(cidr, &ip.addr, &ip.prefix) < 0)
		rc = -EINVAL;
	if (rc == 0)
		rc = rsh_tap_config(t, index, cidr != NULL ? &ip : NULL, &what);
	if (rc != 0) {
		rsh_app_err("cannot configure %s (%s): %s", t->name, what, strerror(-rc));
		return RSH_EXIT_NET;
	}
	return 0;
}

/* Ready the TAP's data path on the attached channel; say once when it
 * runs without offloads although they were asked for. */
void
rsh_app_tap_start(struct rsh_app *app, struct rsh_tap *t, struct rsh_dev *dev)
{
	rsh_tap_start(t, dev);
	if (app->net_offload && t->offload_err != 0 && !app->quiet)
		fprintf(stderr, "rshim-pmd-app: %s: no TSO/GRO offloads (%s): plain 1514-byte frames\n",
			t->name, strerror(t->offload_err));
}

/* Configure and start a ring port: one queue each way (the ring PMD's
 * queue setup just picks up the rings given to rte_eth_from_rings). */
static int
rsh_app_ethdev_start(uint16_t port, struct rsh_dev *dev)
{
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 1024, rte_socket_id(), NULL,
					    rsh_tmfifo_pool(dev));
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 1024, rte_socket_id(), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc < 0)
		rte_errno = -rc;
	return rc;
}

/* The channel's rings as a DPDK port. Exit code. */
int
rsh_app_ethdev_open(struct rsh_app_ethdev *e, struct rsh_dev *dev,
		    const char *cidr)
{
	struct rte_ring *rx, *tx;
	unsigned int prefix;
	int port;

	memset(e, 0, sizeof(*e));
	e->dev = dev;
	if (rsh_app_parse_cidr(cidr ? cidr : RSH_APP_DEFAULT_IP, &e->ip, &prefix) < 0 ||
	    rsh_tmfifo_rings(dev, RSH_TMFIFO_NET, &rx, &tx) < 0) {
		rsh_app_err("ethdev: network channel not open");
		return RSH_EXIT_NET;
	}
	/* rx: frames from the DPU (the port's receive queue); tx: to it. */
	port = rte_eth_from_rings("net_rshim0", &rx, 1, &tx, 1, rte_socket_id());
	if (port < 0) {
		rsh_app_err("ethdev: rte_eth_from_rings failed: %s", rte_strerror(rte_errno));
		return RSH_EXIT_NET;
	}
	e->port = (uint16_t)port;
	e->open = true;
	if (rsh_app_ethdev_start(e->port, dev) < 0) {
		rsh_app_err("ethdev: cannot start port %u: %s", e->port, rte_strerror(rte_errno));
		return RSH_EXIT_NET;
	}
	return 0;
}

/* Turn an ARP request for our address into its reply, in place. */
static bool
rsh_app_arp_answer(struct rsh_app_ethdev *e, struct rte_ether_hdr *eh,
		   const struct rte_ether_addr *me)
{
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eh + 1);

	if (a->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) ||
	    a->arp_data.arp_tip != e->ip)
		return false;
	a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	a->arp_data.arp_tha = a->arp_data.arp_sha;
	a->arp_data.arp_tip = a->arp_data.arp_sip;
	a->arp_data.arp_sha = *me;
	a->arp_data.arp_sip = e->ip;
	eh->dst_addr = eh->src_addr;
	eh->src_addr = *me;
	return true;
}

/* Turn an ICMP echo request to our address into its reply, in place. */
static bool
rsh_app_icmp_answer(struct rsh_app_ethdev *e, struct rte_ether_hdr *eh,
		    const struct rte_ether_addr *me)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)((char *)ip +
							  rte_ipv4_hdr_len(ip));
	uint32_t sum;

	if (ip->next_proto_id != IPPROTO_ICMP || ip->dst_addr != e->ip ||
	    ic->icmp_type != RTE_IP_ICMP_ECHO_REQUEST)
		return false;
	ic->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	/* RFC 1624 incremental update: the type word went 0x0800 → 0x0000. */
	sum = (uint32_t)(uint16_t)~rte_be_to_cpu_16(ic->icmp_cksum) + 0xF7FFu;
	sum = (sum & 0xFFFF) + (sum >> 16);
	ic->icmp_cksum = rte_cpu_to_be_16((uint16_t)~((sum & 0xFFFF) + (sum >> 16)));
	ip->dst_addr = ip->src_addr;
	ip->src_addr = e->ip;
	eh->dst_addr = eh->src_addr;
	eh->src_addr = *me;
	return true;
}

/* Answer one frame in place; false when it is not for us. */
static bool
rsh_app_answer(struct rsh_app_ethdev *e, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ether_addr me;

	rsh_tmfifo_host_mac(0, me.addr_bytes);
	if (rte_pktmbuf_data_len(m) < sizeof(*eh) + sizeof(struct rte_arp_hdr))
		return false;
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP))
		return rsh_app_arp_answer(e, eh, &me);
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	    rte_pktmbuf_data_len(m) >= sizeof(*eh) + sizeof(struct rte_ipv4_hdr) +
	    sizeof(struct rte_icmp_hdr))
		return rsh_app_icmp_answer(e, eh, &me);
	return false;
}

/* Receive a burst on the port, answer ARP/ICMP echo, send the replies. */
unsigned int
rsh_app_ethdev_step(struct rsh_app_ethdev *e)
{
	struct rte_mbuf *pkts[RSH_APP_BURST], *out[RSH_APP_BURST];
	uint16_t n = rte_eth_rx_burst(e->port, 0, pkts, RSH_APP_BURST), i, k = 0, s;

	for (i = 0; i < n; i++) {
		if (rsh_app_answer(e, pkts[i])) {
			out[k++] = pkts[i];
		} else {
			e->ignored++;
			rte_pktmbuf_free(pkts[i]);
		}
	}
	s = k ? rte_eth_tx_burst(e->port, 0, out, k) : 0;
	/* The ring port bypasses rsh_tmfifo_net_tx_burst: wake the poll lcore. */
	if (s > 0)
		rsh_dev_notify(e->dev);
	for (i = s; i < k; i++)
		rte_pktmbuf_free(out[i]);
	e->rx += n;
	e->answered += s;
	return n;
}

/* Stop and release the port (the rings stay with the channel). */
void
rsh_app_ethdev_close(struct rsh_app_ethdev *e)
{
	if (!e->open)
		return;
	rte_eth_dev_stop(e->port);
	rte_eth_dev_close(e->port);
	e->open = false;
}

/* The channel counters, one line each. */
void
rsh_app_tmfifo_stats(FILE *f, struct rsh_dev *dev)
{
	static const char *const name[RSH_TMFIFO_NCHAN] = { "console", "net" };
	struct rsh_tmfifo_chan_stats c;
	struct rsh_tmfifo_stats d;
	unsigned int i;

	for (i = 0; i < RSH_TMFIFO_NCHAN; i++) {
		if (rsh_tmfifo_get_stats(dev, i, &c, &d) < 0)
			return;
		fprintf(f, "rshim-pmd-app: stats %s: tx_msgs=%lu tx_bytes=%lu rx_msgs=%lu rx_bytes=%lu tx_drop_oversize=%lu tx_drop_reset=%lu tx_drop_timeout=%lu rx_drop_oversize=%lu rx_drop_closed=%lu rx_drop_reset=%lu rx_drop_boot=%lu rx_ring_full=%lu rx_nombuf=%lu\n",
			name[i], c.tx_msgs, c.tx_bytes, c.rx_msgs, c.rx_bytes,
			c.tx_drop_oversize, c.tx_drop_reset, c.tx_drop_timeout,
			c.rx_drop_oversize, c.rx_drop_closed, c.rx_drop_reset,
			c.rx_drop_boot, c.rx_ring_full, c.rx_nombuf);
	}
	fprintf(f, "rshim-pmd-app: stats fifo: tx_words=%lu rx_words=%lu tx_sync_words=%lu rx_noop=%lu rx_ctrl=%lu rx_ctrl_unknown=%lu rx_drop_unknown=%lu sts_bad=%lu\n",
		d.tx_words, d.rx_words, d.tx_sync_words, d.rx_noop, d.rx_ctrl,
		d.rx_ctrl_unknown, d.rx_drop_unknown, d.sts_bad);
}

/* --net: a known mode; for tap, create the interface now. Exit code. */
int
rsh_app_net_precheck(struct rsh_app *app)
{
	struct rsh_tap t;
	unsigned int prefix;
	uint32_t a;
	int code;

	if (app->ip != NULL && rsh_app_parse_cidr(app->ip, &a, &prefix) < 0) {
		rsh_app_err("bad value '%s' for --ip (want A.B.C.D/P, e.g. 192.168.100.1/24)", app->ip);
		return RSH_EXIT_USAGE;
	}
	if (app->net == NULL || strcmp(app->net, "tap") != 0)
		return 0;
	code = rsh_app_tap_create(app->tap_index, app->net_offload, &t);
	if (code == 0) {
		app->tap_fd = t.fd;
		app->tap_vnet = t.vnet;
		app->tap_offload_err = t.offload_err;
	}
	return code;
}
