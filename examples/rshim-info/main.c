/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-info: a minimal application of the installed librshim-pmd. It
 * starts EAL, opens one BlueField rshim function (a PCI address, or an
 * emulated one such as sim:bf3), prints what it is, a few registers and the
 * boot log, and closes it. Build it against an installed rshim-pmd with
 * pkg-config (see the Makefile beside this file):
 *
 *   cc -o rshim-info main.c $(pkg-config --cflags --libs rshim-pmd)
 *   ./rshim-info -l0 --no-huge -m256 --no-pci -- sim:bf3
 *
 * Exit codes: 0 done, 1 usage, 2 EAL failed, 3 device error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include <rsh.h>

#define RSH_INFO_LOG_MAX 32
#define RSH_INFO_XSTATS_MAX 128

/* The registers printed, by public name. */
static const enum rsh_reg rsh_info_regs[] = {
	RSH_BOOT_CONTROL, RSH_SCRATCHPAD1, RSH_BOOT_FIFO_COUNT, RSH_UPTIME,
};

/* Print the generation, backend and a few registers of an open device. */
static int
rsh_info_print_dev(struct rsh_dev *dev)
{
	struct rsh_mmio_stats st;
	struct rsh_dev_info inf;
	uint64_t v;
	unsigned int i;
	int rc;

	rsh_dev_get_info(dev, &inf);
	printf("device:   %s\n", inf.name);
	printf("backend:  %s\n", inf.driver);
	printf("model:    %s\n", rsh_gen_name(inf.gen));
	for (i = 0; i < sizeof(rsh_info_regs) / sizeof(rsh_info_regs[0]); i++) {
		rc = rsh_dev_reg_read(dev, rsh_info_regs[i], &v);
		if (rc < 0) {
			fprintf(stderr, "rshim-info: %s\n", rsh_last_error());
			return rc;
		}
		printf("%-20s 0x%016" PRIx64 "\n", rsh_reg_name(rsh_info_regs[i]), v);
	}
	rsh_dev_get_stats(dev, &st);
	printf("mmio:     %" PRIu64 " reads, %" PRIu64 " writes\n",
	       st.reads, st.writes);
	return 0;
}

/* Print the device's extended statistics: the driver's MMIO counts and
 * whatever its backend counts (the emulator: sim_*). */
static int
rsh_info_print_xstats(struct rsh_dev *dev)
{
	static struct rsh_xstat_name names[RSH_INFO_XSTATS_MAX];
	static struct rsh_xstat vals[RSH_INFO_XSTATS_MAX];
	int n, i;

	n = rsh_dev_xstats_get_names(dev, names, RSH_INFO_XSTATS_MAX);
	if (n < 0 || n > RSH_INFO_XSTATS_MAX ||
	    rsh_dev_xstats_get(dev, vals, (unsigned int)n) != n) {
		fprintf(stderr, "rshim-info: extended statistics unavailable\n");
		return n < 0 ? n : -1;
	}
	printf("xstats:   %d\n", n);
	for (i = 0; i < n; i++)
		printf("  %-30s %" PRIu64 "\n", names[vals[i].id].name, vals[i].value);
	return 0;
}

/* Print the records of the rshim scratch (boot) log without clearing it. */
static int
rsh_info_print_log(struct rsh_dev *dev)
{
	struct rsh_scratchlog_rec recs[RSH_INFO_LOG_MAX];
	int n, i;

	n = rsh_scratchlog_read(dev, false, recs, RSH_INFO_LOG_MAX);
	if (n < 0) {
		fprintf(stderr, "rshim-info: %s\n", rsh_last_error());
		return n;
	}
	printf("boot log: %d record(s)\n", n);
	for (i = 0; i < n; i++)
		printf("  %s\n", recs[i].text);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rsh_dev *dev;
	const char *devstr;
	int n, rc;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "rshim-info: EAL initialisation failed; check the "
			"EAL options before --\n");
		return 2;
	}
	argc -= n;
	argv += n;
	if (argc != 2) {
		fprintf(stderr, "usage: rshim-info [EAL options] -- DEVICE "
			"(a PCI address or sim:bf1|bf2|bf3)\n");
		rte_eal_cleanup();
		return 1;
	}
	devstr = argv[1];
	rc = rsh_dev_open(devstr, NULL, &dev);
	if (rc < 0) {
		fprintf(stderr, "rshim-info: %s: %s\n", devstr, rsh_last_error());
		rte_eal_cleanup();
		return 3;
	}
	rc = rsh_info_print_dev(dev);
	if (rc == 0)
		rc = rsh_info_print_log(dev);
	if (rc == 0)
		rc = rsh_info_print_xstats(dev);
	rsh_dev_close(dev);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 3;
}
