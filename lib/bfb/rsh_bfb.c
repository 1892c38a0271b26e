/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BFB container: CRC-32, walker/validator (memory and file), writer and the
 * image id table. Plain C, no DPDK: linked by the core, the emulator and the
 * tools.
 *
 * Facts: hardware-notes §D6.3 (header), §D6.4 (ids), §D6.6
 * (validation), §3.7; mlx-mkbfb (rshim-user-space) for what is accepted.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rsh_bfb_fmt.h"

#define RSH_BFB_CRC_POLY 0xEDB88320u  /* reflected IEEE 802.3, §D6.3 */
#define RSH_BFB_FILE_CHUNK (256u * 1024u)
#define RSH_BFB_HDR_MAX (15u * 8u)    /* hdr_words is a 4-bit field */

/* Slicing-by-8 tables: [0] is the classic byte table, [k] advances k bytes. */
static uint32_t rsh_bfb_crc_tab[8][256];
static pthread_once_t rsh_bfb_crc_once = PTHREAD_ONCE_INIT;

/* Build the slicing-by-8 tables (run once, via pthread_once). */
static void
rsh_bfb_crc_init(void)
{
	uint32_t c;
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ RSH_BFB_CRC_POLY : c >> 1;
		rsh_bfb_crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++) {
		c = rsh_bfb_crc_tab[0][i];
		for (k = 1; k < 8; k++) {
			c = rsh_bfb_crc_tab[0][c & 0xFF] ^ (c >> 8);
			rsh_bfb_crc_tab[k][i] = c;
		}
	}
}

/* Advance a (non-inverted) CRC state over bytes one at a time. */
static inline uint32_t
rsh_bfb_crc_bytes(uint32_t c, const uint8_t *p, size_t len)
{
	while (len--)
		c = rsh_bfb_crc_tab[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
	return c;
}

/* zlib-compatible CRC-32, chainable from crc = 0 (§D6.3). */
uint32_t
rsh_bfb_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint32_t (*t)[256] = rsh_bfb_crc_tab;
	const uint8_t *p = buf;
	uint32_t c = ~crc, lo, hi;
	uint64_t w;
	size_t head;

	pthread_once(&rsh_bfb_crc_once, rsh_bfb_crc_init);
	head = (8 - ((uintptr_t)p & 7)) & 7;
	if (head > len)
		head = len;
	c = rsh_bfb_crc_bytes(c, p, head);
	p += head;
	len -= head;
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		w = le64toh(w);
		lo = (uint32_t)w ^ c;
		hi = (uint32_t)(w >> 32);
		c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^
		    t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
		    t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^
		    t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
	}
	return ~rsh_bfb_crc_bytes(c, p, len);
}

/* --- image id table (hardware-notes §D6.4) --- */

static const char *const rsh_bfb_id_names[64] = {
	[1] = "bl2", [2] = "bl30", [3] = "bl31", [4] = "bl32", [5] = "bl33",
	[6] = "bl2-cert", [7] = "trusted-key-cert", [8] = "bl30-key-cert",
	[9] = "bl31-key-cert", [10] = "bl32-key-cert", [11] = "bl33-key-cert",
	[12] = "bl30-cert", [13] = "bl31-cert", [14] = "bl32-cert",
	[15] = "bl33-cert", [29] = "sys", [30] = "bl2r", [31] = "bl2r-cert",
	[32] = "ddr_ini", [33] = "snps_images", [34] = "ddr_ate_imem",
	[35] = "ddr_ate_dmem", [36] = "psc-bl", [37] = "psc-fw",
	[38] = "ddr-cert", [39] = "psc-app", [40] = "ddr5_snps_images",
	[41] = "nicfw", [42] = "bl2r-auth-cert", [43] = "bl2-auth-cert",
	[48] = "cfg-gi", [49] = "dpu-gi", [50] = "info", [51] = "upgrade-image",
	[52] = "capsule", [53] = "psc-certs", [54] = "ramdisk",
	[55] = "boot-acpi", [56] = "boot-dtb", [57] = "boot-desc",
	[58] = "boot-path", [59] = "boot-args", [60] = "boot-timeout",
	[61] = "uefi-tests", [62] = "image", [63] = "initramfs",
};

/* Short name of a known image id, or NULL. */
const char *
rsh_bfb_id_name(unsigned int id)
{
	return id < 64 ? rsh_bfb_id_names[id] : NULL;
}

/* Image id for a short name, or -1. */
int
rsh_bfb_id_from_name(const char *name)
{
	unsigned int id;

	if (name == NULL)
		return -1;
	for (id = 0; id < 64; id++)
		if (rsh_bfb_id_names[id] && strcmp(rsh_bfb_id_names[id], name) == 0)
			return (int)id;
	return -1;
}

/* --- byte source: a memory buffer or a file read in chunks --- */

/*
 * One source for both walkers. Memory: mem/mem_len. File: fd >= 0 with a
 * fixed buffer buf[start..end) holding the bytes at absolute offset pos.
 */
struct rsh_bfb_src {
	const uint8_t *mem;
	size_t mem_len;
	bool is_mem;    /**< memory source (else a file or a read function) */
	bool partial;   /**< the input goes on past what is here (check_head) */
	rsh_bfb_read_fn rd; /**< reads instead of read(fd) when set */
	void *rd_arg;
	int fd;
	uint8_t *buf;
	size_t start, end;
	bool eof;
	int rerr;       /**< errno of a failed read(), 0 if none */
	uint64_t pos;   /**< absolute offset of the next unconsumed byte */
};

/* Refill a file source so that at least want bytes are buffered (or EOF). */
static void
rsh_bfb_src_fill(struct rsh_bfb_src *s, size_t want)
{
	ssize_t r;

	if (s->start > 0) {
		memmove(s->buf, s->buf + s->start, s->end - s->start);
		s->end -= s->start;
		s->start = 0;
	}
	while (s->end < want && !s->eof) {
		if (s->rd != NULL)
			r = s->rd(s->rd_arg, s->buf + s->end,
				  RSH_BFB_FILE_CHUNK - s->end);
		else
			r = read(s->fd, s->buf + s->end,
				 RSH_BFB_FILE_CHUNK - s->end);
		if (r < 0 && errno == EINTR && s->rd == NULL)
			continue;
		if (r < 0)
			s->rerr = errno ? errno : EIO;
		if (r <= 0)
			s->eof = true;
		else
			s->end += (size_t)r;
	}
}

/*
 * Point at the next bytes without consuming them. *avail is set to
 * min(n, bytes left) for memory, and to at least min(n, chunk, bytes left)
 * for a file; short only at end of input (or a read error, s->rerr).
 */
static const uint8_t *
rsh_bfb_src_peek(struct rsh_bfb_src *s, uint64_t n, size_t *avail)
{
	size_t have;

	if (s->is_mem) {
		have = s->mem_len - (size_t)s->pos;
		*avail = n < have ? (size_t)n : have;
		return s->mem + s->pos;
	}
	if (n > RSH_BFB_FILE_CHUNK)
		n = RSH_BFB_FILE_CHUNK;
	if (s->end - s->start < n)
		rsh_bfb_src_fill(s, (size_t)n);
	have = s->end - s->start;
	*avail = n < have ? (size_t)n : have;
	return s->buf + s->start;
}

/* Consume n bytes previously returned by rsh_bfb_src_peek(). */
static void
rsh_bfb_src_skip(struct rsh_bfb_src *s, size_t n)
{
	if (!s->is_mem)
		s->start += n;
	s->pos += n;
}

/* Consume everything that is left; return how many bytes that was. */
static uint64_t
rsh_bfb_src_drain(struct rsh_bfb_src *s)
{
	uint64_t n = 0;
	size_t got;

	do {
		rsh_bfb_src_peek(s, RSH_BFB_FILE_CHUNK, &got);
		rsh_bfb_src_skip(s, got);
		n += got;
	} while (got > 0);
	return n;
}

/* --- the walker (§D6.6) --- */

/* Walk state: the image being checked and what the previous one announced. */
struct rsh_bfb_walk {
	unsigned int idx;        /**< index of the image being checked */
	uint64_t hdr_off;        /**< offset of its header */
	uint64_t prev_following; /**< bitmap of the previous image */
	uint64_t prev_off;       /**< offset of the previous image's header */
	uint8_t prev_id;
	uint16_t seen_ver[64];   /**< bit v of [id]: an image id, version v seen */
	unsigned int seen_idx[64][16]; /**< which image that was */
	struct rsh_bfb_hdr h;
};

/* Little-endian u64 from bytes. */
static inline uint64_t
rsh_bfb_get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* Little-endian u64 to bytes. */
static inline void
rsh_bfb_put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/* Record a violation; the message is prefixed with the image and its id. */
static int __attribute__((format(printf, 4, 5)))
rsh_bfb_fail(struct rsh_bfb_result *res, const struct rsh_bfb_walk *w,
	     enum rsh_bfb_err err, const char *fmt, ...)
{
	const char *name = rsh_bfb_id_name(w->h.id);
	va_list ap;
	int n;

	res->err = err;
	res->err_offset = w->hdr_off;
	if (name)
		n = snprintf(res->msg, sizeof(res->msg),
			     "image %u (id %u '%s') at offset 0x%" PRIx64 ": ",
			     w->idx, w->h.id, name, w->hdr_off);
	else
		n = snprintf(res->msg, sizeof(res->msg),
			     "image %u (id %u) at offset 0x%" PRIx64 ": ",
			     w->idx, w->h.id, w->hdr_off);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(res->msg))
		vsnprintf(res->msg + n, sizeof(res->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Record a violation that is not tied to a decoded header. */
static int __attribute__((format(printf, 4, 5)))
rsh_bfb_fail_at(struct rsh_bfb_result *res, uint64_t off,
		enum rsh_bfb_err err, const char *fmt, ...)
{
	va_list ap;
	int n;

	res->err = err;
	res->err_offset = off;
	n = snprintf(res->msg, sizeof(res->msg), "offset 0x%" PRIx64 ": ", off);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(res->msg))
		vsnprintf(res->msg + n, sizeof(res->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Report a read error from a file source. */
static int
rsh_bfb_fail_io(struct rsh_bfb_result *res, const struct rsh_bfb_src *s)
{
	snprintf(res->msg, sizeof(res->msg), "read error at offset 0x%" PRIx64
		 ": %s", s->pos, strerror(s->rerr));
	return -s->rerr;
}

/* Check the fixed header fields and the previous bitmap (§D6.3, §D6.6). */
static int
rsh_bfb_check_hdr(struct rsh_bfb_walk *w, struct rsh_bfb_result *res)
{
	const struct rsh_bfb_hdr *h = &w->h;

	if (h->major != RSH_BFB_MAJOR)
		return rsh_bfb_fail(res, w, RSH_BFB_ERR_MAJOR,
				    "major version %u, expected %u",
				    h->major, RSH_BFB_MAJOR);
	if (h->minor > RSH_BFB_MINOR_MAX)
		return rsh_bfb_fail(res, w, RSH_BFB_ERR_MINOR,
				    "minor version %u, at most %u supported",
				    h->minor, RSH_BFB_MINOR_MAX);
	if (h->hdr_words != RSH_BFB_HDR_WORDS)
		return rsh_bfb_fail(res, w, RSH_BFB_ERR_HDR_LEN,
				    "header length %u words, must be %u (as "
				    "mlx-mkbfb requires)",
				    h->hdr_words, RSH_BFB_HDR_WORDS);
	/* After a last image (following 0), a magic header starts the next
	 * BFB of a concatenation (mlx-mkbfb -c reads those). */
	if (w->idx > 0 && w->prev_following == 0)
		res->n_bfbs++;
	else if (w->idx > 0 && (h->id >= 64 || !(w->prev_following >> h->id & 1)))
		return rsh_bfb_fail(res, w, RSH_BFB_ERR_FOLLOWING,
				    "id not announced by image %u at offset 0x%"
				    PRIx64 " (following 0x%" PRIx64 ")",
				    w->idx - 1, w->prev_off, w->prev_following);
	return 0;
}

/*
 * Read the next header. Returns 1 if an image header was decoded, 0 if the
 * images have ended (trailing bytes or EOF follow), or a negative errno.
 */
static int
rsh_bfb_read_hdr(struct rsh_bfb_src *s, struct rsh_bfb_walk *w,
		 struct rsh_bfb_result *res)
{
	const uint8_t *p;
	uint64_t wd[3];
	size_t got;

	w->hdr_off = s->pos;
	p = rsh_bfb_src_peek(s, RSH_BFB_HDR_LEN, &got);
	if (got < RSH_BFB_HDR_LEN && s->rerr)
		return rsh_bfb_fail_io(res, s);
	if (got == 0 && w->idx == 0)
		return rsh_bfb_fail_at(res, 0, RSH_BFB_ERR_EMPTY, "empty input");
	if (got < RSH_BFB_HDR_LEN && s->partial)
		return 0;
	if (got < RSH_BFB_HDR_LEN && w->idx == 0)
		return rsh_bfb_fail_at(res, 0, RSH_BFB_ERR_SHORT_HDR,
				       "not a BFB: only %zu bytes, a header is %u",
				       got, RSH_BFB_HDR_LEN);
	if (got < RSH_BFB_HDR_LEN)
		return 0;
	wd[0] = rsh_bfb_get_le64(p);
	if ((uint32_t)wd[0] != RSH_BFB_MAGIC && w->idx == 0)
		return rsh_bfb_fail_at(res, 0, RSH_BFB_ERR_MAGIC,
				       "not a BFB (magic 0x%08" PRIx32
				       ", expected 0x%08x)",
				       (uint32_t)wd[0], RSH_BFB_MAGIC);
	if ((uint32_t)wd[0] != RSH_BFB_MAGIC)
		return 0;
	wd[1] = rsh_bfb_get_le64(p + 8);
	wd[2] = rsh_bfb_get_le64(p + 16);
	rsh_bfb_hdr_decode(wd, &w->h);
	return rsh_bfb_check_hdr(w, res) < 0 ? -EINVAL : 1;
}

/* Skip the header (its length is checked to be 3 words before). */
static int
rsh_bfb_skip_hdr(struct rsh_bfb_src *s, struct rsh_bfb_walk *w,
		 struct rsh_bfb_result *res)
{
	size_t hlen = (size_t)w->h.hdr_words * 8u, got;

	rsh_bfb_src_peek(s, hlen, &got);
	if (got < hlen && s->rerr)
		return rsh_bfb_fail_io(res, s);
	if (got < hlen && s->partial)
		return 1;
	if (got < hlen)
		return rsh_bfb_fail(res, w, RSH_BFB_ERR_TRUNCATED,
				    "truncated: header says %u words but only "
				    "%zu bytes remain", w->h.hdr_words, got);
	rsh_bfb_src_skip(s, hlen);
	return 0;
}

/*
 * CRC the data plus padding (§D6.3) and check it. *data is set to the data
 * in memory (memory sources only, else NULL).
 */
static int
rsh_bfb_check_data(struct rsh_bfb_src *s, struct rsh_bfb_walk *w,
		   struct rsh_bfb_result *res, const uint8_t **data)
{
	uint64_t padded = (uint64_t)w->h.image_len + rsh_bfb_pad(w->h.image_len);
	uint64_t left = padded;
	const uint8_t *p;
	uint32_t crc = 0;
	size_t got;

	*data = s->is_mem ? s->mem + s->pos : NULL;
	while (left > 0) {
		p = rsh_bfb_src_peek(s, left, &got);
		if (got == 0)
			break;
		crc = rsh_bfb_crc32(crc, p, got);
		rsh_bfb_src_skip(s, got);
		left -= got;
	}
	if (left > 0 && s->rerr)
		return rsh_bfb_fail_io(res, s);
	if (left > 0 && s->partial)
		return 1;
	if (left > 0)
		return rsh_bfb_fail(res, w, RSH_BFB_ERR_TRUNCATED,
				    "truncated: header says %" PRIu32 " bytes of "
				    "data + %" PRIu32 " padding but only %" PRIu64
				    " remain", w->h.image_len,
				    rsh_bfb_pad(w->h.image_len), padded - left);
	if (crc != w->h.crc)
		return rsh_bfb_fail(res, w, RSH_BFB_ERR_CRC,
				    "CRC mismatch (header 0x%08" PRIx32
				    ", data 0x%08" PRIx32 ")", w->h.crc, crc);
	return 0;
}

/* After the last image: count trailing bytes and require a final image. */
static int
rsh_bfb_finish(struct rsh_bfb_src *s, struct rsh_bfb_walk *w,
	       struct rsh_bfb_result *res)
{
	res->images_end = s->pos;
	res->trailing_bytes = rsh_bfb_src_drain(s);
	if (s->rerr)
		return rsh_bfb_fail_io(res, s);
	if (w->prev_following == 0 || s->partial)
		return 0;
	w->idx--;
	w->hdr_off = w->prev_off;
	w->h.id = w->prev_id;
	rsh_bfb_fail(res, w, RSH_BFB_ERR_NO_LAST, "no last image: stream "
		     "ends at 0x%" PRIx64 " but following is 0x%" PRIx64,
		     res->images_end, w->prev_following);
	res->err_offset = res->images_end;
	return -EINVAL;
}

/* A second image with the same id and version: warn (the ROM would see
 * both). */
static void
rsh_bfb_note_repeat(struct rsh_bfb_walk *w, struct rsh_bfb_result *res)
{
	const struct rsh_bfb_hdr *h = &w->h;
	const char *name = rsh_bfb_id_name(h->id);

	if (h->id >= 64)
		return;
	if (!(w->seen_ver[h->id] >> h->cur_ver & 1)) {
		w->seen_ver[h->id] |= (uint16_t)(1u << h->cur_ver);
		w->seen_idx[h->id][h->cur_ver] = w->idx;
		return;
	}
	if (res->n_warnings++ > 0)
		return;
	snprintf(res->warn, sizeof(res->warn), "image %u (id %u%s%s%s) at "
		 "offset 0x%" PRIx64 " repeats id %u version %u of image %u",
		 w->idx, h->id, name ? " '" : "", name ? name : "",
		 name ? "'" : "", w->hdr_off, h->id, h->cur_ver,
		 w->seen_idx[h->id][h->cur_ver]);
}

/* Walk every image of a source (§D6.6); see rsh_bfb_walk(). */
static int
rsh_bfb_walk_src(struct rsh_bfb_src *s, rsh_bfb_image_cb cb, void *arg,
		 struct rsh_bfb_result *res)
{
	struct rsh_bfb_walk w = { 0 };
	const uint8_t *data = NULL;
	int rc;

	memset(res, 0, sizeof(*res));
	res->n_bfbs = 1;
	for (;;) {
		rc = rsh_bfb_read_hdr(s, &w, res);
		if (rc == 0)
			return rsh_bfb_finish(s, &w, res);
		if (rc < 0)
			return rc;
		rc = rsh_bfb_skip_hdr(s, &w, res);
		if (rc == 0)
			rc = rsh_bfb_check_data(s, &w, res, &data);
		if (rc != 0)
			return rc < 0 ? rc : 0;   /* 1: the partial input ends */
		rsh_bfb_note_repeat(&w, res);
		res->n_images = ++w.idx;
		res->images_end = s->pos;
		w.prev_following = w.h.following;
		w.prev_off = w.hdr_off;
		w.prev_id = w.h.id;
		if (cb && cb(&w.h, w.hdr_off, data, arg) != 0)
			return 0;
	}
}

/* Validate / walk a BFB held in memory. */
int
rsh_bfb_walk(const uint8_t *buf, size_t len, rsh_bfb_image_cb cb,
	     void *arg, struct rsh_bfb_result *res)
{
	struct rsh_bfb_src s = { .mem = buf, .mem_len = len, .is_mem = true,
				 .fd = -1 };

	if (res == NULL || (buf == NULL && len > 0))
		return -EINVAL;
	return rsh_bfb_walk_src(&s, cb, arg, res);
}

/* Check the complete images at the start of a stream's first bytes. */
int
rsh_bfb_check_head(const uint8_t *buf, size_t len, struct rsh_bfb_result *res)
{
	struct rsh_bfb_src s = { .mem = buf, .mem_len = len, .is_mem = true,
				 .partial = true, .fd = -1 };

	if (res == NULL || (buf == NULL && len > 0))
		return -EINVAL;
	return rsh_bfb_walk_src(&s, NULL, NULL, res);
}

/* Validate what a read function returns, to its end, in constant memory. */
int
rsh_bfb_validate_stream(rsh_bfb_read_fn rd, void *arg,
			struct rsh_bfb_result *res)
{
	struct rsh_bfb_src s = { .rd = rd, .rd_arg = arg, .fd = -1 };
	int rc;

	if (res == NULL || rd == NULL)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	s.buf = malloc(RSH_BFB_FILE_CHUNK);
	if (s.buf == NULL) {
		snprintf(res->msg, sizeof(res->msg), "out of memory");
		return -ENOMEM;
	}
	rc = rsh_bfb_walk_src(&s, NULL, NULL, res);
	if (res->err == RSH_BFB_ERR_EMPTY)
		snprintf(res->msg, sizeof(res->msg), "offset 0x0: the input is empty");
	free(s.buf);
	return rc;
}

/* Validate a file by path with constant memory. */
int
rsh_bfb_validate_file(const char *path, struct rsh_bfb_result *res)
{
	struct rsh_bfb_src s = { .fd = -1 };
	struct stat st;
	int rc;

	if (res == NULL || path == NULL)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	s.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s.fd < 0) {
		rc = -errno;
		snprintf(res->msg, sizeof(res->msg), "cannot open: %s",
			 strerror(-rc));
		return rc;
	}
	rc = fstat(s.fd, &st) < 0 ? -errno : 0;
	if (rc == 0 && S_ISDIR(st.st_mode))
		rc = -EISDIR;
	if (rc < 0) {
		snprintf(res->msg, sizeof(res->msg), "%s", rc == -EISDIR ?
			 "is a directory, not a BFB file" : strerror(-rc));
		goto out_close;
	}
	s.buf = malloc(RSH_BFB_FILE_CHUNK);
	if (s.buf == NULL) {
		rc = -ENOMEM;
		snprintf(res->msg, sizeof(res->msg), "out of memory");
		goto out_close;
	}
	rc = rsh_bfb_walk_src(&s, NULL, NULL, res);
	if (res->err == RSH_BFB_ERR_EMPTY)
		snprintf(res->msg, sizeof(res->msg), "offset 0x0: file is empty");
	free(s.buf);
out_close:
	close(s.fd);
	return rc;
}

/* --- writer --- */

/* Size of a BFB holding these images (headers + data + padding). */
size_t
rsh_bfb_size(const struct rsh_bfb_wimage *imgs, unsigned int n)
{
	size_t sz = 0;
	unsigned int i;

	for (i = 0; imgs && i < n; i++)
		sz += RSH_BFB_HDR_LEN + (size_t)imgs[i].len +
		      rsh_bfb_pad(imgs[i].len);
	return sz;
}

/* Check writer arguments: ids < 64, versions fit 4 bits, data present. */
static int
rsh_bfb_write_check(const struct rsh_bfb_wimage *imgs, unsigned int n,
		    const uint8_t *out, size_t out_len)
{
	unsigned int i;

	if (imgs == NULL || n == 0 || out == NULL)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (imgs[i].id >= 64 || imgs[i].cur_ver > 0xF ||
		    (imgs[i].data == NULL && imgs[i].len > 0))
			return -EINVAL;
	if (out_len < rsh_bfb_size(imgs, n) || rsh_bfb_size(imgs, n) > LONG_MAX)
		return -EINVAL;
	return 0;
}

/* Write one image (header, data, zero padding) at out; return its size. */
static size_t
rsh_bfb_write_one(const struct rsh_bfb_wimage *img, uint64_t following,
		  uint8_t next_ver, uint8_t *out)
{
	struct rsh_bfb_hdr h = {
		.magic = RSH_BFB_MAGIC, .major = RSH_BFB_MAJOR,
		.minor = RSH_BFB_MINOR_MAX, .next_ver = next_ver,
		.cur_ver = img->cur_ver, .hdr_words = RSH_BFB_HDR_WORDS,
		.id = img->id, .image_len = img->len, .following = following,
	};
	uint32_t pad = rsh_bfb_pad(img->len);
	uint8_t *data = out + RSH_BFB_HDR_LEN;
	uint64_t w[3];

	if (img->len > 0)
		memcpy(data, img->data, img->len);
	memset(data + img->len, 0, pad);
	h.crc = rsh_bfb_crc32(0, data, (size_t)img->len + pad);
	rsh_bfb_hdr_encode(&h, w);
	rsh_bfb_put_le64(out, w[0]);
	rsh_bfb_put_le64(out + 8, w[1]);
	rsh_bfb_put_le64(out + 16, w[2]);
	return RSH_BFB_HDR_LEN + (size_t)img->len + pad;
}

/* Write a BFB: following bitmaps are suffix ORs of the later ids (§D6.3). */
long
rsh_bfb_write(const struct rsh_bfb_wimage *imgs, unsigned int n,
	      uint8_t *out, size_t out_len)
{
	uint64_t following = 0;
	size_t off;
	unsigned int i;
	int rc;

	rc = rsh_bfb_write_check(imgs, n, out, out_len);
	if (rc < 0)
		return rc;
	/* Write back to front so each bitmap is the OR of the ids after it. */
	off = rsh_bfb_size(imgs, n);
	for (i = n; i-- > 0;) {
		off -= RSH_BFB_HDR_LEN + (size_t)imgs[i].len +
		       rsh_bfb_pad(imgs[i].len);
		rsh_bfb_write_one(&imgs[i], following,
				  i + 1 < n ? imgs[i + 1].cur_ver : 0,
				  out + off);
		following |= 1ull << imgs[i].id;
	}
	return (long)rsh_bfb_size(imgs, n);
}
