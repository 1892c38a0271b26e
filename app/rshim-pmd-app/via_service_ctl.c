/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `--device rshimN` with the control modes and the console: through the
 * service's nodes, when the rshim-pmd service holds the device.
 *
 *   --misc            the text of /dev/rshimN/misc
 *   --misc-set 'K V'  one write(2) per line into misc
 *   --reset           misc SW_RESET 1 (returns after the reset delay)
 *   --reg SPEC        the register ioctls of /dev/rshimN/rshim (the
 *                     generation, for table names, from misc DEV_INFO)
 *   --log [--clear]   misc at DISPLAY_LEVEL 2 (the level is put back)
 *   --console         /dev/rshimN/console: stdin to it, it to stdout
 *
 * Output lines are those of the same modes on a device opened here; --json
 * is not offered through the service (one line says so).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "app.h"

#define RSH_APP_SVC_IOC_READ2 0xC00D5200u
#define RSH_APP_SVC_IOC_WRITE2 0xC00D5201u
#define RSH_APP_SVC_BF3_BASE 0x13000000u /* BF3 global rshim window */
#define RSH_APP_SVC_ESC 0x1d /* Ctrl-] */

struct rsh_app_svc_msg2 {
	uint32_t addr;
	uint64_t data;
	uint8_t size;
} __attribute__((packed));

/* DIR/rshimN/<name>. */
static void
rsh_app_svc_path(const char *node_dir, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", node_dir, name);
}

/* The whole misc text into buf; its length or -errno. */
static ssize_t
rsh_app_svc_misc_text(const char *dir, char *buf, size_t size)
{
	char path[600];
	size_t len = 0;
	ssize_t n;
	int fd;

	rsh_app_svc_path(dir, "misc", path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fd);
	return (ssize_t)len;
}

/* One "KEY value" write into misc; 0 or -errno. */
static int
rsh_app_svc_misc_put(const char *dir, const char *line)
{
	char path[600];
	int fd, rc = 0;

	rsh_app_svc_path(dir, "misc", path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* A key's value in the misc text, or "" (value runs to the line end). */
static void
rsh_app_svc_misc_key(const char *text, const char *key, char *out, size_t len)
{
	size_t k = strlen(key);

	out[0] = '\0';
	for (const char *l = text; l != NULL && *l != '\0'; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		if (strncmp(l, key, k) == 0 && l[k] == ' ') {
			const char *v = l + k + strspn(l + k, " ");

			snprintf(out, len, "%.*s", (int)strcspn(v, "\n"), v);
			return;
		}
	}
}

/* --misc-set: each line, in order; the first failure ends. */
static int
rsh_app_svc_misc_set(struct rsh_app *app, const char *dir)
{
	char lines[4096], *save = NULL;
	int rc;

	snprintf(lines, sizeof(lines), "%s", app->ctl.misc_set);
	for (char *l = strtok_r(lines, ";", &save); l != NULL; l = strtok_r(NULL, ";", &save)) {
		rc = rsh_app_svc_misc_put(dir, l);
		if (rc < 0) {
			rsh_app_err("%s: misc %s: %s (the service's log says why)", app->device, l,
				    strerror(-rc));
			return rc == -EINVAL || rc == -EOPNOTSUPP ? RSH_EXIT_USAGE :
			       rsh_app_exit_code(rc);
		}
		printf("%s: misc %s: done\n", app->device, l);
	}
	return RSH_EXIT_OK;
}

/* --reg through the rshim node's size-carrying ioctls. */
static int
rsh_app_svc_reg(struct rsh_app *app, const char *dir)
{
	static char text[RSH_MISC_TEXT_MAX];
	struct rsh_app_svc_msg2 m;
	struct rsh_reg_req r;
	char path[600], info[64], what[48];
	int gen = 0, fd, rc;

	if (rsh_app_svc_misc_text(dir, text, sizeof(text)) >= 0) {
		rsh_app_svc_misc_key(text, "DEV_INFO", info, sizeof(info));
		sscanf(info, "BlueField-%d", &gen);
	}
	if (rsh_reg_req_parse((enum rsh_gen)gen, app->ctl.reg, &r) < 0) {
		rsh_app_err("%s", rsh_last_error());
		return RSH_EXIT_USAGE;
	}
	m.addr = gen == 3 ? RSH_APP_SVC_BF3_BASE + r.bar_off : r.bar_off;
	m.data = r.value;
	m.size = (uint8_t)r.size;
	rsh_app_svc_path(dir, "rshim", path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	if (rc == 0 && ioctl(fd, r.write ? RSH_APP_SVC_IOC_WRITE2 : RSH_APP_SVC_IOC_READ2, &m) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	if (rc < 0) {
		rsh_app_err("%s: %s: %s", app->device, app->ctl.reg, strerror(-rc));
		return rc == -EOPNOTSUPP ? RSH_EXIT_USAGE : rsh_app_exit_code(rc);
	}
	r.value = r.write ? r.value : m.data;
	if (r.name[0] != '\0')
		snprintf(what, sizeof(what), "%s (BAR 0x%06x)", r.name, r.bar_off);
	else
		snprintf(what, sizeof(what), "0x%08x (BAR 0x%06x)", r.addr, r.bar_off);
	printf("%s: %s %s 0x%0*llx\n", app->device, what, r.write ? "<-" : "=",
	       (int)r.size * 2, (unsigned long long)r.value);
	return RSH_EXIT_OK;
}

/* Print the log block of a level-2 misc text; its error count. */
static unsigned int
rsh_app_svc_log_print(const char *text, unsigned int *lines)
{
	const char *log = strstr(text, "Log Messages\n"), *l;
	unsigned int errs = 0;

	log = log != NULL ? strchr(log + 13, '\n') : NULL;
	*lines = 0;
	for (l = log != NULL ? log + 1 : NULL; l != NULL && *l != '\0';) {
		size_t k = strcspn(l, "\n");

		printf("%.*s\n", (int)k, l);
		(*lines)++;
		errs += memmem(l, k, "ERR[", 4) != NULL || memmem(l, k, "ASSERT[", 7) != NULL ||
			memmem(l, k, "PANIC", 5) != NULL || memmem(l, k, "EXCEPTION", 9) != NULL;
		l = l[k] == '\n' ? l + k + 1 : NULL;
	}
	return errs;
}

/* --log [--clear]: misc at level 2, the level and CLEAR_ON_READ put back. */
static int
rsh_app_svc_log(struct rsh_app *app, const char *dir)
{
	static char text[RSH_MISC_TEXT_MAX];
	char level[32], line[48];
	ssize_t len = rsh_app_svc_misc_text(dir, text, sizeof(text));
	int rc = len < 0 ? (int)len : 0;
	unsigned int n, errs;

	rsh_app_svc_misc_key(text, "DISPLAY_LEVEL", level, sizeof(level));
	snprintf(line, sizeof(line), "DISPLAY_LEVEL %.1s", level[0] != '\0' ? level : "0");
	if (rc == 0)
		rc = rsh_app_svc_misc_put(dir, "DISPLAY_LEVEL 2");
	if (rc == 0 && app->ctl.clear)
		rc = rsh_app_svc_misc_put(dir, "CLEAR_ON_READ 1");
	if (rc == 0) {
		len = rsh_app_svc_misc_text(dir, text, sizeof(text));
		rc = len < 0 ? (int)len : 0;
	}
	if (app->ctl.clear)
		(void)rsh_app_svc_misc_put(dir, "CLEAR_ON_READ 0");
	(void)rsh_app_svc_misc_put(dir, line);
	if (rc < 0) {
		rsh_app_err("%s: cannot read the log through %s/misc: %s", app->device, dir,
			    strerror(-rc));
		return rsh_app_exit_code(rc);
	}
	errs = rsh_app_svc_log_print(text, &n);
	printf("%s: %u log line%s, %u error%s%s\n", app->device, n, n == 1 ? "" : "s",
	       errs, errs == 1 ? "" : "s", app->ctl.clear ? ", log cleared" : "");
	return errs ? RSH_EXIT_DPU_ERR : RSH_EXIT_OK;
}

/* --console through the node: bytes both ways until stdin ends (and the
 * linger passes) or, on a terminal, Ctrl-] q. */
static int
rsh_app_svc_console(struct rsh_app *app, const char *dir)
{
	struct termios old, raw;
	bool tty = isatty(STDIN_FILENO), esc = false, eof = false;
	uint64_t quiet = 0;
	char path[600], buf[4096];
	int fd, code = RSH_EXIT_OK;

	rsh_app_svc_path(dir, "console", path, sizeof(path));
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		rsh_app_err("%s: %s: %s%s", app->device, path, strerror(errno),
			    errno == EBUSY ? " (another terminal has the console open)" : "");
		return RSH_EXIT_DEVICE;
	}
	if (tty && tcgetattr(STDIN_FILENO, &old) == 0) {
		raw = old;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
		fprintf(stderr, "rshim-pmd-app: %s: console through %s; Ctrl-] q quits\r\n",
			app->device, path);
	}
	while (!__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED)) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = eof ? -1 : STDIN_FILENO, .events = POLLIN } };
		ssize_t n;

		if (poll(p, 2, 100) < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN) {
			n = read(fd, buf, sizeof(buf));
			if (n > 0 && write(STDOUT_FILENO, buf, (size_t)n) < 0)
				break;
			quiet = 0;
		}
		if (eof && ++quiet * 100 >= (uint64_t)(app->linger_s * 1000))
			break;
		if (!(p[1].revents & (POLLIN | POLLHUP)))
			continue;
		n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n <= 0) {
			eof = true;
			continue;
		}
		if (tty && n == 1 && (esc || buf[0] == RSH_APP_SVC_ESC)) {
			if (esc && buf[0] == 'q')
				break;
			esc = !esc && buf[0] == RSH_APP_SVC_ESC;
			if (esc)
				continue;
		}
		if (write(fd, buf, (size_t)n) < 0)
			code = RSH_EXIT_DEVICE;
	}
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &old);
	close(fd);
	return code;
}

/* The modes asked for, through the node directory dir; an exit code. */
int
rsh_app_ctl_via_service(struct rsh_app *app, const char *dir)
{
	static char text[RSH_MISC_TEXT_MAX];
	const struct rsh_app_ctl *x = &app->ctl;
	int code = RSH_EXIT_OK;

	if (x->misc_set == NULL && !x->reset && x->reg == NULL && !x->log && !x->misc &&
	    !app->console)
		return RSH_EXIT_OK;
	if (app->json) {
		rsh_app_err("%s: --json is not offered through the rshim-pmd service's nodes; drop --json, or read /dev/rshimN/misc",
			    app->device);
		return RSH_EXIT_USAGE;
	}
	if (app->ctl.misc_set != NULL)
		code = rsh_app_svc_misc_set(app, dir);
	if (code == RSH_EXIT_OK && app->ctl.reset) {
		int rc = rsh_app_svc_misc_put(dir, "SW_RESET 1");

		if (rc < 0)
			rsh_app_err("%s: reset: %s", app->device, strerror(-rc));
		else
			printf("%s: ARM reset done\n", app->device);
		code = rc < 0 ? rsh_app_exit_code(rc) : RSH_EXIT_OK;
	}
	if (code == RSH_EXIT_OK && app->ctl.reg != NULL)
		code = rsh_app_svc_reg(app, dir);
	if (code == RSH_EXIT_OK && app->ctl.log)
		code = rsh_app_svc_log(app, dir);
	if (code == RSH_EXIT_OK && app->ctl.misc) {
		ssize_t n = rsh_app_svc_misc_text(dir, text, sizeof(text));

		if (n < 0)
			rsh_app_err("%s: %s/misc: %s", app->device, dir, strerror((int)-n));
		else
			fputs(text, stdout);
		code = n < 0 ? rsh_app_exit_code((int)n) : RSH_EXIT_OK;
	}
	if (code == RSH_EXIT_OK && app->console)
		code = rsh_app_svc_console(app, dir);
	return code;
}

/* --device rshimN: push (the boot node), then the other modes. */
int
rsh_app_run_via_service(struct rsh_app *app, const char *boot_node)
{
	char dir[512];
	const char *slash = strrchr(boot_node, '/');
	int code = RSH_EXIT_OK;

	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - boot_node), boot_node);
	if (app->net != NULL) {
		rsh_app_err("%s: the rshim-pmd service already serves this DPU's network as tmfifo_netN; use that interface (or stop the service to use --net)",
			    app->device);
		return RSH_EXIT_USAGE;
	}
	if (app->push_file != NULL)
		code = rsh_app_push_via_service(app, boot_node);
	if (code == RSH_EXIT_OK)
		code = rsh_app_ctl_via_service(app, dir);
	return code;
}
