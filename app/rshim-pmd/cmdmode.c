/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `rshim-pmd -c ...`: the command mode of NVIDIA's rshim daemon, with its
 * syntax and its output (hardware-notes §7.2):
 *
 *   -r, --reg ADDR.32|ADDR.64 [VALUE]  read or write one register
 *   -g, --get-debug                    UEFI debug flag (BREADCRUMB1 bit 30)
 *   -s, --set-debug N                  set it (N non-zero) or clear it, N
 *                                      read as NVIDIA's atol() reads it
 *   -p, --get-config NAME|all          BOOT_TIMEOUT, PCIE_RESET_DELAY,
 *                                      USB_RESET_DELAY, USB_TIMEOUT
 *   -m, --bfdump                       refused: see rshim-pmd(8)
 *
 * Every operation given runs, in the order given, as NVIDIA's; the whole
 * line is checked first (a typo in the last operation runs none), and the
 * first operation that fails ends the run. -p reads the configuration the
 * service would read (-C FILE names another).
 *
 * The device: -i N goes through the service's node DIR/rshimN/rshim (the
 * register ioctls bf-reg uses, §5.3); -d DEV goes through the node of the
 * service that holds DEV (its lock record names it), else opens DEV in
 * this process; neither means rshim0's node. It is opened at the first
 * operation that needs it. Main thread only.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rte_eal.h>

#include "rsh_svc_lock.h"
#include "svc.h"

#define RSH_CMD_IOC_READ2 0xC00D5200u
#define RSH_CMD_IOC_WRITE2 0xC00D5201u
#define RSH_CMD_DEBUG_BIT (1ull << 30) /* BREADCRUMB1: UEFI debug enable */
#define RSH_CMD_BREADCRUMB1 0x00000518u /* channel 0, every generation */

#define RSH_CMD_MAX_OPS 32 /* operations in one command line */

struct rsh_cmd_msg2 {
	uint32_t addr;
	uint64_t data;
	uint8_t size;
} __attribute__((packed));

/* Where the commands go: a node (fd) or a device of this process. */
struct rsh_cmd_tgt {
	int fd;
	struct rsh_dev *dev;
};

/* One register access, addr in NVIDIA's form (channel<<16|offset or a BF3
 * global address), size 4 or 8 bytes. */
static int
rsh_cmd_rw(struct rsh_cmd_tgt *t, uint32_t addr, unsigned int size, bool wr,
	   uint64_t *v)
{
	struct rsh_cmd_msg2 m = { .addr = addr, .data = wr ? *v : 0, .size = (uint8_t)size };
	struct rsh_dev_info inf;
	struct rsh_reg_req req;
	char spec[64];
	uint32_t bar = 0;
	int rc;

	if (t->fd >= 0) {
		if (ioctl(t->fd, wr ? RSH_CMD_IOC_WRITE2 : RSH_CMD_IOC_READ2, &m) < 0)
			return -errno;
		*v = wr ? *v : m.data;
		return 0;
	}
	rsh_dev_get_info(t->dev, &inf);
	rc = rsh_reg_ioc_addr(inf.gen, addr, true, &bar);
	if (rc == 0) {
		int n = snprintf(spec, sizeof(spec), "0x%08x.%u", bar, size * 8);

		if (wr)
			snprintf(spec + n, sizeof(spec) - n, "=0x%" PRIx64, *v);
		rc = rsh_reg_req_parse(inf.gen, spec, &req);
	}
	if (rc == 0)
		rc = rsh_dev_reg_req(t->dev, &req);
	if (rc == 0 && !wr)
		*v = req.value;
	return rc;
}

/* A number in C syntax (0x hex, 0 octal, decimal), as NVIDIA's. */
static int
rsh_cmd_num(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno != 0 || end == s || *end != '\0' ? -EINVAL : 0;
}

/* One operation of the command line, checked before any runs. */
struct rsh_cmd_op {
	int op;             /* 'r', 'g', 's' or 'p' */
	const char *arg;    /* as given: -r's ADDR.SIZE, -p's NAME */
	uint32_t addr;      /* -r */
	unsigned int size;  /* -r: 4 or 8 bytes */
	bool wr;            /* -r with a VALUE */
	uint64_t value;     /* -r's VALUE; -s: 1 set, 0 clear */
};

/* The command line: its operations in order, and where they go. */
struct rsh_cmd_line {
	struct rsh_cmd_op ops[RSH_CMD_MAX_OPS];
	unsigned int n_ops;
	const char *devstr;  /* -d */
	int index;           /* -i, -1 when not given */
	bool conf_given;     /* -C */
};

/* The configuration keys -p prints, in NVIDIA's order. */
static const char *const rsh_cmd_keys[] = { "BOOT_TIMEOUT", "PCIE_RESET_DELAY",
					    "USB_RESET_DELAY", "USB_TIMEOUT" };
#define RSH_CMD_NKEYS (sizeof(rsh_cmd_keys) / sizeof(rsh_cmd_keys[0]))

/* -r ADDR.SIZE [VALUE] checked into op. */
static int
rsh_cmd_reg_parse(struct rsh_cmd_op *op, const char *spec, const char *value)
{
	char tmp[64], *dot;
	uint64_t addr = 0;
	unsigned long bits = 0;

	snprintf(tmp, sizeof(tmp), "%s", spec);
	dot = strchr(tmp, '.');
	if (dot != NULL) {
		*dot++ = '\0';
		bits = strtoul(dot, NULL, 10);
	}
	if ((bits != 32 && bits != 64) || rsh_cmd_num(tmp, &addr) < 0 || addr > UINT32_MAX ||
	    (value != NULL && rsh_cmd_num(value, &op->value) < 0)) {
		fprintf(stderr, "rshim-pmd: -r %s%s%s: expected ADDR.32 or ADDR.64 [VALUE], numbers in C syntax\n",
			spec, value != NULL ? " " : "", value != NULL ? value : "");
		return -EINVAL;
	}
	op->addr = (uint32_t)addr;
	op->size = (unsigned int)bits / 8;
	op->wr = value != NULL;
	return 0;
}

/* One operation option into the line, checked; -EINVAL (usage) or
 * -EPERM (refused) with one line on stderr. */
static int
rsh_cmd_op_add(struct rsh_cmd_line *l, int c, const char *arg, const char *value)
{
	struct rsh_cmd_op *op = &l->ops[l->n_ops];
	bool known = false;

	if (c == 'm') {
		fprintf(stderr, "rshim-pmd: -m (bfdump) is not available in rshim-pmd; the DPU's boot log is in /dev/rshimN/misc at DISPLAY_LEVEL 2 and its console output is held for the next opener (a dump for NVIDIA support: see rshim-pmd(8))\n");
		return -EPERM;
	}
	if (l->n_ops == RSH_CMD_MAX_OPS) {
		fprintf(stderr, "rshim-pmd: at most %u operations in one command\n",
			RSH_CMD_MAX_OPS);
		return -EINVAL;
	}
	memset(op, 0, sizeof(*op));
	op->op = c;
	op->arg = arg;
	if (c == 'r' && rsh_cmd_reg_parse(op, arg, value) < 0)
		return -EINVAL;
	/* NVIDIA's -s takes atol() of its argument: non-zero sets the flag,
	 * anything else (0, or no leading number) clears it. */
	if (c == 's')
		op->value = strtoll(arg, NULL, 10) != 0;
	for (unsigned int i = 0; c == 'p' && i < RSH_CMD_NKEYS; i++)
		known |= strcmp(arg, rsh_cmd_keys[i]) == 0;
	if (c == 'p' && !known && strcmp(arg, "all") != 0) {
		fprintf(stderr, "rshim-pmd: -p %s: expected BOOT_TIMEOUT, PCIE_RESET_DELAY, USB_RESET_DELAY, USB_TIMEOUT or all\n",
			arg);
		return -EINVAL;
	}
	l->n_ops++;
	return 0;
}

/* -r: "[0xADDR] -> 0x%016x" or "[0xADDR] <- ...". */
static int
rsh_cmd_reg(struct rsh_cmd_tgt *t, const struct rsh_cmd_op *op)
{
	uint64_t v = op->value;
	int rc = rsh_cmd_rw(t, op->addr, op->size, op->wr, &v);

	if (rc < 0) {
		fprintf(stderr, "rshim-pmd: register 0x%" PRIx32 ": %s\n", op->addr,
			t->fd < 0 ? rsh_last_error() : strerror(-rc));
		return rc;
	}
	printf("[0x%" PRIx32 "] %s 0x%016" PRIx64 "\n", op->addr, op->wr ? "<-" : "->", v);
	return 0;
}

/* -g / -s: the UEFI debug flag in BREADCRUMB1. */
static int
rsh_cmd_debug(struct rsh_cmd_tgt *t, const struct rsh_cmd_op *op)
{
	bool set = op->op == 's';
	uint64_t v = 0;
	int rc = rsh_cmd_rw(t, RSH_CMD_BREADCRUMB1, 8, false, &v);

	if (rc == 0 && !set) {
		printf("0x%x\n", (v & RSH_CMD_DEBUG_BIT) != 0);
		return 0;
	}
	if (rc == 0) {
		v = op->value != 0 ? v | RSH_CMD_DEBUG_BIT : v & ~RSH_CMD_DEBUG_BIT;
		rc = rsh_cmd_rw(t, RSH_CMD_BREADCRUMB1, 8, true, &v);
	}
	if (rc < 0)
		fprintf(stderr, "rshim-pmd: --%s-debug failed: %s\n", set ? "set" : "get",
			t->fd < 0 ? rsh_last_error() : strerror(-rc));
	return rc;
}

/* -p NAME|all: the configuration's values, as NVIDIA prints them. */
static void
rsh_cmd_config(const struct rsh_svc_conf *c, const char *name)
{
	const int v[RSH_CMD_NKEYS] = {
		(int)c->boot_timeout_s, c->reset_delay_s >= 0 ? c->reset_delay_s : 5,
		(int)c->usb_reset_delay_s, (int)c->usb_timeout_s,
	};
	bool all = strcmp(name, "all") == 0;

	for (unsigned int i = 0; i < RSH_CMD_NKEYS; i++) {
		if (all)
			printf("%-18s%d\n", rsh_cmd_keys[i], v[i]);
		else if (strcmp(name, rsh_cmd_keys[i]) == 0)
			printf("%d\n", v[i]);
	}
}

/* EAL for a device opened in this process: private, quiet, small. */
static int
rsh_cmd_eal(void)
{
	char prefix[48];
	char *eal[] = { "rshim-pmd", "-l", "0", "--no-huge", "--no-shconf", "-m", "64",
			"--no-pci", "--no-telemetry", "--log-level=lib.eal:error",
			"--log-level=pmd.rshim*:error", prefix, NULL };

	snprintf(prefix, sizeof(prefix), "--file-prefix=rshim-pmd-cmd-%d", (int)getpid());
	return rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) < 0 ? -1 : 0;
}

/* Open the target: a node path, or the device itself. */
static int
rsh_cmd_open(struct rshd *s, const char *devstr, int index, struct rsh_cmd_tgt *t)
{
	struct rsh_svc_lock_holder h;
	struct rsh_open_opts o = { 0 };
	char path[PATH_MAX];

	if (devstr != NULL && index < 0) {
		if (rsh_svc_lock_held(s->run_dir, devstr, &h) == 1 &&
		    (index = rsh_svc_name_index(h.name)) < 0) {
			fprintf(stderr, "rshim-pmd: %s is held by pid %ld, which names no node\n",
				devstr, h.pid);
			return -EBUSY;
		}
	}
	if (devstr != NULL && index < 0) {
		if (rsh_cmd_eal() < 0 || rsh_dev_open(devstr, &o, &t->dev) < 0) {
			fprintf(stderr, "rshim-pmd: %s: %s\n", devstr, rsh_last_error());
			return -ENODEV;
		}
		return 0;
	}
	snprintf(path, sizeof(path), "%s/rshim%d/rshim", s->dev_dir, index < 0 ? 0 : index);
	t->fd = open(path, O_RDWR | O_CLOEXEC);
	if (t->fd < 0) {
		fprintf(stderr, "rshim-pmd: %s: %s (is the service running? give -i N or -d DEVICE)\n",
			path, strerror(errno));
		return -ENODEV;
	}
	return 0;
}

static const char rsh_cmd_usage[] =
"Usage: rshim-pmd -c [-i N | -d DEVICE] OPERATION...  (NVIDIA rshim's command mode)\n"
"  -r, --reg ADDR.32|ADDR.64 [VALUE]  read (or write) a register\n"
"  -g, --get-debug                    print the UEFI debug flag\n"
"  -s, --set-debug N                  set (N non-zero) or clear the UEFI debug flag\n"
"  -p, --get-config NAME|all          print a configuration value\n"
"  -m, --bfdump                       not available in rshim-pmd\n"
"  -i, --index N                      through /dev/rshimN/rshim (default 0)\n"
"  -d, --device DEV                   DEV: through its service's node, else directly\n"
"  -C, --config FILE                  the configuration -p reads\n"
"Operations run in the order given; the first that fails ends the run.\n";

/* Parse the command-mode options; -1 with *code when main must return. */
static int
rsh_cmd_parse(struct rshd *s, int argc, char **argv, struct rsh_cmd_line *l, int *code)
{
	static const struct option opts[] = {
		{ "cmdmode", no_argument, NULL, 'c' }, { "get-debug", no_argument, NULL, 'g' },
		{ "set-debug", required_argument, NULL, 's' }, { "bfdump", no_argument, NULL, 'm' },
		{ "get-config", required_argument, NULL, 'p' }, { "reg", required_argument, NULL, 'r' },
		{ "index", required_argument, NULL, 'i' }, { "device", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'C' }, { "dev-dir", required_argument, NULL, 'D' },
		{ "run-dir", required_argument, NULL, 'R' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *value;
	int c, rc;

	optind = 1;
	*code = RSH_SVC_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "cgs:mp:r:i:d:C:hfFnl:b:", opts, NULL)) != -1) {
		switch (c) {
		case 'g': case 's': case 'm': case 'p': case 'r':
			/* -r's VALUE: the next argument, unless it is an option. */
			value = c == 'r' && optind < argc && argv[optind][0] != '-' ?
				argv[optind] : NULL;
			rc = rsh_cmd_op_add(l, c, optarg, value);
			if (rc < 0) {
				*code = rc == -EPERM ? RSH_SVC_EXIT_FAIL : RSH_SVC_EXIT_USAGE;
				return -1;
			}
			break;
		case 'i': l->index = atoi(optarg); break;
		case 'd': l->devstr = strncmp(optarg, "pcie-", 5) == 0 ? optarg + 5 : optarg; break;
		case 'C': s->conf_path = optarg; l->conf_given = true; break;
		case 'D': s->dev_dir = optarg; break;
		case 'R': s->run_dir = optarg; break;
		case 'h': fputs(rsh_cmd_usage, stdout); *code = 0; return -1;
		case 'c': case 'f': case 'F': case 'n': case 'l': case 'b': break;
		default: fputs(rsh_cmd_usage, stderr); return -1;
		}
	}
	if (l->n_ops == 0) {
		fputs(rsh_cmd_usage, stderr);
		return -1;
	}
	return 0;
}

/* The configuration -p prints: the one the service would read, or -C's. */
static int
rsh_cmd_conf(struct rshd *s, const struct rsh_cmd_line *l, struct rsh_svc_conf *conf)
{
	bool nvidia;

	for (unsigned int i = 0; i < l->n_ops; i++) {
		if (l->ops[i].op != 'p')
			continue;
		if (!l->conf_given)
			s->conf_path = rsh_svc_conf_pick(&nvidia);
		return rsh_svc_conf_load(s->conf_path, l->conf_given, conf);
	}
	return 0;
}

/* Run the operations in order, the device opened at the first that needs
 * it; the first failure ends the run. */
static int
rsh_cmd_run(struct rshd *s, const struct rsh_cmd_line *l, const struct rsh_svc_conf *conf,
	    struct rsh_cmd_tgt *t)
{
	int rc = 0;

	for (unsigned int i = 0; i < l->n_ops && rc == 0; i++) {
		const struct rsh_cmd_op *op = &l->ops[i];

		if (op->op == 'p') {
			rsh_cmd_config(conf, op->arg);
			continue;
		}
		if (t->fd < 0 && t->dev == NULL &&
		    rsh_cmd_open(s, l->devstr, l->index, t) < 0)
			return -ENODEV;
		rc = op->op == 'r' ? rsh_cmd_reg(t, op) : rsh_cmd_debug(t, op);
		/* Each line reaches a pipe in the order the operations ran. */
		fflush(stdout);
	}
	return rc;
}

/* Run command mode; the exit code (0 done, 1 failed, 2 usage). */
int
rsh_svc_cmdmode(struct rshd *s, int argc, char **argv)
{
	struct rsh_cmd_line l = { .n_ops = 0, .index = -1 };
	struct rsh_cmd_tgt t = { .fd = -1, .dev = NULL };
	struct rsh_svc_conf conf;
	int code, rc;

	rsh_svc_conf_default(&conf);
	if (rsh_cmd_parse(s, argc, argv, &l, &code) < 0)
		return code;
	if (rsh_cmd_conf(s, &l, &conf) < 0)
		return RSH_SVC_EXIT_USAGE;
	rc = rsh_cmd_run(s, &l, &conf, &t);
	if (t.fd >= 0)
		close(t.fd);
	if (t.dev != NULL) {
		rsh_dev_close(t.dev);
		rte_eal_cleanup();
	}
	return rc == -EINVAL ? RSH_SVC_EXIT_USAGE : rc < 0 ? RSH_SVC_EXIT_FAIL : 0;
}
