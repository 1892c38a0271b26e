/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BFB format internals: the header word layout, its encode/decode, the
 * CRC-32, and a writer. Not installed: the BFB tools, the emulator and the
 * tests build streams with it; applications only read (rsh_bfb.h).
 */
#ifndef RSH_BFB_FMT_H
#define RSH_BFB_FMT_H

#include "rsh_bfb.h"

#define RSH_BFB_MAGIC 0x13026642u
#define RSH_BFB_MAJOR 1u
#define RSH_BFB_MINOR_MAX 2u
#define RSH_BFB_HDR_WORDS 3u
#define RSH_BFB_HDR_LEN (RSH_BFB_HDR_WORDS * 8u)

/* Word 0 fields, §D6.3. */
#define RSH_BFB_W0__MAGIC_MASK 0xFFFFFFFFull
#define RSH_BFB_W0__MAJOR_SHIFT 32
#define RSH_BFB_W0__MINOR_SHIFT 36
#define RSH_BFB_W0__NEXT_VER_SHIFT 44
#define RSH_BFB_W0__CUR_VER_SHIFT 48
#define RSH_BFB_W0__HDR_LEN_SHIFT 52
#define RSH_BFB_W0__ID_SHIFT 56

/* Padding after an image of len bytes. */
static inline uint32_t
rsh_bfb_pad(uint32_t len)
{
	return (8u - (len & 7u)) & 7u;
}

/* Decode three header words. */
static inline void
rsh_bfb_hdr_decode(const uint64_t w[3], struct rsh_bfb_hdr *h)
{
	h->magic = (uint32_t)(w[0] & RSH_BFB_W0__MAGIC_MASK);
	h->major = (w[0] >> RSH_BFB_W0__MAJOR_SHIFT) & 0xF;
	h->minor = (w[0] >> RSH_BFB_W0__MINOR_SHIFT) & 0xF;
	h->next_ver = (w[0] >> RSH_BFB_W0__NEXT_VER_SHIFT) & 0xF;
	h->cur_ver = (w[0] >> RSH_BFB_W0__CUR_VER_SHIFT) & 0xF;
	h->hdr_words = (w[0] >> RSH_BFB_W0__HDR_LEN_SHIFT) & 0xF;
	h->id = (uint8_t)(w[0] >> RSH_BFB_W0__ID_SHIFT);
	h->image_len = (uint32_t)w[1];
	h->crc = (uint32_t)(w[1] >> 32);
	h->following = w[2];
}

/* Encode a header into three words (magic, major and hdr_words as given). */
static inline void
rsh_bfb_hdr_encode(const struct rsh_bfb_hdr *h, uint64_t w[3])
{
	w[0] = (uint64_t)h->magic |
	       (uint64_t)(h->major & 0xF) << RSH_BFB_W0__MAJOR_SHIFT |
	       (uint64_t)(h->minor & 0xF) << RSH_BFB_W0__MINOR_SHIFT |
	       (uint64_t)(h->next_ver & 0xF) << RSH_BFB_W0__NEXT_VER_SHIFT |
	       (uint64_t)(h->cur_ver & 0xF) << RSH_BFB_W0__CUR_VER_SHIFT |
	       (uint64_t)(h->hdr_words & 0xF) << RSH_BFB_W0__HDR_LEN_SHIFT |
	       (uint64_t)h->id << RSH_BFB_W0__ID_SHIFT;
	w[1] = (uint64_t)h->image_len | (uint64_t)h->crc << 32;
	w[2] = h->following;
}

/**
 * Standard CRC-32 (IEEE 802.3 / zlib: reflected 0xEDB88320). Chainable:
 * start with crc = 0, pass the previous result to continue.
 */
uint32_t rsh_bfb_crc32(uint32_t crc, const void *buf, size_t len);

/** Image id for a short name, or -1. */
int rsh_bfb_id_from_name(const char *name);

/** One image to write. */
struct rsh_bfb_wimage {
	uint8_t id;
	uint8_t cur_ver;
	const void *data;
	uint32_t len;
};

/**
 * Size of a BFB holding these images (headers + data + padding).
 */
size_t rsh_bfb_size(const struct rsh_bfb_wimage *imgs, unsigned int n);

/**
 * Write a BFB (minor 2, header length 3, following bitmaps and CRCs
 * computed) into out (at least rsh_bfb_size() bytes).
 * @return bytes written, or -EINVAL (id >= 64, bad arguments).
 */
long rsh_bfb_write(const struct rsh_bfb_wimage *imgs, unsigned int n,
		   uint8_t *out, size_t out_len);

#endif /* RSH_BFB_FMT_H */
