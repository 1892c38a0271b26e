/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host queries shared by the two programs: whether the EAL can run on
 * hugepages, or must fall back to ordinary memory (--no-huge).
 */
#include <stdio.h>

#include "rsh_sys.h"

long
rsh_free_hugepages(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	long n = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld", &n) != 1 || n < 0)
		n = 0;
	fclose(f);
	return n;
}

bool
rsh_have_hugepages(void)
{
	return rsh_free_hugepages() >= RSH_MIN_FREE_HUGEPAGES;
}
