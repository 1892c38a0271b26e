/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One pass of the poll loop: take and step the queued commands, then run
 * every attached device's services from its table (rsh_svc.h), skipping
 * those its flags keep off a dropped device or a firmware reset. Runs on
 * the loop's thread, or on a waiter's for a threadless poller.
 */
#include <string.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "rsh_cmd.h"
#include "rsh_tmfifo_priv.h"
#include "rsh_poll_priv.h"

/* True when an earlier active command works on the same device. */
static bool
rsh_poller_dev_busy(const struct rsh_poller *p, unsigned int i)
{
	unsigned int j;

	for (j = 0; j < i; j++)
		if (p->active[j]->dev == p->active[i]->dev)
			return true;
	return false;
}

/*
 * Take new commands and step the due ones; one device's commands run in
 * arrival order, one at a time. Lowers *sleep_ns to the next due step.
 */
static unsigned int
rsh_poller_cmds(struct rsh_poller *p, uint64_t now, uint64_t *sleep_ns)
{
	unsigned int i = 0, work = 0;
	void *obj;

	while (p->n_active < RSH_POLLER_MAX_ACTIVE &&
	       rte_ring_sc_dequeue(p->cmds, &obj) == 0)
		p->active[p->n_active++] = obj;
	while (i < p->n_active) {
		struct rsh_cmd *c = p->active[i];
		/* An abandoned command goes at once (it does not wait its
		 * turn or its wake-up); rsh_cmd_turn drops it. */
		bool gone = __atomic_load_n(&c->st, __ATOMIC_RELAXED) ==
			    RSH_CMD_ST_ABANDONED;

		if (!gone && (rsh_poller_dev_busy(p, i) || c->wake_at > now)) {
			if (c->wake_at > now)
				*sleep_ns = RTE_MIN(*sleep_ns,
						   rsh_cyc_ns(c->wake_at - now));
			i++;
			continue;
		}
		work++;
		if (!rsh_cmd_turn(c, now)) {
			i++;
			continue;
		}
		memmove(&p->active[i], &p->active[i + 1],
			(p->n_active - i - 1) * sizeof(p->active[0]));
		p->n_active--;
	}
	return work;
}

/* Run the services of one device. */
static unsigned int
rsh_poller_dev(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns)
{
	bool fw_reset = false;
	unsigned int s, work = 0;

	for (s = 0; s < dev->n_svcs; s++) {
		const struct rsh_svc *svc = dev->svcs[s];

		/* Drop mode: the device is another driver's; only the
		 * ownership service looks at it (§6.4). */
		if (!(svc->flags & RSH_SVC_F_RUNS_DROPPED) &&
		    rsh_own_dropped(rsh_dev_own(dev)))
			continue;
		/* A NIC-firmware reset in progress: hands off (§6.7). */
		if ((svc->flags & RSH_SVC_F_FW_RESET_PAUSE) &&
		    (fw_reset || (fw_reset = rsh_hk_blocked(dev, now))))
			continue;
		work += svc->poll(dev, now, sleep_ns);
	}
	return work;
}

/* Account the gap since the previous pass (single writer: the loop). */
static void
rsh_poller_note_pass(struct rsh_poller *p, uint64_t now)
{
	uint64_t gap = p->last_pass != 0 ? rsh_cyc_ns(now - p->last_pass) : 0;

	p->last_pass = now;
	__atomic_store_n(&p->st.last_pass_tsc, now, __ATOMIC_RELAXED);
	__atomic_store_n(&p->st.passes, p->st.passes + 1, __ATOMIC_RELAXED);
	if (gap > p->st.gap_max_ns)
		__atomic_store_n(&p->st.gap_max_ns, gap, __ATOMIC_RELAXED);
	__atomic_store_n(&p->st.gap_sum_ns, p->st.gap_sum_ns + gap, __ATOMIC_RELAXED);
}

/* One pass: commands, then every device; lowers *sleep_ns. */
unsigned int
rsh_poller_pass(struct rsh_poller *p, uint64_t *sleep_ns)
{
	uint64_t now = rsh_now();
	unsigned int i, work;
	bool tmf = false;

	rsh_poller_note_pass(p, now);
	work = rsh_poller_cmds(p, now, sleep_ns);
	for (i = 0; i < p->n_devs; i++) {
		work += rsh_poller_dev(p->devs[i], now, sleep_ns);
		tmf |= rsh_dev_tmfifo_state(p->devs[i])->t != NULL;
	}
	p->has_tmfifo = tmf;
	return work;
}

/* Run one pass from the caller's thread (tests drive the engine so). */
unsigned int
rsh_poller_run_once(struct rsh_poller *p)
{
	uint64_t sleep_ns = UINT64_MAX;

	return rsh_poller_pass(p, &sleep_ns);
}
