/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault schedule of the emulator's boot-ROM consumer: stall=<dur>@<off>
 * (the target stops reading the boot stream for a while, as a DPU busy
 * with DDR training or Redfish does, hardware-notes §3.5, §8),
 * gone@<off> (surprise removal: every read all-ones, §1.4) and
 * armreset@<off> (the ARM resets on its own once that many bytes of the
 * stream were taken).
 *
 * Offsets count bytes consumed since the last reset. The consumer never
 * takes words past the next fault offset in one step, so faults fire at
 * their offset at any drain rate, unlimited included.
 */
#include <inttypes.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_sim_priv.h"

/* Re-arm every stall for a new boot stream. */
void
rsh_sim_fault_restart(struct rsh_sim *sim)
{
	sim->cons.next_stall = 0;
	sim->cons.stall_until = 0;
	rsh_sim_profile_phase(sim, 0);
}

/* Byte offset of an armreset@<offset> not fired yet, or RSH_SIM_NO_OFFSET.
 * The consumer stops there; the event step (rsh_sim_trig_run) resets the
 * ARM at the next register access, outside the consumer. */
uint64_t
rsh_sim_fault_armreset_at(const struct rsh_sim *sim)
{
	if (sim->cfg.armreset.kind != RSH_SIM_TRIG_BOOT || sim->ev.armreset_done)
		return RSH_SIM_NO_OFFSET;
	return sim->cfg.armreset.at;
}

/* Byte offset of the next fault not fired yet, or RSH_SIM_NO_OFFSET. */
static uint64_t
rsh_sim_fault_next(const struct rsh_sim *sim)
{
	uint64_t next = sim->gone ? RSH_SIM_NO_OFFSET : sim->cfg.gone_offset;
	unsigned int i = sim->cons.next_stall;

	if (i < sim->cfg.n_stalls && sim->cfg.stall[i].offset < next)
		next = sim->cfg.stall[i].offset;
	return RTE_MIN(next, rsh_sim_fault_armreset_at(sim));
}

/* Words the consumer may take before reaching the next fault offset. */
uint64_t
rsh_sim_fault_limit(const struct rsh_sim *sim)
{
	uint64_t next = rsh_sim_fault_next(sim);
	uint64_t done = sim->st.consumed_bytes;

	if (next == RSH_SIM_NO_OFFSET)
		return UINT64_MAX;
	if (next <= done)
		return 0;
	return (next - done + 7) / 8;
}

/* Fire every fault whose offset has been reached; t = when it was reached. */
void
rsh_sim_fault_fire(struct rsh_sim *sim, uint64_t t)
{
	struct rsh_sim_consumer *c = &sim->cons;
	uint64_t done = sim->st.consumed_bytes;

	while (c->next_stall < sim->cfg.n_stalls &&
	       sim->cfg.stall[c->next_stall].offset <= done) {
		const struct rsh_sim_stall *s = &sim->cfg.stall[c->next_stall];

		c->stall_until = RTE_MAX(c->stall_until, t) +
				 rsh_sim_ns_to_cyc(sim, s->dur_ns);
		c->next_stall++;
		rsh_sim_profile_phase(sim, c->next_stall);
		RSH_SIM_ST_ADD(sim, stalls, 1);
		RSH_DEV_LOG(DEBUG, &sim->be, "stall %" PRIu64 " ns at byte %" PRIu64,
			    s->dur_ns, done);
	}
	if (!sim->gone && sim->cfg.gone_offset <= done) {
		sim->gone = true;
		sim->gone_tsc = t;
		RSH_SIM_ST_SET(sim, gone, true);
		RSH_DEV_LOG(INFO, &sim->be, "surprise removal at byte %" PRIu64,
			    done);
	}
}
