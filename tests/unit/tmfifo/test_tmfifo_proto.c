/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the TM FIFO wire format (lib/rshim/sdk/rsh_tmfifo_proto.h):
 * byte-exact golden vectors for headers, control words and payload
 * packing. Pure encode/decode, so no EAL and no backend.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>

#include "rsh_tmfifo_proto.h"

/* Golden vectors, hardware-notes §4.3 and hardware-notes §D2.1. */
static void
test_golden_vectors(void **state)
{
	uint8_t mac[6] = { 0x00, 0x1A, 0xCA, 0xFF, 0xFF, 0x01 };
	uint8_t bytes[11] = "hello, arm";
	uint64_t w[2], out[2];
	uint64_t m1, m2;

	RTE_SET_USED(state);
	assert_true(rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_NET, 0, NULL) ==
		    0xFF00000000000001ull);
	assert_true(RSH_TMFIFO_SYNC_WORD == 0xFF00000000000001ull);
	assert_true(rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_CONSOLE, 5, NULL) ==
		    0xF800000000050003ull);
	assert_true(rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_CTRL_REQ, 0, NULL) ==
		    0x03000000000000FDull);
	assert_true(rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_NET, 60, NULL) ==
		    0xC3000000003C0001ull);
	/* decode, big-endian length */
	assert_int_equal(rsh_tmfifo_hdr_len(0xC3000000003C0001ull), 60);
	assert_int_equal(rsh_tmfifo_hdr_len(rsh_tmfifo_hdr_encode(1, 0x1234, NULL)),
			 0x1234);
	assert_int_equal(rsh_tmfifo_hdr_encode(1, 0x1234, NULL) & 0xFFFFFF, 0x341201);
	assert_int_equal(rsh_tmfifo_hdr_type(0xF800000000050003ull), 3);
	/* checksum rule: 0 = unchecked, else sum 0 */
	assert_true(rsh_tmfifo_hdr_csum_ok(0x0000000000050003ull));
	assert_true(rsh_tmfifo_hdr_csum_ok(0xF800000000050003ull));
	assert_false(rsh_tmfifo_hdr_csum_ok(0xF700000000050003ull));
	/* control words */
	m1 = rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_1, mac);
	m2 = rsh_tmfifo_ctrl_mac(RSH_TMFIFO_TYPE_MAC_2, mac);
	assert_true((m1 & 0x00FFFFFFFFFFFFFFull) == 0x0000CA1A000000FEull);
	assert_true((m2 & 0x00FFFFFFFFFFFFFFull) == 0x000001FFFF0000FFull);
	assert_int_equal(rsh_tmfifo_byte_sum(m1), 0);
	assert_int_equal(rsh_tmfifo_byte_sum(m2), 0);
	assert_int_equal(rsh_tmfifo_hdr_be16(rsh_tmfifo_ctrl_vlan(0x123, 0xABC), 2),
			 0xABC);
	assert_int_equal(rsh_tmfifo_hdr_be32(rsh_tmfifo_ctrl_pxe(0xDEADBEEF)),
			 0xDEADBEEF);
	assert_true((rsh_tmfifo_ctrl_pxe(0x01020304) & 0x00FFFFFFFF000000ull) ==
		    0x0004030201000000ull);
	/* payload: little-endian, zero padded */
	rsh_tmfifo_pack(w, bytes, 10);
	assert_true(w[0] == 0x61202c6f6c6c6568ull);
	assert_true(w[1] == 0x0000000000006d72ull);
	memset(out, 0xAA, sizeof(out));
	rsh_tmfifo_unpack(out, w, 10);
	assert_memory_equal(out, bytes, 10);
	assert_int_equal(rsh_tmfifo_msg_words(0), 1);
	assert_int_equal(rsh_tmfifo_msg_words(1), 2);
	assert_int_equal(rsh_tmfifo_msg_words(1536), 193);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_vectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
