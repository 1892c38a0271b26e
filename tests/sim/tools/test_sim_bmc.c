/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cross-process ownership on one emulated device: this process is "the
 * host", rshim-sim-bmc (argv[1]) is a BMC in another process; both open
 * sim:bf3,shared=NAME and meet on the same SCRATCHPAD1 (hardware-notes
 * §6.2-§6.5). Every wait is a generous deadline on a register value.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "rsh_backend.h"
#include "rsh_regs.h"
#include "rsh_sim.h"
#include "rsh_test_eal.h"

#define T_KEEPALIVE 0x0000005089836482ull
#define T_OSP_REQ 0x004F53505F524551ull
#define T_OSP_ACK 0x004F53505F41434Bull

static const char *rsh_t_tool;
static unsigned int rsh_t_seq;

/* A running rshim-sim-bmc and our own view of the same device. */
struct rsh_t_pair {
	pid_t pid;
	FILE *out;
	char dev[96];
	struct rsh_backend *be;
	uint32_t sp1;
};

/* Start the BMC with its device string and arguments; wait for "ready";
 * open the same shared device here. */
static void
rsh_t_start(struct rsh_t_pair *t, const char *owner, const char *extra)
{
	const struct rsh_backend_driver *drv = rsh_backend_find("sim");
	struct rsh_regmap map;
	char bmcdev[128], line[256];
	int fds[2];

	snprintf(t->dev, sizeof(t->dev), "sim:bf3,shared=t%ld-%u",
		 (long)getpid(), rsh_t_seq++);
	snprintf(bmcdev, sizeof(bmcdev), "%s,owner=%s", t->dev, owner);
	assert_int_equal(pipe(fds), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(rsh_t_tool, rsh_t_tool, "--device", bmcdev, "--time", "20",
		      extra, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	t->out = fdopen(fds[0], "r");
	assert_non_null(t->out);
	assert_non_null(fgets(line, sizeof(line), t->out));
	assert_string_equal(line, "ready\n");
	assert_int_equal(drv->probe(t->dev, NULL, &t->be), 0);
	assert_int_equal(rsh_regmap_init(&map, RSH_GEN_BF3), 0);
	t->sp1 = map.off[RSH_SCRATCHPAD1];
}

static uint64_t
rsh_t_sp1(struct rsh_t_pair *t)
{
	return t->be->ops->read64(t->be, t->sp1);
}

static void
rsh_t_sp1_set(struct rsh_t_pair *t, uint64_t v)
{
	t->be->ops->write64(t->be, t->sp1, v);
}

/* SCRATCHPAD1 reads want within ms (the other process writes it). */
static bool
rsh_t_sp1_wait(struct rsh_t_pair *t, uint64_t want, unsigned int ms)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;

	do {
		if (rsh_t_sp1(t) == want)
			return true;
		usleep(1000);
	} while (rte_get_timer_cycles() < end);
	return false;
}

/* Read the BMC's lines until its summary; return that line. */
static void
rsh_t_finish(struct rsh_t_pair *t, char *summary, size_t len, bool stop)
{
	char line[256];
	int st;

	if (stop)
		kill(t->pid, SIGTERM);
	summary[0] = '\0';
	while (fgets(line, sizeof(line), t->out) != NULL)
		if (strncmp(line, "rshim-sim-bmc:", 14) == 0)
			snprintf(summary, len, "%s", line);
	fclose(t->out);
	assert_int_equal(waitpid(t->pid, &st, 0), t->pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The BMC owns the device: our access check (clear SCRATCHPAD1, watch it
 * for 1 s) sees its keepalive come back; our OSP_REQ is acked 10 times
 * and the BMC lets go (its process exits on its own). */
static void
test_bmc_owns_then_hands_over(void **state)
{
	struct rsh_t_pair t;
	char sum[256];

	(void)state;
	rsh_t_start(&t, "bmc", "--until-released");
	rsh_t_sp1_set(&t, 0);
	assert_true(rsh_t_sp1_wait(&t, T_KEEPALIVE, 3000));
	rsh_t_sp1_set(&t, T_OSP_REQ);
	assert_true(rsh_t_sp1_wait(&t, T_OSP_ACK, 3000));
	rsh_t_finish(&t, sum, sizeof(sum), false);
	assert_non_null(strstr(sum, "acks=10 "));
	assert_non_null(strstr(sum, "mode=none"));
	/* the BMC is gone: nobody writes a keepalive any more */
	rsh_t_sp1_set(&t, 0);
	assert_false(rsh_t_sp1_wait(&t, T_KEEPALIVE, 700));
	t.be->ops->close(t.be);
}

/* An old BMC driver ignores OSP_REQ: its keepalive overwrites it. */
static void
test_bmc_old_ignores_request(void **state)
{
	struct rsh_t_pair t;
	char sum[256];

	(void)state;
	rsh_t_start(&t, "bmc-old", "--time=20");
	rsh_t_sp1_set(&t, T_OSP_REQ);
	assert_true(rsh_t_sp1_wait(&t, T_KEEPALIVE, 3000));
	rsh_t_finish(&t, sum, sizeof(sum), true);
	assert_non_null(strstr(sum, "acks=0 "));
	assert_non_null(strstr(sum, "mode=bmc-old"));
	t.be->ops->close(t.be);
}

/* The BMC asks us for the device: we (the owner) see OSP_REQ and answer
 * OSP_ACK; from then on the BMC's keepalive is there. */
static void
test_bmc_requests_device(void **state)
{
	struct rsh_t_pair t;
	char sum[256];

	(void)state;
	rsh_t_start(&t, "bmc-request", "--time=20");
	rsh_t_sp1_set(&t, T_KEEPALIVE); /* we own it */
	assert_true(rsh_t_sp1_wait(&t, T_OSP_REQ, 3000));
	rsh_t_sp1_set(&t, T_OSP_ACK);
	assert_true(rsh_t_sp1_wait(&t, T_KEEPALIVE, 3000));
	rsh_t_sp1_set(&t, 0);
	assert_true(rsh_t_sp1_wait(&t, T_KEEPALIVE, 3000)); /* it is alive */
	rsh_t_finish(&t, sum, sizeof(sum), true);
	assert_non_null(strstr(sum, "requests="));
	assert_non_null(strstr(sum, "mode=bmc\n"));
	t.be->ops->close(t.be);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bmc_owns_then_hands_over),
		cmocka_unit_test(test_bmc_old_ignores_request),
		cmocka_unit_test(test_bmc_requests_device),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH-TO-rshim-sim-bmc\n", argv[0]);
		return 2;
	}
	rsh_t_tool = argv[1];
	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
