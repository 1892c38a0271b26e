/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * profile=install[/N]: the boot-ROM consumer drains the stream the way a
 * whole BlueField install does, so a benchmark can compare host policies
 * over the time that matters to users, stalls included.
 *
 * The shape (phases and rates are the emulator's choice, not measured on
 * a BlueField; they follow hardware-notes §3.9 and §3.5):
 *   1. BL2, BL31 and UEFI read their images fast: 8 MiB at 100 MB/s;
 *   2. a 30 s stall: DDR training or a NIC-firmware capsule in UEFI,
 *      which make streaming very slow (rshim-user-space PR #110);
 *   3. kernel and initramfs into DDR: 64 MiB at 50 MB/s;
 *   4. a 40 s stall: Linux boots, the installer starts and partitions;
 *   5. the root file system through the installer to eMMC: 824 MiB at
 *      2 MB/s, with two 10 s stalls (flushes, verification).
 * 896 MiB in about 520 s, near the 896 MiB in 9:12 (1.62 MiB/s on
 * average) of bfb-install's example output (rshim-user-space PR #40);
 * stalls of 100-200 s also happen (§3.5) and are left to stall=.
 *
 * /N compresses the install N times for tests and benchmarks: every
 * phase's bytes and every stall are divided by N, the rates are kept, so
 * a host policy meets the same FIFO behaviour for 1/N of the time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rsh_sim_priv.h"

#define RSH_SIM_MIB (1ull << 20)
#define RSH_SIM_SEC 1000000000ull

/* One stall of the profile and the rate the consumer reads at after it. */
static const struct rsh_sim_phase {
	uint64_t at;       /* stream offset, bytes (full size) */
	uint64_t stall_ns; /* full length */
	uint64_t bps;      /* drain rate after the stall */
} rsh_sim_install[] = {
	{ 8 * RSH_SIM_MIB, 30 * RSH_SIM_SEC, 50000000 },
	{ 72 * RSH_SIM_MIB, 40 * RSH_SIM_SEC, 2000000 },
	{ 328 * RSH_SIM_MIB, 10 * RSH_SIM_SEC, 2000000 },
	{ 584 * RSH_SIM_MIB, 10 * RSH_SIM_SEC, 2000000 },
};
#define RSH_SIM_INSTALL_BPS0 100000000ull /* BL2, BL31, UEFI */

/* Parse "install" or "install/N" (N 1-10000) into cfg: stalls and rates. */
int
rsh_sim_profile_set(struct rsh_sim_cfg *cfg, const char *v)
{
	unsigned long n = 1;
	unsigned int i;
	char *end;

	if (strncmp(v, "install", 7) != 0 || cfg->n_stalls != 0)
		return -EINVAL;
	if (v[7] == '/') {
		if (v[8] < '1' || v[8] > '9')
			return -EINVAL;
		n = strtoul(v + 8, &end, 10);
		if (*end != '\0' || n > 10000)
			return -EINVAL;
	} else if (v[7] != '\0') {
		return -EINVAL;
	}
	RTE_BUILD_BUG_ON(RTE_DIM(rsh_sim_install) > RSH_SIM_STALLS_MAX);
	cfg->prof_scale = (unsigned int)n;
	cfg->prof_bps[0] = RSH_SIM_INSTALL_BPS0;
	for (i = 0; i < RTE_DIM(rsh_sim_install); i++) {
		cfg->stall[i].offset = (rsh_sim_install[i].at / n) & ~7ull;
		cfg->stall[i].dur_ns = rsh_sim_install[i].stall_ns / n;
		cfg->prof_bps[i + 1] = rsh_sim_install[i].bps;
	}
	cfg->n_stalls = i;
	cfg->drain_bps = cfg->prof_bps[0];
	return 0;
}

/* Drain at the rate of the phase that follows n_fired stalls. */
void
rsh_sim_profile_phase(struct rsh_sim *sim, unsigned int n_fired)
{
	if (sim->cfg.prof_scale != 0 && n_fired <= sim->cfg.n_stalls)
		sim->cfg.drain_bps = sim->cfg.prof_bps[n_fired];
}
