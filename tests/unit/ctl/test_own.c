/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ownership (hardware-notes §6) against a mock backend whose registers a
 * second thread also writes, playing the other driver: a BMC rshim that
 * keeps SCRATCHPAD1 alive, answers or ignores OSP_REQ, checks for an owner
 * during our reset delay, or asks us to hand over. Assertions are on the
 * register words and the counters, with generous deadlines.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <rte_cycles.h>

#include "rsh.h"
#include "rsh_backend.h"
#include "rsh_dev_priv.h"
#include "rsh_own.h"
#include "rsh_test_eal.h"
#include "rsh_test_time.h"

/* BF2 offsets of the mock (BAR = channel 1 << 16 | offset). */
#define T_SP1 (0x10C20 / 8)
#define T_SP6 (0x10C48 / 8)
#define T_FABRIC (0x10110 / 8)
#define T_RESET (0x10500 / 8)
#define T_LOG_CTL 0x10600u
#define T_LOG_DAT 0x10610u

struct rsh_t_mock {
	struct rsh_backend be;
	uint64_t regs[RSH_BAR0_SIZE_BF12 / 8];
	uint64_t reads;
	/* The scratch log: words, index, and the auto-incrementing pointer. */
	uint64_t log[RSH_SCRATCH_BUF_WORDS];
	unsigned int log_idx, log_ptr;
};

/* Atomic register access: the "other driver" thread shares the words. */
static uint64_t
rsh_t_rd(struct rsh_backend *be, uint32_t off)
{
	struct rsh_t_mock *m = (struct rsh_t_mock *)be;

	__atomic_fetch_add(&m->reads, 1, __ATOMIC_RELAXED);
	if (off == T_LOG_CTL)
		return m->log_idx;
	if (off == T_LOG_DAT)
		return m->log[m->log_ptr++ % RSH_SCRATCH_BUF_WORDS];
	return __atomic_load_n(&m->regs[off / 8], __ATOMIC_ACQUIRE);
}

static void
rsh_t_wr(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	struct rsh_t_mock *m = (struct rsh_t_mock *)be;

	if (off == T_LOG_CTL) {
		m->log_ptr = 0;
		m->log_idx = (unsigned int)v & 0x7F;
		return;
	}
	__atomic_store_n(&m->regs[off / 8], v, __ATOMIC_RELEASE);
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
	(void)be; /* the test frees the mock */
}

static const struct rsh_backend_ops rsh_t_ops = {
	.read64 = rsh_t_rd, .write64 = rsh_t_wr, .write_fifo = rsh_t_wfifo,
	.read_fifo = rsh_t_rfifo, .close = rsh_t_close,
};

/* The mock the next probe hands out (set up by the test first). */
static struct rsh_t_mock *rsh_t_next;

static int
rsh_t_match(const char *s)
{
	return strncmp(s, "mock:", 5) == 0;
}

static int
rsh_t_probe(const char *s, const struct rsh_open_opts *o, struct rsh_backend **out)
{
	(void)o;
	rsh_t_next->be.ops = &rsh_t_ops;
	rsh_t_next->be.gen = RSH_GEN_BF2;
	rsh_t_next->be.bar_size = RSH_BAR0_SIZE_BF12;
	rsh_t_next->be.reset_delay_ms = 1500;
	snprintf(rsh_t_next->be.name, sizeof(rsh_t_next->be.name), "%s", s);
	*out = &rsh_t_next->be;
	return 0;
}

static struct rsh_backend_driver rsh_t_drv = {
	.name = "mock", .match = rsh_t_match, .probe = rsh_t_probe,
};
RSH_BACKEND_REGISTER(rsh_t_drv);

static uint64_t
rsh_t_get(struct rsh_t_mock *m, unsigned int w)
{
	return __atomic_load_n(&m->regs[w], __ATOMIC_ACQUIRE);
}

static void
rsh_t_set(struct rsh_t_mock *m, unsigned int w, uint64_t v)
{
	__atomic_store_n(&m->regs[w], v, __ATOMIC_RELEASE);
}

/* What the other driver does. */
enum rsh_t_role {
	T_OWNER_OLD,     /* keepalive every 100 ms; ignores OSP_REQ */
	T_OWNER_OSP,     /* keepalive; answers OSP_REQ with OSP_ACK, then leaves */
	T_CHECKER,       /* one access check: clear SCRATCHPAD1, watch 1 s */
	T_REQUESTER,     /* asks for the device: OSP_REQ until OSP_ACK */
};

struct rsh_t_other {
	struct rsh_t_mock *m;
	enum rsh_t_role role;
	unsigned int delay_ms;   /* before it starts */
	int stop;
	int saw_keepalive;       /* checker: an owner answered */
	int acked;               /* requester: got OSP_ACK; owner: sent it */
	pthread_t th;
};

/* Owner roles: the keepalive, and maybe the OSP answer. */
static void
rsh_t_other_owner(struct rsh_t_other *o)
{
	while (!__atomic_load_n(&o->stop, __ATOMIC_ACQUIRE)) {
		if (o->role == T_OWNER_OSP && rsh_t_get(o->m, T_SP1) == RSH_OWN_OSP_REQ) {
			for (int i = 0; i < 10; i++) {
				rsh_t_set(o->m, T_SP1, RSH_OWN_OSP_ACK);
				rsh_t_sleep_ms(100);
			}
			__atomic_store_n(&o->acked, 1, __ATOMIC_RELEASE);
			return; /* dropped: the device is the requester's */
		}
		rsh_t_set(o->m, T_SP1, RSH_OWN_KEEPALIVE);
		rsh_t_sleep_ms(100);
	}
}

static void *
rsh_t_other_main(void *arg)
{
	struct rsh_t_other *o = arg;

	rsh_t_sleep_ms(o->delay_ms);
	switch (o->role) {
	case T_OWNER_OLD:
	case T_OWNER_OSP:
		rsh_t_other_owner(o);
		break;
	case T_CHECKER:
		rsh_t_set(o->m, T_SP1, 0);
		for (int i = 0; i < 100 && !o->saw_keepalive; i++) {
			rsh_t_sleep_ms(10);
			o->saw_keepalive = rsh_t_get(o->m, T_SP1) == RSH_OWN_KEEPALIVE;
		}
		break;
	case T_REQUESTER:
		for (int i = 0; i < 10 && !o->acked; i++) {
			rsh_t_set(o->m, T_SP1, RSH_OWN_OSP_REQ);
			rsh_t_sleep_ms(100);
			o->acked = rsh_t_get(o->m, T_SP1) == RSH_OWN_OSP_ACK;
		}
		break;
	}
	return NULL;
}

static void
rsh_t_other_start(struct rsh_t_other *o, struct rsh_t_mock *m, enum rsh_t_role r,
		  unsigned int delay_ms)
{
	memset(o, 0, sizeof(*o));
	o->m = m;
	o->role = r;
	o->delay_ms = delay_ms;
	assert_int_equal(pthread_create(&o->th, NULL, rsh_t_other_main, o), 0);
}

static void
rsh_t_other_join(struct rsh_t_other *o)
{
	__atomic_store_n(&o->stop, 1, __ATOMIC_RELEASE);
	pthread_join(o->th, NULL);
}

/* A fresh mock with a sane FABRIC_DIM and RESET_CONTROL. */
static struct rsh_t_mock *
rsh_t_mock_new(void)
{
	struct rsh_t_mock *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->regs[T_FABRIC] = 0x22;
	m->regs[T_RESET] = 0x100000000ull;
	rsh_t_next = m;
	return m;
}

/* A started poller with one device. */
static struct rsh_poller *
rsh_t_poll(struct rsh_dev *dev)
{
	struct rsh_poller *p;

	assert_int_equal(rsh_poller_create(NULL, &p), 0);
	assert_int_equal(rsh_poller_add(p, dev), 0);
	assert_int_equal(rsh_poller_start(p), 0);
	return p;
}

/* Nobody else: ours; keepalive kept up by the poll loop; close clears
 * SCRATCHPAD1 and SCRATCHPAD6. */
static void
test_free_device(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_own_info oi;
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:a", NULL, &dev), 0);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE);
	p = rsh_t_poll(dev);
	rsh_t_set(m, T_SP1, 0x1234); /* overwritten within 300 ms */
	rsh_t_sleep_ms(700);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE);
	rsh_dev_own_info(dev, &oi);
	assert_true(oi.keepalives >= 2);
	assert_false(oi.dropped);
	rsh_poller_destroy(p);
	rsh_t_set(m, T_SP6, RSH_SP6__PCIE_MASK);
	rsh_dev_close(dev);
	assert_int_equal(rsh_t_get(m, T_SP1), 0);
	assert_int_equal(rsh_t_get(m, T_SP6), 0);
	free(m);
}

/* FABRIC_DIM reading 0: retried, then accepted. */
static void
test_fabric_zero_accepted(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_dev *dev;
	uint64_t r0;

	(void)state;
	m->regs[T_FABRIC] = 0;
	assert_int_equal(rsh_dev_open("mock:z", NULL, &dev), 0);
	r0 = m->reads;
	assert_true(r0 >= 10); /* 10 FABRIC_DIM tries plus the SCRATCHPAD1 watch */
	rsh_dev_close(dev);
	free(m);
}

/* A BMC keeps its keepalive: -EBUSY, one line naming --force; its word
 * is left alone. */
static void
test_other_owner_busy(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_t_other o;
	struct rsh_dev *dev = NULL;

	(void)state;
	rsh_t_other_start(&o, m, T_OWNER_OLD, 0);
	rsh_t_sleep_ms(150);
	assert_int_equal(rsh_dev_open("mock:b", NULL, &dev), -EBUSY);
	assert_non_null(strstr(rsh_last_error(), "--force"));
	assert_non_null(strstr(rsh_last_error(), "seems to be"));
	rsh_t_sleep_ms(150);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE);
	rsh_t_other_join(&o);
	free(m);
}

/* --force against an owner that implements OSP: it acks, we own. */
static void
test_force_osp_owner(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_open_opts opts = { .force_own = true };
	struct rsh_own_info oi;
	struct rsh_t_other o;
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	rsh_t_other_start(&o, m, T_OWNER_OSP, 0);
	rsh_t_sleep_ms(150);
	assert_int_equal(rsh_dev_open("mock:c", &opts, &dev), 0);
	assert_true(__atomic_load_n(&o.acked, __ATOMIC_ACQUIRE));
	rsh_dev_own_info(dev, &oi);
	assert_int_equal(oi.takeovers, 1);
	p = rsh_t_poll(dev);
	rsh_t_sleep_ms(400);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	rsh_t_other_join(&o);
	free(m);
}

/* --force against an old driver that overwrites OSP_REQ: -EBUSY. */
static void
test_force_old_owner(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_open_opts opts = { .force_own = true };
	struct rsh_t_other o;
	struct rsh_dev *dev = NULL;

	(void)state;
	rsh_t_other_start(&o, m, T_OWNER_OLD, 0);
	rsh_t_sleep_ms(150);
	assert_int_equal(rsh_dev_open("mock:d", &opts, &dev), -EBUSY);
	assert_non_null(strstr(rsh_last_error(), "OSP_REQ"));
	rsh_t_other_join(&o);
	free(m);
}

/* Another driver asks us (OSP_REQ): we ack, then drop, and leave its
 * SCRATCHPAD1 alone; with no_release we keep the device. */
static void
test_release_on_request(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_open_opts keep = { .no_release = true };
	struct rsh_own_info oi;
	struct rsh_t_other o;
	struct rsh_poller *p;
	struct rsh_dev *dev;
	uint64_t reads;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:e", NULL, &dev), 0);
	p = rsh_t_poll(dev);
	rsh_t_other_start(&o, m, T_REQUESTER, 0);
	rsh_t_other_join(&o);
	assert_true(o.acked);
	for (int i = 0; i < 60 && !rsh_own_dropped(&dev->own); i++)
		rsh_t_sleep_ms(100);
	rsh_dev_own_info(dev, &oi);
	assert_true(oi.dropped);
	assert_int_equal(oi.releases, 1);
	/* Dropped: no register access at all. */
	rsh_t_set(m, T_SP1, RSH_OWN_KEEPALIVE); /* the new owner's word */
	reads = m->reads;
	rsh_t_sleep_ms(400);
	assert_int_equal(m->reads, reads);
	uint64_t v;

	assert_int_equal(rsh_dev_reg_read(dev, RSH_BOOT_CONTROL, &v), -EBUSY);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE);
	free(m);

	m = rsh_t_mock_new();
	assert_int_equal(rsh_dev_open("mock:f", &keep, &dev), 0);
	p = rsh_t_poll(dev);
	rsh_t_other_start(&o, m, T_REQUESTER, 0);
	rsh_t_other_join(&o);
	assert_false(o.acked);
	rsh_t_sleep_ms(400);
	assert_false(rsh_own_dropped(&dev->own));
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	free(m);
}

/* A BMC checks for an owner during our reset delay: the poll loop's
 * keepalive answers it, so it backs off. */
static void
test_check_during_reset_delay(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_t_other o;
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:g", NULL, &dev), 0);
	p = rsh_t_poll(dev);
	rsh_t_other_start(&o, m, T_CHECKER, 300);
	assert_int_equal(rsh_dev_reset(dev, 1500, NULL), 0);
	rsh_t_other_join(&o);
	assert_true(o.saw_keepalive);
	assert_int_equal(rsh_t_get(m, T_RESET) & 0xFFFFFFFF, RSH_RESET_CONTROL__KEY);
	assert_int_equal(rsh_t_get(m, T_RESET) >> 32, 1); /* bits 63:32 kept */
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	free(m);
}

/* A BMC that starts after us finds our keepalive. */
static void
test_other_starts_after_us(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_t_other o;
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:h", NULL, &dev), 0);
	p = rsh_t_poll(dev);
	rsh_t_other_start(&o, m, T_CHECKER, 0);
	rsh_t_other_join(&o);
	assert_true(o.saw_keepalive);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	free(m);
}

/* Secure NIC mode: LOCK in SCRATCHPAD1; boot refused with -EPERM; the
 * LOCK word is never overwritten; lifted when it goes away. */
static void
test_locked(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_own_info oi;
	struct rsh_poller *p;
	struct rsh_boot *b;
	struct rsh_dev *dev;

	(void)state;
	m->regs[T_SP1] = RSH_OWN_LOCK;
	assert_int_equal(rsh_dev_open("mock:i", NULL, &dev), 0);
	rsh_dev_own_info(dev, &oi);
	assert_true(oi.locked);
	p = rsh_t_poll(dev);
	assert_int_equal(rsh_boot_open(dev, p, NULL, &b), -EPERM);
	assert_non_null(strstr(rsh_last_error(), "secure NIC mode"));
	rsh_t_sleep_ms(400);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_LOCK);
	rsh_t_set(m, T_SP1, 0);
	rsh_t_sleep_ms(500);
	rsh_dev_own_info(dev, &oi);
	assert_false(oi.locked);
	assert_false(oi.dropped);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	free(m);
}

/* The lock lifted with another driver's keepalive already there: it took
 * the device meanwhile, so we drop. */
static void
test_locked_then_taken(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_own_info oi;
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	m->regs[T_SP1] = RSH_OWN_LOCK;
	assert_int_equal(rsh_dev_open("mock:m", NULL, &dev), 0);
	p = rsh_t_poll(dev);
	rsh_t_sleep_ms(250);
	rsh_t_set(m, T_SP1, RSH_OWN_KEEPALIVE); /* the BMC's */
	for (int i = 0; i < 20 && !rsh_own_dropped(&dev->own); i++)
		rsh_t_sleep_ms(50);
	rsh_dev_own_info(dev, &oi);
	assert_true(oi.dropped);
	assert_false(oi.locked);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE); /* left alone */
	free(m);
}

/* Drop and undrop: released words, no access, check again on the way
 * back (refused while another owner holds it, unless forced). */
static void
test_drop_undrop(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_t_other o;
	struct rsh_poller *p;
	struct rsh_boot *b;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:j", NULL, &dev), 0);
	p = rsh_t_poll(dev);
	rsh_t_sleep_ms(350);
	assert_int_equal(rsh_dev_drop(dev, true, false), 0);
	assert_int_equal(rsh_t_get(m, T_SP1), 0);
	assert_int_equal(rsh_t_get(m, T_SP6), 0);
	assert_int_equal(rsh_boot_open(dev, p, NULL, &b), -EBUSY);
	rsh_t_other_start(&o, m, T_OWNER_OSP, 0);
	rsh_t_sleep_ms(150);
	assert_int_equal(rsh_dev_drop(dev, false, false), -EBUSY);
	assert_true(rsh_own_dropped(&dev->own));
	assert_int_equal(rsh_misc_write(dev, "FORCE_CMD 1"), 0);
	assert_false(rsh_own_dropped(&dev->own));
	rsh_t_other_join(&o);
	assert_true(o.acked);
	rsh_t_sleep_ms(400);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	free(m);
}

/* DEBUG_CODE holds SCRATCHPAD1 and stops the keepalive until cleared. */
static void
test_debug_code(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_poller *p;
	struct rsh_dev *dev;

	(void)state;
	assert_int_equal(rsh_dev_open("mock:k", NULL, &dev), 0);
	p = rsh_t_poll(dev);
	assert_int_equal(rsh_misc_write(dev, "DEBUG_CODE 0xabc"), 0);
	rsh_t_sleep_ms(700);
	assert_int_equal(rsh_t_get(m, T_SP1), 0xabc);
	assert_int_equal(rsh_misc_write(dev, "DEBUG_CODE 0x0"), 0);
	rsh_t_sleep_ms(500);
	assert_int_equal(rsh_t_get(m, T_SP1), RSH_OWN_KEEPALIVE);
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	free(m);
}

/* The boot log through the registers: SEMAPHORE0 taken and released, an
 * SError record read as an error, CLEAR_ON_READ rewinds the index, and a
 * level-2 misc read carries the lines. */
static void
test_log_crash_record(void **state)
{
	struct rsh_t_mock *m = rsh_t_mock_new();
	struct rsh_log_rec r[8];
	struct rsh_poller *p;
	struct rsh_dev *dev;
	char text[RSH_MISC_TEXT_MAX];
	int n;

	(void)state;
	m->log[0] = (uint64_t)4 << 60 | (uint64_t)2 << 56 | (uint64_t)2 << 48 | 0xBE000000u;
	m->log[1] = (uint64_t)((3u << 14) | (6u << 11) | (5u << 7) | (2u << 3)) << 5;
	m->log[2] = 0xBE000000u;
	m->log_idx = 3;
	assert_int_equal(rsh_dev_open("mock:l", NULL, &dev), 0);
	p = rsh_t_poll(dev);
	n = rsh_log_read(dev, false, r, 8);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].text, " Exception(BL31): syndrome = 0xbe000000(SError)");
	assert_int_equal(r[0].level, 2);
	assert_string_equal(r[1].text, "   esr_el3 = 0xbe000000");
	assert_int_equal(m->log_idx, 3); /* restored */
	assert_int_equal(rsh_t_get(m, 0x10028 / 8), 0); /* SEMAPHORE0 released */
	assert_int_equal(rsh_misc_write(dev, "DISPLAY_LEVEL 2"), 0);
	assert_int_equal(rsh_misc_write(dev, "CLEAR_ON_READ 1"), 0);
	assert_true(rsh_misc_read(dev, text, sizeof(text)) > 0);
	assert_non_null(strstr(text, "             Log Messages\n"));
	assert_non_null(strstr(text, " Exception(BL31): syndrome = 0xbe000000(SError)\n"));
	assert_int_equal(m->log_idx, 0); /* cleared on read */
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_device),
		cmocka_unit_test(test_fabric_zero_accepted),
		cmocka_unit_test(test_other_owner_busy),
		cmocka_unit_test(test_force_osp_owner),
		cmocka_unit_test(test_force_old_owner),
		cmocka_unit_test(test_release_on_request),
		cmocka_unit_test(test_check_during_reset_delay),
		cmocka_unit_test(test_other_starts_after_us),
		cmocka_unit_test(test_locked),
		cmocka_unit_test(test_locked_then_taken),
		cmocka_unit_test(test_drop_undrop),
		cmocka_unit_test(test_debug_code),
		cmocka_unit_test(test_log_crash_record),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup, rsh_test_eal_teardown);
}
