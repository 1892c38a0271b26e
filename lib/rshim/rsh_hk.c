/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Housekeeping on the poll lcore: the NIC-firmware reset handshake on
 * SCRATCHPAD6 and its "host rshim driver present" bit, reference
 * hardware-notes §6.7 (and §2.7 for the interrupt). Without it an
 * mlxfwreset on the host times out waiting for the rshim driver's reply.
 *
 * The firmware raises INTx after writing its request; backends that have
 * the interrupt (VFIO eventfd, UIO, direct mode's PCI_STATUS poll) report
 * it through irq_poll, and the handshake then runs from the interrupt
 * only, as rshim-user-space's rshim_pcie.c does. SCRATCHPAD6 is also read
 * every 300 ms, which sets bit 63 if it was cleared and, on backends with
 * no interrupt source, answers the requests. A backend whose interrupt
 * source never fires (an INTx that is not routed: a guest whose PCI
 * function has no working INTx, hardware-notes §V5) would leave a request
 * unanswered for ever: a request still pending, unannounced, at the
 * second 300 ms poll is answered from the poll. Only reset types 1 (DPU)
 * and 2 (NIC) are answered; others are left alone (§6.7).
 */
#include <errno.h>

#include <rte_cycles.h>

#include "rsh_dev_priv.h"
#include "rsh_log.h"

#define RSH_HK_IRQ_PERIOD_MS 10u   /* interrupt-source check */
#define RSH_HK_SP6_PERIOD_MS 300u  /* §6.7: bit 63 re-set every 300 ms */
#define RSH_HK_RST_MIN_MS 4000u    /* §6.7: at least 4 s of link down */
#define RSH_HK_TYPE_DPU 1u         /* §6.7 rst_type values answered */
#define RSH_HK_TYPE_NIC 2u

/* Milliseconds from now, in TSC cycles. */
static uint64_t
rsh_hk_after(uint64_t now, unsigned int ms)
{
	return now + rsh_ms_cyc(ms);
}

/* Write our reply into SCRATCHPAD6, with bit 63 set. */
static void
rsh_hk_reply(struct rsh_dev *dev, uint64_t v, uint64_t reply)
{
	v &= ~RSH_SP6__RST_REPLY_MASK;
	v |= reply << RSH_SP6__RST_REPLY_SHIFT | RSH_SP6__PCIE_MASK;
	rsh_dev_wr(dev, RSH_SCRATCHPAD6, v);
}

/*
 * START: acknowledge, then leave the device alone for the link-down time
 * (at least 4 s) while the firmware resets the NIC/DPU.
 */
static void
rsh_hk_start(struct rsh_dev *dev, uint64_t v, uint64_t now)
{
	unsigned int down_ms = ((v & RSH_SP6__RST_DOWNTIME_MASK) >>
				RSH_SP6__RST_DOWNTIME_SHIFT) * 10;

	rsh_hk_reply(dev, v, RSH_SP6_REPLY_START_ACK);
	/* Nothing of a pre-reset frame may reach the rebooted ARM. */
	rsh_tmfifo_discard(dev);
	if (down_ms < RSH_HK_RST_MIN_MS)
		down_ms = RSH_HK_RST_MIN_MS;
	rsh_dev_hk(dev)->blocked_until = rsh_hk_after(now, down_ms);
	__atomic_store_n(&rsh_dev_hk(dev)->rst_starts, rsh_dev_hk(dev)->rst_starts + 1, __ATOMIC_RELAXED);
	RSH_DEV_LOG(NOTICE, dev, "NIC firmware reset (type %u): pausing the device for %u ms",
		    (unsigned int)((v & RSH_SP6__RST_TYPE_MASK) >> RSH_SP6__RST_TYPE_SHIFT),
		    down_ms);
}

/* True for the reset types the handshake answers (§6.7). */
static bool
rsh_hk_type_ok(uint64_t v)
{
	unsigned int t = (v & RSH_SP6__RST_TYPE_MASK) >> RSH_SP6__RST_TYPE_SHIFT;

	return t == RSH_HK_TYPE_DPU || t == RSH_HK_TYPE_NIC;
}

/* True when the firmware waits for a reply we have not written. */
static bool
rsh_hk_waiting(unsigned int state, unsigned int reply)
{
	return (state == RSH_SP6_RST_REQUEST && reply != RSH_SP6_REPLY_ACK) ||
	       (state == RSH_SP6_RST_START && reply != RSH_SP6_REPLY_START_ACK);
}

/* A poll (no interrupt) saw state: answer anyway when the interrupt has
 * stayed silent for a whole poll period. */
static bool
rsh_hk_irq_silent(struct rsh_dev *dev, unsigned int state, unsigned int reply,
		  bool polled)
{
	struct rsh_hk *hk = rsh_dev_hk(dev);

	if (!rsh_hk_waiting(state, reply)) {
		hk->pend_polls = 0;
		return false;
	}
	if (!polled || ++hk->pend_polls < 2)
		return false;
	if (!hk->irq_silent_said)
		RSH_DEV_LOG(NOTICE, dev, "no interrupt came with the NIC firmware's reset request: answering it from the SCRATCHPAD6 poll");
	hk->irq_silent_said = true;
	return true;
}

/*
 * Read SCRATCHPAD6; answer what the firmware asks when answer is set (an
 * interrupt came, or the backend has none), else only keep bit 63 (§6.7)
 * — unless a poll finds the request still unannounced (rsh_hk_irq_silent).
 */
static unsigned int
rsh_hk_sp6(struct rsh_dev *dev, uint64_t now, bool answer, bool polled)
{
	uint64_t v = rsh_dev_rd(dev, RSH_SCRATCHPAD6);
	unsigned int state, reply;

	if (rsh_reg_val_is_bad(v))
		return 0; /* gone or in reset: the data paths report it */
	state = (v & RSH_SP6__RST_STATE_MASK) >> RSH_SP6__RST_STATE_SHIFT;
	reply = (v & RSH_SP6__RST_REPLY_MASK) >> RSH_SP6__RST_REPLY_SHIFT;
	if (!answer && rsh_hk_type_ok(v))
		answer = rsh_hk_irq_silent(dev, state, reply, polled);
	if (!answer || !rsh_hk_type_ok(v))
		state = RSH_SP6_RST_NONE;
	switch (state) {
	case RSH_SP6_RST_REQUEST:
		if (reply == RSH_SP6_REPLY_ACK)
			break;
		rsh_hk_reply(dev, v, RSH_SP6_REPLY_ACK);
		__atomic_store_n(&rsh_dev_hk(dev)->rst_requests, rsh_dev_hk(dev)->rst_requests + 1,
				 __ATOMIC_RELAXED);
		return 1;
	case RSH_SP6_RST_START:
		if (reply == RSH_SP6_REPLY_START_ACK)
			break;
		rsh_hk_start(dev, v, now);
		return 1;
	case RSH_SP6_RST_ABORT:
		/* Bits 63:32 cleared; bit 63 comes back on the next poll. */
		rsh_dev_wr(dev, RSH_SCRATCHPAD6, v & 0xFFFFFFFFull);
		__atomic_store_n(&rsh_dev_hk(dev)->rst_aborts, rsh_dev_hk(dev)->rst_aborts + 1,
				 __ATOMIC_RELAXED);
		return 1;
	default:
		break;
	}
	if (!(v & RSH_SP6__PCIE_MASK)) {
		rsh_dev_wr(dev, RSH_SCRATCHPAD6, v | RSH_SP6__PCIE_MASK);
		return 1;
	}
	return 0;
}

/* Poll-lcore hook: interrupt source every 10 ms, SCRATCHPAD6 every 300 ms. */
static unsigned int
rsh_hk_poll(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns)
{
	struct rsh_hk *hk = rsh_dev_hk(dev);
	bool check = false, answer = false, polled = false;
	int irq;

	RTE_SET_USED(sleep_ns);
	if (hk->next_sp6 == 0) {
		/* First pass: start the timers (the first poll after 300 ms). */
		hk->next_sp6 = rsh_hk_after(now, RSH_HK_SP6_PERIOD_MS);
		hk->next_irq = now;
	}
	if (rsh_hk_blocked(dev, now))
		return 0;
	if (!hk->no_irq && now >= hk->next_irq) {
		hk->next_irq = rsh_hk_after(now, RSH_HK_IRQ_PERIOD_MS);
		irq = dev->be->ops->irq_poll ? dev->be->ops->irq_poll(dev->be) : -ENOTSUP;
		hk->no_irq = irq < 0;
		if (irq > 0) {
			__atomic_store_n(&hk->irqs, hk->irqs + 1, __ATOMIC_RELAXED);
			check = answer = true;
		}
	}
	if (now >= hk->next_sp6) {
		hk->next_sp6 = rsh_hk_after(now, RSH_HK_SP6_PERIOD_MS);
		check = polled = true;
		answer |= hk->no_irq;
	}
	return check ? rsh_hk_sp6(dev, now, answer, polled) : 0;
}

/* The host driver goes away: clear bit 63 (keep the firmware's fields,
 * §2.8, §6.7). */
static void
rsh_hk_detach(struct rsh_dev *dev)
{
	uint64_t v = rsh_dev_rd(dev, RSH_SCRATCHPAD6);

	if (!rsh_reg_val_is_bad(v) && (v & RSH_SP6__PCIE_MASK))
		rsh_dev_wr(dev, RSH_SCRATCHPAD6, v & ~RSH_SP6__PCIE_MASK);
}

/* Stop step: the device leaves its poller, nobody answers the firmware. */
static void
rsh_hk_stop(struct rsh_dev *dev)
{
	if (!rsh_own_dropped(rsh_dev_own(dev))) /* another driver's device (§6.4) */
		rsh_hk_detach(dev);
}

/* Housekeeping: the SCRATCHPAD6 handshake and "host driver present"
 * (§6.7); a device closed off any poller is let go by its stop step. */
const struct rsh_svc rsh_hk_svc = {
	.name = "housekeeping",
	.poll = rsh_hk_poll,
	.stop = rsh_hk_stop,
	.state_size = sizeof(struct rsh_hk),
};
