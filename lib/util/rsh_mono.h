/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Time for rshim-pmd-app, the rshim-pmd service and the benchmarks'
 * library: the monotonic clock (CLOCK_MONOTONIC: progress lines,
 * lingering, rescans, the benchmarks' wall time, pthread_cond_timedwait
 * on a monotonic condattr) and the conversions between nanoseconds,
 * seconds and timespecs that they need, written once.
 *
 * The driver's own clock (lib/rshim/sdk/rsh_clock.h: TSC, virtual time in
 * tests) is not part of the public API and is not used here: an app's
 * timeouts are about the user's wall time, not the poll lcore's.
 */
#ifndef RSH_MONO_H
#define RSH_MONO_H

#include <stdint.h>
#include <time.h>

#define RSH_MONO_NS_PER_S 1000000000ull
#define RSH_MONO_NS_PER_MS 1000000ull

/* Monotonic nanoseconds (CLOCK_MONOTONIC). Out of line: a unit test
 * links its own to run on virtual time. */
uint64_t rsh_mono_ns(void);

/* Nanoseconds as seconds, for reports. */
static inline double
rsh_ns_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* Monotonic seconds. */
static inline double
rsh_mono_s(void)
{
	return rsh_ns_s(rsh_mono_ns());
}

/* Nanoseconds as a timespec (a duration, or a CLOCK_MONOTONIC time). */
static inline struct timespec
rsh_ns_timespec(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / RSH_MONO_NS_PER_S),
				  .tv_nsec = (long)(ns % RSH_MONO_NS_PER_S) };
}

#endif /* RSH_MONO_H */
