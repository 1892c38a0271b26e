/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden text: scratch-log records (hardware-notes §5.6), the misc text
 * (§5.4) and register requests (§1.3 bounds and alignment).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>

#include "rsh.h"
#include "rsh_scratchlog_decode.h"
#include "rsh_misc.h"

/* Eight characters of text as one little-endian word. */
static uint64_t
rsh_t_txt(const char *s)
{
	uint64_t w = 0;

	memcpy(&w, s, strnlen(s, 8));
	return w;
}

/* MSG records: level, module, argument formatting. */
static void
test_log_msg(void **state)
{
	uint64_t w[] = {
		rsh_scratchlog_hdr(5, RSH_SCRATCHLOG_TYPE_MSG, 2, 0, 0),
		rsh_t_txt("DPU is r"), rsh_t_txt("eady"),
		rsh_scratchlog_hdr(2, RSH_SCRATCHLOG_TYPE_MSG, 2, 42u << 16, 0x100 | 1),
		rsh_t_txt("retry %d"), rsh_t_txt(" of 3"),
		rsh_scratchlog_hdr(1, RSH_SCRATCHLOG_TYPE_MSG, 1, 0, 2), rsh_t_txt("no boot"),
	};
	struct rsh_scratchlog_rec r[8];
	unsigned int n;

	(void)state;
	n = rsh_scratchlog_decode_words(w, RTE_DIM(w), r, 8);
	assert_int_equal(n, 3);
	assert_string_equal(r[0].text, " INFO[UEFI]: DPU is ready");
	assert_string_equal(r[1].text, " WARN[BL2]: retry 42 of 3");
	assert_string_equal(r[2].text, " ERR[BL1]: no boot");
	assert_int_equal(r[2].level, 2);
}

/* Crash records: PC/ESR from bits 31:0 (never an argument), register
 * pairs as lines, always an error even when the low byte reads 0. */
static void
test_log_crash(void **state)
{
	/* esr_el3: op0 3, op1 6, CRn 5, CRm 2, op2 0 (MRS bits 20:5). */
	uint64_t esr_el3 = (uint64_t)((3u << 14) | (6u << 11) | (5u << 7) | (2u << 3)) << 5;
	uint64_t elr_el3 = (uint64_t)((3u << 14) | (6u << 11) | (4u << 7) | (0u << 3) | 1u) << 5;
	uint64_t odd = (uint64_t)((3u << 14) | (1u << 11) | (15u << 7) | (2u << 3)) << 5;
	uint64_t w[] = {
		/* SError: EC 0x2F, low byte 0 (would read as INFO). */
		rsh_scratchlog_hdr(4, RSH_SCRATCHLOG_TYPE_EXCEPTION, 4, 0xBE000000u, 0),
		esr_el3, 0xBE000000ull, elr_el3, 0xDEADBEEF00ull,
		rsh_scratchlog_hdr(2, RSH_SCRATCHLOG_TYPE_PANIC, 2, 0x0040A0C4u, 0),
		odd, 7,
		rsh_scratchlog_hdr(1, RSH_SCRATCHLOG_TYPE_EXCEPTION, 0, 0x92000046u, 0),
	};
	struct rsh_scratchlog_rec r[16];
	unsigned int n;

	(void)state;
	n = rsh_scratchlog_decode_words(w, RTE_DIM(w), r, 16);
	assert_int_equal(n, 6);
	assert_string_equal(r[0].text, " Exception(BL31): syndrome = 0xbe000000(SError)");
	assert_string_equal(r[1].text, "   esr_el3 = 0xbe000000");
	assert_string_equal(r[2].text, "   elr_el3 = 0xdeadbeef00");
	assert_string_equal(r[3].text, " PANIC(BL2): PC = 0x40a0c4");
	assert_string_equal(r[4].text, "   s3_1_c15_c2_0 = 0x7");
	assert_string_equal(r[5].text, " Exception(BL1): syndrome = 0x92000046(Data Abort)");
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(r[i].level, RSH_SCRATCHLOG_LEVEL_ERR);
}

/* Truncation: a record past the end is the wrap-around; max is honoured. */
static void
test_log_bounds(void **state)
{
	uint64_t w[] = {
		rsh_scratchlog_hdr(5, RSH_SCRATCHLOG_TYPE_MSG, 1, 0, 0), rsh_t_txt("one"),
		rsh_scratchlog_hdr(5, RSH_SCRATCHLOG_TYPE_MSG, 5, 0, 0), rsh_t_txt("cut"),
	};
	struct rsh_scratchlog_rec r[1];
	char text[64];

	(void)state;
	assert_int_equal(rsh_scratchlog_decode_words(w, RTE_DIM(w), r, 1), 1);
	assert_int_equal(rsh_scratchlog_decode_words(w, 1, r, 1), 0);
	rsh_scratchlog_to_text(r, 1, text, sizeof(text));
	assert_string_equal(text, " INFO[UEFI]: one\n");
}

/* The misc text of a BF3 at levels 0, 1 and 2. */
static void
test_misc_golden(void **state)
{
	struct rsh_misc_view v = {
		.gen = 3, .revision = 1, .bf_mode = 1, .boot_mode = 1,
		.boot_timeout_s = 300, .usb_timeout_s = 40, .dev_name = "pcie-0000:03:00.2",
		.opn = "", .have_uptime = true, .uptime_s = 1234,
		.peer_mac = { 0x00, 0x1a, 0xca, 0xff, 0xff, 0x01 }, .pxe_id = 0x12,
		.vlan = { 10, 20 }, .log_text = " INFO[UEFI]: DPU is ready\n",
	};
	static const char l0[] =
		"DISPLAY_LEVEL   0 (0:basic, 1:advanced, 2:log)\n"
		"BF_MODE         DPU mode\n"
		"BOOT_MODE       1 (0:rshim, 1:emmc, 2:emmc-boot-swap)\n"
		"BOOT_TIMEOUT    300 (seconds)\n"
		"USB_TIMEOUT     40 (seconds)\n"
		"DROP_MODE       0 (0:normal, 1:drop)\n"
		"SW_RESET        0 (1: reset)\n"
		"DEV_NAME        pcie-0000:03:00.2\n"
		"DEV_INFO        BlueField-3(Rev 1)\n"
		"OPN_STR         N/A\n"
		"UP_TIME         1234(s)\n"
		"SECURE_NIC_MODE 0 (0:no, 1:yes)\n"
		"FORCE_CMD       0 (1: send Force command)\n";
	static const char l1[] =
		"BOOT_RESET_SKIP 0 (1: skip)\n"
		"PEER_MAC        00:1a:ca:ff:ff:01 (rw)\n"
		"PXE_ID          0x00000012 (rw)\n"
		"VLAN_ID         10 20 (rw)\n"
		"CLEAR_ON_READ   0 (0:no, 1:yes)\n";
	static const char l2[] =
		"---------------------------------------\n"
		"             Log Messages\n"
		"---------------------------------------\n"
		" INFO[UEFI]: DPU is ready\n";
	char buf[4096], want[4096];

	(void)state;
	rsh_misc_format(&v, buf, sizeof(buf));
	assert_string_equal(buf, l0);
	v.display_level = 1;
	rsh_misc_format(&v, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s%s", l0, l1);
	memcpy(strstr(want, "0 (0:basic"), "1", 1);
	assert_string_equal(buf, want);
	v.display_level = 2;
	rsh_misc_format(&v, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s%s", l0, l2);
	memcpy(strstr(want, "0 (0:basic"), "2", 1);
	assert_string_equal(buf, want);
	/* BF1: no BF_MODE, OPN_STR, UP_TIME, SECURE_NIC_MODE. */
	v.gen = 1;
	v.display_level = 0;
	rsh_misc_format(&v, buf, sizeof(buf));
	assert_null(strstr(buf, "BF_MODE"));
	assert_null(strstr(buf, "OPN_STR"));
	assert_null(strstr(buf, "SECURE_NIC_MODE"));
	assert_non_null(strstr(buf, "DEV_INFO        BlueField-1(Rev 1)\n"));
	/* A small buffer is filled and terminated, never overrun. */
	assert_int_equal(rsh_misc_format(&v, buf, 10), 9);
	assert_int_equal(strlen(buf), 9);
}

/* Register requests: names, bf-reg addresses, widths, bounds, alignment. */
static void
test_reg_parse(void **state)
{
	struct rsh_reg_req r;

	(void)state;
	assert_int_equal(rsh_reg_req_parse(2, "boot_control", &r), 0);
	assert_string_equal(r.name, "BOOT_CONTROL");
	assert_int_equal(r.bar_off, 0x10528);
	assert_false(r.write);
	assert_int_equal(rsh_reg_req_parse(3, "BOOT_CONTROL=0x1", &r), 0);
	assert_int_equal(r.bar_off, 0x528);
	assert_true(r.write);
	assert_int_equal(r.value, 1);
	/* BF1/BF2: channel<<16|offset, bf-reg's bit 28 allowed. */
	assert_int_equal(rsh_reg_req_parse(2, "0x10010488", &r), 0);
	assert_int_equal(r.bar_off, 0x10488);
	assert_int_equal(rsh_reg_req_parse(1, "0x00100000", &r), -EINVAL);
	assert_non_null(strstr(rsh_last_error(), "outside"));
	/* BF3: the global window, with or without bit 28. */
	assert_int_equal(rsh_reg_req_parse(3, "0x13001000.64", &r), 0);
	assert_int_equal(r.bar_off, 0x1000);
	assert_int_equal(rsh_reg_req_parse(3, "0x03000c40", &r), 0);
	assert_int_equal(r.bar_off, 0xC40);
	assert_int_equal(rsh_reg_req_parse(3, "0x13800000", &r), -EINVAL);
	assert_int_equal(rsh_reg_req_parse(3, "0x12fffff8", &r), -EINVAL);
	/* Widths and alignment. */
	assert_int_equal(rsh_reg_req_parse(3, "0x13409bdc.32", &r), 0);
	assert_int_equal(r.size, 4);
	assert_int_equal(rsh_reg_req_parse(3, "0x13409bdc", &r), -EINVAL);
	assert_non_null(strstr(rsh_last_error(), "aligned"));
	assert_int_equal(rsh_reg_req_parse(3, "0x13000002.32", &r), -EINVAL);
	assert_int_equal(rsh_reg_req_parse(3, "0x13000528.16", &r), -EINVAL);
	assert_int_equal(rsh_reg_req_parse(3, "0x13000528.32=0x100000000", &r), -EINVAL);
	assert_int_equal(rsh_reg_req_parse(3, "NO_SUCH_REG", &r), -EINVAL);
	assert_int_equal(rsh_reg_req_parse(3, "BOOT_CONTROL=", &r), -EINVAL);
	assert_int_equal(rsh_reg_req_parse(3, "BOOT_CONTROL=zz", &r), -EINVAL);
	assert_int_equal(rsh_reg_req_parse(3, "", &r), -EINVAL);
}

/* NVIDIA's register ioctl addresses, as bf-reg sends them. */
static void
test_reg_ioc_addr(void **state)
{
	uint32_t out = 0;

	(void)state;
	/* BF1/BF2: channel<<16|offset, the channel's 4 bits only */
	assert_int_equal(rsh_reg_ioc_addr(RSH_GEN_BF2, 0x00010528, false, &out), 0);
	assert_int_equal(out, 0x00010528);
	assert_int_equal(rsh_reg_ioc_addr(RSH_GEN_BF2, 0x10010528, true, &out), 0);
	assert_int_equal(out, 0x00010528);
	/* BF3: the global address as it is */
	assert_int_equal(rsh_reg_ioc_addr(RSH_GEN_BF3, 0x13000528, false, &out), 0);
	assert_int_equal(out, 0x13000528);
	/* BF3 rshim channel 1, BOOT_CONTROL: through the channel map to the
	 * same global address; a 32-bit half keeps its offset 4 */
	assert_int_equal(rsh_reg_ioc_addr(RSH_GEN_BF3, 0x00010528, true, &out), 0);
	assert_int_equal(out, 0x13000528);
	assert_int_equal(rsh_reg_ioc_addr(RSH_GEN_BF3, 0x0001052C, true, &out), 0);
	assert_int_equal(out, 0x1300052C);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reg_ioc_addr),
		cmocka_unit_test(test_log_msg),
		cmocka_unit_test(test_log_crash),
		cmocka_unit_test(test_log_bounds),
		cmocka_unit_test(test_misc_golden),
		cmocka_unit_test(test_reg_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
