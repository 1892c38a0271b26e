/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The benchmarks' counters by name, through the public extended
 * statistics (the emulator's cost model and boot-ROM counters, the MMIO
 * counts), and the boot FIFO geometry a credit-based push assumes.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "rsh_bench_ref.h"
#include "rsh_regs.h"

/* Room for the values of one read, far above what a device has (the
 * emulator: about 60); a read is on the reference model's clock path, so
 * it asks the library once, into this. */
#define RSH_BENCH_XSTATS_MAX 128u

/* Look names up in the device's list of total statistics. */
static int
rsh_bench_xstats_find(const struct rsh_dev *dev, int total, const char *const *names,
		      int *ids, unsigned int n)
{
	struct rsh_xstat_name all[total];
	int found = 0;

	if (rsh_dev_xstats_get_names(dev, all, (unsigned int)total) != total)
		return -EAGAIN; /* cannot happen: the list is fixed while open */
	for (unsigned int i = 0; i < n; i++)
		for (int k = 0; k < total && ids[i] < 0; k++)
			if (strcmp(all[k].name, names[i]) == 0) {
				ids[i] = k;
				found++;
			}
	return found;
}

/* Resolve names to ids (-1: absent). */
int
rsh_bench_xstats_ids(const struct rsh_dev *dev, const char *const *names,
		     int *ids, unsigned int n)
{
	int total = rsh_dev_xstats_get_names(dev, NULL, 0);

	for (unsigned int i = 0; i < n; i++)
		ids[i] = -1;
	if (total <= 0)
		return total;
	return rsh_bench_xstats_find(dev, total, names, ids, n);
}

/* Values of resolved ids. */
int
rsh_bench_xstats_read(const struct rsh_dev *dev, const int *ids,
		      uint64_t *vals, unsigned int n)
{
	struct rsh_xstat all[RSH_BENCH_XSTATS_MAX];
	int total = rsh_dev_xstats_get(dev, all, RTE_DIM(all));

	for (unsigned int i = 0; i < n; i++)
		vals[i] = 0;
	if (total < 0)
		return total;
	if (total > (int)RTE_DIM(all))
		return -ENOSPC;
	for (unsigned int i = 0; i < n; i++)
		if (ids[i] >= 0 && ids[i] < total)
			vals[i] = all[ids[i]].value;
	return 0;
}

/* Resolve and read. */
int
rsh_bench_xstats_by_name(const struct rsh_dev *dev, const char *const *names,
			 uint64_t *vals, unsigned int n)
{
	int ids[n];
	int found = rsh_bench_xstats_ids(dev, names, ids, n);
	int rc = rsh_bench_xstats_read(dev, ids, vals, n);

	return found < 0 ? found : rc < 0 ? rc : found;
}

/* Words per status read: the assumed depth less the reserve. */
unsigned int
rsh_bench_boot_credit(enum rsh_gen gen)
{
	return rsh_boot_fifo_depth(gen) - RSH_BOOT_FIFO_RESERVE;
}
