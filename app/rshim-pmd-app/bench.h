/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The boot benchmarks (--bench boot, --bench install): one row per
 * generation, drain pattern and policy, measured the same way for both
 * policies so the rows compare.
 *
 *   bench.c          the drain-rate table (--bench boot), text and JSON
 *   bench_install.c  the install profile (--bench install)
 *   bench_run.c      the measures, one row with rshim-pmd's policy and one
 *                    with the reference daemon's model
 *                    (lib/bench/rsh_bench_ref_boot.c, modelled on its code)
 *   bench_load.c     the busy-host rows (--bench boot --load N)
 */
#ifndef RSH_BENCH_H
#define RSH_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "app.h"

#define RSH_BENCH_PATTERN (4u << 20)  /* generated stream, repeated */
#define RSH_BENCH_STEP (1u << 20)     /* bytes per feeder write */

enum rsh_bench_pol {
	RSH_BENCH_PMD = 0,   /* rshim-pmd: the boot engine and its poll lcore */
	RSH_BENCH_REF,       /* the reference daemon (lib/bench) */
};

/* Pacing of rshim-pmd's rows. */
enum rsh_bench_pace {
	RSH_BENCH_PACE_DEFAULT = 0, /* the poll options as given */
	RSH_BENCH_PACE_NO_RT,       /* without the priority raise */
	RSH_BENCH_PACE_BUSY,        /* busy poll, without the raise */
};

/* How late a pusher's timed sleeps came back: buckets of
 * RSH_POLL_LATE_BOUNDS_NS, the count and the latest. */
struct rsh_bench_late {
	uint64_t n;
	uint64_t b[RSH_POLL_LATE_BUCKETS];
	uint64_t max_ns;
};

/* What one row runs. */
struct rsh_bench_cfg {
	const char *gen;        /* "bf1", "bf2", "bf3" */
	double drain;           /* bytes/s, 0 = unlimited */
	bool cost;              /* MMIO cost model on */
	unsigned int profile;   /* install profile compression, 0 = none */
	enum rsh_bench_pol pol;
	enum rsh_bench_pace pace;
	int nice;               /* the pushing thread's nice (0: as it is) */
	bool livefish;          /* through the config-space gateway */
	uint64_t size;          /* bytes to push */
	double budget_s;        /* stop the row after this long (wall) */
	uint32_t write_ns;      /* reference model: kernel round trip per
				 * write() on the boot node (--bench-write-ns) */
	const char *devstr;     /* --device sim:...: this emulator as given
				 * (its own cost and drain options), or NULL */
};

/*
 * Counters at the start and the end of a row. "host" time is what one
 * core on silicon would spend: process CPU minus the emulator's own CPU
 * plus the MMIO time the cost model charged.
 */
struct rsh_bench_snap {
	double wall_s;          /* CLOCK_MONOTONIC */
	double cpu_s;           /* process CPU, all threads */
	uint64_t nvcsw;         /* voluntary context switches = wake-ups */
	uint64_t reads, writes; /* MMIO issued */
	double charged_s;       /* MMIO time charged by the cost model */
	double emu_s;           /* real time inside the emulator's register ops */
	uint64_t drain_reads;   /* reads BF1's drain rule adds */
	uint64_t count_reads;   /* BOOT_FIFO_COUNT reads (the emulator's) */
};

/* One row's result. */
struct rsh_bench_res {
	struct rsh_bench_cfg cfg;
	uint64_t bytes;         /* pushed into the FIFO */
	double time_s;          /* stream time on silicon: wall + charged */
	double host_cpu_s;      /* poll lcore + feeder (+ reference threads) */
	double emu_cpu_s;       /* the emulator's own CPU, reported apart */
	uint64_t reads, writes; /* issued + BF1 drain reads */
	uint64_t forced_reads;  /* the BF1 drain reads the host did not issue */
	uint64_t status_reads;  /* of reads, BOOT_FIFO_COUNT: the push's own */
	uint64_t wakeups;
	uint64_t short_writes;  /* reference: write() calls that returned short */
	uint64_t full_sleeps;   /* reference: 1 ms sleeps after no progress */
	bool partial;           /* the time budget ended the row */
	int rc;
	/* busy-host figures (bench_load.c) */
	struct rsh_bench_late late; /* the pusher's timed sleeps */
	double empty_s;         /* boot FIFO empty while the DPU could take more */
	double dpu_s;           /* first to last word the DPU took (its clock) */
	uint64_t dpu_bytes;     /* bytes the DPU took */
	double load_pct;        /* competitors' work during the row, % of alone */
	uint64_t rt_raises, rt_capped; /* the poll lcore's priority raises */
	double rt_yield_s;      /* of which it slept to leave the host its share */
};

/* Counters of a device now (dev NULL: process counters only). */
void rsh_bench_snap(struct rsh_dev *dev, struct rsh_bench_snap *s);

/* Fill a result's measures from two snapshots. */
void rsh_bench_fill(struct rsh_bench_res *r, const struct rsh_bench_snap *a,
		    const struct rsh_bench_snap *b, double stream_s);

/* The device string of a row: "sim:bf3,drain=20000000,cost=1,..." */
void rsh_bench_devstr(const struct rsh_bench_cfg *c, char *buf, size_t len);

/* The generated stream: a valid BFB followed by pseudo-random bytes. */
uint8_t *rsh_bench_pattern(void);

/* True once Ctrl-C was pressed. */
bool rsh_bench_cancelled(void);

/* One row with rshim-pmd's policy (bench_run.c). */
void rsh_bench_run_pmd(struct rsh_app *app, const uint8_t *pat,
		       struct rsh_bench_res *r);

/* One row with the reference daemon's model (bench_run.c, lib/bench). */
void rsh_bench_run_ref(struct rsh_app *app, const uint8_t *pat,
		       struct rsh_bench_res *r);

/* Run one row with the policy of r->cfg.pol. */
void rsh_bench_run(struct rsh_app *app, const uint8_t *pat,
		   struct rsh_bench_res *r);

/* Floor of status reads per MiB: one per (depth - 3) words written. */
double rsh_bench_reads_floor(const char *gen);

/* One-core MMIO ceiling in MiB/s with the cost model's defaults. */
double rsh_bench_ceiling(const char *gen, uint64_t rd_ns, uint64_t wr_ns);

/* --bench boot --load N (bench_load.c). */
int rsh_app_bench_load(struct rsh_app *app, const uint8_t *pat);

/* Account a sleep late ns; percentile q (0-1) as its bucket's bound. */
void rsh_bench_late_add(struct rsh_bench_late *h, uint64_t ns);
uint64_t rsh_bench_late_pct(const struct rsh_bench_late *h, double q);

/* Livefish rows (bench_lf.c): one config cycle costs this in the model
 * (the emulator's cfg_ns default). */
#define RSH_BENCH_CFG_NS 1500u
double rsh_bench_lf_floor(const char *gen);
double rsh_bench_lf_ceiling(const char *gen);
unsigned int rsh_bench_lf_plan(struct rsh_bench_res *rows, unsigned int max);
void rsh_bench_lf_print(const struct rsh_bench_res *rows, unsigned int n);

/* --bench install (bench_install.c). */
int rsh_app_bench_install(struct rsh_app *app);

/* After a --push-boot summary: on an emulated device with the MMIO cost
 * model on, one more line with the push rate over the modelled time
 * (nothing otherwise). */
void rsh_bench_push_cost_line(struct rsh_dev *dev,
			      const struct rsh_boot_stats *st);

#endif /* RSH_BENCH_H */
