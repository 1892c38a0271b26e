/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host-wide device key (rsh_dev_host_key) and the service's lock on
 * it (app/common/rsh_svc_lock.c), on a fake sysfs tree: every spelling of
 * one PCI function ("03:00.2", "0000:03:00.2", "pcie-0000:03:00.2",
 * upper-case hex) is one key, the one of the name the scan reports, and
 * so one lock; other functions (another bus, another domain) have keys
 * of their own; a private emulated device ("sim:bf3") has none; a
 * shared= emulation has one key per name, whatever its other options.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rsh.h"
#include "rsh_fake_sysfs.h"
#include "rsh_svc_lock.h"

/* The functions of the fake tree. */
static const struct rsh_fake_fn rsh_t_fns[] = {
	{ .bdf = "0000:03:00.2", .vendor = 0x15b3, .device = 0xc2d3,
	  .bar_size = 0x100000, .group = 2 },
	{ .bdf = "0000:0a:00.2", .vendor = 0x15b3, .device = 0xc2d5,
	  .bar_size = 0x800000, .group = 3 },
	{ .bdf = "0001:03:00.2", .vendor = 0x15b3, .device = 0xc2d5,
	  .bar_size = 0x800000, .group = 4 },
};
#define RSH_T_NFN (sizeof(rsh_t_fns) / sizeof(rsh_t_fns[0]))

/* Per-case state: the fake root and a run directory for locks. */
struct rsh_t {
	char root[PATH_MAX];
	char run[PATH_MAX];
	struct rsh_open_opts opts;
};

/* Setup: a fake root with the three functions, an empty run dir. */
static int
rsh_t_setup(void **state)
{
	static struct rsh_t t;

	memset(&t, 0, sizeof(t));
	if (rsh_fake_root_new(t.root) < 0)
		return -1;
	for (unsigned int i = 0; i < RSH_T_NFN; i++)
		if (rsh_fake_fn_add(t.root, &rsh_t_fns[i]) < 0)
			return -1;
	snprintf(t.run, sizeof(t.run), "/tmp/rsht-run-XXXXXX");
	if (mkdtemp(t.run) == NULL)
		return -1;
	t.opts.sysfs_root = t.root;
	*state = &t;
	return 0;
}

/* Teardown: remove the tree and the run dir (locks dropped by then). */
static int
rsh_t_teardown(void **state)
{
	struct rsh_t *t = *state;

	rsh_fake_root_free(t->root);
	return rmdir(t->run);
}

/* The key of devstr, which must have one. */
static const char *
rsh_t_key(const char *devstr, char *key, size_t len)
{
	assert_int_equal(rsh_dev_host_key(devstr, key, len), 1);
	return key;
}

/* Each function of the tree is found by the scan once, under a name
 * whose key is its canonical address; every spelling of the address
 * gives that key; the three functions' keys differ. */
static void
test_pci_one_key_per_function(void **state)
{
	static const char *const spell[RSH_T_NFN][4] = {
		{ "03:00.2", "0000:03:00.2", "pcie-0000:03:00.2", "pcie-03:00.2" },
		{ "0a:00.2", "0A:00.2", "0000:0A:00.2", "pcie-0000:0a:00.2" },
		{ "0001:03:00.2", "pcie-0001:03:00.2", "1:03:00.2", "pcie-1:3:0.2" },
	};
	struct rsh_t *t = *state;
	struct rsh_dev_info info[8];
	char k[RSH_DEV_NAME_MAX];
	unsigned int i, j, found;

	assert_int_equal(rsh_dev_scan(&t->opts, false, info, 8), (int)RSH_T_NFN);
	for (i = 0; i < RSH_T_NFN; i++) {
		for (j = 0, found = 0; j < RSH_T_NFN; j++)
			found += strcmp(rsh_t_key(info[j].name, k, sizeof(k)),
					rsh_t_fns[i].bdf) == 0;
		assert_int_equal(found, 1);
		for (j = 0; j < 4; j++)
			assert_string_equal(rsh_t_key(spell[i][j], k, sizeof(k)),
					    rsh_t_fns[i].bdf);
	}
}

/* Emulated devices: private ones have no key; shared=NAME one per name,
 * whatever the generation and options; none equals a PCI key. */
static void
test_sim_keys(void **state)
{
	char k1[RSH_DEV_NAME_MAX], k2[RSH_DEV_NAME_MAX], k[RSH_DEV_NAME_MAX];

	(void)state;
	assert_int_equal(rsh_dev_host_key("sim:bf3", k, sizeof(k)), 0);
	assert_int_equal(rsh_dev_host_key("sim:bf2,booted=1,drain=5M", k, sizeof(k)), 0);
	rsh_t_key("sim:bf3,shared=rsht-a", k1, sizeof(k1));
	assert_string_equal(rsh_t_key("sim:bf3,booted=1,shared=rsht-a", k, sizeof(k)), k1);
	assert_string_equal(rsh_t_key("sim:bf2,shared=rsht-a", k, sizeof(k)), k1);
	rsh_t_key("sim:bf3,shared=rsht-b", k2, sizeof(k2));
	assert_string_not_equal(k1, k2);
	assert_string_not_equal(k1, "0000:03:00.2");
}

/* Bad strings and a key buffer too small. */
static void
test_key_errors(void **state)
{
	char k[RSH_DEV_NAME_MAX];

	(void)state;
	assert_int_equal(rsh_dev_host_key("nonsense", k, sizeof(k)), -EINVAL);
	assert_int_equal(rsh_dev_host_key("", k, sizeof(k)), -EINVAL);
	assert_int_equal(rsh_dev_host_key("03:20.2", k, sizeof(k)), -EINVAL);
	assert_int_equal(rsh_dev_host_key("0000:03:00.2", k, 8), -ENAMETOOLONG);
	assert_int_equal(rsh_dev_host_key("sim:bf3,shared=rsht-a", k, 8), -ENAMETOOLONG);
}

/* Take devstr's lock: the expected result; *fd kept. */
static void
rsh_t_take(const struct rsh_t *t, const char *devstr, int want, int *fd)
{
	struct rsh_svc_lock_holder h;

	assert_int_equal(rsh_svc_lock_take(t->run, devstr, fd, &h), want);
	if (want == 0)
		assert_int_equal(rsh_svc_lock_note(*fd, "rshim0"), 0);
	if (want == -EBUSY) {
		assert_int_equal(h.pid, (long)getpid());
		assert_string_equal(h.name, "rshim0");
	}
}

/* The service's lock: one per function however it is spelled, one per
 * shared= name, none for a private emulation. */
static void
test_one_lock_per_device(void **state)
{
	struct rsh_t *t = *state;
	int a, b, c, d, x;

	rsh_t_take(t, "03:00.2", 0, &a);
	rsh_t_take(t, "0000:03:00.2", -EBUSY, &x);
	rsh_t_take(t, "pcie-0000:03:00.2", -EBUSY, &x);
	rsh_t_take(t, "0001:03:00.2", 0, &b);
	rsh_t_take(t, "sim:bf3", 1, &x);
	assert_int_equal(x, -1);
	rsh_t_take(t, "sim:bf3,shared=rsht-a", 0, &c);
	rsh_t_take(t, "sim:bf2,booted=1,shared=rsht-a", -EBUSY, &x);
	rsh_t_take(t, "sim:bf3,shared=rsht-b", 0, &d);
	rsh_svc_lock_drop(t->run, "pcie-0000:03:00.2", a);
	rsh_t_take(t, "0000:03:00.2", 0, &a);
	rsh_svc_lock_drop(t->run, "03:00.2", a);
	rsh_svc_lock_drop(t->run, "0001:03:00.2", b);
	rsh_svc_lock_drop(t->run, "sim:bf3,shared=rsht-a", c);
	rsh_svc_lock_drop(t->run, "sim:bf3,shared=rsht-b", d);
}

/* The names a record carries, read back as the clients read them, and the
 * clients' lock directory. */
static void
test_record_names(void **state)
{
	char name[16];

	(void)state;
	snprintf(name, sizeof(name), RSH_SVC_NAME_FMT, 7u);
	assert_int_equal(rsh_svc_name_index(name), 7);
	assert_int_equal(rsh_svc_name_index("/dev/rshim12"), 12);
	assert_int_equal(rsh_svc_name_index("rshim255"), 255);
	assert_int_equal(rsh_svc_name_index("rshim256"), -1);
	assert_int_equal(rsh_svc_name_index("rshim"), -1);
	assert_int_equal(rsh_svc_name_index("rshim3x"), -1);
	assert_int_equal(rsh_svc_name_index("sim:bf3"), -1);
	unsetenv(RSH_SVC_LOCK_DIR_ENV);
	assert_string_equal(rsh_svc_lock_dir(), RSH_SVC_LOCK_DIR);
	setenv(RSH_SVC_LOCK_DIR_ENV, "", 1);
	assert_string_equal(rsh_svc_lock_dir(), RSH_SVC_LOCK_DIR);
	setenv(RSH_SVC_LOCK_DIR_ENV, "/tmp/rsht-run", 1);
	assert_string_equal(rsh_svc_lock_dir(), "/tmp/rsht-run");
	unsetenv(RSH_SVC_LOCK_DIR_ENV);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pci_one_key_per_function,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_sim_keys, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_key_errors, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_one_lock_per_device,
						rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test(test_record_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
