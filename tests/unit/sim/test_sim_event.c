/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the emulator's event model (drivers/sim/rsh_sim_event.c):
 * the other owner in its three behaviours, secure NIC mode, the
 * SCRATCHPAD6 reset handshake, crash records, ARM reset and removal on
 * TM FIFO bytes or time, and rsh_sim_inject() from another thread.
 * On the virtual clock: the model runs at every register access, a test
 * steps the clock 1 ms between accesses and asserts the device-time of
 * each step exactly (the other driver's 300 ms keepalive and 100 ms
 * OSP periods, the reset handshake's times, gone@time:, return=).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "rsh_backend.h"
#include "rsh_bfb_fmt.h"
#include "rsh_regs.h"
#include "rsh_sim.h"
#include "rsh_t_sim.h"
#include "rsh_test_eal.h"
#include "rsh_test_time.h"

#define T_KEEPALIVE 0x0000005089836482ull
#define T_OSP_REQ 0x004F53505F524551ull
#define T_OSP_ACK 0x004F53505F41434Bull
#define T_LOCK 0x4B434F4C00000000ull

/* Read reg once a virtual millisecond until it reads want: the
 * milliseconds that took (0: at once), or -1 when max_ms passed. */
static long
rsh_t_ms_to_val(struct rsh_t_sim *t, enum rsh_reg r, uint64_t want,
		unsigned int max_ms)
{
	for (unsigned int ms = 0; ms <= max_ms; ms++) {
		if (rsh_t_rd(t, r) == want)
			return (long)ms;
		rsh_clock_advance_ns(1000000);
	}
	return -1;
}

/* Read reg once a virtual millisecond until (value & mask) == want (or,
 * with bad, until it is not a bad-access pattern); the milliseconds
 * that took, or -1 when max_ms passed. *v: the last value. */
static long
rsh_t_ms_to(struct rsh_t_sim *t, enum rsh_reg r, uint64_t mask, uint64_t want,
	    bool bad, unsigned int max_ms, uint64_t *v)
{
	for (unsigned int ms = 0; ms <= max_ms; ms++) {
		*v = rsh_t_rd(t, r);
		if (bad ? !rsh_reg_val_is_bad(*v) : (*v & mask) == want)
			return (long)ms;
		rsh_clock_advance_ns(1000000);
	}
	return -1;
}

/* The virtual milliseconds until the other driver's mode reads mode,
 * with an access (a FABRIC_DIM read) each millisecond; -1 after max_ms. */
static long
rsh_t_ms_to_mode(struct rsh_t_sim *t, uint8_t mode, unsigned int max_ms)
{
	for (unsigned int ms = 0; ms <= max_ms; ms++) {
		rsh_t_rd(t, RSH_FABRIC_DIM); /* it runs at accesses */
		if (rsh_t_stats(t).bmc_mode == mode)
			return (long)ms;
		rsh_clock_advance_ns(1000000);
	}
	return -1;
}

/* owner=bmc: the keepalive comes back at its next 300 ms step after the
 * host clears it (the access check, §6.3, waits 1 s for it); OSP_REQ
 * gets OSP_ACK at the step after, 10 of them 100 ms apart, then 1 s more
 * and the BMC lets go (§6.5). */
static void
test_owner_bmc(void **state)
{
	struct rsh_sim_stats st;
	struct rsh_t_sim t;
	uint64_t ka;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,owner=bmc");
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), T_KEEPALIVE);
	rsh_t_wr(&t, RSH_SCRATCHPAD1, 0);
	assert_int_equal(rsh_t_ms_to_val(&t, RSH_SCRATCHPAD1, T_KEEPALIVE, 3000), 300);
	rsh_t_wr(&t, RSH_SCRATCHPAD1, T_OSP_REQ);
	assert_int_equal(rsh_t_ms_to_val(&t, RSH_SCRATCHPAD1, T_OSP_ACK, 3000), 300);
	/* the first ack now; nine more 100 ms apart, 1 s more: mode 0 */
	assert_int_equal(rsh_t_ms_to_mode(&t, 0, 8000), 1900);
	st = rsh_t_stats(&t);
	assert_int_equal(st.bmc_acks, 10);
	ka = st.bmc_keepalives;
	rsh_t_wr(&t, RSH_SCRATCHPAD1, 0);
	rsh_t_wait_ms(700);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), 0); /* nobody there */
	assert_int_equal(rsh_t_stats(&t).bmc_keepalives, ka);
	rsh_t_sim_close(&t);
}

/* owner=bmc-old: OSP_REQ is overwritten by the keepalive, never acked. */
static void
test_owner_bmc_old(void **state)
{
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2,owner=bmc-old");
	rsh_t_wr(&t, RSH_SCRATCHPAD1, T_OSP_REQ);
	assert_int_equal(rsh_t_ms_to_val(&t, RSH_SCRATCHPAD1, T_KEEPALIVE, 3000), 300);
	rsh_t_wait_ms(400);
	assert_int_equal(rsh_t_stats(&t).bmc_acks, 0);
	assert_int_equal(rsh_t_stats(&t).bmc_mode, 2);
	rsh_t_sim_close(&t);
}

/* owner=bmc-request: OSP_REQ; an OSP_ACK from us hands the device over
 * (its keepalive follows at its next 100 ms step); unanswered it gives
 * up after 10 requests 100 ms apart. */
static void
test_owner_bmc_request(void **state)
{
	struct rsh_t_sim t;
	unsigned int ms;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,owner=bmc-request");
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), T_OSP_REQ);
	rsh_t_wr(&t, RSH_SCRATCHPAD1, T_OSP_ACK);
	assert_int_equal(rsh_t_ms_to_val(&t, RSH_SCRATCHPAD1, T_KEEPALIVE, 3000), 100);
	assert_int_equal(rsh_t_stats(&t).bmc_mode, 1);
	rsh_t_sim_close(&t);

	rsh_t_sim_open(&t, "sim:bf3");
	assert_int_equal(rsh_t_stats(&t).bmc_mode, 0);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_OWNER, 3), 0);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), T_OSP_REQ);
	for (ms = 0;; ms++) {
		assert_true(ms <= 8000);
		rsh_t_wr(&t, RSH_SCRATCHPAD1, T_KEEPALIVE); /* an old owner */
		if (rsh_t_stats(&t).bmc_mode == 0)
			break;
		rsh_clock_advance_ns(1000000);
	}
	assert_int_equal(ms, 1000); /* the 10th request at 900 ms, then 100 ms */
	assert_int_equal(rsh_t_stats(&t).bmc_requests, 10);
	rsh_t_sim_close(&t);
}

/* lock=1: SCRATCHPAD1 reads LOCK and ignores host writes; unlocking
 * (injected) clears it and writes stick again. */
static void
test_lock(void **state)
{
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,lock=1");
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), T_LOCK);
	rsh_t_wr(&t, RSH_SCRATCHPAD1, T_KEEPALIVE);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), T_LOCK);
	assert_int_equal(rsh_t_stats(&t).sp1_blocked, 1);
	assert_true(rsh_t_stats(&t).locked);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_LOCK, 0), 0);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), 0);
	rsh_t_wr(&t, RSH_SCRATCHPAD1, T_KEEPALIVE);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), T_KEEPALIVE);
	assert_false(rsh_t_stats(&t).locked);
	rsh_t_sim_close(&t);
}

/* The §6.7 handshake as the host runs it: REQUEST (20 ms after power-on
 * here) → ACK → START (10 ms later) → START_ACK → link down (all-ones)
 * for the 50 ms downtime → DPU reset done (its 2 ms reset window,
 * resetwin=, reads the bad-access pattern). */
static void
test_rst_handshake(void **state)
{
	const uint64_t state_m = 0xFull << 32, pcie = 1ull << 63;
	struct rsh_t_sim t;
	uint64_t v;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,booted=1,peer=none,rst=dpu:50ms@20ms");
	assert_int_equal(rsh_t_ms_to(&t, RSH_SCRATCHPAD6, state_m, 1ull << 32, false,
				     5000, &v), 20);
	assert_int_equal((v >> 52) & 7, 1);     /* rst_type DPU */
	assert_int_equal((v >> 40) & 0xFF, 5);  /* 50 ms in 10 ms units */
	rsh_t_wr(&t, RSH_SCRATCHPAD6, v | 1ull << 38 | pcie); /* ACK */
	assert_int_equal(rsh_t_ms_to(&t, RSH_SCRATCHPAD6, state_m, 2ull << 32, false,
				     5000, &v), 10);
	rsh_t_wr(&t, RSH_SCRATCHPAD6, (v & ~(3ull << 38)) | 3ull << 38 | pcie);
	assert_int_equal(rsh_t_rd(&t, RSH_FABRIC_DIM), UINT64_MAX); /* link down */
	assert_int_equal(rsh_t_ms_to(&t, RSH_FABRIC_DIM, UINT64_MAX, RSH_BAD_ACCESS1,
				     false, 5000, &v), 50);
	assert_int_equal(rsh_t_ms_to(&t, RSH_FABRIC_DIM, 0, 0, true, 5000, &v), 2);
	v = rsh_t_rd(&t, RSH_SCRATCHPAD6);
	assert_int_equal(v & state_m, 0);
	assert_true((v & pcie) != 0); /* the host's bit survives */
	assert_int_equal(rsh_t_stats(&t).rst_done, 1);
	assert_int_equal(rsh_t_stats(&t).arm_resets, 1);
	assert_int_equal(rsh_t_stats(&t).resets, 0);
	/* NIC reset, injected: no ARM reset; an abort is left in SP6 */
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_RST_REQUEST, 2), 0);
	v = rsh_t_rd(&t, RSH_SCRATCHPAD6);
	assert_int_equal((v >> 52) & 7, 2);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_RST_ABORT, 0), 0);
	v = rsh_t_rd(&t, RSH_SCRATCHPAD6);
	assert_int_equal((v & state_m) >> 32, 3);
	assert_int_equal(rsh_t_stats(&t).arm_resets, 1);
	rsh_t_sim_close(&t);
}

/* Read the whole scratch log the host's way (§5.6). */
static unsigned int
rsh_t_log(struct rsh_t_sim *t, uint64_t *w, unsigned int max)
{
	unsigned int idx, i;

	assert_int_equal(rsh_t_rd(t, RSH_SEMAPHORE0), 0);
	idx = (unsigned int)(rsh_t_rd(t, RSH_SCRATCH_BUF_CTL) & 0x7F);
	rsh_t_wr(t, RSH_SCRATCH_BUF_CTL, 0);
	for (i = 0; i < idx && i < max; i++)
		w[i] = rsh_t_rd(t, RSH_SCRATCH_BUF_DAT);
	rsh_t_wr(t, RSH_SCRATCH_BUF_CTL, idx);
	rsh_t_wr(t, RSH_SEMAPHORE0, 0);
	return i;
}

/* Index of the first record of module/type, or -1. */
static int
rsh_t_find(const uint64_t *w, unsigned int n, unsigned int mod,
	   unsigned int type)
{
	unsigned int i;

	for (i = 0; i < n; i += 1 + ((w[i] >> 48) & 0x7F))
		if ((w[i] >> 60) == mod && ((w[i] >> 56) & 0xF) == type)
			return (int)i;
	return -1;
}

/* Injected PANIC and EXCEPTION: BL31 records, PC/ESR in bits 31:0, four
 * (MRS opcode, value) pairs. */
static void
test_crash_inject(void **state)
{
	uint64_t w[RSH_SCRATCH_BUF_WORDS];
	struct rsh_t_sim t;
	unsigned int n, k;
	int i;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2");
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_PANIC, 0), 0);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_EXCEPTION, 0), 0);
	n = rsh_t_log(&t, w, RTE_DIM(w));
	assert_int_equal(n, 18);
	i = rsh_t_find(w, n, 4, 1);
	assert_int_equal(i, 0);
	assert_int_equal((w[0] >> 48) & 0x7F, 8);
	assert_int_not_equal(w[0] & 0xFFFFFFFF, 0);
	for (k = 0; k < 4; k++) /* MRS: bits 31:21 = 0x6A9 (0xD52/0xD53 prefix) */
		assert_int_equal(w[1 + 2 * k] >> 22, 0xD5200000u >> 22);
	i = rsh_t_find(w, n, 4, 2);
	assert_int_equal(i, 9);
	assert_int_equal((w[9] & 0xFFFFFFFF) >> 26, 0x2F); /* SError */
	assert_int_equal(rsh_t_stats(&t).crash_records, 2);
	rsh_t_sim_close(&t);
}

/* crash=exception: the boot stream completes but BL31 crashes instead of
 * "DPU is ready"; the next boot succeeds. */
static void
test_crash_boot(void **state)
{
	static uint8_t d[64], buf[512];
	struct rsh_bfb_wimage im[3] = {
		{ .id = 1, .data = d, .len = 8 }, { .id = 3, .data = d, .len = 8 },
		{ .id = 5, .data = d, .len = 8 },
	};
	uint64_t w[RSH_SCRATCH_BUF_WORDS], v;
	long len = rsh_bfb_write(im, 3, buf, sizeof(buf));
	struct rsh_t_sim t;
	unsigned int n, round;

	(void)state;
	assert_true(len > 0);
	rsh_t_sim_open(&t, "sim:bf3,crash=exception,resetwin=0");
	for (round = 0; round < 2; round++) {
		rsh_t_wr(&t, RSH_BOOT_CONTROL, 0);
		v = rsh_t_rd(&t, RSH_RESET_CONTROL);
		rsh_t_wr(&t, RSH_RESET_CONTROL, (v & ~0xFFFFFFFFull) | 0xCA710001ull);
		t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA],
				      (const uint64_t *)buf, (unsigned int)len / 8);
		assert_int_equal(rsh_t_stats(&t).booted, round == 1);
		assert_int_equal(rsh_t_stats(&t).stream_error, round == 0);
	}
	n = rsh_t_log(&t, w, RTE_DIM(w));
	assert_true(rsh_t_find(w, n, 4, 2) >= 0);
	assert_int_equal(rsh_t_stats(&t).crash_records, 1);
	rsh_t_sim_close(&t);
}

/* gone@tm:64 and armreset@tm:64: the 8th TM FIFO word written fires it. */
static void
test_tm_triggers(void **state)
{
	struct rsh_t_sim t;
	unsigned int i;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,gone@tm:64");
	for (i = 0; i < 7; i++)
		rsh_t_wr(&t, RSH_TM_HOST_TO_TILE_DATA, 0);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 7);
	rsh_t_wr(&t, RSH_TM_HOST_TO_TILE_DATA, 0);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), UINT64_MAX);
	assert_true(rsh_t_stats(&t).gone);
	assert_int_equal(rsh_t_stats(&t).tm_bytes, 64);
	rsh_t_sim_close(&t);

	rsh_t_sim_open(&t, "sim:bf3,armreset=tm:64,resetwin=0");
	for (i = 0; i < 8; i++)
		rsh_t_wr(&t, RSH_TM_HOST_TO_TILE_DATA, 0);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 0); /* cleared */
	assert_int_equal(rsh_t_stats(&t).arm_resets, 1);
	for (i = 0; i < 8; i++) /* once only */
		rsh_t_wr(&t, RSH_TM_HOST_TO_TILE_DATA, 0);
	assert_int_equal(rsh_t_rd(&t, RSH_TM_HOST_TO_TILE_STS), 8);
	assert_int_equal(rsh_t_stats(&t).arm_resets, 1);
	rsh_t_sim_close(&t);
}

/* gone@time:30ms: readable for 30 ms of device time, all-ones after. */
static void
test_time_trigger(void **state)
{
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf1,gone@time:30ms");
	assert_false(rsh_reg_val_is_bad(rsh_t_rd(&t, RSH_FABRIC_DIM)) &&
		     rsh_t_stats(&t).gone);
	assert_int_equal(rsh_t_ms_to_val(&t, RSH_FABRIC_DIM, UINT64_MAX, 5000), 30);
	assert_true(rsh_t_stats(&t).gone);
	rsh_t_sim_close(&t);
}

/* Read SCRATCHPAD1 once a virtual millisecond until it reads all-ones
 * (want_gone) or not: the milliseconds that took, -1 after max_ms. */
static long
rsh_t_ms_to_gone(struct rsh_t_sim *t, bool want_gone, unsigned int max_ms)
{
	for (unsigned int ms = 0; ms <= max_ms; ms++) {
		if ((rsh_t_rd(t, RSH_SCRATCHPAD1) == UINT64_MAX) == want_gone)
			return (long)ms;
		rsh_clock_advance_ns(1000000);
	}
	return -1;
}

/* gone@time: with return=: gone at 30 ms, the device answers again 200 ms
 * later, powered on fresh (SCRATCHPAD1 written before the removal reads
 * 0, BOOT_CONTROL is its power-on value after the host changed it), and
 * gone@ does not refire. Injected GONE and RETURN land at the next access. */
static void
test_return(void **state)
{
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,gone@time:30ms,return=200ms,bootctl=1");
	rsh_t_wr(&t, RSH_SCRATCHPAD1, 0x1234);
	rsh_t_wr(&t, RSH_BOOT_CONTROL, 0);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), 0x1234);
	assert_int_equal(rsh_t_ms_to_gone(&t, true, 5000), 30);
	assert_true(rsh_t_stats(&t).gone);
	assert_int_equal(rsh_t_ms_to_gone(&t, false, 10000), 200);
	assert_false(rsh_t_stats(&t).gone);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), 0);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_CONTROL), 1);
	rsh_t_wait_ms(100); /* past the first gone@ time again: no refire */
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), 0);
	rsh_t_sim_close(&t);

	/* Injected: GONE then RETURN, no return= needed. */
	rsh_t_sim_open(&t, "sim:bf2");
	rsh_t_wr(&t, RSH_SCRATCHPAD1, 7);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_GONE, 0), 0);
	assert_int_equal(rsh_t_ms_to_gone(&t, true, 5000), 0);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_RETURN, 0), 0);
	assert_int_equal(rsh_t_ms_to_gone(&t, false, 5000), 0);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), 0);
	rsh_t_sim_close(&t);
}

struct rsh_t_inj {
	struct rsh_backend *be;
	int rc;
};

static void *
rsh_t_inject_thread(void *arg)
{
	struct rsh_t_inj *j = arg;

	j->rc = rsh_sim_inject(j->be, RSH_SIM_EV_ARM_RESET, 0);
	return NULL;
}

/* Injection from another thread lands at the next access of the MMIO
 * thread, not before; bad arguments and non-sim backends are refused. */
static void
test_inject(void **state)
{
	struct rsh_backend fake = { 0 };
	struct rsh_t_inj j;
	struct rsh_t_sim t;
	pthread_t th;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,resetwin=0");
	j.be = t.be;
	assert_int_equal(pthread_create(&th, NULL, rsh_t_inject_thread, &j), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(j.rc, 0);
	assert_int_equal(rsh_t_stats(&t).arm_resets, 0); /* posted only */
	rsh_t_rd(&t, RSH_SCRATCHPAD1);
	assert_int_equal(rsh_t_stats(&t).arm_resets, 1);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_COUNT, 0), -EINVAL);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_OWNER, 4), -EINVAL);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_RST_REQUEST, 3), -EINVAL);
	assert_int_equal(rsh_sim_inject(&fake, RSH_SIM_EV_GONE, 0), -EINVAL);
	assert_int_equal(rsh_sim_inject(NULL, RSH_SIM_EV_GONE, 0), -EINVAL);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_GONE, 0), 0);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), UINT64_MAX);
	rsh_t_sim_close(&t);
}

/* The other driver runs during our reset window too: a BMC that asks for
 * the device while the ARM resets has its OSP_REQ in SCRATCHPAD1 when the
 * registers answer again, 300 ms after the key; our keepalive written in
 * the window is lost. */
static void
test_owner_during_reset(void **state)
{
	struct rsh_t_sim t;
	uint64_t v;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,resetwin=300ms");
	rsh_t_wr(&t, RSH_SCRATCHPAD1, T_KEEPALIVE); /* we own it */
	v = rsh_t_rd(&t, RSH_RESET_CONTROL);
	rsh_t_wr(&t, RSH_RESET_CONTROL, (v & ~0xFFFFFFFFull) | 0xCA710001ull);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD1), 0xBAD00ACCE55ull);
	assert_int_equal(rsh_sim_inject(t.be, RSH_SIM_EV_OWNER, 3), 0);
	rsh_t_wr(&t, RSH_SCRATCHPAD1, T_KEEPALIVE); /* ignored: in reset */
	assert_int_equal(rsh_t_ms_to(&t, RSH_SCRATCHPAD1, 0, 0, true, 5000, &v), 300);
	assert_int_equal(v, T_OSP_REQ);
	assert_true(rsh_t_stats(&t).bmc_requests >= 1);
	rsh_t_sim_close(&t);
}

/* shared=NAME: two opens meet on the same registers; a later opener does
 * not power them on again; another generation is refused; the last
 * close removes the segment. */
static void
test_shared(void **state)
{
	const struct rsh_backend_driver *drv = rsh_backend_find("sim");
	struct rsh_backend *be;
	struct rsh_t_sim a, b, c;
	char dev[64], dev2[64], path[96];

	(void)state;
	snprintf(dev, sizeof(dev), "sim:bf3,shared=u%ld", (long)getpid());
	snprintf(dev2, sizeof(dev2), "sim:bf2,shared=u%ld", (long)getpid());
	snprintf(path, sizeof(path), "/dev/shm/rshim-sim-u%ld", (long)getpid());
	rsh_t_sim_open(&a, dev);
	rsh_t_sim_open(&b, dev);
	rsh_t_wr(&a, RSH_SCRATCHPAD2, 0x1234);
	assert_int_equal(rsh_t_rd(&b, RSH_SCRATCHPAD2), 0x1234);
	rsh_t_wr(&b, RSH_BOOT_CONTROL, 0);
	rsh_t_sim_open(&c, dev);
	assert_int_equal(rsh_t_rd(&c, RSH_BOOT_CONTROL), 0); /* not reset */
	assert_int_equal(rsh_t_rd(&c, RSH_SEMAPHORE0), 0);   /* c takes it */
	assert_int_equal(rsh_t_rd(&a, RSH_SEMAPHORE0), 1);   /* a sees it taken */
	assert_int_equal(drv->probe(dev2, NULL, &be), -EINVAL);
	assert_non_null(strstr(rsh_last_error(), "belongs to a BlueField-3"));
	rsh_t_sim_close(&c);
	rsh_t_sim_close(&b);
	assert_int_equal(access(path, F_OK), 0);
	rsh_t_sim_close(&a);
	assert_int_not_equal(access(path, F_OK), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		RSH_TEST_VIRTUAL(test_owner_bmc),
		RSH_TEST_VIRTUAL(test_owner_bmc_old),
		RSH_TEST_VIRTUAL(test_owner_bmc_request),
		RSH_TEST_VIRTUAL(test_lock),
		RSH_TEST_VIRTUAL(test_rst_handshake),
		RSH_TEST_VIRTUAL(test_crash_inject),
		RSH_TEST_VIRTUAL(test_crash_boot),
		RSH_TEST_VIRTUAL(test_tm_triggers),
		RSH_TEST_VIRTUAL(test_time_trigger),
		RSH_TEST_VIRTUAL(test_return),
		RSH_TEST_VIRTUAL(test_inject),
		RSH_TEST_VIRTUAL(test_shared),
		RSH_TEST_VIRTUAL(test_owner_during_reset),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
