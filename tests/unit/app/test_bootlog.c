/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the app's completion wait (app/rshim-pmd-app/bootlog.c)
 * against a scripted boot log: each of bfb-install's completion lines ends
 * the wait (without regard to case), CRITICAL ERROR and ERR records are
 * exit 7, a deferred upgrade (--skip-reset) waits for "Runtime upgrade
 * finished" only, no completion line is exit 10, Ctrl-C is exit 130, a
 * cleared log is shown again, and --json keeps the lines.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <setjmp.h>
#include <cmocka.h>

#include "app.h"
#include "rsh_json.h"

/* --- what bootlog.c uses from the rest of the app and the library --- */

int rsh_app_cancel;
char rsh_app_last_err[256];
static uint64_t rsh_t_now;

uint64_t
rsh_mono_ns(void)
{
	return rsh_t_now;
}

void
rsh_app_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rsh_app_last_err, sizeof(rsh_app_last_err), fmt, ap);
	va_end(ap);
}

int
rsh_app_exit_code(int rc)
{
	return rc == 0 ? RSH_EXIT_OK : RSH_EXIT_FAIL;
}

const char *
rsh_last_error(void)
{
	return "";
}

const char *
rsh_dev_name(const struct rsh_dev *dev)
{
	(void)dev;
	return "sim:test";
}

/* The wait's naps take no time: the clock is moved by each log read. */
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem);
int
__wrap_nanosleep(const struct timespec *req, struct timespec *rem)
{
	(void)req;
	(void)rem;
	return 0;
}

/* The scripted log: after read k, the first visible[k] records exist. */
#define RSH_T_RECS 8
static struct rsh_scratchlog_rec rsh_t_log[RSH_T_RECS];
static unsigned int rsh_t_visible[16], rsh_t_reads, rsh_t_n_steps;
static unsigned int rsh_t_cancel_at = UINT32_MAX;

int
rsh_scratchlog_read(struct rsh_dev *dev, bool clear, struct rsh_scratchlog_rec *recs,
		    unsigned int max)
{
	unsigned int k = rsh_t_reads < rsh_t_n_steps ? rsh_t_reads : rsh_t_n_steps - 1;
	unsigned int n = rsh_t_visible[k];

	(void)dev;
	(void)clear;
	rsh_t_reads++;
	rsh_t_now += 250000000ull;       /* each read: one poll period later */
	if (rsh_t_reads >= rsh_t_cancel_at)
		rsh_app_cancel = 1;
	n = n < max ? n : max;
	memcpy(recs, rsh_t_log, n * sizeof(*recs));
	return (int)n;
}

/* --- helpers --- */

static void
rsh_t_rec(unsigned int i, unsigned int level, unsigned int type, const char *text)
{
	rsh_t_log[i] = (struct rsh_scratchlog_rec){ .module = 5, .type = type, .level = level };
	snprintf(rsh_t_log[i].text, sizeof(rsh_t_log[i].text), "%s", text);
}

static int
rsh_t_setup(void **state)
{
	(void)state;
	memset(rsh_t_log, 0, sizeof(rsh_t_log));
	memset(rsh_t_visible, 0, sizeof(rsh_t_visible));
	rsh_t_reads = 0;
	rsh_t_n_steps = 1;
	rsh_t_cancel_at = UINT32_MAX;
	rsh_app_cancel = 0;
	rsh_t_now = 0;
	rsh_app_last_err[0] = '\0';
	return 0;
}

/* Run the wait with `wait_s`; the log's steps as given. */
static int
rsh_t_wait(bool deferred, bool json, double wait_s, struct rsh_app_bootlog *lg)
{
	struct rsh_app app = { .prog = "test" };
	FILE *devnull = freopen("/dev/null", "w", stdout);

	assert_non_null(devnull);
	app.boot.skip_reset = deferred;
	app.json = json;
	rsh_app_bootlog_init(lg);
	return rsh_app_bootlog_wait(&app, NULL, wait_s, lg);
}

/* --- tests --- */

static void
test_completion_lines(void **state)
{
	static const char *const lines[] = {
		" INFO[UEFI]: DPU is ready", " INFO[MISC]: Linux up",
		" INFO[MISC]: Rebooting...", " INFO[MISC]: In Enhanced NIC mode",
		" INFO[UEFI]: dpu IS READY",
	};
	struct rsh_app_bootlog lg;

	(void)state;
	for (unsigned int i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		rsh_t_setup(NULL);
		rsh_t_rec(0, 0, 4, " INFO[BL1]: Boot stream found");
		rsh_t_rec(1, 0, 4, lines[i]);
		rsh_t_rec(2, 0, 4, " INFO[MISC]: after the end");
		rsh_t_visible[0] = 1;
		rsh_t_visible[1] = 3;
		rsh_t_n_steps = 2;
		assert_int_equal(rsh_t_wait(false, false, 60, &lg), RSH_EXIT_OK);
		assert_non_null(lg.completion);
		assert_string_equal(lg.result, "completed");
		assert_int_equal(rsh_t_reads, 2);
		rsh_app_bootlog_free(&lg);
	}
}

static void
test_errors(void **state)
{
	struct rsh_app_bootlog lg;

	(void)state;
	rsh_t_rec(0, 2, 4, " ERR[BL2]: CRITICAL ERROR: no boot stream");
	rsh_t_visible[0] = 1;
	assert_int_equal(rsh_t_wait(false, false, 60, &lg), RSH_EXIT_DPU_ERR);
	assert_string_equal(lg.result, "dpu-error");
	/* A CRITICAL ERROR at INFO level is still an error. */
	rsh_t_setup(NULL);
	rsh_t_rec(0, 0, 4, " INFO[MISC]: CRITICAL ERROR during install");
	rsh_t_visible[0] = 1;
	assert_int_equal(rsh_t_wait(false, false, 60, &lg), RSH_EXIT_DPU_ERR);
	/* A crash record (type PANIC) whatever its level. */
	rsh_t_setup(NULL);
	rsh_t_rec(0, 0, 1, " PANIC[BL31]: SError");
	rsh_t_visible[0] = 1;
	assert_int_equal(rsh_t_wait(false, false, 60, &lg), RSH_EXIT_DPU_ERR);
}

static void
test_deferred(void **state)
{
	struct rsh_app_bootlog lg;

	(void)state;
	/* "DPU is ready" does not end a deferred upgrade's wait. */
	rsh_t_rec(0, 0, 4, " INFO[UEFI]: DPU is ready");
	rsh_t_rec(1, 0, 4, " INFO[MISC]: Runtime upgrade finished");
	rsh_t_visible[0] = 1;
	rsh_t_visible[1] = 1;
	rsh_t_visible[2] = 2;
	rsh_t_n_steps = 3;
	assert_int_equal(rsh_t_wait(true, false, 60, &lg), RSH_EXIT_OK);
	assert_string_equal(lg.completion, "Runtime upgrade finished");
	assert_int_equal(rsh_t_reads, 3);
}

static void
test_no_completion(void **state)
{
	struct rsh_app_bootlog lg;

	(void)state;
	rsh_t_rec(0, 0, 4, " INFO[BL1]: Boot stream found");
	rsh_t_visible[0] = 1;
	/* 5 s at 250 ms per read: about 20 reads, then exit 10. */
	assert_int_equal(rsh_t_wait(false, false, 5, &lg), RSH_EXIT_NO_COMPLETION);
	assert_string_equal(lg.result, "no-completion");
	assert_in_range(rsh_t_reads, 19, 22);
	assert_non_null(strstr(rsh_app_last_err, "sim:test: no completion line"));
	assert_non_null(strstr(rsh_app_last_err, "5 s"));
}

static void
test_cancel(void **state)
{
	struct rsh_app_bootlog lg;

	(void)state;
	rsh_t_visible[0] = 0;
	rsh_t_cancel_at = 3;
	assert_int_equal(rsh_t_wait(false, false, 1800, &lg), RSH_EXIT_CANCEL);
	assert_string_equal(lg.result, "cancelled");
	assert_int_equal(rsh_t_reads, 3);
	assert_non_null(strstr(rsh_app_last_err, "cancelled"));
}

static void
test_json_keeps_lines_and_cleared_log(void **state)
{
	struct rsh_app_bootlog lg;
	char *buf = NULL;
	size_t len = 0;
	struct rsh_json j;
	FILE *f;

	(void)state;
	rsh_t_rec(0, 0, 4, " INFO[BL1]: one");
	rsh_t_rec(1, 0, 4, " INFO[BL2]: two");
	rsh_t_visible[0] = 2;
	rsh_t_visible[1] = 1;         /* cleared: shorter than before */
	rsh_t_visible[2] = 1;
	rsh_t_n_steps = 3;
	rsh_t_rec(2, 0, 4, " INFO[UEFI]: DPU is ready");
	rsh_t_visible[3] = 3;
	rsh_t_n_steps = 4;
	assert_int_equal(rsh_t_wait(false, true, 60, &lg), RSH_EXIT_OK);
	/* one, two, then after the clear: one, two, DPU is ready. */
	assert_int_equal(lg.n, 5);
	assert_string_equal(lg.lines[4], " INFO[UEFI]: DPU is ready");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	rsh_json_init(&j, f);
	rsh_json_obj_begin(&j, NULL);
	rsh_app_bootlog_json(&j, &lg);
	rsh_json_obj_end(&j);
	assert_int_equal(rsh_json_finish(&j), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"completion\": \"DPU is ready\""));
	assert_non_null(strstr(buf, "\"result\": \"completed\""));
	free(buf);
	rsh_app_bootlog_free(&lg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_completion_lines, rsh_t_setup),
		cmocka_unit_test_setup(test_errors, rsh_t_setup),
		cmocka_unit_test_setup(test_deferred, rsh_t_setup),
		cmocka_unit_test_setup(test_no_completion, rsh_t_setup),
		cmocka_unit_test_setup(test_cancel, rsh_t_setup),
		cmocka_unit_test_setup(test_json_keeps_lines_and_cleared_log, rsh_t_setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
