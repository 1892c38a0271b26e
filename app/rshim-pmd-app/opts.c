/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-pmd-app command line: the option table, --help, and the checks
 * that turn argv into a struct rsh_app (values through lib/util's parser,
 * repeated options and conflicting modes refused, missing values named).
 * Options of other files plug in through rsh_app_ctl_optset (app.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "rsh_parse.h"

#define RSH_APP_MAX_OPTS 96

enum {
	OPT_LIST = 256, OPT_SIM, OPT_DEVICE, OPT_PUSH_BOOT, OPT_FORCE,
	OPT_TIMEOUT, OPT_RESET_DELAY, OPT_SKIP_RESET, OPT_LOG_WAIT, OPT_NO_LOG,
	OPT_BUSY_POLL, OPT_MAX_SLEEP, OPT_BENCH, OPT_BENCH_SIZE, OPT_BENCH_TIME,
	OPT_SYSFS_ROOT, OPT_FORCE_ID, OPT_MAPPING, OPT_PROGRESS, OPT_NO_PROGRESS,
	OPT_QUIET, OPT_HELP, OPT_VERSION,
	OPT_CONSOLE, OPT_NET, OPT_IP, OPT_NET_INDEX, OPT_NET_OFFLOAD, OPT_LINGER,
	OPT_JSON, OPT_DOCTOR, OPT_CONFIG, OPT_ROOTFS, OPT_BOOT_FIFO,
	OPT_NO_RT_BOOST, OPT_RT_CAP, OPT_LOAD, OPT_BENCH_NICE, OPT_BENCH_WRITE_NS,
	OPT_END_
};

_Static_assert(OPT_END_ <= RSH_APP_OPT_EXT_BASE, "option values overlap the extension range");

static const struct option rsh_app_opts[] = {
	{ "list", no_argument, NULL, OPT_LIST },
	{ "sim", no_argument, NULL, OPT_SIM },
	{ "doctor", no_argument, NULL, OPT_DOCTOR },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "push-boot", required_argument, NULL, OPT_PUSH_BOOT },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "rootfs", required_argument, NULL, OPT_ROOTFS },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "reset-delay", required_argument, NULL, OPT_RESET_DELAY },
	{ "skip-reset", no_argument, NULL, OPT_SKIP_RESET },
	{ "boot-fifo-words", required_argument, NULL, OPT_BOOT_FIFO },
	{ "log-wait", required_argument, NULL, OPT_LOG_WAIT },
	{ "no-log", no_argument, NULL, OPT_NO_LOG },
	{ "busy-poll", no_argument, NULL, OPT_BUSY_POLL },
	{ "max-sleep", required_argument, NULL, OPT_MAX_SLEEP },
	{ "no-rt-boost", no_argument, NULL, OPT_NO_RT_BOOST },
	{ "rt-cap", required_argument, NULL, OPT_RT_CAP },
	{ "load", required_argument, NULL, OPT_LOAD },
	{ "bench-nice", required_argument, NULL, OPT_BENCH_NICE },
	{ "bench-write-ns", required_argument, NULL, OPT_BENCH_WRITE_NS },
	{ "bench", required_argument, NULL, OPT_BENCH },
	{ "bench-size", required_argument, NULL, OPT_BENCH_SIZE },
	{ "bench-time", required_argument, NULL, OPT_BENCH_TIME },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "force-id", no_argument, NULL, OPT_FORCE_ID },
	{ "mapping", required_argument, NULL, OPT_MAPPING },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "console", no_argument, NULL, OPT_CONSOLE },
	{ "net", required_argument, NULL, OPT_NET },
	{ "ip", required_argument, NULL, OPT_IP },
	{ "net-index", required_argument, NULL, OPT_NET_INDEX },
	{ "net-offload", required_argument, NULL, OPT_NET_OFFLOAD },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ NULL, 0, NULL, 0 },
};

/* --help, first part: modes and device. */
static void
rsh_app_usage_modes(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [EAL options --] [options]\n"
"\n"
"rshim-pmd test and benchmark application: boots, consoles into and talks\n"
"to NVIDIA BlueField DPUs through the rshim PCIe function, or to an\n"
"emulated BlueField (sim:bf1, sim:bf2, sim:bf3).\n"
"\n"
"Modes (one per run; --push-boot may be followed by --console and/or --net):\n"
"  --list                 list rshim functions found: kernel driver, usability\n"
"                         and the command that fixes an unusable one (add --sim\n"
"                         for emulated ones); exit 4 when none is found\n"
"  --doctor               check every layer between this host and the DPU (PCI\n"
"                         functions, link, driver, IOMMU/VFIO, hugepages, rshim,\n"
"                         owner, TM FIFO, tmfifo_net), one line each; the exit\n"
"                         code is the first failed layer's (see below). Checks\n"
"                         --device, else the first rshim function found\n"
"  --push-boot FILE       push a boot stream (BFB, optionally with bf.cfg/rootfs\n"
"                         appended) through the boot FIFO, then wait for the boot\n"
"                         to complete. FILE may be a pipe, a FIFO or - (stdin):\n"
"                         it is read once and validated as it streams\n"
"  --console              the DPU console on this terminal (raw mode; Ctrl-] then q\n"
"                         quits, Ctrl-] twice sends Ctrl-]); with pipes, stdin goes\n"
"                         to the console and the console to stdout\n"
"  --net tap|ethdev       the tmfifo network: tap = host interface tmfifo_net<N>\n"
"                         (MAC 00:1A:CA:FF:FF:02+2N, MTU 1500, removed on exit);\n"
"                         ethdev = a DPDK port (rte_eth_from_rings) answering ARP\n"
"                         and ping for --ip. Runs until Ctrl-C\n"
"  --bench boot           boot FIFO benchmark on the emulator, MMIO cost model on:\n"
"                         BlueField-1/2/3, drain rates unlimited to 2 MB/s,\n"
"                         rshim-pmd's policy against the reference daemon's;\n"
"                         with --device sim:bfN,OPTIONS both policies on that\n"
"                         one emulated device (its drain and cost options)\n"
"  --bench install        both policies through an emulated install (fast firmware,\n"
"                         long stalls, slow eMMC tail), compressed in time\n"
"  --bench tmfifo         console and network channel benchmark on the emulator\n"
"                         (MiB/s, packets/s, MMIO per KiB, RTT p50/p99, idle CPU;\n"
"                         as root also TCP through tmfifo_net0 against a TAP baseline)\n"
"\n"
"Device:\n"
"  --device DEV           0000:03:00.2, 03:00.2, pcie-0000:03:00.2, or an emulated\n"
"                         BlueField: sim:bf3[,drain=200M,stall=2s@64M,gone@1M,...].\n"
"                         Default: the single usable rshim function found; with\n"
"                         none or several the app lists them and exits 4 (the\n"
"                         emulator is only used when named)\n"
"  --sysfs-root DIR       DIR stands for /sys (tests, containers)\n"
"  --mapping vfio|uio|direct  force a BAR0 mapping (default: the bound driver\n"
"                         decides: vfio-pci VFIO, uio_pci_generic UIO, none direct)\n"
"  --force-id             accept a PCI function whose IDs are not an rshim function\n"
"\n", prog);
}

/* --help, second part: options of the modes. */
static void
rsh_app_usage_opts(FILE *f)
{
	fprintf(f,
"Boot push:\n"
"  --config FILE          append FILE (bf.cfg) after the boot stream\n"
"  --rootfs FILE          append FILE (a rootfs) after that, as bfb-install -f\n"
"  --force                push a file that fails BFB validation anyway; take the\n"
"                         device over from another rshim driver (OSP_REQ)\n"
"  --timeout DUR          fail when the DPU reads nothing for DUR (300s)\n"
"  --reset-delay DUR      wait after the ARM reset; a bare number is ms (default\n"
"                         per generation: BF3 3.5 s, BF1/BF2 5.5 s; the emulator\n"
"                         says its own)\n"
"  --skip-reset           no BOOT_CONTROL=0 / reset key (deferred upgrades: the\n"
"                         wait then ends at \"Runtime upgrade finished\")\n"
"  --boot-fifo-words 512|1024  boot FIFO depth to assume (default: BlueField-3\n"
"                         1024, BlueField-1/2 512; 512 is the safe fallback)\n"
"  --log-wait DUR         after the push, follow the boot log until a completion\n"
"                         line (\"DPU is ready\", \"Linux up\", \"Rebooting...\",\n"
"                         \"In Enhanced NIC mode\", \"CRITICAL ERROR\") for at most\n"
"                         DUR (30m: an install takes many minutes); exit 10 when\n"
"                         none came. A bare number is seconds\n"
"  --no-log               do not read the boot log after the push\n"
"  --progress, --no-progress  progress bar (default: on a TTY; plain lines otherwise)\n"
"\n"
"Channels:\n"
"  --ip A.B.C.D/P         address of the host end (tap: set on tmfifo_net<N>;\n"
"                         ethdev: answered, default 192.168.100.1/24)\n"
"  --net-index N          N of tmfifo_net<N> (0-99, default 0)\n"
"  --net-offload on|off   tap: 64 KiB reads/writes with the vnet header, TCP\n"
"                         segmentation/merging in user space (default on)\n"
"  --linger DUR           pipe mode: exit when stdin ended and the console was\n"
"                         quiet DUR (1s)\n"
"\n"
"Polling:\n"
"  --busy-poll            the poll lcore never sleeps (lowest latency, one core)\n"
"  --max-sleep DUR        back-off ceiling of an idle poll lcore (4ms; a bare\n"
"                         number is us, at most 1s); data the host queues wakes\n"
"                         it at once, data from the DPU waits at most this long\n"
"  --no-rt-boost          keep the poll lcore at its own priority while a push\n"
"                         streams (default: SCHED_FIFO 1 where allowed, see\n"
"                         --rt-cap; a busy host then slows the push)\n"
"  --rt-cap PCT           CPU cap of that raise, percent of one core per 100 ms\n"
"                         (1-100, default 90)\n"
"\n"
"Benchmark:\n"
"  --bench-size SIZE      largest stream per configuration (256M, at least 1M)\n"
"  --bench-time DUR       time budget per configuration (2s)\n"
"  --load N               --bench boot: the busy-host rows instead, with N\n"
"                         CPU-bound nice-0 processes competing during each row\n"
"                         (0-64; BF2/BF3 at 2, 20 and 50 MB/s, both policies,\n"
"                         cost model on and off, pacing with and without the\n"
"                         priority raise)\n"
"  --bench-nice N         those rows with the pushing thread at nice N (0-19;\n"
"                         19: an admin's renice of the whole daemon)\n"
"  --bench-write-ns NS    --bench boot: the reference model pays NS ns per\n"
"                         write() on the boot node, the kernel round trip to\n"
"                         the daemon's CUSE thread (0-10000000, default 0)\n"
"\n"
"Output:\n"
"  --json                 one JSON document on stdout (--list, --doctor, the push\n"
"                         summary, --bench); messages stay on stderr\n"
"  --quiet                errors only, also from the library\n"
"  --help, --version\n"
"\n"
"Values: SIZE is %s;\n"
"DUR is %s (a bare number in the unit named above).\n"
"\n", RSH_PARSE_HINT_SIZE, RSH_PARSE_HINT_DURATION);
}

/* --help, last part: EAL, exit codes, examples. */
static void
rsh_app_usage_tail(FILE *f, const char *prog)
{
	fprintf(f,
"EAL: the app starts EAL with --in-memory --iova-mode=va, a main and a poll\n"
"lcore (the poll lcore on the device's NUMA node when it has one), hugepages\n"
"when reserved (else --no-huge, with a notice), --no-pci (VFIO is driven\n"
"through rte_vfio_* directly) and --no-telemetry. EAL options before \"--\" are\n"
"merged with these: one you give replaces the default of the same kind\n"
"(-l/-c/--lcores; -m/--socket-mem; --no-huge/--in-memory/--file-prefix;\n"
"--iova-mode; -a/-b/--no-pci), others are added.\n"
"RSHIM_PMD_NO_HUGE=1 forces --no-huge.\n"
"Log types: pmd.rshim, pmd.rshim.boot, pmd.rshim.fifo, pmd.rshim.vfio,\n"
"pmd.rshim.sim, user.rshim.app; e.g. %s --log-level='pmd.rshim*:debug' -- ...\n"
"\n"
"Exit codes: 0 ok; 1 the operation failed on the device (or stdout failed);\n"
"2 bad command line; 3 bad input file (also a file that shrinks while pushed);\n"
"4 device not found, ambiguous or cannot be opened; 5 boot timeout; 6 device\n"
"gone; 7 the DPU's boot log reported an error; 8 EAL failed; 9 the host\n"
"network interface could not be set up; 10 the boot did not complete within\n"
"--log-wait; 130 interrupted.\n"
"--doctor: 0 all layers ok; 20 no DPU rshim PCI function; 21 PCI link\n"
"degraded; 22 driver binding; 23 IOMMU/VFIO; 25 rshim not reachable; 26 rshim\n"
"owned by someone else; 27 TM FIFO console not answering; 28 no answer on\n"
"the tmfifo network (missing hugepages are a warning, not a failure).\n"
"\n"
"Examples:\n"
"  %s --push-boot build/app/rshim-mkbfb/demo.bfb --device sim:bf3\n"
"  %s --device 0000:03:00.2 --push-boot bf-bundle.bfb --config bf.cfg\n"
"  cat a.bfb bf.cfg | %s --device 0000:03:00.2 --push-boot -\n"
"  %s --list --sim\n"
"  %s --doctor --device 0000:03:00.2\n"
"  %s --bench boot\n"
"  %s --device sim:bf3 --push-boot demo.bfb --console --net tap --ip 192.168.100.1/24\n"
"  echo uname -a | %s --device sim:bf2,booted=1 --console\n",
		prog, prog, prog, prog, prog, prog, prog, prog, prog);
}

/* Full --help text. */
static void
rsh_app_usage(FILE *f, const char *prog)
{
	const struct rsh_app_optset *x = &rsh_app_ctl_optset;

	rsh_app_usage_modes(f, prog);
	if (x != NULL && x->usage != NULL)
		fputs(x->usage, f);
	rsh_app_usage_opts(f);
	rsh_app_usage_tail(f, prog);
	fputc('\n', f);
	rsh_dev_help(f); /* the backends' device-string options (the emulator's table) */
}

/* Name of the long option whose value is c (for error lines). */
static const char *
rsh_app_opt_name(const struct option *opts, int c)
{
	for (const struct option *o = opts; o->name != NULL; o++)
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
	case OPT_DOCTOR: app->doctor = true; break;
	case OPT_FORCE: app->force = app->open.force_own = true; break;
	case OPT_SKIP_RESET: app->boot.skip_reset = true; break;
	case OPT_NO_LOG: app->no_log = true; break;
	case OPT_BUSY_POLL: app->poll.busy_poll = true; break;
	case OPT_NO_RT_BOOST: app->poll.no_rt_boost = true; break;
	case OPT_FORCE_ID: app->force_id = true; break;
	case OPT_PROGRESS: app->progress = 1; break;
	case OPT_NO_PROGRESS: app->progress = 0; break;
	case OPT_QUIET: app->quiet = true; break;
	case OPT_JSON: app->json = true; break;
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
	case OPT_CONFIG: app->config_file = arg; break;
	case OPT_ROOTFS: app->rootfs_file = arg; break;
	case OPT_BENCH: app->bench = arg; break;
	case OPT_SYSFS_ROOT: app->open.sysfs_root = arg; break;
	case OPT_IP: app->ip = arg; break;
	default: return false;
	}
	return true;
}

/* One of a few words, or -EINVAL. */
static int
rsh_app_opt_word(const char *arg, const char *const *words)
{
	for (; *words != NULL; words++)
		if (strcmp(arg, *words) == 0)
			return 0;
	return -EINVAL;
}

/* Durations: 0, -EINVAL / -ERANGE bad value, -ENOENT not a duration. */
static int
rsh_app_opt_duration(struct rsh_app *app, int c, const char *arg)
{
	const uint64_t s = RSH_NS_PER_S, day = 86400 * s;
	uint64_t ns = 0;
	int rc;

	switch (c) {
	case OPT_TIMEOUT:
		rc = rsh_parse_duration(arg, s, RSH_NS_PER_MS, day, &ns);
		app->boot.stall_timeout_ms = ns / RSH_NS_PER_MS;
		return rc;
	case OPT_RESET_DELAY:
		rc = rsh_parse_duration(arg, RSH_NS_PER_MS, 0, 600 * s, &ns);
		app->boot.reset_delay_ms = (int64_t)(ns / RSH_NS_PER_MS);
		return rc;
	case OPT_LOG_WAIT:
		rc = rsh_parse_duration(arg, s, 0, 7 * day, &ns);
		app->log_wait_s = rsh_ns_s(ns);
		return rc;
	case OPT_LINGER:
		rc = rsh_parse_duration(arg, s, 0, day, &ns);
		app->linger_s = rsh_ns_s(ns);
		return rc;
	case OPT_MAX_SLEEP:
		rc = rsh_parse_duration(arg, RSH_NS_PER_US, RSH_NS_PER_US, s, &ns);
		app->poll.max_sleep_us = (uint32_t)(ns / RSH_NS_PER_US);
		return rc;
	case OPT_BENCH_TIME:
		rc = rsh_parse_duration(arg, s, RSH_NS_PER_MS, 3600 * s, &ns);
		app->bench_seconds = rsh_ns_s(ns);
		return rc;
	default:
		return -ENOENT;
	}
}

/* Options whose value is checked: 0, -EINVAL bad value, -ENOENT unknown. */
static int
rsh_app_opt_value(struct rsh_app *app, int c, const char *arg)
{
	static const char *const nets[] = { "tap", "ethdev", NULL };
	static const char *const onoff[] = { "on", "off", NULL };
	static const char *const maps[] = { "vfio", "uio", "direct", NULL };
	static const char *const benches[] = { "boot", "install", "tmfifo", NULL };
	uint64_t v = 0;
	int rc;

	switch (c) {
	case OPT_NET:
		app->net = arg;
		return rsh_app_opt_word(arg, nets);
	case OPT_MAPPING:
		app->mapping = arg;
		return rsh_app_opt_word(arg, maps);
	case OPT_BENCH:
		app->bench = arg;
		return rsh_app_opt_word(arg, benches);
	case OPT_NET_OFFLOAD:
		rc = rsh_app_opt_word(arg, onoff);
		app->net_offload = rc == 0 && strcmp(arg, "on") == 0;
		return rc;
	case OPT_NET_INDEX:
		rc = rsh_parse_uint(arg, 0, 99, &v);
		app->tap_index = (unsigned int)v;
		return rc;
	case OPT_BENCH_SIZE:
		return rsh_parse_size(arg, 1u << 20, 1ull << 40, &app->bench_max_bytes);
	case OPT_RT_CAP:
		rc = rsh_parse_uint(arg, 1, 100, &v);
		app->poll.rt_cap_pct = (uint32_t)v;
		return rc;
	case OPT_LOAD:
		rc = rsh_parse_uint(arg, 0, 64, &v);
		app->bench_load = (int)v;
		return rc;
	case OPT_BENCH_NICE:
		rc = rsh_parse_uint(arg, 0, 19, &v);
		app->bench_nice = (int)v;
		return rc;
	case OPT_BENCH_WRITE_NS:
		rc = rsh_parse_uint(arg, 0, 10000000, &v);
		app->bench_write_ns = (uint32_t)v;
		return rc;
	case OPT_BOOT_FIFO:
		rc = rsh_parse_uint(arg, 512, 1024, &v);
		app->boot.fifo_words = (uint32_t)v;
		return rc == 0 && v != 512 && v != 1024 ? -EINVAL : rc;
	default:
		return rsh_app_opt_duration(app, c, arg);
	}
}

/* The valid spellings of an option's value, for the error line. */
static const char *
rsh_app_opt_hint(int c)
{
	switch (c) {
	case OPT_NET: return "tap or ethdev";
	case OPT_NET_OFFLOAD: return "on or off";
	case OPT_MAPPING: return "vfio, uio or direct";
	case OPT_BENCH: return "boot, install or tmfifo";
	case OPT_BOOT_FIFO: return "512 or 1024";
	case OPT_NET_INDEX: return "a whole number 0-99";
	case OPT_RT_CAP: return "a percentage 1-100";
	case OPT_LOAD: return "a whole number 0-64";
	case OPT_BENCH_NICE: return "a nice value 0-19";
	case OPT_BENCH_WRITE_NS: return "a whole number of ns 0-10000000";
	case OPT_BENCH_SIZE: return "a size from 1M to 1T, e.g. 256M";
	case OPT_TIMEOUT: return "a duration from 1ms to 24h, e.g. 300s";
	case OPT_RESET_DELAY: return "a duration up to 10m, e.g. 3500ms";
	case OPT_LOG_WAIT: return "a duration up to 7 days, e.g. 30m";
	case OPT_LINGER: return "a duration up to 24h, e.g. 1s";
	case OPT_MAX_SLEEP: return "a duration from 1us to 1s, e.g. 4ms";
	case OPT_BENCH_TIME: return "a duration from 1ms to 1h, e.g. 2s";
	default: return "see --help";
	}
}

/* An option may be given once; a second one is refused (not silently won). */
static int
rsh_app_opt_once(struct rsh_app *app, const struct option *opts, int c,
		 unsigned char *seen)
{
	unsigned int i;

	for (i = 0; opts[i].name != NULL; i++)
		if (opts[i].val == c)
			break;
	if (opts[i].name == NULL || opts[i].has_arg == no_argument)
		return 0;
	if (seen[i]++ == 0)
		return 0;
	rsh_app_err("--%s given twice; give it once (see %s --help)",
		    opts[i].name, app->prog);
	return -1;
}

/* Apply one option; returns -1 to exit with *code. */
static int
rsh_app_opt(struct rsh_app *app, const struct option *opts, int c,
	    const char *arg, int *code)
{
	const struct rsh_app_optset *x = &rsh_app_ctl_optset;
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
	rc = c >= RSH_APP_OPT_EXT_BASE && x != NULL && x->apply != NULL ?
	     x->apply(app, c, arg) : rsh_app_opt_value(app, c, arg);
	if (rc == 0)
		return 0;
	*code = RSH_EXIT_USAGE;
	if (rc == -ERANGE)
		rsh_app_err("value '%s' of --%s is out of range: give %s",
			    arg, rsh_app_opt_name(opts, c), rsh_app_opt_hint(c));
	else
		rsh_app_err("bad value '%s' for --%s: give %s", arg,
			    rsh_app_opt_name(opts, c), rsh_app_opt_hint(c));
	return -1;
}

/* The long option table: ours, then the extension's. */
static void
rsh_app_opt_table(struct option *out)
{
	const struct rsh_app_optset *x = &rsh_app_ctl_optset;
	unsigned int n = 0;

	for (const struct option *o = rsh_app_opts; o->name != NULL; o++)
		out[n++] = *o;
	if (x != NULL && x->longopts != NULL)
		for (const struct option *o = x->longopts;
		     o->name != NULL && n < RSH_APP_MAX_OPTS - 1; o++)
			out[n++] = *o;
	memset(&out[n], 0, sizeof(out[n]));
}

/* A getopt failure: unknown option or a value missing. */
static void
rsh_app_opt_bad(struct rsh_app *app, const struct option *opts, int c,
		char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		rsh_app_err("option --%s needs a value; see %s --help",
			    rsh_app_opt_name(opts, optopt), app->prog);
	else
		rsh_app_err("unknown option '%s'; see %s --help", arg, app->prog);
}

/* Which modes were asked for, as a count (1 expected). */
static unsigned int
rsh_app_count_modes(const struct rsh_app *app, const char **names)
{
	const struct rsh_app_optset *x = &rsh_app_ctl_optset;
	unsigned int n = 0;

	names[0] = names[1] = NULL;
	if (app->list)
		names[n++ > 0] = "--list";
	if (app->doctor)
		names[n++ > 0] = "--doctor";
	if (app->bench != NULL)
		names[n++ > 0] = "--bench";
	if (app->push_file != NULL || app->console || app->net != NULL)
		names[n++ > 0] = app->push_file ? "--push-boot" :
				 app->console ? "--console" : "--net";
	if (x != NULL && x->mode != NULL && x->mode(app) != NULL)
		names[n++ > 0] = x->mode(app);
	return n;
}

/* Cross-option checks after every option was read. */
static int
rsh_app_check_modes(struct rsh_app *app)
{
	const char *names[2];
	unsigned int n = rsh_app_count_modes(app, names);

	if (n == 0) {
		rsh_app_err("nothing to do: give --list, --doctor, --push-boot FILE, --console, --net tap|ethdev or --bench boot|tmfifo; see %s --help",
			    app->prog);
		return -1;
	}
	if (n > 1) {
		rsh_app_err("%s and %s cannot be combined: run them one after the other",
			    names[0], names[1]);
		return -1;
	}
	if ((app->config_file != NULL || app->rootfs_file != NULL) &&
	    app->push_file == NULL) {
		rsh_app_err("--%s needs --push-boot FILE", app->config_file ? "config" : "rootfs");
		return -1;
	}
	if (app->console && app->push_file != NULL &&
	    (strcmp(app->push_file, "-") == 0 || strcmp(app->push_file, "/dev/stdin") == 0)) {
		rsh_app_err("--push-boot %s and --console both read stdin: push from a file or a FIFO",
			    app->push_file);
		return -1;
	}
	if (app->json && app->console) {
		rsh_app_err("--json and --console cannot be combined: stdout carries one JSON document and the console's bytes would break it; push with --json, then run --console");
		return -1;
	}
	if ((app->bench_load >= 0 || app->bench_nice >= 0) &&
	    (app->bench == NULL || strcmp(app->bench, "boot") != 0)) {
		rsh_app_err("--%s goes with --bench boot (the busy-host rows)",
			    app->bench_load >= 0 ? "load" : "bench-nice");
		return -1;
	}
	if (app->bench_write_ns > 0 && (app->bench == NULL || strcmp(app->bench, "boot") != 0)) {
		rsh_app_err("--bench-write-ns goes with --bench boot (the reference model's write() round trip)");
		return -1;
	}
	if (app->bench != NULL && app->device_given &&
	    (strcmp(app->bench, "boot") != 0 || strncmp(app->device, "sim:bf", 6) != 0 ||
	     app->bench_load >= 0 || app->bench_nice >= 0)) {
		rsh_app_err("--bench takes --device only as --bench boot --device sim:bfN,... (both policies on that emulated device)");
		return -1;
	}
	if (app->list_sim && !app->list) {
		rsh_app_err("--sim goes with --list (emulated devices are named with --device sim:bf3)");
		return -1;
	}
	return 0;
}

/* Parse the app's part of the command line. */
int
rsh_app_parse(struct rsh_app *app, int argc, char **argv, int *code)
{
	struct option opts[RSH_APP_MAX_OPTS];
	unsigned char seen[RSH_APP_MAX_OPTS] = { 0 };
	int c;

	rsh_app_opt_table(opts);
	optind = 1;
	opterr = 0;
	*code = RSH_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			rsh_app_opt_bad(app, opts, c, argv);
			return -1;
		}
		if (rsh_app_opt_once(app, opts, c, seen) < 0 ||
		    rsh_app_opt(app, opts, c, optarg, code) < 0)
			return -1;
	}
	if (optind < argc) {
		rsh_app_err("unexpected argument '%s'; see %s --help", argv[optind], app->prog);
		return -1;
	}
	if (rsh_app_check_modes(app) < 0)
		return -1;
	*code = 0;
	return 0;
}
