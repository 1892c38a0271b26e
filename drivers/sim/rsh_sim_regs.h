/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulator's own register decode, written from the hardware facts
 * (hardware-notes §1.2-§1.5, §D1.2-§D1.3) and kept apart from the driver's
 * register table on purpose: a wrong offset on either side then shows up
 * as a device that does not answer, not as two tables agreeing on a
 * mistake. Golden tests pin both against literal offsets.
 *
 * Decode as the chip does it: a BAR0 offset is turned back into
 * (channel, offset) — BF1/BF2 channel = bits 19:16, offset = bits 15:0;
 * BF3 through the channel map of the 0x13000000 window — and the
 * (channel, offset) pair is looked up in the table below.
 */
#ifndef RSH_SIM_REGS_H
#define RSH_SIM_REGS_H

#include <stdbool.h>
#include <stdint.h>

/* Registers with behaviour in the emulator (anything else is storage). */
enum rsh_sim_reg {
	RSH_SIM_REG_WDOG1_WCS,      /* ARM_WDG_CONTROL_WCS, channel WDOG1 */
	RSH_SIM_REG_SEMAPHORE0,
	RSH_SIM_REG_FABRIC_DIM,
	RSH_SIM_REG_SWINT,
	RSH_SIM_REG_BOOT_FIFO_DATA,
	RSH_SIM_REG_BOOT_FIFO_COUNT,
	RSH_SIM_REG_RESET_CONTROL,
	RSH_SIM_REG_BREADCRUMB1,
	RSH_SIM_REG_BOOT_CONTROL,
	RSH_SIM_REG_MSTR_PRIV_LVL,  /* DEVICE_MSTR_PRIV_LVL */
	RSH_SIM_REG_SCRATCH_BUF_CTL,
	RSH_SIM_REG_SCRATCH_BUF_DAT,
	RSH_SIM_REG_UPTIME,
	RSH_SIM_REG_UPTIME_POR,
	RSH_SIM_REG_MEM_ACC_CTL,
	RSH_SIM_REG_MEM_ACC_RSP_CNT,
	RSH_SIM_REG_MEM_ACC_DATA,
	RSH_SIM_REG_HTT_DATA,       /* TM FIFO host to tile (ARM RX) */
	RSH_SIM_REG_HTT_STS,
	RSH_SIM_REG_HTT_CTL,
	RSH_SIM_REG_TTH_DATA,       /* TM FIFO tile to host (ARM TX) */
	RSH_SIM_REG_TTH_STS,
	RSH_SIM_REG_TTH_CTL,
	RSH_SIM_REG_SCRATCHPAD1,
	RSH_SIM_REG_SCRATCHPAD2,
	RSH_SIM_REG_SCRATCHPAD3,
	RSH_SIM_REG_SCRATCHPAD6,
	RSH_SIM_REG_COUNT,
};

/* Generations as the emulator names them (same numbers as the backend). */
#define RSH_SIM_GEN_BF1 1
#define RSH_SIM_GEN_BF2 2
#define RSH_SIM_GEN_BF3 3

/* Channels, hardware-notes §1.3. */
#define RSH_SIM_CH_RSHIM 0x1u
#define RSH_SIM_CH_WDOG1 0xFu
#define RSH_SIM_CH_COUNT 16u

/* BAR0 sizes, hardware-notes §1.2; BF3 window base, §1.3. */
#define RSH_SIM_BAR_BF12 0x100000u
#define RSH_SIM_BAR_BF3 0x800000u
#define RSH_SIM_BF3_BASE 0x13000000u

/* Fields, hardware-notes §1.5, §3, §5.6 and §D1.2. */
#define RSH_SIM_BOOT_COUNT_MASK 0x3FFull
#define RSH_SIM_BOOT_DEPTH_BF12 512u   /* words, §D6.1 */
#define RSH_SIM_BOOT_DEPTH_BF3 1024u   /* 0x400 lines, §1.5 */
#define RSH_SIM_TM_DEPTH 256u          /* MAX_ENTRIES reset value */
#define RSH_SIM_TM_COUNT_MASK 0x1FFull
#define RSH_SIM_TM_CTL_HWM_SHIFT 8
#define RSH_SIM_TM_CTL_MAX_SHIFT 32
#define RSH_SIM_RESET_KEY_MASK 0xFFFFFFFFull
#define RSH_SIM_RESET_KEY 0xCA710001ull
#define RSH_SIM_RESET_DISABLE (1ull << 32)
#define RSH_SIM_RESET_REQ_PND (1ull << 33)
#define RSH_SIM_BOOTMODE_MASK 0x3ull
#define RSH_SIM_BOOTMODE_FIFO 0ull     /* boot from the rshim boot FIFO */
#define RSH_SIM_BOOTMODE_EMMC 1ull
#define RSH_SIM_LOG_IDX_MASK 0x7Full
#define RSH_SIM_LOG_WORDS 128u
#define RSH_SIM_SP3_PROGRESS_MASK 0xFFull
#define RSH_SIM_UPTIME_HZ 200000000ull /* BF3 reference clock, §1.5 */

/* SCRATCHPAD1 words of the ownership protocol, hardware-notes §6.1. */
#define RSH_SIM_KEEPALIVE 0x0000005089836482ull
#define RSH_SIM_OSP_REQ 0x004F53505F524551ull  /* "OSP_REQ" */
#define RSH_SIM_OSP_ACK 0x004F53505F41434Bull  /* "OSP_ACK" */
#define RSH_SIM_LOCK_WORD 0x4B434F4C00000000ull /* secure NIC mode */

/* SCRATCHPAD6 reset handshake fields, hardware-notes §6.7. */
#define RSH_SIM_SP6_STATE_SHIFT 32
#define RSH_SIM_SP6_STATE_MASK (0xFull << RSH_SIM_SP6_STATE_SHIFT)
#define RSH_SIM_SP6_REPLY_SHIFT 38
#define RSH_SIM_SP6_REPLY_MASK (0x3ull << RSH_SIM_SP6_REPLY_SHIFT)
#define RSH_SIM_SP6_DOWN_SHIFT 40
#define RSH_SIM_SP6_DOWN_MASK (0xFFull << RSH_SIM_SP6_DOWN_SHIFT)
#define RSH_SIM_SP6_TYPE_SHIFT 52
#define RSH_SIM_SP6_TYPE_MASK (0x7ull << RSH_SIM_SP6_TYPE_SHIFT)
#define RSH_SIM_SP6_PCIE (1ull << 63)
#define RSH_SIM_RST_REQUEST 1u  /* rst_state, written by firmware */
#define RSH_SIM_RST_START 2u
#define RSH_SIM_RST_ABORT 3u
#define RSH_SIM_SP6_ACK 1u       /* rst_reply, written by the host */
#define RSH_SIM_SP6_START_ACK 3u
#define RSH_SIM_RST_TYPE_DPU 1u
#define RSH_SIM_RST_TYPE_NIC 2u

/* SCRATCHPAD2 bits 12:11: deferred-upgrade status as bfb-install reads
 * it (hardware-notes §3.8 step 9): 10b staged OK, 11b failed. */
#define RSH_SIM_SP2_UPG_SHIFT 11
#define RSH_SIM_SP2_UPG_MASK (3ull << RSH_SIM_SP2_UPG_SHIFT)
#define RSH_SIM_SP2_UPG_OK 2ull
#define RSH_SIM_SP2_UPG_FAIL 3ull

/* "Not reachable" read values, §1.4. */
#define RSH_SIM_BAD_ACCESS 0xBAD00ACCE55ull
#define RSH_SIM_ALL_ONES UINT64_MAX

/** Name of an emulator register ("?" out of range). */
const char *rsh_sim_reg_name(enum rsh_sim_reg reg);

/**
 * BAR0 offset of an emulator register for a generation (1, 2 or 3).
 * @return 0, or -EINVAL for a bad generation or register.
 */
int rsh_sim_reg_bar_off(int gen, enum rsh_sim_reg reg, uint32_t *off);

/**
 * Decode a BAR0 offset the way the chip does: back into (channel,
 * offset) and then a table register.
 * @return the register, or -1 when the offset holds no modelled register
 *         (plain storage) or lies outside the generation's BAR.
 */
int rsh_sim_reg_decode(int gen, uint32_t bar_off);

/**
 * True for a register whose access pops, pushes or takes something (the
 * FIFO data registers, the scratch buffer, SEMAPHORE0, the MEM_ACC
 * trigger): half of it in a 4-byte access would act on half a word.
 */
bool rsh_sim_reg_side_effect(int gen, uint32_t bar_off);

/** BAR0 size of a generation (0 for an unknown one). */
uint32_t rsh_sim_bar_size(int gen);

#endif /* RSH_SIM_REGS_H */
