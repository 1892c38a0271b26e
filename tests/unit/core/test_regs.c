/* SPDX-License-Identifier: BSD-3-Clause */
/* Golden offsets of the register table, hardware-notes §1.3/§1.5. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rsh_regs.h"

/* BAR offset of a table register for a generation. */
static uint32_t
rsh_t_off(enum rsh_gen gen, enum rsh_reg reg)
{
	struct rsh_regmap map;

	assert_int_equal(rsh_regmap_init(&map, gen), 0);
	return map.off[reg];
}

/* BF2: channel 1 registers sit at 0x10000 + offset. */
static void
test_bf2_golden(void **state)
{
	(void)state;
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_BOOT_FIFO_DATA), 0x10408);
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_BOOT_FIFO_COUNT), 0x10488);
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_TM_TILE_TO_HOST_STS), 0x10A48);
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_TM_HOST_TO_TILE_DATA), 0x10A20);
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_RESET_CONTROL), 0x10500);
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_BOOT_CONTROL), 0x10528);
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_SCRATCHPAD1), 0x10C20);
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_SCRATCHPAD6), 0x10C48);
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_SEMAPHORE0), 0x10028);
	/* WDOG1 is channel 0xF: 0xF0000. */
	assert_int_equal(rsh_t_off(RSH_GEN_BF2, RSH_ARM_WDG_CONTROL_WCS), 0xF0000);
}

/* BF1 decodes like BF2. */
static void
test_bf1_golden(void **state)
{
	(void)state;
	assert_int_equal(rsh_t_off(RSH_GEN_BF1, RSH_BOOT_FIFO_DATA), 0x10408);
	assert_int_equal(rsh_t_off(RSH_GEN_BF1, RSH_FABRIC_DIM), 0x10110);
	assert_int_equal(rsh_t_off(RSH_GEN_BF1, RSH_UPTIME), 0x10630);
}

/* BF3: the channel map inside the 0x13000000 window. */
static void
test_bf3_golden(void **state)
{
	(void)state;
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_BOOT_FIFO_COUNT), 0x1000);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_BOOT_FIFO_DATA), 0x2000);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_SCRATCHPAD6), 0xC68);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_SCRATCHPAD1), 0xC40);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_SCRATCHPAD3), 0xC50);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_SEMAPHORE0), 0xF10);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_TM_HOST_TO_TILE_DATA), 0x4000);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_TM_TILE_TO_HOST_DATA), 0x5000);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_TM_HOST_TO_TILE_STS), 0x6000);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_TM_TILE_TO_HOST_STS), 0x6100);
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_MEM_ACC_CTL), 0x808);
}

/* BF3 WDOG1 lands at its channel base 0x40000 (the reference daemon's
 * decode sends it outside the window, §1.3). */
static void
test_bf3_wdog1(void **state)
{
	uint32_t off;

	(void)state;
	assert_int_equal(rsh_t_off(RSH_GEN_BF3, RSH_ARM_WDG_CONTROL_WCS), 0x40000);
	assert_int_equal(rsh_reg_decode(RSH_GEN_BF3, RSH_CH_WDOG1, 0, &off), 0);
	assert_int_equal(off, 0x40000);
	assert_int_equal(rsh_reg_decode(RSH_GEN_BF3, RSH_CH_TYU, 0x9BD8, &off), 0);
	assert_int_equal(off, 0x409BD8);
}

/* Window and argument checks. */
static void
test_bad_decode(void **state)
{
	uint32_t off = 0x1234;

	(void)state;
	/* BF3: 0x137FFFF8 is the last word, 0x13800000 is out of the window. */
	assert_int_equal(rsh_reg_bf3_global_to_bar(0x137FFFF8, &off), 0);
	assert_int_equal(off, 0x7FFFF8);
	assert_int_equal(rsh_reg_bf3_global_to_bar(0x13800000, &off), -EINVAL);
	assert_int_equal(rsh_reg_bf3_global_to_bar(0x12FFFFF8, &off), -EINVAL);
	assert_int_equal(rsh_reg_bf3_global_to_bar(0x000F0000, &off), -EINVAL);
	/* TYU (0x400000) + an offset that leaves the 8 MiB BAR. */
	assert_int_equal(rsh_reg_decode(RSH_GEN_BF3, RSH_CH_TYU, 0x400000, &off), -EINVAL);
	assert_int_equal(rsh_reg_decode(RSH_GEN_BF2, 16, 0, &off), -EINVAL);
	assert_int_equal(rsh_reg_decode(RSH_GEN_BF2, 1, 0x10000, &off), -EINVAL);
	assert_int_equal(rsh_reg_decode(RSH_GEN_BF2, 1, 0x404, &off), -EINVAL);
	assert_int_equal(rsh_reg_decode(RSH_GEN_NONE, 1, 0x408, &off), -EINVAL);
	struct rsh_regmap map;

	assert_int_equal(rsh_regmap_init(&map, 4), -EINVAL);
}

/* Every register of every generation decodes inside its BAR, 8-aligned. */
static void
test_all_in_bar(void **state)
{
	static const enum rsh_gen gens[] = { RSH_GEN_BF1, RSH_GEN_BF2, RSH_GEN_BF3 };
	struct rsh_regmap map;

	(void)state;
	for (unsigned int g = 0; g < 3; g++) {
		assert_int_equal(rsh_regmap_init(&map, gens[g]), 0);
		assert_int_equal(map.bar_size, gens[g] == RSH_GEN_BF3 ? 0x800000 : 0x100000);
		for (unsigned int r = 0; r < RSH_REG_COUNT; r++) {
			assert_true(map.off[r] < map.bar_size);
			assert_int_equal(map.off[r] & 7, 0);
			assert_string_not_equal(rsh_reg_name(r), "?");
		}
	}
	assert_string_equal(rsh_reg_name(RSH_BOOT_FIFO_DATA), "BOOT_FIFO_DATA");
}

/* The "not reachable" patterns of §1.4. */
static void
test_bad_values(void **state)
{
	(void)state;
	assert_true(rsh_reg_val_is_bad(0xBAD00ACCE55ull));
	assert_true(rsh_reg_val_is_bad(0xBADACCE55ull));
	assert_true(rsh_reg_val_is_bad(~0ull));
	assert_false(rsh_reg_val_is_bad(0));
	assert_false(rsh_reg_val_is_bad(0x5089836482ull));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bf2_golden),
		cmocka_unit_test(test_bf1_golden),
		cmocka_unit_test(test_bf3_golden),
		cmocka_unit_test(test_bf3_wdog1),
		cmocka_unit_test(test_bad_decode),
		cmocka_unit_test(test_all_in_bar),
		cmocka_unit_test(test_bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
