/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: rsh_bfb_walk() over arbitrary bytes. Checks the
 * walker's invariants: every image it hands out lies inside the input, the
 * result accounts for every byte of a valid stream, the message is always
 * a terminated string, and a valid stream rewritten by rsh_bfb_write()
 * (headers normalised to 3 words, minor 2) walks again with the same images,
 * and every prefix check of a valid stream (rsh_bfb_check_head) passes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rsh_bfb_fmt.h"

#define RSH_FZ_MAX_IMGS 64

/* Images collected by the callback. */
struct rsh_fz_ctx {
	const uint8_t *buf;
	size_t len;
	unsigned int n;
	int big_id;  /**< an id >= 64 was seen (allowed on a first image) */
	struct rsh_bfb_wimage imgs[RSH_FZ_MAX_IMGS];
};

/* Die loudly (libFuzzer reports the crash and saves the input). */
static void
rsh_fz_check(int cond)
{
	if (!cond)
		abort();
}

/* Per-image callback: bounds of header and data. */
static int
rsh_fz_cb(const struct rsh_bfb_hdr *h, uint64_t off, const uint8_t *data,
	  void *arg)
{
	struct rsh_fz_ctx *c = arg;
	uint64_t end = (uint64_t)(data - c->buf) + h->image_len +
		       rsh_bfb_pad(h->image_len);

	rsh_fz_check(off + RSH_BFB_HDR_LEN <= c->len);
	rsh_fz_check(data >= c->buf + off + RSH_BFB_HDR_LEN);
	rsh_fz_check(end <= c->len);
	rsh_fz_check(h->magic == RSH_BFB_MAGIC && h->major == RSH_BFB_MAJOR);
	c->big_id |= h->id >= 64;
	if (c->n < RSH_FZ_MAX_IMGS && h->id < 64)
		c->imgs[c->n] = (struct rsh_bfb_wimage){ .id = h->id,
			.cur_ver = h->cur_ver, .data = data, .len = h->image_len };
	c->n++;
	return 0;
}

/* Re-encode a valid stream and walk it again. */
static void
rsh_fz_rewrite(const struct rsh_fz_ctx *c)
{
	struct rsh_bfb_result res;
	size_t sz = rsh_bfb_size(c->imgs, c->n);
	uint8_t *out = malloc(sz ? sz : 1);

	rsh_fz_check(out != NULL);
	rsh_fz_check(rsh_bfb_write(c->imgs, c->n, out, sz) == (long)sz);
	rsh_fz_check(rsh_bfb_walk(out, sz, NULL, NULL, &res) == 0);
	rsh_fz_check(res.n_images == c->n && res.images_end == sz);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rsh_fz_ctx c = { .buf = data, .len = size };
	struct rsh_bfb_result res;
	int rc;

	rc = rsh_bfb_walk(data, size, rsh_fz_cb, &c, &res);
	rsh_fz_check(memchr(res.msg, '\0', sizeof(res.msg)) != NULL);
	rsh_fz_check(res.n_images == c.n);
	if (rc != 0) {
		rsh_fz_check(rc == -EINVAL && res.err != RSH_BFB_OK);
		rsh_fz_check(res.err_offset <= size && res.msg[0] != '\0');
		return 0;
	}
	rsh_fz_check(res.err == RSH_BFB_OK && res.n_images > 0);
	rsh_fz_check(res.images_end + res.trailing_bytes == size);
	/* Any non-empty prefix of a valid stream passes the head check (a
	 * pipe's first bytes are checked that way before the reset). */
	rsh_fz_check(rsh_bfb_check_head(data, size / 2 + 1, &res) == 0);
	if (c.n <= RSH_FZ_MAX_IMGS && !c.big_id)
		rsh_fz_rewrite(&c);
	return 0;
}
