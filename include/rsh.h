/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rshim-pmd public API: the only header applications include.
 *
 * A device (struct rsh_dev) is opened from a device string: a PCI address
 * ("0000:03:00.2", "03:00.2", "pcie-0000:03:00.2") or an emulated
 * BlueField ("sim:bf3,drain=200M"). A poller (struct rsh_poller) owns the
 * hardware of its devices from one lcore and moves data; applications talk
 * to it only through the objects below (rings inside).
 *
 * Errors: functions returning int give 0 or a negative errno; after a
 * failure rsh_last_error() holds one line that names what is wrong and what
 * to do.
 */
#ifndef RSH_H
#define RSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "rsh_reg_ids.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RSH_DEV_NAME_MAX 64

/** MMIO operation counters of one backend. */
struct rsh_mmio_stats {
	uint64_t reads;
	uint64_t writes;
};

/** Options for opening (and scanning for) devices. */
struct rsh_open_opts {
	/**
	 * The host's sysfs root, for open and scan (tests, containers);
	 * NULL = "/sys". The PCI backend's own options are devargs of the
	 * device string: "0000:03:00.2,mapping=vfio|uio|direct,force-id=1".
	 */
	const char *sysfs_root;
	/** Another driver owns the device: ask it to hand over (OSP_REQ). */
	bool force_own;
	/** Open in drop mode: no register access until rsh_dev_drop(false). */
	bool drop;
	/** Keep the device when another driver asks for it (OSP_REQ). */
	bool no_release;
	/** Ownership check window in ms (0: 1000, the reference's). */
	uint32_t own_wait_ms;
	/**
	 * A livefish function (no NIC firmware) opens in drop mode, as
	 * NVIDIA's daemon keeps it when DROP_MODE is not configured; undrop
	 * (misc FORCE_CMD 1, rsh_dev_drop(false)) activates it. false: a
	 * livefish function named by the caller is used at once.
	 */
	bool livefish_drop;
};

/** PCIe link of a PCI function, as sysfs reports it (zeros: unknown). */
struct rsh_dev_link {
	uint32_t speed_mts;     /**< current speed, MT/s (8000: 8.0 GT/s) */
	uint32_t max_speed_mts; /**< the fastest the link can train to */
	uint8_t width;          /**< current lanes */
	uint8_t max_width;      /**< the most lanes the link can train to */
};

/**
 * A device: one found by rsh_dev_scan(), or an open one
 * (rsh_dev_get_info()). The host side of a PCI function (kdriver,
 * iommu_group, numa_node, link) is what a scan reads from sysfs; an
 * emulated device and rsh_dev_get_info() leave it unset ("", -1, zeros).
 */
struct rsh_dev_info {
	char name[RSH_DEV_NAME_MAX]; /**< device string to pass to open */
	char driver[32];             /**< backend ("sim", "pci") */
	enum rsh_gen gen;
	uint8_t revision;
	uint64_t bar_size;
	bool supported;              /**< false: BAR too small (not livefish) */
	bool livefish;               /**< no NIC firmware: registers through
				       *   the PCI config-space gateway */
	char kdriver[32];            /**< kernel driver bound ("" none) */
	int iommu_group;             /**< -1: none */
	int numa_node;               /**< -1: unknown */
	struct rsh_dev_link link;
};

struct rsh_dev;
struct rsh_poller;
struct rsh_boot;

/** The calling thread's last one-line error message ("" if none). */
const char *rsh_last_error(void);

/**
 * Open a device.
 * @return 0; -EINVAL bad device string or option; -ENODEV no such device or
 *   not a BlueField rshim function; -EACCES/-EPERM permission; -EBUSY owned
 *   or bound elsewhere; -ETIMEDOUT the device did not become reachable.
 */
int rsh_dev_open(const char *devstr, const struct rsh_open_opts *opts,
		 struct rsh_dev **out);

/**
 * Check that some backend accepts the device string (no device access;
 * usable before EAL is initialised).
 * @return 0, or -EINVAL with rsh_last_error() naming the valid forms.
 */
int rsh_dev_check(const char *devstr);

/**
 * The device's host-wide name, for locks that keep two programs of this
 * host off one device (no device access; usable before EAL is up).
 * @return 1 and key filled when other processes can reach the same device
 *   (a PCI function: its canonical address "0000:03:00.2"; an emulated
 *   device with shared=NAME: "sim-shared-NAME"); 0 when the device is
 *   private to the calling process (an emulated device without shared=:
 *   every process has its own); -EINVAL when no backend accepts devstr,
 *   -ENAMETOOLONG when key is too small.
 */
int rsh_dev_host_key(const char *devstr, char *key, size_t len);

/** Close a device (detached from its poller first, if it has one). */
void rsh_dev_close(struct rsh_dev *dev);

/** Device name as given by its backend. */
const char *rsh_dev_name(const struct rsh_dev *dev);

/**
 * The identity of an open device: name, backend, generation, revision,
 * BAR size, livefish (the host-side fields unset, see struct rsh_dev_info).
 * @return 0, or -EINVAL for a NULL argument.
 */
int rsh_dev_get_info(const struct rsh_dev *dev, struct rsh_dev_info *info);

/** Copy of the backend's MMIO counters. */
void rsh_dev_get_stats(const struct rsh_dev *dev, struct rsh_mmio_stats *st);

/** Length of an extended statistic's name, NUL included. */
#define RSH_XSTAT_NAME_SIZE 64

/** Name of one extended statistic (rsh_dev_xstats_get_names()). */
struct rsh_xstat_name {
	char name[RSH_XSTAT_NAME_SIZE];
};

/** One extended statistic: id is its index in the list of names. */
struct rsh_xstat {
	uint64_t id;
	uint64_t value;
};

/**
 * Names of the device's extended statistics, as rte_eth_xstats_get_names():
 * the core's MMIO counters ("mmio_reads", "mmio_writes") first, then the
 * backend's own (the emulator's "sim_*" counters and its MMIO cost model's
 * "sim_cost_*"; a PCI function has none). The list is fixed while the
 * device is open. Any thread.
 * @return the number of statistics; names are filled only when n is at
 *   least that (names may be NULL to ask the number).
 */
int rsh_dev_xstats_get_names(const struct rsh_dev *dev,
			     struct rsh_xstat_name *names, unsigned int n);

/**
 * Values of the device's extended statistics, as rte_eth_xstats_get():
 * xs[i].id = i, the index of its name. Any thread; relaxed reads of
 * counters other threads write, so two values may be a few accesses apart.
 * @return the number of statistics; xs is filled only when n is at least
 *   that (xs may be NULL to ask the number).
 */
int rsh_dev_xstats_get(const struct rsh_dev *dev, struct rsh_xstat *xs,
		       unsigned int n);

/**
 * Print the device-string options of every backend that has them (one
 * line each: syntax, meaning, default), for a program's --help.
 */
void rsh_dev_help(FILE *f);

/**
 * Read / write one register by table name: a command run by the device's
 * poll lcore (or inline when no poller runs it); never while a boot push
 * owns the device. Any thread; waits for the result, holds no lock.
 * @return 0; -ENODEV all-ones read (device gone); -EIO a "not reachable"
 *   pattern (device in reset); -EBUSY a push is running.
 */
int rsh_dev_reg_read(struct rsh_dev *dev, enum rsh_reg reg, uint64_t *val);
int rsh_dev_reg_write(struct rsh_dev *dev, enum rsh_reg reg, uint64_t val);

/**
 * List devices of every backend. Emulated devices are listed only when
 * include_sim is set.
 * @return the number found (may exceed max; only max are filled), or a
 *   negative errno.
 */
int rsh_dev_scan(const struct rsh_open_opts *opts, bool include_sim,
		 struct rsh_dev_info *info, unsigned int max);

/** Poll policy (doc/architecture.md: spin, then back off to a ceiling). */
struct rsh_poll_opts {
	bool busy_poll;          /**< never back off */
	uint32_t idle_spin_us;   /**< spin this long idle before backing off */
	uint32_t max_sleep_us;   /**< back-off ceiling */
	/** Back-off ceiling while a device has TM FIFO channels (0 = the
	 *  default, 500 us): the latency of data the DPU starts sending
	 *  against idle wake-ups (about 2000 a second at 500 us). */
	uint32_t tmfifo_sleep_us;
	/** While a boot push streams, the poll thread runs SCHED_FIFO 1
	 *  where the process may (root or CAP_SYS_NICE), so a busy host
	 *  gives its wake-ups back in time; true keeps it at its own
	 *  priority throughout. */
	bool no_rt_boost;
	/** The raise's CPU cap: percent of one core the thread may use in
	 *  each 100 ms window before it runs at its own priority until the
	 *  window ends (0 = the default, RSH_POLL_RT_CAP_DEFAULT; 100 = no
	 *  cap; the kernel's RT throttling still applies). */
	uint32_t rt_cap_pct;
};

#define RSH_POLL_RT_CAP_DEFAULT 90u

/*
 * Default back-off ceiling of an idle poll loop. Data a user queues wakes
 * the loop at once; data from the device waits at most this long (500 us
 * while a device has TM FIFO channels: the DPU may start a conversation).
 */
#define RSH_POLL_MAX_SLEEP_US_DEFAULT 4000u
#define RSH_POLL_TMFIFO_SLEEP_US_DEFAULT 500u

/** Fill defaults: spin 200 us, ceiling 4000 us, no busy poll. */
void rsh_poll_opts_default(struct rsh_poll_opts *o);

/**
 * Create a poller. It runs on a worker lcore if one is free, else on a
 * control thread (one notice). @return 0, -ENOMEM.
 */
int rsh_poller_create(const struct rsh_poll_opts *opts, struct rsh_poller **out);

/**
 * Attach a device, before rsh_poller_start() or while the poller runs (the
 * poll loop takes it between two passes; nothing else stops).
 * @return 0, -EBUSY attached elsewhere, -ENOSPC the poller is full.
 */
int rsh_poller_add(struct rsh_poller *p, struct rsh_dev *dev);

/**
 * Detach a device, also while the poller runs: its services stop on the
 * poll lcore (a running push ends with -ECANCELED; the "host driver
 * present" bit of SCRATCHPAD6 is cleared), then the calling thread owns it.
 * @return 0, -ENOENT not attached to p.
 */
int rsh_poller_remove(struct rsh_poller *p, struct rsh_dev *dev);

/** Start polling. @return 0, -EALREADY, -ENOTSUP (no lcore, no thread). */
int rsh_poller_start(struct rsh_poller *p);

/** Stop polling and wait for the poll loop to return. */
void rsh_poller_stop(struct rsh_poller *p);

/** Stop (if running) and free. Devices stay open. */
void rsh_poller_destroy(struct rsh_poller *p);

/**
 * Tell the device's poll loop that data was queued for it outside the
 * rsh_tmfifo_* calls (e.g. rte_eth_tx_burst on an ethdev built from the
 * channel rings), so an idle loop wakes now instead of at its next
 * back-off step. Cheap when the loop is awake; any thread.
 */
void rsh_dev_notify(struct rsh_dev *dev);

/** Buckets of rsh_poller_stats.nap_late. */
#define RSH_POLL_LATE_BUCKETS 16
/** Their upper bounds, ns: 1-2-5 steps from 1 us to 50 ms, then all. */
#define RSH_POLL_LATE_BOUNDS_NS { \
	1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, \
	1000000, 2000000, 5000000, 10000000, 20000000, 50000000, UINT64_MAX }

/** Pass counters of a poll loop (written by the loop, read relaxed). */
struct rsh_poller_stats {
	uint64_t passes;      /**< passes over the devices so far */
	uint64_t gap_max_ns;  /**< longest time between two passes: what data
				*   the DPU sends may wait before it is read */
	uint64_t gap_sum_ns;  /**< sum of the gaps (mean = sum / passes) */
	uint64_t last_pass_tsc; /**< TSC cycles (the library's clock) of the last pass */
	/** Timed sleeps of the loop (a push's waits for the DPU to drain):
	 *  how many, by how late they came back (bucket i counts lateness
	 *  below bound i of RSH_POLL_LATE_BOUNDS_NS, above bound i-1),
	 *  and the latest. Late wake-ups on a busy host are what lets a
	 *  boot FIFO run dry. */
	uint64_t naps;
	uint64_t nap_late[RSH_POLL_LATE_BUCKETS];
	uint64_t nap_late_max_ns;
	/** Times the loop raised its priority for a streaming push, and the
	 *  times the CPU cap took it back before the push ended. */
	uint64_t rt_raises;
	uint64_t rt_capped;
	/** Of that, time the loop slept at its raised priority so a
	 *  contended host got the rest of the window (ns). */
	uint64_t rt_yield_ns;
};

/**
 * Copy the loop's pass counters (any thread): relaxed loads only, no
 * system call, so a caller may spin on it (e.g. for last_pass_tsc).
 */
void rsh_poller_get_stats(const struct rsh_poller *p, struct rsh_poller_stats *st);

/**
 * CPU time the poll loop's thread used so far, ns (any thread; 0 before
 * it ran, and for a poller without a thread of its own). It reads the
 * thread's CPU clock, a system call: for reports, not for a spin.
 */
uint64_t rsh_poller_get_cpu_ns(const struct rsh_poller *p);

/** Boot push options. */
struct rsh_boot_opts {
	uint64_t stall_timeout_ms; /**< no FIFO progress this long: -ETIMEDOUT
				     *   (default 300000) */
	int64_t reset_delay_ms;    /**< after the reset key; <0 = device
				     *   default (BF3 3 s, BF1/BF2 5 s, plus
				     *   0.5 s, or what the backend says) */
	bool skip_reset;           /**< BOOT_RESET_SKIP: no BOOT_CONTROL=0, no
				     *   reset key */
	/** Boot FIFO depth the push assumes, words: 0 = the generation's
	 *  (BlueField-3 1024, BlueField-1/2 512, hardware-notes §D6.1); 512
	 *  is the fallback for a BlueField-3 that turns out shallower. */
	uint32_t fifo_words;
	/** Non-zero cancels the reset delay of rsh_boot_open() (e.g. set by
	 *  a SIGINT handler); read with relaxed atomics. May be NULL. */
	const int *cancel_flag;
};

/** Fill defaults. */
void rsh_boot_opts_default(struct rsh_boot_opts *o);

/** Boot push counters (copied out; written by the poll lcore). */
struct rsh_boot_stats {
	uint64_t bytes_queued;   /**< handed to the poll lcore */
	uint64_t bytes_pushed;   /**< written into the boot FIFO */
	uint64_t words_pushed;
	uint64_t fifo_full_waits;/**< times the FIFO had no room */
	uint64_t status_reads;   /**< BOOT_FIFO_COUNT reads of the push (the
				      credit loop's; mmio.reads adds what else
				      ran on the device meanwhile) */
	uint64_t stalls;         /**< no progress for >= 100 ms */
	uint64_t stall_ns;       /**< total time spent in those stalls */
	uint64_t sleeps;         /**< back-off sleeps of the poll lcore */
	uint64_t elapsed_ns;     /**< since the stream started */
	struct rsh_mmio_stats mmio; /**< MMIO during the push only */
};

/**
 * Start a boot push: BOOT_CONTROL=0, ARM watchdog disable, reset key
 * (read-modify-write), reset delay, then hand the device to the poller.
 * The poller must be attached to dev and running.
 * @return 0; -EBUSY a push is already running; -ENODEV/-EIO device gone or
 *   unreachable after reset; -ENOMEM.
 */
int rsh_boot_open(struct rsh_dev *dev, struct rsh_poller *p,
		  const struct rsh_boot_opts *opts, struct rsh_boot **out);

/**
 * Queue bytes for the boot FIFO (copied into hugepage chunks; blocks while
 * every chunk is in flight, with the stall deadline).
 * @return 0, or the push's error: -ETIMEDOUT, -ENODEV, -EIO, -ECANCELED.
 */
int rsh_boot_write(struct rsh_boot *b, const void *buf, size_t len);

/**
 * Read up to max bytes of a file descriptor straight into chunks (no extra
 * copy), so file I/O overlaps the MMIO stream.
 * @return bytes read (0 at end of file), or a negative errno: the push's
 *   error, or -errno of read(2).
 */
ssize_t rsh_boot_write_fd(struct rsh_boot *b, int fd, size_t max);

/**
 * No more input: zero-pad the tail to 8 bytes and queue it (§3.4).
 * @return 0 or the push's error.
 */
int rsh_boot_end_input(struct rsh_boot *b);

/**
 * The push's state: 1 finished (every word in the FIFO, or failed),
 * 0 running, or the negative errno it failed with.
 */
int rsh_boot_state(const struct rsh_boot *b);

/** Ask the push to stop (async-signal-safe). */
void rsh_boot_cancel(struct rsh_boot *b);

/** Current counters. */
void rsh_boot_get_stats(const struct rsh_boot *b, struct rsh_boot_stats *st);

/**
 * Finish: zero-pad and queue the tail, wait until every word is in the
 * FIFO, write BOOT_CONTROL=1 (also after an error or a cancel), free.
 * @return 0 or the push's error (-ETIMEDOUT, -ENODEV, -EIO, -ECANCELED).
 */
int rsh_boot_close(struct rsh_boot *b, struct rsh_boot_stats *final_stats);

/** One decoded record of the rshim scratch log (§5.6). */
struct rsh_scratchlog_rec {
	unsigned int module; /**< 0 MISC, 1 BL1, 2 BL2, 3 BL2R, 4 BL31, 5 UEFI, 6 PSC */
	unsigned int type;   /**< 1 PANIC, 2 EXCEPTION, 4 MSG */
	unsigned int level;  /**< 0 INFO, 1 WARN, 2 ERR, 3 ASSERT */
	char text[160];      /**< " INFO[UEFI]: DPU is ready" */
};

/**
 * Read the scratch log under SEMAPHORE0 (§5.6). clear_on_read rewinds the
 * index to 0 afterwards.
 * @return number of records filled (≤ max), -ETIMEDOUT semaphore not
 *   acquired in 3 s, -ENODEV/-EIO device gone/unreachable, -EBUSY push running.
 */
int rsh_scratchlog_read(struct rsh_dev *dev, bool clear_on_read,
			struct rsh_scratchlog_rec *recs, unsigned int max);

#ifdef __cplusplus
}
#endif

/* TM FIFO console and network channels. */
#include "rsh_tmfifo_api.h"
/* Ownership, misc keys, reset, register access by address. */
#include "rsh_ctl.h"

#endif /* RSH_H */
