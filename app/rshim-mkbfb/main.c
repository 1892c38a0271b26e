/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-mkbfb: build and list BFB boot streams (the basic use of
 * mlx-mkbfb). Images are streamed to the output in two passes (CRC, then
 * copy), so a 256 MiB image is never held in memory.
 *
 * Format: hardware-notes §D6.3-§D6.6 (via include/rsh_bfb.h); mlx-mkbfb in
 * rshim-user-space is the public tool it follows.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rsh_bfb_fmt.h"
#include "rsh_errline.h"
#include "rsh_parse.h"

#define RSH_MK_CHUNK (1u << 20)
#define RSH_MK_MAX_IMAGES 256
#define RSH_MK_EXIT_FAIL 1
#define RSH_MK_EXIT_USAGE 2
#define RSH_MK_ERR_MAX 8192          /* an error line: two paths and words */

/* One image of the output: data from a file or from a seeded generator. */
struct rsh_mk_img {
	uint8_t id;
	uint8_t ver;       /**< image version (NAME-vN), 0 by default */
	const char *path;  /**< file, or NULL for --random */
	uint64_t size;     /**< --random: bytes to generate */
	uint64_t seed;     /**< --random: generator seed */
	uint32_t len;      /**< filled by the CRC pass */
	uint32_t crc;      /**< filled by the CRC pass */
};

/* Parsed command line. */
struct rsh_mk_opts {
	struct rsh_mk_img imgs[RSH_MK_MAX_IMAGES];
	unsigned int n_imgs;
	const char *appends[RSH_MK_MAX_IMAGES];
	unsigned int n_appends;
	const char *list;
	const char *out;
};

/* A reader over one image's data (file or generator), restartable. */
struct rsh_mk_rd {
	const struct rsh_mk_img *img;
	int fd;
	uint64_t state; /**< splitmix64 state */
	uint64_t done;  /**< bytes produced so far */
};

static const char rsh_mk_help[] =
"Usage: rshim-mkbfb [--image ID|NAME:FILE]... [--random ID|NAME:SIZE[:SEED]]...\n"
"                   [--append FILE]... OUT.bfb\n"
"       rshim-mkbfb --list FILE.bfb\n"
"\n"
"Build a BlueField boot stream (BFB) from images, in the order given, or\n"
"validate and list one.\n"
"\n"
"Options:\n"
"  -i, --image ID|NAME[-vN]:FILE  add an image whose data is FILE; -vN sets\n"
"                               its version (0-15, as mlx-mkbfb's NAME-vN)\n"
"  -r, --random ID|NAME:SIZE[:SEED]\n"
"                               add an image of SIZE bytes of deterministic\n"
"                               pseudo-random data (SIZE: 4096, 64K, 1.5M,\n"
"                               2MiB; K/M/G are powers of 1024, KB/MB/GB of\n"
"                               1000; below 4 GiB; SEED defaults to the image id)\n"
"  -a, --append FILE            append FILE after the last image as trailing\n"
"                               bytes (as bfb-install appends bf.cfg, rootfs)\n"
"  -l, --list FILE              validate FILE; print index, offset, id, name,\n"
"                               current and next version, length and CRC of\n"
"                               every image, the trailing bytes, and warnings\n"
"                               (a repeated id+version); exit 1 with the\n"
"                               reason if invalid. Concatenated BFBs and\n"
"                               bf.cfg/rootfs trailers are valid (as mlx-mkbfb -c)\n"
"  -h, --help                   show this help\n"
"\n"
"IDs are numbers 0..63 or names from the mlx-mkbfb table: bl2 (1), bl31 (3),\n"
"bl33 (5), capsule (52), ramdisk (54), image (62, kernel), initramfs (63), ...\n"
"Headers are minor version 2, 3 words; following-image bitmaps, next-image\n"
"versions and CRC-32s are computed. The output is validated after it is\n"
"written.\n"
"\n"
"Examples:\n"
"  rshim-mkbfb --image bl2:bl2.bin --image bl31:bl31.bin --image bl33:uefi.fd \\\n"
"              --image image:Image --image initramfs:initrd.img boot.bfb\n"
"  rshim-mkbfb --random bl2:64K:1 --random image:8M:7 --append bf.cfg demo.bfb\n"
"  rshim-mkbfb --image bl2-v1:bl2.bin --image image-v2:Image boot.bfb\n"
"  rshim-mkbfb --list demo.bfb\n"
"\n"
"Exit status: 0 success, 1 invalid BFB or I/O error, 2 bad arguments.\n";

/* Print one line about bad usage; return the usage exit status. */
static int __attribute__((format(printf, 1, 2)))
rsh_mk_bad(const char *fmt, ...)
{
	char msg[RSH_MK_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	rsh_errline_vset(msg, sizeof(msg), stderr, "rshim-mkbfb", " (try --help)", fmt, ap);
	va_end(ap);
	return RSH_MK_EXIT_USAGE;
}

/* Print one line about a failure; return the failure exit status. */
static int __attribute__((format(printf, 1, 2)))
rsh_mk_fail(const char *fmt, ...)
{
	char msg[RSH_MK_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	rsh_errline_vset(msg, sizeof(msg), stderr, "rshim-mkbfb", NULL, fmt, ap);
	va_end(ap);
	return RSH_MK_EXIT_FAIL;
}

/* Parse "ID" or "NAME" (the first n chars of s) into an image id < 64. */
static int
rsh_mk_parse_id(const char *s, size_t n, uint8_t *id)
{
	char name[64];
	uint64_t v;
	int r;

	if (n == 0 || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, s, n);
	name[n] = '\0';
	if (rsh_parse_uint(name, 0, 63, &v) == 0) {
		*id = (uint8_t)v;
		return 0;
	}
	r = rsh_bfb_id_from_name(name);
	if (r < 0)
		return -EINVAL;
	*id = (uint8_t)r;
	return 0;
}

/* Parse SIZE (lib/util grammar); below 4 GiB. */
static int
rsh_mk_parse_size(const char *s, uint64_t *v)
{
	return rsh_parse_size(s, 0, UINT32_MAX, v) < 0 ? -EINVAL : 0;
}

/* Split a trailing "-vN" (0-15) off an image id of n chars; *n shrinks. */
static int
rsh_mk_parse_ver(const char *s, size_t *n, uint8_t *ver)
{
	const char *dash = memrchr(s, '-', *n);
	char num[8];
	uint64_t v;

	*ver = 0;
	if (dash == NULL || dash[1] != 'v' || (size_t)(s + *n - dash) > sizeof(num) ||
	    s + *n - dash < 3)
		return 0;
	memcpy(num, dash + 2, (size_t)(s + *n - dash - 2));
	num[s + *n - dash - 2] = '\0';
	if (rsh_parse_uint(num, 0, 15, &v) < 0)
		return -EINVAL;
	*ver = (uint8_t)v;
	*n = (size_t)(dash - s);
	return 0;
}

/* Parse "ID|NAME:FILE" (--image). */
static int
rsh_mk_parse_image(const char *arg, struct rsh_mk_img *img)
{
	const char *colon = strchr(arg, ':');

	if (colon == NULL || colon[1] == '\0')
		return rsh_mk_bad("--image %s: expected ID|NAME:FILE", arg);
	size_t n = (size_t)(colon - arg);

	if (rsh_mk_parse_ver(arg, &n, &img->ver) < 0 ||
	    rsh_mk_parse_id(arg, n, &img->id) < 0)
		return rsh_mk_bad("--image %s: unknown image id or name, or a bad -vN (0-15)", arg);
	img->path = colon + 1;
	return 0;
}

/* Parse "ID|NAME:SIZE[:SEED]" (--random). */
static int
rsh_mk_parse_random(const char *arg, struct rsh_mk_img *img)
{
	const char *colon = strchr(arg, ':');
	char sz[32], *seed;

	if (colon == NULL || strlen(colon + 1) >= sizeof(sz))
		return rsh_mk_bad("--random %s: expected ID|NAME:SIZE[:SEED]", arg);
	size_t n = colon ? (size_t)(colon - arg) : 0;

	if (colon == NULL || rsh_mk_parse_ver(arg, &n, &img->ver) < 0 ||
	    rsh_mk_parse_id(arg, n, &img->id) < 0)
		return rsh_mk_bad("--random %s: unknown image id or name, or a bad -vN (0-15)", arg);
	strcpy(sz, colon + 1);
	seed = strchr(sz, ':');
	if (seed)
		*seed++ = '\0';
	if (rsh_mk_parse_size(sz, &img->size) < 0)
		return rsh_mk_bad("--random %s: bad SIZE '%s' (%s, below 4 GiB)",
				  arg, sz, RSH_PARSE_HINT_SIZE);
	img->seed = img->id;
	if (seed && rsh_parse_uint(seed, 0, UINT64_MAX, &img->seed) < 0)
		return rsh_mk_bad("--random %s: bad SEED '%s'", arg, seed);
	img->path = NULL;
	return 0;
}

/* Add one --image/--random/--append option to the parsed command line. */
static int
rsh_mk_add_opt(struct rsh_mk_opts *o, int c, const char *arg)
{
	if (c == 'a') {
		if (o->n_appends == RSH_MK_MAX_IMAGES)
			return rsh_mk_bad("too many --append files");
		o->appends[o->n_appends++] = arg;
		return 0;
	}
	if (o->n_imgs == RSH_MK_MAX_IMAGES)
		return rsh_mk_bad("too many images (at most %d)", RSH_MK_MAX_IMAGES);
	memset(&o->imgs[o->n_imgs], 0, sizeof(o->imgs[0]));
	if ((c == 'i' ? rsh_mk_parse_image : rsh_mk_parse_random)
	    (arg, &o->imgs[o->n_imgs]) != 0)
		return RSH_MK_EXIT_USAGE;
	o->n_imgs++;
	return 0;
}

/* Parse argv; returns 0, or an exit status (-1: --help printed). */
static int
rsh_mk_parse(int argc, char **argv, struct rsh_mk_opts *o)
{
	static const struct option lopts[] = {
		{ "image", required_argument, NULL, 'i' },
		{ "random", required_argument, NULL, 'r' },
		{ "append", required_argument, NULL, 'a' },
		{ "list", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:r:a:l:h", lopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(rsh_mk_help, stdout);
			return -1;
		}
		if (c == '?' || c == ':')
			return rsh_mk_bad("%s '%s'", c == ':' ? "missing argument for" :
					  "unknown option", argv[optind - 1]);
		if (c == 'l') {
			o->list = optarg;
			continue;
		}
		rc = rsh_mk_add_opt(o, c, optarg);
		if (rc != 0)
			return rc;
	}
	if (o->list)
		return (optind < argc || o->n_imgs || o->n_appends) ?
		       rsh_mk_bad("--list takes one FILE and no other options") : 0;
	if (optind + 1 != argc)
		return rsh_mk_bad("expected exactly one OUT.bfb argument");
	if (o->n_imgs == 0)
		return rsh_mk_bad("no images: give at least one --image or --random");
	o->out = argv[optind];
	return 0;
}

/* splitmix64: the deterministic generator behind --random. */
static uint64_t
rsh_mk_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Open a reader at the start of an image's data. */
static int
rsh_mk_rd_open(struct rsh_mk_rd *rd, const struct rsh_mk_img *img)
{
	memset(rd, 0, sizeof(*rd));
	rd->img = img;
	rd->state = img->seed;
	rd->fd = -1;
	if (img->path == NULL)
		return 0;
	rd->fd = open(img->path, O_RDONLY | O_CLOEXEC);
	if (rd->fd < 0)
		return rsh_mk_fail("%s: %s", img->path, strerror(errno));
	return 0;
}

/* Read up to RSH_MK_CHUNK bytes of image data; 0 at the end, <0 on error. */
static ssize_t
rsh_mk_rd_next(struct rsh_mk_rd *rd, uint8_t *buf)
{
	uint64_t left = rd->img->size - rd->done, v;
	size_t n, i;
	ssize_t r;

	if (rd->fd >= 0) {
		do
			r = read(rd->fd, buf, RSH_MK_CHUNK);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			rsh_mk_fail("%s: %s", rd->img->path, strerror(errno));
		rd->done += r > 0 ? (uint64_t)r : 0;
		return r;
	}
	n = left < RSH_MK_CHUNK ? (size_t)left : RSH_MK_CHUNK;
	for (i = 0; i < n; i += 8) {
		v = rsh_mk_rand(&rd->state);
		memcpy(buf + i, &v, n - i < 8 ? n - i : 8);
	}
	rd->done += n;
	return (ssize_t)n;
}

/* Close a reader. */
static void
rsh_mk_rd_close(struct rsh_mk_rd *rd)
{
	if (rd->fd >= 0)
		close(rd->fd);
	rd->fd = -1;
}

/* Pass 1: length and CRC (data plus zero padding, §D6.3) of one image. */
static int
rsh_mk_image_crc(struct rsh_mk_img *img, uint8_t *buf)
{
	static const uint8_t zeros[8];
	struct rsh_mk_rd rd;
	uint32_t crc = 0;
	ssize_t r;

	if (rsh_mk_rd_open(&rd, img) != 0)
		return RSH_MK_EXIT_FAIL;
	while ((r = rsh_mk_rd_next(&rd, buf)) > 0)
		crc = rsh_bfb_crc32(crc, buf, (size_t)r);
	rsh_mk_rd_close(&rd);
	if (r < 0)
		return RSH_MK_EXIT_FAIL;
	if (rd.done > UINT32_MAX)
		return rsh_mk_fail("%s: larger than 4 GiB - 1, the BFB limit",
				   img->path);
	img->len = (uint32_t)rd.done;
	img->crc = rsh_bfb_crc32(crc, zeros, rsh_bfb_pad(img->len));
	return 0;
}

/* Write all of buf to fd. */
static int
rsh_mk_write(int fd, const void *buf, size_t n, const char *out)
{
	const uint8_t *p = buf;
	ssize_t r;

	while (n > 0) {
		r = write(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return rsh_mk_fail("%s: write: %s", out, strerror(errno));
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Write a header for img (minor 2, 3 words) with the given bitmap. */
static int
rsh_mk_write_hdr(int fd, const struct rsh_mk_img *img, uint64_t following,
		 uint8_t next_ver, const char *out)
{
	struct rsh_bfb_hdr h = {
		.magic = RSH_BFB_MAGIC, .major = RSH_BFB_MAJOR,
		.minor = RSH_BFB_MINOR_MAX, .hdr_words = RSH_BFB_HDR_WORDS,
		.next_ver = next_ver, .cur_ver = img->ver,
		.id = img->id, .image_len = img->len, .crc = img->crc,
		.following = following,
	};
	uint64_t w[3];
	unsigned int i;

	rsh_bfb_hdr_encode(&h, w);
	for (i = 0; i < 3; i++)
		w[i] = htole64(w[i]);
	return rsh_mk_write(fd, w, sizeof(w), out);
}

/* Pass 2: header, data and padding of one image. */
static int
rsh_mk_emit_image(int fd, const struct rsh_mk_img *img, uint64_t following,
		  uint8_t next_ver, uint8_t *buf, const char *out)
{
	static const uint8_t zeros[8];
	struct rsh_mk_rd rd;
	ssize_t r = 0;
	int rc;

	rc = rsh_mk_write_hdr(fd, img, following, next_ver, out);
	if (rc == 0)
		rc = rsh_mk_rd_open(&rd, img);
	if (rc != 0)
		return rc;
	while (rc == 0 && (r = rsh_mk_rd_next(&rd, buf)) > 0)
		rc = rsh_mk_write(fd, buf, (size_t)r, out);
	rsh_mk_rd_close(&rd);
	if (rc != 0 || r < 0)
		return RSH_MK_EXIT_FAIL;
	if (rd.done != img->len)
		return rsh_mk_fail("%s: changed while being read", img->path);
	return rsh_mk_write(fd, zeros, rsh_bfb_pad(img->len), out);
}

/* Copy an --append file to the output. */
static int
rsh_mk_append(int fd, const char *path, uint8_t *buf, const char *out)
{
	struct rsh_mk_img img = { .path = path, .size = 0 };
	struct rsh_mk_rd rd;
	ssize_t r = 0;
	int rc;

	rc = rsh_mk_rd_open(&rd, &img);
	if (rc != 0)
		return rc;
	while (rc == 0 && (r = rsh_mk_rd_next(&rd, buf)) > 0)
		rc = rsh_mk_write(fd, buf, (size_t)r, out);
	rsh_mk_rd_close(&rd);
	return (rc != 0 || r < 0) ? RSH_MK_EXIT_FAIL : 0;
}

/* Write every image then every append to fd. */
static int
rsh_mk_emit_all(struct rsh_mk_opts *o, int fd, uint8_t *buf, const char *out)
{
	uint64_t following[RSH_MK_MAX_IMAGES], acc = 0;
	unsigned int i;
	int rc = 0;

	/* Bit k of image i's bitmap: an image with id k comes later (§D6.3). */
	for (i = o->n_imgs; i-- > 0;) {
		following[i] = acc;
		acc |= 1ull << o->imgs[i].id;
	}
	for (i = 0; rc == 0 && i < o->n_imgs; i++) {
		rc = rsh_mk_image_crc(&o->imgs[i], buf);
		if (rc == 0)
			rc = rsh_mk_emit_image(fd, &o->imgs[i], following[i],
					       i + 1 < o->n_imgs ? o->imgs[i + 1].ver : 0,
					       buf, out);
	}
	for (i = 0; rc == 0 && i < o->n_appends; i++)
		rc = rsh_mk_append(fd, o->appends[i], buf, out);
	return rc;
}

/* Build OUT via a temporary file, validate it, then rename it into place. */
static int
rsh_mk_build(struct rsh_mk_opts *o)
{
	struct rsh_bfb_result res;
	uint8_t *buf = malloc(RSH_MK_CHUNK);
	char *tmp = NULL;
	int fd = -1, rc = RSH_MK_EXIT_FAIL;

	if (buf == NULL || asprintf(&tmp, "%s.tmpXXXXXX", o->out) < 0) {
		rc = rsh_mk_fail("out of memory");
		goto out_free;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = rsh_mk_fail("%s: %s", o->out, strerror(errno));
		goto out_free;
	}
	fchmod(fd, 0644);
	rc = rsh_mk_emit_all(o, fd, buf, o->out);
	if (close(fd) != 0 && rc == 0)
		rc = rsh_mk_fail("%s: close: %s", o->out, strerror(errno));
	if (rc == 0 && rsh_bfb_validate_file(tmp, &res) != 0)
		rc = rsh_mk_fail("%s: result does not validate: %s", o->out, res.msg);
	if (rc == 0 && rename(tmp, o->out) != 0)
		rc = rsh_mk_fail("%s: rename: %s", o->out, strerror(errno));
	if (rc != 0)
		unlink(tmp);
out_free:
	free(tmp);
	free(buf);
	return rc;
}

/* Print one line per image of a validated file, re-reading its headers. */
static int
rsh_mk_print_images(int fd, const struct rsh_bfb_result *res, const char *path)
{
	struct rsh_bfb_hdr h;
	uint64_t w[3], off = 0;
	unsigned int i, k;
	const char *name;

	printf("%5s  %-12s %3s  %-16s %3s  %4s  %10s  %-10s\n", "index", "offset",
	       "id", "name", "ver", "next", "length", "crc");
	for (i = 0; i < res->n_images; i++) {
		if (pread(fd, w, sizeof(w), (off_t)off) != (ssize_t)sizeof(w))
			return rsh_mk_fail("%s: re-read failed", path);
		for (k = 0; k < 3; k++)
			w[k] = le64toh(w[k]);
		rsh_bfb_hdr_decode(w, &h);
		name = rsh_bfb_id_name(h.id);
		printf("%5u  0x%010" PRIx64 " %3u  %-16s %3u  %4u  %10" PRIu32
		       "  0x%08" PRIx32 "\n", i, off, h.id, name ? name : "-",
		       h.cur_ver, h.next_ver, h.image_len, h.crc);
		off += (uint64_t)h.hdr_words * 8 + h.image_len +
		       rsh_bfb_pad(h.image_len);
	}
	printf("trailing bytes: %" PRIu64 " at offset 0x%" PRIx64 "\n",
	       res->trailing_bytes, res->images_end);
	if (res->n_bfbs > 1)
		printf("concatenation of %u BFBs\n", res->n_bfbs);
	if (res->n_warnings > 0)
		fprintf(stderr, "rshim-mkbfb: %s: warning: %s%s\n", path, res->warn,
			res->n_warnings > 1 ? " (and more repeats)" : "");
	return 0;
}

/* --list FILE: validate, then print the images. */
static int
rsh_mk_list(const char *path)
{
	struct rsh_bfb_result res;
	int fd, rc;

	rc = rsh_bfb_validate_file(path, &res);
	if (rc != 0)
		return rsh_mk_fail("%s: %s", path, res.msg);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rsh_mk_fail("%s: %s", path, strerror(errno));
	rc = rsh_mk_print_images(fd, &res, path);
	close(fd);
	return rc;
}

int
main(int argc, char **argv)
{
	static struct rsh_mk_opts opts;
	int rc;

	rc = rsh_mk_parse(argc, argv, &opts);
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	if (opts.list)
		return rsh_mk_list(opts.list);
	return rsh_mk_build(&opts);
}
