/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * misc keys (hardware-notes §5.4, §5.5): per-device settings, and the
 * text format as a pure function of a snapshot so it can be pinned by
 * golden tests. Internal to the core.
 */
#ifndef RSH_MISC_H
#define RSH_MISC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RSH_MISC_BOOT_TIMEOUT_S 300u /* §5.4 default */
#define RSH_MISC_USB_TIMEOUT_S 40u   /* §5.4 default (USB only) */
#define RSH_MISC_KEY_WIDTH 16
/* BlueField-3 boot record OPN: four 32-bit words in the YU channel. */
#define RSH_MISC_BF3_YU_BASE 0x400000u
#define RSH_MISC_BF3_OPN_OFF 0x9BDCu

/* Settings kept per device (control path; read by the boot open). */
struct rsh_misc_cfg {
	int display_level;        /* 0 basic, 1 advanced, 2 log */
	unsigned int boot_timeout_s;
	unsigned int usb_timeout_s;
	bool clear_on_read;
	bool boot_reset_skip;     /* BOOT_RESET_SKIP */
	bool inited;
	/*
	 * The registers of the last misc read that could read them, shown
	 * while a boot push owns the device or it is in reset (hardware-
	 * notes §5.4: misc shows the same keys at any time). Written and read
	 * by misc readers, any thread: relaxed atomics, valid last.
	 */
	struct {
		uint64_t boot_mode, bf_mode, uptime_s, tsc;
		uint64_t opn[2];       /* 16 OPN bytes */
		uint64_t valid;
	} cache;
};

/* Everything one misc read shows. */
struct rsh_misc_view {
	int gen;                  /* 1, 2, 3 */
	unsigned int revision;
	int display_level;
	unsigned int bf_mode;     /* BF3: SCRATCHPAD2 bits 5:4 */
	unsigned int boot_mode;   /* BOOT_CONTROL & 3 */
	unsigned int boot_timeout_s;
	unsigned int usb_timeout_s;
	bool drop;
	const char *dev_name;     /* "pcie-0000:03:00.2" */
	const char *opn;          /* "" shows N/A */
	bool have_uptime;
	uint64_t uptime_s;
	bool secure_nic;
	bool force_cmd;
	bool boot_reset_skip;
	uint8_t peer_mac[6];
	uint32_t pxe_id;
	uint16_t vlan[2];
	bool clear_on_read;
	const char *log_text;     /* level 2: decoded lines, "\n" each */
};

/* Format the text. Returns its length (truncated at len - 1). */
size_t rsh_misc_format(const struct rsh_misc_view *v, char *buf, size_t len);

/* Settings defaults. */
void rsh_misc_cfg_default(struct rsh_misc_cfg *c);

#endif /* RSH_MISC_H */
