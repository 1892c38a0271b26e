/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SCRATCHPAD6 NIC-firmware reset handshake (hardware-notes §6.7)
 * with the mock backend playing the firmware: the test writes requests
 * into SCRATCHPAD6 and raises "INTx"; the poll loop is stepped by hand on
 * the virtual clock.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rsh.h"
#include "rsh_clock.h"
#include "rsh_poll_priv.h"
#include "rsh_t_mock.h"
#include "rsh_test_eal.h"

/* The firmware's "INTx": pending until the core polls it. */
static int rsh_t_irq_pending;

static int
rsh_t_irq(struct rsh_t_mock *m)
{
	int r = rsh_t_irq_pending;

	(void)m;
	rsh_t_irq_pending = 0;
	return r;
}

static const struct rsh_t_hooks rsh_t_irq_hooks = { .irq_poll = rsh_t_irq };

/* Open a BF2 mock, with or without an interrupt source; kept after close. */
static struct rsh_t_mock *
rsh_t_open(bool irq, struct rsh_dev **dev)
{
	memset(&rsh_t_next, 0, sizeof(rsh_t_next));
	rsh_t_next.hooks = irq ? &rsh_t_irq_hooks : NULL;
	rsh_t_next.keep = true;
	rsh_t_irq_pending = 0;
	assert_int_equal(rsh_dev_open("mock:bf2", NULL, dev), 0);
	return rsh_t_mock_of(*dev);
}

/* SCRATCHPAD6 of the last mock. */
static uint64_t *
rsh_t_sp6(void)
{
	return rsh_t_reg(rsh_t_last, RSH_SCRATCHPAD6);
}

/* Let ms of virtual time pass. */
static void
rsh_t_sleep_ms(unsigned int ms)
{
	rsh_clock_advance_ns((uint64_t)ms * 1000000u);
}

static int
rsh_t_setup(void **state)
{
	(void)state;
	rsh_clock_virtual_set(true);
	return 0;
}

static int
rsh_t_teardown(void **state)
{
	(void)state;
	rsh_clock_virtual_set(false);
	return 0;
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
	struct rsh_t_mock *m;
	struct rsh_dev *dev;

	(void)state;
	m = rsh_t_open(true, &dev);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_poller_run_once(p);
	assert_int_equal(*rsh_t_sp6() >> 63, 0);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(*rsh_t_sp6() >> 63, 1);

	/* REQUEST + INTx: ACK (bits 39:38 = 1), bit 63, firmware bits kept. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 1, 0);
	rsh_t_irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK) >> RSH_SP6__RST_REPLY_SHIFT,
			 RSH_SP6_REPLY_ACK);
	assert_true(*rsh_t_sp6() & RSH_SP6__PCIE_MASK);
	assert_int_equal(*rsh_t_sp6() & 0xFFFFFFFF, 0x1234);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 1);
	/* The same request again: answered once only. */
	rsh_t_irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 1);
	assert_int_equal(rsh_dev_hk(dev)->irqs, 2);

	/* ABORT: bits 63:32 cleared. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_ABORT, 1, 0) | RSH_SP6__PCIE_MASK;
	rsh_t_irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal(*rsh_t_sp6(), 0x1234);
	assert_int_equal(rsh_dev_hk(dev)->rst_aborts, 1);

	/* START with 1 s of downtime: START_ACK, device paused >= 4 s. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_START, 2, 100);
	rsh_t_irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK) >> RSH_SP6__RST_REPLY_SHIFT,
			 RSH_SP6_REPLY_START_ACK);
	assert_int_equal(rsh_dev_hk(dev)->rst_starts, 1);
	uint64_t now = rsh_now();

	assert_true(rsh_hk_blocked(dev, now));
	assert_true(rsh_dev_hk(dev)->blocked_until - now > 3 * rsh_hz());
	assert_false(rsh_hk_blocked(dev, now + 5 * rsh_hz()));

	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	/* The host is gone: bit 63 cleared, firmware fields kept. */
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD6) >> 63, 0);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD6) & 0xFFFFFFFF, 0x1234);
	rsh_t_mock_free(m);
}

/* Without an interrupt source the 300 ms poll answers the request. */
static void
test_handshake_polled(void **state)
{
	struct rsh_poller *p;
	struct rsh_t_mock *m;
	struct rsh_dev *dev;

	(void)state;
	m = rsh_t_open(false, &dev);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_poller_run_once(p);
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 1, 0);
	rsh_poller_run_once(p);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 0);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 1);
	assert_true(rsh_dev_hk(dev)->no_irq);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK) >> RSH_SP6__RST_REPLY_SHIFT,
			 RSH_SP6_REPLY_ACK);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
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
	struct rsh_t_mock *m;
	struct rsh_dev *dev;

	(void)state;
	m = rsh_t_open(true, &dev);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_poller_run_once(p);
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 1, 0);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 0);
	assert_true(*rsh_t_sp6() & RSH_SP6__PCIE_MASK);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK), 0);
	/* Type 3 with an interrupt: ignored. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 3, 0) | RSH_SP6__PCIE_MASK;
	rsh_t_irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal(rsh_dev_hk(dev)->irqs, 1);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 0);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK), 0);
	/* Type 1 with an interrupt: answered. */
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 1, 0) | RSH_SP6__PCIE_MASK;
	rsh_t_irq_pending = 1;
	rsh_t_sleep_ms(12);
	rsh_poller_run_once(p);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 1);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
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
	struct rsh_t_mock *m;
	struct rsh_dev *dev;

	(void)state;
	m = rsh_t_open(true, &dev);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_poller_run_once(p);
	*rsh_t_sp6() = rsh_t_state(RSH_SP6_RST_REQUEST, 2, 0) | RSH_SP6__PCIE_MASK;
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 0);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 1);
	assert_int_equal((*rsh_t_sp6() & RSH_SP6__RST_REPLY_MASK) >>
			 RSH_SP6__RST_REPLY_SHIFT, RSH_SP6_REPLY_ACK);
	rsh_t_sleep_ms(320);
	rsh_poller_run_once(p);
	assert_int_equal(rsh_dev_hk(dev)->rst_requests, 1);
	assert_int_equal(rsh_dev_hk(dev)->irqs, 0);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handshake_irq, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_handshake_polled, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_handshake_irq_only, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_handshake_irq_silent, rsh_t_setup, rsh_t_teardown),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
