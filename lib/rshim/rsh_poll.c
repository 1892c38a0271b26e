/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll engine: one loop that owns the hardware of its devices. It
 * round-robins the boot FIFO refill and the TM FIFO channels of every
 * attached device, spins while data moves and backs off when idle
 * (doc/architecture.md). No locks on this path.
 *
 * This file: the poller object (create, attach/detach, the command
 * ring, stats, destroy). One pass over commands and services is
 * rsh_poll_pass.c, the loop thread rsh_poll_loop.c, the threadless
 * pollers rsh_poll_drive.c; the struct is in rsh_poll_priv.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_ring.h>

#include "rsh_cmd.h"
#include "rsh_log.h"
#include "rsh_poll_priv.h"

/* Defaults of the poll policy. */
void
rsh_poll_opts_default(struct rsh_poll_opts *o)
{
	o->busy_poll = false;
	o->idle_spin_us = 200;
	o->max_sleep_us = RSH_POLL_MAX_SLEEP_US_DEFAULT;
	o->tmfifo_sleep_us = RSH_POLL_TMFIFO_SLEEP_US_DEFAULT;
	o->no_rt_boost = false;
	o->rt_cap_pct = RSH_POLL_RT_CAP_DEFAULT;
}

/* Create a poller. */
int
rsh_poller_create(const struct rsh_poll_opts *opts, struct rsh_poller **out)
{
	static uint32_t seq;
	struct rsh_poller *p = calloc(1, sizeof(*p));
	char name[RTE_RING_NAMESIZE];

	if (p == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "rsh_cmd%u",
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	p->cmds = rte_ring_create(name, RSH_POLLER_CMD_RING, SOCKET_ID_ANY,
				  RING_F_SC_DEQ);
	if (p->cmds == NULL) {
		free(p);
		rsh_err_set("cannot create the poller's command ring: %s (give EAL more memory with -m)",
			    rte_strerror(rte_errno));
		return -ENOMEM;
	}
	pthread_mutex_init(&p->cmd_lock, NULL);
	if (opts != NULL)
		p->opts = *opts;
	else
		rsh_poll_opts_default(&p->opts);
	if (p->opts.max_sleep_us == 0)
		p->opts.max_sleep_us = RSH_POLL_MAX_SLEEP_US_DEFAULT;
	if (p->opts.tmfifo_sleep_us == 0)
		p->opts.tmfifo_sleep_us = RSH_POLL_TMFIFO_SLEEP_US_DEFAULT;
	p->lcore = RTE_MAX_LCORE;
	p->oversleep_ns = RSH_POLL_OVERSLEEP_INIT_NS;
	*out = p;
	return 0;
}

/* Attach and detach: the poller the device joins or leaves. */
struct rsh_poller_cmd {
	struct rsh_cmd c;
	struct rsh_poller *p;
};

/* Command step: put dev in the loop's device list. */
static int
rsh_poller_add_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_poller *p = container_of(c, struct rsh_poller_cmd, c)->p;

	RTE_SET_USED(now);
	if (p->n_devs == RSH_POLLER_MAX_DEVS) {
		rsh_err_set("%s: the poller already serves %u devices; start another poller",
			    c->dev->name, RSH_POLLER_MAX_DEVS);
		return rsh_cmd_finish(c, -ENOSPC);
	}
	p->devs[p->n_devs++] = c->dev;
	return rsh_cmd_finish(c, 0);
}

static const struct rsh_cmd_type rsh_poller_add_type = {
	.name = "poller attach", .step = rsh_poller_add_step, .run_ms = 1000,
};

/* Attach a device, also while the loop runs. */
int
rsh_poller_add(struct rsh_poller *p, struct rsh_dev *dev)
{
	struct rsh_poller_cmd a = { .p = p };
	int rc;

	if (dev->poller != NULL)
		return -EBUSY;
	rc = rsh_cmd_call_on(p, &rsh_poller_add_type, dev, &a.c, &a, sizeof(a));
	if (rc == 0)
		dev->poller = p;
	return rc;
}

/* Command step: stop dev's services and drop it from the device list. */
static int
rsh_poller_remove_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_poller *p = container_of(c, struct rsh_poller_cmd, c)->p;
	unsigned int i;

	RTE_SET_USED(now);
	for (i = 0; i < p->n_devs; i++)
		if (p->devs[i] == c->dev)
			break;
	if (i == p->n_devs)
		return rsh_cmd_finish(c, -ENOENT);
	rsh_dev_svc_stop(c->dev);
	memmove(&p->devs[i], &p->devs[i + 1], (p->n_devs - i - 1) * sizeof(p->devs[0]));
	p->n_devs--;
	return rsh_cmd_finish(c, 0);
}

static const struct rsh_cmd_type rsh_poller_remove_type = {
	.name = "poller detach", .step = rsh_poller_remove_step, .run_ms = 1000,
};

/* Detach a device, also while the loop runs. */
int
rsh_poller_remove(struct rsh_poller *p, struct rsh_dev *dev)
{
	struct rsh_poller_cmd d = { .p = p };
	int rc;

	if (dev->poller != p)
		return -ENOENT;
	rc = rsh_cmd_call_on(p, &rsh_poller_remove_type, dev, &d.c, &d, sizeof(d));
	/* -ETIMEDOUT: the command never ran, the loop still serves dev. */
	if (rc != -ETIMEDOUT)
		dev->poller = NULL;
	return rc;
}

/* Queue a command for the loop; false when the loop does not run. */
bool
rsh_poller_submit(struct rsh_poller *p, struct rsh_cmd *c)
{
	bool queued = false;

	pthread_mutex_lock(&p->cmd_lock);
	/* The ring holds more than callers can have waiting: a full ring
	 * means a wedged loop, and the caller then runs the command. */
	if (p->accepting)
		queued = rte_ring_mp_enqueue(p->cmds, c) == 0;
	pthread_mutex_unlock(&p->cmd_lock);
	if (queued)
		rsh_poller_kick(p);
	return queued;
}

/*
 * CPU time of the loop's thread, ns: its clock while it runs, else what
 * it had used when it last ended (0 before it ran, 0 without a thread).
 * A thread that ends between the check and the read makes its clock
 * invalid (EINVAL): the value it left is used then.
 */
uint64_t
rsh_poller_get_cpu_ns(const struct rsh_poller *p)
{
	uint64_t ns;

	if (__atomic_load_n(&p->thread_set, __ATOMIC_ACQUIRE) && p->cpu_clock_ok &&
	    rsh_poller_clock_ns(p->cpu_clock, &ns) == 0)
		return ns;
	return __atomic_load_n(&p->cpu_ns_end, __ATOMIC_RELAXED);
}

/* Pass counters of the loop (any thread, relaxed loads; no system call). */
void
rsh_poller_get_stats(const struct rsh_poller *p, struct rsh_poller_stats *st)
{
	st->passes = __atomic_load_n(&p->st.passes, __ATOMIC_RELAXED);
	st->gap_max_ns = __atomic_load_n(&p->st.gap_max_ns, __ATOMIC_RELAXED);
	st->gap_sum_ns = __atomic_load_n(&p->st.gap_sum_ns, __ATOMIC_RELAXED);
	st->last_pass_tsc = __atomic_load_n(&p->st.last_pass_tsc, __ATOMIC_RELAXED);
	st->naps = __atomic_load_n(&p->st.naps, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < RSH_POLL_LATE_BUCKETS; i++)
		st->nap_late[i] = __atomic_load_n(&p->st.nap_late[i], __ATOMIC_RELAXED);
	st->nap_late_max_ns = __atomic_load_n(&p->st.nap_late_max_ns, __ATOMIC_RELAXED);
	st->rt_raises = __atomic_load_n(&p->st.rt_raises, __ATOMIC_RELAXED);
	st->rt_capped = __atomic_load_n(&p->st.rt_capped, __ATOMIC_RELAXED);
	st->rt_yield_ns = __atomic_load_n(&p->st.rt_yield_ns, __ATOMIC_RELAXED);
}

/* Open or close the command ring to submitters. */
void
rsh_poller_accept(struct rsh_poller *p, bool on)
{
	pthread_mutex_lock(&p->cmd_lock);
	p->accepting = on;
	pthread_mutex_unlock(&p->cmd_lock);
}

/*
 * After the loop returned: the calling thread owns the devices now, so it
 * runs the commands still in progress or queued to completion (and drops
 * those their callers abandoned).
 */
void
rsh_poller_drain_cmds(struct rsh_poller *p)
{
	unsigned int i;
	void *obj;

	for (i = 0; i < p->n_active; i++)
		rsh_cmd_run_inline(p->active[i]);
	p->n_active = 0;
	while (rte_ring_sc_dequeue(p->cmds, &obj) == 0)
		rsh_cmd_run_inline(obj);
}

/* Public form of rsh_dev_kick for users of the raw channel rings. */
void
rsh_dev_notify(struct rsh_dev *dev)
{
	rsh_dev_kick(dev);
}

/* Stop, detach devices, free. */
void
rsh_poller_destroy(struct rsh_poller *p)
{
	unsigned int i;

	if (p == NULL)
		return;
	rsh_poller_stop(p);
	rsh_poller_drain_cmds(p);
	for (i = 0; i < p->n_devs; i++) {
		rsh_dev_svc_stop(p->devs[i]);
		p->devs[i]->poller = NULL;
	}
	rte_ring_free(p->cmds);
	pthread_mutex_destroy(&p->cmd_lock);
	free(p);
}

/* True while the loop runs (control path). */
bool
rsh_poller_running(const struct rsh_poller *p)
{
	return p->started;
}
