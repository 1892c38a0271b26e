/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * When the rshim-pmd service holds a device, rshim-pmd-app does not open
 * it: `--device rshimN --push-boot FILE` pushes through the service's node
 * /dev/rshimN/boot (same validation, progress and summary), and any other
 * use of a device the service holds is refused with one line naming the
 * service's pid and what to use instead.
 *
 * RSHIM_PMD_DEV_DIR and RSHIM_PMD_RUN_DIR stand for /dev and
 * /run/rshim-pmd (tests, like the service's --dev-dir and --run-dir). Only
 * devices other processes can reach are held (app/common/rsh_svc_lock.h):
 * a private emulated device is this process's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "input.h"
#include "rsh_parse.h"
#include "rsh_svc_lock.h"

#define RSH_APP_SVC_STEP (1u << 20)
#define RSH_APP_SVC_PLAIN_NS 2000000000ull

/* A directory from the environment, or its default. */
static const char *
rsh_app_svc_dir(const char *env, const char *def)
{
	const char *v = getenv(env);

	return v != NULL && v[0] != '\0' ? v : def;
}

/* The boot node for --device rshimN. @return 1 to push through it, 0 not a
 * service name, -1 (error printed) a service name nobody serves. */
int
rsh_app_via_service_node(const struct rsh_app *app, char *node, size_t size)
{
	int idx = app->device != NULL ? rsh_svc_name_index(app->device) : -1;

	if (idx < 0)
		return 0;
	snprintf(node, size, "%s/rshim%d/boot",
		 rsh_app_svc_dir("RSHIM_PMD_DEV_DIR", "/dev"), idx);
	if (access(node, F_OK) == 0)
		return 1;
	rsh_app_err("%s: no rshim-pmd service serves %s (start rshim-pmd, or give a PCI address or sim:bf3 with --device)",
		    app->device, node);
	return -1;
}

/* Refuse a device the service holds (its lock is taken). Exit code. */
int
rsh_app_service_check(const char *devstr)
{
	struct rsh_svc_lock_holder h;
	const char *name;

	if (!rsh_svc_lock_held(rsh_svc_lock_dir(), devstr, &h))
		return 0;
	name = h.name[0] != '\0' ? h.name : "rshimN";
	rsh_app_err("%s is held by rshim-pmd pid %ld; use its nodes instead, e.g. rshim-pmd-app --device %s --push-boot FILE (or /dev/%s/boot)",
		    devstr, h.pid, name, name);
	return RSH_EXIT_DEVICE;
}

/* A plain progress line, every 2 s. */
static void
rsh_app_svc_progress(const struct rsh_app *app, uint64_t done, uint64_t total,
		     uint64_t t0, uint64_t *last, bool force)
{
	uint64_t now = rsh_mono_ns();
	double sec = rsh_ns_s(now - t0);

	if (app->quiet || app->progress == 0 ||
	    (!force && now - *last < RSH_APP_SVC_PLAIN_NS))
		return;
	*last = now;
	fprintf(stderr, "rshim-pmd-app: %s: pushed %.1f / %.1f MiB, %.1f MiB/s\n",
		app->device, (double)done / 1048576.0, (double)total / 1048576.0,
		sec > 0 ? (double)done / 1048576.0 / sec : 0.0);
}

/* Copy the inputs into the node; returns 0 or -errno (write or close). */
static int
rsh_app_svc_copy(struct rsh_app *app, struct rsh_app_input *in, int out,
		 uint64_t total, uint64_t *done)
{
	uint64_t t0 = rsh_mono_ns(), last = t0;
	static uint8_t buf[RSH_APP_SVC_STEP];
	ssize_t n, w;

	for (;;) {
		if (__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
			return -ECANCELED;
		n = rsh_app_input_read(in, buf, sizeof(buf));
		if (n < 0)
			return -EPROTO;
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n; off += w) {
			w = write(out, buf + off, (size_t)(n - off));
			if (w < 0)
				return errno == EINTR ? -ECANCELED : -errno;
		}
		*done += (uint64_t)n;
		rsh_app_svc_progress(app, *done, total, t0, &last, false);
	}
	rsh_app_svc_progress(app, *done, total, t0, &last, true);
	return 0;
}

/* --device rshimN --push-boot FILE through the service's node. */
int
rsh_app_push_via_service(struct rsh_app *app, const char *node)
{
	struct rsh_app_input in;
	uint64_t done = 0, t0;
	char el[32];
	double sec;
	int code, fd, rc;

	memset(&in, 0, sizeof(in));
	code = rsh_app_input_open(app, &in);
	if (code == 0)
		code = rsh_app_input_precheck(app, &in);
	if (code != 0)
		return code;
	fd = open(node, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		rsh_app_err("%s: %s%s", node, strerror(-rc), rc == -EBUSY ?
			    " (another push is running on this device)" : "");
		rsh_app_input_close(&in);
		return rc == -EBUSY || rc == -EACCES ? RSH_EXIT_FAIL : rsh_app_exit_code(rc);
	}
	if (!app->quiet)
		fprintf(stderr, "rshim-pmd-app: %s: pushing %s through %s (rshim-pmd)\n",
			app->device, rsh_app_in_name(&in.f[0]), node);
	t0 = rsh_mono_ns();
	rc = rsh_app_svc_copy(app, &in, fd, rsh_app_input_total(&in), &done);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	rsh_app_input_close(&in);
	sec = rsh_ns_s(rsh_mono_ns() - t0);
	if (rc < 0) {
		rsh_app_err("%s: push failed: %s", app->device, rc == -EPROTO ? in.msg :
			    strerror(-rc));
		return rc == -EPROTO ? RSH_EXIT_INPUT : rsh_app_exit_code(rc);
	}
	rsh_fmt_duration(el, sizeof(el), (uint64_t)(sec * 1e9));
	printf("%s: pushed %" PRIu64 " bytes in %s (%.3f s): %.1f MiB/s; through %s (MMIO counters: dpdk-telemetry /rshim/stats)\n",
	       app->device, done, el, sec, sec > 0 ? (double)done / 1048576.0 / sec : 0.0,
	       node);
	return RSH_EXIT_OK;
}
