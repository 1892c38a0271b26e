/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsh_bench: the benchmarks' internal library (built for rshim-pmd-app,
 * not installed, not part of librshim-pmd). It holds the reference models
 * of NVIDIA's rshim daemon, modelled on its code, that drive a device's
 * registers directly as that daemon does:
 *
 *   rsh_bench_ref_boot.c    its boot push (three threads, 16 KiB hand-offs)
 *   rsh_bench_ref_tmfifo.c  its TM FIFO schedule (1 ms tick)
 *   rsh_bench_xstats.c      counters by name, the boot FIFO's geometry
 *
 * This header is all a program sees of it: the models sit at the core's
 * level (they reach the register table), the programs do not.
 *
 * Time is the programs' monotonic clock (rsh_mono.h): deadlines passed in
 * are rsh_mono_s() values. Cancel flags are read with relaxed loads.
 */
#ifndef RSH_BENCH_REF_H
#define RSH_BENCH_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "rsh.h"

/* ---- extended statistics by name (rsh_dev_xstats_get) ---- */

/*
 * ids[i] = the id of dev's statistic called names[i], -1 when it has none
 * of that name (a PCI function has no "sim_*"). Resolve once, then read
 * with rsh_bench_xstats_read.
 * @return how many names were found, or a negative errno.
 */
int rsh_bench_xstats_ids(const struct rsh_dev *dev, const char *const *names,
			 int *ids, unsigned int n);

/* vals[i] = the value of statistic ids[i] now (0 for an id < 0).
 * @return 0 or a negative errno (vals then all 0). */
int rsh_bench_xstats_read(const struct rsh_dev *dev, const int *ids,
			  uint64_t *vals, unsigned int n);

/* Both at once: vals[i] = the statistic called names[i] now, 0 when dev
 * has none of that name. @return how many were found, or a negative errno. */
int rsh_bench_xstats_by_name(const struct rsh_dev *dev, const char *const *names,
			     uint64_t *vals, unsigned int n);

/* Words a credit-based push may write per BOOT_FIFO_COUNT read: the depth
 * it assumes for gen (BlueField-3 1024, others 512) less the 3 kept free. */
unsigned int rsh_bench_boot_credit(enum rsh_gen gen);

/* ---- the reference daemon's boot push (rsh_bench_ref_boot.c) ---- */

struct rsh_bench_ref_boot {
	/* in */
	const uint8_t *pat;     /* the stream, repeated every pat_len bytes */
	uint64_t pat_len;
	uint64_t size;          /* bytes to push */
	double until_s;         /* give up at this rsh_mono_s() */
	int nice;               /* the worker's nice (0: as it is) */
	uint32_t write_ns;      /* kernel round trip per write() (cat) */
	const int *cancel;      /* non-zero: stop now (Ctrl-C) */
	/* called with how late each 1 ms sleep of the write() thread came
	 * back, ns (may be NULL) */
	void (*late)(void *arg, uint64_t ns);
	void *late_arg;
	/* out */
	uint64_t bytes;         /* words written into the FIFO * 8 */
	uint64_t short_writes;  /* write() calls that returned short */
	uint64_t full_sleeps;   /* 1 ms sleeps after no progress */
};

/* The open sequence the push needs (BOOT_CONTROL=0, reset key, wait until
 * the rshim answers). @return 0, -EIO, -ETIMEDOUT. */
int rsh_bench_ref_boot_open(struct rsh_dev *dev);

/* Push b->size bytes as the daemon does (its threads started and joined
 * here; one push at a time). @return 0, -ECANCELED (cancel or until_s),
 * -ETIMEDOUT (no progress for the daemon's boot timeout), -EAGAIN. */
int rsh_bench_ref_boot_push(struct rsh_dev *dev, struct rsh_bench_ref_boot *b);

/* After the push: BOOT_CONTROL back to eMMC boot. */
void rsh_bench_ref_boot_close(struct rsh_dev *dev);

/* ---- the reference daemon's TM FIFO schedule (rsh_bench_ref_tmfifo.c) ---- */

/* The reference schedule's figures. */
struct rsh_tb_ref {
	double rtt_p50_us, rtt_p99_us;  /* 64 B round trips while active */
	double idle_first_us;           /* first round trip after the idle period */
	double idle_wakeups_s;          /* wake-ups per second while idle */
	double idle_cpu_pct;            /* CPU of the loop while idle */
	double net_rx_mib_s;            /* DPU -> host frames, cost model on */
};

/* On dev (an emulated BlueField-3, booted, the built-in responder): 64 B
 * round trips for secs, then idle for 2 x secs and the first round trip
 * after it, into r's rtt and idle figures. */
void rsh_bench_ref_tmfifo_latency(struct rsh_dev *dev, double secs,
				  const int *cancel, struct rsh_tb_ref *r);

/* On dev (as above, the MMIO cost model on): 1500 B ICMP echo throughput
 * for secs, 48 requests in flight, into r->net_rx_mib_s. */
void rsh_bench_ref_tmfifo_net(struct rsh_dev *dev, double secs,
			      const int *cancel, struct rsh_tb_ref *r);

/* Median and 99th percentile of n samples (sorted in place; 0 when n is 0). */
void rsh_bench_tmfifo_pctl(double *s, unsigned int n, double *p50, double *p99);

#endif /* RSH_BENCH_REF_H */
