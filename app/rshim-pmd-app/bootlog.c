/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * After a push: follow the rshim scratch log (hardware-notes §5.6) until
 * the boot completes, as bfb-install does. Its completion lines are
 * "Rebooting...", "DPU is ready", "Linux up", "CRITICAL ERROR" and "In
 * Enhanced NIC mode", matched case-insensitively; for a deferred (runtime)
 * upgrade only "Runtime upgrade finished" ends the wait (rshim-user-space
 * scripts/bfb-install, wait_for_update_to_finish). An install takes many
 * minutes, so the default wait is 30 minutes; none of these lines within
 * the wait is its own exit code (10).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "rsh_json.h"
#include "rsh_parse.h"

#define RSH_APP_LOG_POLL_NS 250000000ull
#define RSH_APP_LOG_KEEP 512        /* lines kept for --json */

/* Completion lines of a normal install and of a deferred upgrade. */
static const char *const rsh_app_done_normal[] = {
	"Rebooting...", "DPU is ready", "Linux up", "CRITICAL ERROR",
	"In Enhanced NIC mode", NULL,
};
static const char *const rsh_app_done_deferred[] = {
	"Runtime upgrade finished", NULL,
};

/* Start with no lines. */
void
rsh_app_bootlog_init(struct rsh_app_bootlog *lg)
{
	memset(lg, 0, sizeof(*lg));
}

/* Free the kept lines. */
void
rsh_app_bootlog_free(struct rsh_app_bootlog *lg)
{
	free(lg->lines);
	lg->lines = NULL;
	lg->n = 0;
}

/* Keep a line for --json (the first RSH_APP_LOG_KEEP). */
static void
rsh_app_bootlog_keep(struct rsh_app_bootlog *lg, const char *text)
{
	if (lg->n == RSH_APP_LOG_KEEP)
		return;
	if (lg->lines == NULL) {
		lg->lines = calloc(RSH_APP_LOG_KEEP, sizeof(*lg->lines));
		if (lg->lines == NULL)
			return;
	}
	snprintf(lg->lines[lg->n++], sizeof(lg->lines[0]), "%s", text);
}

/* The completion line a record carries, or NULL. */
static const char *
rsh_app_bootlog_done(const struct rsh_app *app, const char *text)
{
	const char *const *d = app->boot.skip_reset ? rsh_app_done_deferred :
						       rsh_app_done_normal;

	for (; *d != NULL; d++)
		if (strcasestr(text, *d) != NULL)
			return *d;
	return NULL;
}

/* One new record: show or keep it; true when the wait is over. */
static bool
rsh_app_bootlog_rec(struct rsh_app *app, struct rsh_dev *dev,
		    struct rsh_app_bootlog *lg, const struct rsh_scratchlog_rec *r)
{
	if (app->json)
		rsh_app_bootlog_keep(lg, r->text);
	else
		printf("%s: %s\n", rsh_dev_name(dev), r->text);
	/* ERR and ASSERT records, and crash records, fail the boot. */
	lg->err_seen |= r->level >= 2 || r->type == 1 || r->type == 2;
	lg->completion = rsh_app_bootlog_done(app, r->text);
	if (lg->completion != NULL && strcmp(lg->completion, "CRITICAL ERROR") == 0)
		lg->err_seen = true;
	return lg->completion != NULL || lg->err_seen;
}

/* Sleep one poll period. */
static void
rsh_app_bootlog_nap(void)
{
	struct timespec ts = { 0, (long)RSH_APP_LOG_POLL_NS };

	nanosleep(&ts, NULL);
}

/* The result of a wait that saw no completion line. */
static int
rsh_app_bootlog_late(struct rsh_app *app, struct rsh_dev *dev,
		     struct rsh_app_bootlog *lg, double wait_s)
{
	char dur[32];

	if (__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED)) {
		rsh_app_err("%s: cancelled while waiting for the boot to complete (the push itself finished)",
			    rsh_dev_name(dev));
		lg->result = "cancelled";
		return RSH_EXIT_CANCEL;
	}
	rsh_fmt_duration(dur, sizeof(dur), (uint64_t)(wait_s * 1e9));
	rsh_app_err("%s: no completion line (\"%s\") in the boot log after %s; the DPU may still be booting: raise --log-wait, or check its console",
		    rsh_dev_name(dev), app->boot.skip_reset ?
		    rsh_app_done_deferred[0] : "DPU is ready", dur);
	lg->result = "no-completion";
	return lg->err_seen ? RSH_EXIT_DPU_ERR : RSH_EXIT_NO_COMPLETION;
}

/* Follow the boot log until a completion line, an error or the wait ends. */
int
rsh_app_bootlog_wait(struct rsh_app *app, struct rsh_dev *dev, double wait_s,
		     struct rsh_app_bootlog *lg)
{
	static struct rsh_scratchlog_rec recs[256];
	uint64_t deadline = rsh_mono_ns() + (uint64_t)(wait_s * 1e9);
	int shown = 0, n;

	lg->waited = true;
	for (;;) {
		n = rsh_scratchlog_read(dev, false, recs, RTE_DIM(recs));
		if (n < 0) {
			rsh_app_err("%s: cannot read the boot log: %s", rsh_dev_name(dev),
				    rsh_last_error()[0] ? rsh_last_error() : strerror(-n));
			lg->result = "log-error";
			return rsh_app_exit_code(n);
		}
		shown = n < shown ? 0 : shown;   /* the log was cleared */
		for (; shown < n; shown++)
			if (rsh_app_bootlog_rec(app, dev, lg, &recs[shown]))
				break;
		fflush(stdout);
		if (lg->completion != NULL || lg->err_seen) {
			lg->result = lg->err_seen ? "dpu-error" : "completed";
			return lg->err_seen ? RSH_EXIT_DPU_ERR : RSH_EXIT_OK;
		}
		if (rsh_mono_ns() > deadline ||
		    __atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
			return rsh_app_bootlog_late(app, dev, lg, wait_s);
		rsh_app_bootlog_nap();
	}
}

/* The boot-log part of a --json document. */
void
rsh_app_bootlog_json(struct rsh_json *j, const struct rsh_app_bootlog *lg)
{
	if (!lg->waited) {
		rsh_json_null(j, "boot");
		return;
	}
	rsh_json_obj_begin(j, "boot");
	rsh_json_str(j, "result", lg->result);
	rsh_json_str(j, "completion", lg->completion);
	rsh_json_arr_begin(j, "log");
	for (unsigned int i = 0; i < lg->n; i++)
		rsh_json_str(j, NULL, lg->lines[i]);
	rsh_json_arr_end(j);
	rsh_json_obj_end(j);
}
