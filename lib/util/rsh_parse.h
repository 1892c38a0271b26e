/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * One parser for the numbers users type: sizes, rates, durations, unsigned
 * integers and booleans, and the matching formatters. The app, rshim-mkbfb,
 * the emulator's devargs and the service's config file all use it, so a
 * value means the same thing wherever it is written.
 *
 * Grammar (no leading blanks, no sign, one optional blank before the unit):
 *  - uint:     decimal digits, or 0x followed by hex digits.
 *  - size:     a number (decimal fraction allowed, 0x hex without one) and
 *              an optional unit, case-insensitive: B; K, M, G, T and KiB,
 *              MiB, GiB, TiB are powers of 1024; KB, MB, GB, TB are powers
 *              of 1000. The result must be a whole number of bytes.
 *  - rate:     bytes per second: a number, an optional unit and an optional
 *              "/s". Bare K, M, G, T are powers of 1000 here (throughput is
 *              quoted that way); KiB/s... are powers of 1024.
 *  - duration: a number and a unit ns, us, ms, s, m (or min), h. A bare
 *              number is in the caller's default unit, or refused when the
 *              caller has none (except 0). Fractions below 1 ns are dropped.
 *  - bool:     1/0, yes/no, true/false, on/off, case-insensitive.
 *
 * "nan", "inf", "1e300", negative numbers and trailing characters are all
 * refused. Every parser returns 0, -EINVAL (not of the grammar) or -ERANGE
 * (well-formed but outside [min, max] or beyond 64 bits); *out is written
 * only on success.
 */
#ifndef RSH_PARSE_H
#define RSH_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** One-line descriptions of each grammar, for --help and error lines. */
#define RSH_PARSE_HINT_UINT "a whole number (decimal or 0x hex)"
#define RSH_PARSE_HINT_SIZE "a size such as 4096, 64K, 1.5MiB or 2GB (K/M/G = 1024^n, KB/MB/GB = 1000^n)"
#define RSH_PARSE_HINT_RATE "a rate in bytes/s such as 20M, 1G/s or 100MiB/s (K/M/G = 1000^n)"
#define RSH_PARSE_HINT_DURATION "a duration such as 250us, 1.5s, 30m or 2h"
#define RSH_PARSE_HINT_BOOL "yes/no, on/off, true/false or 1/0"

/** Nanoseconds per unit, for the default unit of rsh_parse_duration(). */
#define RSH_NS_PER_US 1000ull
#define RSH_NS_PER_MS 1000000ull
#define RSH_NS_PER_S 1000000000ull

/**
 * Parse an unsigned integer in [min, max].
 * @return 0, -EINVAL, -ERANGE.
 */
int rsh_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * Parse a size in bytes in [min, max].
 * @return 0, -EINVAL (also for a fraction of a byte), -ERANGE.
 */
int rsh_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * Parse a rate in bytes per second in [min, max] (fractions rounded down).
 * @return 0, -EINVAL, -ERANGE.
 */
int rsh_parse_rate(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * Parse a duration into nanoseconds in [min_ns, max_ns].
 * @param def_unit_ns unit of a bare number (RSH_NS_PER_S, ...); 0 means a
 *        unit is required, except for a plain "0".
 * @return 0, -EINVAL, -ERANGE.
 */
int rsh_parse_duration(const char *s, uint64_t def_unit_ns, uint64_t min_ns,
		       uint64_t max_ns, uint64_t *out_ns);

/**
 * Parse a boolean.
 * @return 0, -EINVAL.
 */
int rsh_parse_bool(const char *s, bool *out);

/**
 * Format a byte count for people: "512 B", "64 KiB", "1.5 GiB" (two
 * decimals at most, trailing zeros dropped). Exact values read back with
 * rsh_parse_size() to the same number.
 * @return buf.
 */
char *rsh_fmt_size(char *buf, size_t len, uint64_t bytes);

/**
 * Format a duration: "250 us", "1.5 s", "30 m", "2 h" (three decimals at
 * most). Whole minutes and hours use m and h; everything else from 1 s up
 * is in seconds.
 * @return buf.
 */
char *rsh_fmt_duration(char *buf, size_t len, uint64_t ns);

/**
 * Format a rate in bytes per second with SI units: "950 B/s", "12.5 MB/s".
 * @return buf.
 */
char *rsh_fmt_rate(char *buf, size_t len, uint64_t bytes_per_s);

#endif /* RSH_PARSE_H */
