/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tmfifo_netN as an interface: the name check before creating it, and
 * its configuration (MAC, MTU, address, link up/down), the same for
 * rshim-pmd-app and the service. See rsh_tap.h; the rule is
 * hardware-notes §4.8.
 */
#include <errno.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rsh_tap.h"
#include "rsh_tmfifo_addr.h"

/* Create after the name check, see rsh_tap.h. */
int
rsh_tap_open(struct rsh_tap *t, unsigned int index, bool offload,
	     const char **what)
{
	char name[IFNAMSIZ];

	snprintf(name, sizeof(name), "tmfifo_net%u", index);
	if (if_nametoindex(name) != 0) {
		*what = "name";
		return -EEXIST;
	}
	return rsh_tap_create(t, index, offload, what);
}

/* One interface ioctl on a helper socket; -errno. */
static int
rsh_tap_if_ioctl(int s, unsigned long req, struct ifreq *ifr)
{
	return ioctl(s, req, ifr) < 0 ? -errno : 0;
}

/* Set an IPv4 address and netmask on the interface; -errno. */
static int
rsh_tap_if_addr(int s, const char *name, const struct rsh_tap_ip *ip)
{
	struct sockaddr_in *sin;
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	sin = (struct sockaddr_in *)&ifr.ifr_addr;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = ip->addr;
	rc = rsh_tap_if_ioctl(s, SIOCSIFADDR, &ifr);
	if (rc != 0)
		return rc;
	sin->sin_addr.s_addr = ip->prefix ? htonl(~0u << (32 - ip->prefix)) : 0;
	return rsh_tap_if_ioctl(s, SIOCSIFNETMASK, &ifr);
}

/* Link flags up or down, see rsh_tap.h. */
int
rsh_tap_set_up(const char *name, bool up)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;
	int rc;

	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	rc = rsh_tap_if_ioctl(s, SIOCGIFFLAGS, &ifr);
	if (up)
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	else
		ifr.ifr_flags &= ~IFF_UP;
	if (rc == 0)
		rc = rsh_tap_if_ioctl(s, SIOCSIFFLAGS, &ifr);
	close(s);
	return rc;
}

/* MAC, MTU, optional address, then up; see rsh_tap.h. */
int
rsh_tap_config(const struct rsh_tap *t, unsigned int index,
	       const struct rsh_tap_ip *ip, const char **what)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;
	int rc = s < 0 ? -errno : 0;

	*what = "socket";
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", t->name);
	if (rc == 0) {
		*what = "MAC";
		ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
		rsh_tmfifo_host_mac(index, (uint8_t *)ifr.ifr_hwaddr.sa_data);
		rc = rsh_tap_if_ioctl(s, SIOCSIFHWADDR, &ifr);
	}
	if (rc == 0) {
		*what = "MTU";
		ifr.ifr_mtu = RSH_TAP_MTU;
		rc = rsh_tap_if_ioctl(s, SIOCSIFMTU, &ifr);
	}
	if (rc == 0 && ip != NULL) {
		*what = "address";
		rc = rsh_tap_if_addr(s, t->name, ip);
	}
	if (s >= 0)
		close(s);
	if (rc == 0) {
		*what = "link up";
		rc = rsh_tap_set_up(t->name, true);
	}
	return rc;
}
