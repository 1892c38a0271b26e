/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-pmd-app: the test and benchmark application of rshim-pmd.
 * Parses the command line, starts DPDK's EAL with sane defaults, opens the
 * device and runs one mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "app.h"
#include "rsh_devstr.h"
#include "rsh_errline.h"

RTE_LOG_REGISTER(rsh_app_logtype, user.rshim.app, NOTICE);

int rsh_app_cancel;
char rsh_app_last_err[256];

/* One error line on stderr. */
void
rsh_app_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rsh_errline_vset(rsh_app_last_err, sizeof(rsh_app_last_err), stderr,
			 "rshim-pmd-app", NULL, fmt, ap);
	va_end(ap);
}

/* Library errno to exit code. */
int
rsh_app_exit_code(int rc)
{
	switch (rc) {
	case 0: return RSH_EXIT_OK;
	case -ETIMEDOUT: return RSH_EXIT_TIMEOUT;
	case -ENODEV: return RSH_EXIT_GONE;
	case -ECANCELED: return RSH_EXIT_CANCEL;
	default: return RSH_EXIT_FAIL;
	}
}

/* SIGINT/SIGTERM: request a clean cancel. */
static void
rsh_app_on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&rsh_app_cancel, 1, __ATOMIC_RELAXED);
}

/* Choose the device when none was given: the single usable real one.
 * The emulator is never picked silently; with none or several found,
 * list them and exit 4. */
static int
rsh_app_default_device(struct rsh_app *app)
{
	static char name[RSH_DEV_NAME_MAX];
	struct rsh_dev_info info[16];
	char why[96], fix[128];
	int n, usable = -1, n_usable = 0;

	if (app->device != NULL)
		return 0;
	n = rsh_dev_scan(&app->open, false, info, RTE_DIM(info));
	n = n > (int)RTE_DIM(info) ? (int)RTE_DIM(info) : n;
	for (int i = 0; i < n; i++)
		if (rsh_app_dev_usable(&info[i], why, sizeof(why), fix, sizeof(fix))) {
			usable = i;
			n_usable++;
		}
	if (n_usable == 1) {
		snprintf(name, sizeof(name), "%s", info[usable].name);
		app->device = name;
		if (!app->quiet)
			fprintf(stderr, "rshim-pmd-app: %s: using %s, the only usable rshim function found\n",
				name, rsh_gen_name(info[usable].gen));
		return 0;
	}
	if (n_usable == 0)
		rsh_app_err("no usable rshim function found%s; give --device (the emulator: --device sim:bf3)",
			    n > 0 ? " (see below)" : "");
	else
		rsh_app_err("%d usable rshim functions found; pick one with --device", n_usable);
	for (int i = 0; i < n; i++) {
		bool ok = rsh_app_dev_usable(&info[i], why, sizeof(why), fix, sizeof(fix));

		fprintf(stderr, "  %s  %s  %s%s%s\n", info[i].name, rsh_gen_name(info[i].gen),
			ok ? "usable" : why, ok ? "" : "; fix: ", ok ? "" : fix);
	}
	return -1;
}

int
rsh_app_dev_open(const struct rsh_app *app, const char *devstr,
		 struct rsh_dev **dev, char *err, size_t errlen)
{
	const struct rsh_devstr_pci_opts o = {
		.mapping = app->mapping, .mapping_from = "--mapping",
		.force_id = app->force_id, .force_id_from = "--force-id",
	};
	char s[RSH_DEVSTR_MAX];
	int rc;

	rc = rsh_devstr_pci(s, sizeof(s), devstr, &o, err, errlen);
	if (rc < 0)
		return rc;
	rc = rsh_dev_open(s, &app->open, dev);
	if (rc < 0)
		snprintf(err, errlen, "%s", rsh_last_error()[0] ?
			 rsh_last_error() : strerror(-rc));
	return rc;
}

/* Open the device, start the poller, run the push. */
static int
rsh_app_run_device(struct rsh_app *app)
{
	const struct rsh_app_optset *x = &rsh_app_ctl_optset;
	struct rsh_poller *p = NULL;
	struct rsh_dev *dev = NULL;
	char err[RSH_DEVSTR_MAX];
	int rc, code;

	rc = rsh_app_dev_open(app, app->device, &dev, err, sizeof(err));
	if (rc < 0) {
		rsh_app_err("%s", err);
		return RSH_EXIT_DEVICE;
	}
	rc = rsh_poller_create(&app->poll, &p);
	if (rc == 0)
		rc = rsh_poller_add(p, dev);
	if (rc == 0)
		rc = rsh_poller_start(p);
	if (rc < 0) {
		rsh_app_err("%s: cannot start the poll loop: %s", app->device,
			    rsh_last_error()[0] ? rsh_last_error() : strerror(-rc));
		code = RSH_EXIT_FAIL;
		goto out;
	}
	if (x != NULL && x->mode != NULL && x->mode(app) != NULL)
		code = x->run(app, dev, p);
	else if (app->push_file != NULL) {
		code = rsh_app_push_console_begin(app, dev);
		if (code == RSH_EXIT_OK)
			code = rsh_app_push_boot(app, dev, p);
		rsh_app_push_console_end(app, dev, code);
	} else
		code = 0;
	if (code == RSH_EXIT_OK && (app->console || app->net != NULL))
		code = rsh_app_channels(app, dev, p);
out:
	rsh_poller_destroy(p);
	rsh_dev_close(dev);
	return code;
}

/* Split argv at "--": EAL arguments before it, the app's after it. */
static void
rsh_app_split(int argc, char **argv, int *eal_argc, char ***eal_argv,
	      int *app_argc, char ***app_argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			*eal_argc = i - 1;
			*eal_argv = argv + 1;
			argv[i] = argv[0];
			*app_argc = argc - i;
			*app_argv = argv + i;
			return;
		}
	}
	*eal_argc = 0;
	*eal_argv = NULL;
	*app_argc = argc;
	*app_argv = argv;
}

/*
 * Descriptors 0-2 closed by whoever started us would be reused by the
 * first open() (a TAP fd as stdout, console bytes written into it): put
 * /dev/null there before anything else opens a descriptor.
 */
bool rsh_app_stdin_closed;

static void
rsh_app_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (fd == 0)
			rsh_app_stdin_closed = true; /* --console refuses it */
		if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			_exit(RSH_EXIT_FAIL);
	}
}

/* Signals: cancel on INT/TERM/HUP; a closed reader gives EPIPE, not death. */
static void
rsh_app_signals(void)
{
	struct sigaction sa = { .sa_handler = rsh_app_on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* stdout could not be written (a closed pipe, a full disk): say so. */
static int
rsh_app_check_stdout(int code)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return code;
	rsh_app_err("cannot write the output: %s", strerror(errno ? errno : EIO));
	return code == RSH_EXIT_OK ? RSH_EXIT_FAIL : code;
}

/* Checks before EAL starts; an exit code (0 = go on). */
static int
rsh_app_prechecks(struct rsh_app *app)
{
	int code;

	/* Before anything opens a file: fd 0 must be the user's stdin. */
	code = rsh_app_console_precheck(app);
	if (code == 0 && app->push_file != NULL)
		code = rsh_app_boot_precheck(app);
	if (code != 0)
		return code;
	if (app->bench == NULL) {
		if (rsh_app_default_device(app) < 0)
			return RSH_EXIT_DEVICE;
		if (rsh_dev_check(app->device) < 0) {
			rsh_app_err("%s", rsh_last_error());
			return RSH_EXIT_DEVICE;
		}
		code = rsh_app_service_check(app->device);
		return code != 0 ? code : rsh_app_net_precheck(app);
	}
	return 0;
}

/* Run what the command line asked for; an exit code. */
static int
rsh_app_run(struct rsh_app *app, int eal_argc, char **eal_argv)
{
	int code;

	rsh_app_signals();
	if (app->list)
		return rsh_app_list(app);
	if (app->doctor)
		return rsh_app_doctor(app, eal_argc, eal_argv);
	if (app->bench == NULL) {
		char node[512];
		int via = rsh_app_via_service_node(app, node, sizeof(node));

		if (via != 0)
			return via < 0 ? RSH_EXIT_DEVICE : rsh_app_run_via_service(app, node);
	}
	code = rsh_app_prechecks(app);
	if (code != 0)
		return code;
	if (rsh_app_eal_init(app, eal_argc, eal_argv) < 0)
		return RSH_EXIT_EAL;
	if (app->bench != NULL && strcmp(app->bench, "tmfifo") == 0)
		code = rsh_app_bench_tmfifo(app);
	else if (app->bench != NULL)
		code = rsh_app_bench(app);
	else
		code = rsh_app_run_device(app);
	rte_eal_cleanup();
	return code;
}

/* Entry point. */
int
main(int argc, char **argv)
{
	struct rsh_app app = {
		.prog = "rshim-pmd-app",
		.progress = -1,
		.log_wait_s = 1800,
		.bench_max_bytes = 256ull << 20,
		.bench_seconds = 2,
		.bench_load = -1,
		.bench_nice = -1,
		.linger_s = 1,
		.tap_fd = -1,
		.net_offload = true,
	};
	int eal_argc, app_argc, code = 0;
	char **eal_argv, **app_argv;

	rsh_app_std_fds();
	signal(SIGPIPE, SIG_IGN);
	rsh_poll_opts_default(&app.poll);
	rsh_boot_opts_default(&app.boot);
	app.boot.cancel_flag = &rsh_app_cancel;
	rsh_app_split(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	if (rsh_app_parse(&app, app_argc, app_argv, &code) < 0)
		return rsh_app_check_stdout(code);
	code = rsh_app_run(&app, eal_argc, eal_argv);
	return rsh_app_check_stdout(code);
}
