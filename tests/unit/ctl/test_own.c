/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ownership (hardware-notes §6) against the mock backend, on the virtual
 * clock: the other driver (a BMC rshim that keeps SCRATCHPAD1 alive,
 * answers or ignores OSP_REQ, checks for an owner during our reset delay,
 * or asks us to hand over) is a hook that takes its steps at their due
 * times at every register access, and the poll loop is driven by the test
 * thread. Assertions are on the register words, the counters and the
 * virtual times of the steps; nothing waits in real time.
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
#include "rsh_own.h"
#include "rsh_poll_priv.h"
#include "rsh_t_mock.h"
#include "rsh_test_eal.h"

/* What the other driver does. */
enum rsh_t_role {
	T_NONE,
	T_OWNER_OLD,     /* keepalive every 100 ms; ignores OSP_REQ */
	T_OWNER_OSP,     /* keepalive; answers OSP_REQ with OSP_ACK, then leaves */
	T_CHECKER,       /* one access check: clear SCRATCHPAD1, watch 1 s */
	T_REQUESTER,     /* asks for the device: OSP_REQ until OSP_ACK */
};

/*
 * The other rshim driver, as a mock hook: at every register access it
 * catches up with the clock, taking each of its steps at the time it is
 * due (100 ms apart, 10 ms while it watches), as a BMC's rshim would.
 */
struct rsh_t_other {
	enum rsh_t_role role;
	uint64_t next;           /* clock: its next step */
	unsigned int steps;      /* steps of the current phase */
	bool acking;             /* owner: answering OSP_REQ */
	bool done;               /* it let go, or finished its check */
	bool saw_keepalive;      /* checker: an owner answered */
	bool acked;              /* requester: got OSP_ACK; owner: sent it */
	uint64_t keepalives;     /* words it wrote */
};

/* One step of the other driver at its due time. */
static void
rsh_t_other_step(struct rsh_t_mock *m, struct rsh_t_other *o)
{
	uint64_t sp1 = rsh_t_get(m, RSH_SCRATCHPAD1), period = rsh_ms_cyc(100);

	switch (o->role) {
	case T_OWNER_OSP:
		if (!o->acking && sp1 == RSH_OWN_OSP_REQ)
			o->acking = true;
		if (o->acking) {
			rsh_t_set(m, RSH_SCRATCHPAD1, RSH_OWN_OSP_ACK);
			o->acked = o->done = ++o->steps == 10;
			break;
		}
		__attribute__((fallthrough)); /* the keepalive */
	case T_OWNER_OLD:
		rsh_t_set(m, RSH_SCRATCHPAD1, RSH_OWN_KEEPALIVE);
		o->keepalives++;
		break;
	case T_CHECKER:
		if (o->steps == 0)
			rsh_t_set(m, RSH_SCRATCHPAD1, 0);
		else
			o->saw_keepalive = sp1 == RSH_OWN_KEEPALIVE;
		o->done = o->saw_keepalive || ++o->steps > 100;
		period = rsh_ms_cyc(10);
		break;
	case T_REQUESTER:
		if (o->steps > 0)
			o->acked = sp1 == RSH_OWN_OSP_ACK;
		if (!o->acked)
			rsh_t_set(m, RSH_SCRATCHPAD1, RSH_OWN_OSP_REQ);
		o->done = o->acked || ++o->steps > 10;
		break;
	default:
		o->done = true;
		break;
	}
	o->next += period;
}

/* Catch up with the clock (every access, and before a test looks). */
static void
rsh_t_other_run(struct rsh_t_mock *m)
{
	struct rsh_t_other *o = m->ctx;

	while (o != NULL && !o->done && o->role != T_NONE && rsh_now() >= o->next)
		rsh_t_other_step(m, o);
}

static bool
rsh_t_other_rd(struct rsh_t_mock *m, uint32_t off, uint64_t *v)
{
	(void)off;
	(void)v;
	rsh_t_other_run(m);
	return false;
}

/* Clock times of our keepalive writes (the driver's, not the other's). */
static uint64_t rsh_t_ka_at[64];
static unsigned int rsh_t_ka_n;

static bool
rsh_t_other_wr(struct rsh_t_mock *m, uint32_t off, uint64_t v)
{
	rsh_t_other_run(m);
	if (off == m->map.off[RSH_SCRATCHPAD1] && v == RSH_OWN_KEEPALIVE &&
	    rsh_t_ka_n < RTE_DIM(rsh_t_ka_at))
		rsh_t_ka_at[rsh_t_ka_n++] = rsh_now();
	return false;
}

static const struct rsh_t_hooks rsh_t_other_hooks = {
	.rd = rsh_t_other_rd, .wr = rsh_t_other_wr,
};

/* The other driver of the next device: role r, first step after delay_ms
 * (0: at once). */
static struct rsh_t_other rsh_t_other;

static void
rsh_t_other_start(enum rsh_t_role r, unsigned int delay_ms)
{
	memset(&rsh_t_other, 0, sizeof(rsh_t_other));
	rsh_t_other.role = r;
	rsh_t_other.next = rsh_now() + rsh_ms_cyc(delay_ms);
}

/* A BF2 mock that keeps its words after the close, with the other driver
 * of rsh_t_other; FABRIC_DIM sane. */
static struct rsh_t_mock *
rsh_t_open_fabric(const char *name, const struct rsh_open_opts *o, int want,
		  struct rsh_dev **dev, uint64_t fabric)
{
	memset(&rsh_t_next, 0, sizeof(rsh_t_next));
	rsh_t_next.hooks = &rsh_t_other_hooks;
	rsh_t_next.ctx = &rsh_t_other;
	rsh_t_next.keep = true;
	rsh_t_next.set_fabric = true;
	rsh_t_next.fabric = fabric;
	rsh_t_next.reset_delay_ms = 1500;
	*dev = NULL;
	assert_int_equal(rsh_dev_open(name, o, dev), want);
	return rsh_t_last;
}

/* Open with a sane FABRIC_DIM (0x22, BF1/BF2's, hardware-notes §1.4). */
static struct rsh_t_mock *
rsh_t_open(const char *name, const struct rsh_open_opts *o, int want, struct rsh_dev **dev)
{
	return rsh_t_open_fabric(name, o, want, dev, 0x22);
}

/* The poller of a test: driven by the test thread, on the virtual clock. */
static struct rsh_poller *
rsh_t_poll(struct rsh_dev *dev)
{
	struct rsh_poller *p;

	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	assert_int_equal(rsh_poller_start_driven(p), 0);
	return p;
}

/* Let ms of virtual time pass with the loop running. */
static void
rsh_t_run_ms(struct rsh_poller *p, unsigned int ms)
{
	rsh_poller_run_for(p, (uint64_t)ms * 1000000u);
}

/* Run the loop until cond holds, at most max_ms of virtual time. */
#define rsh_t_run_until(p, cond, max_ms) do { \
	for (unsigned int _ms = 0; !(cond) && _ms < (max_ms); _ms += 10) \
		rsh_t_run_ms((p), 10); \
} while (0)

static int
rsh_t_setup(void **state)
{
	(void)state;
	rsh_clock_virtual_set(true);
	memset(&rsh_t_other, 0, sizeof(rsh_t_other));
	rsh_t_ka_n = 0;
	return 0;
}

static int
rsh_t_teardown(void **state)
{
	(void)state;
	rsh_clock_virtual_set(false);
	return 0;
}

/* Nobody else: ours; keepalive kept up by the poll loop every 300 ms
 * (§6.2); close clears SCRATCHPAD1 and SCRATCHPAD6. */
static void
test_free_device(void **state)
{
	struct rsh_own_info oi;
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m = rsh_t_open("mock:a", NULL, 0, &dev);

	(void)state;
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE);
	p = rsh_t_poll(dev);
	rsh_t_set(m, RSH_SCRATCHPAD1, 0x1234); /* overwritten within 300 ms */
	rsh_t_run_ms(p, 1000);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE);
	rsh_dev_own_info(dev, &oi);
	assert_false(oi.dropped);
	/* The open's word, then one every 300 ms from the poll loop. */
	assert_true(rsh_t_ka_n >= 4);
	for (unsigned int i = 2; i < rsh_t_ka_n; i++) {
		uint64_t gap = rsh_cyc_ns(rsh_t_ka_at[i] - rsh_t_ka_at[i - 1]) / 1000000;

		assert_true(gap >= RSH_OWN_KEEPALIVE_MS && gap <= RSH_OWN_KEEPALIVE_MS + 10);
	}
	assert_true(oi.keepalives >= rsh_t_ka_n);
	rsh_poller_destroy(p);
	rsh_t_set(m, RSH_SCRATCHPAD6, RSH_SP6__PCIE_MASK);
	rsh_dev_close(dev);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), 0);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD6), 0);
	rsh_t_mock_free(m);
}

/* FABRIC_DIM reading 0: retried 10 times 100 ms apart, then accepted. */
static void
test_fabric_zero_accepted(void **state)
{
	struct rsh_dev *dev;
	uint64_t t0 = rsh_now();
	struct rsh_t_mock *m = rsh_t_open_fabric("mock:z", NULL, 0, &dev, 0);

	(void)state;
	assert_true(m->be.stats.reads >= 10); /* the FABRIC_DIM tries and the watch */
	assert_true(rsh_cyc_ns(rsh_now() - t0) >= 1000000000ull); /* 10 x 100 ms, virtual */
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* A BMC keeps its keepalive: -EBUSY, one line naming --force; its word
 * is left alone. */
static void
test_other_owner_busy(void **state)
{
	struct rsh_t_mock *m;
	struct rsh_dev *dev;

	(void)state;
	rsh_t_other_start(T_OWNER_OLD, 0);
	rsh_clock_advance_ns(150000000);
	m = rsh_t_open("mock:b", NULL, -EBUSY, &dev);
	assert_non_null(strstr(rsh_last_error(), "--force"));
	assert_non_null(strstr(rsh_last_error(), "seems to be"));
	rsh_clock_advance_ns(150000000);
	rsh_t_other_run(m);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE);
	assert_int_equal(rsh_t_ka_n, 0); /* never ours */
	rsh_t_mock_free(m);
}

/* --force against an owner that implements OSP: it acks, we own. */
static void
test_force_osp_owner(void **state)
{
	struct rsh_open_opts opts = { .force_own = true };
	struct rsh_own_info oi;
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m;

	(void)state;
	rsh_t_other_start(T_OWNER_OSP, 0);
	rsh_clock_advance_ns(150000000);
	m = rsh_t_open("mock:c", &opts, 0, &dev);
	assert_true(rsh_t_other.acked);
	rsh_dev_own_info(dev, &oi);
	assert_int_equal(oi.takeovers, 1);
	p = rsh_t_poll(dev);
	rsh_t_run_ms(p, 400);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* --force against an old driver that overwrites OSP_REQ: -EBUSY. */
static void
test_force_old_owner(void **state)
{
	struct rsh_open_opts opts = { .force_own = true };
	struct rsh_dev *dev;

	(void)state;
	rsh_t_other_start(T_OWNER_OLD, 0);
	rsh_clock_advance_ns(150000000);
	rsh_t_mock_free(rsh_t_open("mock:d", &opts, -EBUSY, &dev));
	assert_non_null(strstr(rsh_last_error(), "OSP_REQ"));
}

/* Another driver asks us (OSP_REQ): we ack 10 times, 100 ms apart, drop
 * 1 s later (§6.5), and leave its SCRATCHPAD1 alone; with no_release we
 * keep the device. */
static void
test_release_on_request(void **state)
{
	struct rsh_open_opts keep = { .no_release = true };
	struct rsh_own_info oi;
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m = rsh_t_open("mock:e", NULL, 0, &dev);
	uint64_t reads, v;

	(void)state;
	p = rsh_t_poll(dev);
	rsh_t_other_start(T_REQUESTER, 0);
	rsh_t_run_until(p, rsh_t_other.done, 5000);
	assert_true(rsh_t_other.acked);
	rsh_t_run_until(p, rsh_own_dropped(rsh_dev_own(dev)), 6000);
	rsh_dev_own_info(dev, &oi);
	assert_true(oi.dropped);
	assert_int_equal(oi.releases, 1);
	/* Dropped: no register access at all. */
	rsh_t_set(m, RSH_SCRATCHPAD1, RSH_OWN_KEEPALIVE); /* the new owner's word */
	reads = m->be.stats.reads;
	rsh_t_run_ms(p, 400);
	assert_int_equal(m->be.stats.reads, reads);
	assert_int_equal(rsh_dev_reg_read(dev, RSH_BOOT_CONTROL, &v), -EBUSY);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE);
	rsh_t_mock_free(m);

	m = rsh_t_open("mock:f", &keep, 0, &dev);
	p = rsh_t_poll(dev);
	rsh_t_other_start(T_REQUESTER, 0);
	rsh_t_run_until(p, rsh_t_other.done, 5000);
	assert_false(rsh_t_other.acked);
	rsh_t_run_ms(p, 400);
	assert_false(rsh_own_dropped(rsh_dev_own(dev)));
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* A BMC checks for an owner during our reset delay: the poll loop's
 * keepalive answers it, so it backs off. */
static void
test_check_during_reset_delay(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m = rsh_t_open("mock:g", NULL, 0, &dev);

	(void)state;
	p = rsh_t_poll(dev);
	rsh_t_other_start(T_CHECKER, 300);
	assert_int_equal(rsh_dev_reset(dev, 1500, NULL), 0);
	rsh_t_run_until(p, rsh_t_other.done, 2000);
	assert_true(rsh_t_other.saw_keepalive);
	assert_int_equal(rsh_t_get(m, RSH_RESET_CONTROL) & 0xFFFFFFFF, RSH_RESET_CONTROL__KEY);
	assert_int_equal(rsh_t_get(m, RSH_RESET_CONTROL) >> 32, 5); /* the mock's bits 63:32 kept */
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* A BMC that starts after us finds our keepalive. */
static void
test_other_starts_after_us(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m = rsh_t_open("mock:h", NULL, 0, &dev);

	(void)state;
	p = rsh_t_poll(dev);
	rsh_t_other_start(T_CHECKER, 0);
	rsh_t_run_until(p, rsh_t_other.done, 2000);
	assert_true(rsh_t_other.saw_keepalive);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* Secure NIC mode: LOCK in SCRATCHPAD1; boot refused with -EPERM; the
 * LOCK word is never overwritten; lifted when it goes away. */
static void
test_locked(void **state)
{
	struct rsh_own_info oi;
	struct rsh_poller *p;
	struct rsh_boot *b;
	struct rsh_dev *dev;
	struct rsh_t_mock *m;

	(void)state;
	memset(&rsh_t_next, 0, sizeof(rsh_t_next));
	rsh_t_next.set_sp1 = true;
	rsh_t_next.sp1 = RSH_OWN_LOCK;
	rsh_t_next.keep = true;
	assert_int_equal(rsh_dev_open("mock:i", NULL, &dev), 0);
	m = rsh_t_mock_of(dev);
	rsh_dev_own_info(dev, &oi);
	assert_true(oi.locked);
	p = rsh_t_poll(dev);
	assert_int_equal(rsh_boot_open(dev, p, NULL, &b), -EPERM);
	assert_non_null(strstr(rsh_last_error(), "secure NIC mode"));
	rsh_t_run_ms(p, 400);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_LOCK);
	rsh_t_set(m, RSH_SCRATCHPAD1, 0);
	rsh_t_run_ms(p, 500);
	rsh_dev_own_info(dev, &oi);
	assert_false(oi.locked);
	assert_false(oi.dropped);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* The lock lifted with another driver's keepalive already there: it took
 * the device meanwhile, so we drop. */
static void
test_locked_then_taken(void **state)
{
	struct rsh_own_info oi;
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m;

	(void)state;
	memset(&rsh_t_next, 0, sizeof(rsh_t_next));
	rsh_t_next.set_sp1 = true;
	rsh_t_next.sp1 = RSH_OWN_LOCK;
	rsh_t_next.keep = true;
	assert_int_equal(rsh_dev_open("mock:m", NULL, &dev), 0);
	m = rsh_t_mock_of(dev);
	p = rsh_t_poll(dev);
	rsh_t_run_ms(p, 250);
	rsh_t_set(m, RSH_SCRATCHPAD1, RSH_OWN_KEEPALIVE); /* the BMC's */
	rsh_t_run_until(p, rsh_own_dropped(rsh_dev_own(dev)), 1000);
	rsh_dev_own_info(dev, &oi);
	assert_true(oi.dropped);
	assert_false(oi.locked);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE); /* left alone */
	rsh_t_mock_free(m);
}

/* Drop and undrop: released words, no access, check again on the way
 * back (refused while another owner holds it, unless forced). */
static void
test_drop_undrop(void **state)
{
	struct rsh_poller *p;
	struct rsh_boot *b;
	struct rsh_dev *dev;
	struct rsh_t_mock *m = rsh_t_open("mock:j", NULL, 0, &dev);

	(void)state;
	p = rsh_t_poll(dev);
	rsh_t_run_ms(p, 350);
	assert_int_equal(rsh_dev_drop(dev, true, false), 0);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), 0);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD6), 0);
	assert_int_equal(rsh_boot_open(dev, p, NULL, &b), -EBUSY);
	rsh_t_other_start(T_OWNER_OSP, 0);
	rsh_t_run_ms(p, 150);
	rsh_t_other_run(m); /* dropped: we do not touch it; it runs anyway */
	assert_int_equal(rsh_dev_drop(dev, false, false), -EBUSY);
	assert_true(rsh_own_dropped(rsh_dev_own(dev)));
	assert_int_equal(rsh_misc_write(dev, "FORCE_CMD 1"), 0);
	assert_false(rsh_own_dropped(rsh_dev_own(dev)));
	rsh_t_run_until(p, rsh_t_other.done, 3000);
	assert_true(rsh_t_other.acked);
	rsh_t_run_ms(p, 400);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* DEBUG_CODE holds SCRATCHPAD1 and stops the keepalive until cleared. */
static void
test_debug_code(void **state)
{
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m = rsh_t_open("mock:k", NULL, 0, &dev);

	(void)state;
	p = rsh_t_poll(dev);
	assert_int_equal(rsh_misc_write(dev, "DEBUG_CODE 0xabc"), 0);
	rsh_t_run_ms(p, 700);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), 0xabc);
	assert_int_equal(rsh_misc_write(dev, "DEBUG_CODE 0x0"), 0);
	rsh_t_run_ms(p, 500);
	assert_int_equal(rsh_t_get(m, RSH_SCRATCHPAD1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* misc at level 1 asks the DPU for its keys over the TM FIFO; a silent
 * peer (Linux and UEFI are, §4.7) costs the read one second of waiting,
 * then zeros. */
static void
test_misc_silent_peer(void **state)
{
	struct rsh_tmfifo_opts to;
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m = rsh_t_open("mock:n", NULL, 0, &dev);
	char text[RSH_MISC_TEXT_MAX];
	uint64_t t0, ms;

	(void)state;
	p = rsh_t_poll(dev);
	rsh_tmfifo_opts_default(&to);
	assert_int_equal(rsh_tmfifo_attach(dev, &to), 0);
	assert_int_equal(rsh_misc_write(dev, "DISPLAY_LEVEL 1"), 0);
	t0 = rsh_now();
	assert_true(rsh_misc_read(dev, text, sizeof(text)) > 0);
	ms = rsh_cyc_ns(rsh_now() - t0) / 1000000;
	assert_true(ms >= 1000 && ms < 1100);
	assert_non_null(strstr(text, "PEER_MAC        00:00:00:00:00:00 (rw)"));
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* The UP_TIME line of a misc text, -1 when absent. */
static long
rsh_t_uptime(struct rsh_dev *dev)
{
	char text[RSH_MISC_TEXT_MAX];
	const char *p;

	assert_true(rsh_misc_read(dev, text, sizeof(text)) > 0);
	p = strstr(text, "UP_TIME         ");
	return p == NULL ? -1 : strtol(p + 16, NULL, 10);
}

/* While a push owns the device misc shows the registers it read last,
 * UP_TIME moved on by the clock's time since (hardware-notes §5.4). */
static void
test_misc_cached_uptime(void **state)
{
	struct rsh_dev *dev;
	struct rsh_t_mock *m = rsh_t_open_fabric("mock:bf3", NULL, 0, &dev,
						 0x0000000200000004ull);

	(void)state;
	rsh_t_set(m, RSH_UPTIME, 100 * RSH_UPTIME_HZ_BF3);
	assert_int_equal(rsh_t_uptime(dev), 100);
	/* A push owns the device: register reads are refused. */
	rsh_dev_boot_state(dev)->push = (struct rsh_boot *)(uintptr_t)0x1;
	rsh_t_set(m, RSH_UPTIME, 999 * RSH_UPTIME_HZ_BF3);
	rsh_clock_advance_ns(7500000000ull);
	assert_int_equal(rsh_t_uptime(dev), 107);
	rsh_clock_advance_ns(500000000ull);
	assert_int_equal(rsh_t_uptime(dev), 108);
	rsh_dev_boot_state(dev)->push = NULL;
	assert_int_equal(rsh_t_uptime(dev), 999);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

/* The boot log through the registers: SEMAPHORE0 taken and released, an
 * SError record read as an error, CLEAR_ON_READ rewinds the index, and a
 * level-2 misc read carries the lines. */
static void
test_log_crash_record(void **state)
{
	struct rsh_scratchlog_rec r[8];
	struct rsh_poller *p;
	struct rsh_dev *dev;
	struct rsh_t_mock *m;
	char text[RSH_MISC_TEXT_MAX];
	int n;

	(void)state;
	memset(&rsh_t_next, 0, sizeof(rsh_t_next));
	rsh_t_next.keep = true;
	assert_int_equal(rsh_dev_open("mock:l", NULL, &dev), 0);
	m = rsh_t_mock_of(dev);
	m->log[0] = (uint64_t)4 << 60 | (uint64_t)2 << 56 | (uint64_t)2 << 48 | 0xBE000000u;
	m->log[1] = (uint64_t)((3u << 14) | (6u << 11) | (5u << 7) | (2u << 3)) << 5;
	m->log[2] = 0xBE000000u;
	m->log_idx = 3;
	p = rsh_t_poll(dev);
	n = rsh_scratchlog_read(dev, false, r, 8);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].text, " Exception(BL31): syndrome = 0xbe000000(SError)");
	assert_int_equal(r[0].level, 2);
	assert_string_equal(r[1].text, "   esr_el3 = 0xbe000000");
	assert_int_equal(m->log_idx, 3); /* restored */
	assert_int_equal(rsh_t_get(m, RSH_SEMAPHORE0), 0); /* released */
	assert_int_equal(rsh_misc_write(dev, "DISPLAY_LEVEL 2"), 0);
	assert_int_equal(rsh_misc_write(dev, "CLEAR_ON_READ 1"), 0);
	assert_true(rsh_misc_read(dev, text, sizeof(text)) > 0);
	assert_non_null(strstr(text, "             Log Messages\n"));
	assert_non_null(strstr(text, " Exception(BL31): syndrome = 0xbe000000(SError)\n"));
	assert_int_equal(m->log_idx, 0); /* cleared on read */
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_mock_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_free_device, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_fabric_zero_accepted, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_other_owner_busy, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_force_osp_owner, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_force_old_owner, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_release_on_request, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_check_during_reset_delay, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_other_starts_after_us, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_locked, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_locked_then_taken, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_drop_undrop, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_debug_code, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_misc_silent_peer, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_misc_cached_uptime, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_log_crash_record, rsh_t_setup, rsh_t_teardown),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup, rsh_test_eal_teardown);
}
