/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ownership of an rshim among the drivers that can reach it (host PCIe,
 * a BMC over USB, another host rshim): the SCRATCHPAD1 software protocol,
 * hardware-notes §6.1-§6.6. Internal to the core.
 */
#ifndef RSH_OWN_H
#define RSH_OWN_H

#include <stdbool.h>
#include <stdint.h>

/* SCRATCHPAD1 words, §6.1. */
#define RSH_OWN_KEEPALIVE 0x0000005089836482ull
#define RSH_OWN_OSP_REQ 0x004F53505F524551ull /* "OSP_REQ" */
#define RSH_OWN_OSP_ACK 0x004F53505F41434Bull /* "OSP_ACK" */
#define RSH_OWN_LOCK 0x4B434F4C00000000ull    /* bytes 4..7 "LOCK" */
/* SCRATCHPAD3 debug command (bits 62:59): the keepalive pauses, §6.2. */
#define RSH_SP3__DBG_CMD_MASK (0xFull << 59)

#define RSH_OWN_KEEPALIVE_MS 300u /* §6.2 */
#define RSH_OWN_CHECK_MS 100u     /* OSP_REQ and LOCK polled every 100 ms */
#define RSH_OWN_WAIT_MS 1000u     /* §6.3 step 5 */
#define RSH_OWN_ACKS 10u          /* §6.5: OSP_ACK 10 times, 100 ms apart */
#define RSH_OWN_RELEASE_MS 1000u  /* §6.5: then 1 s before dropping */

struct rsh_dev;
struct rsh_open_opts;

/* The owner side of a takeover (§6.5), a poll-lcore state machine. */
enum rsh_own_release {
	RSH_OWN_REL_NONE = 0,
	RSH_OWN_REL_ACKING,  /* writing OSP_ACK every 100 ms */
	RSH_OWN_REL_WAITING, /* acked; drop when the second elapses */
};

/*
 * Ownership state of one device. Settings are written at open. dropped
 * and locked are written by the owning thread and read by anyone
 * (atomics); debug_code, the timers and the release machine belong to the
 * owning thread; counters are read by anyone with relaxed loads.
 */
struct rsh_own {
	bool no_release;          /* ignore a peer's OSP_REQ */
	uint32_t wait_ms;         /* §6.3 step 5 window */
	uint32_t dropped;         /* 1: hands off every register */
	uint32_t locked;          /* 1: SCRATCHPAD1 reads LOCK (§6.6) */
	uint64_t debug_code;      /* DEBUG_CODE (owning thread) */
	uint32_t force_pending;   /* FORCE_CMD accepted, not yet run */
	enum rsh_own_release rel;
	unsigned int acks_left;
	uint64_t next_check;      /* TSC */
	uint64_t next_keepalive;  /* TSC */
	uint64_t release_at;      /* TSC */
	uint64_t keepalives;      /* magic words written */
	uint64_t releases;        /* handed over to a requester */
	uint64_t takeovers;       /* taken over with OSP_REQ */
};

/* Leave drop mode through the access check (a command). */
int rsh_own_undrop(struct rsh_dev *dev, bool force);

/* Commands: enter drop mode; set DEBUG_CODE. 0 or -errno. */
int rsh_own_drop(struct rsh_dev *dev);
int rsh_own_debug_code(struct rsh_dev *dev, uint64_t code);


/* 0 when registers may be used; -EBUSY dropped (line set). */
int rsh_own_access_ok(struct rsh_dev *dev);

/* 0, -EBUSY dropped, -EPERM locked (secure NIC mode): boot and console. */
int rsh_own_boot_ok(struct rsh_dev *dev, const char *what);

/* True while dropped (relaxed; any thread). */
static inline bool
rsh_own_dropped(const struct rsh_own *o)
{
	return __atomic_load_n(&o->dropped, __ATOMIC_ACQUIRE) != 0;
}

#endif /* RSH_OWN_H */
