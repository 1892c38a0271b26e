/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one clock of the driver and its backends: every deadline, timer and
 * rate is in TSC cycles read through rsh_now(), and every conversion
 * between cycles and time is here. A test may replace the TSC with a
 * virtual clock (rsh_clock_virtual_set): time then moves only when a
 * thread waits (rsh_clock_sleep_*: the clock jumps to the wake-up time)
 * or the test advances it, so timers, the keepalive, reset delays and
 * drain rates run in zero real time and in the same order every run.
 *
 * Part of the backend SDK (drivers may use it); not installed.
 */
#ifndef RSH_CLOCK_H
#define RSH_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

/* The clock's state: virt and now written by a test thread (relaxed /
 * release), read by every thread. */
struct rsh_clock_state {
	uint32_t virt;  /* 1: virtual time */
	uint64_t now;   /* virtual time, TSC cycles */
};
extern struct rsh_clock_state rsh_clock_g;

/* Now, in TSC cycles. */
static inline uint64_t
rsh_now(void)
{
	if (unlikely(__atomic_load_n(&rsh_clock_g.virt, __ATOMIC_RELAXED)))
		return __atomic_load_n(&rsh_clock_g.now, __ATOMIC_ACQUIRE);
	return rte_get_timer_cycles();
}

/* Cycles per second (the TSC's rate; virtual time counts the same way). */
static inline uint64_t
rsh_hz(void)
{
	return rte_get_timer_hz();
}

/*
 * Cycles to nanoseconds without overflow: c * 1e9 wraps 64 bits after
 * about 7 s of cycles at 2.5 GHz, so the product is 128-bit.
 */
static inline uint64_t
rsh_cyc_ns(uint64_t c)
{
	uint64_t hz = rsh_hz();

	return hz == 0 ? 0 : (uint64_t)((unsigned __int128)c * 1000000000u / hz);
}

/* Nanoseconds to cycles (128-bit product). */
static inline uint64_t
rsh_ns_cyc(uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * rsh_hz() / 1000000000u);
}

/* Microseconds to cycles. */
static inline uint64_t
rsh_us_cyc(uint64_t us)
{
	return (uint64_t)((unsigned __int128)us * rsh_hz() / 1000000u);
}

/* Milliseconds to cycles. */
static inline uint64_t
rsh_ms_cyc(uint64_t ms)
{
	return (uint64_t)((unsigned __int128)ms * rsh_hz() / 1000u);
}

/* Cycles to seconds, for reports. */
static inline double
rsh_cyc_s(uint64_t c)
{
	uint64_t hz = rsh_hz();

	return hz == 0 ? 0.0 : (double)c / (double)hz;
}

/*
 * Sleep the calling thread until TSC time t (now if t has passed). On the
 * virtual clock the clock jumps to t instead (never backwards) and the
 * thread only yields.
 */
void rsh_clock_sleep_until(uint64_t t);

/* Sleep ns nanoseconds (see rsh_clock_sleep_until). */
void rsh_clock_sleep_ns(uint64_t ns);

/* True while the virtual clock is in use. */
static inline bool
rsh_clock_is_virtual(void)
{
	return __atomic_load_n(&rsh_clock_g.virt, __ATOMIC_RELAXED) != 0;
}

/*
 * Tests: switch to the virtual clock (starting at the current TSC, so
 * values stay comparable) or back to the TSC. Call it before anything
 * that keeps times (devices, pollers) is created, and back after they
 * are gone.
 */
void rsh_clock_virtual_set(bool on);

/* Tests: move the virtual clock forward by ns. */
void rsh_clock_advance_ns(uint64_t ns);

#endif /* RSH_CLOCK_H */
