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

/* Milliseconds into TSC cycles. */
static uint64_t
rsh_own_cyc(uint64_t ms)
{
	return ms * rte_get_timer_hz() / 1000;
}

/* Control-path sleep (open, drop, takeover: never on the poll lcore). */
static void
rsh_own_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* §6.3 step 1: FABRIC_DIM until sane; a 0 after 10 tries is accepted. */
static int
rsh_own_fabric(struct rsh_dev *dev)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < RSH_OWN_FABRIC_TRIES; i++) {
		v = rsh_dev_rd(dev, RSH_FABRIC_DIM);
		if (v != 0 && !rsh_reg_val_is_bad(v))
			return 0;
		if (v == RSH_ALL_ONES)
			break;
		rsh_own_sleep_ms(100);
	}
	if (v == 0) {
		RSH_DEV_LOG(INFO, dev, "FABRIC_DIM reads 0 after %u tries; going on (the reference daemon accepts it too)",
			    RSH_OWN_FABRIC_TRIES);
		return 0;
	}
	rsh_err_set("%s: FABRIC_DIM reads 0x%" PRIx64 ": %s", dev->name, v,
		    v == RSH_ALL_ONES ? "the device is gone (removed or link down); check lspci" :
		    "the rshim is not reachable (held in reset?); retry in a few seconds");
	return v == RSH_ALL_ONES ? -ENODEV : -ETIMEDOUT;
}

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

/* Who seems to own the device, for the -EBUSY line. */
static void
rsh_own_guess(char *buf, size_t len)
{
	int pid = rsh_own_find_proc("rshim-pmd");

	if (pid > 0) {
		snprintf(buf, len, "another rshim-pmd process (pid %d)", pid);
		return;
	}
	pid = rsh_own_find_proc("rshim");
	if (pid > 0)
		snprintf(buf, len, "NVIDIA's rshim daemon (pid %d)", pid);
	else
		snprintf(buf, len, "a driver outside this host (a BMC rshim over USB, or a VM)");
}

/* §6.3 steps 3-5: clear SCRATCHPAD1 and watch it. 1 another owner keeps
 * it alive, 0 free, -EPERM locked, or a bad-read errno. */
static int
rsh_own_watch(struct rsh_dev *dev, uint64_t first)
{
	uint32_t ms = first == 0 ? RSH_OWN_WAIT_IDLE_MS : dev->own.wait_ms;
	uint64_t start = rte_get_timer_cycles();
	uint64_t end = start + rsh_own_cyc(ms);
	uint64_t hard = start + rsh_own_cyc(RSH_OWN_ACK_DRAIN_MS);
	uint64_t v;

	rsh_dev_wr(dev, RSH_SCRATCHPAD1, 0);
	for (;;) {
		rsh_own_sleep_ms(RSH_OWN_POLL_MS);
		v = rsh_dev_rd(dev, RSH_SCRATCHPAD1);
		if (v == RSH_OWN_KEEPALIVE)
			return 1;
		if (v == RSH_OWN_LOCK)
			return -EPERM;
		if (v == RSH_ALL_ONES)
			return -ENODEV;
		if (v == RSH_OWN_OSP_ACK && rte_get_timer_cycles() < hard) {
			/* The old owner still acks: start the window again. */
			rsh_dev_wr(dev, RSH_SCRATCHPAD1, 0);
			end = rte_get_timer_cycles() + rsh_own_cyc(dev->own.wait_ms);
		}
		if (rte_get_timer_cycles() >= end)
			return 0;
	}
}

/* §6.5 requester: OSP_REQ until the owner answers OSP_ACK (1 s). */
static int
rsh_own_request(struct rsh_dev *dev)
{
	for (unsigned int i = 0; i < RSH_OWN_REQ_TRIES; i++) {
		rsh_dev_wr(dev, RSH_SCRATCHPAD1, RSH_OWN_OSP_REQ);
		rsh_own_sleep_ms(100);
		if (rsh_dev_rd(dev, RSH_SCRATCHPAD1) == RSH_OWN_OSP_ACK) {
			RSH_DEV_LOG(NOTICE, dev, "the other rshim driver acknowledged the takeover (OSP_ACK)");
			return 0;
		}
	}
	rsh_err_set("%s: --force: the other rshim driver did not answer the takeover request (OSP_REQ) within 1 s; it does not implement the protocol: stop it (or detach it on the BMC) and retry",
		    dev->name);
	return -EBUSY;
}

/* Lock seen: remember it and say what it means. */
static void
rsh_own_set_locked(struct rsh_dev *dev)
{
	if (!__atomic_exchange_n(&dev->own.locked, 1, __ATOMIC_ACQ_REL))
		RSH_DEV_LOG(NOTICE, dev, "SCRATCHPAD1 reads LOCK: the NIC firmware is in secure NIC mode; boot pushes and the console are refused");
}

/* The check proper, once or twice (after a takeover). */
static int
rsh_own_check(struct rsh_dev *dev, bool force)
{
	char who[96];
	uint64_t first;
	int rc;

	for (unsigned int round = 0; round < 2; round++) {
		first = rsh_dev_rd(dev, RSH_SCRATCHPAD1);
		if (first == RSH_OWN_LOCK) {
			rsh_own_set_locked(dev);
			return 0;
		}
		rc = rsh_own_watch(dev, first);
		if (rc == -EPERM) {
			rsh_own_set_locked(dev);
			return 0;
		}
		if (rc == -ENODEV) {
			rsh_err_set("%s: SCRATCHPAD1 reads all-ones: the device is gone", dev->name);
			return rc;
		}
		if (rc == 0)
			break;
		if (!force || round == 1) {
			rsh_own_guess(who, sizeof(who));
			rsh_err_set("%s: another rshim driver owns this BlueField (its keepalive runs in SCRATCHPAD1); it seems to be %s; stop it, or give --force to ask it to hand over",
				    dev->name, who);
			return -EBUSY;
		}
		rc = rsh_own_request(dev);
		if (rc < 0)
			return rc;
		__atomic_fetch_add(&dev->own.takeovers, 1, __ATOMIC_RELAXED);
	}
	/* §6.3 step 6: ours; the read-back must be sane. */
	rsh_dev_wr(dev, RSH_SCRATCHPAD1, RSH_OWN_KEEPALIVE);
	__atomic_fetch_add(&dev->own.keepalives, 1, __ATOMIC_RELAXED);
	first = rsh_dev_rd(dev, RSH_SCRATCHPAD1);
	return rsh_reg_val_is_bad(first) ? rsh_dev_val_err(first) : 0;
}

/* Access check at open: FABRIC_DIM, then the SCRATCHPAD1 protocol. */
int
rsh_own_open(struct rsh_dev *dev, const struct rsh_open_opts *opts)
{
	struct rsh_own *o = &dev->own;
	int rc;

	o->no_release = opts->no_release;
	o->wait_ms = opts->own_wait_ms ? opts->own_wait_ms : RSH_OWN_WAIT_MS;
	if (opts->drop) {
		/* §6.4: a dropped device is not touched at all. */
		__atomic_store_n(&o->dropped, 1, __ATOMIC_RELEASE);
		RSH_DEV_LOG(NOTICE, dev, "opened in drop mode: no register access until undropped");
		return 0;
	}
	rc = rsh_own_fabric(dev);
	if (rc < 0)
		return rc;
	return rsh_own_check(dev, opts->force_own);
}

/* Poll lcore: the device goes to drop mode (§6.4). clear: release the PF
 * words as on a user's drop; a takeover leaves SCRATCHPAD1 to the new
 * owner, whose magic is there by then. */
static void
rsh_own_enter_drop(struct rsh_dev *dev, bool clear)
{
	if (clear) {
		rsh_dev_wr(dev, RSH_SCRATCHPAD1, 0);
		rsh_dev_wr(dev, RSH_SCRATCHPAD6, 0);
	}
	dev->own.rel = RSH_OWN_REL_NONE;
	__atomic_store_n(&dev->own.drop_req, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dev->own.dropped, 1, __ATOMIC_RELEASE);
}

/* Owner side of §6.5: ack 10 times at 100 ms, wait 1 s, drop. */
static unsigned int
rsh_own_release_step(struct rsh_dev *dev, uint64_t now)
{
	struct rsh_own *o = &dev->own;

	if (o->rel == RSH_OWN_REL_ACKING) {
		rsh_dev_wr(dev, RSH_SCRATCHPAD1, RSH_OWN_OSP_ACK);
		if (--o->acks_left == 0) {
			o->rel = RSH_OWN_REL_WAITING;
			o->release_at = now + rsh_own_cyc(RSH_OWN_RELEASE_MS);
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
	struct rsh_own *o = &dev->own;
	uint64_t v = rsh_dev_rd(dev, RSH_SCRATCHPAD1);
	uint64_t code = __atomic_load_n(&o->debug_code, __ATOMIC_ACQUIRE);

	if (rsh_reg_val_is_bad(v))
		return 0; /* gone or in reset: the data paths report it */
	if (v == RSH_OWN_LOCK) {
		rsh_own_set_locked(dev);
		return 0;
	}
	if (__atomic_exchange_n(&o->locked, 0, __ATOMIC_ACQ_REL))
		RSH_DEV_LOG(NOTICE, dev, "secure NIC mode lifted (SCRATCHPAD1 no longer reads LOCK)");
	if (v == RSH_OWN_OSP_REQ && !o->no_release) {
		o->rel = RSH_OWN_REL_ACKING;
		o->acks_left = RSH_OWN_ACKS;
		return rsh_own_release_step(dev, now);
	}
	if (code != 0) {
		if (code != o->debug_written)
			rsh_dev_wr(dev, RSH_SCRATCHPAD1, code);
		o->debug_written = code;
		return 0;
	}
	o->debug_written = 0;
	if (now < o->next_keepalive)
		return 0;
	o->next_keepalive = now + rsh_own_cyc(RSH_OWN_KEEPALIVE_MS);
	/* §6.2: no keepalive while a debug command (bfdump) runs. */
	if (rsh_dev_rd(dev, RSH_SCRATCHPAD3) & RSH_SP3__DBG_CMD_MASK)
		return 0;
	rsh_dev_wr(dev, RSH_SCRATCHPAD1, RSH_OWN_KEEPALIVE);
	__atomic_store_n(&o->keepalives, o->keepalives + 1, __ATOMIC_RELAXED);
	return 1;
}

/* Poll-lcore step, called every pass; cheap between the timers. */
unsigned int
rsh_own_poll(struct rsh_dev *dev, uint64_t now)
{
	struct rsh_own *o = &dev->own;

	if (rsh_own_dropped(o))
		return 0;
	if (__atomic_load_n(&o->drop_req, __ATOMIC_ACQUIRE)) {
		rsh_own_enter_drop(dev, true);
		return 1;
	}
	if (now < o->next_check)
		return 0;
	o->next_check = now + rsh_own_cyc(RSH_OWN_CHECK_MS);
	if (o->rel != RSH_OWN_REL_NONE)
		return rsh_own_release_step(dev, now);
	return rsh_own_check_step(dev, now);
}

/* Close: the device is released (§2.8): SCRATCHPAD1 = 0, SCRATCHPAD6 = 0,
 * unless a firmware reset handshake is in flight (then only bit 63 goes,
 * in rsh_hk_detach, so the firmware's fields stay). */
void
rsh_own_close(struct rsh_dev *dev)
{
	uint64_t v;

	if (rsh_own_dropped(&dev->own) || __atomic_load_n(&dev->own.locked, __ATOMIC_ACQUIRE))
		return;
	v = rsh_dev_rd(dev, RSH_SCRATCHPAD1);
	if (v == RSH_OWN_KEEPALIVE || v == dev->own.debug_written)
		rsh_dev_wr(dev, RSH_SCRATCHPAD1, 0);
	v = rsh_dev_rd(dev, RSH_SCRATCHPAD6);
	if (!rsh_reg_val_is_bad(v) && (v & RSH_SP6__RST_STATE_MASK) == 0)
		rsh_dev_wr(dev, RSH_SCRATCHPAD6, 0);
}

/* Registers usable? */
int
rsh_own_access_ok(struct rsh_dev *dev)
{
	if (!rsh_own_dropped(&dev->own))
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
	if (__atomic_load_n(&dev->own.locked, __ATOMIC_ACQUIRE)) {
		rsh_err_set("%s: %s refused: the NIC firmware is in secure NIC mode (SCRATCHPAD1 reads LOCK); leave secure NIC mode with mlxconfig/mstfwmanager first",
			    dev->name, what);
		return -EPERM;
	}
	return 0;
}

/* Leave drop mode: the access check again (the poll lcore leaves a
 * dropped device alone, so the control path owns the registers here). */
int
rsh_own_undrop(struct rsh_dev *dev, bool force)
{
	int rc = rsh_own_fabric(dev);

	if (rc == 0)
		rc = rsh_own_check(dev, force);
	if (rc < 0)
		return rc;
	dev->own.rel = RSH_OWN_REL_NONE;
	dev->own.next_keepalive = 0;
	__atomic_store_n(&dev->own.dropped, 0, __ATOMIC_RELEASE);
	RSH_DEV_LOG(NOTICE, dev, "left drop mode: this process owns the device again");
	return 0;
}
