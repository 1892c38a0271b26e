/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MMIO cost model of the emulator (cost=1, rd_ns=, wr_ns=).
 *
 * On silicon a host register read is non-posted: the core stalls for a
 * PCIe round trip before the load retires. A write is posted, but an
 * uncached store still occupies the core until the root complex takes
 * it, and uncached stores leave one at a time. The emulator answers
 * both in a few nanoseconds, so without a model a benchmark row says
 * what the emulator's CPU can do, not what one host core on silicon can.
 *
 * The model charges each access in virtual time, without burning a core:
 * the device's clock (what its boot-ROM consumer and ARM side see) runs
 * ahead of the TSC by everything charged so far and behind it by the time
 * the emulator itself ran inside the register ops (that work runs inline
 * in the MMIO thread and does not exist on silicon). A benchmark does the
 * same to its wall time and its CPU time (a core stalled on MMIO is a
 * busy core). The thread doing the MMIO does not see its own
 * charges in the TSC; rate estimates it makes from the TSC are therefore
 * slightly optimistic when MMIO is a large share of its time.
 *
 * Defaults (round numbers inside the published ranges, not measured on a
 * BlueField):
 *   rd_ns=1000  a 64-bit MMIO read from a Xeon core: under 1 us in
 *               Miller et al., "Motivating future interconnects" (ANCS
 *               2009); 2 us and 5.5 us reported on Xeon E3/E5 hosts
 *               (Intel community "How to improve PCIe PIO read
 *               performance"; Stack Overflow "MMIO read/write latency").
 *   wr_ns=100   uncached 8-byte posted writes leave the core one at a
 *               time, 50-300 ns apart on a Xeon (Intel community "Why do
 *               MemReq TLPs take 100s nanoseconds to be generated after
 *               MMIO writes?").
 *
 * BF1 posted-write drain rule (hardware-notes §1.9): BF1 takes at most 15
 * consecutive 8-byte posted writes before a read of another register. The
 * model counts the reads a BF1-correct host has to add to what it issued
 * (one before the 16th, 31st, ... write of a run without a read) and
 * charges them as reads; a benchmark adds them to the reads it reports.
 *
 * Threads: everything here is written by the one thread doing the MMIO;
 * the counters readers see are published with relaxed atomic stores.
 */
#include <errno.h>

#include <rte_cycles.h>

#include "rsh_sim_priv.h"

#define RSH_SIM_BF1_WRITE_RUN 15u /* posted writes between reads, §1.9 */
#define RSH_SIM_EMU_OP_MAX_NS 200000ull /* longer inside an op: preempted */

/* Set up the per-access costs from the options (at probe). */
void
rsh_sim_cost_init(struct rsh_sim *sim)
{
	struct rsh_sim_cost *c = &sim->cost;

	memset(c, 0, sizeof(*c));
	c->op_max_cyc = rsh_sim_ns_to_cyc(sim, RSH_SIM_EMU_OP_MAX_NS);
	if (!sim->cfg.cost_on)
		return;
	c->cfg_cyc = rsh_sim_ns_to_cyc(sim, sim->cfg.cfg_ns);
	c->rd_cyc = rsh_sim_ns_to_cyc(sim, sim->cfg.rd_ns);
	c->wr_cyc = rsh_sim_ns_to_cyc(sim, sim->cfg.wr_ns);
}

/* TSC -> device clock: plus the charged MMIO time, minus the time the
 * emulator itself ran (inline in the MMIO thread: not host time on
 * silicon). Only with the model on: without it the device runs on the
 * TSC. */
static uint64_t
rsh_sim_dev_time(const struct rsh_sim *sim, uint64_t tsc)
{
	const struct rsh_sim_cost *c = &sim->cost;

	if (!sim->cfg.cost_on)
		return tsc;
	return tsc + c->virt_cyc - c->emu_cyc;
}

/* The device's clock now. */
uint64_t
rsh_sim_now(const struct rsh_sim *sim)
{
	return rsh_sim_dev_time(sim, rsh_now());
}

/* Charge cyc cycles of host time (single writer, relaxed publish). */
static void
rsh_sim_cost_charge(struct rsh_sim_cost *c, uint64_t cyc)
{
	if (cyc != 0)
		__atomic_store_n(&c->virt_cyc, c->virt_cyc + cyc, __ATOMIC_RELAXED);
}

/* Reads before write number n of a run that a BF1 host must add. */
static uint64_t
rsh_sim_bf1_forced(uint64_t n)
{
	return n == 0 ? 0 : (n - 1) / RSH_SIM_BF1_WRITE_RUN;
}

/* Entry of a read op of n words: half of its cost passes before the
 * device answers (the request's way there), half at the exit; returns
 * the device time the value is sampled at. */
uint64_t
rsh_sim_cost_read(struct rsh_sim *sim, unsigned int n)
{
	struct rsh_sim_cost *c = &sim->cost;
	uint64_t cyc = (uint64_t)n * c->rd_cyc;

	c->op_t0 = rsh_now();
	c->wr_run = 0;
	rsh_sim_cost_charge(c, cyc / 2);
	c->pend_cyc = cyc - cyc / 2;
	return rsh_sim_dev_time(sim, c->op_t0);
}

/* Entry of a config cycle (livefish): a non-posted access charged like
 * a read, half before the device answers, half at the exit. */
uint64_t
rsh_sim_cost_cfg(struct rsh_sim *sim)
{
	struct rsh_sim_cost *c = &sim->cost;

	c->op_t0 = rsh_now();
	rsh_sim_cost_charge(c, c->cfg_cyc / 2);
	c->pend_cyc = c->cfg_cyc - c->cfg_cyc / 2;
	return rsh_sim_dev_time(sim, c->op_t0);
}

/*
 * Entry of a write op of n words: the words land at the entry time and
 * the cost passes at the exit (words of a burst reach the device one
 * after the other while the core issues them; landing them all at the
 * start keeps a draining consumer fed, landing them at the end would
 * starve it for the whole burst). BF1 drain reads are charged as reads.
 */
uint64_t
rsh_sim_cost_write(struct rsh_sim *sim, unsigned int n)
{
	struct rsh_sim_cost *c = &sim->cost;
	uint64_t forced = 0;

	c->op_t0 = rsh_now();
	if (sim->cfg.gen == RSH_GEN_BF1) {
		forced = rsh_sim_bf1_forced(c->wr_run + n) -
			 rsh_sim_bf1_forced(c->wr_run);
		c->wr_run += n;
		if (forced != 0)
			__atomic_store_n(&c->drain_reads, c->drain_reads + forced,
					 __ATOMIC_RELAXED);
	}
	c->pend_cyc = (uint64_t)n * c->wr_cyc + forced * c->rd_cyc;
	return rsh_sim_dev_time(sim, c->op_t0);
}

/*
 * Exit of an op: the rest of its cost; the time spent inside the
 * emulator. An op's own work takes microseconds (a FIFO's worth of words);
 * anything past RSH_SIM_EMU_OP_MAX_NS is the thread being preempted, which
 * a host on silicon would suffer too: it is not taken off the device's
 * clock. (On a test's virtual clock the emulator takes no time at all.)
 */
void
rsh_sim_cost_leave(struct rsh_sim *sim)
{
	struct rsh_sim_cost *c = &sim->cost;
	uint64_t dt = rsh_now() - c->op_t0;

	rsh_sim_cost_charge(c, c->pend_cyc);
	c->pend_cyc = 0;
	if (dt > c->op_max_cyc)
		dt = c->op_max_cyc;
	__atomic_store_n(&c->emu_cyc, c->emu_cyc + dt, __ATOMIC_RELAXED);
}

/* Copy the model's counters (relaxed loads; any thread). */
int
rsh_sim_cost_get(const struct rsh_backend *be, struct rsh_sim_cost_stats *st)
{
	const struct rsh_sim *sim = rsh_sim_cast(be);
	uint64_t hz;

	if (sim == NULL || st == NULL)
		return -EINVAL;
	hz = sim->hz;
	st->enabled = sim->cfg.cost_on;
	st->rd_ns = sim->cfg.rd_ns;
	st->wr_ns = sim->cfg.wr_ns;
	st->charged_ns = (uint64_t)((unsigned __int128)__atomic_load_n(
		&sim->cost.virt_cyc, __ATOMIC_RELAXED) * 1000000000u / hz);
	st->emu_ns = (uint64_t)((unsigned __int128)__atomic_load_n(
		&sim->cost.emu_cyc, __ATOMIC_RELAXED) * 1000000000u / hz);
	st->bf1_drain_reads = __atomic_load_n(&sim->cost.drain_reads, __ATOMIC_RELAXED);
	return 0;
}
