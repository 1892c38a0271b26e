/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --push-boot: validate the file, push it with progress, print a summary
 * and the boot log the DPU writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "app.h"
#include "rsh_bfb.h"

#define RSH_APP_READ_STEP (1u << 20)   /* progress is redrawn per MiB read */
#define RSH_APP_PROGRESS_NS 100000000ull
#define RSH_APP_PLAIN_NS 2000000000ull

/* Validate the boot file before anything is started (nothing pushed). */
int
rsh_app_boot_precheck(struct rsh_app *app)
{
	struct rsh_bfb_result res;
	int rc = rsh_bfb_validate_file(app->push_file, &res);

	if (rc == -EINVAL && app->force) {
		fprintf(stderr, "rshim-pmd-app: %s: %s; pushing anyway (--force)\n",
			app->push_file, res.msg);
		return 0;
	}
	if (rc == -EINVAL) {
		rsh_app_err("%s: %s; nothing pushed (use --force to push it anyway)",
			    app->push_file, res.msg);
		return RSH_EXIT_INPUT;
	}
	if (rc < 0) {
		rsh_app_err("%s: %s; nothing pushed", app->push_file,
			    res.msg[0] ? res.msg : strerror(-rc));
		return RSH_EXIT_INPUT;
	}
	if (!app->quiet)
		fprintf(stderr, "rshim-pmd-app: %s: valid BFB, %u images, %" PRIu64 " trailing bytes\n",
			app->push_file, res.n_images, res.trailing_bytes);
	return 0;
}

/* Monotonic nanoseconds. */
static uint64_t
rsh_app_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Progress state of one push (main lcore only). */
struct rsh_app_progress {
	bool tty;
	bool enabled;
	uint64_t total;
	uint64_t start_ns;
	uint64_t last_ns;
	struct rsh_dev *dev;  /* --console: shown during the push */
};

/* Draw the bar (TTY) or a plain line (pipe), rate-limited. */
static void
rsh_app_progress(struct rsh_app_progress *pr, struct rsh_boot *b, bool force)
{
	struct rsh_boot_stats st;
	uint64_t now = rsh_app_now_ns();
	double sec, mib, rate, eta;
	int width = 30, fill;

	if (!pr->enabled)
		return;
	if (!force && now - pr->last_ns < (pr->tty ? RSH_APP_PROGRESS_NS : RSH_APP_PLAIN_NS))
		return;
	pr->last_ns = now;
	rsh_boot_get_stats(b, &st);
	sec = (now - pr->start_ns) / 1e9;
	mib = st.bytes_pushed / 1048576.0;
	rate = sec > 0 ? mib / sec : 0;
	eta = rate > 0 && pr->total > st.bytes_pushed ?
	      (pr->total - st.bytes_pushed) / 1048576.0 / rate : 0;
	fill = pr->total ? (int)(width * (double)st.bytes_pushed / pr->total) : 0;
	if (fill > width)
		fill = width;
	if (pr->tty)
		fprintf(stderr, "\r[%.*s%*s] %8.1f / %.1f MiB  %7.1f MiB/s  ETA %3.0f s ",
			fill, "##############################", width - fill, "",
			mib, pr->total / 1048576.0, rate, eta);
	else
		fprintf(stderr, "rshim-pmd-app: pushed %.1f / %.1f MiB, %.1f MiB/s\n",
			mib, pr->total / 1048576.0, rate);
}

/*
 * With --console the DPU console is shown while the boot streams (the
 * poll lcore keeps reading it during a push): copy what arrived to stdout.
 */
static void
rsh_app_boot_console(struct rsh_dev *dev)
{
	char buf[4096];
	size_t n;

	while ((n = rsh_tmfifo_console_read(dev, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			break;
	fflush(stdout);
}

/* Feed the file into the push while showing progress. */
static int
rsh_app_feed(struct rsh_app_progress *pr, struct rsh_boot *b, int fd)
{
	for (;;) {
		ssize_t n;

		if (__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
			return -ECANCELED;
		n = rsh_boot_write_fd(b, fd, RSH_APP_READ_STEP);
		if (n < 0)
			return (int)n;
		if (pr->dev != NULL)
			rsh_app_boot_console(pr->dev);
		rsh_app_progress(pr, b, false);
		if (n == 0)
			break;
	}
	rsh_boot_end_input(b);
	while (rsh_boot_state(b) == 0) {
		struct timespec ts = { 0, 20000000 };

		if (__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
			return -ECANCELED;
		if (pr->dev != NULL)
			rsh_app_boot_console(pr->dev);
		rsh_app_progress(pr, b, false);
		nanosleep(&ts, NULL);
	}
	return rsh_boot_state(b) < 0 ? rsh_boot_state(b) : 0;
}

/* The final summary line. */
static void
rsh_app_summary(const struct rsh_boot_stats *st)
{
	double sec = st->elapsed_ns / 1e9;
	double mib = st->bytes_pushed / 1048576.0;

	printf("pushed %" PRIu64 " bytes in %.3f s: %.1f MiB/s; MMIO per MiB: %.1f reads, %.1f writes; FIFO-full waits %" PRIu64 ", stalls %" PRIu64 " (%.1f s)\n",
	       st->bytes_pushed, sec, sec > 0 ? mib / sec : 0,
	       mib > 0 ? st->mmio.reads / mib : 0, mib > 0 ? st->mmio.writes / mib : 0,
	       st->fifo_full_waits, st->stalls, st->stall_ns / 1e9);
}

/* Open the file for the push (already validated). */
static int
rsh_app_open_file(struct rsh_app *app, uint64_t *size)
{
	struct stat sb;
	int fd = open(app->push_file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb) < 0) {
		rsh_app_err("%s: cannot open: %s; nothing pushed", app->push_file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*size = sb.st_size;
	return fd;
}

/* --push-boot FILE on an opened device with a running poller. */
int
rsh_app_push_boot(struct rsh_app *app, struct rsh_dev *dev, struct rsh_poller *p)
{
	struct rsh_app_progress pr = { .tty = isatty(STDERR_FILENO) };
	struct rsh_boot_stats st;
	struct rsh_boot *b;
	int fd, rc, rc2;

	fd = rsh_app_open_file(app, &pr.total);
	if (fd < 0)
		return RSH_EXIT_INPUT;
	pr.enabled = !app->quiet && (app->progress == 1 || (app->progress == -1));
	if (!app->quiet)
		fprintf(stderr, "rshim-pmd-app: %s: %s, resetting the ARM and pushing %s (%.1f MiB)\n",
			rsh_dev_name(dev), rsh_gen_name(rsh_dev_gen(dev)),
			app->push_file, pr.total / 1048576.0);
	if (app->console) {
		struct rsh_tmfifo_opts o;

		/* The console during the push; the channel loop reattaches. */
		rsh_tmfifo_opts_default(&o);
		o.net = false;
		if (rsh_tmfifo_attach(dev, &o) == 0)
			pr.dev = dev;
	}
	rc = rsh_boot_open(dev, p, &app->boot, &b);
	if (rc < 0) {
		if (pr.dev != NULL)
			rsh_tmfifo_detach(dev);
		close(fd);
		rsh_app_err("%s", rsh_last_error());
		return rc == -ECANCELED ? RSH_EXIT_CANCEL : rsh_app_exit_code(rc) == RSH_EXIT_GONE ?
		       RSH_EXIT_GONE : RSH_EXIT_FAIL;
	}
	pr.start_ns = rsh_app_now_ns();
	rc = rsh_app_feed(&pr, b, fd);
	if (rc == -ECANCELED)
		rsh_boot_cancel(b);
	close(fd);
	rsh_app_progress(&pr, b, true);
	if (pr.enabled && pr.tty)
		fputc('\n', stderr);
	rc2 = rsh_boot_close(b, &st);
	if (pr.dev != NULL) {
		rsh_app_boot_console(dev);
		rsh_tmfifo_detach(dev);
	}
	if (rc == 0 || rc == -ECANCELED)
		rc = rc2 < 0 ? rc2 : rc;
	if (rc < 0) {
		rsh_app_err("%s", rsh_last_error()[0] ? rsh_last_error() : strerror(-rc));
		if (!app->quiet)
			rsh_app_summary(&st);
		return rsh_app_exit_code(rc);
	}
	rsh_app_summary(&st);
	if (app->no_log)
		return RSH_EXIT_OK;
	return rsh_app_show_log(app, dev, app->log_wait_s);
}

/* True when a log line ends the wait (bfb-install's list, §3.8). */
static bool
rsh_app_log_terminal(const struct rsh_log_rec *r)
{
	static const char *const done[] = {
		"DPU is ready", "Linux up", "Rebooting...", "CRITICAL ERROR",
	};

	for (unsigned int i = 0; i < RTE_DIM(done); i++)
		if (strstr(r->text, done[i]) != NULL)
			return true;
	return r->level >= 2;
}

/* Print the boot log as it grows, until a terminal line or the wait ends. */
int
rsh_app_show_log(struct rsh_app *app, struct rsh_dev *dev, double wait_s)
{
	struct rsh_log_rec recs[64];
	uint64_t deadline = rsh_app_now_ns() + (uint64_t)(wait_s * 1e9);
	int shown = 0, n, i;
	bool err = false;

	(void)app;
	for (;;) {
		n = rsh_log_read(dev, false, recs, RTE_DIM(recs));
		if (n < 0) {
			rsh_app_err("%s", rsh_last_error());
			return rsh_app_exit_code(n);
		}
		for (i = shown; i < n; i++) {
			printf("%s\n", recs[i].text);
			err |= recs[i].level >= 2;
			if (rsh_app_log_terminal(&recs[i])) {
				fflush(stdout);
				return err ? RSH_EXIT_DPU_ERR : RSH_EXIT_OK;
			}
		}
		shown = n > shown ? n : shown;
		fflush(stdout);
		if (rsh_app_now_ns() > deadline || __atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
			break;
		struct timespec ts = { 0, 100000000 };

		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "rshim-pmd-app: %s: no \"DPU is ready\" in the boot log after %.0f s (the DPU may still be booting; raise --log-wait)\n",
		rsh_dev_name(dev), wait_s);
	return err ? RSH_EXIT_DPU_ERR : RSH_EXIT_OK;
}

/* Parse "1500", "1.5s", "200ms", "2m" into milliseconds (bare = ms). */
int
rsh_app_parse_ms(const char *s, uint64_t *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || v < 0)
		return -EINVAL;
	if (*end == '\0' || strcmp(end, "ms") == 0)
		*ms = (uint64_t)v;
	else if (strcmp(end, "s") == 0)
		*ms = (uint64_t)(v * 1000);
	else if (strcmp(end, "m") == 0)
		*ms = (uint64_t)(v * 60000);
	else
		return -EINVAL;
	return 0;
}

/* Parse "4096", "64K", "256M", "1G" (powers of 1024). */
int
rsh_app_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || s[0] == '-')
		return -EINVAL;
	switch (*end) {
	case '\0': break;
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	default: return -EINVAL;
	}
	if (*end != '\0')
		return -EINVAL;
	*bytes = v;
	return 0;
}
