/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `hw` suite: sanity checks on a real rshim function named by
 * RSHIM_PMD_TEST_BDF, through the public API only (rsh.h). Exits 77
 * (skipped) when the variable is unset. Register reads always run; the
 * boot push (which resets the DPU's ARM cores) only with
 * RSHIM_PMD_TEST_PUSH=1. RSHIM_PMD_TEST_MAPPING forces vfio/uio/direct;
 * RSHIM_PMD_TEST_CONSOLE=0 skips the console check (DPU powered down).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "rsh.h"
#include "rsh_bfb_fmt.h"
#include "rsh_regs.h"
#include "rsh_test_eal.h"

#define RSH_HW_SKIP 77

static int rsh_hw_failed;

/* Report one check. */
static void
rsh_hw_check(int ok, const char *what, const char *detail)
{
	printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", what, detail ? ": " : "",
	       detail ? detail : "");
	rsh_hw_failed |= !ok;
}

/* Register sanity, §1.4: FABRIC_DIM non-zero, UPTIME moves forward. */
static void
rsh_hw_regs(struct rsh_dev *dev)
{
	uint64_t fd = 0, u0 = 0, u1 = 0, cnt = 0;
	int rc;

	rc = rsh_dev_reg_read(dev, RSH_FABRIC_DIM, &fd);
	rsh_hw_check(rc == 0 && fd != 0, "FABRIC_DIM readable, non-zero",
		     rc ? rsh_last_error() : NULL);
	rc = rsh_dev_reg_read(dev, RSH_UPTIME, &u0);
	rc |= rsh_dev_reg_read(dev, RSH_UPTIME, &u1);
	rsh_hw_check(rc == 0 && u1 >= u0, "UPTIME monotonic", NULL);
	rc = rsh_dev_reg_read(dev, RSH_BOOT_FIFO_COUNT, &cnt);
	rsh_hw_check(rc == 0 && (cnt & RSH_BOOT_FIFO_COUNT__MASK) <=
		     RSH_BF3_BOOT_FIFO_DEPTH, "BOOT_FIFO_COUNT in range", NULL);
}

/* Scratch log read, §5.6. */
static void
rsh_hw_log(struct rsh_dev *dev)
{
	struct rsh_scratchlog_rec recs[16];
	int n = rsh_scratchlog_read(dev, false, recs, 16);

	rsh_hw_check(n >= 0, "scratch log read", n < 0 ? rsh_last_error() :
		     NULL);
	if (n > 0)
		printf("  last log record: %s\n", recs[n - 1].text);
}

/*
 * Console, §4: attach the TM FIFO channels, press Enter, expect the DPU to
 * answer (a login prompt or a shell) within 5 s. Skipped when the DPU is
 * known to be down (RSHIM_PMD_TEST_CONSOLE=0).
 */
static void
rsh_hw_console(struct rsh_dev *dev)
{
	struct rsh_tmfifo_opts to;
	struct rsh_poller *p = NULL;
	char buf[256];
	size_t got = 0;
	int rc;

	rsh_tmfifo_opts_default(&to);
	rc = rsh_poller_create(NULL, &p);
	if (rc == 0)
		rc = rsh_poller_add(p, dev);
	if (rc == 0)
		rc = rsh_tmfifo_attach(dev, &to);
	if (rc == 0)
		rc = rsh_poller_start(p);
	if (rc == 0 && rsh_tmfifo_console_write(dev, "\r", 1) != 1)
		rc = -EAGAIN;
	for (int i = 0; rc == 0 && i < 500 && got == 0; i++) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
		got = rsh_tmfifo_console_read(dev, buf, sizeof(buf) - 1);
	}
	rsh_hw_check(rc == 0 && got > 0, "console answers Enter within 5 s",
		     rc ? rsh_last_error() : got ? NULL : "no console output");
	if (p != NULL)
		rsh_poller_destroy(p);
	rsh_tmfifo_detach(dev);
}

/*
 * Push a tiny in-memory BFB holding the boot chain the boot ROM expects,
 * in order: bl2 (id 1), bl31 (id 3), bl33 (id 5), each zero-filled. A
 * stream without bl2/bl31/bl33 is refused by the boot ROM; this one is
 * well-formed, so the check is about the transport accepting every byte.
 */
static void
rsh_hw_push(struct rsh_dev *dev)
{
	static uint8_t payload[3][4096], bfb[16384];
	struct rsh_bfb_wimage img[3] = {
		{ .id = 1, .data = payload[0], .len = sizeof(payload[0]) },
		{ .id = 3, .data = payload[1], .len = sizeof(payload[1]) },
		{ .id = 5, .data = payload[2], .len = sizeof(payload[2]) },
	};
	struct rsh_poll_opts po;
	struct rsh_boot_opts bo;
	struct rsh_poller *p = NULL;
	struct rsh_boot *b = NULL;
	long len = rsh_bfb_write(img, RTE_DIM(img), bfb, sizeof(bfb));
	int rc;

	rsh_poll_opts_default(&po);
	rsh_boot_opts_default(&bo);
	rc = len < 0 ? (int)len : rsh_poller_create(&po, &p);
	if (rc == 0)
		rc = rsh_poller_add(p, dev);
	if (rc == 0)
		rc = rsh_poller_start(p);
	if (rc == 0)
		rc = rsh_boot_open(dev, p, &bo, &b);
	if (rc == 0) {
		rc = rsh_boot_write(b, bfb, (size_t)len);
		rc = rsh_boot_close(b, NULL) ?: rc;
	}
	rsh_hw_check(rc == 0, "boot push of a small BFB",
		     rc ? rsh_last_error() : NULL);
	if (p != NULL)
		rsh_poller_destroy(p);
}

int
main(int argc, char **argv)
{
	const char *bdf = getenv("RSHIM_PMD_TEST_BDF");
	const char *map = getenv("RSHIM_PMD_TEST_MAPPING");
	struct rsh_open_opts opts = { 0 };
	char devstr[128];
	struct rsh_dev *dev = NULL;
	struct rsh_dev_info inf;
	const char *push = getenv("RSHIM_PMD_TEST_PUSH");
	const char *con = getenv("RSHIM_PMD_TEST_CONSOLE");

	(void)argc;
	if (bdf == NULL || bdf[0] == '\0') {
		printf("SKIP: set RSHIM_PMD_TEST_BDF=<bdf> to run on a real "
		       "BlueField\n");
		return RSH_HW_SKIP;
	}
	/* Hugepages when reserved, --no-pci (VFIO goes through rte_vfio_*
	 * directly; the bus scan must not touch the host's other devices). */
	if (rsh_test_eal_init(argv[0]) < 0) {
		printf("FAIL: EAL init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	/* The mapping is a devarg of the device string. */
	snprintf(devstr, sizeof(devstr), "%s%s%s", bdf, map != NULL ? ",mapping=" : "",
		 map != NULL ? map : "");
	if (rsh_dev_open(devstr, &opts, &dev) < 0) {
		printf("FAIL: open %s: %s\n", bdf, rsh_last_error());
		return 1;
	}
	rsh_dev_get_info(dev, &inf);
	printf("device %s (%s)\n", inf.name, rsh_gen_name(inf.gen));
	rsh_hw_regs(dev);
	rsh_hw_log(dev);
	if (con == NULL || strcmp(con, "0") != 0)
		rsh_hw_console(dev);
	if (push != NULL && strcmp(push, "1") == 0)
		rsh_hw_push(dev);
	else
		printf("SKIP: boot push (resets the ARM; set "
		       "RSHIM_PMD_TEST_PUSH=1)\n");
	rsh_dev_close(dev);
	rte_eal_cleanup();
	return rsh_hw_failed ? 1 : 0;
}
