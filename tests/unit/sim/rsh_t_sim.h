/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the emulator unit tests (test_sim_regs.c,
 * test_sim_boot.c): open a device through the registered "sim" backend
 * driver, access registers by name, read the emulator's counters, busy
 * wait in virtual time. The EAL group setup is rsh_test_eal_setup().
 */
#ifndef RSH_T_SIM_H
#define RSH_T_SIM_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <rte_cycles.h>

#include "rsh_backend.h"
#include "rsh_regs.h"
#include "rsh_clock.h"
#include "rsh_sim.h"

/* One open device with its register map. */
struct rsh_t_sim {
	struct rsh_backend *be;
	struct rsh_regmap map;
};

/* Open a device string through the registered "sim" driver. */
static inline void
rsh_t_sim_open(struct rsh_t_sim *t, const char *devstr)
{
	const struct rsh_backend_driver *drv = rsh_backend_find("sim");

	assert_non_null(drv);
	assert_int_equal(drv->probe(devstr, NULL, &t->be), 0);
	assert_int_equal(rsh_regmap_init(&t->map, t->be->gen), 0);
}

/* Close a device opened by rsh_t_sim_open(). */
static inline void
rsh_t_sim_close(struct rsh_t_sim *t)
{
	t->be->ops->close(t->be);
}

/* Read a register by name through the core's offset table. */
static inline uint64_t
rsh_t_rd(struct rsh_t_sim *t, enum rsh_reg r)
{
	return t->be->ops->read64(t->be, t->map.off[r]);
}

/* Write a register by name through the core's offset table. */
static inline void
rsh_t_wr(struct rsh_t_sim *t, enum rsh_reg r, uint64_t v)
{
	t->be->ops->write64(t->be, t->map.off[r], v);
}

/* The emulator's counters; the call itself must succeed. */
static inline struct rsh_sim_stats
rsh_t_stats(struct rsh_t_sim *t)
{
	struct rsh_sim_stats st;

	assert_int_equal(rsh_sim_stats_get(t->be, &st), 0);
	return st;
}

/* Let ms pass on the emulator's clock (the core's: the TSC, or the
 * virtual clock of a test, which jumps). */
static inline void
rsh_t_wait_ms(unsigned int ms)
{
	uint64_t end = rsh_now() + rsh_ms_cyc(ms);

	if (rsh_clock_is_virtual())
		rsh_clock_sleep_until(end);
	while (rsh_now() < end)
		;
}

#endif /* RSH_T_SIM_H */
