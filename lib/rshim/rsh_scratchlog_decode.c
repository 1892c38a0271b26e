/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scratch-log records into text lines, hardware-notes §5.6. The text comes
 * from the device, so nothing here trusts it: it is never a printf format,
 * every length is bounded, every byte printed is printable.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "rsh_scratchlog_decode.h"
#include "rsh_regs.h"

#define RSH_SCRATCHLOG_WIDTH_MAX 32u /* widest printf field a record may ask for */
#define RSH_SCRATCHLOG_MRS_SHIFT 5   /* MRS: bits 20:5 = op0 op1 CRn CRm op2 */
#define RSH_SCRATCHLOG_MRS_MASK 0xFFFFu

static const char *const rsh_scratchlog_modules[] = {
	"MISC", "BL1", "BL2", "BL2R", "BL31", "UEFI", "PSC",
};
static const char *const rsh_scratchlog_levels[] = { "INFO", "WARN", "ERR", "ASSERT" };

/* An MRS system-register encoding from its architectural fields. */
#define RSH_SYSREG(n, op0, op1, crn, crm, op2) \
	{ n, (uint16_t)(((op0) & 3) << 14 | (op1) << 11 | (crn) << 7 | (crm) << 3 | (op2)) }

/* The registers firmware crash dumps carry (Arm ARM system-register
 * encodings; EL1/EL2/EL3 variants differ in op1 = 0/4/6). */
static const struct {
	const char *name;
	uint16_t enc;
} rsh_scratchlog_sysregs[] = {
	RSH_SYSREG("midr_el1", 3, 0, 0, 0, 0), RSH_SYSREG("mpidr_el1", 3, 0, 0, 0, 5),
	RSH_SYSREG("sctlr_el1", 3, 0, 1, 0, 0), RSH_SYSREG("sctlr_el2", 3, 4, 1, 0, 0),
	RSH_SYSREG("sctlr_el3", 3, 6, 1, 0, 0), RSH_SYSREG("actlr_el1", 3, 0, 1, 0, 1),
	RSH_SYSREG("actlr_el2", 3, 4, 1, 0, 1), RSH_SYSREG("actlr_el3", 3, 6, 1, 0, 1),
	RSH_SYSREG("cpacr_el1", 3, 0, 1, 0, 2), RSH_SYSREG("hcr_el2", 3, 4, 1, 1, 0),
	RSH_SYSREG("cptr_el2", 3, 4, 1, 1, 2), RSH_SYSREG("scr_el3", 3, 6, 1, 1, 0),
	RSH_SYSREG("cptr_el3", 3, 6, 1, 1, 2), RSH_SYSREG("ttbr0_el1", 3, 0, 2, 0, 0),
	RSH_SYSREG("ttbr1_el1", 3, 0, 2, 0, 1), RSH_SYSREG("tcr_el1", 3, 0, 2, 0, 2),
	RSH_SYSREG("ttbr0_el2", 3, 4, 2, 0, 0), RSH_SYSREG("tcr_el2", 3, 4, 2, 0, 2),
	RSH_SYSREG("vttbr_el2", 3, 4, 2, 1, 0), RSH_SYSREG("vtcr_el2", 3, 4, 2, 1, 2),
	RSH_SYSREG("ttbr0_el3", 3, 6, 2, 0, 0), RSH_SYSREG("tcr_el3", 3, 6, 2, 0, 2),
	RSH_SYSREG("spsr_el1", 3, 0, 4, 0, 0), RSH_SYSREG("elr_el1", 3, 0, 4, 0, 1),
	RSH_SYSREG("spsr_el2", 3, 4, 4, 0, 0), RSH_SYSREG("elr_el2", 3, 4, 4, 0, 1),
	RSH_SYSREG("spsr_el3", 3, 6, 4, 0, 0), RSH_SYSREG("elr_el3", 3, 6, 4, 0, 1),
	RSH_SYSREG("sp_el0", 3, 0, 4, 1, 0), RSH_SYSREG("sp_el1", 3, 4, 4, 1, 0),
	RSH_SYSREG("sp_el2", 3, 6, 4, 1, 0), RSH_SYSREG("spsel", 3, 0, 4, 2, 0),
	RSH_SYSREG("currentel", 3, 0, 4, 2, 2), RSH_SYSREG("nzcv", 3, 3, 4, 2, 0),
	RSH_SYSREG("daif", 3, 3, 4, 2, 1), RSH_SYSREG("afsr0_el1", 3, 0, 5, 1, 0),
	RSH_SYSREG("afsr1_el1", 3, 0, 5, 1, 1), RSH_SYSREG("afsr0_el2", 3, 4, 5, 1, 0),
	RSH_SYSREG("afsr1_el2", 3, 4, 5, 1, 1), RSH_SYSREG("afsr0_el3", 3, 6, 5, 1, 0),
	RSH_SYSREG("afsr1_el3", 3, 6, 5, 1, 1), RSH_SYSREG("esr_el1", 3, 0, 5, 2, 0),
	RSH_SYSREG("esr_el2", 3, 4, 5, 2, 0), RSH_SYSREG("esr_el3", 3, 6, 5, 2, 0),
	RSH_SYSREG("far_el1", 3, 0, 6, 0, 0), RSH_SYSREG("far_el2", 3, 4, 6, 0, 0),
	RSH_SYSREG("hpfar_el2", 3, 4, 6, 0, 4), RSH_SYSREG("far_el3", 3, 6, 6, 0, 0),
	RSH_SYSREG("par_el1", 3, 0, 7, 4, 0), RSH_SYSREG("mair_el1", 3, 0, 10, 2, 0),
	RSH_SYSREG("mair_el2", 3, 4, 10, 2, 0), RSH_SYSREG("mair_el3", 3, 6, 10, 2, 0),
	RSH_SYSREG("vbar_el1", 3, 0, 12, 0, 0), RSH_SYSREG("vbar_el2", 3, 4, 12, 0, 0),
	RSH_SYSREG("vbar_el3", 3, 6, 12, 0, 0), RSH_SYSREG("isr_el1", 3, 0, 12, 1, 0),
	RSH_SYSREG("tpidr_el1", 3, 0, 13, 0, 4), RSH_SYSREG("tpidr_el0", 3, 3, 13, 0, 2),
	RSH_SYSREG("tpidr_el2", 3, 4, 13, 0, 2), RSH_SYSREG("tpidr_el3", 3, 6, 13, 0, 2),
	RSH_SYSREG("cntkctl_el1", 3, 0, 14, 1, 0),
};

/* System-register name of an opcode word's MRS encoding. */
const char *
rsh_scratchlog_sysreg_name(uint64_t opcode, char *buf, size_t len)
{
	unsigned int e = (opcode >> RSH_SCRATCHLOG_MRS_SHIFT) & RSH_SCRATCHLOG_MRS_MASK;

	for (unsigned int i = 0; i < RTE_DIM(rsh_scratchlog_sysregs); i++) {
		if (rsh_scratchlog_sysregs[i].enc == e) {
			snprintf(buf, len, "%s", rsh_scratchlog_sysregs[i].name);
			return buf;
		}
	}
	snprintf(buf, len, "s%u_%u_c%u_c%u_%u", e >> 14, (e >> 11) & 7,
		 (e >> 7) & 0xF, (e >> 3) & 0xF, e & 7);
	return buf;
}

/* Append one character if it fits. */
static void
rsh_scratchlog_putc(char *out, size_t len, size_t *pos, char c)
{
	if (*pos + 1 < len)
		out[(*pos)++] = c;
	out[*pos < len ? *pos : len - 1] = '\0';
}

/* One integer conversion of the firmware's text with its argument; returns
 * the characters consumed after '%', 0 when it is not one we format. */
static size_t
rsh_scratchlog_conv(const char *p, uint32_t arg, char *num, size_t numlen)
{
	const char *q = p + 1;
	unsigned int width = 0;
	char spec[16];
	size_t k = 0;

	while (*q != '\0' && strchr("-+ #0123456789l", *q) != NULL) {
		if (*q >= '0' && *q <= '9' && width < 1000)
			width = width * 10 + (unsigned int)(*q - '0');
		q++;
	}
	/* A width from the device is bounded: %999999999d would make
	 * snprintf count a billion characters. */
	if (*q == '\0' || strchr("diuxX", *q) == NULL ||
	    (size_t)(q - p) + 2 > sizeof(spec) || width > RSH_SCRATCHLOG_WIDTH_MAX)
		return 0;
	for (const char *s = p; s < q; s++) /* keep flags and width only */
		if (*s != 'l')
			spec[k++] = *s;
	spec[k++] = *q;
	spec[k] = '\0';
	if (*q == 'd' || *q == 'i')
		snprintf(num, numlen, spec, (int)(int32_t)arg);
	else
		snprintf(num, numlen, spec, (unsigned int)arg);
	return (size_t)(q - p);
}

/*
 * Format the firmware's text with its one 32-bit argument: only integer
 * conversions (%d %i %u %x %X with flags/width) take the argument.
 */
static void
rsh_scratchlog_format(const char *fmt, bool has_arg, uint32_t arg, char *out, size_t len)
{
	size_t pos = 0;
	char num[40];

	out[0] = '\0';
	for (const char *p = fmt; *p != '\0'; p++) {
		size_t used = 0;

		if (*p == '%' && has_arg)
			used = rsh_scratchlog_conv(p, arg, num, sizeof(num));
		if (used == 0) {
			rsh_scratchlog_putc(out, len, &pos, isprint((unsigned char)*p) ? *p : '.');
			continue;
		}
		for (const char *s = num; *s != '\0'; s++)
			rsh_scratchlog_putc(out, len, &pos, *s);
		p += used;
	}
}

/* Fill the common fields of a line. */
static void
rsh_scratchlog_rec_init(struct rsh_scratchlog_rec *r, uint64_t hdr, unsigned int level)
{
	r->module = RSH_SCRATCHLOG_HDR__MODULE(hdr);
	r->type = RSH_SCRATCHLOG_HDR__TYPE(hdr);
	r->level = level;
}

/* Module name, MISC for an unknown one (as NVIDIA's rshim prints it). */
static const char *
rsh_scratchlog_mod_name(uint64_t hdr)
{
	unsigned int m = RSH_SCRATCHLOG_HDR__MODULE(hdr);

	return m < RTE_DIM(rsh_scratchlog_modules) ? rsh_scratchlog_modules[m] :
						     rsh_scratchlog_modules[0];
}

/* A MSG record: " LEVEL[MODULE]: text" from len words of ASCII. */
static unsigned int
rsh_scratchlog_msg(uint64_t hdr, const uint64_t *words, unsigned int len,
		   struct rsh_scratchlog_rec *recs, unsigned int max)
{
	char text[8 * RSH_SCRATCH_BUF_WORDS + 1];
	char body[sizeof(recs->text)];
	unsigned int lvl = RSH_SCRATCHLOG_HDR__LEVEL(hdr);

	if (max == 0)
		return 1;
	for (unsigned int i = 0; i < len; i++)
		memcpy(text + 8 * i, &words[i], 8); /* little-endian ASCII, §5.6 */
	text[8 * len] = '\0';
	if (lvl >= RTE_DIM(rsh_scratchlog_levels))
		lvl = 0; /* an unknown level prints as INFO, as NVIDIA's rshim does */
	rsh_scratchlog_format(text, RSH_SCRATCHLOG_HDR__HAS_ARG(hdr) != 0,
			      RSH_SCRATCHLOG_HDR__ARG(hdr), body, sizeof(body));
	rsh_scratchlog_rec_init(&recs[0], hdr, lvl);
	snprintf(recs[0].text, sizeof(recs[0].text), " %s[%s]: %s",
		 rsh_scratchlog_levels[lvl], rsh_scratchlog_mod_name(hdr), body);
	return 1;
}

/* The crash line: PC (PANIC) or ESR with its class (EXCEPTION), §5.6. */
static void
rsh_scratchlog_crash_head(uint64_t hdr, struct rsh_scratchlog_rec *r)
{
	uint32_t v = RSH_SCRATCHLOG_HDR__PC(hdr);
	unsigned int ec = v >> 26;

	rsh_scratchlog_rec_init(r, hdr, RSH_SCRATCHLOG_LEVEL_ERR);
	if (RSH_SCRATCHLOG_HDR__TYPE(hdr) == RSH_SCRATCHLOG_TYPE_PANIC) {
		snprintf(r->text, sizeof(r->text), " PANIC(%s): PC = 0x%x",
			 rsh_scratchlog_mod_name(hdr), v);
		return;
	}
	snprintf(r->text, sizeof(r->text), " Exception(%s): syndrome = 0x%x%s",
		 rsh_scratchlog_mod_name(hdr), v,
		 ec == 0x24 || ec == 0x25 ? "(Data Abort)" :
		 ec == 0x2F ? "(SError)" : "");
}

/* A PANIC/EXCEPTION record: the crash line, then "reg = value" lines. */
static unsigned int
rsh_scratchlog_crash(uint64_t hdr, const uint64_t *words, unsigned int len,
		     struct rsh_scratchlog_rec *recs, unsigned int max)
{
	unsigned int n = 0;
	char name[24];

	if (n < max)
		rsh_scratchlog_crash_head(hdr, &recs[n]);
	n++;
	for (unsigned int i = 0; i + 1 < len; i += 2, n++) {
		if (n >= max)
			continue;
		rsh_scratchlog_rec_init(&recs[n], hdr, RSH_SCRATCHLOG_LEVEL_ERR);
		snprintf(recs[n].text, sizeof(recs[n].text), "   %s = 0x%" PRIx64,
			 rsh_scratchlog_sysreg_name(words[i], name, sizeof(name)), words[i + 1]);
	}
	return n;
}

/* Every record of words[0..n): a header, then its len payload words. */
unsigned int
rsh_scratchlog_decode_words(const uint64_t *words, unsigned int n,
			    struct rsh_scratchlog_rec *recs, unsigned int max)
{
	unsigned int i = 0, out = 0;

	while (i < n) {
		uint64_t hdr = words[i];
		unsigned int len = RSH_SCRATCHLOG_HDR__LEN(hdr);
		unsigned int room = out < max ? max - out : 0;
		struct rsh_scratchlog_rec *r = room ? recs + out : NULL;

		if (i + 1 + len > n)
			break; /* wrapped: NVIDIA's rshim stops here too */
		switch (RSH_SCRATCHLOG_HDR__TYPE(hdr)) {
		case RSH_SCRATCHLOG_TYPE_MSG:
			out += len == 0 ? 0 : rsh_scratchlog_msg(hdr, words + i + 1, len, r, room);
			break;
		case RSH_SCRATCHLOG_TYPE_PANIC:
		case RSH_SCRATCHLOG_TYPE_EXCEPTION:
			out += rsh_scratchlog_crash(hdr, words + i + 1, len, r, room);
			break;
		default:
			break; /* other types are skipped */
		}
		i += 1 + len;
	}
	return out < max ? out : max;
}

/* The lines as text. */
size_t
rsh_scratchlog_to_text(const struct rsh_scratchlog_rec *recs, unsigned int n, char *buf,
		       size_t len)
{
	size_t pos = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	for (unsigned int i = 0; i < n && pos + 1 < len; i++) {
		int w = snprintf(buf + pos, len - pos, "%s\n", recs[i].text);

		pos += w < 0 ? 0 : RTE_MIN((size_t)w, len - pos - 1);
	}
	return pos;
}
