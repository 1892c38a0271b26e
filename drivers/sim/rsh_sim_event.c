/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Things that happen to the emulated device without the host asking:
 *
 *  - another rshim driver on the same rshim (a BMC over USB, owner=):
 *    its SCRATCHPAD1 keepalive every 300 ms, the OSP_REQ/OSP_ACK handover
 *    in both roles (hardware-notes §6.2, §6.5);
 *  - secure NIC mode (lock=): SCRATCHPAD1 reads the LOCK word, host writes
 *    to it are ignored (§6.6, the blocking is (inferred));
 *  - a NIC-firmware reset request on SCRATCHPAD6 (rst=, §6.7): REQUEST,
 *    START once the host acked, the link down for rst_downtime, then for
 *    rst_type 1 (DPU) an ARM reset;
 *  - crash records (PANIC, EXCEPTION) in the scratch log (§5.6);
 *  - an ARM reset or a surprise removal during TM FIFO traffic (armreset@,
 *    gone@ with tm: or time: triggers);
 *  - anything of the above on demand from a test, rsh_sim_inject().
 *
 * No thread: like the boot ROM, this model catches up at every register
 * access (rsh_sim_event_tick from the access gate), so a BMC "writes" its
 * keepalive at the first access after it was due. rsh_sim_inject() may be
 * called from any thread: it posts into a mailbox that the thread doing
 * the MMIO empties at its next access.
 */
#include <errno.h>
#include <inttypes.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_sim_priv.h"

#define RSH_SIM_MS 1000000ull /* ns */

/* Periods of the other driver, §6.2 and §6.5. */
#define RSH_SIM_KA_NS (300 * RSH_SIM_MS)
#define RSH_SIM_OSP_NS (100 * RSH_SIM_MS)
#define RSH_SIM_OSP_TRIES 10u
#define RSH_SIM_OSP_LINGER_NS (1000 * RSH_SIM_MS)
/* NIC firmware: START this long after the host's ACK (emulator choice). */
#define RSH_SIM_RST_START_NS (10 * RSH_SIM_MS)

/* Scratch-log crash records, §5.6: BL31 reports them. */
#define RSH_SIM_LOG_TYPE_PANIC 1u
#define RSH_SIM_LOG_TYPE_EXCEPTION 2u
#define RSH_SIM_CRASH_PC 0x0000C0DEu
#define RSH_SIM_CRASH_ESR 0xBE000000u /* EC 0x2F: SError, IL */

/* AArch64 MRS opcode of a system register (op0, op1, CRn, CRm, op2). */
#define RSH_SIM_MRS(op0, op1, crn, crm, op2) \
	(0xD5200000u | (op0) << 19 | (op1) << 16 | (crn) << 12 | (crm) << 8 | \
	 (op2) << 5)

static uint64_t
rsh_sim_ev_cyc(const struct rsh_sim *sim, uint64_t ns)
{
	return rsh_sim_ns_to_cyc(sim, ns);
}

/* SCRATCHPAD1 as the firmware and the other driver see it. */
static uint64_t *
rsh_sim_sp1(struct rsh_sim *sim)
{
	return rsh_sim_reg(sim, RSH_SIM_REG_SCRATCHPAD1);
}

/* The other driver writes SCRATCHPAD1 (blocked while locked). */
static void
rsh_sim_bmc_write(struct rsh_sim *sim, uint64_t v)
{
	if (!sim->ev.locked)
		*rsh_sim_sp1(sim) = v;
}

/* Switch the other driver's behaviour (owner= or an injected event). */
static void
rsh_sim_owner_set(struct rsh_sim *sim, enum rsh_sim_owner o, uint64_t now)
{
	struct rsh_sim_ev *e = &sim->ev;

	e->owner = o;
	e->osp_n = 0;
	e->acking = false;
	e->owner_next = now; /* first keepalive or request right away */
	RSH_SIM_ST_SET(sim, bmc_mode, (uint8_t)o);
	RSH_DEV_LOG(DEBUG, &sim->be, "other owner: mode %d", (int)o);
}

/* The BMC (bmc, bmc-old) holds the device: keepalive, OSP handling. */
static void
rsh_sim_owner_holder(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_ev *e = &sim->ev;

	if (e->acking) { /* OSP_ACK 10 x 100 ms, then 1 s, then it lets go */
		if (e->osp_n < RSH_SIM_OSP_TRIES) {
			rsh_sim_bmc_write(sim, RSH_SIM_OSP_ACK);
			RSH_SIM_ST_ADD(sim, bmc_acks, 1);
			e->osp_n++;
			e->owner_next = now + rsh_sim_ev_cyc(sim, e->osp_n <
				RSH_SIM_OSP_TRIES ? RSH_SIM_OSP_NS :
				RSH_SIM_OSP_LINGER_NS);
			return;
		}
		RSH_DEV_LOG(INFO, &sim->be, "other owner handed the device over");
		rsh_sim_owner_set(sim, RSH_SIM_OWNER_NONE, now);
		return;
	}
	if (e->owner == RSH_SIM_OWNER_BMC &&
	    *rsh_sim_sp1(sim) == RSH_SIM_OSP_REQ) {
		e->acking = true;
		e->osp_n = 0;
		rsh_sim_owner_holder(sim, now);
		return;
	}
	rsh_sim_bmc_write(sim, RSH_SIM_KEEPALIVE); /* bmc-old: over OSP_REQ */
	RSH_SIM_ST_ADD(sim, bmc_keepalives, 1);
	e->owner_next = now + rsh_sim_ev_cyc(sim, RSH_SIM_KA_NS);
}

/* bmc-request: OSP_REQ every 100 ms, up to 10 times; OSP_ACK read back →
 * it owns the device (keepalive from now on); else it gives up. */
static void
rsh_sim_owner_requester(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_ev *e = &sim->ev;

	if (e->osp_n > 0 && *rsh_sim_sp1(sim) == RSH_SIM_OSP_ACK) {
		RSH_DEV_LOG(INFO, &sim->be, "other owner took the device over");
		rsh_sim_owner_set(sim, RSH_SIM_OWNER_BMC, now);
		rsh_sim_owner_holder(sim, now);
		return;
	}
	if (e->osp_n == RSH_SIM_OSP_TRIES) {
		RSH_DEV_LOG(INFO, &sim->be, "other owner's request unanswered");
		rsh_sim_owner_set(sim, RSH_SIM_OWNER_NONE, now);
		return;
	}
	rsh_sim_bmc_write(sim, RSH_SIM_OSP_REQ);
	RSH_SIM_ST_ADD(sim, bmc_requests, 1);
	e->osp_n++;
	e->owner_next = now + rsh_sim_ev_cyc(sim, RSH_SIM_OSP_NS);
}

/* Run the other driver while it is due; a long idle host only gets the
 * latest keepalive, not every one it missed. */
static void
rsh_sim_owner_run(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_ev *e = &sim->ev;
	unsigned int guard = 0;

	while (e->owner != RSH_SIM_OWNER_NONE && now >= e->owner_next &&
	       guard++ < 4 * RSH_SIM_OSP_TRIES) {
		if (e->owner == RSH_SIM_OWNER_BMC_REQ)
			rsh_sim_owner_requester(sim, now);
		else
			rsh_sim_owner_holder(sim, now);
	}
}

/* Secure NIC mode on or off. */
static void
rsh_sim_lock_set(struct rsh_sim *sim, bool on)
{
	sim->ev.locked = false;
	*rsh_sim_sp1(sim) = on ? RSH_SIM_LOCK_WORD : 0;
	sim->ev.locked = on;
	RSH_SIM_ST_SET(sim, locked, on);
}

/* ---- NIC firmware reset handshake, SCRATCHPAD6 ---- */

static uint64_t *
rsh_sim_sp6(struct rsh_sim *sim)
{
	return rsh_sim_reg(sim, RSH_SIM_REG_SCRATCHPAD6);
}

/* Firmware writes rst_state (and type/downtime with REQUEST). */
static void
rsh_sim_rst_state(struct rsh_sim *sim, uint64_t state)
{
	uint64_t v = *rsh_sim_sp6(sim) & ~RSH_SIM_SP6_STATE_MASK;

	*rsh_sim_sp6(sim) = v | state << RSH_SIM_SP6_STATE_SHIFT;
}

static void
rsh_sim_rst_request(struct rsh_sim *sim, unsigned int type,
		    uint32_t downtime, uint64_t now)
{
	struct rsh_sim_ev *e = &sim->ev;
	uint64_t v = *rsh_sim_sp6(sim);

	v &= ~(RSH_SIM_SP6_STATE_MASK | RSH_SIM_SP6_REPLY_MASK |
	       RSH_SIM_SP6_DOWN_MASK | RSH_SIM_SP6_TYPE_MASK);
	v |= (uint64_t)RSH_SIM_RST_REQUEST << RSH_SIM_SP6_STATE_SHIFT |
	     (uint64_t)(downtime & 0xFF) << RSH_SIM_SP6_DOWN_SHIFT |
	     (uint64_t)(type & 7) << RSH_SIM_SP6_TYPE_SHIFT;
	*rsh_sim_sp6(sim) = v;
	e->rst_phase = RSH_SIM_RST_REQUEST;
	e->rst_type = type;
	e->rst_downtime = downtime;
	e->rst_next = now;
	RSH_SIM_ST_ADD(sim, rst_requests, 1);
	RSH_DEV_LOG(DEBUG, &sim->be, "NIC firmware: reset request, type %u",
		    type);
}

/* The link comes back: for a DPU reset the ARM has rebooted. */
static void
rsh_sim_rst_finish(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_ev *e = &sim->ev;

	e->rst_phase = 0;
	*rsh_sim_sp6(sim) &= ~(RSH_SIM_SP6_STATE_MASK | RSH_SIM_SP6_REPLY_MASK |
			       RSH_SIM_SP6_DOWN_MASK | RSH_SIM_SP6_TYPE_MASK);
	if (e->rst_type == RSH_SIM_RST_TYPE_DPU)
		rsh_sim_arm_reset(sim, now, false);
	RSH_SIM_ST_ADD(sim, rst_done, 1);
}

/* Firmware side of the handshake: START after the host's ACK; link down
 * after its START_ACK; an ABORT is left for the host to clear. */
static void
rsh_sim_rst_run(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_ev *e = &sim->ev;
	uint64_t reply = (*rsh_sim_sp6(sim) & RSH_SIM_SP6_REPLY_MASK) >>
			 RSH_SIM_SP6_REPLY_SHIFT;

	if (e->rst_phase == RSH_SIM_RST_REQUEST && reply == RSH_SIM_SP6_ACK) {
		e->rst_phase = RSH_SIM_RST_ACKED;
		e->rst_next = now + rsh_sim_ev_cyc(sim, RSH_SIM_RST_START_NS);
	} else if (e->rst_phase == RSH_SIM_RST_ACKED && now >= e->rst_next) {
		rsh_sim_rst_state(sim, RSH_SIM_RST_START);
		e->rst_phase = RSH_SIM_RST_START;
	} else if (e->rst_phase == RSH_SIM_RST_START &&
		   reply == RSH_SIM_SP6_START_ACK) {
		e->rst_phase = RSH_SIM_RST_DOWN;
		sim->linkdown_until = now + rsh_sim_ev_cyc(sim,
			(uint64_t)e->rst_downtime * 10 * RSH_SIM_MS);
	} else if (e->rst_phase == RSH_SIM_RST_DOWN &&
		   now >= sim->linkdown_until) {
		rsh_sim_rst_finish(sim, now);
	}
}

/* ---- crash records ---- */

/* A PANIC (PC) or EXCEPTION (ESR) record with four register pairs. */
void
rsh_sim_log_crash(struct rsh_sim *sim, unsigned int type)
{
	const uint32_t regs[4] = {
		RSH_SIM_MRS(3, 6, 4, 0, 1), /* ELR_EL3 */
		RSH_SIM_MRS(3, 6, 5, 2, 0), /* ESR_EL3 */
		RSH_SIM_MRS(3, 6, 6, 0, 0), /* FAR_EL3 */
		RSH_SIM_MRS(3, 6, 4, 0, 0), /* SPSR_EL3 */
	};
	const uint64_t vals[4] = { 0xFFFF00000810C0DEull,
		type == RSH_SIM_LOG_TYPE_PANIC ? 0x96000010u : RSH_SIM_CRASH_ESR,
		0x0000000012345678ull, 0x3CDull };
	uint64_t rec[9];
	unsigned int i;

	rec[0] = (uint64_t)RSH_SIM_LOG_MOD_BL31 << 60 | (uint64_t)type << 56 |
		 (uint64_t)8 << 48 |
		 (type == RSH_SIM_LOG_TYPE_PANIC ? RSH_SIM_CRASH_PC :
						   RSH_SIM_CRASH_ESR);
	for (i = 0; i < 4; i++) {
		rec[1 + 2 * i] = regs[i];
		rec[2 + 2 * i] = vals[i];
	}
	rsh_sim_log_record(sim, rec, RTE_DIM(rec));
	RSH_SIM_ST_ADD(sim, crash_records, 1);
}

/* ---- triggers ---- */

/* True when a gone@/armreset@ trigger with a TM or time kind is reached. */
static bool
rsh_sim_trig_hit(const struct rsh_sim *sim, const struct rsh_sim_trig *t,
		 uint64_t now)
{
	switch (t->kind) {
	case RSH_SIM_TRIG_TM:
		return sim->tm_bytes >= t->at;
	case RSH_SIM_TRIG_TIME:
		return now - sim->por_tsc >= rsh_sim_ev_cyc(sim, t->at);
	default:
		return false;
	}
}

/* Surprise removal now (gone@ of any kind, or injected). */
void
rsh_sim_gone_now(struct rsh_sim *sim, const char *why, uint64_t now)
{
	if (sim->gone)
		return;
	sim->gone = true;
	sim->gone_tsc = now;
	RSH_SIM_ST_SET(sim, gone, true);
	RSH_DEV_LOG(INFO, &sim->be, "surprise removal (%s)", why);
}

/* Called on every access while gone: plug the device back in when its
 * return= time has passed or a RETURN event was injected. */
bool
rsh_sim_return_check(struct rsh_sim *sim, uint64_t now)
{
	const uint32_t bit = 1u << RSH_SIM_EV_RETURN;
	bool due = sim->cfg.return_ns != 0 &&
		   now - sim->gone_tsc >= rsh_sim_ns_to_cyc(sim, sim->cfg.return_ns);

	if ((__atomic_load_n(&sim->ev.mbox, __ATOMIC_ACQUIRE) & bit) != 0) {
		__atomic_fetch_and(&sim->ev.mbox, ~bit, __ATOMIC_ACQ_REL);
		due = true;
	}
	if (due)
		rsh_sim_replug(sim, now);
	return due;
}

static void
rsh_sim_trig_run(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_ev *e = &sim->ev;

	if (!e->armreset_done &&
	    (rsh_sim_trig_hit(sim, &sim->cfg.armreset, now) ||
	     sim->st.consumed_bytes >= rsh_sim_fault_armreset_at(sim))) {
		e->armreset_done = true;
		rsh_sim_arm_reset(sim, now, false);
	}
	if (rsh_sim_trig_hit(sim, &sim->cfg.gone, now))
		rsh_sim_gone_now(sim, sim->cfg.gone.kind == RSH_SIM_TRIG_TM ?
				 "TM FIFO bytes reached" : "time reached", now);
	if (sim->cfg.rst.type != 0 && !e->rst_fired &&
	    now - sim->por_tsc >= rsh_sim_ev_cyc(sim, sim->cfg.rst.at_ns)) {
		e->rst_fired = true;
		rsh_sim_rst_request(sim, sim->cfg.rst.type, sim->cfg.rst.downtime,
				    now);
	}
}

/* ---- injection mailbox ---- */

static void
rsh_sim_inject_apply(struct rsh_sim *sim, unsigned int ev, uint32_t arg,
		     uint64_t now)
{
	switch (ev) {
	case RSH_SIM_EV_ARM_RESET:
		rsh_sim_arm_reset(sim, now, false);
		break;
	case RSH_SIM_EV_GONE:
		rsh_sim_gone_now(sim, "injected", now);
		break;
	case RSH_SIM_EV_PANIC:
		rsh_sim_log_crash(sim, RSH_SIM_LOG_TYPE_PANIC);
		break;
	case RSH_SIM_EV_EXCEPTION:
		rsh_sim_log_crash(sim, RSH_SIM_LOG_TYPE_EXCEPTION);
		break;
	case RSH_SIM_EV_RST_REQUEST:
		rsh_sim_rst_request(sim, arg & 0xFF, arg >> 8, now);
		break;
	case RSH_SIM_EV_RST_ABORT:
		sim->ev.rst_phase = 0;
		rsh_sim_rst_state(sim, RSH_SIM_RST_ABORT);
		break;
	case RSH_SIM_EV_OWNER:
		rsh_sim_owner_set(sim, (enum rsh_sim_owner)arg, now);
		break;
	case RSH_SIM_EV_LOCK:
		rsh_sim_lock_set(sim, arg != 0);
		break;
	case RSH_SIM_EV_RETURN: /* only while gone: rsh_sim_return_check */
		break;
	default:
		break;
	}
}

int
rsh_sim_inject(struct rsh_backend *be, enum rsh_sim_event ev, uint32_t arg)
{
	struct rsh_sim *sim = rsh_sim_of_mut(be);

	if (sim == NULL || (unsigned int)ev >= RSH_SIM_EV_COUNT ||
	    (ev == RSH_SIM_EV_OWNER && arg > RSH_SIM_OWNER_BMC_REQ) ||
	    (ev == RSH_SIM_EV_RST_REQUEST && (arg & 0xFF) != 1 &&
	     (arg & 0xFF) != 2))
		return -EINVAL;
	if (ev == RSH_SIM_EV_OWNER && arg != RSH_SIM_OWNER_NONE)
		__atomic_store_n(&be->sole_driver, false, __ATOMIC_RELAXED);
	__atomic_store_n(&sim->ev.mbox_arg[ev], arg, __ATOMIC_RELAXED);
	__atomic_fetch_or(&sim->ev.mbox, 1u << ev, __ATOMIC_RELEASE);
	return 0;
}

/* Empty the mailbox (the MMIO thread). */
static void
rsh_sim_inject_take(struct rsh_sim *sim, uint64_t now)
{
	uint32_t m = __atomic_exchange_n(&sim->ev.mbox, 0, __ATOMIC_ACQUIRE);
	unsigned int ev;

	for (ev = 0; m != 0; ev++, m >>= 1)
		if (m & 1)
			rsh_sim_inject_apply(sim, ev,
				__atomic_load_n(&sim->ev.mbox_arg[ev],
						__ATOMIC_RELAXED), now);
}

/* ---- entry points ---- */

/* Is anything armed that the next access must run? */
static void
rsh_sim_ev_update_active(struct rsh_sim *sim)
{
	const struct rsh_sim_cfg *c = &sim->cfg;
	struct rsh_sim_ev *e = &sim->ev;

	e->active = e->owner != RSH_SIM_OWNER_NONE || e->rst_phase != 0 ||
		    (c->armreset.kind != RSH_SIM_TRIG_NONE && !e->armreset_done) ||
		    (c->gone.kind >= RSH_SIM_TRIG_TM && !sim->gone) ||
		    (c->rst.type != 0 && !e->rst_fired);
}

void
rsh_sim_event_power_on(struct rsh_sim *sim, uint64_t now)
{
	if (sim->cfg.locked)
		rsh_sim_lock_set(sim, true);
	rsh_sim_owner_set(sim, sim->cfg.owner, now);
	rsh_sim_ev_update_active(sim);
}

void
rsh_sim_event_tick_slow(struct rsh_sim *sim, uint64_t now)
{
	if (__atomic_load_n(&sim->ev.mbox, __ATOMIC_RELAXED) != 0)
		rsh_sim_inject_take(sim, now);
	rsh_sim_trig_run(sim, now);
	rsh_sim_owner_run(sim, now);
	if (sim->ev.rst_phase != 0)
		rsh_sim_rst_run(sim, now);
	rsh_sim_ev_update_active(sim);
}
