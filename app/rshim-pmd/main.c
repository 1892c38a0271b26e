/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-pmd: the service. Options are NVIDIA rshim's letters (hardware-
 * notes §7.2), -c is its command mode (cmdmode.c); the configuration file
 * is -C. See rshim-pmd(8) and doc/migrating.md.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "rsh_errline.h"
#include "rsh_parse.h"
#include "rsh_svc_lock.h"
#include "rsh_sys.h"
#include "svc.h"

#ifndef RSH_SVC_VERSION
#define RSH_SVC_VERSION "unknown"
#endif

RTE_LOG_REGISTER(rsh_svc_logtype, user.rshim.svc, NOTICE);
RTE_LOG_REGISTER(rsh_svc_audit_logtype, user.rshim.audit, NOTICE);

enum {
	OPT_SIM = 256,
	OPT_DEV_DIR,
	OPT_RUN_DIR,
	OPT_FILE_PREFIX,
	OPT_LOG_TYPE,
	OPT_SYSFS_ROOT,
	OPT_HELP,
};

static const struct option rsh_svc_opts[] = {
	{ "foreground", no_argument, NULL, 'f' },
	{ "device", required_argument, NULL, 'd' },
	{ "index", required_argument, NULL, 'i' },
	{ "log-level", required_argument, NULL, 'l' },
	{ "nonet", no_argument, NULL, 'n' },
	{ "force", no_argument, NULL, 'F' },
	{ "version", no_argument, NULL, 'v' },
	{ "config", required_argument, NULL, 'C' },
	{ "backend", required_argument, NULL, 'b' },
	{ "log-type", required_argument, NULL, OPT_LOG_TYPE },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "sim", required_argument, NULL, OPT_SIM },
	{ "dev-dir", required_argument, NULL, OPT_DEV_DIR },
	{ "run-dir", required_argument, NULL, OPT_RUN_DIR },
	{ "file-prefix", required_argument, NULL, OPT_FILE_PREFIX },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char rsh_svc_usage[] =
"Usage: rshim-pmd [options]\n"
"Serve every BlueField rshim function (or those named) as /dev/rshimN/\n"
"{boot,console,misc,rshim} and tmfifo_netN, from one poll lcore.\n"
"  -f, --foreground       stay in the foreground, log to stderr\n"
"  -d, --device DEV       serve DEV only (repeatable): 0000:03:00.2,\n"
"                         pcie-0000:03:00.2, pcie-lf-0000:03:00.2 (livefish)\n"
"                         or sim:bf3[,options]\n"
"      --sim DEVARGS      serve an emulated BlueField (repeatable), e.g.\n"
"                         --sim bf3,drain=200M\n"
"  -b, --backend pcie     pcie (or pcie_lf, pcie-lf); usb is not served\n"
"  -i, --index N          first rshimN index for unnamed devices (0)\n"
"  -l, --log-level 0-4    as NVIDIA rshim: 0 none, 1 error, 2 warning,\n"
"                         3 notice (default), 4 debug\n"
"      --log-type T:L     a DPDK log type's level, e.g. pmd.rshim.reg:debug\n"
"                         (the register trace); repeatable\n"
"  -n, --nonet            no tmfifo_netN interfaces\n"
"  -F, --force            FORCE_MODE 1: ask another owner to hand over\n"
"  -C, --config FILE      configuration (" RSH_SVC_CONF_DEFAULT ";\n"
"                         " RSH_SVC_CONF_NVIDIA " when that is absent)\n"
"  -c, --cmdmode ...      NVIDIA's command mode: -c -r ADDR.64 [VALUE],\n"
"                         -g, -s N, -p NAME|all, in order (rshim-pmd -c -h)\n"
"      --dev-dir DIR      where the rshimN directories go (/dev)\n"
"      --run-dir DIR      where the device locks go (/run/rshim-pmd)\n"
"      --file-prefix P    DPDK file prefix, for rshim-pmd-telemetry -f P (rshim-pmd)\n"
"  -v, --version          print the version\n"
"Signals: SIGHUP re-reads the configuration and rescans; SIGTERM/SIGINT stop.\n"
"Exit codes: 0 stopped by a signal, 1 runtime failure, 2 bad option or\n"
"configuration line, 3 every device is held by another rshim-pmd.\n";

/* One error line: stderr in the foreground, syslog when daemonised. */
void
rsh_svc_err(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	rsh_errline_vset(msg, sizeof(msg), NULL, "rshim-pmd", NULL, fmt, ap);
	va_end(ap);
	rte_log(RTE_LOG_ERR, rsh_svc_logtype, "rshim-pmd: %s\n", msg);
}

/* The audit line of a state-changing access. */
void
rsh_svc_audit(const struct rsh_svc_dev *d, uid_t uid, pid_t pid,
	      const char *action, int rc)
{
	rte_log(RTE_LOG_NOTICE, rsh_svc_audit_logtype,
		"rshim-pmd: %s: audit: uid=%u pid=%d %s: %s\n", d->name,
		(unsigned int)uid, (int)pid, action, rc == 0 ? "ok" : strerror(-rc));
}

/* A number option. */
static int
rsh_svc_opt_num(const char *opt, const char *v, long max, long *out)
{
	uint64_t n = 0;

	if (rsh_parse_uint(v, 0, (uint64_t)max, &n) == 0) {
		*out = (long)n;
		return 0;
	}
	fprintf(stderr, "rshim-pmd: %s: '%s' is not a number 0-%ld; see rshim-pmd --help\n",
		opt, v, max);
	return -EINVAL;
}

/* A -d/--sim device. */
static int
rsh_svc_opt_dev(struct rshd *s, const char *v, bool sim)
{
	static char store[RSH_SVC_MAX_DEVS][RSH_DEV_NAME_MAX];
	char *dst;

	if (s->n_only == RSH_SVC_MAX_DEVS) {
		fprintf(stderr, "rshim-pmd: at most %u devices\n", RSH_SVC_MAX_DEVS);
		return -EINVAL;
	}
	if (strncmp(v, "usb-", 4) == 0) {
		fprintf(stderr, "rshim-pmd: -d %s: a USB rshim: not served by rshim-pmd (PCIe only)\n", v);
		return -EINVAL;
	}
	dst = store[s->n_only];
	snprintf(dst, RSH_DEV_NAME_MAX, "%s%s", sim && strncmp(v, "sim:", 4) != 0 ? "sim:" : "",
		 rsh_svc_devname(v));
	if (rsh_dev_check(dst) < 0) {
		fprintf(stderr, "rshim-pmd: %s\n", rsh_last_error());
		return -EINVAL;
	}
	/* One device per string: the table, the rshimN lines and SIGHUP
	 * name devices by it. */
	for (unsigned int i = 0; i < s->n_only; i++) {
		if (strcmp(s->only_dev[i], dst) != 0)
			continue;
		fprintf(stderr, "rshim-pmd: %s is given twice; one device per string (two emulated BlueFields need two strings, e.g. --sim bf3 --sim bf3,rev=2)\n",
			dst);
		return -EINVAL;
	}
	s->only_dev[s->n_only++] = dst;
	s->sim_only |= sim;
	s->allow_list |= !sim;
	return 0;
}

/* -b: NVIDIA's backend names; rshim-pmd serves PCIe only. */
static int
rsh_svc_opt_backend(const char *v)
{
	if (strcmp(v, "pcie") == 0 || strcmp(v, "pcie_lf") == 0 || strcmp(v, "pcie-lf") == 0)
		return 0;
	fprintf(stderr, "rshim-pmd: -b %s: %s\n", v, strcmp(v, "usb") == 0 ?
		"USB rshim is not served by rshim-pmd (PCIe only)" : "expected pcie or pcie_lf");
	return -EINVAL;
}

/* --log-type TYPE:LEVEL, kept for EAL (at most 8). */
static int
rsh_svc_opt_log_type(struct rshd *s, const char *v)
{
	if (s->n_log_types == RSH_SVC_MAX_LOG_TYPES || strchr(v, ':') == NULL) {
		fprintf(stderr, "rshim-pmd: --log-type %s: expected TYPE:LEVEL (at most %u), e.g. pmd.rshim.reg:debug\n",
			v, RSH_SVC_MAX_LOG_TYPES);
		return -EINVAL;
	}
	s->log_types[s->n_log_types++] = v;
	return 0;
}

/* Parse the command line; -1 with *code set when main must return. */
static int
rsh_svc_parse(struct rshd *s, int argc, char **argv, int *code)
{
	long v;
	int c;

	*code = RSH_SVC_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "fd:i:l:nFvc:C:b:h", rsh_svc_opts, NULL)) != -1) {
		switch (c) {
		case 'f': s->foreground = true; break;
		case 'n': s->no_net = true; break;
		case 'F': s->force = true; break;
		/* -c FILE: the configuration, as before -C (old scripts);
		 * command mode was recognised before parsing. */
		case 'c': case 'C': s->conf_path = optarg; break;
		case 'b':
			if (rsh_svc_opt_backend(optarg) < 0)
				return -1;
			break;
		case OPT_LOG_TYPE:
			if (rsh_svc_opt_log_type(s, optarg) < 0)
				return -1;
			break;
		case OPT_DEV_DIR: s->dev_dir = optarg; break;
		case OPT_RUN_DIR: s->run_dir = optarg; break;
		case OPT_FILE_PREFIX: s->file_prefix = optarg; break;
		case OPT_SYSFS_ROOT: s->open.sysfs_root = optarg; break; /* tests */
		case 'd': case OPT_SIM:
			if (rsh_svc_opt_dev(s, optarg, c == OPT_SIM) < 0)
				return -1;
			break;
		case 'i': case 'l':
			if (rsh_svc_opt_num(c == 'i' ? "-i" : "-l", optarg, c == 'i' ? 255 : 4, &v) < 0)
				return -1;
			*(c == 'i' ? &s->first_index : &s->log_level) = (int)v;
			break;
		case 'v':
			printf("rshim-pmd %s\n", RSH_SVC_VERSION);
			*code = RSH_SVC_EXIT_OK;
			return -1;
		case 'h':
			fputs(rsh_svc_usage, stdout);
			*code = RSH_SVC_EXIT_OK;
			return -1;
		default:
			fprintf(stderr, "rshim-pmd: see rshim-pmd --help\n");
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rshim-pmd: unexpected argument '%s'; see rshim-pmd --help\n",
			argv[optind]);
		return -1;
	}
	return 0;
}

/* At least 8 free 2 MiB hugepages (else ordinary memory, one notice). */
static bool
rsh_svc_have_hugepages(void)
{
	bool ok = rsh_have_hugepages() && getenv("RSHIM_PMD_NO_HUGE") == NULL;

	if (!ok && getenv("RSHIM_PMD_NO_HUGE") == NULL)
		fprintf(stderr, "rshim-pmd: no hugepages reserved: using ordinary memory; reserve some with: dpdk-hugepages.py -p 2M -r 256M\n");
	return ok;
}

/*
 * DPDK memory on --no-huge, MiB: the EAL's own, plus what one device
 * takes at most (its TM FIFO mbuf pools and rings, a push's chunk pool,
 * the TAP's offload buffers) for every device the service may serve,
 * since devices join on SIGHUP. Only what is used is ever touched.
 */
#define RSH_SVC_MEM_BASE_MB 64u
#define RSH_SVC_MEM_DEV_MB 40u

/* EAL: one worker lcore for the poll loop when there are two cores. */
static int
rsh_svc_eal(struct rshd *s)
{
	static char lcores[8], prefix[96], level[48], lib[48], mem[16];
	static char types[RSH_SVC_MAX_LOG_TYPES][80];
	char *eal[32];
	int n = 0;
	/* NVIDIA's -l scale: 0 none, 1 error, 2 warning, 3 notice, 4 debug. */
	static const int map[5] = { RTE_LOG_CRIT, RTE_LOG_ERR, RTE_LOG_WARNING,
				    RTE_LOG_NOTICE, RTE_LOG_DEBUG };

	snprintf(lcores, sizeof(lcores), "%s", sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? "0-1" : "0");
	snprintf(prefix, sizeof(prefix), "--file-prefix=%s", s->file_prefix);
	snprintf(level, sizeof(level), "--log-level=user.rshim.svc:%d", map[s->log_level]);
	/* The driver's open and ownership lines are info: -l 4 shows them. */
	snprintf(lib, sizeof(lib), "--log-level=pmd.rshim:%d",
		 s->log_level >= 4 ? (int)RTE_LOG_INFO : map[s->log_level] < (int)RTE_LOG_NOTICE ?
		 map[s->log_level] : (int)RTE_LOG_NOTICE);
	eal[n++] = "rshim-pmd";
	eal[n++] = "-l";
	eal[n++] = lcores;
	if (rsh_svc_have_hugepages()) {
		eal[n++] = "--in-memory";
	} else {
		eal[n++] = "--no-huge";
		eal[n++] = "--no-shconf";
		/* RSHIM_PMD_MEM_MB: a smaller size, for the tests' lack of
		 * memory. */
		snprintf(mem, sizeof(mem), "%u", getenv("RSHIM_PMD_MEM_MB") != NULL ?
			 (unsigned int)atoi(getenv("RSHIM_PMD_MEM_MB")) :
			 RSH_SVC_MEM_BASE_MB + RSH_SVC_MEM_DEV_MB * RSH_SVC_MAX_DEVS);
		eal[n++] = "-m";
		eal[n++] = mem;
	}
	eal[n++] = "--iova-mode=va";
	eal[n++] = "--no-pci";
	eal[n++] = prefix;
	eal[n++] = "--log-level=lib.eal:error";
	eal[n++] = "--log-level=lib.telemetry:error";
	eal[n++] = level;
	eal[n++] = lib;
	for (unsigned int i = 0; i < s->n_log_types; i++) {
		snprintf(types[i], sizeof(types[i]), "--log-level=%s", s->log_types[i]);
		eal[n++] = types[i];
	}
	eal[n] = NULL;
	if (rte_eal_init(n, eal) < 0) {
		fprintf(stderr, "rshim-pmd: DPDK EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* Log lines to syslog once daemonised. */
static ssize_t
rsh_svc_syslog_write(void *c, const char *buf, size_t size)
{
	(void)c;
	syslog(LOG_NOTICE, "%.*s", (int)size, buf);
	return (ssize_t)size;
}

/* Fork into the background unless -f; logs go to syslog then. */
static int
rsh_svc_daemonise(struct rshd *s)
{
	cookie_io_functions_t io = { .write = rsh_svc_syslog_write };
	FILE *f;

	if (s->foreground)
		return 0;
	if (daemon(0, 0) < 0) {
		fprintf(stderr, "rshim-pmd: cannot go to the background: %s\n", strerror(errno));
		return -1;
	}
	openlog("rshim-pmd", LOG_PID, LOG_DAEMON);
	f = fopencookie(NULL, "w", io);
	if (f != NULL) {
		setvbuf(f, NULL, _IOLBF, 0);
		s->log_stream = f;
		rte_openlog_stream(f);
	}
	return 0;
}

/* An absolute form of a path option (the daemon runs from "/"). */
static const char *
rsh_svc_abs(const char *path)
{
	static char store[3][PATH_MAX];
	static unsigned int used;
	char cwd[PATH_MAX];

	if (path[0] == '/' || used == 3 || getcwd(cwd, sizeof(cwd)) == NULL)
		return path;
	snprintf(store[used], PATH_MAX, "%.2000s/%.2000s", cwd, path);
	return store[used++];
}

/* The node directory must be there: nothing could be served otherwise. */
static int
rsh_svc_dev_dir_check(const struct rshd *s)
{
	struct stat st;
	int rc = stat(s->dev_dir, &st);

	if (rc == 0 && S_ISDIR(st.st_mode))
		return 0;
	rsh_svc_err("%s: %s (the rshimN directories go there: create it, or give another --dev-dir)",
		    s->dev_dir, rc < 0 ? strerror(errno) : "not a directory");
	return -1;
}

/* Load the configuration and apply the group; exit code on error. */
static int
rsh_svc_load(struct rshd *s, struct rsh_svc_conf *c, bool required)
{
	struct group *g;
	gid_t gid;

	if (rsh_svc_conf_load(s->conf_path, required, c) < 0)
		return RSH_SVC_EXIT_USAGE;
	if (s->force)
		c->force_mode = true;
	gid = (gid_t)-1;
	if (c->group[0] != '\0') {
		g = getgrnam(c->group);
		if (g == NULL) {
			rsh_svc_err("%s: NODE_GROUP %s: no such group (create it, or remove the line)",
				    s->conf_path, c->group);
			return RSH_SVC_EXIT_USAGE;
		}
		gid = g->gr_gid;
	}
	/* FUSE and relay threads read it while a SIGHUP reload runs. */
	__atomic_store_n(&s->group_gid, gid, __ATOMIC_RELAXED);
	s->pci_mapping = !c->has_vfio && !c->has_uio ? "direct" : !c->has_vfio ? "uio" : NULL;
	s->pci_mapping_from = !c->has_vfio && !c->has_uio ?
		"PCIE_HAS_VFIO 0 and PCIE_HAS_UIO 0" : "PCIE_HAS_VFIO 0";
	__atomic_store_n(&s->reset_delay_s, c->reset_delay_s, __ATOMIC_RELAXED);
	return 0;
}

/* SIGHUP: re-read the configuration (a bad file keeps the old one). */
static void
rsh_svc_reload(struct rshd *s, bool *pending)
{
	struct rsh_svc_conf c;
	gid_t old_gid = __atomic_load_n(&s->group_gid, __ATOMIC_RELAXED);

	if (rsh_svc_load(s, &c, s->conf_required) != 0) {
		__atomic_store_n(&s->group_gid, old_gid, __ATOMIC_RELAXED);
		__atomic_store_n(&s->reset_delay_s, s->conf.reset_delay_s, __ATOMIC_RELAXED);
		rsh_svc_err("%s: configuration not reloaded; the devices keep running as they were",
			    s->conf_path);
		return;
	}
	s->conf = c;
	RSH_SVC_LOG(NOTICE, "-", "SIGHUP: configuration re-read, rescanning");
	*pending = true;
}

/* The main loop: signals, rescans, health checks, once a second. */
static void
rsh_svc_loop(struct rshd *s, const sigset_t *set)
{
	uint64_t last_scan = rsh_mono_ns();
	bool pending = false;

	for (;;) {
		struct timespec ts = { 1, 0 };
		int sig = sigtimedwait(set, NULL, &ts);

		if (sig == SIGTERM || sig == SIGINT) {
			RSH_SVC_LOG(NOTICE, "-", "%s: stopping", strsignal(sig));
			return;
		}
		if (sig == SIGHUP)
			rsh_svc_reload(s, &pending);
		if (s->conf.rescan_s > 0 &&
		    rsh_mono_ns() - last_scan > s->conf.rescan_s * 1000000000ull)
			pending = true;
		if (pending) {
			rsh_svc_sync_devices(s);
			pending = false;
			last_scan = rsh_mono_ns();
		}
		rsh_svc_check_health(s);
		/* ifup tmfifo_netN children (relay.c). */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

/* Start serving; exit code. */
static int
rsh_svc_run(struct rshd *s, const sigset_t *set)
{
	int n;

	rsh_poll_opts_default(&s->poll);
	s->poll.no_rt_boost = !s->conf.rt_boost;
	s->poll.rt_cap_pct = s->conf.rt_cap_pct;
	if (rsh_svc_telemetry_register(s) < 0)
		RSH_SVC_LOG(WARNING, "-", "telemetry commands not registered");
	if (rsh_svc_relay_init(s) < 0)
		return RSH_SVC_EXIT_FAIL;
	n = rsh_svc_sync_devices(s);
	if (n < 0)
		return RSH_SVC_EXIT_FAIL;
	if (n == 0 && s->n_only > 0) {
		rsh_svc_err("none of the named devices could be served (see the lines above)");
		return RSH_SVC_EXIT_BUSY;
	}
	if (n == 0)
		RSH_SVC_LOG(NOTICE, "-", "no rshim function found; waiting (SIGHUP or RESCAN_INTERVAL rescans)");
	if (rsh_svc_relay_start(s) < 0)
		return RSH_SVC_EXIT_FAIL;
	rsh_svc_loop(s, set);
	return RSH_SVC_EXIT_OK;
}

/* DPDK's runtime directory of this process, once EAL ran. */
static char rsh_svc_rundir[PATH_MAX];

/* At exit, after EAL removed its telemetry socket: the empty runtime
 * directory goes too (nothing of the service is left in /run). */
static void
rsh_svc_rm_rundir(void)
{
	if (rsh_svc_rundir[0] != '\0' && rmdir(rsh_svc_rundir) < 0 && errno != ENOENT)
		fprintf(stderr, "rshim-pmd: cannot remove %s: %s\n", rsh_svc_rundir,
			strerror(errno));
}

/*
 * NVIDIA's command mode: -c (or --cmdmode) with no value of its own, i.e.
 * last, or followed by another option. "-c FILE" stays the configuration
 * file (the option's meaning before -C).
 */
static bool
rsh_svc_is_cmdmode(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cmdmode") == 0)
			return true;
		if (strcmp(argv[i], "-c") == 0)
			return i + 1 == argc || argv[i + 1][0] == '-';
		if (strcmp(argv[i], "--") == 0)
			break;
	}
	return false;
}

/* Entry point. */
int
main(int argc, char **argv)
{
	static struct rshd s = {
		.dev_dir = "/dev",
		.run_dir = RSH_SVC_LOCK_DIR,
		.file_prefix = "rshim-pmd",
		.log_level = 3,
		.relay_mu = PTHREAD_MUTEX_INITIALIZER,
		.pump.wake_fd = -1,
	};
	bool conf_given, nvidia = false;
	sigset_t set;
	int code;

	if (rsh_svc_is_cmdmode(argc, argv))
		return rsh_svc_cmdmode(&s, argc, argv);
	if (rsh_svc_parse(&s, argc, argv, &code) < 0)
		return code;
	conf_given = s.conf_path != NULL;
	if (!conf_given)
		s.conf_path = rsh_svc_conf_pick(&nvidia);
	if (nvidia) /* moving from NVIDIA's daemon: its file is read as it is */
		fprintf(stderr, "rshim-pmd: no rshim-pmd.conf: reading NVIDIA's %s (see rshim-pmd.conf(5))\n",
			s.conf_path);
	s.conf_required = conf_given;
	s.conf_path = rsh_svc_abs(s.conf_path);
	s.dev_dir = rsh_svc_abs(s.dev_dir);
	s.run_dir = rsh_svc_abs(s.run_dir);
	code = rsh_svc_load(&s, &s.conf, conf_given);
	if (code != 0)
		return code;
	if (rsh_svc_dev_dir_check(&s) < 0 || rsh_svc_run_dir_check(&s) < 0)
		return RSH_SVC_EXIT_FAIL;
	if (rsh_svc_daemonise(&s) < 0)
		return RSH_SVC_EXIT_FAIL;
	/* Before EAL registers its exit handlers: this one runs after them. */
	atexit(rsh_svc_rm_rundir);
	/* Every thread inherits the mask: signals arrive in the main loop. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* A log pipe whose reader went away (`rshim-pmd -f | head`), a TAP
	 * or socket peer gone: the write fails with EPIPE, the service
	 * stays (the default action would kill it and leave dead mounts). */
	signal(SIGPIPE, SIG_IGN);
	if (rsh_svc_eal(&s) < 0)
		return RSH_SVC_EXIT_FAIL;
	/* EAL logs to stdout and syslog by default: keep ours. */
	rte_openlog_stream(s.log_stream != NULL ? s.log_stream : stderr);
	code = rsh_svc_run(&s, &set);
	rsh_svc_stop_all(&s);
	RSH_SVC_LOG(NOTICE, "-", "stopped");
	snprintf(rsh_svc_rundir, sizeof(rsh_svc_rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	return code;
}
