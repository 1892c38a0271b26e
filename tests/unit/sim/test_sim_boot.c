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
#include "rsh_bfb_fmt.h"
#include "rsh_regs.h"
#include "rsh_sim.h"
#include "rsh_sim_priv.h"
#include "rsh_t_sim.h"
#include "rsh_test_eal.h"

/* The driver's boot-open: BOOT_CONTROL=0, RMW reset key, wait it out. */
static void
rsh_t_reset_for_fifo_boot(struct rsh_t_sim *t)
{
	uint64_t deadline = rsh_now() + rsh_hz();
	uint64_t v;

	rsh_t_wr(t, RSH_BOOT_CONTROL, RSH_BOOT_CONTROL_NONE);
	v = rsh_t_rd(t, RSH_RESET_CONTROL);
	rsh_t_wr(t, RSH_RESET_CONTROL, (v & ~RSH_RESET_CONTROL__KEY_MASK) |
		  RSH_RESET_CONTROL__KEY);
	while (rsh_reg_val_is_bad(rsh_t_rd(t, RSH_FABRIC_DIM))) {
		assert_true(rsh_now() < deadline);
		rsh_clock_sleep_ns(100000);
	}
}

/* Credit-based push (§3.3) of n words, giving up after ms. */
static uint64_t
rsh_t_push(struct rsh_t_sim *t, const uint64_t *w, size_t n, unsigned int ms)
{
	uint64_t deadline = rsh_now() + rsh_ms_cyc(ms);
	size_t done = 0;

	while (done < n && rsh_now() < deadline) {
		uint64_t c = rsh_t_rd(t, RSH_BOOT_FIFO_COUNT);
		unsigned int room;

		if (rsh_reg_val_is_bad(c))
			break;
		room = RSH_BOOT_FIFO_SIZE - (unsigned int)c - RSH_BOOT_FIFO_RESERVE;
		if (c >= RSH_BOOT_FIFO_SIZE - RSH_BOOT_FIFO_RESERVE) {
			rsh_clock_sleep_ns(10000); /* full: wait for the drain */
			continue;
		}
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
		{ .id = 1, .data = d0, .len = sizeof(d0) },  /* bl2 */
		{ .id = 3, .data = d1, .len = (uint32_t)big }, /* bl31 */
		{ .id = 5, .data = d2, .len = sizeof(d2) },  /* bl33 */
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

/* bl2 and bl31 of 8 bytes each in words [0, 8); the bl31 header says
 * bl33 (id 5) follows. */
static void
rsh_t_chain_prefix(uint64_t *w)
{
	static const uint8_t d[8] = "bl2-bl31";
	struct rsh_bfb_wimage pre[2] = {
		{ .id = 1, .data = d, .len = 8 },
		{ .id = 3, .data = d, .len = 8 },
	};

	assert_int_equal(rsh_bfb_write(pre, 2, (uint8_t *)w, 64), 64);
	w[6] |= 1ull << 5; /* following-images of the bl31 header */
}

/* bl33 with a header of 4 words (the extra one skipped, §D6.5), 70000
 * trailing bytes of which the first 64 KiB are kept. */
static void
test_bfb_long_header(void **state)
{
	static uint64_t w[13 + 70000 / 8];
	static uint8_t keep[RSH_SIM_BOOTFIFO_KEEP + 8];
	struct rsh_bfb_hdr h = { .magic = RSH_BFB_MAGIC, .major = 1,
				 .minor = 2, .hdr_words = 4, .id = 5,
				 .image_len = 5 };
	struct rsh_sim_stats st;
	struct rsh_t_sim t;
	size_t i;

	(void)state;
	rsh_t_chain_prefix(w);
	w[11] = 0xFFFFFFFFFFFFFFFFull; /* the extra header word */
	w[12] = 0x0000003332313000ull; /* 5 bytes + 3 bytes of padding */
	h.crc = rsh_bfb_crc32(0, &w[12], 8);
	rsh_bfb_hdr_encode(&h, &w[8]);
	for (i = 13; i < RTE_DIM(w); i++)
		w[i] = i * 0x0101010101010101ull;
	rsh_t_sim_open(&t, "sim:bf1,resetwin=0");
	rsh_t_reset_for_fifo_boot(&t);
	assert_int_equal(rsh_t_push(&t, w, RTE_DIM(w), 1000), RTE_DIM(w));
	st = rsh_t_stats(&t);
	assert_true(st.booted);
	assert_int_equal(st.images_ok, 3);
	assert_int_equal(st.trailing_bytes, (RTE_DIM(w) - 13) * 8);
	assert_int_equal(rsh_sim_bootfifo_read(t.be, keep, sizeof(keep)),
			 RSH_SIM_BOOTFIFO_KEEP);
	assert_memory_equal(keep, &w[13], RSH_SIM_BOOTFIFO_KEEP);
	assert_int_equal(rsh_sim_bootfifo_read(t.be, keep, 3), 3);
	rsh_t_sim_close(&t);
}

/* The boot chain reads forward only: a kernel alone, bl33 before bl31,
 * bl31 missing, or no bl2 fails with an ERR record from the stage that missed its
 * image; the rest of the stream is consumed and counted, never booted. */
static void
test_bfb_chain(void **state)
{
	static const struct { uint8_t ids[3]; unsigned int n; uint64_t mod;
			      const char *text; } cases[] = {
		{ { 62 }, 1, 1, "bl2 not in the boot stream" },
		{ { 1, 5, 3 }, 3, 2, "bl33 not in the boot stream" },
		{ { 1, 62, 5 }, 3, 2, "bl31 not in the boot stream" },
		{ { 1, 3, 62 }, 3, 2, "bl33 not in the boot stream" },
		{ { 3, 5, 63 }, 3, 1, "bl2 not in the boot stream" },
	};
	static uint8_t d[64], buf[512];
	uint64_t logw[RSH_SCRATCH_BUF_WORDS];
	struct rsh_bfb_wimage im[3];
	struct rsh_sim_stats st;
	struct rsh_t_sim t;
	unsigned int c, i, nw, found;
	long len;

	(void)state;
	for (c = 0; c < RTE_DIM(cases); c++) {
		for (i = 0; i < cases[c].n; i++)
			im[i] = (struct rsh_bfb_wimage){ .id = cases[c].ids[i],
				.data = d, .len = sizeof(d) };
		len = rsh_bfb_write(im, cases[c].n, buf, sizeof(buf));
		assert_true(len > 0 && len % 8 == 0);
		rsh_t_sim_open(&t, "sim:bf3,resetwin=0");
		rsh_t_reset_for_fifo_boot(&t);
		assert_int_equal(rsh_t_push(&t, (uint64_t *)buf, len / 8, 1000),
				 len / 8);
		st = rsh_t_stats(&t);
		assert_false(st.booted);
		assert_true(st.stream_error);
		assert_int_equal(st.progress, RSH_SIM_PROG_ERROR);
		assert_int_equal(st.consumed_bytes, (uint64_t)len);
		nw = rsh_t_log_read(&t, logw, RTE_DIM(logw));
		for (i = 0, found = 0; i < nw; i += 1 + ((logw[i] >> 48) & 0x7F))
			if ((logw[i] >> 60) == cases[c].mod &&
			    (logw[i] & 0xFF) == 2 &&
			    strcmp((const char *)&logw[i + 1], cases[c].text) == 0)
				found++;
		if (found != 1)
			fail_msg("case %u: no ERR record '%s'", c, cases[c].text);
		rsh_t_sim_close(&t);
	}
}

/* Is there a record of module/level whose text is text? */
static bool
rsh_t_log_has(const uint64_t *w, unsigned int n, uint64_t mod,
	      uint64_t level, const char *text)
{
	unsigned int i;

	for (i = 0; i < n; i += 1 + ((w[i] >> 48) & 0x7F))
		if ((w[i] >> 60) == mod && (w[i] & 0xFF) == level &&
		    ((w[i] >> 56) & 0xF) == 4 &&
		    strcmp((const char *)&w[i + 1], text) == 0)
			return true;
	return false;
}

/*
 * A deferred update (reset skipped) on a running DPU: Linux's bootfifo
 * reader takes the whole stream, reports "Runtime upgrade finished" and
 * SCRATCHPAD2 bits 12:11 = 10b; no reset, BOOT_CONTROL untouched. With
 * Linux down nothing reads the FIFO. A session cut short for more than
 * 500 ms is reported and the next push is a new session.
 */
static void
test_bootfifo_deferred(void **state)
{
	uint64_t logw[RSH_SCRATCH_BUF_WORDS];
	struct rsh_sim_stats st;
	struct rsh_t_bfb b;
	struct rsh_t_sim t;
	unsigned int n;

	(void)state;
	rsh_t_bfb_make(&b, 20000, 100);
	rsh_t_sim_open(&t, "sim:bf3,booted=1");
	assert_int_equal(rsh_t_push(&t, b.w, b.words, 2000), b.words);
	st = rsh_t_stats(&t);
	assert_int_equal(st.upgrades, 1);
	assert_int_equal(st.bootfifo_bytes, b.words * 8);
	assert_int_equal(st.images_ok, 3);
	assert_int_equal(st.resets, 0);
	assert_false(st.booted);
	assert_false(st.stream_error);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_CONTROL), 1);
	assert_int_equal((rsh_t_rd(&t, RSH_SCRATCHPAD2) >> 11) & 3, 2);
	n = rsh_t_log_read(&t, logw, RTE_DIM(logw));
	assert_true(rsh_t_log_has(logw, n, 0, 0, "Runtime upgrade finished"));
	assert_false(rsh_t_log_has(logw, n, 5, 0, "DPU is ready"));
	/* an update cut in the middle, then a whole one after > 500 ms */
	rsh_t_wait_ms(700);
	assert_int_equal(rsh_t_push(&t, b.w, 100, 1000), 100);
	rsh_t_wait_ms(700);
	assert_int_equal(rsh_t_push(&t, b.w, b.words, 2000), b.words);
	assert_int_equal(rsh_t_stats(&t).upgrades, 2);
	n = rsh_t_log_read(&t, logw, RTE_DIM(logw));
	assert_true(rsh_t_log_has(logw, n, 0, 2,
				  "bootfifo: stream ended inside an image"));
	rsh_t_sim_close(&t);

	rsh_t_sim_open(&t, "sim:bf3"); /* eMMC boot, Linux not running */
	assert_true(rsh_t_push(&t, b.w, b.words, 50) < b.words);
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, 0);
	assert_int_equal(rsh_t_stats(&t).upgrades, 0);
	rsh_t_sim_close(&t);
	free(b.w);
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

/*
 * drain=1M: the consumer takes 1 MB/s of clock time. One burst fills the
 * FIFO (509 words, 4 ms at that rate); the count read 2 ms later must
 * match the rate over the times the test knows: the consumer started
 * between t0 and t1 (the burst), the count was read between t2a and t2b.
 * On the virtual clock these are exact (t1 = t0, t2b - t1 = 2 ms): 2000
 * bytes, to the word.
 */
static void
test_drain_rate(void **state)
{
	static uint64_t w[509];
	uint64_t t0, t1, t2a, t2b, c, got, hz = rsh_hz();
	double lo, hi;
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2,drain=1M,resetwin=0");
	rsh_t_reset_for_fifo_boot(&t);
	t0 = rsh_now();
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w,
			      RTE_DIM(w));
	t1 = rsh_now();
	rsh_t_wait_ms(2);
	t2a = rsh_now();
	c = rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT);
	t2b = rsh_now();
	got = rsh_t_stats(&t).consumed_bytes;
	assert_int_equal(rsh_t_stats(&t).boot_overflows, 0);
	assert_int_equal(got + c * 8, sizeof(w));
	lo = 1e6 * (double)(t2a - t1) / (double)hz - 8;
	hi = 1e6 * (double)(t2b - t0) / (double)hz + 8;
	if (lo > (double)sizeof(w))
		lo = (double)sizeof(w); /* slept past the end: FIFO dry */
	if ((double)got < lo || (double)got > hi)
		fail_msg("drain 1M: %" PRIu64 " bytes consumed, want %.0f..%.0f",
			 got, lo, hi);
	rsh_t_sim_close(&t);
}

/* The FIFO standing empty while the DPU could take more is counted until
 * the host's next write: 509 words at 1 MB/s last 4.072 ms; the host
 * comes back 10 ms after its burst, so 5.928 ms are the host's lateness
 * (exact on the virtual clock). Time before the first burst is not. */
static void
test_empty_time(void **state)
{
	static uint64_t w[509];
	struct rsh_t_sim t;
	uint64_t empty, span;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf2,drain=1M,resetwin=0");
	rsh_t_reset_for_fifo_boot(&t);
	rsh_t_wait_ms(5);
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, RTE_DIM(w));
	assert_int_equal(rsh_t_stats(&t).boot_empty_ns, 0);
	rsh_t_wait_ms(10);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 0);
	t.be->ops->write_fifo(t.be, t.map.off[RSH_BOOT_FIFO_DATA], w, 1);
	empty = rsh_t_stats(&t).boot_empty_ns;
	assert_true(empty >= 5927000 && empty <= 5929000);
	/* the stream as the DPU saw it: 509 words in 4.072 ms, then the
	 * late word 8 us after the host wrote it, 10 ms after the first */
	span = rsh_t_stats(&t).boot_last_ns - rsh_t_stats(&t).boot_first_ns;
	assert_true(span >= 4071000 && span <= 4073000);
	rsh_t_wait_ms(1);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 0);
	span = rsh_t_stats(&t).boot_last_ns - rsh_t_stats(&t).boot_first_ns;
	assert_true(span >= 10007000 && span <= 10009000);
	rsh_t_sim_close(&t);
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
	t0 = rsh_now();
	rsh_t_push(&t, w, RTE_DIM(w), 10);
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, 4096);
	assert_int_equal(rsh_t_stats(&t).stalls, 1);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 509);
	while (rsh_now() - t0 < rsh_ms_cyc(25)) {
		assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 509);
		rsh_clock_sleep_ns(1000000);
	}
	rsh_t_push(&t, w, RTE_DIM(w), 2000);
	assert_true(rsh_t_stats(&t).consumed_bytes > 4096);
	/* it resumed only once the 300 ms had passed */
	assert_true(rsh_now() - t0 >= rsh_ms_cyc(300));
	rsh_t_sim_close(&t);
}

/* The stall, with an unlimited and a limited drain rate. */
static void
test_stall(void **state)
{
	(void)state;
	rsh_t_check_stall("sim:bf2,stall=300ms@4K,resetwin=0");
	rsh_t_check_stall("sim:bf2,stall=300ms@4K,resetwin=0,drain=100M");
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

/* armreset@8K: the boot ROM takes 8 KiB of the stream, then the ARM
 * resets on its own (at the next access): the boot FIFO is emptied, the
 * consumer restarts, and the trigger fires once. */
static void
test_armreset_offset(void **state)
{
	static uint64_t w[4096];
	struct rsh_t_sim t;

	(void)state;
	rsh_t_sim_open(&t, "sim:bf3,armreset@8K,resetwin=0");
	rsh_t_reset_for_fifo_boot(&t);
	assert_int_equal(rsh_t_push(&t, w, 1024, 20), 1024);
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, 8192);
	assert_int_equal(rsh_t_stats(&t).arm_resets, 0);
	(void)rsh_t_rd(&t, RSH_SCRATCHPAD1); /* the access that runs the event */
	assert_int_equal(rsh_t_stats(&t).arm_resets, 1);
	assert_int_equal(rsh_t_stats(&t).consumed_bytes, 0);
	assert_int_equal(rsh_t_rd(&t, RSH_BOOT_FIFO_COUNT), 0);
	rsh_t_push(&t, w, 2048, 20); /* more than 8 KiB again: no refire */
	assert_int_equal(rsh_t_stats(&t).arm_resets, 1);
	assert_true(rsh_t_stats(&t).consumed_bytes > 8192);
	rsh_t_sim_close(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bfb_boot),
		cmocka_unit_test(test_bfb_long_header),
		cmocka_unit_test(test_bfb_chain),
		cmocka_unit_test(test_bootfifo_deferred),
		cmocka_unit_test(test_log_semaphore),
		cmocka_unit_test(test_log_full),
		cmocka_unit_test(test_bfb_crc_error),
		cmocka_unit_test(test_bfb_bad_magic),
		cmocka_unit_test(test_drain_rate),
		cmocka_unit_test(test_drain_no_banking),
		cmocka_unit_test(test_empty_time),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_armreset_offset),
	};

	/* Every case on the virtual clock: rates and stalls exact, no waiting. */
	rsh_clock_virtual_set(true);
	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
