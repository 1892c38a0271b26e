/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Time helpers the unit tests share: the TSC clock in seconds and a
 * millisecond sleep of the calling (test) thread.
 */
#ifndef RSH_TEST_TIME_H
#define RSH_TEST_TIME_H

#include <time.h>

#include <rte_cycles.h>

/* Seconds on the TSC clock the library's deadlines use. */
static inline double
rsh_t_now(void)
{
	return (double)rte_get_timer_cycles() / rte_get_timer_hz();
}

/* Sleep the calling thread for ms milliseconds. */
static inline void
rsh_t_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#endif /* RSH_TEST_TIME_H */
