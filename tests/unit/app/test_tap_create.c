/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsh_tap_create's offload negotiation against a scripted /dev/net/tun
 * (open and ioctl wrapped): the vnet header and TUN_F_CSUM|TUN_F_TSO4 are
 * asked for, a kernel that refuses them gets a plain TAP and the reason,
 * and --net-offload off never asks.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "rsh_tap.h"

/* What the scripted kernel saw and how it answers. */
static struct {
	unsigned int opens, setiff;
	short flags[4];             /* TUNSETIFF flags, in order */
	int hdr_sz;                 /* TUNSETVNETHDRSZ value */
	unsigned long offload;      /* TUNSETOFFLOAD value */
	int fail_offload;           /* errno for TUNSETOFFLOAD, 0 ok */
	int fail_vnet_iff;          /* errno for TUNSETIFF with IFF_VNET_HDR */
} k;

int __real_open64(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);

/* /dev/net/tun is /dev/null here (open is open64 with 64-bit offsets). */
int
__wrap_open64(const char *path, int flags, ...)
{
	if (strcmp(path, "/dev/net/tun") != 0)
		return __real_open64(path, flags);
	k.opens++;
	return __real_open64("/dev/null", O_RDWR | O_CLOEXEC);
}

/* The three tun ioctls, answered from the script. */
int
__wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == TUNSETIFF) {
		short f = ((struct ifreq *)arg)->ifr_flags;

		k.flags[k.setiff++ & 3] = f;
		if ((f & IFF_VNET_HDR) && k.fail_vnet_iff) {
			errno = k.fail_vnet_iff;
			return -1;
		}
		return 0;
	}
	if (req == TUNSETVNETHDRSZ) {
		k.hdr_sz = *(int *)arg;
		return 0;
	}
	if (req == TUNSETOFFLOAD) {
		k.offload = (unsigned long)arg;
		if (k.fail_offload) {
			errno = k.fail_offload;
			return -1;
		}
		return 0;
	}
	return __real_ioctl(fd, req, arg);
}

/* The channel calls rsh_tap.c makes; not reached by these cases. */
struct rte_mempool *
rsh_tmfifo_pool(struct rsh_dev *dev)
{
	(void)dev;
	return NULL;
}

uint16_t
rsh_tmfifo_net_tx_burst(struct rsh_dev *dev, struct rte_mbuf **pkts, uint16_t n)
{
	(void)dev; (void)pkts; (void)n;
	return 0;
}

uint16_t
rsh_tmfifo_net_rx_burst(struct rsh_dev *dev, struct rte_mbuf **pkts, uint16_t n)
{
	(void)dev; (void)pkts; (void)n;
	return 0;
}

static int
t_reset(void **state)
{
	(void)state;
	memset(&k, 0, sizeof(k));
	return 0;
}

/* Offloads granted: one open, vnet header of 10 bytes, CSUM|TSO4 only. */
static void
test_offload_granted(void **state)
{
	struct rsh_tap t;
	const char *what = NULL;

	(void)state;
	assert_int_equal(rsh_tap_create(&t, 3, true, &what), 0);
	assert_true(t.vnet);
	assert_int_equal(t.offload_err, 0);
	assert_string_equal(t.name, "tmfifo_net3");
	assert_int_equal(k.opens, 1);
	assert_int_equal(k.setiff, 1);
	assert_int_equal(k.flags[0], IFF_TAP | IFF_NO_PI | IFF_VNET_HDR);
	assert_int_equal(k.hdr_sz, sizeof(struct virtio_net_hdr));
	assert_int_equal(k.offload, TUN_F_CSUM | TUN_F_TSO4);
	close(t.fd);
}

/* TUNSETOFFLOAD refused: reopened plain, the reason kept for the log. */
static void
test_offload_refused(void **state)
{
	struct rsh_tap t;
	const char *what = NULL;

	(void)state;
	k.fail_offload = EINVAL;
	assert_int_equal(rsh_tap_create(&t, 0, true, &what), 0);
	assert_false(t.vnet);
	assert_int_equal(t.offload_err, EINVAL);
	assert_true(t.fd >= 0);
	assert_int_equal(k.opens, 2);
	assert_int_equal(k.setiff, 2);
	assert_int_equal(k.flags[1], IFF_TAP | IFF_NO_PI);
	close(t.fd);
}

/* IFF_VNET_HDR itself refused: the same fallback. */
static void
test_vnet_refused(void **state)
{
	struct rsh_tap t;
	const char *what = NULL;

	(void)state;
	k.fail_vnet_iff = EINVAL;
	assert_int_equal(rsh_tap_create(&t, 0, true, &what), 0);
	assert_false(t.vnet);
	assert_int_equal(t.offload_err, EINVAL);
	assert_int_equal(k.flags[1], IFF_TAP | IFF_NO_PI);
	close(t.fd);
}

/* --net-offload off / NET_OFFLOAD 0: never asks, no reason to report. */
static void
test_offload_off(void **state)
{
	struct rsh_tap t;
	const char *what = NULL;

	(void)state;
	assert_int_equal(rsh_tap_create(&t, 0, false, &what), 0);
	assert_false(t.vnet);
	assert_int_equal(t.offload_err, 0);
	assert_int_equal(k.setiff, 1);
	assert_int_equal(k.flags[0], IFF_TAP | IFF_NO_PI);
	assert_int_equal(k.offload, 0);
	close(t.fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_offload_granted, t_reset),
		cmocka_unit_test_setup(test_offload_refused, t_reset),
		cmocka_unit_test_setup(test_vnet_refused, t_reset),
		cmocka_unit_test_setup(test_offload_off, t_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
