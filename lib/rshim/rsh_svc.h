/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-device services of the poll loop, as data: each service
 * describes itself once (struct rsh_svc, in its own file) and takes one
 * row of RSH_SVC_TABLE. The device allocates every service's state from
 * the table at open and a service reaches its own through
 * rsh_dev_svc_state(dev, RSH_SVC_<ID>) (rsh_dev_priv.h).
 *
 * The loop runs the services for every attached device, in table order,
 * on the poll lcore. Each has a poll step (returns the data work done,
 * may lower the loop's sleep) and a stop step (the device leaves the
 * poller: let go of everything, on the poll lcore). Work means data moved
 * or about to move: any non-zero return restarts the loop's idle spin, so
 * a step that only serves a timer (a keepalive write, a periodic register
 * look) returns 0 and relies on the loop's sleep ceiling to run again in
 * time. The flags say when the loop skips a service: one that must keep
 * off the device while the NIC firmware resets it (§6.7) sets
 * RSH_SVC_F_FW_RESET_PAUSE; only one with RSH_SVC_F_RUNS_DROPPED runs for
 * a device in drop mode (§6.4).
 */
#ifndef RSH_SVC_H
#define RSH_SVC_H

#include <stddef.h>
#include <stdint.h>

struct rsh_dev;
struct rsh_open_opts;

/* Service flags. */
#define RSH_SVC_F_RUNS_DROPPED 0x1u   /* polled also in drop mode (§6.4) */
#define RSH_SVC_F_FW_RESET_PAUSE 0x2u /* skipped while a NIC-firmware reset runs */

/* One per-device service of the poll loop. */
struct rsh_svc {
	const char *name;
	/* Poll lcore: one step for dev; @return the work done (0 idle). */
	unsigned int (*poll)(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns);
	/* The device leaves its poller, or closes off any poller (its
	 * owning thread). May be NULL. */
	void (*stop)(struct rsh_dev *dev);
	uint32_t flags;      /* RSH_SVC_F_* */
	/* Bytes of per-device state, zeroed at open (0: none). */
	size_t state_size;
	/* Open, in table order, once the states are zeroed (the opening
	 * thread owns the device). @return 0 or a negative errno, which
	 * fails the open. May be NULL. */
	int (*init)(struct rsh_dev *dev, const struct rsh_open_opts *opts);
	/* Close, in reverse table order, after every stop step, before the
	 * state is freed. May be NULL. */
	void (*fini)(struct rsh_dev *dev);
};

/*
 * The services in poll order: X(ID, descriptor). Adding a service: its
 * file defines the descriptor, and one row goes here.
 */
#define RSH_SVC_TABLE(X)                                                      \
	/* Ownership: keepalive, takeover, LOCK (§6.2-§6.6); the only     \
	 * service that runs for a dropped device. */                     \
	X(OWN, rsh_own_svc)                                                   \
	/* SCRATCHPAD6 handshake and "host driver present" (§6.7). */     \
	X(HK, rsh_hk_svc)                                                     \
	/* Boot FIFO streaming (§3.3). */                                 \
	X(BOOT, rsh_boot_svc)                                                 \
	/* TM FIFO console and network (§4). */                           \
	X(TMFIFO, rsh_tmfifo_svc)

#define RSH_SVC_ID_(id, desc) RSH_SVC_##id,
enum rsh_svc_id {
	RSH_SVC_TABLE(RSH_SVC_ID_)
	RSH_SVC_COUNT
};
#undef RSH_SVC_ID_

#define RSH_SVC_DECL_(id, desc) extern const struct rsh_svc desc;
RSH_SVC_TABLE(RSH_SVC_DECL_)
#undef RSH_SVC_DECL_

/* Most services a device can have (the table's and a test's). */
#define RSH_SVC_MAX 8

/* The table, indexed by enum rsh_svc_id (rsh_svc.c). */
extern const struct rsh_svc *const rsh_svcs[RSH_SVC_COUNT];

/*
 * Tests: the table that devices opened from now on take (a device keeps
 * the one it was opened with); NULL puts rsh_svcs back. The table must
 * begin with rsh_svcs, row for row (a test adds its services after
 * them): the core reaches those services' states by their ids. Call it before
 * the devices and pollers it is for exist. @return 0, -EINVAL.
 */
int rsh_svc_table_set(const struct rsh_svc *const *tab, unsigned int n);

/*
 * The device's service states, from its table: one zeroed allocation
 * (rsh_dev_svc_alloc), then every init (rsh_dev_svc_init, which undoes
 * the earlier ones when one fails); at close rsh_dev_svc_stop (off any
 * poller), rsh_dev_svc_fini, rsh_dev_svc_free. rsh_dev_open and
 * rsh_dev_close do this; a test that builds a device by hand allocates
 * and frees the states itself.
 */
int rsh_dev_svc_alloc(struct rsh_dev *dev);
int rsh_dev_svc_init(struct rsh_dev *dev, const struct rsh_open_opts *opts);
void rsh_dev_svc_stop(struct rsh_dev *dev);
void rsh_dev_svc_fini(struct rsh_dev *dev);
void rsh_dev_svc_free(struct rsh_dev *dev);

#endif /* RSH_SVC_H */
