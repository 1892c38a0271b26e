/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/util/rsh_parse: each grammar's accepted spellings, the
 * inputs every parser must refuse (nan, inf, exponents, signs, blanks,
 * trailing junk, 64-bit overflow), range limits, and that what the
 * formatters print reads back to the same value.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rsh_parse.h"

#define RSH_T_DIM(a) (sizeof(a) / sizeof((a)[0]))

/* One accepted spelling and the value it means. */
struct rsh_t_ok {
	const char *s;
	uint64_t v;
};

/* Strings none of the numeric parsers may accept. */
static const char *const rsh_t_junk[] = {
	"", " 1", "1 ", "+1", "-1", "- 1", "nan", "NaN", "inf", "-inf",
	"infinity", "1e3", "1E3", "1e300", "0x", "0x1.8", ".5", "1.", "1..2",
	"1,5", "1 2", "1\t", "1\n", "12abc", "1K2", "K", "0b101", "1.5.5",
};

/* Check that parse refuses every junk string with -EINVAL. */
static void
rsh_t_refuses_junk(int (*parse)(const char *, uint64_t *), const char *what)
{
	uint64_t v = 0xdead;
	unsigned int i;

	for (i = 0; i < RSH_T_DIM(rsh_t_junk); i++) {
		int rc = parse(rsh_t_junk[i], &v);

		if (rc != -EINVAL)
			fail_msg("%s accepted '%s' (rc %d)", what, rsh_t_junk[i], rc);
		assert_int_equal(v, 0xdead);
	}
}

static int
rsh_t_uint(const char *s, uint64_t *v)
{
	return rsh_parse_uint(s, 0, UINT64_MAX, v);
}

static int
rsh_t_size(const char *s, uint64_t *v)
{
	return rsh_parse_size(s, 0, UINT64_MAX, v);
}

static int
rsh_t_rate(const char *s, uint64_t *v)
{
	return rsh_parse_rate(s, 0, UINT64_MAX, v);
}

static int
rsh_t_dur_s(const char *s, uint64_t *v)
{
	return rsh_parse_duration(s, RSH_NS_PER_S, 0, UINT64_MAX, v);
}

static int
rsh_t_dur_strict(const char *s, uint64_t *v)
{
	return rsh_parse_duration(s, 0, 0, UINT64_MAX, v);
}

/* Check every table entry parses to its value. */
static void
rsh_t_accepts(int (*parse)(const char *, uint64_t *), const struct rsh_t_ok *t,
	      size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t v = 0;
		int rc = parse(t[i].s, &v);

		if (rc != 0 || v != t[i].v)
			fail_msg("%s '%s': rc %d value %llu, want %llu", what, t[i].s,
				 rc, (unsigned long long)v,
				 (unsigned long long)t[i].v);
	}
}

static void
test_uint(void **state)
{
	static const struct rsh_t_ok ok[] = {
		{ "0", 0 }, { "7", 7 }, { "0010", 10 }, { "0x10", 16 },
		{ "0XfF", 255 }, { "18446744073709551615", UINT64_MAX },
		{ "0xffffffffffffffff", UINT64_MAX },
	};
	uint64_t v = 0;

	(void)state;
	rsh_t_accepts(rsh_t_uint, ok, RSH_T_DIM(ok), "uint");
	rsh_t_refuses_junk(rsh_t_uint, "uint");
	assert_int_equal(rsh_t_uint("1.5", &v), -EINVAL);
	assert_int_equal(rsh_t_uint("1K", &v), -EINVAL);
	assert_int_equal(rsh_t_uint("18446744073709551616", &v), -ERANGE);
	assert_int_equal(rsh_t_uint("0x10000000000000000", &v), -ERANGE);
	assert_int_equal(rsh_t_uint("99999999999999999999999x", &v), -EINVAL);
	assert_int_equal(rsh_parse_uint("100", 0, 99, &v), -ERANGE);
	assert_int_equal(rsh_parse_uint("0", 1, 99, &v), -ERANGE);
	assert_int_equal(rsh_parse_uint("99", 1, 99, &v), 0);
	assert_int_equal(v, 99);
	assert_int_equal(rsh_parse_uint(NULL, 0, 1, &v), -EINVAL);
}

static void
test_size(void **state)
{
	static const struct rsh_t_ok ok[] = {
		{ "0", 0 }, { "4096", 4096 }, { "12B", 12 }, { "1K", 1024 },
		{ "1k", 1024 }, { "64K", 65536 }, { "1KiB", 1024 },
		{ "1kib", 1024 }, { "1KB", 1000 }, { "1M", 1048576 },
		{ "1MiB", 1048576 }, { "1MB", 1000000 }, { "2G", 2ull << 30 },
		{ "2GB", 2000000000ull }, { "1T", 1ull << 40 }, { "1TB", 1000000000000ull },
		{ "1.5M", 3ull << 19 }, { "0.5K", 512 }, { "16 MiB", 16ull << 20 },
		{ "0x1000", 4096 }, { "16777215T", 16777215ull << 40 },
	};
	uint64_t v = 0;

	(void)state;
	rsh_t_accepts(rsh_t_size, ok, RSH_T_DIM(ok), "size");
	rsh_t_refuses_junk(rsh_t_size, "size");
	/* A fraction of a byte, units that are not sizes, hex with a unit. */
	assert_int_equal(rsh_t_size("1.1K", &v), -EINVAL);
	assert_int_equal(rsh_t_size("0.5", &v), -EINVAL);
	assert_int_equal(rsh_t_size("1Ki", &v), -EINVAL);
	assert_int_equal(rsh_t_size("1s", &v), -EINVAL);
	assert_int_equal(rsh_t_size("1KiBs", &v), -EINVAL);
	assert_int_equal(rsh_t_size("0x10K", &v), -EINVAL);
	assert_int_equal(rsh_t_size("16777216T", &v), -ERANGE);
	assert_int_equal(rsh_parse_size("1M", 0, (1u << 20) - 1, &v), -ERANGE);
	assert_int_equal(rsh_parse_size("1023K", 1u << 20, UINT64_MAX, &v), -ERANGE);
}

static void
test_rate(void **state)
{
	static const struct rsh_t_ok ok[] = {
		{ "0", 0 }, { "1000", 1000 }, { "1000/s", 1000 }, { "20M", 20000000 },
		{ "20M/s", 20000000 }, { "20MB/s", 20000000 }, { "1G/s", 1000000000 },
		{ "1GB/s", 1000000000 }, { "100MiB/s", 100ull << 20 },
		{ "1.5K", 1500 }, { "2.5k/s", 2500 }, { "1B/s", 1 }, { "0.5", 0 },
		{ "1 MB/s", 1000000 },
	};
	uint64_t v = 0;

	(void)state;
	rsh_t_accepts(rsh_t_rate, ok, RSH_T_DIM(ok), "rate");
	rsh_t_refuses_junk(rsh_t_rate, "rate");
	assert_int_equal(rsh_t_rate("1M/", &v), -EINVAL);
	assert_int_equal(rsh_t_rate("1M/s/s", &v), -EINVAL);
	assert_int_equal(rsh_t_rate("/s", &v), -EINVAL);
	assert_int_equal(rsh_t_rate("1Mbit/s", &v), -EINVAL);
	assert_int_equal(rsh_t_rate("20000000T", &v), -ERANGE);
	assert_int_equal(rsh_parse_rate("2G", 0, 1000000000, &v), -ERANGE);
}

static void
test_duration(void **state)
{
	static const struct rsh_t_ok ok[] = {
		{ "0", 0 }, { "2", 2 * RSH_NS_PER_S }, { "0.0001", 100000 },
		{ "250us", 250000 }, { "250 us", 250000 }, { "1.5s", 1500000000 },
		{ "30m", 1800 * RSH_NS_PER_S }, { "30min", 1800 * RSH_NS_PER_S },
		{ "2h", 7200 * RSH_NS_PER_S }, { "7ns", 7 }, { "1.5ns", 1 },
		{ "0.1s", 100 * RSH_NS_PER_MS }, { "2ms", 2 * RSH_NS_PER_MS },
		{ "0.000000001", 1 }, { "5124095h", 5124095ull * 3600 * RSH_NS_PER_S },
	};
	uint64_t v = 0;

	(void)state;
	rsh_t_accepts(rsh_t_dur_s, ok, RSH_T_DIM(ok), "duration");
	rsh_t_refuses_junk(rsh_t_dur_s, "duration");
	rsh_t_refuses_junk(rsh_t_dur_strict, "duration (unit required)");
	assert_int_equal(rsh_t_dur_s("0x10", &v), -EINVAL);
	assert_int_equal(rsh_t_dur_s("2S", &v), -EINVAL);
	assert_int_equal(rsh_t_dur_s("2M", &v), -EINVAL);
	assert_int_equal(rsh_t_dur_s("2sec", &v), -EINVAL);
	assert_int_equal(rsh_t_dur_s("5124096h", &v), -ERANGE);
	assert_int_equal(rsh_t_dur_s("1e300", &v), -EINVAL);
	/* The 64-bit limit in seconds is 18446744073 s. */
	assert_int_equal(rsh_t_dur_s("18446744074", &v), -ERANGE);
	assert_int_equal(rsh_t_dur_s("18446744073", &v), 0);
	/* No default unit: only a plain zero stands alone. */
	assert_int_equal(rsh_t_dur_strict("2", &v), -EINVAL);
	assert_int_equal(rsh_t_dur_strict("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rsh_t_dur_strict("3ms", &v), 0);
	assert_int_equal(v, 3 * RSH_NS_PER_MS);
	/* A default unit of ms, and a range of 1 ms .. 10 s. */
	assert_int_equal(rsh_parse_duration("250", RSH_NS_PER_MS, 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 250 * RSH_NS_PER_MS);
	assert_int_equal(rsh_parse_duration("0.0001", RSH_NS_PER_S, RSH_NS_PER_MS,
					    10 * RSH_NS_PER_S, &v), -ERANGE);
	assert_int_equal(rsh_parse_duration("11s", RSH_NS_PER_S, RSH_NS_PER_MS,
					    10 * RSH_NS_PER_S, &v), -ERANGE);
}

static void
test_bool(void **state)
{
	static const char *const yes[] = { "1", "yes", "YES", "true", "True", "on" };
	static const char *const no[] = { "0", "no", "No", "false", "FALSE", "off" };
	static const char *const bad[] = { "", "2", "y", "n", "yes ", "onn", "-1" };
	unsigned int i;
	bool b;

	(void)state;
	for (i = 0; i < RSH_T_DIM(yes); i++) {
		b = false;
		assert_int_equal(rsh_parse_bool(yes[i], &b), 0);
		assert_true(b);
	}
	for (i = 0; i < RSH_T_DIM(no); i++) {
		b = true;
		assert_int_equal(rsh_parse_bool(no[i], &b), 0);
		assert_false(b);
	}
	for (i = 0; i < RSH_T_DIM(bad); i++)
		assert_int_equal(rsh_parse_bool(bad[i], &b), -EINVAL);
	assert_int_equal(rsh_parse_bool(NULL, &b), -EINVAL);
}

static void
test_fmt_size(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(rsh_fmt_size(buf, sizeof(buf), 0), "0 B");
	assert_string_equal(rsh_fmt_size(buf, sizeof(buf), 1023), "1023 B");
	assert_string_equal(rsh_fmt_size(buf, sizeof(buf), 1024), "1 KiB");
	assert_string_equal(rsh_fmt_size(buf, sizeof(buf), 3ull << 29), "1.5 GiB");
	assert_string_equal(rsh_fmt_size(buf, sizeof(buf), 16ull << 20), "16 MiB");
	assert_string_equal(rsh_fmt_size(buf, sizeof(buf), UINT64_MAX), "16 EiB");
	/* A short buffer is truncated, never overrun. */
	assert_string_equal(rsh_fmt_size(buf, 4, 16ull << 20), "16 ");
}

static void
test_fmt_duration(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(rsh_fmt_duration(buf, sizeof(buf), 0), "0 ns");
	assert_string_equal(rsh_fmt_duration(buf, sizeof(buf), 250000), "250 us");
	assert_string_equal(rsh_fmt_duration(buf, sizeof(buf), 1500000), "1.5 ms");
	assert_string_equal(rsh_fmt_duration(buf, sizeof(buf), 1500000000), "1.5 s");
	assert_string_equal(rsh_fmt_duration(buf, sizeof(buf), 90 * RSH_NS_PER_S), "90 s");
	assert_string_equal(rsh_fmt_duration(buf, sizeof(buf), 1800 * RSH_NS_PER_S), "30 m");
	assert_string_equal(rsh_fmt_duration(buf, sizeof(buf), 7200 * RSH_NS_PER_S), "2 h");
}

static void
test_fmt_rate(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(rsh_fmt_rate(buf, sizeof(buf), 950), "950 B/s");
	assert_string_equal(rsh_fmt_rate(buf, sizeof(buf), 12500000), "12.5 MB/s");
	assert_string_equal(rsh_fmt_rate(buf, sizeof(buf), 1000000000), "1 GB/s");
}

/* Exact values printed by a formatter parse back to themselves. */
static void
test_round_trip(void **state)
{
	uint64_t x = 0x9E3779B97F4A7C15ull, v;
	char buf[32];
	unsigned int i;

	(void)state;
	for (i = 0; i < 2000; i++) {
		unsigned int shift = (unsigned int)(x % 50);
		uint64_t whole = (x >> 20) % 1000 + 1;
		uint64_t size = whole << (shift / 10 * 10);
		uint64_t ns = whole * (i % 2 ? RSH_NS_PER_MS : 60 * RSH_NS_PER_S);
		uint64_t rate = whole * (i % 3 ? RSH_NS_PER_US : 1);

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		rsh_fmt_size(buf, sizeof(buf), size);
		assert_int_equal(rsh_parse_size(buf, 0, UINT64_MAX, &v), 0);
		assert_int_equal(v, size);
		rsh_fmt_duration(buf, sizeof(buf), ns);
		assert_int_equal(rsh_parse_duration(buf, 0, 0, UINT64_MAX, &v), 0);
		assert_int_equal(v, ns);
		rsh_fmt_rate(buf, sizeof(buf), rate);
		assert_int_equal(rsh_parse_rate(buf, 0, UINT64_MAX, &v), 0);
		assert_int_equal(v, rate);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_fmt_size),
		cmocka_unit_test(test_fmt_duration),
		cmocka_unit_test(test_fmt_rate),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
