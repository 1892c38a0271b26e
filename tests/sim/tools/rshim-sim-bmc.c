/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-sim-bmc: an emulated BMC rshim driver in a process of its own.
 *
 * It opens an emulated device whose registers live in shared memory
 * (sim:bfN,shared=NAME) and runs the emulator's other-owner model on it
 * (owner=bmc unless the device string says otherwise): the SCRATCHPAD1
 * keepalive every 300 ms and the OSP_REQ/OSP_ACK handover, as a BMC's
 * rshim over USB would (hardware-notes §6). rshim-pmd processes opening
 * the same NAME then meet it on the same registers, which is what the
 * cross-process ownership tests need.
 *
 * Output (stdout, one line each, flushed): "ready", then "mode <m>" at
 * every change of the BMC's behaviour, then a summary line. Exit codes:
 * 0 done, 2 bad command line, 4 the device cannot be opened, 8 EAL.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "rsh_backend.h"
#include "rsh_sim.h"
#include "rsh_test_eal.h"

#define RSH_BMC_POLL_US 10000 /* one register access every 10 ms */

static const char *const rsh_bmc_modes[] = { "none", "bmc", "bmc-old",
					     "bmc-request" };
static volatile sig_atomic_t rsh_bmc_stop;

static void
rsh_bmc_on_signal(int sig)
{
	(void)sig;
	rsh_bmc_stop = 1;
}

static void
rsh_bmc_usage(FILE *f)
{
	fprintf(f,
"Usage: rshim-sim-bmc --device sim:bfN,shared=NAME[,owner=MODE] [--time SEC]\n"
"                     [--until-released]\n"
"An emulated BMC rshim driver on a shared emulated device. MODE: bmc\n"
"(default: keepalive, hands over on OSP_REQ), bmc-old (ignores OSP_REQ) or\n"
"bmc-request (asks for the device). Runs SEC seconds (10), or until it has\n"
"let go of the device with --until-released.\n");
}

/* One summary line from the counters. */
static void
rsh_bmc_summary(struct rsh_backend *be)
{
	struct rsh_sim_stats st;

	rsh_sim_stats_get(be, &st);
	printf("rshim-sim-bmc: keepalives=%lu acks=%lu requests=%lu mode=%s\n",
	       (unsigned long)st.bmc_keepalives, (unsigned long)st.bmc_acks,
	       (unsigned long)st.bmc_requests,
	       rsh_bmc_modes[st.bmc_mode & 3]);
	fflush(stdout);
}

/* Drive the model (it runs at register accesses) until time or release. */
static void
rsh_bmc_run(struct rsh_backend *be, double secs, bool until_released)
{
	uint64_t end = rte_get_timer_cycles() +
		       (uint64_t)(secs * (double)rte_get_timer_hz());
	struct rsh_sim_stats st;
	int last = -1;
	bool owned = false;

	while (!rsh_bmc_stop && rte_get_timer_cycles() < end) {
		be->ops->read64(be, 0); /* any access runs the model */
		rsh_sim_stats_get(be, &st);
		if (st.bmc_mode != last) {
			printf("mode %s\n", rsh_bmc_modes[st.bmc_mode & 3]);
			fflush(stdout);
			last = st.bmc_mode;
		}
		owned |= st.bmc_mode == 1 || st.bmc_mode == 2;
		if (until_released && owned && st.bmc_mode == 0)
			break;
		usleep(RSH_BMC_POLL_US);
	}
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "time", required_argument, NULL, 't' },
		{ "until-released", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct rsh_backend_driver *drv;
	const char *dev = NULL;
	bool until_released = false;
	struct rsh_backend *be;
	double secs = 10;
	char devstr[300];
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'u': until_released = true; break;
		case 'h': rsh_bmc_usage(stdout); return 0;
		case 't':
			secs = strtod(optarg, &end);
			if (*end != '\0' || secs <= 0) {
				fprintf(stderr, "rshim-sim-bmc: bad --time '%s' (seconds > 0)\n",
					optarg);
				return 2;
			}
			break;
		default: rsh_bmc_usage(stderr); return 2;
		}
	}
	if (dev == NULL || strstr(dev, "shared=") == NULL) {
		fprintf(stderr, "rshim-sim-bmc: --device sim:bfN,shared=NAME is required (the BMC must share the registers)\n");
		return 2;
	}
	snprintf(devstr, sizeof(devstr), "%s%s", dev,
		 strstr(dev, "owner=") != NULL ? "" : ",owner=bmc");
	if (rsh_test_eal_init("rshim-sim-bmc") < 0) {
		fprintf(stderr, "rshim-sim-bmc: EAL initialisation failed\n");
		return 8;
	}
	signal(SIGTERM, rsh_bmc_on_signal);
	signal(SIGINT, rsh_bmc_on_signal);
	drv = rsh_backend_find("sim");
	if (drv == NULL || drv->probe(devstr, NULL, &be) != 0) {
		fprintf(stderr, "rshim-sim-bmc: %s\n", rsh_last_error());
		rte_eal_cleanup();
		return 4;
	}
	printf("ready\n");
	fflush(stdout);
	rsh_bmc_run(be, secs, until_released);
	rsh_bmc_summary(be);
	be->ops->close(be);
	rte_eal_cleanup();
	return 0;
}
