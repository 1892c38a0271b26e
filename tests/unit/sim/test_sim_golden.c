/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden register offsets, on both sides: the driver's table
 * (lib/rshim) and the emulator's own (drivers/sim), each held against the
 * same literal BAR0 offsets copied from the hardware notes (§1.3 address
 * formation, §1.5 register map, §D1.3 TM FIFO CTL). The two tables are
 * written separately; if either drifts, its test fails here rather than
 * the two agreeing on a mistake.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rsh_regs.h"
#include "rsh_sim_regs.h"

/* BAR0 offsets per generation: BF1/BF2 = channel << 16 | offset; BF3 =
 * offset inside the 0x13000000 window (RSHIM channel base 0, WDOG1
 * 0x040000). */
static const struct {
	const char *name;
	uint32_t bf12;
	uint32_t bf3;
} rsh_t_golden[] = {
	{ "ARM_WDG_CONTROL_WCS", 0xF0000, 0x40000 },
	{ "SEMAPHORE0", 0x10028, 0x0F10 },
	{ "FABRIC_DIM", 0x10110, 0x0110 },
	{ "SWINT", 0x10318, 0x0318 },
	{ "BOOT_FIFO_DATA", 0x10408, 0x2000 },
	{ "BOOT_FIFO_COUNT", 0x10488, 0x1000 },
	{ "RESET_CONTROL", 0x10500, 0x0500 },
	{ "BREADCRUMB1", 0x10518, 0x0518 },
	{ "BOOT_CONTROL", 0x10528, 0x0528 },
	{ "DEVICE_MSTR_PRIV_LVL", 0x10550, 0x0820 },
	{ "SCRATCH_BUF_CTL", 0x10600, 0x0600 },
	{ "SCRATCH_BUF_DAT", 0x10610, 0x0610 },
	{ "UPTIME", 0x10630, 0x0630 },
	{ "UPTIME_POR", 0x10638, 0x0638 },
	{ "MEM_ACC_CTL", 0x108F0, 0x0808 },
	{ "MEM_ACC_RSP_CNT", 0x108F8, 0x0810 },
	{ "MEM_ACC_DATA", 0x10900, 0x0828 },
	{ "TM_HOST_TO_TILE_DATA", 0x10A20, 0x4000 },
	{ "TM_HOST_TO_TILE_STS", 0x10A28, 0x6000 },
	{ "TM_HOST_TO_TILE_CTL", 0x10A30, 0x6008 },
	{ "TM_TILE_TO_HOST_DATA", 0x10A40, 0x5000 },
	{ "TM_TILE_TO_HOST_STS", 0x10A48, 0x6100 },
	{ "TM_TILE_TO_HOST_CTL", 0x10A50, 0x6108 },
	{ "SCRATCHPAD1", 0x10C20, 0x0C40 },
	{ "SCRATCHPAD2", 0x10C28, 0x0C48 },
	{ "SCRATCHPAD3", 0x10C30, 0x0C50 },
	{ "SCRATCHPAD6", 0x10C48, 0x0C68 },
};

#define RSH_T_N_GOLDEN (sizeof(rsh_t_golden) / sizeof(rsh_t_golden[0]))

/* Row of a register name; fails when the name has no golden value. */
static unsigned int
rsh_t_row(const char *name)
{
	unsigned int i;

	for (i = 0; i < RSH_T_N_GOLDEN; i++)
		if (strcmp(rsh_t_golden[i].name, name) == 0)
			return i;
	fail_msg("register %s has no golden offset", name);
	return 0;
}

/* Literal offset of a row for a generation. */
static uint32_t
rsh_t_want(unsigned int row, int gen)
{
	return gen == 3 ? rsh_t_golden[row].bf3 : rsh_t_golden[row].bf12;
}

/* The driver's table: every register of every generation, and every
 * golden row covered. */
static void
test_driver_table(void **state)
{
	unsigned int seen[RSH_T_N_GOLDEN] = { 0 };
	struct rsh_regmap map;
	unsigned int r, row;
	int gen;

	(void)state;
	for (gen = 1; gen <= 3; gen++) {
		assert_int_equal(rsh_regmap_init(&map, (enum rsh_gen)gen), 0);
		assert_int_equal(map.bar_size, gen == 3 ? 0x800000 : 0x100000);
		for (r = 0; r < RSH_REG_COUNT; r++) {
			row = rsh_t_row(rsh_reg_name((enum rsh_reg)r));
			seen[row]++;
			if (map.off[r] != rsh_t_want(row, gen))
				fail_msg("driver bf%d %s at 0x%x, want 0x%x", gen,
					 rsh_t_golden[row].name, map.off[r],
					 rsh_t_want(row, gen));
		}
	}
	for (row = 0; row < RSH_T_N_GOLDEN; row++)
		assert_int_equal(seen[row], 3);
}

/* The emulator's table: every register of every generation, the decode
 * back from the BAR offset, and a miss one word off. */
static void
test_emulator_table(void **state)
{
	unsigned int seen[RSH_T_N_GOLDEN] = { 0 };
	unsigned int r, row;
	uint32_t off;
	int gen;

	(void)state;
	for (gen = 1; gen <= 3; gen++) {
		assert_int_equal(rsh_sim_bar_size(gen),
				 gen == 3 ? 0x800000 : 0x100000);
		for (r = 0; r < RSH_SIM_REG_COUNT; r++) {
			row = rsh_t_row(rsh_sim_reg_name((enum rsh_sim_reg)r));
			seen[row]++;
			assert_int_equal(rsh_sim_reg_bar_off(gen, r, &off), 0);
			if (off != rsh_t_want(row, gen))
				fail_msg("emulator bf%d %s at 0x%x, want 0x%x",
					 gen, rsh_t_golden[row].name, off,
					 rsh_t_want(row, gen));
			assert_int_equal(rsh_sim_reg_decode(gen, off), (int)r);
			if (rsh_sim_reg_decode(gen, off + 4) != -1)
				fail_msg("bf%d: 0x%x decodes as a register", gen,
					 off + 4);
		}
		assert_int_equal(rsh_sim_reg_decode(gen,
					rsh_sim_bar_size(gen)), -1);
	}
	for (row = 0; row < RSH_T_N_GOLDEN; row++)
		assert_int_equal(seen[row], 3);
	assert_int_equal(rsh_sim_reg_bar_off(4, 0, &off), -EINVAL);
	assert_int_equal(rsh_sim_reg_bar_off(3, RSH_SIM_REG_COUNT, &off), -EINVAL);
	/* BF3: the channel map, not channel << 16 (0x10408 is UART0 there) */
	assert_int_equal(rsh_sim_reg_decode(3, 0x10408), -1);
	/* BF2: the BF3 offsets land on nothing */
	assert_int_equal(rsh_sim_reg_decode(2, 0x2000), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_table),
		cmocka_unit_test(test_emulator_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
