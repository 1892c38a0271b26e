/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MEM_ACC widget model (hardware-notes §1.6): a write of MEM_ACC_CTL with
 * SEND (bit 63) set performs one access of 4 or 8 bytes at SoC-physical
 * address bits 39:0 and then increments MEM_ACC_RSP_CNT. Writes take the
 * data from MEM_ACC_DATA, reads leave it there. Only the first 4 KiB of the
 * YU block (physical 0x0280_0000) is backed, holding the boot-record OPN at
 * +0xFD8 on BlueField-2 (hardware-notes §1.5); other addresses read 0 and
 * ignore writes. The OPN survives warm resets (never cleared here).
 */
#include <errno.h>
#include <string.h>

#include "rsh_sim.h"
#include "rsh_sim_priv.h"

#define RSH_SIM_MEMACC_SEND (1ull << 63)
#define RSH_SIM_MEMACC_WRITE (1ull << 48)
#define RSH_SIM_MEMACC_SIZE_SHIFT 52
#define RSH_SIM_MEMACC_ADDR_MASK ((1ull << 40) - 1)
#define RSH_SIM_YU_BASE 0x2800000ull
#define RSH_SIM_BF2_OPN_OFF 0xFD8u
#define RSH_SIM_BF2_OPN_DEFAULT "MBF2M516A-CEEOT"

/* Index of the 32-bit word backing phys, or -1 when unmapped/unaligned. */
static int
rsh_sim_memacc_idx(uint64_t phys)
{
	if (phys < RSH_SIM_YU_BASE || (phys & 3) != 0 ||
	    phys - RSH_SIM_YU_BASE >= sizeof(((struct rsh_sim *)0)->yu))
		return -1;
	return (int)((phys - RSH_SIM_YU_BASE) >> 2);
}

/* One 32-bit word of emulated SoC memory (0 when unmapped). */
static uint32_t
rsh_sim_memacc_get(const struct rsh_sim *sim, uint64_t phys)
{
	int i = rsh_sim_memacc_idx(phys);

	return i < 0 ? 0 : sim->yu[i];
}

static void
rsh_sim_memacc_put(struct rsh_sim *sim, uint64_t phys, uint32_t v)
{
	int i = rsh_sim_memacc_idx(phys);

	if (i >= 0)
		sim->yu[i] = v;
}

/* Power-on contents: the BF2 boot record's OPN, first character in the
 * most significant byte of each 32-bit word. */
void
rsh_sim_memacc_init(struct rsh_sim *sim)
{
	static const char opn[16] = RSH_SIM_BF2_OPN_DEFAULT;

	memset(sim->yu, 0, sizeof(sim->yu));
	sim->memacc_stall = false;
	if (sim->cfg.gen != RSH_GEN_BF2)
		return;
	for (unsigned int i = 0; i < sizeof(opn); i += 4) {
		uint32_t w = 0;

		for (unsigned int k = 0; k < 4; k++)
			w = w << 8 | (uint8_t)opn[i + k];
		rsh_sim_memacc_put(sim, RSH_SIM_YU_BASE + RSH_SIM_BF2_OPN_OFF + i, w);
	}
}

/* A write of MEM_ACC_CTL: perform the access and count the response. */
void
rsh_sim_memacc_ctl(struct rsh_sim *sim, uint64_t ctl)
{
	uint64_t *data = rsh_sim_reg(sim, RSH_SIM_REG_MEM_ACC_DATA);
	uint64_t phys = ctl & RSH_SIM_MEMACC_ADDR_MASK;
	bool eight = ((ctl >> RSH_SIM_MEMACC_SIZE_SHIFT) & 7) == 3;

	*rsh_sim_reg(sim, RSH_SIM_REG_MEM_ACC_CTL) = ctl;
	if (!(ctl & RSH_SIM_MEMACC_SEND) ||
	    __atomic_load_n(&sim->memacc_stall, __ATOMIC_ACQUIRE))
		return; /* stalled: no response ever arrives */
	if (ctl & RSH_SIM_MEMACC_WRITE) {
		rsh_sim_memacc_put(sim, phys, (uint32_t)*data);
		if (eight)
			rsh_sim_memacc_put(sim, phys + 4, (uint32_t)(*data >> 32));
	} else {
		*data = rsh_sim_memacc_get(sim, phys);
		if (eight)
			*data |= (uint64_t)rsh_sim_memacc_get(sim, phys + 4) << 32;
	}
	*rsh_sim_reg(sim, RSH_SIM_REG_MEM_ACC_RSP_CNT) += 1;
}

/* Test hook: a stalled widget never answers (the driver must time out). */
int
rsh_sim_memacc_stall(struct rsh_backend *be, bool stall)
{
	struct rsh_sim *sim = rsh_sim_of_mut(be);

	if (sim == NULL)
		return -EINVAL;
	__atomic_store_n(&sim->memacc_stall, stall, __ATOMIC_RELEASE);
	return 0;
}
