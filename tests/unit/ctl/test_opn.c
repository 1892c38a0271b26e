/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OPN_STR on the emulated BlueField-2: the boot-record OPN read and
 * written through the MEM_ACC widget (hardware-notes §1.5, §1.6), the
 * emulator's response counter, unmapped addresses, and a widget that never
 * answers (bounded poll, one error line, N/A in the misc text).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rsh.h"
#include "rsh_ctl.h"
#include "rsh_dev_priv.h"
#include "rsh_memacc.h"
#include "rsh_sim.h"
#include "rsh_test_eal.h"

/* The OPN_STR value of a device's misc text, "" when the key is absent. */
static void
t_opn(struct rsh_dev *dev, char *out, size_t len)
{
	char buf[4096];
	const char *p, *e;

	out[0] = '\0';
	assert_true(rsh_misc_read(dev, buf, sizeof(buf)) > 0);
	p = strstr(buf, "OPN_STR         ");
	if (p == NULL)
		return;
	p += 16;
	e = strchr(p, '\n');
	assert_non_null(e);
	snprintf(out, len, "%.*s", (int)(e - p), p);
}

static struct rsh_dev *
t_open(const char *devstr)
{
	struct rsh_dev *dev = NULL;

	assert_int_equal(rsh_dev_open(devstr, NULL, &dev), 0);
	return dev;
}

/* The emulator's power-on OPN reads back through the widget. */
static void
test_read_default(void **state)
{
	struct rsh_dev *dev = t_open("sim:bf2");
	char opn[64];

	(void)state;
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "MBF2M516A-CEEOT");
	rsh_dev_close(dev);
}

/* A write then a read: the new value, trimmed; empty shows N/A. */
static void
test_write_read_back(void **state)
{
	struct rsh_dev *dev = t_open("sim:bf2");
	char opn[64];

	(void)state;
	assert_int_equal(rsh_misc_write(dev, "OPN_STR  MBF2H332A-AEEOT  "), 0);
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "MBF2H332A-AEEOT");
	assert_int_equal(rsh_misc_write(dev, "OPN_STR 0123456789ABCDEF"), 0);
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "0123456789ABCDEF");
	assert_int_equal(rsh_misc_write(dev, "OPN_STR X1"), 0);
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "X1");
	assert_int_equal(rsh_misc_write(dev, "OPN_STR"), 0);
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "N/A");
	rsh_dev_close(dev);
}

/* Bad values and generations are refused with a line; nothing written. */
static void
test_write_refused(void **state)
{
	struct rsh_dev *dev = t_open("sim:bf2");
	char opn[64];

	(void)state;
	assert_int_equal(rsh_misc_write(dev, "OPN_STR 0123456789ABCDEFG"), -EINVAL);
	assert_non_null(strstr(rsh_last_error(), "at most 16"));
	assert_int_equal(rsh_misc_write(dev, "OPN_STR AB CD"), -EINVAL);
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "MBF2M516A-CEEOT");
	/* Dropped: another driver's device, no register work. */
	assert_int_equal(rsh_misc_write(dev, "DROP_MODE 1"), 0);
	assert_int_equal(rsh_misc_write(dev, "OPN_STR NEW"), -EBUSY);
	assert_int_equal(rsh_misc_write(dev, "DROP_MODE 0"), 0);
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "MBF2M516A-CEEOT");
	rsh_dev_close(dev);
	/* BF3: 32-bit writes into the YU boot record, read back. */
	dev = t_open("sim:bf3");
	assert_int_equal(rsh_misc_write(dev, "OPN_STR 900-9D3B6-00CV"), 0);
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "900-9D3B6-00CV");
	rsh_dev_close(dev);
	dev = t_open("sim:bf1");
	assert_int_equal(rsh_misc_write(dev, "OPN_STR X"), -ENOTSUP);
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, ""); /* BF1 shows no OPN_STR key */
	rsh_dev_close(dev);
}

/* One response per access; unmapped addresses read 0 and drop writes;
 * the privilege bit (48 on BF2) is set before use. */
static void
test_widget(void **state)
{
	struct rsh_dev *dev = t_open("sim:bf2");
	uint64_t c0 = rsh_dev_rd(dev, RSH_MEM_ACC_RSP_CNT);
	uint32_t v = 0xFFFFFFFFu;

	(void)state;
	assert_int_equal(rsh_memacc_read32(dev, 0x1000, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rsh_memacc_write32(dev, 0x1000, 0x12345678u), 0);
	assert_int_equal(rsh_memacc_read32(dev, 0x1000, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rsh_memacc_write32(dev, 0x2800010, 0xA5A55A5Au), 0);
	assert_int_equal(rsh_memacc_read32(dev, 0x2800010, &v), 0);
	assert_int_equal(v, 0xA5A55A5Au);
	assert_int_equal(rsh_dev_rd(dev, RSH_MEM_ACC_RSP_CNT) - c0, 5);
	assert_true(rsh_dev_rd(dev, RSH_DEVICE_MSTR_PRIV_LVL) & (1ull << 48));
	rsh_dev_close(dev);
}

/* A widget that never answers: -ETIMEDOUT with a line after a bounded
 * number of polls; misc shows N/A; the device keeps working after. */
static void
test_timeout(void **state)
{
	struct rsh_dev *dev = t_open("sim:bf2");
	uint32_t v = 0;
	char opn[64];

	(void)state;
	assert_int_equal(rsh_sim_memacc_stall(dev->be, true), 0);
	assert_int_equal(rsh_memacc_read32(dev, 0x2800FD8, &v), -ETIMEDOUT);
	assert_non_null(strstr(rsh_last_error(), "MEM_ACC widget timeout"));
	assert_int_equal(rsh_misc_write(dev, "OPN_STR NEW"), -ETIMEDOUT);
	assert_non_null(strstr(rsh_last_error(), "MEM_ACC widget timeout"));
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "N/A");
	assert_int_equal(rsh_sim_memacc_stall(dev->be, false), 0);
	t_opn(dev, opn, sizeof(opn));
	assert_string_equal(opn, "MBF2M516A-CEEOT");
	rsh_dev_close(dev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_default),
		cmocka_unit_test(test_write_read_back),
		cmocka_unit_test(test_write_refused),
		cmocka_unit_test(test_widget),
		cmocka_unit_test(test_timeout),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
