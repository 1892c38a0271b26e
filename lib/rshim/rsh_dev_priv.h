/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device object, shared by the core's files (not by apps, not by
 * backends). Tests may include it to reach the backend of a device.
 */
#ifndef RSH_DEV_PRIV_H
#define RSH_DEV_PRIV_H

#include <pthread.h>
#include <inttypes.h>
#include <stdint.h>

#include "rsh.h"
#include "rsh_backend.h"
#include "rsh_clock.h"
#include "rsh_misc.h"
#include "rsh_own.h"
#include "rsh_regs.h"
#include "rsh_svc.h"

struct rsh_boot;
struct rsh_tmfifo;

/*
 * Housekeeping state of one device (poll lcore only, except the counters,
 * which the control path may read with relaxed loads).
 */
struct rsh_hk {
	uint64_t next_irq;      /* TSC: next interrupt-source check */
	uint64_t next_sp6;      /* TSC: next SCRATCHPAD6 poll */
	uint64_t blocked_until; /* TSC: NIC-firmware reset in progress */
	bool no_irq;            /* the backend has no interrupt source */
	uint8_t pend_polls;     /* 300 ms polls that saw a request no
				 * interrupt announced */
	bool irq_silent_said;   /* the no-INTx fallback was logged */
	uint64_t rst_requests;  /* REQUEST acknowledged */
	uint64_t rst_starts;    /* START acknowledged */
	uint64_t rst_aborts;    /* ABORT cleared */
	uint64_t irqs;          /* interrupts seen */
};

/* The boot service's state of one device (rsh_boot*.c). */
struct rsh_boot_state {
	/* The running push: set and cleared by the device's owning thread
	 * (a boot command); others read it with acquire loads. */
	struct rsh_boot *push;
	/* A boot open command is past BOOT_CONTROL=0 (owning thread only):
	 * the TM FIFO keeps to the console, as during the push. */
	bool opening;
};

/* The TM FIFO service's state of one device (rsh_tmfifo*.c). */
struct rsh_tmfifo_state {
	/* The channels: published and withdrawn by the owning thread (an
	 * attach/detach command); users read it with acquire loads. */
	struct rsh_tmfifo *t;
};

/*
 * One opened device. Fields are written by rsh_dev_open() and then only
 * read, except where noted.
 */
struct rsh_dev {
	char name[RSH_DEV_NAME_MAX];
	struct rsh_backend *be;
	struct rsh_regmap map;
	/* The poller this device is attached to: set by rsh_poller_add()
	 * before the attach command, cleared after the detach command. */
	struct rsh_poller *poller;
	/* misc settings (control path; rsh_misc.c). */
	struct rsh_misc_cfg misc;
	/* The poll-loop services (rsh_svc.h): the table the device was
	 * opened with and each service's state, all in svc_mem. */
	const struct rsh_svc *const *svcs;
	unsigned int n_svcs;
	void *svc_state[RSH_SVC_MAX];
	void *svc_mem;
};

/* A service's state of dev (NULL for a service without state). Who may
 * touch it when is the service's own rule. */
static inline void *
rsh_dev_svc_state(const struct rsh_dev *dev, enum rsh_svc_id id)
{
	return dev->svc_state[id];
}

/* Typed forms for the services other files look at. */
static inline struct rsh_own *
rsh_dev_own(const struct rsh_dev *dev)
{
	return rsh_dev_svc_state(dev, RSH_SVC_OWN);
}

static inline struct rsh_hk *
rsh_dev_hk(const struct rsh_dev *dev)
{
	return rsh_dev_svc_state(dev, RSH_SVC_HK);
}

static inline struct rsh_boot_state *
rsh_dev_boot_state(const struct rsh_dev *dev)
{
	return rsh_dev_svc_state(dev, RSH_SVC_BOOT);
}

static inline struct rsh_tmfifo_state *
rsh_dev_tmfifo_state(const struct rsh_dev *dev)
{
	return rsh_dev_svc_state(dev, RSH_SVC_TMFIFO);
}

/* One 32-bit access by BAR offset (4-aligned): the backend's own when it
 * has one; a read falls back to the half of the 64-bit word. A write
 * without the op is the caller's -ENOTSUP. */
static inline uint32_t
rsh_dev_rd32_off(struct rsh_dev *dev, uint32_t off)
{
	uint64_t w;

	if (dev->be->ops->read32 != NULL)
		return dev->be->ops->read32(dev->be, off);
	w = dev->be->ops->read64(dev->be, off & ~7u);
	return (off & 4) ? (uint32_t)(w >> 32) : (uint32_t)w;
}

/*
 * The register trace (logtype pmd.rshim.reg, debug): the command a thread
 * is running, set around each command step (rsh_cmd.c), so the accesses
 * of control operations are recorded and the poll loop's own data-path
 * accesses are not. FIFO words (read_fifo/write_fifo) are never traced.
 */
extern __thread const char *rsh_reg_trace_cmd;
void rsh_reg_trace(const struct rsh_dev *dev, uint32_t off, unsigned int bits,
		   bool wr, uint64_t v);

/* One register read through the backend (decoded by the table). */
static inline uint64_t
rsh_dev_rd(struct rsh_dev *dev, enum rsh_reg reg)
{
	uint64_t v = dev->be->ops->read64(dev->be, dev->map.off[reg]);

	if (unlikely(rsh_reg_trace_cmd != NULL))
		rsh_reg_trace(dev, dev->map.off[reg], 64, false, v);
	return v;
}

/* One register write through the backend. */
static inline void
rsh_dev_wr(struct rsh_dev *dev, enum rsh_reg reg, uint64_t v)
{
	if (unlikely(rsh_reg_trace_cmd != NULL))
		rsh_reg_trace(dev, dev->map.off[reg], 64, true, v);
	dev->be->ops->write64(dev->be, dev->map.off[reg], v);
}

/* Map a read value to an errno: all-ones = gone, other bad patterns = in
 * reset / unreachable, §1.4. */
static inline int
rsh_dev_val_err(uint64_t v)
{
	if (v == RSH_ALL_ONES)
		return -ENODEV;
	if (rsh_reg_val_is_bad(v))
		return -EIO;
	return 0;
}

/* True while a NIC-firmware reset blocks register access (§6.7). */
static inline bool
rsh_hk_blocked(const struct rsh_dev *dev, uint64_t now)
{
	return now < rsh_dev_hk(dev)->blocked_until;
}

/* Wake the poll loop of a device (a user queued data for it). */
void rsh_poller_kick(struct rsh_poller *p);

/* The control path waits up to ns for the device's poll loop (a driven
 * poller runs a pass meanwhile, rsh_poll_priv.h). */
void rsh_dev_ctl_wait(struct rsh_dev *dev, uint64_t ns);

/* Kick the device's poller, if it has one (user side, after an enqueue). */
static inline void
rsh_dev_kick(struct rsh_dev *dev)
{
	struct rsh_poller *p = dev->poller;

	if (p != NULL)
		rsh_poller_kick(p);
}

/*
 * A NIC-firmware reset starts (poll lcore): drop the half-sent TX message
 * and the RX parser state; sync words go out when the device is back.
 */
void rsh_tmfifo_discard(struct rsh_dev *dev);

/* Backend driver name ("sim", "pci"; "?" when none). */
const char *rsh_dev_drv_name(const struct rsh_dev *dev);

#endif /* RSH_DEV_PRIV_H */
