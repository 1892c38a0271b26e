/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/util/rsh_devstr: the programs' PCI options become
 * devargs once; a key the device string already has is not given twice,
 * a disagreement is one line naming both, and a string that does not fit
 * says so and what to give instead.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rsh_devstr.h"

static const struct rsh_devstr_pci_opts rsh_t_app_vfio_force = {
	.mapping = "vfio", .mapping_from = "--mapping",
	.force_id = true, .force_id_from = "--force-id",
};

/* Run rsh_devstr_pci; return its rc, buf and err filled. */
static int
rsh_t_pci(const char *devstr, const struct rsh_devstr_pci_opts *o,
	  char *buf, size_t len, char err[256])
{
	strcpy(buf, "untouched");
	strcpy(err, "");
	return rsh_devstr_pci(buf, len, devstr, o, err, 256);
}

/* Options the string lacks are appended; none given: unchanged. */
static void
test_devstr_appends(void **state)
{
	const struct rsh_devstr_pci_opts none = { 0 };
	char buf[RSH_DEVSTR_MAX], err[256];

	(void)state;
	assert_int_equal(rsh_t_pci("0000:03:00.2", &rsh_t_app_vfio_force,
				   buf, sizeof(buf), err), 0);
	assert_string_equal(buf, "0000:03:00.2,mapping=vfio,force-id=1");
	assert_int_equal(rsh_t_pci("0000:03:00.2", &none, buf, sizeof(buf), err), 0);
	assert_string_equal(buf, "0000:03:00.2");
}

/* An emulated device takes no PCI options, whatever the program says. */
static void
test_devstr_sim_unchanged(void **state)
{
	char buf[RSH_DEVSTR_MAX], err[256];

	(void)state;
	assert_int_equal(rsh_t_pci("sim:bf3", &rsh_t_app_vfio_force,
				   buf, sizeof(buf), err), 0);
	assert_string_equal(buf, "sim:bf3");
}

/* The string already has the same value: it is used as given, not
 * given twice (the backend refuses a key given twice). */
static void
test_devstr_agreeing_key_once(void **state)
{
	char buf[RSH_DEVSTR_MAX], err[256];

	(void)state;
	assert_int_equal(rsh_t_pci("0000:03:00.2,mapping=vfio", &rsh_t_app_vfio_force,
				   buf, sizeof(buf), err), 0);
	assert_string_equal(buf, "0000:03:00.2,mapping=vfio,force-id=1");
	assert_int_equal(rsh_t_pci("0000:03:00.2,force-id=yes,mapping=vfio",
				   &rsh_t_app_vfio_force, buf, sizeof(buf), err), 0);
	assert_string_equal(buf, "0000:03:00.2,force-id=yes,mapping=vfio");
	/* "mapping" is a key, not a prefix of another one. */
	assert_int_equal(rsh_t_pci("0000:03:00.2,mappingx=uio", &rsh_t_app_vfio_force,
				   buf, sizeof(buf), err), 0);
	assert_string_equal(buf, "0000:03:00.2,mappingx=uio,mapping=vfio,force-id=1");
}

/* A disagreement fails with one line naming both sources. */
static void
test_devstr_disagreement(void **state)
{
	const struct rsh_devstr_pci_opts svc = {
		.mapping = "uio", .mapping_from = "PCIE_HAS_VFIO 0",
	};
	char buf[RSH_DEVSTR_MAX], err[256];

	(void)state;
	assert_int_equal(rsh_t_pci("0000:03:00.2,mapping=uio", &rsh_t_app_vfio_force,
				   buf, sizeof(buf), err), -EINVAL);
	assert_string_equal(err, "0000:03:00.2,mapping=uio: --mapping gives mapping=vfio but the device string has mapping=uio; give one of them");
	assert_int_equal(rsh_t_pci("0000:03:00.2,force-id=0", &rsh_t_app_vfio_force,
				   buf, sizeof(buf), err), -EINVAL);
	assert_string_equal(err, "0000:03:00.2,force-id=0: --force-id gives force-id=1 but the device string has force-id=0; give one of them");
	assert_int_equal(rsh_t_pci("0000:03:00.2,mapping=direct", &svc,
				   buf, sizeof(buf), err), -EINVAL);
	assert_non_null(strstr(err, "PCIE_HAS_VFIO 0 gives mapping=uio but the device string has mapping=direct"));
	assert_null(strchr(err, '\n'));
}

/* A value that does not parse is left to the backend, which names the
 * valid ones: it is neither a disagreement nor appended again. */
static void
test_devstr_bad_value_left_to_backend(void **state)
{
	char buf[RSH_DEVSTR_MAX], err[256];

	(void)state;
	assert_int_equal(rsh_t_pci("0000:03:00.2,force-id=maybe,mapping=",
				   &rsh_t_app_vfio_force, buf, sizeof(buf), err), 0);
	assert_string_equal(buf, "0000:03:00.2,force-id=maybe,mapping=");
	assert_int_equal(rsh_t_pci("0000:03:00.2,mapping=vfoi",
				   &rsh_t_app_vfio_force, buf, sizeof(buf), err), 0);
	assert_string_equal(buf, "0000:03:00.2,mapping=vfoi,force-id=1");
}

/* Too long: one line saying what is wrong and what to give. */
static void
test_devstr_too_long(void **state)
{
	char devstr[RSH_DEVSTR_MAX + 8], buf[RSH_DEVSTR_MAX], err[256];

	(void)state;
	memset(devstr, 'a', sizeof(devstr) - 1);
	devstr[sizeof(devstr) - 1] = '\0';
	assert_int_equal(rsh_t_pci(devstr, &rsh_t_app_vfio_force, buf, sizeof(buf), err),
			 -ENAMETOOLONG);
	assert_non_null(strstr(err, "device string too long"));
	assert_non_null(strstr(err, "at most 255 characters"));
	assert_non_null(strstr(err, "give a PCI address such as 0000:03:00.2"));
	/* Fits alone, not with the options appended. */
	assert_int_equal(rsh_t_pci("0000:03:00.2", &rsh_t_app_vfio_force, buf, 20, err),
			 -ENAMETOOLONG);
	assert_non_null(strstr(err, "0000:03:00.2"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devstr_appends),
		cmocka_unit_test(test_devstr_sim_unchanged),
		cmocka_unit_test(test_devstr_agreeing_key_once),
		cmocka_unit_test(test_devstr_disagreement),
		cmocka_unit_test(test_devstr_bad_value_left_to_backend),
		cmocka_unit_test(test_devstr_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
