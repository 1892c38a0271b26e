/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulator's counters and kept boot-stream bytes, read by tests, the
 * benchmarks and rshim-sim-pci from any thread (relaxed or acquire loads of
 * what the device model writes).
 */
#include <string.h>

#include "rsh_sim_priv.h"

#define RSH_SIM_LD(f) (st->f = __atomic_load_n(&sim->st.f, __ATOMIC_RELAXED))

/* Copy the counters (relaxed loads; any thread). */
int
rsh_sim_stats_get(const struct rsh_backend *be, struct rsh_sim_stats *st)
{
	const struct rsh_sim *sim = rsh_sim_cast(be);

	if (sim == NULL || st == NULL)
		return -EINVAL;
	RSH_SIM_LD(consumed_bytes); RSH_SIM_LD(hash);
	RSH_SIM_LD(boot_overflows); RSH_SIM_LD(htt_overflows);
	RSH_SIM_LD(boot_empty_ns); RSH_SIM_LD(boot_first_ns); RSH_SIM_LD(boot_last_ns);
	RSH_SIM_LD(tth_empty_reads); RSH_SIM_LD(bad_accesses);
	RSH_SIM_LD(reset_reads); RSH_SIM_LD(ignored_writes);
	RSH_SIM_LD(images_ok); RSH_SIM_LD(images_bad);
	RSH_SIM_LD(trailing_bytes); RSH_SIM_LD(error_bytes);
	RSH_SIM_LD(resets); RSH_SIM_LD(wdog_writes); RSH_SIM_LD(wdog_last);
	RSH_SIM_LD(boot_control); RSH_SIM_LD(log_records);
	RSH_SIM_LD(log_dropped); RSH_SIM_LD(stalls); RSH_SIM_LD(progress);
	RSH_SIM_LD(booted); RSH_SIM_LD(stream_error); RSH_SIM_LD(gone);
	RSH_SIM_LD(arm_resets); RSH_SIM_LD(tm_bytes); RSH_SIM_LD(bmc_keepalives);
	RSH_SIM_LD(bmc_acks); RSH_SIM_LD(bmc_requests); RSH_SIM_LD(sp1_blocked);
	RSH_SIM_LD(rst_requests); RSH_SIM_LD(rst_done);
	RSH_SIM_LD(crash_records); RSH_SIM_LD(bootfifo_bytes);
	RSH_SIM_LD(host_boot_words);
	RSH_SIM_LD(host_count_reads);
	RSH_SIM_LD(upgrades);
	RSH_SIM_LD(bmc_mode); RSH_SIM_LD(locked);
	RSH_SIM_LD(lf_cfg_reads); RSH_SIM_LD(lf_cfg_writes); RSH_SIM_LD(lf_gw_ops);
	RSH_SIM_LD(lf_violations); RSH_SIM_LD(lf_early); RSH_SIM_LD(lf_bar_refused);
	return 0;
}

/* Copy kept trailing bytes from their start (acquire pairs with the
 * release in the boot-ROM model). */
size_t
rsh_sim_bootfifo_read(const struct rsh_backend *be, void *buf, size_t len)
{
	const struct rsh_sim *sim = rsh_sim_cast(be);
	uint32_t have;

	if (sim == NULL)
		return 0;
	have = __atomic_load_n(&sim->keep_len, __ATOMIC_ACQUIRE);
	len = RTE_MIN(len, (size_t)have);
	memcpy(buf, sim->keep, len);
	return len;
}
