/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rshim-pmd public names: BlueField generations and the registers that
 * rsh_dev_reg_read() / rsh_dev_reg_write() accept. Names only; the offsets
 * and their decode per generation are private to the library.
 */
#ifndef RSH_REG_IDS_H
#define RSH_REG_IDS_H

#ifdef __cplusplus
extern "C" {
#endif

/** BlueField generation. */
enum rsh_gen {
	RSH_GEN_NONE = 0,
	RSH_GEN_BF1 = 1,
	RSH_GEN_BF2 = 2,
	RSH_GEN_BF3 = 3,
};

/** Registers the driver and the emulator touch, hardware-notes §1.5. */
enum rsh_reg {
	RSH_ARM_WDG_CONTROL_WCS,
	RSH_SEMAPHORE0,
	RSH_FABRIC_DIM,
	RSH_SWINT,
	RSH_BOOT_FIFO_DATA,
	RSH_BOOT_FIFO_COUNT,
	RSH_RESET_CONTROL,
	RSH_BREADCRUMB1,
	RSH_BOOT_CONTROL,
	RSH_DEVICE_MSTR_PRIV_LVL,
	RSH_SCRATCH_BUF_CTL,
	RSH_SCRATCH_BUF_DAT,
	RSH_UPTIME,
	RSH_UPTIME_POR,
	RSH_MEM_ACC_CTL,
	RSH_MEM_ACC_RSP_CNT,
	RSH_MEM_ACC_DATA,
	RSH_TM_HOST_TO_TILE_DATA,
	RSH_TM_HOST_TO_TILE_STS,
	RSH_TM_HOST_TO_TILE_CTL,
	RSH_TM_TILE_TO_HOST_DATA,
	RSH_TM_TILE_TO_HOST_STS,
	RSH_TM_TILE_TO_HOST_CTL,
	RSH_SCRATCHPAD1,
	RSH_SCRATCHPAD2,
	RSH_SCRATCHPAD3,
	RSH_SCRATCHPAD6,
	RSH_REG_COUNT,
};

/** Name of a register, "?" when out of range. */
const char *rsh_reg_name(enum rsh_reg reg);

/** "BlueField-N" for a generation, "unknown" otherwise. */
const char *rsh_gen_name(enum rsh_gen gen);

#ifdef __cplusplus
}
#endif

#endif /* RSH_REG_IDS_H */
