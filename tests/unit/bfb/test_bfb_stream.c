/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/bfb's stream side: concatenated BFBs (what mlx-mkbfb -c
 * accepts), bf.cfg/rootfs trailers, the repeated id+version warning, the
 * check of a stream's first bytes (rsh_bfb_check_head) and validation
 * through a read function (rsh_bfb_validate_stream) with short reads and
 * read errors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rsh_bfb_fmt.h"

#define RSH_T_MAX 8

/* A BFB built from (id, len, version) triples. */
struct rsh_t_bfb {
	uint8_t *buf;
	size_t len;
};

/* Deterministic image data. */
static void
rsh_t_fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* Build a BFB of n images; ids/lens/vers give each image. */
static struct rsh_t_bfb
rsh_t_make(unsigned int n, const uint8_t *ids, const uint32_t *lens,
	   const uint8_t *vers)
{
	struct rsh_bfb_wimage imgs[RSH_T_MAX];
	uint8_t *data[RSH_T_MAX];
	struct rsh_t_bfb b;

	assert_true(n <= RSH_T_MAX);
	for (unsigned int i = 0; i < n; i++) {
		data[i] = malloc(lens[i] ? lens[i] : 1);
		assert_non_null(data[i]);
		rsh_t_fill(data[i], lens[i], ids[i] * 31u + lens[i]);
		imgs[i] = (struct rsh_bfb_wimage){ .id = ids[i],
			.cur_ver = vers ? vers[i] : 0, .data = data[i], .len = lens[i] };
	}
	b.len = rsh_bfb_size(imgs, n);
	b.buf = malloc(b.len + 4096);
	assert_non_null(b.buf);
	assert_int_equal(rsh_bfb_write(imgs, n, b.buf, b.len), (long)b.len);
	for (unsigned int i = 0; i < n; i++)
		free(data[i]);
	return b;
}

/* Two BFBs back to back, then a bf.cfg trailer: valid, 2 BFBs. */
static void
test_concatenation(void **state)
{
	static const uint8_t ids1[] = { 2, 4, 62 }, ids2[] = { 62, 63 };
	static const uint32_t lens1[] = { 100, 13, 4000 }, lens2[] = { 77, 300 };
	static const char cfg[] = "UPDATE_DPU_OS=yes\nUBUNTU_PASSWORD=x\n";
	struct rsh_t_bfb a = rsh_t_make(3, ids1, lens1, NULL);
	struct rsh_t_bfb b = rsh_t_make(2, ids2, lens2, (const uint8_t[]){ 1, 0 });
	struct rsh_bfb_result res;
	uint8_t *cat = malloc(a.len + b.len + sizeof(cfg));

	(void)state;
	assert_non_null(cat);
	memcpy(cat, a.buf, a.len);
	memcpy(cat + a.len, b.buf, b.len);
	memcpy(cat + a.len + b.len, cfg, sizeof(cfg));
	assert_int_equal(rsh_bfb_walk(cat, a.len + b.len + sizeof(cfg), NULL, NULL, &res), 0);
	assert_int_equal(res.n_images, 5);
	assert_int_equal(res.n_bfbs, 2);
	assert_int_equal(res.images_end, a.len + b.len);
	assert_int_equal(res.trailing_bytes, sizeof(cfg));
	/* 62 version 0 then 62 version 1: no repeat. */
	assert_int_equal(res.n_warnings, 0);
	/* Cut inside the second BFB: still an error. */
	assert_int_equal(rsh_bfb_walk(cat, a.len + 30, NULL, NULL, &res), -EINVAL);
	free(cat);
	free(a.buf);
	free(b.buf);
}

/* The same BFB twice: valid, every image of the second repeats. */
static void
test_repeat_warning(void **state)
{
	static const uint8_t ids[] = { 2, 62 };
	static const uint32_t lens[] = { 64, 128 };
	struct rsh_t_bfb a = rsh_t_make(2, ids, lens, (const uint8_t[]){ 0, 3 });
	struct rsh_bfb_result res;
	uint8_t *cat = malloc(2 * a.len);
	char want[64];

	(void)state;
	assert_non_null(cat);
	memcpy(cat, a.buf, a.len);
	memcpy(cat + a.len, a.buf, a.len);
	assert_int_equal(rsh_bfb_walk(cat, 2 * a.len, NULL, NULL, &res), 0);
	assert_int_equal(res.n_images, 4);
	assert_int_equal(res.n_warnings, 2);
	snprintf(want, sizeof(want), "image 2 (id 2 '%s')", rsh_bfb_id_name(2));
	assert_non_null(strstr(res.warn, want));
	assert_non_null(strstr(res.warn, "repeats id 2 version 0 of image 0"));
	snprintf(want, sizeof(want), "offset 0x%zx", a.len);
	assert_non_null(strstr(res.warn, want));
	/* One BFB alone: no warning. */
	assert_int_equal(rsh_bfb_walk(cat, a.len, NULL, NULL, &res), 0);
	assert_int_equal(res.n_warnings, 0);
	assert_string_equal(res.warn, "");
	free(cat);
	free(a.buf);
}

/* Within one BFB a following bitmap still has to announce the next id. */
static void
test_following_still_checked(void **state)
{
	static const uint8_t ids[] = { 2, 4, 62 };
	static const uint32_t lens[] = { 8, 8, 8 };
	struct rsh_t_bfb a = rsh_t_make(3, ids, lens, NULL);
	struct rsh_bfb_result res;
	uint64_t w[3];

	(void)state;
	/* Image 1 (id 4) claims only id 63 follows: image 2 (id 62) is not announced. */
	memcpy(w, a.buf + 32, sizeof(w));
	w[2] = 1ull << 63;
	memcpy(a.buf + 32, w, sizeof(w));
	assert_int_equal(rsh_bfb_walk(a.buf, a.len, NULL, NULL, &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_FOLLOWING);
	free(a.buf);
}

/* The first bytes of a stream: complete images checked, a cut is fine. */
static void
test_check_head(void **state)
{
	static const uint8_t ids[] = { 2, 62 };
	static const uint32_t lens[] = { 1000, 5000 };
	struct rsh_t_bfb a = rsh_t_make(2, ids, lens, NULL);
	struct rsh_bfb_result res;
	size_t cuts[] = { 24, 30, 1024, 1048, 1050, 3000 };

	(void)state;
	for (unsigned int i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		assert_int_equal(rsh_bfb_check_head(a.buf, cuts[i], &res), 0);
		assert_int_equal(res.n_images, cuts[i] >= 1024 ? 1 : 0);
	}
	assert_int_equal(rsh_bfb_check_head(a.buf, a.len, &res), 0);
	assert_int_equal(res.n_images, 2);
	/* Not a BFB, or empty: refused at once. */
	a.buf[0] ^= 0xFF;
	assert_int_equal(rsh_bfb_check_head(a.buf, 3000, &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_MAGIC);
	a.buf[0] ^= 0xFF;
	/* A first header still incomplete is not an error yet. */
	assert_int_equal(rsh_bfb_check_head(a.buf, 10, &res), 0);
	assert_int_equal(res.n_images, 0);
	assert_int_equal(rsh_bfb_check_head(a.buf, 0, &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_EMPTY);
	/* A CRC error inside the first complete image. */
	a.buf[500] ^= 1;
	assert_int_equal(rsh_bfb_check_head(a.buf, 3000, &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_CRC);
	free(a.buf);
}

/* A reader handing out a buffer in odd-sized pieces; may fail at an offset. */
struct rsh_t_reader {
	const uint8_t *buf;
	size_t len, pos, step;
	size_t fail_at;      /* SIZE_MAX: never */
	unsigned int calls;
};

static ssize_t
rsh_t_read(void *arg, void *buf, size_t len)
{
	struct rsh_t_reader *r = arg;
	size_t n = r->len - r->pos;

	r->calls++;
	if (r->pos >= r->fail_at) {
		errno = EPIPE;
		return -1;
	}
	n = n < len ? n : len;
	n = n < r->step ? n : r->step;
	memcpy(buf, r->buf + r->pos, n);
	r->pos += n;
	return (ssize_t)n;
}

/* Validation through a read function equals validation in memory. */
static void
test_validate_stream(void **state)
{
	static const uint8_t ids[] = { 2, 4, 62, 63 };
	static const uint32_t lens[] = { 100, 13, 300000, 77 };
	struct rsh_t_bfb a = rsh_t_make(4, ids, lens, NULL);
	struct rsh_t_reader r = { .buf = a.buf, .len = a.len + 100, .step = 4093,
				  .fail_at = SIZE_MAX };
	struct rsh_bfb_result res;

	(void)state;
	memset(a.buf + a.len, 'x', 100);
	assert_int_equal(rsh_bfb_validate_stream(rsh_t_read, &r, &res), 0);
	assert_int_equal(res.n_images, 4);
	assert_int_equal(res.trailing_bytes, 100);
	assert_int_equal(r.pos, r.len);
	assert_true(r.calls > a.len / 4093);
	/* A read error half-way: -errno and a message with the offset. */
	r = (struct rsh_t_reader){ .buf = a.buf, .len = a.len, .step = 4096,
				   .fail_at = 8192 };
	assert_int_equal(rsh_bfb_validate_stream(rsh_t_read, &r, &res), -EPIPE);
	assert_non_null(strstr(res.msg, "read error"));
	/* A CRC error found while streaming. */
	a.buf[24 + 104 + 24 + 16 + 24 + 5000] ^= 1;
	r = (struct rsh_t_reader){ .buf = a.buf, .len = a.len, .step = 65536,
				   .fail_at = SIZE_MAX };
	assert_int_equal(rsh_bfb_validate_stream(rsh_t_read, &r, &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_CRC);
	assert_int_equal(res.n_images, 2);
	/* Empty input. */
	r = (struct rsh_t_reader){ .buf = a.buf, .len = 0, .step = 1, .fail_at = SIZE_MAX };
	assert_int_equal(rsh_bfb_validate_stream(rsh_t_read, &r, &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_EMPTY);
	free(a.buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concatenation),
		cmocka_unit_test(test_repeat_warning),
		cmocka_unit_test(test_following_still_checked),
		cmocka_unit_test(test_check_head),
		cmocka_unit_test(test_validate_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
