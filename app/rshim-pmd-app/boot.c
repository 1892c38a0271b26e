/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --push-boot: open and validate the inputs before anything is reset, push
 * them with progress (validated again as they stream), print a summary and
 * follow the boot log until the boot completes (bootlog.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "bench.h"
#include "input.h"
#include "rsh_json.h"
#include "rsh_parse.h"

#define RSH_APP_PROGRESS_NS 100000000ull
#define RSH_APP_PLAIN_NS 2000000000ull

static struct rsh_app_input rsh_app_in;

/* Open and validate the inputs before EAL starts (nothing reset yet). */
int
rsh_app_boot_precheck(struct rsh_app *app)
{
	int code = rsh_app_input_open(app, &rsh_app_in);

	if (code != 0)
		return code;
	code = rsh_app_input_precheck(app, &rsh_app_in);
	if (code != 0)
		rsh_app_input_close(&rsh_app_in);
	return code;
}

/* Progress state of one push (main lcore only). */
struct rsh_app_progress {
	bool tty;
	bool enabled;
	const char *dev;
	uint64_t total;            /* 0 when unknown (a pipe) */
	uint64_t start_ns;
	uint64_t last_ns;
	struct rsh_boot *b;
	struct rsh_dev *con_dev;   /* --console: shown during the push */
};

/* Draw the bar (TTY) or a plain line (pipe), rate-limited. */
static void
rsh_app_progress_draw(struct rsh_app_progress *pr, bool force)
{
	struct rsh_boot_stats st;
	uint64_t now = rsh_mono_ns();
	double sec, mib, rate, eta;
	int width = 30, fill;

	if (!pr->enabled)
		return;
	if (!force && now - pr->last_ns < (pr->tty ? RSH_APP_PROGRESS_NS : RSH_APP_PLAIN_NS))
		return;
	pr->last_ns = now;
	rsh_boot_get_stats(pr->b, &st);
	sec = rsh_ns_s(now - pr->start_ns);
	mib = (double)st.bytes_pushed / 1048576.0;
	rate = sec > 0 ? mib / sec : 0;
	if (!pr->tty || pr->total == 0) {
		fprintf(stderr, "%srshim-pmd-app: %s: pushed %.1f MiB%s, %.1f MiB/s%s",
			pr->tty ? "\r" : "", pr->dev, mib,
			pr->total ? "" : " of a stream", rate, pr->tty ? " " : "\n");
		return;
	}
	eta = rate > 0 && pr->total > st.bytes_pushed ?
	      (double)(pr->total - st.bytes_pushed) / 1048576.0 / rate : 0;
	fill = (int)(width * (double)st.bytes_pushed / (double)pr->total);
	fill = fill > width ? width : fill;
	fprintf(stderr, "\r%s: [%.*s%*s] %8.1f / %.1f MiB  %7.1f MiB/s  ETA %3.0f s ",
		pr->dev, fill, "##############################", width - fill, "",
		mib, (double)pr->total / 1048576.0, rate, eta);
}

/* --console: what the DPU printed so far, on a line of its own (the bar
 * is redrawn after it). */
static void
rsh_app_progress_console(struct rsh_app_progress *pr)
{
	if (pr->con_dev != NULL &&
	    rsh_app_push_console_show(pr->con_dev, pr->enabled && pr->tty))
		pr->last_ns = 0;
}

/* Progress callback of the input reader. */
static void
rsh_app_progress_cb(void *arg)
{
	rsh_app_progress_console(arg);
	rsh_app_progress_draw(arg, false);
}

/* The push's outcome, for the summary and --json. */
struct rsh_app_push {
	struct rsh_boot_stats st;
	bool have_st;
	bool dev_failed;           /* the error came from the device */
	int code;                  /* exit code so far */
};

/* Stream the inputs through the validator into the boot engine; an
 * input error (-EPROTO) leaves its message in msg. */
static int
rsh_app_stream(struct rsh_app *app, struct rsh_app_input *in, char *msg,
	       size_t len)
{
	struct rsh_bfb_result res;
	int rc;

	rc = rsh_bfb_validate_stream(rsh_app_input_read, in, &res);
	if (in->push_err != 0)
		return in->push_err;
	if (in->err == -ECANCELED)
		return -ECANCELED;
	if (in->msg[0] != '\0') {
		snprintf(msg, len, "%s; push stopped after %" PRIu64 " bytes",
			 in->msg, in->delivered);
		return -EPROTO;
	}
	if (rc == -EINVAL && app->force) {
		/* --force: the rest goes out unchecked. */
		uint8_t buf[65536];
		ssize_t r;

		while ((r = rsh_app_input_read(in, buf, sizeof(buf))) > 0)
			;
		return r < 0 ? (in->push_err ? in->push_err : in->err) : 0;
	}
	if (rc < 0) {
		snprintf(msg, len, "%s: %s; push stopped after %" PRIu64 " bytes",
			 rsh_app_in_name(&in->f[0]), res.msg, in->delivered);
		return -EPROTO;
	}
	return 0;
}

/* Wait until every queued word is in the FIFO (or the push failed). */
static int
rsh_app_drain(struct rsh_app_progress *pr, struct rsh_boot *b)
{
	int rc = rsh_boot_end_input(b);

	while (rc == 0 && rsh_boot_state(b) == 0) {
		struct timespec ts = { 0, 20000000 };

		if (__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
			return -ECANCELED;
		rsh_app_progress_console(pr);
		rsh_app_progress_draw(pr, false);
		nanosleep(&ts, NULL);
	}
	if (rc < 0)
		return rc;
	return rsh_boot_state(b) < 0 ? rsh_boot_state(b) : 0;
}

/* The summary line (text mode). */
static void
rsh_app_summary(const char *dev, const struct rsh_boot_stats *st)
{
	double sec = rsh_ns_s(st->elapsed_ns);
	double mib = (double)st->bytes_pushed / 1048576.0;

	printf("%s: pushed %" PRIu64 " bytes in %.3f s: %.1f MiB/s; MMIO per MiB: %.1f reads (%.1f FIFO status), %.1f writes; FIFO-full waits %" PRIu64 ", stalls %" PRIu64 " (%.1f s)\n",
	       dev, st->bytes_pushed, sec, sec > 0 ? mib / sec : 0,
	       mib > 0 ? (double)st->mmio.reads / mib : 0,
	       mib > 0 ? (double)st->status_reads / mib : 0,
	       mib > 0 ? (double)st->mmio.writes / mib : 0,
	       st->fifo_full_waits, st->stalls, rsh_ns_s(st->stall_ns));
}

/* Push the inputs on an opened device; fills out. */
static void
rsh_app_push_run(struct rsh_app *app, struct rsh_dev *dev, struct rsh_poller *p,
		 struct rsh_app_push *out)
{
	struct rsh_app_input *in = &rsh_app_in;
	struct rsh_app_progress pr = { .tty = isatty(STDERR_FILENO),
				       .dev = rsh_dev_name(dev) };
	struct rsh_dev_info inf;
	struct rsh_boot *b;
	char msg[512];
	int rc, rc2;

	rsh_dev_get_info(dev, &inf);
	pr.total = rsh_app_input_total(in);
	pr.enabled = !app->quiet && app->progress != 0;
	pr.con_dev = app->console ? dev : NULL;
	if (!app->quiet)
		fprintf(stderr, "rshim-pmd-app: %s: %s, %s the ARM and pushing %s%s\n",
			pr.dev, rsh_gen_name(inf.gen),
			app->boot.skip_reset ? "not resetting" : "resetting",
			rsh_app_in_name(&in->f[0]),
			in->n > 1 ? " with its trailers" : "");
	rc = rsh_boot_open(dev, p, &app->boot, &b);
	if (rc < 0) {
		rsh_app_err("%s", rsh_last_error());
		out->code = rc == -ECANCELED ? RSH_EXIT_CANCEL :
			    rc == -ENODEV ? RSH_EXIT_GONE : RSH_EXIT_FAIL;
		return;
	}
	pr.b = b;
	pr.start_ns = rsh_mono_ns();
	in->b = b;
	in->progress = rsh_app_progress_cb;
	in->progress_arg = &pr;
	rc = rsh_app_stream(app, in, msg, sizeof(msg));
	if (rc == 0)
		rc = rsh_app_drain(&pr, b);
	if (rc < 0 && rc != in->push_err)
		rsh_boot_cancel(b);
	rsh_app_progress_console(&pr);
	rsh_app_progress_draw(&pr, true);
	if (pr.enabled && pr.tty)
		fputc('\n', stderr);
	rc2 = rsh_boot_close(b, &out->st);
	out->have_st = true;
	out->dev_failed = rc2 < 0 && rc2 != -ECANCELED;
	if (rc == -EPROTO) {
		/* One line: what was wrong with the input, then what the
		 * device was left in (the library's words). */
		const char *st = strstr(rsh_last_error(), "BOOT_CONTROL");

		rsh_app_err("%s; %s", msg, st ? st : "BOOT_CONTROL state unknown");
		out->code = RSH_EXIT_INPUT;
	} else if (rc == 0 || rc == -ECANCELED)
		rc = rc2 < 0 ? rc2 : rc;
	if (rc != 0 && rc != -EPROTO) {
		rsh_app_err("%s", rsh_last_error()[0] ? rsh_last_error() : strerror(-rc));
		out->code = rsh_app_exit_code(rc);
	}
}

/* The push part of the JSON document. */
static void
rsh_app_push_json(struct rsh_json *j, const struct rsh_app_push *r)
{
	const struct rsh_boot_stats *st = &r->st;
	double sec = rsh_ns_s(st->elapsed_ns);
	double mib = (double)st->bytes_pushed / 1048576.0;

	rsh_json_obj_begin(j, "push");
	rsh_json_u64(j, "bytes_read", rsh_app_in.delivered);
	rsh_json_u64(j, "bytes_pushed", st->bytes_pushed);
	rsh_json_double(j, "elapsed_s", sec);
	rsh_json_double(j, "mib_per_s", sec > 0 ? mib / sec : 0);
	rsh_json_u64(j, "mmio_reads", st->mmio.reads);
	rsh_json_u64(j, "status_reads", st->status_reads);
	rsh_json_u64(j, "mmio_writes", st->mmio.writes);
	rsh_json_u64(j, "fifo_full_waits", st->fifo_full_waits);
	rsh_json_u64(j, "stalls", st->stalls);
	rsh_json_double(j, "stall_s", rsh_ns_s(st->stall_ns));
	rsh_json_obj_end(j);
}

/* The whole --json document of a push. */
static int
rsh_app_push_doc(struct rsh_app *app, struct rsh_dev *dev,
		 const struct rsh_app_push *r, const struct rsh_app_bootlog *lg,
		 int code)
{
	struct rsh_dev_info inf;
	struct rsh_json j;

	rsh_dev_get_info(dev, &inf);
	rsh_json_init(&j, stdout);
	rsh_json_obj_begin(&j, NULL);
	rsh_json_str(&j, "device", inf.name);
	rsh_json_str(&j, "generation", rsh_gen_name(inf.gen));
	rsh_json_arr_begin(&j, "inputs");
	for (unsigned int i = 0; i < rsh_app_in.n; i++)
		rsh_json_str(&j, NULL, rsh_app_in_name(&rsh_app_in.f[i]));
	rsh_json_arr_end(&j);
	if (r->have_st)
		rsh_app_push_json(&j, r);
	else
		rsh_json_null(&j, "push");
	rsh_app_bootlog_json(&j, lg);
	rsh_json_i64(&j, "exit_code", code);
	rsh_json_str(&j, "error", code != 0 && rsh_app_last_err[0] ? rsh_app_last_err : NULL);
	rsh_json_obj_end(&j);
	if (rsh_json_finish(&j) == -EINVAL)
		rsh_app_err("internal error: malformed JSON document");
	(void)app;
	return code;
}

/* --push-boot FILE on an opened device with a running poller. */
int
rsh_app_push_boot(struct rsh_app *app, struct rsh_dev *dev, struct rsh_poller *p)
{
	struct rsh_app_push r = { .code = RSH_EXIT_OK };
	struct rsh_app_bootlog lg;
	int code;

	rsh_app_bootlog_init(&lg);
	rsh_app_push_run(app, dev, p, &r);
	rsh_app_input_close(&rsh_app_in);
	if (r.have_st && !app->json && (r.code == RSH_EXIT_OK || !app->quiet)) {
		rsh_app_summary(rsh_dev_name(dev), &r.st);
		rsh_bench_push_cost_line(dev, &r.st);
	}
	code = r.code;
	if (code == RSH_EXIT_OK && !app->no_log)
		code = rsh_app_bootlog_wait(app, dev, app->log_wait_s, &lg);
	if (app->json)
		rsh_app_push_doc(app, dev, &r, &lg, code);
	rsh_app_bootlog_free(&lg);
	return code;
}
