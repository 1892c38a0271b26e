/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Extended statistics of a device (rsh_dev_xstats_get_names/_get, as
 * DPDK's rte_eth_xstats): the core's MMIO counters, then the counters of
 * each backend of the device, top first (a livefish gateway, then the
 * function under it), each through its optional ops. Names and values
 * come in the same order, so a value's id is its name's index.
 */
#include <string.h>

#include "rsh_dev_priv.h"

static const char *const rsh_xstats_core[] = { "mmio_reads", "mmio_writes" };

#define RSH_XSTATS_N_CORE ((unsigned int)RTE_DIM(rsh_xstats_core))

/* How many statistics the device has; negative errno from a backend. */
static int
rsh_dev_xstats_count(const struct rsh_dev *dev)
{
	const struct rsh_backend *be;
	int total = (int)RSH_XSTATS_N_CORE, k;

	for (be = dev->be; be != NULL; be = be->lower) {
		if (be->ops->xstats_get_names == NULL)
			continue;
		k = be->ops->xstats_get_names(be, NULL, 0);
		if (k < 0)
			return k;
		total += k;
	}
	return total;
}

/* Names: the core's, then each backend's from the top of the stack. */
int
rsh_dev_xstats_get_names(const struct rsh_dev *dev,
			 struct rsh_xstat_name *names, unsigned int n)
{
	int total = rsh_dev_xstats_count(dev), k;
	const struct rsh_backend *be;
	unsigned int i = 0;

	if (total < 0 || names == NULL || n < (unsigned int)total)
		return total;
	for (; i < RSH_XSTATS_N_CORE; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s", rsh_xstats_core[i]);
	for (be = dev->be; be != NULL; be = be->lower) {
		if (be->ops->xstats_get_names == NULL)
			continue;
		k = be->ops->xstats_get_names(be, names + i, n - i);
		if (k < 0)
			return k;
		i += (unsigned int)k;
	}
	return total;
}

/* Fill xs with the total values: the core's, then each backend's. */
static int
rsh_dev_xstats_fill(const struct rsh_dev *dev, struct rsh_xstat *xs, unsigned int total)
{
	uint64_t v[total]; /* a fixed, small number: the backends' counters */
	unsigned int i, have = RSH_XSTATS_N_CORE;
	const struct rsh_backend *be;
	struct rsh_mmio_stats m;
	int k;

	for (be = dev->be; be != NULL; be = be->lower) {
		if (be->ops->xstats_get == NULL)
			continue;
		k = be->ops->xstats_get(be, v + have, total - have);
		if (k < 0)
			return k;
		/* More values than this backend has names: refuse before the
		 * next backend is handed room that is not there. */
		if ((unsigned int)k > total - have)
			return -EIO;
		have += (unsigned int)k;
	}
	/* A backend whose values and names disagree in number would shift
	 * every later id onto the wrong name: refuse rather than mislabel. */
	if (have != total)
		return -EIO;
	rsh_dev_get_stats(dev, &m);
	v[0] = m.reads;
	v[1] = m.writes;
	for (i = 0; i < have; i++)
		xs[i] = (struct rsh_xstat){ .id = i, .value = v[i] };
	return (int)have;
}

/* Values, id = index of the name. */
int
rsh_dev_xstats_get(const struct rsh_dev *dev, struct rsh_xstat *xs, unsigned int n)
{
	int total = rsh_dev_xstats_count(dev);

	if (total < 0 || xs == NULL || n < (unsigned int)total)
		return total;
	return rsh_dev_xstats_fill(dev, xs, (unsigned int)total);
}
