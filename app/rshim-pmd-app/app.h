/* SPDX-License-Identifier: BSD-3-Clause */
/* rshim-pmd-app: options and the modes, one file each. */
#ifndef RSH_APP_H
#define RSH_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_log.h>

#include "rsh.h"

/* Exit codes (documented in --help). */
enum rsh_app_exit {
	RSH_EXIT_OK = 0,
	RSH_EXIT_FAIL = 1,      /* the operation failed on the device */
	RSH_EXIT_USAGE = 2,     /* bad command line */
	RSH_EXIT_INPUT = 3,     /* bad input file (missing, not a BFB, ...) */
	RSH_EXIT_DEVICE = 4,    /* device not found / cannot be opened */
	RSH_EXIT_TIMEOUT = 5,   /* a hardware deadline passed (boot timeout) */
	RSH_EXIT_GONE = 6,      /* the device disappeared */
	RSH_EXIT_DPU_ERR = 7,   /* the DPU's boot log reported an error */
	RSH_EXIT_EAL = 8,       /* DPDK EAL initialisation failed */
	RSH_EXIT_CANCEL = 130,  /* interrupted (Ctrl-C) */
};

/* Parsed command line. Written by main before the mode runs. */
struct rsh_app {
	const char *prog;
	const char *device;        /* NULL until resolved */
	bool device_given;
	const char *push_file;
	const char *bench;
	bool list;
	bool list_sim;
	bool force;
	bool quiet;
	int progress;              /* -1 auto (TTY), 0 off, 1 on */
	double log_wait_s;
	bool no_log;
	struct rsh_open_opts open;
	struct rsh_poll_opts poll;
	struct rsh_boot_opts boot;
	uint64_t bench_max_bytes;
	double bench_seconds;
	bool no_huge_forced;
};

extern int rsh_app_logtype;
#define RSH_APP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, rsh_app_logtype, "rshim-pmd-app: " fmt "\n", ##__VA_ARGS__)

/* The app's cancel flag (set by SIGINT/SIGTERM). */
extern int rsh_app_cancel;

/* Print one error line to stderr: "rshim-pmd-app: <msg>". */
void rsh_app_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Map a negative errno from the library to an exit code. */
int rsh_app_exit_code(int rc);

/* Validate a boot file before EAL starts; returns an exit code. */
int rsh_app_boot_precheck(struct rsh_app *app);

/* Modes. Each returns an exit code. */
int rsh_app_list(struct rsh_app *app);
int rsh_app_push_boot(struct rsh_app *app, struct rsh_dev *dev,
		      struct rsh_poller *p);
int rsh_app_bench(struct rsh_app *app);

/* Print the device's scratch-log lines, waiting up to wait_s for a
 * terminal line ("DPU is ready", an ERR...). Returns an exit code. */
int rsh_app_show_log(struct rsh_app *app, struct rsh_dev *dev, double wait_s);

/* Parse "10", "1.5s", "200ms" style durations into milliseconds. */
int rsh_app_parse_ms(const char *s, uint64_t *ms);

/* Parse "256M", "1G", "4096" sizes (powers of 1024) into bytes. */
int rsh_app_parse_size(const char *s, uint64_t *bytes);

#endif /* RSH_APP_H */
