/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SCRATCHPAD6 NIC-firmware reset handshake (reference
 * hardware-notes §6.7) with a mock backend that plays the
 * firmware: it writes requests into SCRATCHPAD6 and raises "INTx".
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "rsh.h"
#include "rsh_backend.h"
#include "rsh_dev_priv.h"
#include "rsh_test_eal.h"
#include "rsh_test_time.h"

/* A BF2-sized register file; irq_poll reports a pending "INTx". */
struct rsh_t_mock {
	struct rsh_backend be;
	uint64_t regs[RSH_BAR0_SIZE_BF12 / 8];
	int irq_pending;
	bool has_irq;
};

static uint64_t
rsh_t_rd(struct rsh_backend *be, uint32_t off)
{
	be->stats.reads++;
	return ((struct rsh_t_mock *)be)->regs[off / 8];
}

static void
rsh_t_wr(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	be->stats.writes++;
	((struct rsh_t_mock *)be)->regs[off / 8] = v;
}

static void
rsh_t_wfifo(struct rsh_backend *be, uint32_t off, const uint64_t *w, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		rsh_t_wr(be, off, w[i]);
}

static void
rsh_t_rfifo(struct rsh_backend *be, uint32_t off, uint64_t *w, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		w[i] = rsh_t_rd(be, off);
}

static void
rsh_t_close(struct rsh_backend *be)
{
	(void)be; /* the test frees the mock after reading it */
}

static int
rsh_t_irq(struct rsh_backend *be)
{
	struct rsh_t_mock *m = (struct rsh_t_mock *)be;
	int r = m->irq_pending;

	m->irq_pending = 0;
	return r;
}

static const struct rsh_backend_ops rsh_t_ops_irq = {
	.read64 = rsh_t_rd, .write64 = rsh_t_wr, .write_fifo = rsh_t_wfifo,
	.read_fifo = rsh_t_rfifo, .close = rsh_t_close, .irq_poll = rsh_t_irq,
};
static const struct rsh_backend_ops rsh_t_ops_noirq = {
	.read64 = rsh_t_rd, .write64 = rsh_t_wr, .write_fifo = rsh_t_wfifo,
	.read_fifo = rsh_t_rfifo, .close = rsh_t_close,
};

static struct rsh_t_mock *rsh_t_last;

static int
rsh_t_match(const char *s)
{
	return strncmp(s, "mock:", 5) == 0;
}

static int
rsh_t_probe(const char *s, const struct rsh_open_opts *o, struct rsh_backend **out)
{
	struct rsh_t_mock *m = calloc(1, sizeof(*m));

	(void)o;
	m->has_irq = strcmp(s, "mock:irq") == 0;
	m->be.ops = m->has_irq ? &rsh_t_ops_irq : &rsh_t_ops_noirq;
	m->be.gen = RSH_GEN_BF2;
	m->be.bar_size = RSH_BAR0_SIZE_BF12;
	snprintf(m->be.name, sizeof(m->be.name), "%s", s);
	rsh_t_last = m;
	*out = &m->be;
	return 0;
}

static struct rsh_backend_driver rsh_t_drv = {
	.name = "mock", .match = rsh_t_match, .probe = rsh_t_probe,
};
RSH_BACKEND_REGISTER(rsh_t_drv);

/* SCRATCHPAD6 of the mock (BF2: BAR 0x10C48). */
static uint64_t *
rsh_t_sp6(void)
{
	return &rsh_t_last->regs[0x10C48 / 8];
}

static uint64_t
rsh_t_state(unsigned int st, unsigned int type, unsigned int down10ms)
{
	return (uint64_t)st << RSH_SP6__RST_STATE_SHIFT |
	       (uint64_t)type << RSH_SP6__RST_TYPE_SHIFT |
	       (uint64_t)down10ms << RSH_SP6__RST_DOWNTIME_SHIFT | 0x1234;
}

/* Bit 63 is set within 300 ms; REQUEST/ABORT/START answered on INTx. */
static void
test_handshake_irq(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:irq", NULL, &dev), 0);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_poller_run_once(p);
	assert_int_equal(*rsh_t_sp6() >> 63, 0);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(*rsh_t_sp6() >> 63, 1);

	/* REQUEST + INTx: ACK (bits 39:38 = 1), bit 63, firmware bits kept. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 1, 0);
	rsh_t_last->irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK) >> RSH_SP6__RST_REPLY_SHIFT,
			 RSH_SP6_REPLY_ACK);
	assert_true(*rsh_t_sp6() & RSH_SP6__PCIE_MASK);
	assert_int_equal(*rsh_t_sp6() & 0xFFFFFFFF, 0x1234);
	assert_int_equal(dev->hk.rst_requests, 1);
	/* The same request again: answered once only. */
	rsh_t_last->irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal(dev->hk.rst_requests, 1);
	assert_int_equal(dev->hk.irqs, 2);

	/* ABORT: bits 63:32 cleared. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_ABORT, 1, 0) | RSH_SP6__PCIE_MASK;
	rsh_t_last->irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal(*rsh_t_sp6(), 0x1234);
	assert_int_equal(dev->hk.rst_aborts, 1);

	/* START with 1 s of downtime: START_ACK, device paused >= 4 s. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_START, 2, 100);
	rsh_t_last->irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK) >> RSH_SP6__RST_REPLY_SHIFT,
			 RSH_SP6_REPLY_START_ACK);
	assert_int_equal(dev->hk.rst_starts, 1);
	uint64_t now = rte_get_timer_cycles();

	assert_true(rsh_hk_blocked(dev, now));
	assert_true(dev->hk.blocked_until - now > 3 * rte_get_timer_hz());
	assert_false(rsh_hk_blocked(dev, now + 5 * rte_get_timer_hz()));

	rsh_poller_destroy(p);
	struct rsh_t_mock *m = rsh_t_last;

	rsh_dev_close(dev);
	/* The host is gone: bit 63 cleared, firmware fields kept. */
	assert_int_equal(m->regs[0x10C48 / 8] >> 63, 0);
	assert_int_equal(m->regs[0x10C48 / 8] & 0xFFFFFFFF, 0x1234);
	free(m);
}

/* Without an interrupt source the 300 ms poll answers the request. */
static void
test_handshake_polled(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:noirq", NULL, &dev), 0);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_poller_run_once(p);
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 1, 0);
	rsh_poller_run_once(p);
	assert_int_equal(dev->hk.rst_requests, 0);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(dev->hk.rst_requests, 1);
	assert_true(dev->hk.no_irq);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK) >> RSH_SP6__RST_REPLY_SHIFT,
			 RSH_SP6_REPLY_ACK);
	rsh_poller_destroy(p);
	struct rsh_t_mock *m = rsh_t_last;

	rsh_dev_close(dev);
	free(m);
}

/*
 * With an interrupt source the handshake runs from the interrupt: the
 * first 300 ms poll keeps bit 63 but does not answer; reset types other
 * than 1 (DPU) and 2 (NIC) are never answered (§6.7).
 */
static void
test_handshake_irq_only(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:irq", NULL, &dev), 0);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_poller_run_once(p);
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 1, 0);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(dev->hk.rst_requests, 0);
	assert_true(*rsh_t_sp6() & RSH_SP6__PCIE_MASK);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK), 0);
	/* Type 3 with an interrupt: ignored. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 3, 0) | RSH_SP6__PCIE_MASK;
	rsh_t_last->irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal(dev->hk.irqs, 1);
	assert_int_equal(dev->hk.rst_requests, 0);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK), 0);
	/* Type 1 with an interrupt: answered. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 1, 0) | RSH_SP6__PCIE_MASK;
	rsh_t_last->irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal(dev->hk.rst_requests, 1);
	rsh_poller_destroy(p);
	struct rsh_t_mock *m = rsh_t_last;

	rsh_dev_close(dev);
	free(m);
}

/*
 * An interrupt source that never fires (INTx not routed, as for a PCI
 * function in a TCG guest): the request is not answered at the first
 * 300 ms poll but at the second, and not again after that.
 */
static void
test_handshake_irq_silent(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:irq", NULL, &dev), 0);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_poller_run_once(p);
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 2, 0) | RSH_SP6__PCIE_MASK;
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(dev->hk.rst_requests, 0);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(dev->hk.rst_requests, 1);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK) >>
			 RSH_SP6__RST_REPLY_SHIFT, RSH_SP6_REPLY_ACK);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(dev->hk.rst_requests, 1);
	assert_int_equal(dev->hk.irqs, 0);
	rsh_poller_destroy(p);
	struct rsh_t_mock *m = rsh_t_last;

	rsh_dev_close(dev);
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake_irq),
		cmocka_unit_test(test_handshake_polled),
		cmocka_unit_test(test_handshake_irq_only),
		cmocka_unit_test(test_handshake_irq_silent),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
