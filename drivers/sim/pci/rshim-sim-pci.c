/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-sim-pci: one emulated BlueField rshim function served to a QEMU
 * guest as a real PCI function, as the remote end of QEMU's
 * multi-process proxy (-device x-pci-proxy-dev,fd=N). The guest's kernel
 * then sees 15b3:c2d2/c2d3/c2d5, binds it to vfio-pci or uio_pci_generic,
 * and rshim-pmd's real PCI backend runs against the emulator's register
 * model: the device is opened through the "sim" backend driver, exactly
 * as the in-process backend is.
 *
 * Output (stderr): one "serving" line, then at exit (and on SIGUSR1) the
 * counters. SIGUSR2 makes the emulated ARM reset on its own (a watchdog,
 * a crash), as rsh_sim_inject(RSH_SIM_EV_ARM_RESET) does in-process;
 * SIGHUP raises a NIC-firmware reset request (RSH_SIM_EV_RST_REQUEST). Exit codes: 0 the peer closed the socket or SIGTERM/SIGINT;
 * 1 a malformed message (one line says which); 2 bad command line;
 * 4 the device cannot be opened; 8 EAL.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_log.h>

#include "rsh_backend.h"
#include "rsh_sim.h"
#include "rsh_simpci.h"

static volatile sig_atomic_t rsh_sp_stop, rsh_sp_dump, rsh_sp_armreset,
	rsh_sp_rstreq;

/* SIGTERM/SIGINT: stop; SIGUSR1: print the counters; SIGUSR2: the ARM
 * resets on its own; SIGHUP: the NIC firmware asks for a NIC reset. */
static void
rsh_sp_on_signal(int sig)
{
	if (sig == SIGUSR1)
		rsh_sp_dump = 1;
	else if (sig == SIGUSR2)
		rsh_sp_armreset = 1;
	else if (sig == SIGHUP)
		rsh_sp_rstreq = 1;
	else
		rsh_sp_stop = 1;
}

/* Events the signals asked for; they act at the next register access. */
static void
rsh_sp_events(struct rsh_simpci *s)
{
	if (rsh_sp_armreset) {
		rsh_sp_armreset = 0;
		rsh_sim_inject(s->be, RSH_SIM_EV_ARM_RESET, 0);
		fprintf(stderr, "rshim-sim-pci: %s: SIGUSR2: ARM reset injected\n",
			s->be->name);
	}
	if (rsh_sp_rstreq) {
		rsh_sp_rstreq = 0;
		/* type 2 (NIC), downtime 10 x 10 ms (hardware-notes §6.7) */
		rsh_sim_inject(s->be, RSH_SIM_EV_RST_REQUEST, 2u | 10u << 8);
		fprintf(stderr, "rshim-sim-pci: %s: SIGHUP: NIC reset request raised\n",
			s->be->name);
	}
}

/* --help text. */
static void
rsh_sp_usage(FILE *f)
{
	fprintf(f,
"Usage: rshim-sim-pci --fd N [--quiet] DEVICE\n"
"Serve one emulated BlueField rshim function (DEVICE: sim:bf1|bf2|bf3 with\n"
"the emulator's options, e.g. sim:bf3,drain=20M,peer=7) to a QEMU guest as\n"
"a PCI function, as the remote end of QEMU's multi-process PCI proxy on the\n"
"inherited UNIX stream socket N (qemu-system-x86_64 -device\n"
"x-pci-proxy-dev,fd=M on the other end of a socketpair; usertools/rshim-vm\n"
"sets this up). The guest sees 15b3:c2d2 (BF1), c2d3 (BF2) or c2d5 (BF3),\n"
"class 0801, BAR0 64-bit memory of 1 MiB (BF1/BF2) or 8 MiB (BF3); with\n"
"livefish=1 the livefish ID (0211/0214/021c), no BAR, and the config-space\n"
"gateway window at 0x58/0x5C in a vendor-specific capability.\n"
"\n"
"  --fd N     the proxy socket (required)\n"
"  --quiet    no \"serving\" line\n"
"  --help     this text\n"
"\n"
"Counters (messages by type, MMIO reads/writes, bad accesses, the device's\n"
"own) are printed on stderr at exit and on SIGUSR1. SIGUSR2 resets the\n"
"emulated DPU's ARM as a watchdog would; SIGHUP makes its NIC firmware ask\n"
"the host for a NIC reset (the SCRATCHPAD6 handshake).\n"
"Exit status: 0 QEMU closed the socket, or SIGTERM/SIGINT; 1 a malformed\n"
"message; 2 bad command line; 4 the device cannot be opened; 8 EAL.\n");
}

/* EAL for the emulator only: no hugepages, no PCI, nothing host-wide. */
static int
rsh_sp_eal(void)
{
	char *argv[] = { "rshim-sim-pci", "-l0", "--no-huge", "-m64",
			 "--no-shconf", "--no-pci", "--no-telemetry",
			 "--iova-mode=va", "--log-level=lib.eal:error", NULL };
	int rc = rte_eal_init((int)RTE_DIM(argv) - 1, argv);

	if (rc >= 0)
		rte_openlog_stream(stderr);
	return rc;
}

/* Print the counters: the proxy's, then the emulated device's own. */
static void
rsh_sp_stats(const struct rsh_simpci *s, const char *when)
{
	struct rsh_sim_stats st;
	char line[1024];

	rsh_simpci_stats_line(s, line, sizeof(line));
	fprintf(stderr, "rshim-sim-pci: %s: %s: %s\n", s->be->name, when, line);
	if (rsh_sim_stats_get(s->be, &st) == 0)
		fprintf(stderr, "rshim-sim-pci: %s: %s: device consumed_bytes=%lu images_ok=%lu resets=%lu arm_resets=%lu rst_requests=%lu rst_done=%lu bad_accesses=%lu booted=%d gone=%d lf_cfg_reads=%lu lf_cfg_writes=%lu lf_violations=%lu lf_early=%lu host_boot_words=%lu tm_bytes=%lu tth_empty_reads=%lu boot_first_ns=%lu boot_last_ns=%lu\n",
			s->be->name, when, (unsigned long)st.consumed_bytes,
			(unsigned long)st.images_ok, (unsigned long)st.resets,
			(unsigned long)st.arm_resets, (unsigned long)st.rst_requests,
			(unsigned long)st.rst_done, (unsigned long)st.bad_accesses,
			st.booted, st.gone, (unsigned long)st.lf_cfg_reads,
			(unsigned long)st.lf_cfg_writes, (unsigned long)st.lf_violations,
			(unsigned long)st.lf_early, (unsigned long)st.host_boot_words,
			(unsigned long)st.tm_bytes, (unsigned long)st.tth_empty_reads,
			(unsigned long)st.boot_first_ns, (unsigned long)st.boot_last_ns);
}

/* Serve until the peer goes, a signal stops us or a message is bad. */
static int
rsh_sp_loop(struct rsh_simpci *s)
{
	int rc;

	for (;;) {
		if (rsh_sp_dump) {
			rsh_sp_dump = 0;
			rsh_sp_stats(s, "counters");
		}
		rsh_sp_events(s);
		if (rsh_sp_stop)
			return 0;
		rc = rsh_simpci_serve_one(s);
		if (rc == 1 || rc == -EINTR)
			continue;
		if (rc == 0)
			return 0;
		fprintf(stderr, "rshim-sim-pci: %s: %s; stopping\n",
			s->be->name, s->err);
		return 1;
	}
}

/* Parse the command line; 0, or the exit status. */
static int
rsh_sp_args(int argc, char **argv, int *fd, bool *quiet, const char **dev)
{
	static const struct option opts[] = {
		{ "fd", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stat st;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			*fd = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || *fd < 0) {
				fprintf(stderr, "rshim-sim-pci: bad --fd '%s' (a file descriptor number)\n", optarg);
				return 2;
			}
			break;
		case 'q': *quiet = true; break;
		case 'h': rsh_sp_usage(stdout); exit(0);
		default: rsh_sp_usage(stderr); return 2;
		}
	}
	if (optind != argc - 1 || *fd < 0) {
		fprintf(stderr, "rshim-sim-pci: need --fd N and one device string (try --help)\n");
		return 2;
	}
	*dev = argv[optind];
	if (fstat(*fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "rshim-sim-pci: --fd %d is not an open socket\n", *fd);
		return 2;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct rsh_backend_driver *drv;
	struct rsh_backend *be = NULL;
	struct rsh_simpci s;
	const char *dev = NULL;
	bool quiet = false;
	int fd = -1, rc;

	rc = rsh_sp_args(argc, argv, &fd, &quiet, &dev);
	if (rc != 0)
		return rc;
	if (rsh_sp_eal() < 0) {
		fprintf(stderr, "rshim-sim-pci: EAL initialisation failed\n");
		return 8;
	}
	drv = rsh_backend_find("sim");
	if (strncmp(dev, "sim:", 4) != 0 || drv == NULL ||
	    drv->probe(dev, NULL, &be) != 0) {
		fprintf(stderr, "rshim-sim-pci: %s\n", strncmp(dev, "sim:", 4) ?
			"the device must be an emulated one (sim:bf1|bf2|bf3,...)" :
			rsh_last_error());
		rte_eal_cleanup();
		return 4;
	}
	if (rsh_simpci_init(&s, fd, be) < 0) {
		fprintf(stderr, "rshim-sim-pci: %s: no config-space model for this device\n", dev);
		rc = 4;
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	/* No SA_RESTART: a signal ends the blocking receive. */
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = rsh_sp_on_signal }, NULL);
	sigaction(SIGINT, &(struct sigaction){ .sa_handler = rsh_sp_on_signal }, NULL);
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = rsh_sp_on_signal }, NULL);
	sigaction(SIGUSR2, &(struct sigaction){ .sa_handler = rsh_sp_on_signal }, NULL);
	sigaction(SIGHUP, &(struct sigaction){ .sa_handler = rsh_sp_on_signal }, NULL);
	if (!quiet)
		fprintf(stderr, "rshim-sim-pci: serving %s as %04x:%04x rev %u, %s %lu KiB, on fd %d\n",
			dev, 0x15B3, s.cfg.b[2] | s.cfg.b[3] << 8, be->revision,
			be->cfg_only ? "livefish (no BAR), register window" : "BAR0",
			(unsigned long)(be->bar_size >> 10), fd);
	rc = rsh_sp_loop(&s);
	rsh_sp_stats(&s, "exit");
out:
	close(fd);
	be->ops->close(be);
	rte_eal_cleanup();
	return rc;
}
