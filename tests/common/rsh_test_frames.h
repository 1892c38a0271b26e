/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet frames the tests send to the emulated DPU's network end: the
 * tmfifo addressing convention (host 192.168.100.1 / 00:1A:CA:FF:FF:02,
 * DPU 192.168.100.2 / RSH_SIM_PEER_MAC, hardware-notes
 * §4.8), an ARP request and an ICMP echo request. Include rsh_sim_peer.h
 * first.
 */
#ifndef RSH_TEST_FRAMES_H
#define RSH_TEST_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rsh_test_csum.h"

static const uint8_t rsh_test_host_mac[6] = { 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x02 };
static const uint8_t rsh_test_peer_mac[6] = RSH_SIM_PEER_MAC;
static const uint8_t rsh_test_host_ip[4] = { 192, 168, 100, 1 };
static const uint8_t rsh_test_peer_ip[4] = { 192, 168, 100, 2 };

#define RSH_TEST_ICMP_ID 0x1234

/* ARP request who-has 192.168.100.2 tell 192.168.100.1 (60 bytes). */
static inline size_t
rsh_test_arp_req(uint8_t *f)
{
	memset(f, 0, 60);
	memset(f, 0xFF, 6);
	memcpy(f + 6, rsh_test_host_mac, 6);
	f[12] = 0x08; f[13] = 0x06;
	f[15] = 1; f[16] = 0x08; f[18] = 6; f[19] = 4; f[21] = 1;
	memcpy(f + 22, rsh_test_host_mac, 6);
	memcpy(f + 28, rsh_test_host_ip, 4);
	memcpy(f + 38, rsh_test_peer_ip, 4);
	return 60;
}

/*
 * ICMP echo request .1 → .2 of flen frame bytes (≥ 42): id 0x1234,
 * sequence seq, payload byte k = 0xA0 + k, both checksums set.
 */
static inline size_t
rsh_test_icmp_req(uint8_t *f, size_t flen, uint16_t seq)
{
	uint8_t *ip = f + 14, *ic = ip + 20;
	size_t tot = flen - 14, k;
	uint16_t c;

	memset(f, 0, flen);
	memcpy(f, rsh_test_peer_mac, 6);
	memcpy(f + 6, rsh_test_host_mac, 6);
	f[12] = 0x08;
	ip[0] = 0x45; ip[2] = (uint8_t)(tot >> 8); ip[3] = (uint8_t)tot;
	ip[5] = (uint8_t)seq; ip[8] = 64; ip[9] = 1;
	memcpy(ip + 12, rsh_test_host_ip, 4);
	memcpy(ip + 16, rsh_test_peer_ip, 4);
	c = rsh_test_csum(ip, 20);
	ip[10] = (uint8_t)(c >> 8); ip[11] = (uint8_t)c;
	ic[0] = 8; ic[4] = RSH_TEST_ICMP_ID >> 8; ic[5] = RSH_TEST_ICMP_ID & 0xFF;
	ic[6] = (uint8_t)(seq >> 8); ic[7] = (uint8_t)seq;
	for (k = 0; k < tot - 28; k++)
		ic[8 + k] = (uint8_t)(0xA0 + k);
	c = rsh_test_csum(ic, tot - 20);
	ic[2] = (uint8_t)(c >> 8); ic[3] = (uint8_t)c;
	return flen;
}

#endif /* RSH_TEST_FRAMES_H */
