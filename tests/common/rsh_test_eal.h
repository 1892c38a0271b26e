/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL start-up for test programs: two lcores when there are two,
 * --in-memory on hugepages when reserved (unless RSHIM_PMD_NO_HUGE=1),
 * else --no-huge --no-shconf, so parallel tests never share a prefix.
 */
#ifndef RSH_TEST_EAL_H
#define RSH_TEST_EAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>

/* Free 2 MiB hugepages on the machine. */
static inline long
rsh_test_free_hugepages(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	long n = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

/* Start EAL for a test; returns rte_eal_init's result. */
static inline int
rsh_test_eal_init(const char *prog)
{
	const char *nh = getenv("RSHIM_PMD_NO_HUGE");
	bool huge = (nh == NULL || strcmp(nh, "1") != 0) && rsh_test_free_hugepages() >= 32;
	char *argv[16];
	int n = 0, rc;

	argv[n++] = (char *)prog;
	argv[n++] = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? "-l0-1" : "-l0";
	if (huge) {
		argv[n++] = "--in-memory";
	} else {
		argv[n++] = "--no-huge";
		argv[n++] = "--no-shconf";
		argv[n++] = "-m256";
	}
	argv[n++] = "--iova-mode=va";
	argv[n++] = "--no-pci";
	argv[n++] = "--no-telemetry";
	argv[n++] = "--log-level=lib.eal:error";
	argv[n] = NULL;
	rc = rte_eal_init(n, argv);
	if (rc >= 0)
		rte_openlog_stream(stderr);
	return rc;
}

/*
 * cmocka group setup: EAL once for the whole group, argv[0] the test
 * executable's own name (program_invocation_short_name, _GNU_SOURCE).
 */
static inline int
rsh_test_eal_setup(void **state)
{
	(void)state;
	return rsh_test_eal_init(program_invocation_short_name) < 0 ? -1 : 0;
}

/*
 * cmocka group teardown matching rsh_test_eal_setup(). A test that failed
 * half-way may leave a poll loop running on a worker lcore; EAL cleanup
 * would then wait for it until the harness kills the program, so the
 * failure is reported at once and cleanup is skipped.
 */
static inline int
rsh_test_eal_teardown(void **state)
{
	unsigned int l;

	(void)state;
	RTE_LCORE_FOREACH_WORKER(l) {
		if (rte_eal_get_lcore_state(l) == RUNNING) {
			fprintf(stderr, "test: lcore %u still runs a poll loop (a test failed before stopping it); EAL cleanup skipped\n", l);
			return 0;
		}
	}
	rte_eal_cleanup();
	return 0;
}

#endif /* RSH_TEST_EAL_H */
