/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-pmd-app: the test and benchmark application of rshim-pmd.
 * Parses the command line, starts DPDK's EAL with sane defaults, opens the
 * device and runs one mode.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "rsh_sim.h"
#include <rte_lcore.h>
#include <rte_log.h>

#include "app.h"

RTE_LOG_REGISTER(rsh_app_logtype, user.rshim.app, NOTICE);

int rsh_app_cancel;

#define RSH_APP_MAX_EAL_ARGS 64

enum {
	OPT_LIST = 256, OPT_SIM, OPT_DEVICE, OPT_PUSH_BOOT, OPT_FORCE,
	OPT_TIMEOUT, OPT_RESET_DELAY, OPT_SKIP_RESET, OPT_LOG_WAIT, OPT_NO_LOG,
	OPT_BUSY_POLL, OPT_MAX_SLEEP, OPT_BENCH, OPT_BENCH_SIZE, OPT_BENCH_TIME,
	OPT_SYSFS_ROOT, OPT_FORCE_ID, OPT_MAPPING, OPT_PROGRESS, OPT_NO_PROGRESS,
	OPT_QUIET, OPT_HELP, OPT_VERSION,
	OPT_CONSOLE, OPT_NET, OPT_IP, OPT_NET_INDEX, OPT_LINGER,
};

static const struct option rsh_app_opts[] = {
	{ "list", no_argument, NULL, OPT_LIST },
	{ "sim", no_argument, NULL, OPT_SIM },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "push-boot", required_argument, NULL, OPT_PUSH_BOOT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "reset-delay", required_argument, NULL, OPT_RESET_DELAY },
	{ "skip-reset", no_argument, NULL, OPT_SKIP_RESET },
	{ "log-wait", required_argument, NULL, OPT_LOG_WAIT },
	{ "no-log", no_argument, NULL, OPT_NO_LOG },
	{ "busy-poll", no_argument, NULL, OPT_BUSY_POLL },
	{ "max-sleep", required_argument, NULL, OPT_MAX_SLEEP },
	{ "bench", required_argument, NULL, OPT_BENCH },
	{ "bench-size", required_argument, NULL, OPT_BENCH_SIZE },
	{ "bench-time", required_argument, NULL, OPT_BENCH_TIME },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "force-id", no_argument, NULL, OPT_FORCE_ID },
	{ "mapping", required_argument, NULL, OPT_MAPPING },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "console", no_argument, NULL, OPT_CONSOLE },
	{ "net", required_argument, NULL, OPT_NET },
	{ "ip", required_argument, NULL, OPT_IP },
	{ "net-index", required_argument, NULL, OPT_NET_INDEX },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ NULL, 0, NULL, 0 },
};

/* --help text. */
static void
rsh_app_usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [EAL options --] [options]\n"
"\n"
"rshim-pmd test and benchmark application: boots, consoles into and talks\n"
"to NVIDIA BlueField DPUs through the rshim PCIe function, or to an\n"
"emulated BlueField (sim:bf1, sim:bf2, sim:bf3).\n"
"\n"
"Modes:\n"
"  --list                 list rshim functions found (add --sim for emulated ones)\n"
"  --push-boot FILE       push a boot stream (BFB, optionally with bf.cfg/rootfs\n"
"                         appended) through the boot FIFO, then show the boot log\n"
"  --console              the DPU console on this terminal (raw mode; Ctrl-] then q\n"
"                         quits, Ctrl-] twice sends Ctrl-]); with pipes, stdin goes\n"
"                         to the console and the console to stdout\n"
"  --net tap|ethdev       the tmfifo network: tap = host interface tmfifo_net<N>\n"
"                         (MAC 00:1A:CA:FF:FF:02+2N, MTU 1500, removed on exit);\n"
"                         ethdev = a DPDK port (rte_eth_from_rings) answering ARP\n"
"                         and ping for --ip. Runs until Ctrl-C. --console and --net\n"
"                         may be combined, and follow --push-boot in one command\n"
"  --bench boot           boot FIFO benchmark on the emulator: drain rates\n"
"                         unlimited, 1 GB/s, 200 MB/s, 20 MB/s, rshim-pmd's policy\n"
"                         against the reference daemon's, one table\n"
"  --bench tmfifo         console and network channel benchmark on the emulator\n"
"                         (MiB/s, packets/s, MMIO per KiB, RTT p50/p99, idle CPU;\n"
"                         as root also TCP through tmfifo_net0 against a TAP baseline)\n"
"\n"
"Device:\n"
"  --device DEV           0000:03:00.2, 03:00.2, pcie-0000:03:00.2, or an emulated\n"
"                         BlueField: sim:bf3[,drain=200M,stall=2s@64M,gone@1M,...]\n"
"                         (default: the single rshim function found, else sim:bf3)\n"
"  --sysfs-root DIR       DIR stands for /sys (tests, containers)\n"
"  --mapping vfio|uio|direct  force a BAR0 mapping (default: the bound driver\n"
"                         decides: vfio-pci VFIO, uio_pci_generic UIO, none direct)\n"
"  --force-id             accept a PCI function whose IDs are not an rshim function\n"
"\n"
"Boot push:\n"
"  --force                push a file that fails BFB validation anyway\n"
"  --timeout SEC          fail when the DPU reads nothing for SEC seconds (300)\n"
"  --reset-delay MS       wait after the ARM reset (default per generation:\n"
"                         BF3 3.5 s, BF1/BF2 5.5 s; the emulator says its own)\n"
"  --skip-reset           no BOOT_CONTROL=0 / reset key (deferred upgrades)\n"
"  --log-wait SEC         wait up to SEC for \"DPU is ready\" in the boot log (10)\n"
"  --no-log               do not read the boot log after the push\n"
"  --progress, --no-progress  progress bar (default: on a TTY; plain lines otherwise)\n"
"\n"
"Channels:\n"
"  --ip A.B.C.D/P         address of the host end (tap: set on tmfifo_net<N>;\n"
"                         ethdev: answered, default 192.168.100.1/24)\n"
"  --net-index N          N of tmfifo_net<N> (0)\n"
"  --linger SEC           pipe mode: exit when stdin ended and the console was\n"
"                         quiet SEC seconds (1)\n"
"\n"
"Polling:\n"
"  --busy-poll            the poll lcore never sleeps (lowest latency, one core)\n"
"  --max-sleep US         back-off ceiling of an idle poll lcore (4000); data the\n"
"                         host queues wakes it at once, data from the DPU waits\n"
"                         at most this long\n"
"\n"
"Benchmark:\n"
"  --bench-size SIZE      largest stream per configuration (256M)\n"
"  --bench-time SEC       time budget per configuration (2)\n"
"\n"
"Other: --quiet, --help, --version\n"
"\n"
"EAL: with no EAL options the app uses --in-memory --iova-mode=va, two lcores\n"
"when there are two, hugepages when reserved (else --no-huge, with a notice),\n"
"and no PCI bus scan (VFIO is driven through rte_vfio_* directly). Give your\n"
"own before \"--\".\n"
"RSHIM_PMD_NO_HUGE=1 forces --no-huge.\n"
"\n"
"Exit codes: 0 ok; 1 the operation failed on the device; 2 bad command line;\n"
"3 bad input file; 4 device not found or cannot be opened; 5 boot timeout;\n"
"6 device gone; 7 the DPU's boot log reported an error; 8 EAL failed;\n"
"9 the host network interface could not be set up; 130 interrupted.\n"
"\n"
"Examples:\n"
"  %s --push-boot build/app/rshim-mkbfb/demo.bfb --device sim:bf3\n"
"  %s --device 0000:03:00.2 --push-boot bf-bundle.bfb\n"
"  %s --list --sim\n"
"  %s --bench boot\n"
"  %s --device sim:bf3 --push-boot demo.bfb --console --net tap --ip 192.168.100.1/24\n"
"  echo uname -a | %s --device sim:bf2,booted=1 --console\n",
		prog, prog, prog, prog, prog, prog, prog);
	fputc('\n', f);
	rsh_sim_help(f);
}

/* One error line on stderr. */
void
rsh_app_err(const char *fmt, ...)
{
	va_list ap;

	fputs("rshim-pmd-app: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

/* Parse a number of seconds (fractions allowed) into ms. */
static int
rsh_app_parse_seconds(const char *s, double *sec)
{
	char *end;

	errno = 0;
	*sec = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || *sec < 0)
		return -EINVAL;
	return 0;
}

/* Name of the long option whose value is c (for error lines). */
static const char *
rsh_app_opt_name(int c)
{
	for (const struct option *o = rsh_app_opts; o->name != NULL; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

/* Options that take no value; false when c is not one of them. */
static bool
rsh_app_opt_flag(struct rsh_app *app, int c)
{
	switch (c) {
	case OPT_LIST: app->list = true; break;
	case OPT_SIM: app->list_sim = true; break;
	case OPT_FORCE: app->force = true; break;
	case OPT_SKIP_RESET: app->boot.skip_reset = true; break;
	case OPT_NO_LOG: app->no_log = true; break;
	case OPT_BUSY_POLL: app->poll.busy_poll = true; break;
	case OPT_FORCE_ID: app->open.force_id = true; break;
	case OPT_PROGRESS: app->progress = 1; break;
	case OPT_NO_PROGRESS: app->progress = 0; break;
	case OPT_QUIET: app->quiet = true; break;
	case OPT_CONSOLE: app->console = true; break;
	default: return false;
	}
	return true;
}

/* Options that take a string as it is; false when c is not one of them. */
static bool
rsh_app_opt_string(struct rsh_app *app, int c, const char *arg)
{
	switch (c) {
	case OPT_DEVICE: app->device = arg; app->device_given = true; break;
	case OPT_PUSH_BOOT: app->push_file = arg; break;
	case OPT_BENCH: app->bench = arg; break;
	case OPT_SYSFS_ROOT: app->open.sysfs_root = arg; break;
	case OPT_IP: app->ip = arg; break;
	default: return false;
	}
	return true;
}

/* Options whose value is checked: 0, -EINVAL bad value, -ENOENT unknown. */
static int
rsh_app_opt_value(struct rsh_app *app, int c, const char *arg)
{
	uint64_t v = 0;
	double d = 0;
	int rc = 0;

	switch (c) {
	case OPT_NET:
		rc = strcmp(arg, "tap") && strcmp(arg, "ethdev") ? -EINVAL : 0;
		app->net = arg;
		break;
	case OPT_NET_INDEX:
		rc = rsh_app_parse_size(arg, &v) < 0 || v > 99 ? -EINVAL : 0;
		app->tap_index = (unsigned int)v;
		break;
	case OPT_LINGER:
		rc = rsh_app_parse_seconds(arg, &app->linger_s);
		break;
	case OPT_MAPPING:
		rc = strcmp(arg, "vfio") && strcmp(arg, "uio") && strcmp(arg, "direct") ?
		     -EINVAL : 0;
		app->open.mapping = arg;
		break;
	case OPT_TIMEOUT:
		rc = rsh_app_parse_seconds(arg, &d) < 0 || d <= 0 ? -EINVAL : 0;
		app->boot.stall_timeout_ms = (uint64_t)(d * 1000);
		break;
	case OPT_RESET_DELAY:
		rc = rsh_app_parse_ms(arg, &v);
		app->boot.reset_delay_ms = v;
		break;
	case OPT_LOG_WAIT:
		rc = rsh_app_parse_seconds(arg, &app->log_wait_s);
		break;
	case OPT_MAX_SLEEP:
		rc = rsh_app_parse_size(arg, &v) < 0 || v == 0 || v > 1000000 ? -EINVAL : 0;
		app->poll.max_sleep_us = v;
		break;
	case OPT_BENCH_SIZE:
		rc = rsh_app_parse_size(arg, &app->bench_max_bytes) < 0 ||
		     app->bench_max_bytes < 1024 * 1024 ? -EINVAL : 0;
		break;
	case OPT_BENCH_TIME:
		rc = rsh_app_parse_seconds(arg, &app->bench_seconds) < 0 ||
		     app->bench_seconds <= 0 ? -EINVAL : 0;
		break;
	default:
		return -ENOENT;
	}
	return rc < 0 ? -EINVAL : 0;
}

/* Apply one option; returns -1 to exit with *code. */
static int
rsh_app_opt(struct rsh_app *app, int c, const char *arg, int *code)
{
	int rc;

	if (c == OPT_HELP || c == OPT_VERSION) {
		if (c == OPT_HELP)
			rsh_app_usage(stdout, app->prog);
		else
			printf("rshim-pmd-app %s\n", RSH_APP_VERSION);
		*code = 0;
		return -1;
	}
	if (rsh_app_opt_flag(app, c) || rsh_app_opt_string(app, c, arg))
		return 0;
	rc = rsh_app_opt_value(app, c, arg);
	if (rc == 0)
		return 0;
	*code = RSH_EXIT_USAGE;
	if (rc == -ENOENT)
		rsh_app_err("unknown option; see %s --help", app->prog);
	else if (c == OPT_NET)
		rsh_app_err("unknown --net mode '%s' (valid: tap, ethdev)", arg);
	else
		rsh_app_err("bad value '%s' for --%s; see %s --help", arg,
			    rsh_app_opt_name(c), app->prog);
	return -1;
}

/* Parse the app's part of the command line. */
static int
rsh_app_parse(struct rsh_app *app, int argc, char **argv, int *code)
{
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", rsh_app_opts, NULL)) != -1) {
		if (c == '?') {
			rsh_app_err("unknown option '%s'; see %s --help",
				    argv[optind - 1], app->prog);
			*code = RSH_EXIT_USAGE;
			return -1;
		}
		if (rsh_app_opt(app, c, optarg, code) < 0)
			return -1;
	}
	if (optind < argc) {
		rsh_app_err("unexpected argument '%s'; see %s --help", argv[optind], app->prog);
		*code = RSH_EXIT_USAGE;
		return -1;
	}
	if (!app->list && app->push_file == NULL && app->bench == NULL &&
	    !app->console && app->net == NULL) {
		rsh_app_err("nothing to do: give --list, --push-boot FILE, --console, --net tap|ethdev or --bench boot|tmfifo; see %s --help",
			    app->prog);
		*code = RSH_EXIT_USAGE;
		return -1;
	}
	if (app->bench != NULL && strcmp(app->bench, "boot") != 0 &&
	    strcmp(app->bench, "tmfifo") != 0) {
		rsh_app_err("unknown benchmark '%s' (valid: boot, tmfifo)", app->bench);
		*code = RSH_EXIT_USAGE;
		return -1;
	}
	return 0;
}

/* True when 2 MiB hugepages are free for EAL. */
static bool
rsh_app_have_hugepages(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	long n = 0;

	if (f == NULL)
		return false;
	if (fscanf(f, "%ld", &n) != 1)
		n = 0;
	fclose(f);
	return n >= 8;
}

/* Pick the device when none was given: the single real one, else sim:bf3. */
static void
rsh_app_default_device(struct rsh_app *app)
{
	static char name[RSH_DEV_NAME_MAX];
	struct rsh_dev_info info[4];
	int n;

	if (app->device != NULL)
		return;
	n = rsh_dev_scan(&app->open, false, info, RTE_DIM(info));
	if (n == 1 && info[0].supported) {
		snprintf(name, sizeof(name), "%s", info[0].name);
		app->device = name;
		fprintf(stderr, "rshim-pmd-app: using %s (%s), the only rshim function found\n",
			name, rsh_gen_name(info[0].gen));
		return;
	}
	app->device = "sim:bf3";
	fprintf(stderr, "rshim-pmd-app: %s; using the emulated BlueField-3 (sim:bf3); pick one with --device\n",
		n > 1 ? "several rshim functions found" : "no rshim function found");
}

/* Build the default EAL arguments. */
static int
rsh_app_eal_defaults(struct rsh_app *app, char **eal, bool real_dev)
{
	static char lcores[16];
	int n = 0;
	const char *nh = getenv("RSHIM_PMD_NO_HUGE");

	eal[n++] = (char *)app->prog;
	snprintf(lcores, sizeof(lcores), "%s", sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? "0-1" : "0");
	eal[n++] = "-l";
	eal[n++] = lcores;
	if (nh == NULL || strcmp(nh, "1") != 0) {
		if (rsh_app_have_hugepages()) {
			eal[n++] = "--in-memory";
		} else {
			eal[n++] = "--no-huge";
			eal[n++] = "--no-shconf";
			eal[n++] = "-m";
			eal[n++] = "256";
			if (!app->quiet)
				fprintf(stderr, "rshim-pmd-app: no hugepages reserved: using ordinary memory (--no-huge); reserve some with: dpdk-hugepages.py -p 2M -r 256M\n");
		}
	} else {
		eal[n++] = "--no-huge";
		eal[n++] = "--no-shconf";
		eal[n++] = "-m";
		eal[n++] = "256";
	}
	eal[n++] = "--iova-mode=va";
	/* No DPDK PCI driver claims the rshim function; VFIO is used through
	 * rte_vfio_* directly, so the bus scan is never needed (and must not
	 * touch other devices of the host). */
	(void)real_dev;
	eal[n++] = "--no-pci";
	eal[n++] = "--no-telemetry";
	eal[n++] = "--log-level=lib.eal:error";
	eal[n] = NULL;
	return n;
}

/* Start EAL: the user's arguments before "--", or our defaults. */
static int
rsh_app_eal_init(struct rsh_app *app, int eal_argc, char **eal_argv)
{
	char *eal[RSH_APP_MAX_EAL_ARGS];
	bool real = strncmp(app->device ? app->device : "", "sim:", 4) != 0 &&
		    !(app->bench != NULL);
	int n, rc;

	if (eal_argc > 0) {
		n = 0;
		eal[n++] = (char *)app->prog;
		for (int i = 0; i < eal_argc && n < RSH_APP_MAX_EAL_ARGS - 1; i++)
			eal[n++] = eal_argv[i];
		eal[n] = NULL;
	} else {
		n = rsh_app_eal_defaults(app, eal, real);
	}
	rc = rte_eal_init(n, eal);
	if (rc < 0) {
		rsh_app_err("DPDK EAL initialisation failed: %s (try RSHIM_PMD_NO_HUGE=1, or give EAL options before --)",
			    rte_strerror(rte_errno));
		return -1;
	}
	/* EAL logs to stdout by default: keep stdout for the app's output. */
	rte_openlog_stream(stderr);
	return 0;
}

/* Open the device, start the poller, run the push. */
static int
rsh_app_run_device(struct rsh_app *app)
{
	struct rsh_poller *p = NULL;
	struct rsh_dev *dev = NULL;
	int rc, code;

	rc = rsh_dev_open(app->device, &app->open, &dev);
	if (rc < 0) {
		rsh_app_err("%s", rsh_last_error()[0] ? rsh_last_error() : strerror(-rc));
		return rc == -EINVAL || rc == -ENODEV ? RSH_EXIT_DEVICE : RSH_EXIT_DEVICE;
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
	code = app->push_file != NULL ? rsh_app_push_boot(app, dev, p) : 0;
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

/* Entry point. */
int
main(int argc, char **argv)
{
	struct rsh_app app = {
		.prog = "rshim-pmd-app",
		.progress = -1,
		.log_wait_s = 10,
		.bench_max_bytes = 256ull << 20,
		.bench_seconds = 2,
		.linger_s = 1,
		.tap_fd = -1,
	};
	int eal_argc, app_argc, code = 0;
	char **eal_argv, **app_argv;

	rsh_poll_opts_default(&app.poll);
	rsh_boot_opts_default(&app.boot);
	app.boot.cancel_flag = &rsh_app_cancel;
	rsh_app_split(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	if (rsh_app_parse(&app, app_argc, app_argv, &code) < 0)
		return code;
	if (app.list && app.push_file == NULL && app.bench == NULL)
		return rsh_app_list(&app);
	/* Before anything opens a file: fd 0 must be the user's stdin. */
	code = rsh_app_console_precheck(&app);
	if (code != 0)
		return code;
	if (app.push_file != NULL) {
		code = rsh_app_boot_precheck(&app);
		if (code != 0)
			return code;
	}
	if (app.bench == NULL && (app.push_file != NULL || app.console || app.net != NULL)) {
		rsh_app_default_device(&app);
		if (rsh_dev_check(app.device) < 0) {
			rsh_app_err("%s", rsh_last_error());
			return RSH_EXIT_DEVICE;
		}
	}
	code = app.bench == NULL ? rsh_app_net_precheck(&app) : 0;
	if (code != 0)
		return code;
	signal(SIGINT, rsh_app_on_signal);
	signal(SIGTERM, rsh_app_on_signal);
	signal(SIGHUP, rsh_app_on_signal);
	if (rsh_app_eal_init(&app, eal_argc, eal_argv) < 0)
		return RSH_EXIT_EAL;
	if (app.bench != NULL && strcmp(app.bench, "tmfifo") == 0)
		code = rsh_app_bench_tmfifo(&app);
	else if (app.bench != NULL)
		code = rsh_app_bench(&app);
	else
		code = rsh_app_run_device(&app);
	rte_eal_cleanup();
	return code;
}
