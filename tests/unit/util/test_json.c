/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/util/rsh_json: byte-exact output of a nested document,
 * string escapes, non-finite numbers, and every misuse reported by
 * rsh_json_finish() (keys where none belong, unbalanced ends, depth).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rsh_json.h"

/* Per-test memory stream. */
struct rsh_t_mem {
	char *buf;
	size_t len;
	FILE *f;
	struct rsh_json j;
};

static int
rsh_t_setup(void **state)
{
	struct rsh_t_mem *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return -1;
	m->f = open_memstream(&m->buf, &m->len);
	if (m->f == NULL) {
		free(m);
		return -1;
	}
	rsh_json_init(&m->j, m->f);
	*state = m;
	return 0;
}

static int
rsh_t_teardown(void **state)
{
	struct rsh_t_mem *m = *state;

	fclose(m->f);
	free(m->buf);
	free(m);
	return 0;
}

static void
test_document(void **state)
{
	struct rsh_t_mem *m = *state;
	struct rsh_json *j = &m->j;

	rsh_json_obj_begin(j, NULL);
	rsh_json_str(j, "device", "sim:bf3");
	rsh_json_u64(j, "bytes", UINT64_MAX);
	rsh_json_i64(j, "delta", -5);
	rsh_json_double(j, "rate", 12.5);
	rsh_json_double(j, "nan", NAN);
	rsh_json_double(j, "inf", INFINITY);
	rsh_json_bool(j, "ok", true);
	rsh_json_null(j, "none");
	rsh_json_str(j, "null_str", NULL);
	rsh_json_arr_begin(j, "empty");
	rsh_json_arr_end(j);
	rsh_json_arr_begin(j, "list");
	rsh_json_u64(j, NULL, 1);
	rsh_json_obj_begin(j, NULL);
	rsh_json_bool(j, "x", false);
	rsh_json_obj_end(j);
	rsh_json_arr_end(j);
	rsh_json_obj_end(j);
	assert_int_equal(rsh_json_finish(j), 0);
	assert_string_equal(m->buf,
		"{\n"
		"  \"device\": \"sim:bf3\",\n"
		"  \"bytes\": 18446744073709551615,\n"
		"  \"delta\": -5,\n"
		"  \"rate\": 12.5,\n"
		"  \"nan\": null,\n"
		"  \"inf\": null,\n"
		"  \"ok\": true,\n"
		"  \"none\": null,\n"
		"  \"null_str\": null,\n"
		"  \"empty\": [],\n"
		"  \"list\": [\n"
		"    1,\n"
		"    {\n"
		"      \"x\": false\n"
		"    }\n"
		"  ]\n"
		"}\n");
}

static void
test_escapes(void **state)
{
	struct rsh_t_mem *m = *state;

	rsh_json_str(&m->j, NULL, "a\"b\\c\nd\te\x01\x7f" "f\xc3\xa9");
	assert_int_equal(rsh_json_finish(&m->j), 0);
	assert_string_equal(m->buf,
		"\"a\\\"b\\\\c\\nd\\te\\u0001\\u007ff\xc3\xa9\"\n");
}

static void
test_misuse_key(void **state)
{
	struct rsh_t_mem *m = *state;

	rsh_json_obj_begin(&m->j, NULL);
	rsh_json_u64(&m->j, NULL, 1);      /* value without a key in an object */
	rsh_json_obj_end(&m->j);
	assert_int_equal(rsh_json_finish(&m->j), -EINVAL);
}

static void
test_misuse_key_in_array(void **state)
{
	struct rsh_t_mem *m = *state;

	rsh_json_arr_begin(&m->j, NULL);
	rsh_json_u64(&m->j, "k", 1);
	rsh_json_arr_end(&m->j);
	assert_int_equal(rsh_json_finish(&m->j), -EINVAL);
}

static void
test_misuse_unbalanced(void **state)
{
	struct rsh_t_mem *m = *state;

	rsh_json_obj_begin(&m->j, NULL);
	rsh_json_arr_begin(&m->j, "a");
	rsh_json_obj_end(&m->j);           /* closes the wrong kind */
	assert_int_equal(rsh_json_finish(&m->j), -EINVAL);
}

static void
test_misuse_unclosed(void **state)
{
	struct rsh_t_mem *m = *state;

	rsh_json_obj_begin(&m->j, NULL);
	assert_int_equal(rsh_json_finish(&m->j), -EINVAL);
}

static void
test_misuse_two_documents(void **state)
{
	struct rsh_t_mem *m = *state;

	rsh_json_u64(&m->j, NULL, 1);
	rsh_json_u64(&m->j, NULL, 2);
	assert_int_equal(rsh_json_finish(&m->j), -EINVAL);
}

static void
test_misuse_depth(void **state)
{
	struct rsh_t_mem *m = *state;

	for (int i = 0; i <= RSH_JSON_MAX_DEPTH; i++)
		rsh_json_arr_begin(&m->j, NULL);
	assert_int_equal(m->j.depth, RSH_JSON_MAX_DEPTH);
	for (int i = 0; i < RSH_JSON_MAX_DEPTH; i++)
		rsh_json_arr_end(&m->j);
	assert_int_equal(rsh_json_finish(&m->j), -EINVAL);
}

static void
test_empty_document(void **state)
{
	struct rsh_t_mem *m = *state;

	assert_int_equal(rsh_json_finish(&m->j), -EINVAL);
}

/* A write error of the stream is reported as -EIO. */
static void
test_write_error(void **state)
{
	struct rsh_json j;
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (f == NULL)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	rsh_json_init(&j, f);
	rsh_json_str(&j, NULL, "x");
	assert_int_equal(rsh_json_finish(&j), -EIO);
	fclose(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_document, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_escapes, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_key, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_key_in_array, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_unbalanced, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_unclosed, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_two_documents, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_depth, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test_setup_teardown(test_empty_document, rsh_t_setup, rsh_t_teardown),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
