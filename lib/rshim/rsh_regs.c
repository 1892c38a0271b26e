/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The register table and per-generation address decode,
 * hardware-notes §1.3 and §1.5.
 */
#include <stddef.h>

#include "rsh_backend.h"
#include "rsh_regs.h"

#define RSH_REG_DEF(reg, ch, bf12, bf3) \
	[reg] = { .name = &(#reg)[4], .chan = (ch), .off_bf12 = (bf12), .off_bf3 = (bf3) }

const struct rsh_reg_def rsh_reg_table[RSH_REG_COUNT] = {
	RSH_REG_DEF(RSH_ARM_WDG_CONTROL_WCS, RSH_CH_WDOG1, 0x0000, 0x0000),
	RSH_REG_DEF(RSH_SEMAPHORE0, RSH_CH_RSHIM, 0x0028, 0x0F10),
	RSH_REG_DEF(RSH_FABRIC_DIM, RSH_CH_RSHIM, 0x0110, 0x0110),
	RSH_REG_DEF(RSH_SWINT, RSH_CH_RSHIM, 0x0318, 0x0318),
	RSH_REG_DEF(RSH_BOOT_FIFO_DATA, RSH_CH_RSHIM, 0x0408, 0x2000),
	RSH_REG_DEF(RSH_BOOT_FIFO_COUNT, RSH_CH_RSHIM, 0x0488, 0x1000),
	RSH_REG_DEF(RSH_RESET_CONTROL, RSH_CH_RSHIM, 0x0500, 0x0500),
	RSH_REG_DEF(RSH_BREADCRUMB1, RSH_CH_RSHIM, 0x0518, 0x0518),
	RSH_REG_DEF(RSH_BOOT_CONTROL, RSH_CH_RSHIM, 0x0528, 0x0528),
	RSH_REG_DEF(RSH_DEVICE_MSTR_PRIV_LVL, RSH_CH_RSHIM, 0x0550, 0x0820),
	RSH_REG_DEF(RSH_SCRATCH_BUF_CTL, RSH_CH_RSHIM, 0x0600, 0x0600),
	RSH_REG_DEF(RSH_SCRATCH_BUF_DAT, RSH_CH_RSHIM, 0x0610, 0x0610),
	RSH_REG_DEF(RSH_UPTIME, RSH_CH_RSHIM, 0x0630, 0x0630),
	RSH_REG_DEF(RSH_UPTIME_POR, RSH_CH_RSHIM, 0x0638, 0x0638),
	RSH_REG_DEF(RSH_MEM_ACC_CTL, RSH_CH_RSHIM, 0x08F0, 0x0808),
	RSH_REG_DEF(RSH_MEM_ACC_RSP_CNT, RSH_CH_RSHIM, 0x08F8, 0x0810),
	RSH_REG_DEF(RSH_MEM_ACC_DATA, RSH_CH_RSHIM, 0x0900, 0x0828),
	RSH_REG_DEF(RSH_TM_HOST_TO_TILE_DATA, RSH_CH_RSHIM, 0x0A20, 0x4000),
	RSH_REG_DEF(RSH_TM_HOST_TO_TILE_STS, RSH_CH_RSHIM, 0x0A28, 0x6000),
	/* BF3 CTL offsets are (inferred), hardware-notes §D1.3. */
	RSH_REG_DEF(RSH_TM_HOST_TO_TILE_CTL, RSH_CH_RSHIM, 0x0A30, 0x6008),
	RSH_REG_DEF(RSH_TM_TILE_TO_HOST_DATA, RSH_CH_RSHIM, 0x0A40, 0x5000),
	RSH_REG_DEF(RSH_TM_TILE_TO_HOST_STS, RSH_CH_RSHIM, 0x0A48, 0x6100),
	RSH_REG_DEF(RSH_TM_TILE_TO_HOST_CTL, RSH_CH_RSHIM, 0x0A50, 0x6108),
	RSH_REG_DEF(RSH_SCRATCHPAD1, RSH_CH_RSHIM, 0x0C20, 0x0C40),
	RSH_REG_DEF(RSH_SCRATCHPAD2, RSH_CH_RSHIM, 0x0C28, 0x0C48),
	RSH_REG_DEF(RSH_SCRATCHPAD3, RSH_CH_RSHIM, 0x0C30, 0x0C50),
	RSH_REG_DEF(RSH_SCRATCHPAD6, RSH_CH_RSHIM, 0x0C48, 0x0C68),
};

/*
 * BF3 channel bases inside the window, §1.3. Unlisted channels (BOOT, GIC,
 * GPIO, MMC) map to 0 like RSHIM. WDOG1 is looked up in this map too: the
 * reference daemon sends channel 0xF down its "global address" path, where
 * it fails the window check, so its watchdog-disable write never reaches a
 * BF3 (§1.3, inferred from code reading). Here it lands at 0x040000.
 */
static const uint32_t rsh_bf3_chan_base[RSH_CH_COUNT] = {
	[RSH_CH_RSHIM] = 0x000000,
	[RSH_CH_UART0] = 0x010000,
	[RSH_CH_UART1] = 0x011000,
	[RSH_CH_DIAG_UART] = 0x012000,
	[RSH_CH_USB] = 0x012400,
	[RSH_CH_WDOG0] = 0x020000,
	[RSH_CH_WDOG1] = 0x040000,
	[RSH_CH_TYU_EXT3] = 0x060000,
	[RSH_CH_TIMER] = 0x080000,
	[RSH_CH_TIMER_EXT] = 0x0A0000,
	[RSH_CH_TYU_EXT1] = 0x0A1000,
	[RSH_CH_TYU] = 0x400000,
};

_Static_assert(RSH_BF3_RSH_WINDOW_END == 0x13800000u, "BF3 window end");
_Static_assert((RSH_CH_COUNT << 16) == RSH_BAR0_SIZE_BF12,
	       "BF1/BF2: 16 channels of 64 KiB fill the 1 MiB BAR");

/* Global BF3 address into a BAR offset, with the window check of §1.3. */
int
rsh_reg_bf3_global_to_bar(uint32_t global, uint32_t *bar_off)
{
	if (global < RSH_BF3_RSH_BASE_ADDR || global >= RSH_BF3_RSH_WINDOW_END)
		return -EINVAL;
	*bar_off = global - RSH_BF3_RSH_BASE_ADDR;
	return 0;
}

/* (channel, offset) into a BAR offset for one generation, §1.3. */
int
rsh_reg_decode(enum rsh_gen gen, unsigned int chan, uint32_t off,
	       uint32_t *bar_off)
{
	if (chan >= RSH_CH_COUNT || (off & 7) != 0)
		return -EINVAL;
	switch (gen) {
	case RSH_GEN_BF1:
	case RSH_GEN_BF2:
		if (off > 0xFFFF)
			return -EINVAL;
		*bar_off = (chan << 16) | off;
		return 0;
	case RSH_GEN_BF3:
		return rsh_reg_bf3_global_to_bar(RSH_BF3_RSH_BASE_ADDR +
						 rsh_bf3_chan_base[chan] + off,
						 bar_off);
	default:
		return -EINVAL;
	}
}

/* Resolve every table register for one generation. */
int
rsh_regmap_init(struct rsh_regmap *map, enum rsh_gen gen)
{
	unsigned int i;
	int rc;

	if (gen != RSH_GEN_BF1 && gen != RSH_GEN_BF2 && gen != RSH_GEN_BF3)
		return -EINVAL;
	map->gen = gen;
	map->bar_size = gen == RSH_GEN_BF3 ? RSH_BAR0_SIZE_BF3 :
					     RSH_BAR0_SIZE_BF12;
	for (i = 0; i < RSH_REG_COUNT; i++) {
		const struct rsh_reg_def *d = &rsh_reg_table[i];

		rc = rsh_reg_decode(gen, d->chan,
				    gen == RSH_GEN_BF3 ? d->off_bf3 : d->off_bf12,
				    &map->off[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

_Static_assert(RSH_BACKEND_BAD_READ == RSH_BAD_ACCESS1,
	       "backends report a failed read as the silicon does");
/* The public copies of the fields misc shows (rsh_ctl.h). */
_Static_assert(RSH_CTL_BOOT_MODE_MASK == RSH_BOOT_CONTROL__MODE_MASK, "BOOT_MODE");
_Static_assert(RSH_CTL_BF3_UPTIME_HZ == RSH_UPTIME_HZ_BF3, "UP_TIME");
_Static_assert(RSH_CTL_LOG_RECS_MAX == RSH_SCRATCH_BUF_WORDS, "scratch log");

/* Backend SDK: one register's offset (rsh_backend.h). */
int
rsh_backend_reg_off(enum rsh_gen gen, enum rsh_reg reg, uint32_t *bar_off)
{
	const struct rsh_reg_def *d;

	if ((unsigned int)reg >= RSH_REG_COUNT ||
	    (gen != RSH_GEN_BF1 && gen != RSH_GEN_BF2 && gen != RSH_GEN_BF3))
		return -EINVAL;
	d = &rsh_reg_table[reg];
	return rsh_reg_decode(gen, d->chan,
			      gen == RSH_GEN_BF3 ? d->off_bf3 : d->off_bf12,
			      bar_off);
}

/* Backend SDK: BAR0 size per generation (rsh_backend.h). */
uint32_t
rsh_backend_bar_size(enum rsh_gen gen)
{
	if (gen == RSH_GEN_BF3)
		return RSH_BAR0_SIZE_BF3;
	if (gen == RSH_GEN_BF1 || gen == RSH_GEN_BF2)
		return RSH_BAR0_SIZE_BF12;
	return 0;
}

/* Register name without the RSH_ prefix. */
const char *
rsh_reg_name(enum rsh_reg reg)
{
	if ((unsigned int)reg >= RSH_REG_COUNT)
		return "?";
	return rsh_reg_table[reg].name;
}

/* Marketing name of a generation. */
const char *
rsh_gen_name(enum rsh_gen gen)
{
	switch (gen) {
	case RSH_GEN_BF1: return "BlueField-1";
	case RSH_GEN_BF2: return "BlueField-2";
	case RSH_GEN_BF3: return "BlueField-3";
	default: return "unknown";
	}
}
