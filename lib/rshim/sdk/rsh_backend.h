/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The backend seam: every register access of the core goes through this
 * ops table, so the core never knows whether it talks to silicon or to the
 * emulator. Backends (drivers/pci, drivers/sim) register a driver at load
 * time; the core picks one by the device string.
 *
 * Offsets passed to the ops are BAR0 offsets already decoded by the core's
 * register table, which stays private to the core; a backend that needs
 * a register's offset itself asks rsh_backend_reg_off().
 *
 * This header, with rsh_log.h, rsh_clock.h and rsh_tmfifo_proto.h, is the
 * backend SDK (lib/rshim/sdk): what drivers/ may include besides the public
 * headers.
 */
#ifndef RSH_BACKEND_H
#define RSH_BACKEND_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/queue.h>

#include <rte_common.h>

#include "rsh.h"
#include "rsh_clock.h"

struct rsh_backend;

/* What read64 returns when the access itself failed (the value the
 * silicon returns for a bad access, hardware-notes §1.5): the core treats
 * it as a failed read. */
#define RSH_BACKEND_BAD_READ 0xBAD00ACCE55ull

/*
 * Register access operations, called from one thread at a time: the poll
 * lcore of the device while a poller runs it (every control operation is
 * a command that lcore executes, rsh_cmd.h), else the one thread that
 * calls the library for it. No backend needs a lock for its registers.
 */
struct rsh_backend_ops {
	uint64_t (*read64)(struct rsh_backend *be, uint32_t bar_off);
	void (*write64)(struct rsh_backend *be, uint32_t bar_off, uint64_t v);
	/* n posted writes of consecutive words to ONE FIFO data register */
	void (*write_fifo)(struct rsh_backend *be, uint32_t bar_off,
			   const uint64_t *w, unsigned int n);
	/* n reads (pops) of ONE FIFO data register */
	void (*read_fifo)(struct rsh_backend *be, uint32_t bar_off,
			  uint64_t *w, unsigned int n);
	/*
	 * Optional: one 4-byte access of the function's PCI config space at
	 * a 4-byte aligned offset (livefish's address/data window,
	 * hardware-notes §1.7). 0, or a negative errno when the access did
	 * not happen. Backends with cfg_only set must have them.
	 */
	int (*cfg_read)(struct rsh_backend *be, uint32_t off, uint32_t *v);
	int (*cfg_write)(struct rsh_backend *be, uint32_t off, uint32_t v);
	void (*close)(struct rsh_backend *be);
	/*
	 * Optional, non-blocking: 1 when an interrupt (INTx: the NIC
	 * firmware's SCRATCHPAD6 reset handshake, hardware-notes §2.7/§6.7)
	 * arrived since the last call — the backend re-arms INTx before
	 * returning —, 0 when none did, -ENOTSUP when the backend has no
	 * interrupt source (the core then polls SCRATCHPAD6).
	 */
	int (*irq_poll)(struct rsh_backend *be);
	/*
	 * Optional: one 32-bit access at a 4-byte aligned offset, where the
	 * silicon has 32-bit registers (the BlueField-3 YU boot record's OPN
	 * words, hardware-notes §1.4). NULL: the core reads the aligned
	 * 64-bit word and takes its half, and refuses 32-bit writes
	 * (-ENOTSUP) rather than rewrite the neighbouring word.
	 */
	uint32_t (*read32)(struct rsh_backend *be, uint32_t bar_off);
	void (*write32)(struct rsh_backend *be, uint32_t bar_off, uint32_t v);
	/*
	 * Optional: the backend's own counters as extended statistics
	 * (rsh_dev_xstats_get_names / rsh_dev_xstats_get; the core adds its
	 * MMIO counters before them). Each returns how many the backend has,
	 * a number fixed while it is open, and fills names or values only
	 * when n is at least that. Any thread: relaxed loads, no lock. A
	 * stacked backend (livefish gateway) is asked after the one on top.
	 */
	int (*xstats_get_names)(const struct rsh_backend *be,
				struct rsh_xstat_name *names, unsigned int n);
	int (*xstats_get)(const struct rsh_backend *be, uint64_t *values,
			  unsigned int n);
};

/*
 * A probed device. Embedded first in each backend's private struct.
 * Written by the backend's probe; stats written by the thread that owns
 * the device (its poll lcore while a poller runs it), read relaxed.
 */
struct rsh_backend {
	const struct rsh_backend_ops *ops;
	const struct rsh_backend_driver *drv;
	char name[RSH_DEV_NAME_MAX]; /* "sim:bf3", "0000:03:00.2" */
	enum rsh_gen gen;
	uint8_t revision;
	uint64_t bar_size;
	/* Reset delay this device needs, ms; 0 = the generation default. */
	uint32_t reset_delay_ms;
	/* No other rshim driver can reach this device (a private emulation):
	 * the ownership check at open need not watch SCRATCHPAD1 for another
	 * keepalive (hardware-notes §6.3). Written by probe; a backend may
	 * clear it later (relaxed atomics). */
	bool sole_driver;
	/* Livefish (hardware-notes §1.7): cfg_only = the probed function has
	 * no usable BAR, only cfg_read/cfg_write work; the core then stacks
	 * a gateway driver on it (rsh_backend_driver.stack), whose backend
	 * has livefish set, lower pointing here, and owns this one. */
	bool cfg_only;
	bool livefish;
	struct rsh_backend *lower;
	/* Livefish BF3: no gateway access this long after the reset key
	 * (0: the hardware's 10 s, §1.7; an emulation may ask for less). */
	uint32_t lf_quiet_ms;
	/* Added to every reset delay of this device, ms (a livefish
	 * gateway's: the reference's longer livefish delay and BF3's quiet
	 * window, hardware-notes §1.7). */
	uint32_t reset_extra_ms;
	/* Livefish gateway sequence: 0 rshim-pmd's (fewest config cycles),
	 * 1 the reference daemon's as its code behaves (bench baseline). */
	uint8_t lf_seq;
	struct rsh_mmio_stats stats; /* every backend counts its MMIO
				      * (a livefish gateway: config cycles),
				      * with rsh_backend_count() */
};

/*
 * Add n to one of a backend's counters. The owning thread is the only
 * writer; other threads read them (rsh_dev_get_stats, xstats) with
 * relaxed loads, so the store is relaxed-atomic: no lock, no read-modify-
 * write instruction, and no torn value for the readers.
 */
static inline void
rsh_backend_count(uint64_t *ctr, uint64_t n)
{
	__atomic_store_n(ctr, __atomic_load_n(ctr, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* A backend driver: matches device strings and probes devices. */
struct rsh_backend_driver {
	const char *name; /* "sim", "pci" */
	/* A software device (the emulator): rsh_dev_scan() lists this
	 * driver's devices only when asked to include emulated ones. */
	bool emulated;
	/* 1 when this driver handles the device string. */
	int (*match)(const char *devstr);
	/*
	 * Open the device. On failure return a negative errno and set the
	 * one-line message with rsh_err_set().
	 */
	int (*probe)(const char *devstr, const struct rsh_open_opts *opts,
		     struct rsh_backend **out);
	/* Optional: fill up to max entries, return how many were found. */
	int (*scan)(const struct rsh_open_opts *opts, struct rsh_dev_info *info,
		    unsigned int max);
	/*
	 * Optional: the device's name on this host when other processes can
	 * reach the same device (1, key filled), 0 when it is private to the
	 * calling process, negative errno for a bad string. NULL = private.
	 */
	int (*host_key)(const char *devstr, char *key, size_t len);
	/*
	 * Optional: build a backend that reaches the registers of lower (a
	 * cfg_only backend: a livefish function) through its config space.
	 * On success the new backend owns lower (its close closes lower).
	 */
	int (*stack)(struct rsh_backend *lower, struct rsh_backend **out);
	/* Optional: print the device-string options this driver takes (its
	 * lines of a program's --help, rsh_dev_help). */
	void (*help)(FILE *f);
	TAILQ_ENTRY(rsh_backend_driver) next;
};

/** Add a backend driver (called from a constructor). */
void rsh_backend_register(struct rsh_backend_driver *drv);

/** Driver by name, NULL when absent. */
const struct rsh_backend_driver *rsh_backend_find(const char *name);

#define RSH_BACKEND_REGISTER(drv) \
	RTE_INIT(rsh_backend_init_##drv) { rsh_backend_register(&(drv)); }

/**
 * The BAR0 offset of a register on a generation, from the core's table
 * (for a backend that reaches a register outside the ops, e.g. a livefish
 * gateway's boot FIFO).
 * @return 0, or -EINVAL for an unknown generation or register.
 */
int rsh_backend_reg_off(enum rsh_gen gen, enum rsh_reg reg, uint32_t *bar_off);

/**
 * The size of BAR0 on a generation (the rshim window), bytes; 0 for an
 * unknown generation.
 */
uint32_t rsh_backend_bar_size(enum rsh_gen gen);

/** Record the one-line error message of the calling thread (printf-like). */
void rsh_err_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* RSH_BACKEND_H */
