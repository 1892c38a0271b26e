/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bench tmfifo: what the rshim-pmd rows (bench_tmfifo.c) and the
 * reference daemon's schedule (lib/bench/rsh_bench_ref_tmfifo.c) share.
 */
#ifndef RSH_BENCH_TMFIFO_H
#define RSH_BENCH_TMFIFO_H

#include <stdbool.h>

#include "app.h"
#include "rsh_bench_ref.h"

/* Run the reference daemon's TM FIFO schedule on the emulator. */
int rsh_bench_tmfifo_ref(struct rsh_app *app, struct rsh_tb_ref *r);

#endif /* RSH_BENCH_TMFIFO_H */
