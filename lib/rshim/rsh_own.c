/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ownership of the rshim, hardware-notes §6: the access check at open
 * (§6.3), the SCRATCHPAD1 keepalive every 300 ms from the poll lcore
 * (§6.2; it also runs during a boot push's reset delay, when the control
 * path sleeps, so a BMC rshim cannot take the device then), both roles of
 * the OSP_REQ/OSP_ACK takeover (§6.5), drop mode (§6.4) and the secure NIC
 * mode LOCK word (§6.6).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "rsh_cmd.h"
#include "rsh_dev_priv.h"
#include "rsh_log.h"
#include "rsh_own.h"

#define RSH_OWN_FABRIC_TRIES 10u     /* §6.3 step 1: 10 x 100 ms */
#define RSH_OWN_POLL_MS 10u          /* §6.3 step 5: SCRATCHPAD1 every 10 ms */
#define RSH_OWN_REQ_TRIES 10u        /* §6.5: OSP_REQ up to 10 times */
/* A SCRATCHPAD1 that read 0 before we cleared it had no keepalive running:
 * a live owner rewrites the magic every 300 ms, so one period plus margin
 * is enough to be sure. With anything else there we wait the full second. */
#define RSH_OWN_WAIT_IDLE_MS 400u
/* After an OSP_ACK the old owner keeps acking up to 1 s: the check waits
 * for the acks to stop, within this bound. */
#define RSH_OWN_ACK_DRAIN_MS 3000u

/* True when a process whose name starts with prefix runs here (not us). */
static int
rsh_own_find_proc(const char *prefix)
{
	char path[64], comm[32];
	struct dirent *de;
	int found = 0;
	DIR *d = opendir("/proc");

	if (d == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		FILE *f;

		if (!isdigit((unsigned char)de->d_name[0]) || atoi(de->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/comm", de->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) != NULL &&
		    strncmp(comm, prefix, strlen(prefix)) == 0)
			found = atoi(de->d_name);
		fclose(f);
	}
	closedir(d);
	return found;
}

/* Who may own the device, for the -EBUSY line: SCRATCHPAD1 does not say,
 * so name the rshim drivers running here, else the ones outside. */
static void
rsh_own_guess(char *buf, size_t len)
{
	int pid = rsh_own_find_proc("rshim-pmd");

	if (pid > 0) {
		snprintf(buf, len, "another rshim-pmd process (pid %d runs here) or a BMC rshim over USB",
			 pid);
		return;
	}
	pid = rsh_own_find_proc("rshim");
	if (pid > 0)
		snprintf(buf, len, "NVIDIA's rshim daemon (pid %d runs here) or a BMC rshim over USB",
			 pid);
	else
		snprintf(buf, len, "a driver outside this host (a BMC rshim over USB, or a VM)");
}

/* Access-check states (a command: each step short, no sleeping). */
enum rsh_own_chk_state {
	RSH_OC_FABRIC = 0, /* §6.3 step 1: FABRIC_DIM, 10 x 100 ms */
	RSH_OC_CLEAR,      /* steps 3-4: read, then clear SCRATCHPAD1 */
	RSH_OC_WATCH,      /* step 5: every 10 ms for the window */
	RSH_OC_REQUEST,    /* §6.5 requester: OSP_REQ, look for OSP_ACK */
	RSH_OC_MINE,       /* step 6: the keepalive is ours */
};

/* The access check as a command, with its private state. */
struct rsh_own_chk {
	struct rsh_cmd c;
	int state;           /* enum rsh_own_chk_state */
	bool force;
	bool other;          /* out: another owner's keepalive seen */
	unsigned int round;  /* 1 after a takeover was acknowledged */
	uint64_t next;       /* TSC: the next OSP_REQ write */
	uint64_t end;        /* TSC: the current state's deadline */
	uint64_t hard;       /* TSC: stop waiting for the acks to end */
};

/* SCRATCHPAD1 reads the secure NIC mode word (§6.6). Not on livefish:
 * NVIDIA's README says the mode applies to the PCIe backend only, so a
 * livefish function never counts as locked. */
static bool
rsh_own_is_lock(const struct rsh_dev *dev, uint64_t v)
{
	return v == RSH_OWN_LOCK && !dev->be->livefish;
}

/* Lock seen: remember it and say what it means. */
static void
rsh_own_set_locked(struct rsh_dev *dev)
{
	if (!__atomic_exchange_n(&rsh_dev_own(dev)->locked, 1, __ATOMIC_ACQ_REL))
		RSH_DEV_LOG(NOTICE, dev, "SCRATCHPAD1 reads LOCK: the NIC firmware is in secure NIC mode; boot pushes and the console are refused");
}

/* FABRIC: sane -> CLEAR; 0 retried then accepted; bad -> error. */
static int
rsh_own_chk_fabric(struct rsh_cmd *c, struct rsh_own_chk *k, uint64_t now)
{
	uint64_t v = rsh_dev_rd(c->dev, RSH_FABRIC_DIM);
	bool more;

	if (k->end == 0)
		k->end = now + rsh_ms_cyc(RSH_OWN_FABRIC_TRIES * 100);
	more = now < k->end; /* steps may come every 10 ms: count time */
	if (v == RSH_ALL_ONES || (rsh_reg_val_is_bad(v) && !more)) {
		rsh_err_set("%s: FABRIC_DIM reads 0x%" PRIx64 ": %s", c->dev->name, v,
			    v == RSH_ALL_ONES ? "the device is gone (removed or link down); check lspci" :
			    "the rshim is not reachable (held in reset?); retry in a few seconds");
		return rsh_cmd_finish(c, v == RSH_ALL_ONES ? -ENODEV : -ETIMEDOUT);
	}
	if (v == 0 && more)
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(100));
	if (rsh_reg_val_is_bad(v))
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(100));
	if (v == 0)
		RSH_DEV_LOG(INFO, c->dev, "FABRIC_DIM reads 0 after %u tries; going on (NVIDIA's rshim daemon accepts it too)",
			    RSH_OWN_FABRIC_TRIES);
	k->state = RSH_OC_CLEAR;
	return rsh_cmd_again(c, now, now);
}

/* CLEAR: LOCK means secure NIC mode; else clear and start watching. */
static int
rsh_own_chk_clear(struct rsh_cmd *c, struct rsh_own_chk *k, uint64_t now)
{
	uint64_t first = rsh_dev_rd(c->dev, RSH_SCRATCHPAD1);
	uint32_t ms = first == 0 ? RSH_OWN_WAIT_IDLE_MS : rsh_dev_own(c->dev)->wait_ms;

	if (rsh_own_is_lock(c->dev, first)) {
		rsh_own_set_locked(c->dev);
		return rsh_cmd_finish(c, 0);
	}
	rsh_dev_wr(c->dev, RSH_SCRATCHPAD1, 0);
	if (__atomic_load_n(&c->dev->be->sole_driver, __ATOMIC_RELAXED)) {
		/* Nobody else can write the word: nothing to watch for. */
		k->state = RSH_OC_MINE;
		return rsh_cmd_again(c, now, now);
	}
	k->end = now + rsh_ms_cyc(ms);
	k->hard = now + rsh_ms_cyc(RSH_OWN_ACK_DRAIN_MS);
	k->state = RSH_OC_WATCH;
	return rsh_cmd_again(c, now, now + rsh_ms_cyc(RSH_OWN_POLL_MS));
}

/* WATCH: the keepalive back means another owner; quiet means ours. */
static int
rsh_own_chk_watch(struct rsh_cmd *c, struct rsh_own_chk *k, uint64_t now)
{
	uint64_t v = rsh_dev_rd(c->dev, RSH_SCRATCHPAD1);

	if (rsh_own_is_lock(c->dev, v)) {
		rsh_own_set_locked(c->dev);
		return rsh_cmd_finish(c, 0);
	}
	if (v == RSH_ALL_ONES) {
		rsh_err_set("%s: SCRATCHPAD1 reads all-ones: the device is gone", c->dev->name);
		return rsh_cmd_finish(c, -ENODEV);
	}
	if (v == RSH_OWN_KEEPALIVE) {
		if (!k->force || k->round > 0) {
			k->other = true;
			return rsh_cmd_finish(c, -EBUSY);
		}
		rsh_dev_wr(c->dev, RSH_SCRATCHPAD1, RSH_OWN_OSP_REQ);
		k->next = now + rsh_ms_cyc(100);
		k->end = now + rsh_ms_cyc(RSH_OWN_REQ_TRIES * 100);
		k->state = RSH_OC_REQUEST;
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(100));
	}
	if (v == RSH_OWN_OSP_ACK && now < k->hard) {
		/* The old owner still acks: start the window again. */
		rsh_dev_wr(c->dev, RSH_SCRATCHPAD1, 0);
		k->end = now + rsh_ms_cyc(rsh_dev_own(c->dev)->wait_ms);
	}
	if (now < k->end)
		return rsh_cmd_again(c, now, now + rsh_ms_cyc(RSH_OWN_POLL_MS));
	k->state = RSH_OC_MINE;
	return rsh_cmd_again(c, now, now);
}

/* REQUEST (§6.5): OSP_REQ up to 10 times, 100 ms apart, until OSP_ACK. */
static int
rsh_own_chk_request(struct rsh_cmd *c, struct rsh_own_chk *k, uint64_t now)
{
	if (rsh_dev_rd(c->dev, RSH_SCRATCHPAD1) == RSH_OWN_OSP_ACK) {
		RSH_DEV_LOG(NOTICE, c->dev, "the other rshim driver acknowledged the takeover (OSP_ACK)");
		__atomic_fetch_add(&rsh_dev_own(c->dev)->takeovers, 1, __ATOMIC_RELAXED);
		k->round = 1;
		k->state = RSH_OC_CLEAR;
		return rsh_cmd_again(c, now, now);
	}
	if (now < k->end) {
		if (now >= k->next) {
			rsh_dev_wr(c->dev, RSH_SCRATCHPAD1, RSH_OWN_OSP_REQ);
			k->next = now + rsh_ms_cyc(100);
		}
		return rsh_cmd_again(c, now, k->next);
	}
	rsh_err_set("%s: --force: the other rshim driver did not answer the takeover request (OSP_REQ) within 1 s; it does not implement the protocol: stop it (or detach it on the BMC) and retry",
		    c->dev->name);
	return rsh_cmd_finish(c, -EBUSY);
}

/* MINE (§6.3 step 6): write the keepalive; the read-back must be sane. */
static int
rsh_own_chk_mine(struct rsh_cmd *c)
{
	struct rsh_own *o = rsh_dev_own(c->dev);
	uint64_t v;

	rsh_dev_wr(c->dev, RSH_SCRATCHPAD1, RSH_OWN_KEEPALIVE);
	__atomic_fetch_add(&o->keepalives, 1, __ATOMIC_RELAXED);
	v = rsh_dev_rd(c->dev, RSH_SCRATCHPAD1);
	if (rsh_reg_val_is_bad(v)) {
		rsh_err_set("%s: SCRATCHPAD1 reads 0x%" PRIx64 " after the keepalive: the rshim is not reachable",
			    c->dev->name, v);
		return rsh_cmd_finish(c, rsh_dev_val_err(v));
	}
	o->rel = RSH_OWN_REL_NONE;
	o->next_keepalive = 0;
	__atomic_store_n(&o->dropped, 0, __ATOMIC_RELEASE);
	return rsh_cmd_finish(c, 0);
}

/* The access check, one state per step. */
static int
rsh_own_chk_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_own_chk *k = container_of(c, struct rsh_own_chk, c);

	switch (k->state) {
	case RSH_OC_FABRIC:
		return rsh_own_chk_fabric(c, k, now);
	case RSH_OC_CLEAR:
		return rsh_own_chk_clear(c, k, now);
	case RSH_OC_WATCH:
		return rsh_own_chk_watch(c, k, now);
	case RSH_OC_REQUEST:
		return rsh_own_chk_request(c, k, now);
	default:
		return rsh_own_chk_mine(c);
	}
}

static const struct rsh_cmd_type rsh_own_chk_type = {
	.name = "ownership check", .step = rsh_own_chk_step,
	/* FABRIC 1 s, REQUEST 1 s, the ack drain twice; + the windows */
	.run_ms = RSH_OWN_FABRIC_TRIES * 100 + RSH_OWN_REQ_TRIES * 100 +
		  2 * RSH_OWN_ACK_DRAIN_MS,
};

/* Run the access check on the device's owning thread; the line naming
 * the other owner is written here, off the poll lcore (/proc scan). */
static int
rsh_own_check(struct rsh_dev *dev, bool force)
{
	struct rsh_own_chk k = { .force = force };
	char who[96];
	int rc;

	/* Each window may run twice (a takeover), restarted by acks. */
	k.c.extra_ms = 2 * rsh_dev_own(dev)->wait_ms;
	rc = RSH_CMD_CALL(&rsh_own_chk_type, dev, &k, c);
	if (rc == -EBUSY && k.other) {
		rsh_own_guess(who, sizeof(who));
		rsh_err_set("%s: another rshim driver owns this BlueField (its keepalive runs in SCRATCHPAD1); it seems to be %s; stop it, or give --force to ask it to hand over",
			    dev->name, who);
	}
	return rc;
}

/* Service init: the access check at open (§6.3), with a takeover when
 * opts->force_own; the opening thread owns the device until it joins a
 * poller. */
static int
rsh_own_open(struct rsh_dev *dev, const struct rsh_open_opts *opts)
{
	struct rsh_own *o = rsh_dev_own(dev);

	o->no_release = opts->no_release;
	o->wait_ms = opts->own_wait_ms ? opts->own_wait_ms : RSH_OWN_WAIT_MS;
	if (opts->drop) {
		/* §6.4: a dropped device is not touched at all. */
		__atomic_store_n(&o->dropped, 1, __ATOMIC_RELEASE);
		RSH_DEV_LOG(NOTICE, dev, "opened in drop mode: no register access until undropped");
		return 0;
	}
	if (opts->livefish_drop && dev->be->livefish) {
		/* §6.4: livefish stays dropped unless DROP_MODE is configured. */
		__atomic_store_n(&o->dropped, 1, __ATOMIC_RELEASE);
		RSH_DEV_LOG(NOTICE, dev, "livefish function (no NIC firmware): kept in drop mode by default; activate it with DROP_MODE 0 in the configuration or misc FORCE_CMD 1");
		return 0;
	}
	return rsh_own_check(dev, opts->force_own);
}

/* Leave drop mode: the access check again, as a command. */
int
rsh_own_undrop(struct rsh_dev *dev, bool force)
{
	int rc = rsh_own_check(dev, force);

	if (rc == 0)
		RSH_DEV_LOG(NOTICE, dev, "left drop mode: this process owns the device again");
	return rc;
}

/* Owning thread: the device goes to drop mode (§6.4). clear: release the
 * PF words as on a user's drop; a takeover leaves SCRATCHPAD1 to the new
 * owner, whose magic is there by then. */
static void
rsh_own_enter_drop(struct rsh_dev *dev, bool clear)
{
	if (clear) {
		rsh_dev_wr(dev, RSH_SCRATCHPAD1, 0);
		rsh_dev_wr(dev, RSH_SCRATCHPAD6, 0);
	}
	rsh_dev_own(dev)->rel = RSH_OWN_REL_NONE;
	__atomic_store_n(&rsh_dev_own(dev)->dropped, 1, __ATOMIC_RELEASE);
}

/* Command step: enter drop mode. */
static int
rsh_own_drop_step(struct rsh_cmd *c, uint64_t now)
{
	RTE_SET_USED(now);
	if (!rsh_own_dropped(rsh_dev_own(c->dev)))
		rsh_own_enter_drop(c->dev, true);
	return rsh_cmd_finish(c, 0);
}

static const struct rsh_cmd_type rsh_own_drop_type = {
	.name = "drop", .step = rsh_own_drop_step, .run_ms = 1000,
};

/* Enter drop mode on the owning thread. */
int
rsh_own_drop(struct rsh_dev *dev)
{
	struct rsh_cmd c = { 0 };

	return rsh_cmd_call(&rsh_own_drop_type, dev, &c, &c, sizeof(c));
}

/* DEBUG_CODE: the code to write. */
struct rsh_own_debug_cmd {
	struct rsh_cmd c;
	uint64_t code;
};

/* Command step: DEBUG_CODE into SCRATCHPAD1; the keepalive stops while
 * it is non-zero (§5.5). */
static int
rsh_own_debug_step(struct rsh_cmd *c, uint64_t now)
{
	uint64_t code = container_of(c, struct rsh_own_debug_cmd, c)->code;
	int rc = rsh_own_access_ok(c->dev);

	RTE_SET_USED(now);
	if (rc == 0) {
		if (code != 0)
			rsh_dev_wr(c->dev, RSH_SCRATCHPAD1, code);
		rsh_dev_own(c->dev)->debug_code = code;
		rsh_dev_own(c->dev)->next_keepalive = 0;
	}
	return rsh_cmd_finish(c, rc);
}

static const struct rsh_cmd_type rsh_own_debug_type = {
	.name = "DEBUG_CODE", .step = rsh_own_debug_step, .run_ms = 1000,
};

/* Set DEBUG_CODE on the owning thread. */
int
rsh_own_debug_code(struct rsh_dev *dev, uint64_t code)
{
	struct rsh_own_debug_cmd d = { .code = code };

	return RSH_CMD_CALL(&rsh_own_debug_type, dev, &d, c);
}

/* Owner side of §6.5: ack 10 times at 100 ms, wait 1 s, drop. */
static unsigned int
rsh_own_release_step(struct rsh_dev *dev, uint64_t now)
{
	struct rsh_own *o = rsh_dev_own(dev);

	if (o->rel == RSH_OWN_REL_ACKING) {
		rsh_dev_wr(dev, RSH_SCRATCHPAD1, RSH_OWN_OSP_ACK);
		if (--o->acks_left == 0) {
			o->rel = RSH_OWN_REL_WAITING;
			o->release_at = now + rsh_ms_cyc(RSH_OWN_RELEASE_MS);
		}
		return 1;
	}
	if (now < o->release_at)
		return 0;
	__atomic_fetch_add(&o->releases, 1, __ATOMIC_RELAXED);
	rsh_own_enter_drop(dev, false);
	RSH_DEV_LOG(NOTICE, dev, "handed the device over to the rshim driver that asked (OSP_REQ); now in drop mode");
	return 1;
}

/* The 100 ms look at SCRATCHPAD1: LOCK, OSP_REQ, or a keepalive due. */
static unsigned int
rsh_own_check_step(struct rsh_dev *dev, uint64_t now)
{
	struct rsh_own *o = rsh_dev_own(dev);
	uint64_t v = rsh_dev_rd(dev, RSH_SCRATCHPAD1);

	if (rsh_reg_val_is_bad(v))
		return 0; /* gone or in reset: the data paths report it */
	if (rsh_own_is_lock(dev, v)) {
		rsh_own_set_locked(dev);
		return 0;
	}
	if (__atomic_exchange_n(&o->locked, 0, __ATOMIC_ACQ_REL)) {
		RSH_DEV_LOG(NOTICE, dev, "secure NIC mode lifted (SCRATCHPAD1 no longer reads LOCK)");
		/* We wrote nothing while locked: a keepalive there now is
		 * another driver's, which took the device meanwhile (§6.6). */
		if (v == RSH_OWN_KEEPALIVE) {
			rsh_own_enter_drop(dev, false);
			RSH_DEV_LOG(NOTICE, dev, "another rshim driver owns the device since secure NIC mode; now in drop mode");
			return 1;
		}
	}
	if (v == RSH_OWN_OSP_REQ && !o->no_release) {
		o->rel = RSH_OWN_REL_ACKING;
		o->acks_left = RSH_OWN_ACKS;
		return rsh_own_release_step(dev, now);
	}
	if (o->debug_code != 0 || now < o->next_keepalive)
		return 0;
	o->next_keepalive = now + rsh_ms_cyc(RSH_OWN_KEEPALIVE_MS);
	/* §6.2: no keepalive while a debug command (bfdump) runs. */
	if (rsh_dev_rd(dev, RSH_SCRATCHPAD3) & RSH_SP3__DBG_CMD_MASK)
		return 0;
	rsh_dev_wr(dev, RSH_SCRATCHPAD1, RSH_OWN_KEEPALIVE);
	__atomic_store_n(&o->keepalives, o->keepalives + 1, __ATOMIC_RELAXED);
	return 1;
}

/*
 * The ownership service's poll step; cheap between its timers. Everything
 * it does is timer work (a 100 ms look, a 300 ms keepalive, the hand-over
 * acks), never data: it reports no work, so the loop keeps backing off
 * while idle instead of spinning again after every keepalive. The loop's
 * sleep ceiling (a few ms) is far below these periods.
 */
static unsigned int
rsh_own_poll(struct rsh_dev *dev, uint64_t now, uint64_t *sleep_ns)
{
	struct rsh_own *o = rsh_dev_own(dev);

	RTE_SET_USED(sleep_ns);
	if (rsh_own_dropped(o) || now < o->next_check)
		return 0;
	o->next_check = now + rsh_ms_cyc(RSH_OWN_CHECK_MS);
	if (o->rel != RSH_OWN_REL_NONE)
		(void)rsh_own_release_step(dev, now);
	else
		(void)rsh_own_check_step(dev, now);
	return 0;
}

/* Close: the device is released (§2.8): SCRATCHPAD1 = 0, SCRATCHPAD6 = 0,
 * unless a firmware reset handshake is in flight (then only bit 63 goes,
 * in rsh_hk_detach, so the firmware's fields stay). */
static void
rsh_own_close(struct rsh_dev *dev)
{
	uint64_t v;

	if (rsh_own_dropped(rsh_dev_own(dev)) || __atomic_load_n(&rsh_dev_own(dev)->locked, __ATOMIC_ACQUIRE))
		return;
	v = rsh_dev_rd(dev, RSH_SCRATCHPAD1);
	if (v == RSH_OWN_KEEPALIVE || (v != 0 && v == rsh_dev_own(dev)->debug_code))
		rsh_dev_wr(dev, RSH_SCRATCHPAD1, 0);
	v = rsh_dev_rd(dev, RSH_SCRATCHPAD6);
	if (!rsh_reg_val_is_bad(v) && (v & RSH_SP6__RST_STATE_MASK) == 0)
		rsh_dev_wr(dev, RSH_SCRATCHPAD6, 0);
}

/* Registers usable? */
int
rsh_own_access_ok(struct rsh_dev *dev)
{
	if (!rsh_own_dropped(rsh_dev_own(dev)))
		return 0;
	rsh_err_set("%s: the device is in drop mode (released to another rshim driver); undrop it (DROP_MODE 0, or --force to take it over)",
		    dev->name);
	return -EBUSY;
}

/* Boot and console: refused in drop mode and in secure NIC mode (§6.6). */
int
rsh_own_boot_ok(struct rsh_dev *dev, const char *what)
{
	int rc = rsh_own_access_ok(dev);

	if (rc < 0)
		return rc;
	if (__atomic_load_n(&rsh_dev_own(dev)->locked, __ATOMIC_ACQUIRE)) {
		rsh_err_set("%s: %s refused: the NIC firmware is in secure NIC mode (SCRATCHPAD1 reads LOCK); leave secure NIC mode with mlxconfig/mstfwmanager first",
			    dev->name, what);
		return -EPERM;
	}
	return 0;
}


/* The ownership service: keepalive, OSP_REQ answer, LOCK (rsh_svc.h). */
const struct rsh_svc rsh_own_svc = {
	.name = "ownership",
	.poll = rsh_own_poll,
	.flags = RSH_SVC_F_RUNS_DROPPED,
	.state_size = sizeof(struct rsh_own),
	.init = rsh_own_open,
	.fini = rsh_own_close,
};
