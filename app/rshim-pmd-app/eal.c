/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting DPDK's EAL: the app's defaults (in-memory, a main and a poll
 * lcore, no PCI bus scan, hugepages when reserved) merged with what the
 * user gave before "--". A user option replaces the default of its kind
 * and everything else is kept, so one --log-level does not bring back the
 * PCI bus scan of unrelated host NICs. Memory has two kinds: a size of
 * yours (-m, --socket-mem) keeps our hugepage/no-huge choice, a mode of
 * yours (--no-huge, --in-memory, --file-prefix...) replaces it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "app.h"
#include "rsh_sys.h"

#define RSH_APP_MAX_EAL_ARGS 96

/* Kinds of EAL option the app has a default for. */
enum rsh_eal_kind {
	RSH_EAL_OTHER = 0,
	RSH_EAL_LCORES,   /* -l, -c, --lcores */
	RSH_EAL_MEMSIZE,  /* -m, --socket-mem */
	RSH_EAL_MEMMODE,  /* --no-huge, --in-memory, --file-prefix, --huge-dir, --no-shconf */
	RSH_EAL_IOVA,     /* --iova-mode */
	RSH_EAL_PCI,      /* --no-pci, -a, -b, --allow, --block */
	RSH_EAL_TELEMETRY,
	RSH_EAL_KINDS,
};

/* Spellings of each kind (an option, or its "--name=" form). */
static const struct {
	const char *name;
	enum rsh_eal_kind kind;
} rsh_eal_opts[] = {
	{ "-l", RSH_EAL_LCORES }, { "-c", RSH_EAL_LCORES },
	{ "--lcores", RSH_EAL_LCORES }, { "--main-lcore", RSH_EAL_LCORES },
	{ "-m", RSH_EAL_MEMSIZE }, { "--socket-mem", RSH_EAL_MEMSIZE },
	{ "--no-huge", RSH_EAL_MEMMODE }, { "--in-memory", RSH_EAL_MEMMODE },
	{ "--file-prefix", RSH_EAL_MEMMODE }, { "--huge-dir", RSH_EAL_MEMMODE },
	{ "--no-shconf", RSH_EAL_MEMMODE },
	{ "--iova-mode", RSH_EAL_IOVA },
	{ "--no-pci", RSH_EAL_PCI }, { "-a", RSH_EAL_PCI }, { "-b", RSH_EAL_PCI },
	{ "--allow", RSH_EAL_PCI }, { "--block", RSH_EAL_PCI },
	{ "--telemetry", RSH_EAL_TELEMETRY }, { "--no-telemetry", RSH_EAL_TELEMETRY },
};

/* The kind of one EAL argument ("-l", "-l0-1", "--lcores=..." ...). */
static enum rsh_eal_kind
rsh_eal_kind_of(const char *arg)
{
	for (unsigned int i = 0; i < RTE_DIM(rsh_eal_opts); i++) {
		const char *n = rsh_eal_opts[i].name;
		size_t len = strlen(n);

		if (strncmp(arg, n, len) != 0)
			continue;
		if (arg[len] == '\0' || arg[len] == '=' ||
		    (n[1] != '-' && len == 2))   /* -l0-1 */
			return rsh_eal_opts[i].kind;
	}
	return RSH_EAL_OTHER;
}

/* "0000:03:00.2" of a PCI device string, or false (emulated, unknown). */
static bool
rsh_app_dev_bdf(const char *dev, char *bdf, size_t len)
{
	unsigned int d, b, s, f;

	if (dev == NULL || strncmp(dev, "sim:", 4) == 0)
		return false;
	if (strncmp(dev, "pcie-", 5) == 0)
		dev += 5;
	if (sscanf(dev, "%x:%x:%x.%x", &d, &b, &s, &f) == 4)
		snprintf(bdf, len, "%04x:%02x:%02x.%x", d, b, s, f);
	else if (sscanf(dev, "%x:%x.%x", &b, &s, &f) == 3)
		snprintf(bdf, len, "0000:%02x:%02x.%x", b, s, f);
	else
		return false;
	return true;
}

/* First number of a file under the sysfs root, or -1. */
static long
rsh_app_sysfs_long(const char *root, const char *path)
{
	char full[512];
	long v = -1;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root ? root : "/sys", path);
	f = fopen(full, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * "--lcores=0@M,1@W" with W a CPU of the device's NUMA node (the poll
 * lcore is the first worker) and M another CPU; false when the device has
 * no node or the node has no usable CPU.
 */
static long rsh_app_numa_node = -1, rsh_app_numa_cpu = -1;

static bool
rsh_app_numa_lcores(const struct rsh_app *app, char *out, size_t len)
{
	char bdf[32], path[128];
	long node, worker, main_cpu = -1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpu < 2 || !rsh_app_dev_bdf(app->device, bdf, sizeof(bdf)))
		return false;
	snprintf(path, sizeof(path), "/bus/pci/devices/%s/numa_node", bdf);
	node = rsh_app_sysfs_long(app->open.sysfs_root, path);
	if (node < 0)
		return false;
	snprintf(path, sizeof(path), "/devices/system/node/node%ld/cpulist", node);
	worker = rsh_app_sysfs_long(app->open.sysfs_root, path);
	if (worker < 0 || worker >= ncpu)
		return false;
	main_cpu = worker == 0 ? 1 : 0;
	snprintf(out, len, "--lcores=0@%ld,1@%ld", main_cpu, worker);
	rsh_app_numa_node = node;
	rsh_app_numa_cpu = worker;
	return true;
}

/* Memory defaults: hugepages when reserved, else ordinary memory (256 MB
 * unless the user gave a size). */
static int
rsh_app_eal_memory(const struct rsh_app *app, bool size_given, char **eal, int n)
{
	const char *nh = getenv("RSHIM_PMD_NO_HUGE");

	if ((nh == NULL || strcmp(nh, "1") != 0) && rsh_have_hugepages()) {
		eal[n++] = "--in-memory";
		return n;
	}
	if ((nh == NULL || strcmp(nh, "1") != 0) && !app->quiet)
		fprintf(stderr, "rshim-pmd-app: no hugepages reserved: using ordinary memory (--no-huge); reserve some with: dpdk-hugepages.py -p 2M -r 256M\n");
	eal[n++] = "--no-huge";
	eal[n++] = "--no-shconf";
	if (!size_given) {
		eal[n++] = "-m";
		eal[n++] = "256";
	}
	return n;
}

/* Append our default of each kind the user did not give. */
static int
rsh_app_eal_defaults(const struct rsh_app *app, const bool *given, char **eal,
		     int n)
{
	static char lcores[48];

	if (!given[RSH_EAL_LCORES]) {
		if (rsh_app_numa_lcores(app, lcores, sizeof(lcores))) {
			eal[n++] = lcores;
		} else {
			eal[n++] = "-l";
			eal[n++] = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? "0-1" : "0";
		}
	}
	if (!given[RSH_EAL_MEMMODE])
		n = rsh_app_eal_memory(app, given[RSH_EAL_MEMSIZE], eal, n);
	if (!given[RSH_EAL_IOVA])
		eal[n++] = "--iova-mode=va";
	/* No DPDK PCI driver claims the rshim function; VFIO is used through
	 * rte_vfio_* directly, so the bus scan is never needed (and must not
	 * touch other devices of the host). */
	if (!given[RSH_EAL_PCI])
		eal[n++] = "--no-pci";
	if (!given[RSH_EAL_TELEMETRY])
		eal[n++] = "--no-telemetry";
	/* First, so that a --log-level of the user's comes later and wins. */
	eal[n++] = "--log-level=lib.eal:error";
	return n;
}

/* Build argv for EAL: program, our defaults, then the user's options. */
static int
rsh_app_eal_args(const struct rsh_app *app, int eal_argc, char **eal_argv,
		 char **eal)
{
	bool given[RSH_EAL_KINDS] = { false };
	int n = 0;

	for (int i = 0; i < eal_argc; i++)
		given[rsh_eal_kind_of(eal_argv[i])] = true;
	eal[n++] = (char *)app->prog;
	n = rsh_app_eal_defaults(app, given, eal, n);
	for (int i = 0; i < eal_argc && n < RSH_APP_MAX_EAL_ARGS - 1; i++)
		eal[n++] = eal_argv[i];
	eal[n] = NULL;
	return n;
}

/* Log the arguments EAL was started with (user.rshim.app:debug). */
static void
rsh_app_eal_log_args(char **eal, int n)
{
	char line[1024];
	size_t off = 0;

	line[0] = '\0';
	for (int i = 1; i < n && off < sizeof(line); i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, " %s", eal[i]);
	RSH_APP_LOG(DEBUG, "EAL arguments:%s", line);
}

/* Start EAL with the merged arguments. */
int
rsh_app_eal_init(struct rsh_app *app, int eal_argc, char **eal_argv)
{
	char *eal[RSH_APP_MAX_EAL_ARGS], *copy[RSH_APP_MAX_EAL_ARGS];
	int n, rc;

	if (eal_argc > RSH_APP_MAX_EAL_ARGS - 16) {
		rsh_app_err("too many EAL options (%d, at most %d)", eal_argc,
			    RSH_APP_MAX_EAL_ARGS - 16);
		return -1;
	}
	n = rsh_app_eal_args(app, eal_argc, eal_argv, eal);
	/* --quiet: library notices off unless the user's --log-level says. */
	if (app->quiet) {
		rte_log_set_level_pattern("pmd.rshim*", RTE_LOG_WARNING);
		rte_log_set_level_pattern("user.rshim*", RTE_LOG_WARNING);
	}
	/* rte_eal_init() permutes its argv: keep our own order for the log. */
	memcpy(copy, eal, sizeof(eal[0]) * (size_t)(n + 1));
	rc = rte_eal_init(n, eal);
	if (rc < 0) {
		rsh_app_err("DPDK EAL initialisation failed: %s (try RSHIM_PMD_NO_HUGE=1, or give EAL options before --)",
			    rte_strerror(rte_errno));
		return -1;
	}
	/* EAL logs to stdout by default: keep stdout for the app's output. */
	rte_openlog_stream(stderr);
	rsh_app_eal_log_args(copy, n);
	if (rsh_app_numa_node >= 0)
		RSH_APP_LOG(INFO, "%s: poll lcore on CPU %ld, on the device's NUMA node %ld",
			    app->device, rsh_app_numa_cpu, rsh_app_numa_node);
	return 0;
}
