/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bytes of a push: the boot file (a regular file, a pipe, a FIFO or
 * "-" for stdin), then --config and --rootfs, each opened once and read
 * once, in that order (as bfb-install concatenates them). The BFB
 * validator reads through rsh_app_input_read(), which hands every chunk to
 * the boot engine as it goes: the stream is validated on the fly, and a
 * regular file is also validated whole before the ARM is reset.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "input.h"

#define RSH_APP_HEAD_MAX (1u << 20)   /* read ahead of a pipe before reset */
#define RSH_APP_POLL_MS 100           /* cancel checks while a pipe is idle */

/* True when the app was asked to stop. */
static bool
rsh_app_in_cancelled(void)
{
	return __atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED) != 0;
}

/* Name of an input for messages. */
const char *
rsh_app_in_name(const struct rsh_app_in_file *f)
{
	return strcmp(f->path, "-") == 0 ? "stdin" : f->path;
}

/* Open one input (a FIFO blocks here until a writer comes: Ctrl-C works). */
static int
rsh_app_in_open1(struct rsh_app_in_file *f)
{
	struct stat st;

	if (strcmp(f->path, "-") == 0) {
		f->fd = dup(STDIN_FILENO);
	} else {
		do
			f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
		while (f->fd < 0 && errno == EINTR && !rsh_app_in_cancelled());
	}
	if (f->fd < 0 && rsh_app_in_cancelled())
		return -ECANCELED;
	if (f->fd < 0 || fstat(f->fd, &st) < 0) {
		rsh_app_err("%s: cannot open: %s; nothing pushed",
			    rsh_app_in_name(f), strerror(errno));
		return -EIO;
	}
	if (S_ISDIR(st.st_mode)) {
		rsh_app_err("%s: is a directory, not a boot stream; nothing pushed",
			    rsh_app_in_name(f));
		return -EISDIR;
	}
	f->regular = S_ISREG(st.st_mode);
	f->size = f->regular ? (uint64_t)st.st_size : 0;
	return 0;
}

/* Open every input of the push, in order; exit code (0 = opened). */
int
rsh_app_input_open(struct rsh_app *app, struct rsh_app_input *in)
{
	const char *paths[3] = { app->push_file, app->config_file, app->rootfs_file };
	int rc;

	memset(in, 0, sizeof(*in));
	for (unsigned int i = 0; i < 3; i++) {
		if (paths[i] == NULL)
			continue;
		in->f[in->n].path = paths[i];
		in->f[in->n].fd = -1;
		rc = rsh_app_in_open1(&in->f[in->n]);
		in->n++;
		if (rc < 0) {
			rsh_app_input_close(in);
			return rc == -ECANCELED ? RSH_EXIT_CANCEL : RSH_EXIT_INPUT;
		}
	}
	if (in->n > 1 && strcmp(in->f[0].path, "-") != 0)
		for (unsigned int i = 1; i < in->n; i++)
			if (strcmp(in->f[i].path, "-") == 0) {
				rsh_app_err("stdin (-) can only be the boot stream itself");
				rsh_app_input_close(in);
				return RSH_EXIT_USAGE;
			}
	return 0;
}

/* Close every input. */
void
rsh_app_input_close(struct rsh_app_input *in)
{
	for (unsigned int i = 0; i < in->n; i++)
		if (in->f[i].fd >= 0) {
			close(in->f[i].fd);
			in->f[i].fd = -1;
		}
	free(in->head);
	in->head = NULL;
}

/* Sum of the sizes when every input is a regular file, else 0. */
uint64_t
rsh_app_input_total(const struct rsh_app_input *in)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < in->n; i++) {
		if (!in->f[i].regular)
			return 0;
		t += in->f[i].size;
	}
	return t;
}

/* Wait until fd is readable; false when cancelled. */
static bool
rsh_app_in_wait(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (!rsh_app_in_cancelled()) {
		int r = poll(&pfd, 1, RSH_APP_POLL_MS);

		/* Readable, hung up, or an error the read will report; a
		 * signal (EINTR) goes round to the cancel check. */
		if (r > 0 || (r < 0 && errno != EINTR))
			return true;
	}
	return false;
}

/* The current input ended: a regular file must have kept its size. */
static int
rsh_app_in_eof(struct rsh_app_input *in, struct rsh_app_in_file *f)
{
	if (f->regular && f->got != f->size) {
		snprintf(in->msg, sizeof(in->msg), "%s: the file %s while it was read (%" PRIu64
			 " of %" PRIu64 " bytes)", rsh_app_in_name(f),
			 f->got < f->size ? "shrank" : "grew", f->got, f->size);
		return -EIO;
	}
	in->cur++;
	return 0;
}

/* read(2) of the current input, with cancel checks on pipes. */
static ssize_t
rsh_app_in_read_fd(struct rsh_app_input *in, void *buf, size_t len)
{
	struct rsh_app_in_file *f = &in->f[in->cur];
	ssize_t r;

	for (;;) {
		if (rsh_app_in_cancelled())
			return -ECANCELED;
		if (!f->regular && !rsh_app_in_wait(f->fd))
			return -ECANCELED;
		r = read(f->fd, buf, len);
		if (r >= 0)
			return r;
		if (errno != EINTR && errno != EAGAIN) {
			snprintf(in->msg, sizeof(in->msg), "%s: read error after %" PRIu64
				 " bytes: %s", rsh_app_in_name(f), f->got, strerror(errno));
			return -EIO;
		}
	}
}

/* Next bytes of the concatenated inputs: 0 at the end, or -errno. */
static ssize_t
rsh_app_in_next(struct rsh_app_input *in, void *buf, size_t len)
{
	ssize_t r;
	int rc;

	if (in->head_off < in->head_len) {
		r = (ssize_t)(in->head_len - in->head_off < len ?
			      in->head_len - in->head_off : len);
		memcpy(buf, in->head + in->head_off, (size_t)r);
		in->head_off += (size_t)r;
		return r;
	}
	while (in->cur < in->n) {
		r = rsh_app_in_read_fd(in, buf, len);
		if (r > 0) {
			in->f[in->cur].got += (uint64_t)r;
			return r;
		}
		if (r < 0)
			return r;
		rc = rsh_app_in_eof(in, &in->f[in->cur]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* rsh_bfb_read_fn: the next bytes, also queued for the boot FIFO. */
ssize_t
rsh_app_input_read(void *arg, void *buf, size_t len)
{
	struct rsh_app_input *in = arg;
	ssize_t r = rsh_app_in_next(in, buf, len);
	int rc;

	if (r > 0 && in->b != NULL) {
		rc = rsh_boot_write(in->b, buf, (size_t)r);
		if (rc < 0) {
			in->push_err = rc;
			r = rc;
		} else {
			in->delivered += (uint64_t)r;
			if (in->progress != NULL)
				in->progress(in->progress_arg);
		}
	}
	if (r < 0) {
		in->err = (int)r;
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* Read ahead the first bytes of a pipe (up to 1 MiB, or its end). */
static int
rsh_app_in_read_head(struct rsh_app_input *in)
{
	struct rsh_app_in_file *f = &in->f[0];
	ssize_t r;

	in->head = malloc(RSH_APP_HEAD_MAX);
	if (in->head == NULL)
		return -ENOMEM;
	while (in->head_len < RSH_APP_HEAD_MAX) {
		r = rsh_app_in_read_fd(in, in->head + in->head_len,
				       RSH_APP_HEAD_MAX - in->head_len);
		if (r <= 0)
			return r < 0 ? (int)r : 0;
		in->head_len += (size_t)r;
		f->got += (uint64_t)r;
	}
	return 0;
}

/* Validation failed before anything was pushed: say so; exit code. */
static int
rsh_app_in_refuse(struct rsh_app *app, struct rsh_app_input *in, int rc,
		  const struct rsh_bfb_result *res)
{
	const char *name = rsh_app_in_name(&in->f[0]);

	if (rc == -ECANCELED || in->err == -ECANCELED) {
		rsh_app_err("%s: cancelled while reading the input; nothing pushed", name);
		return RSH_EXIT_CANCEL;
	}
	if (in->msg[0] != '\0' || rc != -EINVAL) {
		rsh_app_err("%s; nothing pushed", in->msg[0] ? in->msg :
			    res->msg[0] ? res->msg : strerror(-rc));
		return RSH_EXIT_INPUT;
	}
	if (app->force) {
		fprintf(stderr, "rshim-pmd-app: %s: %s; pushing anyway (--force)\n",
			name, res->msg);
		return 0;
	}
	rsh_app_err("%s: %s; nothing pushed (use --force to push it anyway)",
		    name, res->msg);
	return RSH_EXIT_INPUT;
}

/* Print what the validator found (images, trailing bytes, warnings). */
static void
rsh_app_in_report(const struct rsh_app *app, const struct rsh_app_input *in,
		  const struct rsh_bfb_result *res, bool whole)
{
	const char *name = rsh_app_in_name(&in->f[0]);

	if (res->n_warnings > 0)
		fprintf(stderr, "rshim-pmd-app: %s: warning: %s%s\n", name, res->warn,
			res->n_warnings > 1 ? " (and more repeats)" : "");
	if (app->quiet)
		return;
	if (whole)
		fprintf(stderr, "rshim-pmd-app: %s: valid BFB, %u images%s, %" PRIu64
			" trailing bytes\n", name, res->n_images,
			res->n_bfbs > 1 ? " in a concatenation" : "",
			res->trailing_bytes);
	else
		fprintf(stderr, "rshim-pmd-app: %s: a stream: first %zu bytes valid, the rest is checked as it is pushed\n",
			name, in->head_len);
}

/* Validate before EAL starts and before any reset; exit code. */
int
rsh_app_input_precheck(struct rsh_app *app, struct rsh_app_input *in)
{
	struct rsh_app_in_file *f = &in->f[0];
	struct rsh_bfb_result res;
	int rc;

	if (f->regular) {
		in->n_saved = in->n;
		in->n = 1;   /* the boot file alone; trailers are checked in the push */
		rc = rsh_bfb_validate_stream(rsh_app_input_read, in, &res);
		in->n = in->n_saved;
		if (lseek(f->fd, 0, SEEK_SET) != 0 && rc == 0)
			rc = -errno;
		in->cur = 0;
		f->got = 0;
	} else {
		rc = rsh_app_in_read_head(in);
		/* The whole stream fit in the read-ahead: check it whole. */
		if (rc == 0 && in->head_len < RSH_APP_HEAD_MAX)
			rc = rsh_bfb_walk(in->head, in->head_len, NULL, NULL, &res);
		else if (rc == 0)
			rc = rsh_bfb_check_head(in->head, in->head_len, &res);
		else
			memset(&res, 0, sizeof(res));
	}
	if (rc < 0) {
		rc = rsh_app_in_refuse(app, in, rc, &res);
		in->msg[0] = '\0';
		in->err = 0;
		return rc;
	}
	rsh_app_in_report(app, in, &res, f->regular || in->head_len < RSH_APP_HEAD_MAX);
	return 0;
}
