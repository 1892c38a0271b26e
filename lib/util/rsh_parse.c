/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parsers and formatters for sizes, rates, durations, integers and
 * booleans (grammar in rsh_parse.h). Numbers are read digit by digit in
 * integer arithmetic, never through strtod(), so "nan", "inf", exponents,
 * signs and leading blanks cannot slip in, and 0.1 s is exactly 100 ms.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rsh_parse.h"

/* Digits kept after the decimal point; later ones are read and dropped. */
#define RSH_PARSE_FRAC_DIGITS 18

/* A number as written: integer part, fraction num/den, where it ended. */
struct rsh_num {
	uint64_t ip;
	uint64_t frac_num;
	uint64_t frac_den;   /* 1 when there is no fraction */
	bool hex;
	bool overflow;       /* the integer part does not fit 64 bits */
	const char *unit;    /* what follows the number (one blank skipped) */
};

/* One unit: its spelling and how many base units it holds. */
struct rsh_unit {
	const char *name;
	uint64_t mult;
};

#define RSH_KI (1ull << 10)
#define RSH_MI (1ull << 20)
#define RSH_GI (1ull << 30)
#define RSH_TI (1ull << 40)
#define RSH_K 1000ull
#define RSH_M 1000000ull
#define RSH_G 1000000000ull
#define RSH_T 1000000000000ull

/* Size units (compared case-insensitively). */
static const struct rsh_unit rsh_size_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", RSH_KI }, { "kib", RSH_KI }, { "kb", RSH_K },
	{ "m", RSH_MI }, { "mib", RSH_MI }, { "mb", RSH_M },
	{ "g", RSH_GI }, { "gib", RSH_GI }, { "gb", RSH_G },
	{ "t", RSH_TI }, { "tib", RSH_TI }, { "tb", RSH_T },
	{ NULL, 0 },
};

/* Rate units before an optional "/s" (case-insensitive); bare = SI. */
static const struct rsh_unit rsh_rate_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", RSH_K }, { "kb", RSH_K }, { "kib", RSH_KI },
	{ "m", RSH_M }, { "mb", RSH_M }, { "mib", RSH_MI },
	{ "g", RSH_G }, { "gb", RSH_G }, { "gib", RSH_GI },
	{ "t", RSH_T }, { "tb", RSH_T }, { "tib", RSH_TI },
	{ NULL, 0 },
};

/* Duration units in ns (case-sensitive: m is minutes, M is nothing). */
static const struct rsh_unit rsh_dur_units[] = {
	{ "ns", 1 }, { "us", RSH_NS_PER_US }, { "ms", RSH_NS_PER_MS },
	{ "s", RSH_NS_PER_S }, { "m", 60 * RSH_NS_PER_S },
	{ "min", 60 * RSH_NS_PER_S }, { "h", 3600 * RSH_NS_PER_S },
	{ NULL, 0 },
};

/* Value of a hex digit, or -1. */
static int
rsh_parse_xdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append digits of base to *v from *p; false when none were read. */
static bool
rsh_parse_digits(const char **p, unsigned int base, uint64_t *v, bool *ovf)
{
	const char *s = *p;
	int d;

	while ((d = rsh_parse_xdigit(**p)) >= 0 && (unsigned int)d < base) {
		if (*v > (UINT64_MAX - (uint64_t)d) / base)
			*ovf = true;
		else
			*v = *v * base + (uint64_t)d;
		(*p)++;
	}
	return *p != s;
}

/* Decimal fraction digits after the point (at least one). */
static int
rsh_parse_frac(const char **p, struct rsh_num *n)
{
	unsigned int kept = 0;
	const char *s = *p;

	for (; **p >= '0' && **p <= '9'; (*p)++) {
		if (kept == RSH_PARSE_FRAC_DIGITS)
			continue;
		n->frac_num = n->frac_num * 10 + (uint64_t)(**p - '0');
		n->frac_den *= 10;
		kept++;
	}
	return *p == s ? -EINVAL : 0;
}

/* Read the number at the start of s; the unit is left in n->unit. */
static int
rsh_parse_number(const char *s, bool allow_frac, struct rsh_num *n)
{
	const char *p = s;

	memset(n, 0, sizeof(*n));
	n->frac_den = 1;
	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		n->hex = true;
		if (!rsh_parse_digits(&p, 16, &n->ip, &n->overflow))
			return -EINVAL;
	} else {
		rsh_parse_digits(&p, 10, &n->ip, &n->overflow);
		if (*p == '.') {
			p++;
			if (!allow_frac || rsh_parse_frac(&p, n) < 0)
				return -EINVAL;
		}
	}
	if (*p == ' ' && p[1] != '\0')
		p++;
	n->unit = p;
	return 0;
}

/* Look a unit up; NULL when it is not in the table. */
static const struct rsh_unit *
rsh_parse_unit(const struct rsh_unit *tab, const char *u, size_t len,
	       bool icase)
{
	for (; tab->name != NULL; tab++) {
		if (strlen(tab->name) != len)
			continue;
		if (icase ? strncasecmp(tab->name, u, len) == 0 :
			    strncmp(tab->name, u, len) == 0)
			return tab;
	}
	return NULL;
}

/* n * mult into *out; *exact says whether no fraction was dropped. */
static int
rsh_parse_scale(const struct rsh_num *n, uint64_t mult, uint64_t *out,
		bool *exact)
{
	unsigned __int128 whole, frac;

	if (n->overflow)
		return -ERANGE;
	whole = (unsigned __int128)n->ip * mult;
	frac = (unsigned __int128)n->frac_num * mult;
	*exact = frac % n->frac_den == 0;
	whole += frac / n->frac_den;
	if (whole > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)whole;
	return 0;
}

/* Range check and store. */
static int
rsh_parse_store(uint64_t v, uint64_t min, uint64_t max, uint64_t *out)
{
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Parse an unsigned integer in [min, max]. */
int
rsh_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	struct rsh_num n;

	if (rsh_parse_number(s, false, &n) < 0 || *n.unit != '\0')
		return -EINVAL;
	if (n.overflow)
		return -ERANGE;
	return rsh_parse_store(n.ip, min, max, out);
}

/* Scale n by the unit spelled in its first ulen unit chars, found in tab. */
static int
rsh_parse_unit_scale(const struct rsh_num *n, size_t ulen,
		     const struct rsh_unit *tab, bool icase, bool need_exact,
		     uint64_t *v)
{
	const struct rsh_unit *u;
	bool exact;
	int rc;

	if (n->hex && ulen != 0)
		return -EINVAL;
	u = rsh_parse_unit(tab, n->unit, ulen, icase);
	if (u == NULL)
		return -EINVAL;
	rc = rsh_parse_scale(n, u->mult, v, &exact);
	if (rc == 0 && need_exact && !exact)
		return -EINVAL;
	return rc;
}

/* Parse a size in bytes in [min, max]. */
int
rsh_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	struct rsh_num n;
	uint64_t v;
	int rc;

	if (rsh_parse_number(s, true, &n) < 0)
		return -EINVAL;
	rc = rsh_parse_unit_scale(&n, strlen(n.unit), rsh_size_units, true,
				  true, &v);
	return rc < 0 ? rc : rsh_parse_store(v, min, max, out);
}

/* Parse a rate in bytes per second in [min, max]. */
int
rsh_parse_rate(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	struct rsh_num n;
	size_t ulen;
	uint64_t v;
	int rc;

	if (rsh_parse_number(s, true, &n) < 0)
		return -EINVAL;
	ulen = strlen(n.unit);
	if (ulen >= 2 && strcmp(n.unit + ulen - 2, "/s") == 0)
		ulen -= 2;
	rc = rsh_parse_unit_scale(&n, ulen, rsh_rate_units, true, false, &v);
	return rc < 0 ? rc : rsh_parse_store(v, min, max, out);
}

/* Parse a duration into ns in [min_ns, max_ns]. */
int
rsh_parse_duration(const char *s, uint64_t def_unit_ns, uint64_t min_ns,
		   uint64_t max_ns, uint64_t *out_ns)
{
	struct rsh_num n;
	uint64_t v;
	bool exact;
	int rc;

	if (rsh_parse_number(s, true, &n) < 0 || n.hex)
		return -EINVAL;
	if (*n.unit != '\0')
		rc = rsh_parse_unit_scale(&n, strlen(n.unit), rsh_dur_units,
					  false, false, &v);
	else if (def_unit_ns == 0 && (n.ip != 0 || n.frac_num != 0 || n.overflow))
		rc = -EINVAL;
	else
		rc = rsh_parse_scale(&n, def_unit_ns == 0 ? 1 : def_unit_ns, &v,
				     &exact);
	return rc < 0 ? rc : rsh_parse_store(v, min_ns, max_ns, out_ns);
}

/* Parse a boolean. */
int
rsh_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	unsigned int i;

	if (s == NULL)
		return -EINVAL;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* "v / div" with at most `decimals` decimals, trailing zeros dropped. */
static void
rsh_fmt_frac(char *buf, size_t len, uint64_t v, uint64_t div, int decimals,
	     const char *unit)
{
	char num[48];
	size_t n;

	if (v % div == 0) {
		snprintf(buf, len, "%llu %s", (unsigned long long)(v / div), unit);
		return;
	}
	snprintf(num, sizeof(num), "%.*f", decimals, (double)v / (double)div);
	n = strlen(num);
	while (n > 0 && num[n - 1] == '0')
		num[--n] = '\0';
	if (n > 0 && num[n - 1] == '.')
		num[--n] = '\0';
	snprintf(buf, len, "%s %s", num, unit);
}

/* Format a byte count with binary units. */
char *
rsh_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	unsigned int i = 0;

	while (i + 1 < sizeof(units) / sizeof(units[0]) &&
	       bytes >> (10 * (i + 1)) != 0)
		i++;
	rsh_fmt_frac(buf, len, bytes, 1ull << (10 * i), 2, units[i]);
	return buf;
}

/* Format a duration in ns. */
char *
rsh_fmt_duration(char *buf, size_t len, uint64_t ns)
{
	static const uint64_t min = 60 * RSH_NS_PER_S, hour = 60 * min;

	if (ns < RSH_NS_PER_US)
		rsh_fmt_frac(buf, len, ns, 1, 0, "ns");
	else if (ns < RSH_NS_PER_MS)
		rsh_fmt_frac(buf, len, ns, RSH_NS_PER_US, 3, "us");
	else if (ns < RSH_NS_PER_S)
		rsh_fmt_frac(buf, len, ns, RSH_NS_PER_MS, 3, "ms");
	else if (ns % hour == 0)
		rsh_fmt_frac(buf, len, ns, hour, 0, "h");
	else if (ns % min == 0)
		rsh_fmt_frac(buf, len, ns, min, 0, "m");
	else
		rsh_fmt_frac(buf, len, ns, RSH_NS_PER_S, 3, "s");
	return buf;
}

/* Format a rate with SI units. */
char *
rsh_fmt_rate(char *buf, size_t len, uint64_t bytes_per_s)
{
	static const char *const units[] = {
		"B/s", "KB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s",
	};
	uint64_t div = 1;
	unsigned int i = 0;

	while (i + 1 < sizeof(units) / sizeof(units[0]) &&
	       bytes_per_s / div >= 1000) {
		div *= 1000;
		i++;
	}
	rsh_fmt_frac(buf, len, bytes_per_s, div, 2, units[i]);
	return buf;
}
