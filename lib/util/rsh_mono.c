/* SPDX-License-Identifier: BSD-3-Clause */
/* The monotonic clock of rshim-pmd-app and the service, see rsh_mono.h. */
#include "rsh_mono.h"

/* Monotonic nanoseconds. */
uint64_t
rsh_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * RSH_MONO_NS_PER_S + (uint64_t)ts.tv_nsec;
}
