/* SPDX-License-Identifier: BSD-3-Clause */
/* rshim-pmd-app: options and the modes, one file each. */
#ifndef RSH_APP_H
#define RSH_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_log.h>

#include "rsh.h"

struct rte_mbuf;

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
	bool bench_json;           /* --json: benchmark results as JSON */
	bool no_huge_forced;
	/* TM FIFO channels (console.c, net.c) */
	bool console;              /* --console */
	const char *net;           /* --net: NULL, "tap" or "ethdev" */
	const char *ip;            /* --ip A.B.C.D/P for the host end */
	unsigned int tap_index;    /* N of tmfifo_net<N> (--net-index) */
	double linger_s;           /* pipe mode: quiet time after stdin EOF */
	int tap_fd;                /* opened before EAL starts, -1 none */
};

/* Host end of the network channel: a TAP device (net.c). Main lcore. */
struct rsh_app_tap {
	int fd;                    /* -1 when closed */
	char name[16];
	struct rte_mbuf *pend[32]; /* read from the TAP, not yet queued */
	unsigned int n_pend;
	uint64_t rx_frames, tx_frames, tx_errors;
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
	bool eof;                  /* stdin ended (pipe mode) */
	bool quit;                 /* Ctrl-] q */
	bool esc;                  /* Ctrl-] seen, waiting for the next key */
	char in[4096];             /* stdin bytes not yet accepted */
	size_t in_len;
	uint64_t written, shown;   /* bytes to / from the DPU */
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

/* Checks before EAL starts (exit code, 0 = fine): stdin open for
 * --console; the TAP created (permission, name free) for --net tap. */
int rsh_app_console_precheck(struct rsh_app *app);
int rsh_app_net_precheck(struct rsh_app *app);

/* Console end (console.c). */
int rsh_app_console_open(struct rsh_app_console *c);
unsigned int rsh_app_console_step(struct rsh_app_console *c,
				  struct rsh_dev *dev, bool readable);
void rsh_app_console_close(struct rsh_app_console *c);

/* TAP end (net.c): create (before EAL), configure, move frames, close. */
int rsh_app_tap_create(unsigned int index, struct rsh_app_tap *t);
int rsh_app_tap_config(struct rsh_app_tap *t, unsigned int index,
		       const char *cidr);
unsigned int rsh_app_tap_step(struct rsh_app_tap *t, struct rsh_dev *dev);
void rsh_app_tap_close(struct rsh_app_tap *t);

/* Ethdev end (net.c): rte_eth_from_rings + an ARP/ICMP echo responder. */
int rsh_app_ethdev_open(struct rsh_app_ethdev *e, struct rsh_dev *dev,
			const char *cidr);
unsigned int rsh_app_ethdev_step(struct rsh_app_ethdev *e);
void rsh_app_ethdev_close(struct rsh_app_ethdev *e);

/* Parse "A.B.C.D[/P]" (network-order address, prefix 0-32). */
int rsh_app_parse_cidr(const char *s, uint32_t *addr, unsigned int *prefix);

/* Print the channel counters (one line per channel) to f. */
void rsh_app_tmfifo_stats(FILE *f, struct rsh_dev *dev);

/* Monotonic nanoseconds. */
uint64_t rsh_app_ns(void);

/* Print the device's scratch-log lines, waiting up to wait_s for a
 * terminal line ("DPU is ready", an ERR...). Returns an exit code. */
int rsh_app_show_log(struct rsh_app *app, struct rsh_dev *dev, double wait_s);

/* Parse "10", "1.5s", "200ms" style durations into milliseconds. */
int rsh_app_parse_ms(const char *s, uint64_t *ms);

/* Parse "256M", "1G", "4096" sizes (powers of 1024) into bytes. */
int rsh_app_parse_size(const char *s, uint64_t *bytes);

#endif /* RSH_APP_H */
