/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tmfifo network's addresses, one rule for every end that uses them
 * (hardware-notes §4.8): the host's tmfifo_net<N> is 00:1A:CA:FF:FF:02
 * + 2·N, the DPU's end defaults to 00:1A:CA:FF:FF:01. Used by the host end
 * (app/common), the app's doctor and benchmarks, and the emulator's DPU
 * side (drivers/sim), so none of them writes the bytes itself.
 *
 * Plain C, layout and inlines only.
 */
#ifndef RSH_TMFIFO_ADDR_H
#define RSH_TMFIFO_ADDR_H

#include <stdint.h>
#include <string.h>

#define RSH_TMFIFO_MAC_LEN 6

/* The DPU end's default MAC, as an initializer. */
#define RSH_TMFIFO_DPU_MAC { 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x01 }

/* The host end's MAC of tmfifo_net0, as an initializer. */
#define RSH_TMFIFO_HOST_MAC { 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x02 }

/* Host MAC of tmfifo_net<index>: RSH_TMFIFO_HOST_MAC + 2·index in the
 * last byte. */
static inline void
rsh_tmfifo_host_mac(unsigned int index, uint8_t mac[RSH_TMFIFO_MAC_LEN])
{
	static const uint8_t base[RSH_TMFIFO_MAC_LEN] = RSH_TMFIFO_HOST_MAC;

	memcpy(mac, base, RSH_TMFIFO_MAC_LEN);
	mac[5] = (uint8_t)(base[5] + 2 * index);
}

#endif /* RSH_TMFIFO_ADDR_H */
