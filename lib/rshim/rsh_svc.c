/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service table (rsh_svc.h) and the per-device states it describes:
 * allocated, initialised, stopped and freed from the table, so a new
 * service needs nothing here but its row in RSH_SVC_TABLE.
 */
#include <errno.h>
#include <assert.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#include <rte_common.h>

#include "rsh_dev_priv.h"

#define RSH_SVC_ROW_(id, desc) [RSH_SVC_##id] = &desc,
const struct rsh_svc *const rsh_svcs[RSH_SVC_COUNT] = {
	RSH_SVC_TABLE(RSH_SVC_ROW_)
};
#undef RSH_SVC_ROW_

static_assert(RSH_SVC_COUNT <= RSH_SVC_MAX, "raise RSH_SVC_MAX");

/* The table devices take at open (tests may swap it). */
static const struct rsh_svc *const *rsh_svc_tab = rsh_svcs;
static unsigned int rsh_svc_n = RSH_SVC_COUNT;

int
rsh_svc_table_set(const struct rsh_svc *const *tab, unsigned int n)
{
	if (tab == NULL) {
		tab = rsh_svcs;
		n = RSH_SVC_COUNT;
	}
	if (n > RSH_SVC_MAX || n < RSH_SVC_COUNT)
		return -EINVAL;
	/* The core reaches every table service's state by its id (the loop,
	 * rsh_dev.c, the console and net calls): those rows stay. */
	for (unsigned int i = 0; i < RSH_SVC_COUNT; i++)
		if (tab[i] != rsh_svcs[i])
			return -EINVAL;
	rsh_svc_tab = tab;
	rsh_svc_n = n;
	return 0;
}

/* A state's size rounded up so the next one stays aligned for any type. */
static size_t
rsh_svc_slot(const struct rsh_svc *s)
{
	return RTE_ALIGN_CEIL(s->state_size, alignof(max_align_t));
}

/* One zeroed allocation for every service's state of dev. */
int
rsh_dev_svc_alloc(struct rsh_dev *dev)
{
	size_t total = 0, off = 0;
	unsigned int i;
	char *mem;

	dev->svcs = rsh_svc_tab;
	dev->n_svcs = rsh_svc_n;
	for (i = 0; i < dev->n_svcs; i++)
		total += rsh_svc_slot(dev->svcs[i]);
	mem = calloc(1, total > 0 ? total : 1);
	if (mem == NULL)
		return -ENOMEM;
	dev->svc_mem = mem;
	for (i = 0; i < dev->n_svcs; i++) {
		dev->svc_state[i] = dev->svcs[i]->state_size > 0 ? mem + off : NULL;
		off += rsh_svc_slot(dev->svcs[i]);
	}
	return 0;
}

/* Undo the inits of the first n services, last first. */
static void
rsh_dev_svc_fini_n(struct rsh_dev *dev, unsigned int n)
{
	while (n-- > 0)
		if (dev->svcs[n]->fini != NULL)
			dev->svcs[n]->fini(dev);
}

/* Every service's init, in table order; a failure undoes the earlier. */
int
rsh_dev_svc_init(struct rsh_dev *dev, const struct rsh_open_opts *opts)
{
	unsigned int i;
	int rc;

	for (i = 0; i < dev->n_svcs; i++) {
		if (dev->svcs[i]->init == NULL)
			continue;
		rc = dev->svcs[i]->init(dev, opts);
		if (rc < 0) {
			rsh_dev_svc_fini_n(dev, i);
			return rc;
		}
	}
	return 0;
}

/* Every service's stop step, last first (the device's owning thread). */
void
rsh_dev_svc_stop(struct rsh_dev *dev)
{
	unsigned int i;

	for (i = dev->n_svcs; i-- > 0;)
		if (dev->svcs[i]->stop != NULL)
			dev->svcs[i]->stop(dev);
}

void
rsh_dev_svc_fini(struct rsh_dev *dev)
{
	rsh_dev_svc_fini_n(dev, dev->n_svcs);
}

void
rsh_dev_svc_free(struct rsh_dev *dev)
{
	unsigned int i;

	free(dev->svc_mem);
	dev->svc_mem = NULL;
	for (i = 0; i < RSH_SVC_MAX; i++)
		dev->svc_state[i] = NULL;
	dev->n_svcs = 0;
}
