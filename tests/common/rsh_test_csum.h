/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RFC 1071 Internet checksum the tests check frames with: written
 * here, independently of the code under test, and shared by every test
 * that looks at an IPv4, ICMP or TCP checksum.
 */
#ifndef RSH_TEST_CSUM_H
#define RSH_TEST_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* The 16-bit one's-complement sum of b[0..len) added to s (not folded,
 * not inverted: pseudo-header sums add up before the fold). */
static inline uint32_t
rsh_test_sum(uint32_t s, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	return s;
}

/* Fold and invert: 0 when the summed bytes carry a valid checksum. */
static inline uint16_t
rsh_test_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

/* The checksum of b[0..len), as a receiver verifies it (0 when valid). */
static inline uint16_t
rsh_test_csum(const uint8_t *b, size_t len)
{
	return rsh_test_fold(rsh_test_sum(0, b, len));
}

#endif /* RSH_TEST_CSUM_H */
