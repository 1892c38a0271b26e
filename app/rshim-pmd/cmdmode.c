/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `rshim-pmd -c ...`: the command mode of NVIDIA's rshim daemon, with its
 * syntax and its output (hardware-notes §7.2):
 *
 *   -r, --reg ADDR.32|ADDR.64 [VALUE]  read or write one register
 *   -g, --get-debug                    UEFI debug flag (BREADCRUMB1 bit 30)
 *   -s, --set-debug 0|1                set it
 *   -p, --get-config NAME|all          BOOT_TIMEOUT, PCIE_RESET_DELAY,
 *                                      USB_RESET_DELAY, USB_TIMEOUT
 *   -m, --bfdump                       refused: see rshim-pmd(8)
 *
 * The device: -i N goes through the service's node DIR/rshimN/rshim (the
 * register ioctls bf-reg uses, §5.3); -d DEV goes through the node of the
 * service that holds DEV (its lock record names it), else opens DEV in
 * this process; neither means rshim0's node. Main thread only.
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
	rc = rsh_svc_ioc_addr(rsh_dev_gen(t->dev), addr, true, &bar);
	if (rc == 0) {
		int n = snprintf(spec, sizeof(spec), "0x%08x.%u", bar, size * 8);

		if (wr)
			snprintf(spec + n, sizeof(spec) - n, "=0x%" PRIx64, *v);
		rc = rsh_reg_req_parse((int)rsh_dev_gen(t->dev), spec, &req);
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

/* -r ADDR.SIZE [VALUE]: "[0xADDR] -> 0x%016x" or "[0xADDR] <- ...". */
static int
rsh_cmd_reg(struct rsh_cmd_tgt *t, const char *spec, const char *value)
{
	char tmp[64], *dot;
	uint64_t addr, v = 0;
	unsigned long bits;
	int rc;

	snprintf(tmp, sizeof(tmp), "%s", spec);
	dot = strchr(tmp, '.');
	if (dot == NULL) {
		fprintf(stderr, "rshim-pmd: -r %s: expected ADDR.32 or ADDR.64 [VALUE]\n", spec);
		return -EINVAL;
	}
	*dot++ = '\0';
	bits = strtoul(dot, NULL, 10);
	if ((bits != 32 && bits != 64) || rsh_cmd_num(tmp, &addr) < 0 || addr > UINT32_MAX ||
	    (value != NULL && rsh_cmd_num(value, &v) < 0)) {
		fprintf(stderr, "rshim-pmd: -r %s%s%s: expected ADDR.32 or ADDR.64 [VALUE], numbers in C syntax\n",
			spec, value != NULL ? " " : "", value != NULL ? value : "");
		return -EINVAL;
	}
	rc = rsh_cmd_rw(t, (uint32_t)addr, bits / 8, value != NULL, &v);
	if (rc < 0) {
		fprintf(stderr, "rshim-pmd: register 0x%" PRIx64 ": %s\n", addr,
			t->fd < 0 ? rsh_last_error() : strerror(-rc));
		return rc;
	}
	printf("[0x%" PRIx64 "] %s 0x%016" PRIx64 "\n", addr, value != NULL ? "<-" : "->", v);
	return 0;
}

/* -g / -s: the UEFI debug flag in BREADCRUMB1. */
static int
rsh_cmd_debug(struct rsh_cmd_tgt *t, bool set, bool on)
{
	uint64_t v = 0;
	int rc = rsh_cmd_rw(t, RSH_CMD_BREADCRUMB1, 8, false, &v);

	if (rc == 0 && !set) {
		printf("0x%x\n", (v & RSH_CMD_DEBUG_BIT) != 0);
		return 0;
	}
	if (rc == 0) {
		v = on ? v | RSH_CMD_DEBUG_BIT : v & ~RSH_CMD_DEBUG_BIT;
		rc = rsh_cmd_rw(t, RSH_CMD_BREADCRUMB1, 8, true, &v);
	}
	if (rc < 0)
		fprintf(stderr, "rshim-pmd: --%s-debug failed: %s\n", set ? "set" : "get",
			t->fd < 0 ? rsh_last_error() : strerror(-rc));
	return rc;
}

/* -p NAME|all: the configuration's values, as NVIDIA prints them. */
static int
rsh_cmd_config(const struct rsh_svc_conf *c, const char *name)
{
	const struct { const char *key; int v; } keys[] = {
		{ "BOOT_TIMEOUT", (int)c->boot_timeout_s },
		{ "PCIE_RESET_DELAY", c->reset_delay_s >= 0 ? c->reset_delay_s : 5 },
		{ "USB_RESET_DELAY", (int)c->usb_reset_delay_s },
		{ "USB_TIMEOUT", (int)c->usb_timeout_s },
	};
	bool all = strcmp(name, "all") == 0;
	int found = 0;

	for (unsigned int i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (all)
			printf("%-18s%d\n", keys[i].key, keys[i].v);
		else if (strcmp(name, keys[i].key) == 0)
			printf("%d\n", keys[i].v);
		found += all || strcmp(name, keys[i].key) == 0;
	}
	if (found == 0)
		fprintf(stderr, "rshim-pmd: -p %s: expected BOOT_TIMEOUT, PCIE_RESET_DELAY, USB_RESET_DELAY, USB_TIMEOUT or all\n",
			name);
	return found > 0 ? 0 : -EINVAL;
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
rsh_cmd_open(struct rsh_svc *s, const char *devstr, int index, struct rsh_cmd_tgt *t)
{
	struct rsh_svc_lock_holder h;
	struct rsh_open_opts o = { 0 };
	char path[PATH_MAX];

	if (devstr != NULL && index < 0) {
		if (rsh_svc_lock_held(s->run_dir, devstr, &h) == 1 &&
		    sscanf(h.name, "rshim%d", &index) != 1) {
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
"Usage: rshim-pmd -c [-i N | -d DEVICE] OPERATION  (NVIDIA rshim's command mode)\n"
"  -r, --reg ADDR.32|ADDR.64 [VALUE]  read (or write) a register\n"
"  -g, --get-debug                    print the UEFI debug flag\n"
"  -s, --set-debug 0|1                set the UEFI debug flag\n"
"  -p, --get-config NAME|all          print a configuration value\n"
"  -m, --bfdump                       not available in rshim-pmd\n"
"  -i, --index N                      through /dev/rshimN/rshim (default 0)\n"
"  -d, --device DEV                   DEV: through its service's node, else directly\n"
"  -C, --config FILE                  the configuration -p reads\n";

/* The operation asked for (the last one given wins, as NVIDIA's runs in
 * order; rshim-pmd runs one). */
struct rsh_cmd_op {
	int op;
	const char *arg, *value;
};

/* Parse the command-mode options; -1 with *code when main must return. */
static int
rsh_cmd_parse(struct rsh_svc *s, int argc, char **argv, struct rsh_cmd_op *op,
	      const char **devstr, int *index, int *code)
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
	int c;

	optind = 1;
	*code = RSH_SVC_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "cgs:mp:r:i:d:C:hfFnl:b:", opts, NULL)) != -1) {
		switch (c) {
		case 'g': case 's': case 'm': case 'p': case 'r':
			op->op = c;
			op->arg = optarg;
			op->value = c == 'r' && optind < argc && argv[optind][0] != '-' ?
				    argv[optind] : NULL;
			break;
		case 'i': *index = atoi(optarg); break;
		case 'd': *devstr = strncmp(optarg, "pcie-", 5) == 0 ? optarg + 5 : optarg; break;
		case 'C': s->conf_path = optarg; break;
		case 'D': s->dev_dir = optarg; break;
		case 'R': s->run_dir = optarg; break;
		case 'h': fputs(rsh_cmd_usage, stdout); *code = 0; return -1;
		case 'c': case 'f': case 'F': case 'n': case 'l': case 'b': break;
		default: fputs(rsh_cmd_usage, stderr); return -1;
		}
	}
	if (op->op == 0) {
		fputs(rsh_cmd_usage, stderr);
		return -1;
	}
	return 0;
}

/* Run command mode; the exit code (0 done, 1 failed, 2 usage). */
int
rsh_svc_cmdmode(struct rsh_svc *s, int argc, char **argv)
{
	struct rsh_cmd_tgt t = { .fd = -1, .dev = NULL };
	struct rsh_cmd_op op = { 0 };
	struct rsh_svc_conf conf;
	const char *devstr = NULL;
	int index = -1, code, rc;

	if (rsh_cmd_parse(s, argc, argv, &op, &devstr, &index, &code) < 0)
		return code;
	if (op.op == 'p')
		return rsh_svc_conf_load(s->conf_path, false, &conf) < 0 ? RSH_SVC_EXIT_USAGE :
		       rsh_cmd_config(&conf, op.arg) < 0 ? RSH_SVC_EXIT_USAGE : 0;
	if (op.op == 'm') {
		fprintf(stderr, "rshim-pmd: -m (bfdump) is not available in rshim-pmd: read the DPU's log with cat /dev/rshimN/misc at DISPLAY_LEVEL 2, or its console\n");
		return RSH_SVC_EXIT_FAIL;
	}
	if (op.op == 's' && strcmp(op.arg, "0") != 0 && strcmp(op.arg, "1") != 0) {
		fprintf(stderr, "rshim-pmd: -s %s: expected 0 or 1\n", op.arg);
		return RSH_SVC_EXIT_USAGE;
	}
	if (rsh_cmd_open(s, devstr, index, &t) < 0)
		return RSH_SVC_EXIT_FAIL;
	if (op.op == 'r')
		rc = rsh_cmd_reg(&t, op.arg, op.value);
	else
		rc = rsh_cmd_debug(&t, op.op == 's', op.op == 's' && op.arg[0] == '1');
	if (t.fd >= 0)
		close(t.fd);
	if (t.dev != NULL) {
		rsh_dev_close(t.dev);
		rte_eal_cleanup();
	}
	return rc == -EINVAL ? RSH_SVC_EXIT_USAGE : rc < 0 ? RSH_SVC_EXIT_FAIL : 0;
}
