/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Time helpers the unit tests share: per-case setup and teardown that put
 * a case on the virtual clock of lib/rshim/sdk/rsh_clock.h (the core's and
 * the emulator's one clock; it moves only when a thread waits or the test
 * steps it), and a bounded wait of the calling (test) thread for an event
 * another thread makes. Tests assert counts and order; a deadline here
 * only ends a wait that would otherwise hang.
 */
#ifndef RSH_TEST_TIME_H
#define RSH_TEST_TIME_H

#include <stdbool.h>
#include <time.h>

#include "rsh_clock.h"

/* cmocka per-case setup: the case runs on the virtual clock. */
static inline int
rsh_test_virtual_setup(void **state)
{
	(void)state;
	rsh_clock_virtual_set(true);
	return 0;
}

/* cmocka per-case teardown: back to the TSC. */
static inline int
rsh_test_virtual_teardown(void **state)
{
	(void)state;
	rsh_clock_virtual_set(false);
	return 0;
}

/* A case of f on the virtual clock. */
#define RSH_TEST_VIRTUAL(f) \
	cmocka_unit_test_setup_teardown(f, rsh_test_virtual_setup, rsh_test_virtual_teardown)

/* Sleep the calling thread for ms milliseconds of real time. */
static inline void
rsh_t_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Wait in real time, 1 ms naps, until cond(arg) holds or max_ms pass (a
 * generous bound: it only fails a wait for an event that never comes).
 * Returns cond's last value.
 */
static inline bool
rsh_t_wait_for(bool (*cond)(void *), void *arg, unsigned int max_ms)
{
	for (unsigned int ms = 0; ms < max_ms; ms++) {
		if (cond(arg))
			return true;
		rsh_t_sleep_ms(1);
	}
	return cond(arg);
}

#endif /* RSH_TEST_TIME_H */
