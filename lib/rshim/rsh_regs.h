/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim register table for BlueField-1/2/3: the one place where register
 * offsets live. Layout and decode only.
 *
 * Facts: hardware-notes §1.3 (address formation),
 * §1.4 (error patterns), §1.5 (register map).
 */
#ifndef RSH_REGS_H
#define RSH_REGS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "rsh_reg_ids.h"

/* rshim MMIO address-space channels (4-bit), hardware-notes §1.3. */
enum rsh_chan {
	RSH_CH_BOOT = 0x0,
	RSH_CH_RSHIM = 0x1,
	RSH_CH_UART0 = 0x2,
	RSH_CH_UART1 = 0x3,
	RSH_CH_DIAG_UART = 0x4,
	RSH_CH_TYU = 0x5,
	RSH_CH_TYU_EXT1 = 0x6,
	RSH_CH_TYU_EXT2 = 0x7,
	RSH_CH_TYU_EXT3 = 0x8,
	RSH_CH_TIMER = 0x9,
	RSH_CH_USB = 0xA,
	RSH_CH_GPIO = 0xB,
	RSH_CH_MMC = 0xC,
	RSH_CH_TIMER_EXT = 0xD,
	RSH_CH_WDOG0 = 0xE,
	RSH_CH_WDOG1 = 0xF,
	RSH_CH_COUNT = 16,
};

/* BAR0 sizes, §1.2. */
#define RSH_BAR0_SIZE_BF12 0x100000u
#define RSH_BAR0_SIZE_BF3 0x800000u

/* BF3: BAR0 maps the global window [0x13000000, 0x13800000), §1.3. */
#define RSH_BF3_RSH_BASE_ADDR 0x13000000u
#define RSH_BF3_RSH_WINDOW_END (RSH_BF3_RSH_BASE_ADDR + RSH_BAR0_SIZE_BF3)

/* Field definitions, §1.5 and §3. */
#define RSH_BOOT_FIFO_COUNT__MASK 0x3FFull
#define RSH_BOOT_FIFO_SIZE 512u   /* words assumed by the host on PCIe */
#define RSH_BOOT_FIFO_RESERVE 3u  /* host keeps 3 words spare, §3.3 */
#define RSH_BF3_BOOT_FIFO_DEPTH 1024u
#define RSH_TM_FIFO_SIZE 256u
#define RSH_TM_FIFO_RESERVE 3u
#define RSH_TM_STS__COUNT_MASK 0x1FFull
#define RSH_TM_CTL__LWM_MASK 0xFFull
#define RSH_TM_CTL__HWM_SHIFT 8
#define RSH_TM_CTL__MAX_ENTRIES_SHIFT 32
#define RSH_TM_CTL__MAX_ENTRIES_MASK (0x1FFull << RSH_TM_CTL__MAX_ENTRIES_SHIFT)
#define RSH_RESET_CONTROL__KEY_MASK 0xFFFFFFFFull
#define RSH_RESET_CONTROL__KEY 0xCA710001ull
#define RSH_RESET_CONTROL__DISABLE_MASK (1ull << 32)
#define RSH_RESET_CONTROL__REQ_PND_MASK (1ull << 33)
#define RSH_BOOT_CONTROL__MODE_MASK 0x3ull
#define RSH_BOOT_CONTROL_NONE 0ull     /* boot from the rshim boot FIFO */
#define RSH_BOOT_CONTROL_EMMC 1ull
#define RSH_BOOT_CONTROL_EMMC_LEGACY 3ull
#define RSH_SCRATCH_BUF_CTL__IDX_MASK 0x7Full
#define RSH_SCRATCH_BUF_WORDS 128u
#define RSH_SCRATCHPAD3__PROGRESS_MASK 0xFFull
#define RSH_UPTIME_HZ_BF3 200000000ull

/* SCRATCHPAD6: NIC-firmware reset handshake (PCIe), §6.7. */
#define RSH_SP6__RST_STATE_SHIFT 32
#define RSH_SP6__RST_STATE_MASK (0xFull << RSH_SP6__RST_STATE_SHIFT)
#define RSH_SP6__RST_REPLY_SHIFT 38
#define RSH_SP6__RST_REPLY_MASK (0x3ull << RSH_SP6__RST_REPLY_SHIFT)
#define RSH_SP6__RST_DOWNTIME_SHIFT 40 /* units of 10 ms */
#define RSH_SP6__RST_DOWNTIME_MASK (0xFFull << RSH_SP6__RST_DOWNTIME_SHIFT)
#define RSH_SP6__RST_TYPE_SHIFT 52
#define RSH_SP6__RST_TYPE_MASK (0x7ull << RSH_SP6__RST_TYPE_SHIFT)
#define RSH_SP6__PCIE_MASK (1ull << 63) /* host rshim driver present */
#define RSH_SP6_RST_NONE 0u
#define RSH_SP6_RST_REQUEST 1u
#define RSH_SP6_RST_START 2u
#define RSH_SP6_RST_ABORT 3u
#define RSH_SP6_REPLY_ACK 1ull
#define RSH_SP6_REPLY_NACK 2ull
#define RSH_SP6_REPLY_START_ACK 3ull

/* Values meaning "register not reachable right now", §1.4. */
#define RSH_BAD_ACCESS1 0xBAD00ACCE55ull
#define RSH_BAD_ACCESS2 0xBADACCE55ull
#define RSH_ALL_ONES UINT64_MAX

/* Boot FIFO depth of a generation, words: 1024 on BlueField-3 (§D6.1),
 * 512 on BlueField-1/2. */
static inline uint32_t
rsh_boot_fifo_depth(enum rsh_gen gen)
{
	return gen == RSH_GEN_BF3 ? RSH_BF3_BOOT_FIFO_DEPTH : RSH_BOOT_FIFO_SIZE;
}

/* True when a read returned one of the "not reachable" patterns, §1.4. */
static inline bool
rsh_reg_val_is_bad(uint64_t v)
{
	return v == RSH_BAD_ACCESS1 || v == RSH_BAD_ACCESS2 || v == RSH_ALL_ONES;
}

/* One table row: the channel and the offset inside it per generation. */
struct rsh_reg_def {
	const char *name;
	uint8_t chan;
	uint16_t off_bf12;
	uint16_t off_bf3;
};
_Static_assert(sizeof(struct rsh_reg_def) == 16, "rsh_reg_def layout");

/* Per-device resolved BAR offsets, built once at open. */
struct rsh_regmap {
	enum rsh_gen gen;
	uint32_t bar_size;
	uint32_t off[RSH_REG_COUNT];
};

/** The register table, indexed by enum rsh_reg. */
extern const struct rsh_reg_def rsh_reg_table[RSH_REG_COUNT];

/**
 * Decode (channel, offset) into a BAR0 offset for a generation, §1.3.
 * BF1/BF2: channel<<16 | off. BF3: channel map inside the 0x13000000 window.
 * @return 0, or -EINVAL for a bad generation, channel, or an address outside
 *         the BAR window.
 */
int rsh_reg_decode(enum rsh_gen gen, unsigned int chan, uint32_t off,
		   uint32_t *bar_off);

/**
 * BF3 only: a global address (as bf-reg and BF3 USB use) into a BAR0 offset.
 * @return 0, or -EINVAL outside [0x13000000, 0x13800000).
 */
int rsh_reg_bf3_global_to_bar(uint32_t global, uint32_t *bar_off);

/**
 * Fill a per-device map of every register in the table.
 * @return 0, or -EINVAL for an unknown generation.
 */
int rsh_regmap_init(struct rsh_regmap *map, enum rsh_gen gen);

#endif /* RSH_REGS_H */
