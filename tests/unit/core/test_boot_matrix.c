/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The boot open state machine, table-driven: every state of the open
 * (CHECK, BOOTCTL, WDOG, RESET, DELAY, REACH) and the running push
 * (STREAM) x {cancel, device gone (all-ones reads), ARM reset (an
 * unreachable window, then the rshim answers again)} x {BlueField-2,
 * BlueField-3} x BOOT_CONTROL read at open in {2, 3}.
 *
 * The mock injects the event right after the last register access of the
 * state before (so the state under test is the first to see it). Each case
 * checks the return code, the error line, the exact control-register
 * writes the device accepted (BOOT_CONTROL, WDOG1, RESET_CONTROL) and that
 * the caller's wait ended within its deadline. The poll loop is driven by
 * the test thread on the virtual clock: a 20 s reset delay or a 60 s stall
 * a missed cancel would wait out costs no real time, and the waits are
 * measured exactly.
 *
 * On BlueField-3 the WDOG state touches no register (hardware-notes §3.2
 * notes), so its event point is the same as RESET's: both are injected
 * after the BOOT_CONTROL = 0 write.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "rsh_boot_priv.h"
#include "rsh_poll_priv.h"
#include "rsh_t_mock.h"
#include "rsh_test_eal.h"

/* Far below the 20 s reset delay and 60 s stall timeout a missed cancel
 * would wait out (virtual seconds). */
#define RSH_T_WAIT_MAX_S 8.0

/* The writes a case expects, in this order. */
#define W_BC0     (1u << 0) /* BOOT_CONTROL = 0 */
#define W_WDOG    (1u << 1) /* WDOG1 = 0 (never on BF3) */
#define W_KEY     (1u << 2) /* RESET_CONTROL reset key */
#define W_RESTORE (1u << 3) /* BOOT_CONTROL = value read at open */
#define W_EMMC    (1u << 4) /* BOOT_CONTROL = 1 after a complete push */

enum rsh_t_state {
	ST_CHECK, ST_BOOTCTL, ST_WDOG, ST_RESET, ST_DELAY, ST_REACH, ST_STREAM,
};

static const char *const rsh_t_state_name[] = {
	"CHECK", "BOOTCTL", "WDOG", "RESET", "DELAY", "REACH", "STREAM",
};

static const char *const rsh_t_ev_name[] = {
	"none", "cancel", "gone", "arm-reset",
};

struct rsh_t_case {
	enum rsh_t_state st;
	enum rsh_t_ev ev;
	int64_t delay_ms;     /* reset delay of the open */
	uint64_t down_ms;     /* the ARM reset window (key write or event) */
	int rc;               /* of the open, or of close for STREAM */
	const char *msg1;     /* both in the error line (NULL: none) */
	const char *msg2;
	const char *not_msg;  /* must not be in it */
	unsigned int writes;  /* W_* */
};

/*
 * The matrix. The reset windows are long enough for the poll lcore to see
 * them under load, short enough to keep the run near 10 s. A cancel before BOOTCTL leaves the device untouched; from
 * BOOTCTL on, every failure writes BOOT_CONTROL back (the device gone:
 * it cannot, and says so). An ARM reset before the key is written is a
 * failure (-EIO, restored once the rshim answers); after it, it is the
 * window the open waits out.
 */
static const struct rsh_t_case rsh_t_cases[] = {
	{ ST_CHECK, RSH_T_EV_CANCEL, 10, 20, -ECANCELED, "cancelled", "not changed",
	  "restored", 0 },
	{ ST_CHECK, RSH_T_EV_GONE, 10, 20, -ENODEV, "gone", "FABRIC_DIM", "restored", 0 },
	{ ST_CHECK, RSH_T_EV_DOWN, 10, 2000, -EIO, "not reachable", "FABRIC_DIM",
	  "restored", 0 },

	{ ST_BOOTCTL, RSH_T_EV_CANCEL, 10, 20, -ECANCELED, "cancelled", "not changed",
	  "restored", 0 },
	{ ST_BOOTCTL, RSH_T_EV_GONE, 10, 20, -ENODEV, "gone", "could NOT be restored",
	  NULL, 0 },
	{ ST_BOOTCTL, RSH_T_EV_DOWN, 10, 250, -EIO, "not reachable", "restored to",
	  "NOT", W_RESTORE },

	{ ST_WDOG, RSH_T_EV_CANCEL, 10, 20, -ECANCELED, "cancelled", "restored to",
	  "NOT", W_BC0 | W_RESTORE },
	{ ST_WDOG, RSH_T_EV_GONE, 10, 20, -ENODEV, "gone", "could NOT be restored",
	  NULL, W_BC0 },
	{ ST_WDOG, RSH_T_EV_DOWN, 10, 250, -EIO, "not reachable", "restored to",
	  "NOT", W_BC0 | W_RESTORE },

	{ ST_RESET, RSH_T_EV_CANCEL, 10, 20, -ECANCELED, "cancelled", "restored to",
	  "NOT", W_BC0 | W_WDOG | W_RESTORE },
	{ ST_RESET, RSH_T_EV_GONE, 10, 20, -ENODEV, "gone", "could NOT be restored",
	  NULL, W_BC0 | W_WDOG },
	{ ST_RESET, RSH_T_EV_DOWN, 10, 250, -EIO, "not reachable", "restored to",
	  "NOT", W_BC0 | W_WDOG | W_RESTORE },

	/* A 20 s delay: only the cancel can end the wait in time. */
	{ ST_DELAY, RSH_T_EV_CANCEL, 20000, 20, -ECANCELED, "cancelled", "restored to",
	  "NOT", W_BC0 | W_WDOG | W_KEY | W_RESTORE },
	{ ST_DELAY, RSH_T_EV_GONE, 10, 20, -ENODEV, "gone", "could NOT be restored",
	  NULL, W_BC0 | W_WDOG | W_KEY },
	{ ST_DELAY, RSH_T_EV_DOWN, 10, 300, 0, NULL, NULL, NULL,
	  W_BC0 | W_WDOG | W_KEY | W_EMMC },

	/* The reset window outlasts the delay, so REACH polls an unreachable
	 * rshim when the event comes. */
	{ ST_REACH, RSH_T_EV_CANCEL, 10, 300, -ECANCELED, "cancelled", "restored to",
	  "NOT", W_BC0 | W_WDOG | W_KEY | W_RESTORE },
	{ ST_REACH, RSH_T_EV_GONE, 10, 300, -ENODEV, "gone", "could NOT be restored",
	  NULL, W_BC0 | W_WDOG | W_KEY },
	{ ST_REACH, RSH_T_EV_DOWN, 10, 300, 0, NULL, NULL, NULL,
	  W_BC0 | W_WDOG | W_KEY | W_EMMC },

	/* The DPU stalls the FIFO (60 s stall timeout) when the event comes. */
	{ ST_STREAM, RSH_T_EV_CANCEL, 10, 20, -ECANCELED, "cancelled", "restored to",
	  "NOT", W_BC0 | W_WDOG | W_KEY | W_RESTORE },
	{ ST_STREAM, RSH_T_EV_GONE, 10, 20, -ENODEV, "disappeared", "could NOT be restored",
	  NULL, W_BC0 | W_WDOG | W_KEY },
	{ ST_STREAM, RSH_T_EV_DOWN, 10, 300, -EIO, "unreachable", "restored to",
	  "NOT", W_BC0 | W_WDOG | W_KEY | W_RESTORE },
};

static int rsh_t_cancel;
static struct rsh_poller *rsh_t_poller;

/* The clock in seconds (virtual in this test). */
static double
rsh_t_now(void)
{
	return rsh_cyc_s(rsh_now());
}

/* Arm the trigger: right after the last access of the state before st. */
static void
rsh_t_arm(struct rsh_t_mock *m, const struct rsh_t_case *c, bool bf3)
{
	struct rsh_t_trig *t = &m->trig;
	/* BF3's WDOG state has no access: RESET's point is WDOG's. */
	enum rsh_t_state st = c->st == ST_RESET && bf3 ? ST_WDOG : c->st;

	memset(t, 0, sizeof(*t));
	t->ev = c->ev;
	t->cancel = &rsh_t_cancel;
	t->down_ms = c->down_ms;
	switch (st) {
	case ST_BOOTCTL: /* CHECK ends with the BOOT_CONTROL read */
		t->reg = RSH_BOOT_CONTROL;
		break;
	case ST_RESET:
		t->on_write = true;
		t->reg = RSH_ARM_WDG_CONTROL_WCS;
		break;
	case ST_WDOG:
		t->on_write = true;
		t->reg = RSH_BOOT_CONTROL;
		t->match_val = true;
		t->val = 0;
		break;
	case ST_DELAY:
		t->on_write = true;
		t->reg = RSH_RESET_CONTROL;
		break;
	case ST_REACH: /* the first FABRIC_DIM read after the key */
		t->reg = RSH_FABRIC_DIM;
		t->after_reset = true;
		break;
	default: /* CHECK and STREAM: injected by the test itself */
		t->ev = RSH_T_EV_NONE;
		break;
	}
}

/* The writes to BOOT_CONTROL, WDOG1 and RESET_CONTROL, as W_* in order;
 * false when one is not what any W_* stands for. */
static bool
rsh_t_writes_seen(struct rsh_t_mock *m, uint64_t saved, uint64_t key,
		  unsigned int *order, unsigned int max, unsigned int *n)
{
	*n = 0;
	for (unsigned int i = 0; i < m->wlog_n; i++) {
		uint32_t off = m->wlog_off[i];
		uint64_t v = m->wlog_val[i];
		unsigned int w;

		if (off == m->map.off[RSH_ARM_WDG_CONTROL_WCS] && v == 0)
			w = W_WDOG;
		else if (off == m->map.off[RSH_RESET_CONTROL] && v == key)
			w = W_KEY;
		else if (off == m->map.off[RSH_BOOT_CONTROL] && v == 0 &&
			 (*n == 0 || saved != 0))
			w = W_BC0; /* the first 0, unless 0 is also the saved value */
		else if (off == m->map.off[RSH_BOOT_CONTROL] && v == saved)
			w = W_RESTORE;
		else if (off == m->map.off[RSH_BOOT_CONTROL] && v == 1)
			w = W_EMMC;
		else if (off == m->map.off[RSH_BOOT_CONTROL] ||
			 off == m->map.off[RSH_ARM_WDG_CONTROL_WCS] ||
			 off == m->map.off[RSH_RESET_CONTROL])
			return false;
		else
			continue;
		if (*n < max)
			order[(*n)++] = w;
	}
	return true;
}

/* Check the accepted control writes against want (in W_* bit order). */
static void
rsh_t_check_writes(struct rsh_t_mock *m, uint64_t saved, unsigned int want)
{
	uint64_t key = (0x500000000ull & ~RSH_RESET_CONTROL__KEY_MASK) | RSH_RESET_CONTROL__KEY;
	unsigned int order[16], n, k = 0;

	assert_true(rsh_t_writes_seen(m, saved, key, order, RTE_DIM(order), &n));
	for (unsigned int bit = 0; bit < 5; bit++) {
		if (!(want & (1u << bit)))
			continue;
		assert_true(k < n);
		assert_int_equal(order[k], 1u << bit);
		k++;
	}
	assert_int_equal(k, n);
}

/* Write 8 bytes into a push the DPU does not drain, inject ev, close. */
static int
rsh_t_stream(struct rsh_t_mock *m, struct rsh_boot *b, const struct rsh_t_case *c,
	     double *waited)
{
	double t0;
	int rc;

	assert_int_equal(rsh_boot_write(b, "abcdefgh", 8), 0);
	t0 = rsh_t_now();
	rsh_t_inject(m, c->ev, &rsh_t_cancel, c->down_ms);
	rc = rsh_boot_close(b, NULL);
	*waited = rsh_t_now() - t0;
	return rc;
}

/* The error line holds "<what> <value>". */
static void
rsh_t_check_line(const char *what, uint64_t value)
{
	char want[64];

	snprintf(want, sizeof(want), "%s %" PRIu64, what, value);
	if (strstr(rsh_last_error(), want) == NULL)
		print_error("want \"%s\" in: %s\n", want, rsh_last_error());
	assert_non_null(strstr(rsh_last_error(), want));
}

/* One case on one generation with one BOOT_CONTROL value. */
static void
rsh_t_run(struct rsh_poller *p, const struct rsh_t_case *c, const char *devstr,
	  uint64_t saved)
{
	/* A short ownership window: no other driver runs on the mock. */
	static const struct rsh_open_opts oo = { .own_wait_ms = 1 };
	bool bf3 = strcmp(devstr, "mock:bf3") == 0;
	unsigned int want = c->writes;
	struct rsh_boot_opts o;
	struct rsh_t_mock *m;
	struct rsh_boot *b = NULL;
	struct rsh_dev *dev;
	double t0, waited;
	int rc;

	__atomic_store_n(&rsh_t_cancel, 0, __ATOMIC_RELAXED);
	assert_int_equal(rsh_dev_open(devstr, &oo, &dev), 0);
	m = rsh_t_mock_of(dev);
	*rsh_t_reg(m, RSH_BOOT_CONTROL) = saved;
	m->down_ms = c->down_ms;
	if (c->st == ST_STREAM) /* FIFO full: the push cannot finish */
		*rsh_t_reg(m, RSH_BOOT_FIFO_COUNT) = RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE;
	rsh_t_arm(m, c, bf3);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	rsh_boot_opts_default(&o);
	o.reset_delay_ms = c->delay_ms;
	o.stall_timeout_ms = 60000;
	o.cancel_flag = &rsh_t_cancel;

	t0 = rsh_t_now();
	if (c->st == ST_CHECK)
		rsh_t_inject(m, c->ev, &rsh_t_cancel, c->down_ms);
	rc = rsh_boot_open(dev, p, &o, &b);
	waited = rsh_t_now() - t0;
	if (c->st == ST_STREAM) {
		assert_int_equal(rc, 0);
		rc = rsh_t_stream(m, b, c, &waited);
	} else if (c->ev != RSH_T_EV_NONE && c->st != ST_CHECK) {
		/* the event happened where the case says */
		assert_int_equal(__atomic_load_n(&m->trig.fired, __ATOMIC_ACQUIRE), 1);
	}
	print_message("  %-7s %-9s %s BOOT_CONTROL=%" PRIu64 ": rc %d after %.3f s\n",
		      rsh_t_state_name[c->st], rsh_t_ev_name[c->ev], devstr, saved, rc, waited);
	assert_true(waited < RSH_T_WAIT_MAX_S);
	if (rc != c->rc)
		print_error("rc %d, want %d: %s\n", rc, c->rc, rsh_last_error());
	assert_int_equal(rc, c->rc);
	if (c->msg1 != NULL)
		assert_non_null(strstr(rsh_last_error(), c->msg1));
	if (c->msg2 != NULL)
		assert_non_null(strstr(rsh_last_error(), c->msg2));
	if (c->not_msg != NULL)
		assert_null(strstr(rsh_last_error(), c->not_msg));
	if (rc == 0 && c->st != ST_STREAM) {
		assert_int_equal(rsh_boot_write(b, "12345678", 8), 0);
		assert_int_equal(rsh_boot_close(b, NULL), 0);
	}
	/* Off the poller first: its services (the keepalive) keep writing
	 * while the device is attached; after this the mock is ours alone. */
	assert_int_equal(rsh_poller_remove(p, dev), 0);
	if (bf3) /* hardware-notes §3.2 notes: never on BF3 */
		want &= ~W_WDOG;
	rsh_t_check_writes(m, saved, want);
	assert_int_equal(rsh_t_writes_to(m, RSH_ARM_WDG_CONTROL_WCS), bf3 ? 0 : !!(want & W_WDOG));
	assert_int_equal(m->resets, !!(want & W_KEY));
	if (want & W_RESTORE)
		assert_int_equal(*rsh_t_reg(m, RSH_BOOT_CONTROL) & RSH_BOOT_CONTROL__MODE_MASK, saved);
	else if (want & W_EMMC)
		assert_int_equal(*rsh_t_reg(m, RSH_BOOT_CONTROL), 1);
	else if (!(want & W_BC0))
		assert_int_equal(*rsh_t_reg(m, RSH_BOOT_CONTROL), saved);
	if (want & W_BC0) /* BOOT_CONTROL was changed (and maybe restored) */
		assert_null(strstr(rsh_last_error(), "not changed"));
	if (want & W_RESTORE)
		rsh_t_check_line("restored to", saved);
	if (c->msg2 != NULL && strstr(c->msg2, "could NOT") != NULL)
		rsh_t_check_line("could NOT be restored to", saved);
	assert_int_equal(m->overlaps, 0);
	rsh_dev_close(dev);
}

/* Every row on BF2 and BF3, with BOOT_CONTROL 2 and 3 at open. */
static void
test_boot_matrix(void **state)
{
	static const char *const gens[] = { "mock:bf2", "mock:bf3" };
	static const uint64_t saved[] = { 2, 3 };
	struct rsh_poller *p;

	(void)state;
	/* Stale, no owner's magic: 1 ms ownership window per open. */
	rsh_t_next.set_sp1 = true;
	rsh_t_next.sp1 = 0x5eed;
	rsh_clock_virtual_set(true);
	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	rsh_t_poller = p;
	assert_int_equal(rsh_poller_start_driven(p), 0);
	for (unsigned int i = 0; i < RTE_DIM(rsh_t_cases); i++)
		for (unsigned int g = 0; g < RTE_DIM(gens); g++)
			for (unsigned int s = 0; s < RTE_DIM(saved); s++)
				rsh_t_run(p, &rsh_t_cases[i], gens[g], saved[s]);
}

/* Stop the loop also after a failed case, so the run ends at once. */
static int
rsh_t_teardown(void **state)
{
	(void)state;
	rsh_poller_destroy(rsh_t_poller);
	rsh_t_poller = NULL;
	rsh_clock_virtual_set(false);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_boot_matrix, rsh_t_teardown),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
