/* SPDX-License-Identifier: BSD-3-Clause */
/* rshim-pmd-app: options and the modes, one file each. */
#ifndef RSH_APP_H
#define RSH_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_log.h>

#include "rsh.h"
#include "rsh_mono.h"
#include "rsh_tap.h"

struct rte_mbuf;
struct option;
struct rsh_app;

/*
 * Options and a mode contributed by another file of the app (ctl.c): it
 * defines `const struct rsh_app_optset rsh_app_ctl_optset`; without it the
 * weak reference is NULL and nothing is added. Option values start at
 * RSH_APP_OPT_EXT_BASE.
 */
#define RSH_APP_OPT_EXT_BASE 512
struct rsh_app_optset {
	const struct option *longopts;  /* NULL-terminated getopt_long table */
	const char *usage;              /* a --help section, ends with "\n\n" */
	/* Apply one option: 0, -EINVAL bad value, -ERANGE out of range. */
	int (*apply)(struct rsh_app *app, int c, const char *arg);
	/* The option that asked for this file's mode, or NULL: no mode. */
	const char *(*mode)(const struct rsh_app *app);
	/* Run the mode on an opened device with a running poller; exit code. */
	int (*run)(struct rsh_app *app, struct rsh_dev *dev, struct rsh_poller *p);
};
extern const struct rsh_app_optset rsh_app_ctl_optset __attribute__((weak));

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
	RSH_EXIT_NET = 9,       /* host network interface (TAP, ethdev) failed */
	RSH_EXIT_NO_COMPLETION = 10, /* the boot log showed no completion line */
	RSH_EXIT_CANCEL = 130,  /* interrupted (Ctrl-C) */
};

/* Control options (ctl.c, plugged in through rsh_app_ctl_optset). */
struct rsh_app_ctl {
	bool misc;                 /* --misc */
	const char *misc_set;      /* --misc-set 'KEY VALUE[;KEY VALUE...]' */
	bool log;                  /* --log */
	bool clear;                /* --clear (with --log) */
	bool reset;                /* --reset */
	const char *reg;           /* --reg NAME|0xADDR[.32|.64][=VALUE] */
	bool drop;                 /* --drop */
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
	bool doctor;
	bool force;
	bool quiet;
	bool json;                 /* --json: one document on stdout */
	const char *config_file;   /* --config: appended after the stream */
	const char *rootfs_file;   /* --rootfs: appended after the config */
	int progress;              /* -1 auto (TTY), 0 off, 1 on */
	double log_wait_s;
	bool no_log;
	struct rsh_open_opts open;
	/* --mapping, --force-id: devargs added to a PCI device string */
	const char *mapping;
	bool force_id;
	struct rsh_poll_opts poll;
	struct rsh_boot_opts boot;
	uint64_t bench_max_bytes;
	double bench_seconds;
	int bench_load;            /* --load N: busy-host rows, -1 none */
	int bench_nice;            /* --bench-nice N, -1 none */
	uint32_t bench_write_ns;   /* --bench-write-ns NS, 0 none */
	bool no_huge_forced;
	/* TM FIFO channels (console.c, net.c) */
	bool console;              /* --console */
	const char *net;           /* --net: NULL, "tap" or "ethdev" */
	const char *ip;            /* --ip A.B.C.D/P for the host end */
	unsigned int tap_index;    /* N of tmfifo_net<N> (--net-index) */
	double linger_s;           /* pipe mode: quiet time after stdin EOF */
	int tap_fd;                /* opened before EAL starts, -1 none */
	bool tap_vnet;             /* it has the vnet header and offloads */
	int tap_offload_err;       /* why the kernel refused them (errno) */
	bool net_offload;          /* --net-offload on (default) | off */
	struct rsh_app_ctl ctl;    /* --misc, --log, --reset, --reg, --drop */
};

/* Host end of the network channel as a DPDK ethdev (net.c). */
struct rsh_app_ethdev {
	struct rsh_dev *dev;       /* woken after each transmit burst */
	uint16_t port;
	bool open;
	uint32_t ip;               /* network order: the address we answer */
	uint64_t rx, answered, ignored;
};

/* The console end: stdin/stdout, raw terminal on a TTY (console.c). */
struct rsh_app_console {
	bool tty;                  /* stdin is a terminal: raw mode, escape */
	bool quit;                 /* Ctrl-] q */
	bool esc;                  /* Ctrl-] seen, waiting for the next key */
	uint64_t shown;            /* bytes from the DPU */
	uint64_t last_out_ns;      /* last console output (linger) */
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
/* rsh_dev_open() of devstr with the PCI options as devargs (main.c); on
 * failure err holds one line naming what is wrong and what to do. */
int rsh_app_dev_open(const struct rsh_app *app, const char *devstr,
		     struct rsh_dev **dev, char *err, size_t errlen);

/* Validate a boot file before EAL starts; returns an exit code. */
int rsh_app_boot_precheck(struct rsh_app *app);

/* Modes. Each returns an exit code. */
int rsh_app_list(struct rsh_app *app);
int rsh_app_push_boot(struct rsh_app *app, struct rsh_dev *dev,
		      struct rsh_poller *p);
int rsh_app_bench(struct rsh_app *app);
int rsh_app_bench_tmfifo(struct rsh_app *app);
/* --console and/or --net on an opened device with a running poller. */
int rsh_app_channels(struct rsh_app *app, struct rsh_dev *dev,
		     struct rsh_poller *p);

/* Standard input was closed when the app started (now /dev/null). */
extern bool rsh_app_stdin_closed;
/* Attach the console/network channels (exit code; no-op when attached). */
int rsh_app_chan_attach(struct rsh_app *app, struct rsh_dev *dev);
/* Write all of buf to stdout. */
size_t rsh_app_write_all(const char *buf, size_t n);
/* --push-boot with --console (push_console.c): attach before the push,
 * show the console while it streams, detach when the push failed. */
int rsh_app_push_console_begin(struct rsh_app *app, struct rsh_dev *dev);
bool rsh_app_push_console_show(struct rsh_dev *dev, bool clear_bar);
void rsh_app_push_console_end(struct rsh_app *app, struct rsh_dev *dev,
			      int code);

/* Checks before EAL starts (exit code, 0 = fine): stdin open for
 * --console; the TAP created (permission, name free) for --net tap. */
int rsh_app_console_precheck(struct rsh_app *app);
int rsh_app_net_precheck(struct rsh_app *app);

/* Console end (console.c). */
int rsh_app_console_open(struct rsh_app_console *c);
void rsh_app_console_close(struct rsh_app_console *c);

/* TAP end (net.c): create (before EAL), configure, start (frames move
 * with rsh_pump_tap). */
int rsh_app_tap_create(unsigned int index, bool offload, struct rsh_tap *t);
int rsh_app_tap_config(struct rsh_tap *t, unsigned int index,
		       const char *cidr);
void rsh_app_tap_start(struct rsh_app *app, struct rsh_tap *t, struct rsh_dev *dev);

/* Ethdev end (net.c): rte_eth_from_rings + an ARP/ICMP echo responder. */
int rsh_app_ethdev_open(struct rsh_app_ethdev *e, struct rsh_dev *dev,
			const char *cidr);
unsigned int rsh_app_ethdev_step(struct rsh_app_ethdev *e);
void rsh_app_ethdev_close(struct rsh_app_ethdev *e);

/* Parse "A.B.C.D[/P]" (network-order address, prefix 0-32). */
int rsh_app_parse_cidr(const char *s, uint32_t *addr, unsigned int *prefix);

/* Print the channel counters (one line per channel) to f. */
void rsh_app_tmfifo_stats(FILE *f, struct rsh_dev *dev);

/* Following the boot log after a push (bootlog.c). Main thread. */
struct rsh_json;
struct rsh_app_bootlog {
	bool waited;               /* the log was followed */
	const char *completion;    /* the completion line seen, or NULL */
	const char *result;        /* "completed", "dpu-error", "no-completion"... */
	bool err_seen;             /* an ERR/ASSERT/crash record or CRITICAL ERROR */
	char (*lines)[160];        /* lines kept for --json */
	unsigned int n;
};
void rsh_app_bootlog_init(struct rsh_app_bootlog *lg);
void rsh_app_bootlog_free(struct rsh_app_bootlog *lg);
/* Print (or keep, with --json) the log until the boot completes; exit code. */
int rsh_app_bootlog_wait(struct rsh_app *app, struct rsh_dev *dev, double wait_s,
			 struct rsh_app_bootlog *lg);
void rsh_app_bootlog_json(struct rsh_json *j, const struct rsh_app_bootlog *lg);

/* --doctor (doctor.c): check each layer; exit code of the first failure. */
int rsh_app_doctor(struct rsh_app *app, int eal_argc, char **eal_argv);

/* --list helpers (list.c): kernel driver of a scanned function ("-" when
 * emulated); whether rshim-pmd can use it, else why and the fixing command. */
void rsh_app_dev_kdrv(const struct rsh_dev_info *d, char *buf, size_t len);
bool rsh_app_dev_usable(const struct rsh_dev_info *d, char *why, size_t wlen,
			char *fix, size_t flen);

/* The last line rsh_app_err() printed (for --json "error"). */
extern char rsh_app_last_err[256];

/* Parse the app's part of the command line (opts.c); -1: exit with *code. */
int rsh_app_parse(struct rsh_app *app, int argc, char **argv, int *code);

/* Start EAL: our defaults merged with the user's arguments (eal.c). */
int rsh_app_eal_init(struct rsh_app *app, int eal_argc, char **eal_argv);

/* rshim-pmd service (via_service.c): --device rshimN pushes through the
 * service's boot node; a device the service holds is refused. */
int rsh_app_via_service_node(const struct rsh_app *app, char *node, size_t size);
int rsh_app_push_via_service(struct rsh_app *app, const char *node);
/* --device rshimN: every mode through the service's nodes (boot is the
 * node's boot file); via_service_ctl.c. Exit code. */
int rsh_app_run_via_service(struct rsh_app *app, const char *boot_node);
int rsh_app_ctl_via_service(struct rsh_app *app, const char *dir);
int rsh_app_service_check(const char *devstr);

#endif /* RSH_APP_H */
