/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/bfb: CRC-32, golden header bytes, writer/walker round
 * trip, trailing bytes, every violation kind, and the file validator.
 * Format facts: hardware-notes §D6.3-§D6.6.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rsh_bfb_fmt.h"

#define RSH_T_MAX_IMGS 16

/* Per-test state: a scratch directory, a BFB buffer and its images. */
struct rsh_t_state {
	char dir[64];
	uint8_t *buf;
	size_t len;
	struct rsh_bfb_wimage imgs[RSH_T_MAX_IMGS];
	uint8_t *data[RSH_T_MAX_IMGS];
	unsigned int n;
};

/* Bitwise reference CRC-32 (zlib), independent of the library's tables. */
static uint32_t
rsh_t_crc_ref(const uint8_t *p, size_t len)
{
	uint32_t c = 0xFFFFFFFFu;
	int k;

	while (len--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
	}
	return ~c;
}

/* Fill bytes with a simple deterministic pattern. */
static void
rsh_t_fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* Create the scratch directory. */
static int
rsh_t_setup(void **state)
{
	struct rsh_t_state *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return -1;
	strcpy(s->dir, "/tmp/rsh-bfb-test-XXXXXX");
	if (mkdtemp(s->dir) == NULL) {
		free(s);
		return -1;
	}
	*state = s;
	return 0;
}

/* Free buffers and remove the scratch directory. */
static int
rsh_t_teardown(void **state)
{
	struct rsh_t_state *s = *state;
	char cmd[128];
	unsigned int i;

	for (i = 0; i < s->n; i++)
		free(s->data[i]);
	free(s->buf);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	if (system(cmd) != 0)
		return -1;
	free(s);
	return 0;
}

/* Add an image of len pattern bytes to the state. */
static void
rsh_t_add(struct rsh_t_state *s, uint8_t id, uint32_t len, uint8_t ver)
{
	assert_true(s->n < RSH_T_MAX_IMGS);
	s->data[s->n] = malloc(len ? len : 1);
	assert_non_null(s->data[s->n]);
	rsh_t_fill(s->data[s->n], len, id * 7919u + len);
	s->imgs[s->n] = (struct rsh_bfb_wimage){ .id = id, .cur_ver = ver,
		.data = s->data[s->n], .len = len };
	s->n++;
}

/* Write the state's images into s->buf with extra room for trailing bytes. */
static void
rsh_t_build(struct rsh_t_state *s, size_t extra)
{
	size_t sz = rsh_bfb_size(s->imgs, s->n);

	free(s->buf);
	s->buf = calloc(1, sz + extra + 1);
	assert_non_null(s->buf);
	assert_int_equal(rsh_bfb_write(s->imgs, s->n, s->buf, sz), (long)sz);
	s->len = sz;
}

/* Offset of image i's header in a buffer written by rsh_t_build(). */
static size_t
rsh_t_off(const struct rsh_t_state *s, unsigned int i)
{
	return rsh_bfb_size(s->imgs, i);
}

/* Read, modify via callback-free field edit, and rewrite header words. */
static void
rsh_t_get_hdr(const uint8_t *p, struct rsh_bfb_hdr *h)
{
	uint64_t w[3];

	memcpy(w, p, sizeof(w));
	rsh_bfb_hdr_decode(w, h);
}

/* Encode a header back to bytes (little-endian host, as on x86/arm64). */
static void
rsh_t_put_hdr(uint8_t *p, const struct rsh_bfb_hdr *h)
{
	uint64_t w[3];

	rsh_bfb_hdr_encode(h, w);
	memcpy(p, w, sizeof(w));
}

/* Walk s->buf and return the walker's result code. */
static int
rsh_t_walk(const struct rsh_t_state *s, struct rsh_bfb_result *res)
{
	return rsh_bfb_walk(s->buf, s->len, NULL, NULL, res);
}

/* Write bytes to a file in the scratch directory; return its path. */
static char *
rsh_t_file(const struct rsh_t_state *s, const char *name, const void *p,
	   size_t n)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", s->dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* CRC golden vectors, chaining, and agreement with a bitwise CRC. */
static void
test_crc32(void **state)
{
	uint8_t buf[4096 + 16];
	size_t off, len;
	uint32_t c;

	(void)state;
	assert_int_equal(rsh_bfb_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(rsh_bfb_crc32(0, "", 0), 0);
	assert_int_equal(rsh_bfb_crc32(0, "hello\0\0\0", 8), 0xFF13B51Du);
	rsh_t_fill(buf, sizeof(buf), 42);
	for (off = 0; off < 9; off++)
		for (len = 0; len < 80; len++)
			assert_int_equal(rsh_bfb_crc32(0, buf + off, len),
					 rsh_t_crc_ref(buf + off, len));
	c = rsh_bfb_crc32(0, buf + 3, 1001);
	c = rsh_bfb_crc32(c, buf + 1004, 3000);
	assert_int_equal(c, rsh_bfb_crc32(0, buf + 3, 4001));
	assert_int_equal(c, rsh_t_crc_ref(buf + 3, 4001));
}

/* Golden bytes of a one-image BFB: id 62, "hello" (§D6.3). */
static void
test_golden_hello(void **state)
{
	static const uint8_t golden[32] = {
		0x42, 0x66, 0x02, 0x13, /* magic 0x13026642 */
		0x21,                   /* major 1 | minor 2 << 4 */
		0x00,                   /* reserved, next_ver 0 */
		0x30,                   /* cur_ver 0 | hdr_len 3 << 4 */
		0x3E,                   /* id 62 */
		0x05, 0x00, 0x00, 0x00, /* length 5 */
		0x1D, 0xB5, 0x13, 0xFF, /* crc32("hello\0\0\0") = 0xff13b51d */
		0, 0, 0, 0, 0, 0, 0, 0, /* following: none */
		'h', 'e', 'l', 'l', 'o', 0, 0, 0,
	};
	struct rsh_bfb_wimage img = { .id = 62, .data = "hello", .len = 5 };
	uint8_t out[40];
	struct rsh_bfb_result res;

	(void)state;
	memset(out, 0xAA, sizeof(out));
	assert_int_equal(rsh_bfb_size(&img, 1), 32);
	assert_int_equal(rsh_bfb_write(&img, 1, out, sizeof(out)), 32);
	assert_memory_equal(out, golden, sizeof(golden));
	assert_int_equal(out[32], 0xAA); /* nothing written past the end */
	assert_int_equal(rsh_bfb_walk(golden, 32, NULL, NULL, &res), 0);
	assert_int_equal(res.n_images, 1);
	assert_int_equal(res.images_end, 32);
	assert_int_equal(res.trailing_bytes, 0);
}

/* Bitmaps: ids 0,1,2 give 0x6, 0x4, 0x0; duplicate ids set their own bit. */
static void
test_following_bitmaps(void **state)
{
	struct rsh_t_state *s = *state;
	struct rsh_bfb_hdr h;

	rsh_t_add(s, 0, 3, 0);
	rsh_t_add(s, 1, 8, 0);
	rsh_t_add(s, 2, 0, 0);
	rsh_t_build(s, 0);
	rsh_t_get_hdr(s->buf + rsh_t_off(s, 0), &h);
	assert_int_equal(h.following, 0x6);
	rsh_t_get_hdr(s->buf + rsh_t_off(s, 1), &h);
	assert_int_equal(h.following, 0x4);
	rsh_t_get_hdr(s->buf + rsh_t_off(s, 2), &h);
	assert_int_equal(h.following, 0x0);
	assert_int_equal(h.image_len, 0);
	assert_int_equal(h.crc, 0);
}

/* Two versions of one id: own bit set on the first, next_ver = next cur_ver. */
static void
test_versions(void **state)
{
	struct rsh_t_state *s = *state;
	struct rsh_bfb_result res;
	struct rsh_bfb_hdr h;

	rsh_t_add(s, 5, 10, 1);
	rsh_t_add(s, 5, 12, 2);
	rsh_t_add(s, 63, 4, 0);
	rsh_t_build(s, 0);
	rsh_t_get_hdr(s->buf, &h);
	assert_int_equal(h.following, (1ull << 5) | (1ull << 63));
	assert_int_equal(h.cur_ver, 1);
	assert_int_equal(h.next_ver, 2);
	rsh_t_get_hdr(s->buf + rsh_t_off(s, 1), &h);
	assert_int_equal(h.following, 1ull << 63);
	assert_int_equal(h.next_ver, 0);
	rsh_t_get_hdr(s->buf + rsh_t_off(s, 2), &h);
	assert_int_equal(h.next_ver, 0);
	assert_int_equal(rsh_t_walk(s, &res), 0);
	assert_int_equal(res.n_images, 3);
}

/* What the round-trip callback saw. */
struct rsh_t_seen {
	const struct rsh_t_state *s;
	unsigned int n;
	unsigned int stop_after;
};

/* Round-trip callback: header and data must match what was written. */
static int
rsh_t_cb(const struct rsh_bfb_hdr *h, uint64_t off, const uint8_t *data,
	 void *arg)
{
	struct rsh_t_seen *seen = arg;
	const struct rsh_bfb_wimage *img = &seen->s->imgs[seen->n];

	assert_int_equal(off, rsh_t_off(seen->s, seen->n));
	assert_int_equal(h->id, img->id);
	assert_int_equal(h->image_len, img->len);
	assert_int_equal(h->hdr_words, 3);
	assert_int_equal(h->minor, 2);
	assert_ptr_equal(data, seen->s->buf + off + RSH_BFB_HDR_LEN);
	assert_memory_equal(data, img->data, img->len ? img->len : 0);
	seen->n++;
	return seen->stop_after && seen->n == seen->stop_after;
}

/* Writer then walker: every image comes back, lengths 0..17. */
static void
test_round_trip(void **state)
{
	struct rsh_t_state *s = *state;
	struct rsh_t_seen seen = { .s = s };
	struct rsh_bfb_result res;
	unsigned int i;

	for (i = 0; i < 12; i++)
		rsh_t_add(s, (uint8_t)(i * 5 + 1), i * 3 / 2, 0);
	rsh_t_add(s, 62, 100000, 0);
	rsh_t_build(s, 0);
	assert_int_equal(rsh_bfb_walk(s->buf, s->len, rsh_t_cb, &seen, &res), 0);
	assert_int_equal(seen.n, s->n);
	assert_int_equal(res.n_images, s->n);
	assert_int_equal(res.images_end, s->len);
	assert_int_equal(res.err, RSH_BFB_OK);
	seen = (struct rsh_t_seen){ .s = s, .stop_after = 2 };
	assert_int_equal(rsh_bfb_walk(s->buf, s->len, rsh_t_cb, &seen, &res), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(res.n_images, 2);
}

/* Writer argument checks. */
static void
test_write_bad_args(void **state)
{
	struct rsh_bfb_wimage img = { .id = 64, .data = "x", .len = 1 };
	uint8_t out[64];

	(void)state;
	assert_int_equal(rsh_bfb_write(&img, 1, out, sizeof(out)), -EINVAL);
	img.id = 1;
	assert_int_equal(rsh_bfb_write(&img, 1, out, 31), -EINVAL);
	assert_int_equal(rsh_bfb_write(&img, 0, out, sizeof(out)), -EINVAL);
	img.data = NULL;
	assert_int_equal(rsh_bfb_write(&img, 1, out, sizeof(out)), -EINVAL);
	img.cur_ver = 16;
	img.data = "x";
	assert_int_equal(rsh_bfb_write(&img, 1, out, sizeof(out)), -EINVAL);
}

/* Trailing bytes of many sizes after a valid stream are accepted. */
static void
test_trailing(void **state)
{
	static const size_t sizes[] = { 1, 7, 23, 24, 100 * 1024 };
	struct rsh_t_state *s = *state;
	struct rsh_bfb_result res;
	size_t base, i;

	rsh_t_add(s, 1, 13, 0);
	rsh_t_add(s, 63, 40, 0);
	rsh_t_build(s, 200 * 1024);
	base = s->len;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		rsh_t_fill(s->buf + base, sizes[i], (uint32_t)i);
		s->buf[base] = 0x42; /* "B" but not the whole magic */
		s->len = base + sizes[i];
		assert_int_equal(rsh_t_walk(s, &res), 0);
		assert_int_equal(res.n_images, 2);
		assert_int_equal(res.images_end, base);
		assert_int_equal(res.trailing_bytes, sizes[i]);
	}
	/* A second blob: an xz bf.cfg followed by more bytes. */
	memcpy(s->buf + base, "\xFD" "7zXZ\0", 6);
	s->len = base + 4096;
	assert_int_equal(rsh_t_walk(s, &res), 0);
	assert_int_equal(res.trailing_bytes, 4096);
}

/* A header length other than 3 words is refused, as mlx-mkbfb refuses it
 * (the firmware would skip extra words, the host tools do not write them). */
static void
test_hdr_words_not_3(void **state)
{
	struct rsh_t_state *s = *state;
	struct rsh_bfb_result res;
	struct rsh_bfb_hdr h;
	uint8_t *b;

	rsh_t_add(s, 62, 5, 0);
	rsh_t_build(s, 0);
	b = calloc(1, s->len + 8);
	assert_non_null(b);
	memcpy(b, s->buf, 24);
	memset(b + 24, 0x5A, 8);
	memcpy(b + 32, s->buf + 24, s->len - 24);
	rsh_t_get_hdr(b, &h);
	h.hdr_words = 4;
	h.minor = 1;
	rsh_t_put_hdr(b, &h);
	assert_int_equal(rsh_bfb_walk(b, s->len + 8, NULL, NULL, &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_HDR_LEN);
	assert_int_equal(res.err_offset, 0);
	assert_non_null(strstr(res.msg, "must be 3"));
	/* Minor 1 with 3 words is fine. */
	rsh_t_get_hdr(s->buf, &h);
	h.minor = 1;
	rsh_t_put_hdr(s->buf, &h);
	assert_int_equal(rsh_bfb_walk(s->buf, s->len, NULL, NULL, &res), 0);
	free(b);
}

/* One corruption: which image, which header edit or byte flip, expected. */
struct rsh_t_corrupt {
	const char *what;
	unsigned int img;       /* image to corrupt */
	int field;              /* 0 none, 1 magic, 2 major, 3 minor, 4 hdr_len,
				 * 5 id, 6 following */
	unsigned int value;
	long flip;              /* byte to xor 0x01 relative to data, -1 none */
	long cut;               /* new length relative to the image, -1 none */
	enum rsh_bfb_err err;
	int at_end;             /* err_offset is images_end, not the header */
	const char *needle;     /* must appear in res.msg */
};

/* Apply one header-field edit. */
static void
rsh_t_edit(uint8_t *p, int field, unsigned int v)
{
	struct rsh_bfb_hdr h;

	rsh_t_get_hdr(p, &h);
	if (field == 1)
		h.magic = v;
	else if (field == 2)
		h.major = (uint8_t)v;
	else if (field == 3)
		h.minor = (uint8_t)v;
	else if (field == 4)
		h.hdr_words = (uint8_t)v;
	else if (field == 5)
		h.id = (uint8_t)v;
	else if (field == 6)
		h.following = v;
	rsh_t_put_hdr(p, &h);
}

/* Every violation kind is detected with the right err and offset. */
static void
test_corrupt(void **state)
{
	static const struct rsh_t_corrupt cases[] = {
		{ "bad magic", 0, 1, 0x464C457F, -1, -1, RSH_BFB_ERR_MAGIC, 0,
		  "magic 0x464c457f" },
		{ "major 2", 1, 2, 2, -1, -1, RSH_BFB_ERR_MAJOR, 0, "major" },
		{ "minor 3", 2, 3, 3, -1, -1, RSH_BFB_ERR_MINOR, 0, "minor" },
		{ "hdr_len 2", 1, 4, 2, -1, -1, RSH_BFB_ERR_HDR_LEN, 0, "header" },
		{ "truncated data", 2, 0, 0, -1, 24 + 100, RSH_BFB_ERR_TRUNCATED,
		  0, "only 100 remain" },
		{ "short first header", 0, 0, 0, -1, 10, RSH_BFB_ERR_SHORT_HDR, 0,
		  "10 bytes" },
		{ "cut in 2nd header", 1, 0, 0, -1, 10, RSH_BFB_ERR_NO_LAST, 1,
		  "no last image" },
		{ "data bit", 2, 0, 0, 777, -1, RSH_BFB_ERR_CRC, 0, "CRC mismatch" },
		{ "padding byte", 1, 0, 0, 13, -1, RSH_BFB_ERR_CRC, 0, "CRC" },
		{ "id not announced", 2, 5, 4, -1, -1, RSH_BFB_ERR_FOLLOWING, 0,
		  "(id 4 'bl32')" },
		{ "last bitmap set", 2, 6, 0x10, -1, -1, RSH_BFB_ERR_NO_LAST, 1,
		  "following is 0x10" },
	};
	struct rsh_t_state *s = *state;
	struct rsh_bfb_result res;
	size_t i, off, full;

	rsh_t_add(s, 1, 40, 0);
	rsh_t_add(s, 3, 13, 0);  /* 3 bytes of padding */
	rsh_t_add(s, 62, 4096, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct rsh_t_corrupt *c = &cases[i];

		rsh_t_build(s, 0);
		full = s->len;
		off = rsh_t_off(s, c->img);
		if (c->field)
			rsh_t_edit(s->buf + off, c->field, c->value);
		if (c->flip >= 0)
			s->buf[off + RSH_BFB_HDR_LEN + (size_t)c->flip] ^= 0x01;
		if (c->cut >= 0)
			s->len = off + (size_t)c->cut;
		print_message("case: %s\n", c->what);
		assert_int_equal(rsh_t_walk(s, &res), -EINVAL);
		assert_int_equal(res.err, c->err);
		assert_int_equal(res.err_offset, c->at_end ? res.images_end : off);
		assert_non_null(strstr(res.msg, c->needle));
		assert_int_equal(res.n_images,
				 c->img + (c->at_end && c->cut < 0 ? 1 : 0));
		assert_true(full >= s->len);
	}
}

/* Message format: image index, id, name and offset, as in the brief. */
static void
test_message(void **state)
{
	struct rsh_t_state *s = *state;
	struct rsh_bfb_result res;
	char want[200];
	size_t off;

	rsh_t_add(s, 1, 8, 0);
	rsh_t_add(s, 62, 16, 0);
	rsh_t_build(s, 0);
	off = rsh_t_off(s, 1);
	s->buf[off + 24] ^= 0x80;
	assert_int_equal(rsh_t_walk(s, &res), -EINVAL);
	snprintf(want, sizeof(want), "image 1 (id 62 'image') at offset 0x%zx: "
		 "CRC mismatch (header 0x%08x, data 0x%08x)", off,
		 rsh_t_crc_ref(s->data[1], 16),
		 rsh_t_crc_ref(s->buf + off + 24, 16));
	assert_string_equal(res.msg, want);
	assert_int_equal(rsh_bfb_walk(s->buf, 0, NULL, NULL, &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_EMPTY);
}

/* The id table of §D6.4: spot checks and name <-> id round trips. */
static void
test_id_names(void **state)
{
	static const struct { unsigned int id; const char *name; } known[] = {
		{ 1, "bl2" }, { 3, "bl31" }, { 5, "bl33" }, { 62, "image" },
		{ 63, "initramfs" }, { 54, "ramdisk" }, { 41, "nicfw" },
		{ 52, "capsule" }, { 36, "psc-bl" }, { 29, "sys" },
		{ 40, "ddr5_snps_images" }, { 51, "upgrade-image" },
		{ 59, "boot-args" }, { 7, "trusted-key-cert" },
	};
	unsigned int id, n = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		assert_string_equal(rsh_bfb_id_name(known[i].id), known[i].name);
		assert_int_equal(rsh_bfb_id_from_name(known[i].name), known[i].id);
	}
	for (id = 0; id < 300; id++) {
		if (rsh_bfb_id_name(id) == NULL)
			continue;
		n++;
		assert_int_equal(rsh_bfb_id_from_name(rsh_bfb_id_name(id)), id);
	}
	assert_int_equal(n, 46); /* entries in the §D6.4 table */
	assert_null(rsh_bfb_id_name(0));
	assert_null(rsh_bfb_id_name(64));
	assert_int_equal(rsh_bfb_id_from_name("nope"), -1);
	assert_int_equal(rsh_bfb_id_from_name(NULL), -1);
}

/* validate_file: empty file, directory, missing file. */
static void
test_file_errors(void **state)
{
	struct rsh_t_state *s = *state;
	struct rsh_bfb_result res;
	char path[128];

	assert_int_equal(rsh_bfb_validate_file(rsh_t_file(s, "empty", "", 0),
					       &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_EMPTY);
	assert_non_null(strstr(res.msg, "empty"));
	assert_int_equal(rsh_bfb_validate_file(s->dir, &res), -EISDIR);
	assert_non_null(strstr(res.msg, "directory"));
	snprintf(path, sizeof(path), "%s/missing", s->dir);
	assert_int_equal(rsh_bfb_validate_file(path, &res), -ENOENT);
	assert_non_null(strstr(res.msg, "No such file"));
}

/* Compare file validation with the in-memory walk of the same bytes. */
static void
rsh_t_same(const struct rsh_t_state *s, const char *name)
{
	struct rsh_bfb_result rf, rm;
	int cf, cm;

	cm = rsh_t_walk(s, &rm);
	cf = rsh_bfb_validate_file(rsh_t_file(s, name, s->buf, s->len), &rf);
	assert_int_equal(cf, cm);
	assert_int_equal(rf.err, rm.err);
	assert_int_equal(rf.err_offset, rm.err_offset);
	assert_int_equal(rf.n_images, rm.n_images);
	assert_int_equal(rf.images_end, rm.images_end);
	assert_int_equal(rf.trailing_bytes, rm.trailing_bytes);
	assert_string_equal(rf.msg, rm.msg);
}

/* Multi-chunk file (> 1 MiB), headers straddling chunk edges, deep CRC error. */
static void
test_file_multichunk(void **state)
{
	struct rsh_t_state *s = *state;
	struct rsh_bfb_result res;
	size_t off;

	rsh_t_add(s, 1, 256 * 1024 - 24 - 10, 0); /* next header straddles 256K */
	rsh_t_add(s, 3, 700 * 1024 + 3, 0);
	rsh_t_add(s, 5, 5, 0);
	rsh_t_add(s, 62, 1024 * 1024 + 17, 0);
	rsh_t_add(s, 63, 333333, 0);
	rsh_t_build(s, 300000);
	rsh_t_fill(s->buf + s->len, 300000, 9);
	s->len += 299999;
	rsh_t_same(s, "good.bfb");
	assert_int_equal(rsh_bfb_validate_file(rsh_t_file(s, "g", s->buf, s->len),
					       &res), 0);
	assert_int_equal(res.n_images, 5);
	assert_int_equal(res.trailing_bytes, 299999);
	off = rsh_t_off(s, 3);
	s->buf[off + 24 + 1000000] ^= 0x10;
	assert_int_equal(rsh_bfb_validate_file(rsh_t_file(s, "b", s->buf, s->len),
					       &res), -EINVAL);
	assert_int_equal(res.err, RSH_BFB_ERR_CRC);
	assert_int_equal(res.err_offset, off);
	assert_int_equal(res.n_images, 3);
	rsh_t_same(s, "bad.bfb");
	s->buf[off + 24 + 1000000] ^= 0x10;
	s->len = rsh_t_off(s, 4) + 100000; /* truncated last image */
	rsh_t_same(s, "trunc.bfb");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_golden_hello),
		cmocka_unit_test_setup_teardown(test_following_bitmaps, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_versions, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test(test_write_bad_args),
		cmocka_unit_test_setup_teardown(test_trailing, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_hdr_words_not_3, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_corrupt, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_message, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test(test_id_names),
		cmocka_unit_test_setup_teardown(test_file_errors, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_file_multichunk, rsh_t_setup, rsh_t_teardown),
	};

	return cmocka_run_group_tests_name("bfb", tests, NULL, NULL);
}
