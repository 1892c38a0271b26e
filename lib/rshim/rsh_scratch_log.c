/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rshim scratch log (boot/firmware log): read under SEMAPHORE0 and
 * decode, hardware-notes §5.6.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "rsh_cmd.h"
#include "rsh_dev_priv.h"
#include "rsh_log.h"

#define RSH_LOG_SEM_TIMEOUT_MS 3000u
#define RSH_LOG_WIDTH_MAX 32u /* widest printf field a record may ask for */
#define RSH_LOG_HDR__LEVEL(h) ((unsigned int)((h) & 0xFF))
#define RSH_LOG_HDR__HAS_ARG(h) ((unsigned int)(((h) >> 8) & 0xFF))
#define RSH_LOG_HDR__ARG(h) ((uint32_t)((h) >> 16))
#define RSH_LOG_HDR__LEN(h) ((unsigned int)(((h) >> 48) & 0x7F))
#define RSH_LOG_HDR__TYPE(h) ((unsigned int)(((h) >> 56) & 0xF))
#define RSH_LOG_HDR__MODULE(h) ((unsigned int)((h) >> 60))
#define RSH_LOG_TYPE_PANIC 1u
#define RSH_LOG_TYPE_EXCEPTION 2u
#define RSH_LOG_TYPE_MSG 4u

static const char *const rsh_log_modules[] = {
	"MISC", "BL1", "BL2", "BL2R", "BL31", "UEFI", "PSC",
};
static const char *const rsh_log_levels[] = { "INFO", "WARN", "ERR", "ASSERT" };

/* Append one character if it fits. */
static void
rsh_log_putc(char *out, size_t len, size_t *pos, char c)
{
	if (*pos + 1 < len)
		out[(*pos)++] = c;
	out[*pos < len ? *pos : len - 1] = '\0';
}

/*
 * Format the firmware's text with its one 32-bit argument. The text comes
 * from the device, so it is never used as a printf format: only integer
 * conversions (%d %i %u %x %X with flags/width) take the argument.
 */
static void
rsh_log_format(const char *fmt, bool has_arg, uint32_t arg, char *out, size_t len)
{
	size_t pos = 0;
	char spec[16], num[40];

	out[0] = '\0';
	for (const char *p = fmt; *p != '\0'; p++) {
		const char *q = p + 1;
		size_t n;

		if (*p != '%' || !has_arg) {
			rsh_log_putc(out, len, &pos, isprint((unsigned char)*p) ? *p : '.');
			continue;
		}
		unsigned int width = 0;

		while (*q != '\0' && strchr("-+ #0123456789l", *q) != NULL) {
			if (*q >= '0' && *q <= '9' && width < 1000)
				width = width * 10 + (unsigned int)(*q - '0');
			q++;
		}
		n = (size_t)(q - p);
		/* A width from the device is bounded: %999999999d would make
		 * snprintf count a billion characters. */
		if (*q == '\0' || strchr("diuxX", *q) == NULL || n + 2 > sizeof(spec) ||
		    width > RSH_LOG_WIDTH_MAX) {
			rsh_log_putc(out, len, &pos, '%');
			continue;
		}
		/* Keep flags and width, drop length modifiers. */
		size_t k = 0;

		for (const char *s = p; s < q; s++)
			if (*s != 'l')
				spec[k++] = *s;
		spec[k++] = *q;
		spec[k] = '\0';
		if (*q == 'd' || *q == 'i')
			snprintf(num, sizeof(num), spec, (int)(int32_t)arg);
		else
			snprintf(num, sizeof(num), spec, (unsigned int)arg);
		for (const char *s = num; *s != '\0'; s++)
			rsh_log_putc(out, len, &pos, *s);
		p = q;
	}
}

/* Decode one record into rec (words: its len payload words). */
static void
rsh_log_decode(uint64_t hdr, const uint64_t *words, unsigned int n,
	       struct rsh_log_rec *rec)
{
	char text[8 * RSH_SCRATCH_BUF_WORDS + 1];
	const char *mod, *lvl;
	unsigned int i;

	rec->module = RSH_LOG_HDR__MODULE(hdr);
	rec->type = RSH_LOG_HDR__TYPE(hdr);
	rec->level = RSH_LOG_HDR__LEVEL(hdr);
	mod = rec->module < RTE_DIM(rsh_log_modules) ? rsh_log_modules[rec->module] : "?";
	lvl = rec->level < RTE_DIM(rsh_log_levels) ? rsh_log_levels[rec->level] : "?";
	if (rec->type == RSH_LOG_TYPE_PANIC || rec->type == RSH_LOG_TYPE_EXCEPTION) {
		snprintf(rec->text, sizeof(rec->text), " %s[%s]: %s %s 0x%08x (%u register words)",
			 lvl, mod, rec->type == RSH_LOG_TYPE_PANIC ? "PANIC at PC" : "EXCEPTION, ESR",
			 "", RSH_LOG_HDR__ARG(hdr), n);
		return;
	}
	for (i = 0; i < n; i++)
		memcpy(text + 8 * i, &words[i], 8); /* little-endian ASCII, §5.6 */
	text[8 * n] = '\0';
	char body[sizeof(rec->text)];

	rsh_log_format(text, RSH_LOG_HDR__HAS_ARG(hdr) != 0, RSH_LOG_HDR__ARG(hdr),
		       body, sizeof(body));
	snprintf(rec->text, sizeof(rec->text), " %s[%s]: %s", lvl, mod, body);
}

/* Read every record up to the index (§5.6 steps 2-5). */
static int
rsh_log_read_locked(struct rsh_dev *dev, bool clear, struct rsh_log_rec *recs,
		    unsigned int max)
{
	uint64_t words[RSH_SCRATCH_BUF_WORDS];
	uint64_t v = rsh_dev_rd(dev, RSH_SCRATCH_BUF_CTL);
	unsigned int idx, i = 0, nrec = 0;

	if (rsh_reg_val_is_bad(v))
		return rsh_dev_val_err(v);
	idx = v & RSH_SCRATCH_BUF_CTL__IDX_MASK;
	if (idx <= 1)
		return 0;
	rsh_dev_wr(dev, RSH_SCRATCH_BUF_CTL, 0);
	while (i < idx) {
		uint64_t hdr = rsh_dev_rd(dev, RSH_SCRATCH_BUF_DAT);
		unsigned int len = RSH_LOG_HDR__LEN(hdr), k;

		if (i + 1 + len > idx)
			break;
		for (k = 0; k < len; k++)
			words[k] = rsh_dev_rd(dev, RSH_SCRATCH_BUF_DAT);
		i += 1 + len;
		if (RSH_LOG_HDR__TYPE(hdr) != RSH_LOG_TYPE_MSG &&
		    RSH_LOG_HDR__TYPE(hdr) != RSH_LOG_TYPE_PANIC &&
		    RSH_LOG_HDR__TYPE(hdr) != RSH_LOG_TYPE_EXCEPTION)
			continue;
		if (nrec < max)
			rsh_log_decode(hdr, words, len, &recs[nrec]);
		nrec++;
	}
	rsh_dev_wr(dev, RSH_SCRATCH_BUF_CTL, clear ? 0 : idx);
	return nrec < max ? nrec : max;
}

/*
 * Command step: take SEMAPHORE0 (a read of 0 means acquired, §5.6 step 1;
 * retried every millisecond for 3 s without blocking the poll loop), read
 * the records, release it.
 */
static int
rsh_log_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_dev *dev = c->dev;
	uint64_t v;
	int rc;

	if (__atomic_load_n(&dev->boot, __ATOMIC_ACQUIRE) != NULL) {
		rsh_err_set("%s: a boot push owns the device; read the log after it", dev->name);
		return rsh_cmd_finish(c, -EBUSY);
	}
	if (c->t0 == 0)
		c->t0 = now;
	v = rsh_dev_rd(dev, RSH_SEMAPHORE0);
	if (rsh_reg_val_is_bad(v)) {
		rsh_err_set("%s: SEMAPHORE0 reads 0x%" PRIx64 ": the rshim is not reachable",
			    dev->name, v);
		return rsh_cmd_finish(c, rsh_dev_val_err(v));
	}
	if (v != 0) {
		if (now - c->t0 > rsh_ms_cyc(RSH_LOG_SEM_TIMEOUT_MS)) {
			rsh_err_set("%s: the scratch-log semaphore stayed taken for 3 s (another rshim driver reading the log?)",
				    dev->name);
			return rsh_cmd_finish(c, -ETIMEDOUT);
		}
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(1));
	}
	rc = rsh_log_read_locked(dev, c->in[0] != 0, c->ptr, (unsigned int)c->in[1]);
	rsh_dev_wr(dev, RSH_SEMAPHORE0, 0);
	return rsh_cmd_finish(c, rc);
}

/* Read and decode the scratch log under SEMAPHORE0 (a command). */
int
rsh_log_read(struct rsh_dev *dev, bool clear_on_read, struct rsh_log_rec *recs,
	     unsigned int max)
{
	struct rsh_cmd c;

	rsh_cmd_init(&c, dev, "scratch-log read", rsh_log_step);
	c.in[0] = clear_on_read;
	c.in[1] = max;
	c.ptr = recs;
	return rsh_cmd_exec(&c);
}
