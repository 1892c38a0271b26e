/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * BFB ("BlueField boot stream") reader: a validator/walker over a byte
 * buffer, a file or a stream, and the names of image ids. The format's
 * encoding and the writer are internal (rsh_bfb_fmt.h).
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

#endif /* RSH_BFB_H */
