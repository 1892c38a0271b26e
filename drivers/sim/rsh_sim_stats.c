/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulator's counters and kept boot-stream bytes, read by tests, the
 * benchmarks and rshim-sim-pci from any thread (relaxed or acquire loads of
 * what the device model writes).
 */
#include <stddef.h>
#include <stdio.h>
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

/* One counter of struct rsh_sim_stats as an extended statistic. */
struct rsh_sim_xstat {
	const char *name;
	uint16_t off;
	uint8_t size; /* 8: uint64_t; 1: uint8_t or bool */
};

#define RSH_SIM_XS(f) { "sim_" #f, offsetof(struct rsh_sim_stats, f), \
			sizeof(((struct rsh_sim_stats *)0)->f) }

static const struct rsh_sim_xstat rsh_sim_xstats[] = {
	RSH_SIM_XS(consumed_bytes), RSH_SIM_XS(hash), RSH_SIM_XS(boot_overflows),
	RSH_SIM_XS(boot_empty_ns), RSH_SIM_XS(boot_first_ns), RSH_SIM_XS(boot_last_ns),
	RSH_SIM_XS(htt_overflows), RSH_SIM_XS(tth_empty_reads), RSH_SIM_XS(bad_accesses),
	RSH_SIM_XS(reset_reads), RSH_SIM_XS(ignored_writes), RSH_SIM_XS(images_ok),
	RSH_SIM_XS(images_bad), RSH_SIM_XS(trailing_bytes), RSH_SIM_XS(error_bytes),
	RSH_SIM_XS(resets), RSH_SIM_XS(wdog_writes), RSH_SIM_XS(wdog_last),
	RSH_SIM_XS(boot_control), RSH_SIM_XS(log_records), RSH_SIM_XS(log_dropped),
	RSH_SIM_XS(stalls), RSH_SIM_XS(progress), RSH_SIM_XS(booted),
	RSH_SIM_XS(stream_error), RSH_SIM_XS(gone), RSH_SIM_XS(arm_resets),
	RSH_SIM_XS(tm_bytes), RSH_SIM_XS(bmc_keepalives), RSH_SIM_XS(bmc_acks),
	RSH_SIM_XS(bmc_requests), RSH_SIM_XS(sp1_blocked), RSH_SIM_XS(rst_requests),
	RSH_SIM_XS(rst_done), RSH_SIM_XS(crash_records), RSH_SIM_XS(bootfifo_bytes),
	RSH_SIM_XS(host_boot_words), RSH_SIM_XS(host_count_reads), RSH_SIM_XS(upgrades),
	RSH_SIM_XS(bmc_mode), RSH_SIM_XS(locked), RSH_SIM_XS(lf_cfg_reads),
	RSH_SIM_XS(lf_cfg_writes), RSH_SIM_XS(lf_gw_ops), RSH_SIM_XS(lf_violations),
	RSH_SIM_XS(lf_early), RSH_SIM_XS(lf_bar_refused),
};

/* The cost model's counters (rsh_sim_cost_get), after the stats. */
static const char *const rsh_sim_cost_xstats[] = {
	"sim_cost_enabled", "sim_cost_rd_ns", "sim_cost_wr_ns",
	"sim_cost_charged_ns", "sim_cost_emu_ns", "sim_cost_bf1_drain_reads",
};

#define RSH_SIM_N_XSTATS (RTE_DIM(rsh_sim_xstats) + RTE_DIM(rsh_sim_cost_xstats))

/* ops: the names of the counters (rsh_dev_xstats_get_names). */
int
rsh_sim_xstats_get_names(const struct rsh_backend *be,
			 struct rsh_xstat_name *names, unsigned int n)
{
	unsigned int i, k = RTE_DIM(rsh_sim_xstats);

	RTE_SET_USED(be);
	if (names == NULL || n < RSH_SIM_N_XSTATS)
		return RSH_SIM_N_XSTATS;
	for (i = 0; i < k; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s", rsh_sim_xstats[i].name);
	for (i = 0; i < RTE_DIM(rsh_sim_cost_xstats); i++)
		snprintf(names[k + i].name, sizeof(names[k + i].name), "%s",
			 rsh_sim_cost_xstats[i]);
	return RSH_SIM_N_XSTATS;
}

/* ops: their values, in the same order (relaxed loads; any thread). */
int
rsh_sim_xstats_get(const struct rsh_backend *be, uint64_t *v, unsigned int n)
{
	const struct rsh_sim *sim = rsh_sim_cast(be);
	const struct rsh_sim_xstat *x;
	struct rsh_sim_cost_stats cs;
	unsigned int i;

	if (sim == NULL)
		return -EINVAL;
	if (v == NULL || n < RSH_SIM_N_XSTATS)
		return RSH_SIM_N_XSTATS;
	for (i = 0; i < RTE_DIM(rsh_sim_xstats); i++) {
		x = &rsh_sim_xstats[i];
		if (x->size == sizeof(uint64_t))
			v[i] = __atomic_load_n((const uint64_t *)((const char *)&sim->st + x->off),
					       __ATOMIC_RELAXED);
		else
			v[i] = __atomic_load_n((const uint8_t *)((const char *)&sim->st + x->off),
					       __ATOMIC_RELAXED);
	}
	rsh_sim_cost_get(be, &cs);
	v[i++] = cs.enabled;
	v[i++] = cs.rd_ns;
	v[i++] = cs.wr_ns;
	v[i++] = cs.charged_ns;
	v[i++] = cs.emu_ns;
	v[i++] = cs.bf1_drain_reads;
	return RSH_SIM_N_XSTATS;
}
