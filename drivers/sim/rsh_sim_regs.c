/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulator's register table and address decode, hardware-notes
 * §1.3 (address formation) and §1.5 (register map); BF3 TM FIFO CTL
 * offsets are (inferred) in hardware-notes §D1.3.
 */
#include <errno.h>
#include <stddef.h>

#include "rsh_sim_regs.h"

/* One register: its channel and its offset inside the channel. */
struct rsh_sim_reg_def {
	const char *name;
	uint8_t chan;
	uint16_t off_bf12;
	uint16_t off_bf3;
};

#define RSH_SIM_DEF(r, name, ch, bf12, bf3) \
	[RSH_SIM_REG_##r] = { name, ch, bf12, bf3 }

static const struct rsh_sim_reg_def rsh_sim_reg_defs[RSH_SIM_REG_COUNT] = {
	RSH_SIM_DEF(WDOG1_WCS, "ARM_WDG_CONTROL_WCS", RSH_SIM_CH_WDOG1, 0x0000, 0x0000),
	RSH_SIM_DEF(SEMAPHORE0, "SEMAPHORE0", RSH_SIM_CH_RSHIM, 0x0028, 0x0F10),
	RSH_SIM_DEF(FABRIC_DIM, "FABRIC_DIM", RSH_SIM_CH_RSHIM, 0x0110, 0x0110),
	RSH_SIM_DEF(SWINT, "SWINT", RSH_SIM_CH_RSHIM, 0x0318, 0x0318),
	RSH_SIM_DEF(BOOT_FIFO_DATA, "BOOT_FIFO_DATA", RSH_SIM_CH_RSHIM, 0x0408, 0x2000),
	RSH_SIM_DEF(BOOT_FIFO_COUNT, "BOOT_FIFO_COUNT", RSH_SIM_CH_RSHIM, 0x0488, 0x1000),
	RSH_SIM_DEF(RESET_CONTROL, "RESET_CONTROL", RSH_SIM_CH_RSHIM, 0x0500, 0x0500),
	RSH_SIM_DEF(BREADCRUMB1, "BREADCRUMB1", RSH_SIM_CH_RSHIM, 0x0518, 0x0518),
	RSH_SIM_DEF(BOOT_CONTROL, "BOOT_CONTROL", RSH_SIM_CH_RSHIM, 0x0528, 0x0528),
	RSH_SIM_DEF(MSTR_PRIV_LVL, "DEVICE_MSTR_PRIV_LVL", RSH_SIM_CH_RSHIM, 0x0550, 0x0820),
	RSH_SIM_DEF(SCRATCH_BUF_CTL, "SCRATCH_BUF_CTL", RSH_SIM_CH_RSHIM, 0x0600, 0x0600),
	RSH_SIM_DEF(SCRATCH_BUF_DAT, "SCRATCH_BUF_DAT", RSH_SIM_CH_RSHIM, 0x0610, 0x0610),
	RSH_SIM_DEF(UPTIME, "UPTIME", RSH_SIM_CH_RSHIM, 0x0630, 0x0630),
	RSH_SIM_DEF(UPTIME_POR, "UPTIME_POR", RSH_SIM_CH_RSHIM, 0x0638, 0x0638),
	RSH_SIM_DEF(MEM_ACC_CTL, "MEM_ACC_CTL", RSH_SIM_CH_RSHIM, 0x08F0, 0x0808),
	RSH_SIM_DEF(MEM_ACC_RSP_CNT, "MEM_ACC_RSP_CNT", RSH_SIM_CH_RSHIM, 0x08F8, 0x0810),
	RSH_SIM_DEF(MEM_ACC_DATA, "MEM_ACC_DATA", RSH_SIM_CH_RSHIM, 0x0900, 0x0828),
	RSH_SIM_DEF(HTT_DATA, "TM_HOST_TO_TILE_DATA", RSH_SIM_CH_RSHIM, 0x0A20, 0x4000),
	RSH_SIM_DEF(HTT_STS, "TM_HOST_TO_TILE_STS", RSH_SIM_CH_RSHIM, 0x0A28, 0x6000),
	/* BF3 CTL: STS + 8, hardware-notes §D1.3 (inferred). */
	RSH_SIM_DEF(HTT_CTL, "TM_HOST_TO_TILE_CTL", RSH_SIM_CH_RSHIM, 0x0A30, 0x6008),
	RSH_SIM_DEF(TTH_DATA, "TM_TILE_TO_HOST_DATA", RSH_SIM_CH_RSHIM, 0x0A40, 0x5000),
	RSH_SIM_DEF(TTH_STS, "TM_TILE_TO_HOST_STS", RSH_SIM_CH_RSHIM, 0x0A48, 0x6100),
	RSH_SIM_DEF(TTH_CTL, "TM_TILE_TO_HOST_CTL", RSH_SIM_CH_RSHIM, 0x0A50, 0x6108),
	RSH_SIM_DEF(SCRATCHPAD1, "SCRATCHPAD1", RSH_SIM_CH_RSHIM, 0x0C20, 0x0C40),
	RSH_SIM_DEF(SCRATCHPAD2, "SCRATCHPAD2", RSH_SIM_CH_RSHIM, 0x0C28, 0x0C48),
	RSH_SIM_DEF(SCRATCHPAD3, "SCRATCHPAD3", RSH_SIM_CH_RSHIM, 0x0C30, 0x0C50),
	RSH_SIM_DEF(SCRATCHPAD6, "SCRATCHPAD6", RSH_SIM_CH_RSHIM, 0x0C48, 0x0C68),
};

/*
 * BF3 channel bases inside BAR0, hardware-notes §1.3. Channels without a
 * listed base (BOOT, GIC, GPIO, MMC) are not decoded: their offsets would
 * land on the RSHIM channel's. WDOG1 at 0x040000 is listed in the map
 * even though the public daemon's path never reaches it.
 */
static const struct {
	uint8_t chan;
	uint32_t base;
} rsh_sim_bf3_chans[] = { /* ascending base */
	{ RSH_SIM_CH_RSHIM, 0x000000 }, { 0x2, 0x010000 }, { 0x3, 0x011000 },
	{ 0x4, 0x012000 }, { 0xA, 0x012400 }, { 0xE, 0x020000 },
	{ RSH_SIM_CH_WDOG1, 0x040000 }, { 0x8, 0x060000 }, { 0x9, 0x080000 },
	{ 0xD, 0x0A0000 }, { 0x6, 0x0A1000 }, { 0x5, 0x400000 },
};

#define RSH_SIM_N_BF3_CHANS (sizeof(rsh_sim_bf3_chans) / sizeof(rsh_sim_bf3_chans[0]))

const char *
rsh_sim_reg_name(enum rsh_sim_reg reg)
{
	if ((unsigned int)reg >= RSH_SIM_REG_COUNT)
		return "?";
	return rsh_sim_reg_defs[reg].name;
}

uint32_t
rsh_sim_bar_size(int gen)
{
	switch (gen) {
	case RSH_SIM_GEN_BF1:
	case RSH_SIM_GEN_BF2:
		return RSH_SIM_BAR_BF12;
	case RSH_SIM_GEN_BF3:
		return RSH_SIM_BAR_BF3;
	default:
		return 0;
	}
}

/* BF3: base of a channel in the window, or -1 when it has none. */
static int64_t
rsh_sim_bf3_base(unsigned int chan)
{
	unsigned int i;

	for (i = 0; i < RSH_SIM_N_BF3_CHANS; i++)
		if (rsh_sim_bf3_chans[i].chan == chan)
			return rsh_sim_bf3_chans[i].base;
	return -1;
}

int
rsh_sim_reg_bar_off(int gen, enum rsh_sim_reg reg, uint32_t *off)
{
	const struct rsh_sim_reg_def *d;
	int64_t base;

	if ((unsigned int)reg >= RSH_SIM_REG_COUNT || rsh_sim_bar_size(gen) == 0)
		return -EINVAL;
	d = &rsh_sim_reg_defs[reg];
	if (gen != RSH_SIM_GEN_BF3) {
		*off = (uint32_t)d->chan << 16 | d->off_bf12;
		return 0;
	}
	base = rsh_sim_bf3_base(d->chan);
	if (base < 0)
		return -EINVAL;
	*off = (uint32_t)base + d->off_bf3;
	return 0;
}

/* BAR offset into (channel, offset inside the channel). */
static int
rsh_sim_split(int gen, uint32_t bar_off, unsigned int *chan, uint32_t *coff)
{
	unsigned int i;

	if (bar_off >= rsh_sim_bar_size(gen))
		return -1;
	if (gen != RSH_SIM_GEN_BF3) {
		*chan = bar_off >> 16;
		*coff = bar_off & 0xFFFF;
		return 0;
	}
	for (i = RSH_SIM_N_BF3_CHANS; i-- > 0;) {
		if (bar_off >= rsh_sim_bf3_chans[i].base) {
			*chan = rsh_sim_bf3_chans[i].chan;
			*coff = bar_off - rsh_sim_bf3_chans[i].base;
			return 0;
		}
	}
	return -1;
}

int
rsh_sim_reg_decode(int gen, uint32_t bar_off)
{
	unsigned int chan, r;
	uint32_t coff;

	if (rsh_sim_split(gen, bar_off, &chan, &coff) < 0)
		return -1;
	for (r = 0; r < RSH_SIM_REG_COUNT; r++) {
		const struct rsh_sim_reg_def *d = &rsh_sim_reg_defs[r];

		if (d->chan == chan &&
		    coff == (gen == RSH_SIM_GEN_BF3 ? d->off_bf3 : d->off_bf12))
			return (int)r;
	}
	return -1;
}

bool
rsh_sim_reg_side_effect(int gen, uint32_t bar_off)
{
	switch (rsh_sim_reg_decode(gen, bar_off & ~7u)) {
	case RSH_SIM_REG_BOOT_FIFO_DATA:
	case RSH_SIM_REG_HTT_DATA:
	case RSH_SIM_REG_TTH_DATA:
	case RSH_SIM_REG_SCRATCH_BUF_DAT:
	case RSH_SIM_REG_SEMAPHORE0:
	case RSH_SIM_REG_MEM_ACC_CTL:
		return true;
	default:
		return false;
	}
}
