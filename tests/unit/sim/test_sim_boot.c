/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the emulated rshim function (drivers/sim), boot side: the
 * boot-ROM model consuming a BFB through the boot FIFO, its scratch-log
 * records, the drain rate and the stall and gone faults. Every case opens
 * its own device through the "sim" backend driver.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>

#include "rsh_backend.h"
#include "rsh_bfb.h"
#include "rsh_regs.h"
#include "rsh_sim.h"
#include "rsh_sim_priv.h"
#include "rsh_t_sim.h"
#include "rsh_test_eal.h"

/* The driver's boot-open: BOOT_CONTROL=0, RMW reset key, wait it out. */
static void
rsh_t_reset_for_fifo_boot(struct rsh_t_sim *t)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz();
	uint64_t v;

	rsh_t_wr(t, RSH_BOOT_CONTROL, RSH_BOOT_CONTROL_NONE);
	v = rsh_t_rd(t, RSH_RESET_CONTROL);
	rsh_t_wr(t, RSH_RESET_CONTROL, (v & ~RSH_RESET_CONTROL__KEY_MASK) |
		  RSH_RESET_CONTROL__KEY);
	while (rsh_reg_val_is_bad(rsh_t_rd(t, RSH_FABRIC_DIM)))
		assert_true(rte_get_timer_cycles() < deadline);
}

/* Credit-based push (§3.3) of n words, giving up after ms. */
static uint64_t
rsh_t_push(struct rsh_t_sim *t, const uint64_t *w, size_t n, unsigned int ms)
{
	uint64_t deadline = rte_get_timer_cycles() +
			    rte_get_timer_hz() * ms / 1000;
	size_t done = 0;

	while (done < n && rte_get_timer_cycles() < deadline) {
		uint64_t c = rsh_t_rd(t, RSH_BOOT_FIFO_COUNT);
		unsigned int room;

		if (rsh_reg_val_is_bad(c))
			break;
		room = RSH_BOOT_FIFO_SIZE - (unsigned int)c - RSH_BOOT_FIFO_RESERVE;
		if (c >= RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE)
			continue;
		room = RTE_MIN((size_t)room, n - done);
		t->be->ops->write_fifo(t->be, t->map.off[RSH_BOOT_FIFO_DATA],
				       w + done, room);
		done += room;
	}
	return done;
}

/* A BFB of three images plus trailing bytes, padded to whole words. */
struct rsh_t_bfb {
	uint64_t *w;
	size_t words;
	size_t bfb_len;   /* bytes of images */
	size_t trail_len; /* trailing bytes (unpadded) */
	uint64_t img_off[3];
};

/* Build b: images of 1001, big and 77 random bytes, then trail bytes. */
static void
rsh_t_bfb_make(struct rsh_t_bfb *b, size_t big, size_t trail)
{
	static uint8_t d0[1001], d2[77];
	uint8_t *d1 = malloc(big);
	struct rsh_bfb_wimage im[3] = {
		{ .id = 1, .data = d0, .len = sizeof(d0) },
		{ .id = 5, .data = d1, .len = (uint32_t)big },
		{ .id = 63, .data = d2, .len = sizeof(d2) },
	};
	size_t i, total;
	uint8_t *p;
	long n;

	assert_non_null(d1);
	srand(42);
	for (i = 0; i < sizeof(d0); i++)
		d0[i] = (uint8_t)rand();
	for (i = 0; i < big; i++)
		d1[i] = (uint8_t)rand();
	for (i = 0; i < sizeof(d2); i++)
		d2[i] = (uint8_t)rand();
	b->bfb_len = rsh_bfb_size(im, 3);
	b->trail_len = trail;
	total = RTE_ALIGN_CEIL(b->bfb_len + trail, 8);
	b->w = calloc(total / 8, 8);
	assert_non_null(b->w);
	p = (uint8_t *)b->w;
	n = rsh_bfb_write(im, 3, p, b->bfb_len);
	assert_int_equal(n, (long)b->bfb_len);
	for (i = 0; i < trail; i++)
		p[b->bfb_len + i] = (uint8_t)(i * 7 + 3);
	b->words = total / 8;
	b->img_off[0] = 0;
	b->img_off[1] = RSH_BFB_HDR_LEN + RTE_ALIGN_CEIL(sizeof(d0), 8);
	b->img_off[2] = b->img_off[1] + RSH_BFB_HDR_LEN + RTE_ALIGN_CEIL(big, 8);
	free(d1);
}

/* Read the scratch log like the host (§5.6); returns the words read. */
static unsigned int
rsh_t_log_read(struct rsh_t_sim *t, uint64_t *w, unsigned int max)
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

/* Index of the record whose header is hdr (exact word), or -1. */
static int
rsh_t_log_find(const uint64_t *w, unsigned int n, uint64_t hdr)
{
	unsigned int i = 0;

	while (i < n) {
		if (w[i] == hdr)
			return (int)i;
		i += 1 + ((w[i] >> 48) & 0x7F);
	}
	return -1;
}

/* ---------------------------------------------------------------- */

/* A whole BFB: "DPU is ready", hash, trailing bytes kept (§D6.5, §5.6). */
static void
test_bfb_boot(void **state)
{
	static uint64_t logw[128];
	uint8_t keep[2048];
	struct rsh_sim_stats st;
	struct rsh_t_bfb b;
	struct rsh_t_sim t;
	unsigned int n;
	int i;

	(void)state;
	rsh_t_bfb_make(&b, 100003, 1000);
	rsh_t_sim_open(&t, "sim:bf3,resetwin=1ms");
	rsh_t_reset_for_fifo_boot(&t);
	assert_int_equal(rsh_t_push(&t, b.w, b.words, 5000), b.words);
	rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
	st = rsh_t_stats(&t);
	assert_true(st.booted);
	assert_false(st.stream_error);
	assert_int_equal(st.images_ok, 3);
	assert_int_equal(st.consumed_bytes, b.words * 8);
	assert_int_equal(st.hash, rsh_sim_hash_words(RSH_SIM_HASH_INIT, b.w,
						      b.words));
	assert_int_equal(st.trailing_bytes, b.words * 8 - b.bfb_len);
	assert_int_equal(st.progress, RSH_SIM_PROG_READY);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCHPAD3) & 0xFF,
			 RSH_SIM_PROG_READY);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_CONTROL), 1);
	assert_int_equal(st.boot_control, 0);
	assert_int_equal(rsh_sim_bootfifo_read(t.be, keep, sizeof(keep)),
			 b.words * 8 - b.bfb_len);
	assert_memory_equal(keep, (uint8_t *)b.w + b.bfb_len, b.trail_len);
	/* scratch log, byte-exact (§5.6) */
	n = rsh_t_log_read(&t, logw, 128);
	assert_int_equal(st.log_records, 3);
	/* UEFI MSG len 2 INFO */
	i = rsh_t_log_find(logw, n, 0x5402000000000000ull);
	assert_true(i >= 0);
	assert_int_equal(logw[i + 1], 0x7220736920555044ull); /* "DPU is r" */
	assert_int_equal(logw[i + 2], 0x0000000079646165ull); /* "eady\0..." */
	/* BL2 "Boot stream: %d images", arg 3, has_arg 1 */
	i = rsh_t_log_find(logw, n, 0x2403000000030100ull);
	assert_true(i >= 0);
	assert_memory_equal(&logw[i + 1], "Boot stream: %d images\0\0", 24);
	assert_int_equal(n, 4 + 4 + 3);
	/* the reorder check of the hash */
	RTE_SWAP(b.w[4], b.w[5]);
	assert_int_not_equal(st.hash, rsh_sim_hash_words(RSH_SIM_HASH_INIT, b.w,
							  b.words));
	free(b.w);
	rsh_t_sim_close(&t);
}

/* A header of 4 words (the extra one skipped, §D6.5), 70000 trailing bytes
 * of which the first 64 KiB are kept. */
static void
test_bfb_long_header(void **state)
{
	static uint64_t w[5 + 70000 / 8];
	static uint8_t keep[RSH_SIM_BOOTFIFO_KEEP + 8];
	struct rsh_bfb_hdr h = { .magic = RSH_BFB_MAGIC, .major = 1,
				 .minor = 2, .hdr_words = 4, .id = 62,
				 .image_len = 5 };
	struct rsh_sim_stats st;
	struct rsh_t_sim t;
	size_t i;

	(void)state;
	w[3] = 0xFFFFFFFFFFFFFFFFull; /* the extra header word */
	w[4] = 0x0000003332313000ull; /* 5 bytes + 3 bytes of padding */
	h.crc = rsh_bfb_crc32(0, &w[4], 8);
	rsh_bfb_hdr_encode(&h, w);
	for (i = 5; i < RTE_DIM(w); i++)
		w[i] = i * 0x0101010101010101ull;
	rsh_t_sim_open(&t, "sim:bf1,resetwin=0");
	rsh_t_reset_for_fifo_boot(&t);
	assert_int_equal(rsh_t_push(&t, w, RTE_DIM(w), 1000), RTE_DIM(w));
	st = rsh_t_stats(&t);
	assert_true(st.booted);
	assert_int_equal(st.images_ok, 1);
	assert_int_equal(st.trailing_bytes, (RTE_DIM(w) - 5) * 8);
	assert_int_equal(rsh_sim_bootfifo_read(t.be, keep, sizeof(keep)),
			 RSH_SIM_BOOTFIFO_KEEP);
	assert_memory_equal(keep, &w[5], RSH_SIM_BOOTFIFO_KEEP);
	assert_int_equal(rsh_sim_bootfifo_read(t.be, keep, 3), 3);
	rsh_t_sim_close(&t);
}

/* A record that does not fit the 7-bit-indexed buffer is dropped. */
static void
test_log_full(void **state)
{
	struct rsh_t_bfb b;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_bfb_make(&b, 64, 0);
	rsh_t_sim_open(&t, "sim:bf2,resetwin=0");
	rsh_t_wr(&t, RSH_SCRATCH_BUF_CTL, 120);
	rsh_t_reset_for_fifo_boot(&t);
	rsh_t_push(&t, b.w, b.words, 1000);
	assert_true(rsh_t_stats(&t).booted);
	/* 120 + 4 ("Boot stream found") fits, +4 does not, +3 ("DPU is
	 * ready") ends at 127 */
	assert_int_equal(rsh_t_stats(&t).log_records, 2);
	assert_int_equal(rsh_t_stats(&t).log_dropped, 1);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCH_BUF_CTL), 127);
	rsh_t_wr(&t, RSH_SCRATCH_BUF_CTL, 124);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCH_BUF_DAT),
			 0x5402000000000000ull);
	free(b.w);
	rsh_t_sim_close(&t);
}

/* The log waits while the host holds SEMAPHORE0. */
static void
test_log_semaphore(void **state)
{
	uint64_t logw[128];
	struct rsh_t_bfb b;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_bfb_make(&b, 64, 0);
	rsh_t_sim_open(&t, "sim:bf2,resetwin=0");
	rsh_t_reset_for_fifo_boot(&t);
	assert_int_equal(rsh_t_rd(&t, RSH_SEMAPHORE0), 0);
	rsh_t_push(&t, b.w, b.words, 1000);
	assert_true(rsh_t_stats(&t).booted);
	assert_int_equal(rsh_t_rd(&t, RSH_SCRATCH_BUF_CTL), 0);
	assert_int_equal(rsh_t_stats(&t).log_records, 0);
	rsh_t_wr(&t, RSH_SEMAPHORE0, 0);
	assert_int_equal(rsh_t_stats(&t).log_records, 3);
	assert_int_equal(rsh_t_log_read(&t, logw, 128), 11);
	free(b.w);
	rsh_t_sim_close(&t);
}

/* A CRC error: ERR[BL1] record with the header offset; consuming goes on. */
static void
test_bfb_crc_error(void **state)
{
	uint64_t logw[128], hdr;
	struct rsh_sim_stats st;
	struct rsh_t_bfb b;
	struct rsh_t_sim t;
	int i;

	(void)state;
	rsh_t_bfb_make(&b, 5000, 100);
	((uint8_t *)b.w)[b.img_off[1] + RSH_BFB_HDR_LEN + 17] ^= 0x40;
	rsh_t_sim_open(&t, "sim:bf2,resetwin=0");
	rsh_t_reset_for_fifo_boot(&t);
	rsh_t_push(&t, b.w, b.words, 1000);
	rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
	st = rsh_t_stats(&t);
	assert_false(st.booted);
	assert_true(st.stream_error);
	assert_int_equal(st.images_ok, 1);
	assert_int_equal(st.images_bad, 1);
	assert_int_equal(st.consumed_bytes, b.words * 8);
	assert_int_equal(st.hash, rsh_sim_hash_words(RSH_SIM_HASH_INIT, b.w,
						      b.words));
	assert_true(st.error_bytes > 0);
	assert_int_equal(st.progress, RSH_SIM_PROG_ERROR);
	hdr = 1ull << 60 | 4ull << 56 | 4ull << 48 | b.img_off[1] << 16 |
	      1 << 8 | 2;
	i = rsh_t_log_find(logw, rsh_t_log_read(&t, logw, 128), hdr);
	assert_true(i >= 0);
	assert_memory_equal(&logw[i + 1], "bad image CRC at offset 0x%x", 28);
	free(b.w);
	rsh_t_sim_close(&t);
}

/* Bad magic at offset 0 and a bad major version. */
static void
test_bfb_bad_magic(void **state)
{
	uint64_t logw[128], junk[8] = { 0x1122334455667788ull };
	struct rsh_t_bfb b;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2,resetwin=0");
	rsh_t_reset_for_fifo_boot(&t);
	rsh_t_push(&t, junk, 8, 1000);
	assert_true(rsh_t_stats(&t).stream_error);
	assert_int_equal(rsh_t_stats(&t).error_bytes, 5 * 8);
	assert_true(rsh_t_log_find(logw, rsh_t_log_read(&t, logw, 128),
			     1ull << 60 | 4ull << 56 | 4ull << 48 | 1 << 8 | 2) >= 0);
	assert_memory_equal(&logw[1], "bad BFB magic at offset 0x%x", 28);
	rsh_t_sim_close(&t);

	rsh_t_bfb_make(&b, 64, 0);
	b.w[b.img_off[1] / 8] ^= 3ull << 32; /* image 2: major 1 -> 2 */
	rsh_t_sim_open(&t, "sim:bf2,resetwin=0");
	rsh_t_reset_for_fifo_boot(&t);
	rsh_t_push(&t, b.w, b.words, 1000);
	assert_true(rsh_t_stats(&t).stream_error);
	assert_int_equal(rsh_t_stats(&t).images_ok, 1);
	rsh_t_log_read(&t, logw, 128);
	assert_int_equal(logw[4], 1ull << 60 | 4ull << 56 | 4ull << 48 |
			 b.img_off[1] << 16 | 1 << 8 | 2);
	assert_memory_equal(&logw[5], "bad BFB major at offset 0x%x", 28);
	free(b.w);
	rsh_t_sim_close(&t);
}

/* drain=10M: the consumer takes 10 MB/s of virtual time, ±10 %. It can
 * never take more; it takes less only when this thread is preempted for
 * longer than the FIFO lasts (400 us); on a loaded machine that happens
 * often, so up to 10 attempts may run (more is never accepted). */
static void
test_drain_rate(void **state)
{
	static uint64_t w[1 << 17];
	uint64_t t0, t1, got = 0;
	double secs, want = 0;
	struct rsh_t_sim t;
	int attempt;

	(void)state;
	for (attempt = 0; attempt < 10; attempt++) {
		rsh_t_sim_open(&t, "sim:bf2,drain=10M,resetwin=0");
		rsh_t_reset_for_fifo_boot(&t);
		t0 = rte_get_timer_cycles();
		rsh_t_push(&t, w, RTE_DIM(w), 50);
		t1 = rte_get_timer_cycles();
		got = rsh_t_stats(&t).consumed_bytes;
		assert_int_equal(rsh_t_stats(&t).boot_overflows, 0);
		rsh_t_sim_close(&t);
		secs = (double)(t1 - t0) / rte_get_timer_hz();
		want = 10e6 * secs;
		if ((double)got > want * 1.1)
			break;
		if ((double)got >= want * 0.9)
			return;
	}
	fail_msg("drain 10M: %" PRIu64 " bytes in %.4f s (want %.0f)", got,
		 secs, want);
}

/* Idle time is not banked: after 30 ms with an empty FIFO at drain=10M,
 * 509 words (4 KiB, 400 us worth) are not consumed at once (a retry covers
 * this thread being preempted between the write and the read). */
static void
test_drain_no_banking(void **state)
{
	static uint64_t w[509];
	struct rsh_t_sim t;
	uint64_t c = 0;
	int attempt;

	(void)state;
	for (attempt = 0; attempt < 10 && c <= 400; attempt++) {
		rsh_t_sim_open(&t, "sim:bf2,drain=10M,resetwin=0");
		rsh_t_reset_for_fifo_boot(&t);
		rsh_t_wait_ms(30);
		t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w,
				      509);
		c = rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
		assert_true(c <= 509);
		rsh_t_wait_ms(1);
		assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 0);
		assert_int_equal(rsh_t_stats(&t).consumed_bytes, 509 * 8);
		rsh_t_sim_close(&t);
	}
	assert_true(c > 400);
}

/* stall=30ms@4K: the consumer stops at exactly 4 KiB, then resumes. */
static void
rsh_t_check_stall(const char *devstr)
{
	static uint64_t w[2048];
	uint64_t t0;
	struct rsh_t_sim t;

	rsh_t_sim_open(&t, devstr);
	rsh_t_reset_for_fifo_boot(&t);
	t0 = rte_get_timer_cycles();
	rsh_t_push(&t, w, RTE_DIM(w), 10);
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, 4096);
	assert_int_equal(rsh_t_stats(&t).stalls, 1);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 509);
	while (rte_get_timer_cycles() - t0 < rte_get_timer_hz() * 25 / 1000)
		assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 509);
	rsh_t_push(&t, w, RTE_DIM(w), 100);
	assert_true(rsh_t_stats(&t).consumed_bytes > 4096);
	assert_true(rte_get_timer_cycles() - t0 >=
		    rte_get_timer_hz() * 30 / 1000);
	rsh_t_sim_close(&t);
}

/* The stall, with an unlimited and a limited drain rate. */
static void
test_stall(void **state)
{
	(void)state;
	rsh_t_check_stall("sim:bf2,stall=30ms@4K,resetwin=0");
	rsh_t_check_stall("sim:bf2,stall=30ms@4K,resetwin=0,drain=100M");
}

/* gone@8K: all-ones from the access after 8 KiB were consumed. */
static void
rsh_t_check_gone(const char *devstr)
{
	static uint64_t w[4096];
	struct rsh_t_sim t;

	rsh_t_sim_open(&t, devstr);
	rsh_t_reset_for_fifo_boot(&t);
	rsh_t_push(&t, w, RTE_DIM(w), 20);
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, 8192);
	assert_true(rsh_t_stats(&t).gone);
	assert_int_equal(rsh_t_rd(&t, RSH_FABRIC_DIM), RSH_ALL_ONES);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), RSH_ALL_ONES);
	rsh_t_wr(&t, RSH_SCRATCHPAD1, 5);
	assert_true(rsh_t_stats(&t).ignored_writes > 0);
	rsh_t_sim_close(&t);
}

/* Gone, with an unlimited and a limited drain rate. */
static void
test_gone(void **state)
{
	(void)state;
	rsh_t_check_gone("sim:bf3,gone@8K,resetwin=0");
	rsh_t_check_gone("sim:bf3,gone@8K,resetwin=0,drain=50M");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bfb_boot),
		cmocka_unit_test(test_bfb_long_header),
		cmocka_unit_test(test_log_semaphore),
		cmocka_unit_test(test_log_full),
		cmocka_unit_test(test_bfb_crc_error),
		cmocka_unit_test(test_bfb_bad_magic),
		cmocka_unit_test(test_drain_rate),
		cmocka_unit_test(test_drain_no_banking),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_gone),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
