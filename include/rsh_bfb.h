/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * BFB ("BlueField boot stream") container: header layout, CRC-32, a
 * validator/walker over a byte buffer, and a writer.
 *
 * Facts: hardware-notes §D6.3 (header), §D6.6 (validation), §3.7. A BFB
 * is a concatenation of images, each a 24-byte header (three little-endian
 * u64 words), the data, and zero padding to 8 bytes. Arbitrary trailing bytes may follow the
 * last image (bfb-install appends bf.cfg and a rootfs).
 */
#ifndef RSH_BFB_H
#define RSH_BFB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/** A decoded image header. */
struct rsh_bfb_hdr {
	uint32_t magic;
	uint8_t major, minor;
	uint8_t next_ver, cur_ver;
	uint8_t hdr_words; /**< header length in 8-byte words (3) */
	uint8_t id;
	uint32_t image_len; /**< bytes, without padding */
	uint32_t crc;       /**< CRC-32 over data plus zero padding */
	uint64_t following; /**< bitmap: bit k = an image with id k follows */
};

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

/** Kinds of BFB violation. */
enum rsh_bfb_err {
	RSH_BFB_OK = 0,
	RSH_BFB_ERR_EMPTY,      /**< zero-length input */
	RSH_BFB_ERR_SHORT_HDR,  /**< fewer than 24 bytes where a header starts */
	RSH_BFB_ERR_MAGIC,      /**< first image has a bad magic (not a BFB) */
	RSH_BFB_ERR_MAJOR,      /**< major version != 1 */
	RSH_BFB_ERR_MINOR,      /**< minor version > 2 */
	RSH_BFB_ERR_HDR_LEN,    /**< header length other than 3 words */
	RSH_BFB_ERR_TRUNCATED,  /**< image data runs past the end */
	RSH_BFB_ERR_CRC,        /**< CRC mismatch */
	RSH_BFB_ERR_FOLLOWING,  /**< an image's id not announced by the
				  *   previous following-images bitmap */
	RSH_BFB_ERR_NO_LAST,    /**< input ended before an image with a
				  *   following bitmap of 0 */
};

/** Result of validation. */
struct rsh_bfb_result {
	enum rsh_bfb_err err;
	uint64_t err_offset;      /**< byte offset of the violating field/header */
	unsigned int n_images;
	uint64_t images_end;      /**< offset just past the last image */
	uint64_t trailing_bytes;  /**< bytes after the last image */
	unsigned int n_bfbs;      /**< BFBs in a concatenation (1 for one) */
	unsigned int n_warnings;  /**< repeated id+version pairs */
	char warn[200];           /**< the first warning, "" when none */
	char msg[200];            /**< e.g. "image 2 (id 62) at offset 0x1a40: CRC mismatch: header 0x.., data 0x.." */
};

/** Called for every valid image by rsh_bfb_walk(); return non-zero to stop. */
typedef int (*rsh_bfb_image_cb)(const struct rsh_bfb_hdr *h, uint64_t offset,
				const uint8_t *data, void *arg);

/**
 * Validate / walk a BFB held in memory (§D6.6). Walks images while a header
 * with the magic starts; the first non-magic header starts the trailing
 * bytes (a non-magic first header is RSH_BFB_ERR_MAGIC). As with
 * mlx-mkbfb -c, a header after a last image (following bitmap 0) starts
 * the next BFB of a concatenation; a header length other than 3 words is
 * refused; a repeated id+version is counted in n_warnings (not an error).
 * @return 0 if valid, else -EINVAL with res->err/err_offset/msg set.
 */
int rsh_bfb_walk(const uint8_t *buf, size_t len, rsh_bfb_image_cb cb,
		 void *arg, struct rsh_bfb_result *res);

/**
 * Validate a file by path with constant memory (reads in chunks).
 * @return 0 if valid; -EINVAL invalid (res filled); -errno for I/O errors
 *   (res->msg says which: e.g. "is a directory", "is empty").
 */
int rsh_bfb_validate_file(const char *path, struct rsh_bfb_result *res);

/**
 * Check the first bytes of a stream whose rest is still to come (a pipe):
 * complete images are validated, an image or header cut at the end of buf
 * is not an error, nor is a missing last image.
 * @return 0 or -EINVAL (res filled).
 */
int rsh_bfb_check_head(const uint8_t *buf, size_t len,
		       struct rsh_bfb_result *res);

/**
 * Reads up to len bytes into buf: the count, 0 at the end of the input, or
 * -1 with errno set (the walker reports strerror(errno) and returns
 * -errno). Called from the validating thread only.
 */
typedef ssize_t (*rsh_bfb_read_fn)(void *arg, void *buf, size_t len);

/**
 * Validate everything rd returns, in constant memory (a pipe, or a push
 * that validates the bytes as it sends them).
 * @return 0 valid; -EINVAL invalid (res filled); -errno of a failed read.
 */
int rsh_bfb_validate_stream(rsh_bfb_read_fn rd, void *arg,
			    struct rsh_bfb_result *res);

/** Short name of a known image id ("bl2", "image", ...) or NULL. */
const char *rsh_bfb_id_name(unsigned int id);

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

#endif /* RSH_BFB_H */
