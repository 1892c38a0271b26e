/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bench tmfifo: what the rshim-pmd rows (bench_tmfifo.c) and the
 * reference daemon's schedule (bench_tmfifo_ref.c) share.
 */
#ifndef RSH_BENCH_TMFIFO_H
#define RSH_BENCH_TMFIFO_H

#include <stdbool.h>

#include "app.h"

/* The reference schedule's figures. */
struct rsh_tb_ref {
	double rtt_p50_us, rtt_p99_us;  /* 64 B round trips while active */
	double idle_first_us;           /* first round trip after the idle period */
	double idle_wakeups_s;          /* wake-ups per second while idle */
	double idle_cpu_pct;            /* CPU of the loop while idle */
	double net_rx_mib_s;            /* DPU -> host frames, cost model on */
};

/* Run the reference daemon's TM FIFO schedule on the emulator. */
int rsh_bench_tmfifo_ref(struct rsh_app *app, struct rsh_tb_ref *r);

/* True once Ctrl-C was pressed. */
bool rsh_bench_tmfifo_cancelled(void);

/* Median and 99th percentile of n samples (sorted in place). */
void rsh_bench_tmfifo_pctl(double *s, unsigned int n, double *p50, double *p99);

#endif /* RSH_BENCH_TMFIFO_H */
