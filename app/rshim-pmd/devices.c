/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device table: which devices are served under which rshimN, one owner
 * per device on the host (an flock under /run/rshim-pmd/), and the health
 * check that marks a device gone when it reads all-ones and back when it
 * answers again. Main thread only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rsh_devstr.h"
#include "rsh_svc_lock.h"
#include "svc.h"

/* Why the lock directory (opened in fd) must not be used, or NULL. */
static const char *
rsh_svc_run_dir_bad(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return strerror(errno);
	if (st.st_uid != geteuid())
		return "not owned by root";
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return "writable by group or others";
	return NULL;
}

/*
 * The lock directory: created 0755 when missing; refused when it is a
 * symbolic link, not a directory, not root's, or writable by group or
 * others (a user could plant links to files root would then write).
 * 0, or -errno with one line.
 */
int
rsh_svc_run_dir_check(struct rshd *s)
{
	bool made = mkdir(s->run_dir, 0755) == 0;
	int fd = open(s->run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	const char *why;
	int rc = 0;

	if (fd < 0) {
		rc = -errno;
		why = errno == ELOOP || errno == ENOTDIR ? "a symbolic link or not a directory" :
		      strerror(errno);
	} else {
		/* Whatever the umask: readable by all, writable by root. */
		if (made && fchmod(fd, 0755) < 0)
			rc = -errno;
		why = rc < 0 ? strerror(-rc) : rsh_svc_run_dir_bad(fd);
		close(fd);
	}
	if (why == NULL)
		return 0;
	rsh_svc_err("%s: %s: the device locks need a directory of root's that only root can write (remove it, or give another --run-dir)",
		    s->run_dir, why);
	return rc < 0 ? rc : -EPERM;
}

/* Take the device's lock (shareable devices only; a private emulation
 * needs none): -EBUSY with one line naming the holder. */
int
rsh_svc_lock_dev(struct rshd *s, const char *devstr, int *out)
{
	struct rsh_svc_lock_holder h;
	int rc = rsh_svc_run_dir_check(s);

	if (rc < 0)
		return rc;
	rc = rsh_svc_lock_take(s->run_dir, devstr, out, &h);
	if (rc == -EBUSY) {
		char who[48];

		snprintf(who, sizeof(who), "%ld", h.pid);
		rsh_svc_err("%s is held by rshim-pmd pid %s; stop that service, or use its nodes (e.g. /dev/%s/boot)",
			    devstr, h.pid > 0 ? who : "(unknown)",
			    h.name[0] != '\0' ? h.name : "rshimN");
	} else if (rc == -ELOOP || rc == -EMLINK || rc == -EPERM) {
		rsh_svc_err("%s: its lock file in %s is not a plain file of root's (a link?); not served: remove it",
			    devstr, s->run_dir);
	} else if (rc < 0) {
		rsh_svc_err("%s: cannot use its lock file in %s: %s", devstr, s->run_dir,
			    strerror(-rc));
	}
	return rc < 0 ? rc : 0;
}

/* Record "pid rshimN" in a held lock, for the next one to read. */
static void
rsh_svc_lock_note_dev(int fd, const struct rsh_svc_dev *d)
{
	if (fd >= 0 && rsh_svc_lock_note(fd, d->name) < 0)
		RSH_SVC_LOG(WARNING, d->name, "cannot write the lock file");
}

/* Release and remove the lock file. */
void
rsh_svc_unlock_dev(struct rshd *s, const char *devstr, int fd)
{
	rsh_svc_lock_drop(s->run_dir, devstr, fd);
}

/* In drop mode? (any thread: the library's state, read relaxed) */
bool
rsh_svc_dev_dropped(struct rsh_svc_dev *d)
{
	struct rsh_own_info oi;

	rsh_dev_own_info(d->dev, &oi);
	return oi.dropped;
}

/* The served device with this rshim index, or NULL. */
struct rsh_svc_dev *
rsh_svc_dev_by_index(struct rshd *s, unsigned int idx)
{
	for (unsigned int i = 0; i < RSH_SVC_MAX_DEVS; i++)
		if (s->devs[i].used && s->devs[i].index == idx)
			return &s->devs[i];
	return NULL;
}

/* The served device with this device string, or NULL. */
static struct rsh_svc_dev *
rsh_svc_dev_by_str(struct rshd *s, const char *devstr)
{
	for (unsigned int i = 0; i < RSH_SVC_MAX_DEVS; i++)
		if (s->devs[i].used && strcmp(s->devs[i].devstr, devstr) == 0)
			return &s->devs[i];
	return NULL;
}

/* The index a device had before in this run, -1 when none. */
static int
rsh_svc_hist_index(const struct rshd *s, const char *devstr)
{
	for (unsigned int i = 0; i < s->n_hist; i++)
		if (strcmp(s->hist[i].dev, devstr) == 0)
			return s->hist[i].index;
	return -1;
}

/* Remember which index a device got (its index if it comes back). */
static void
rsh_svc_hist_note(struct rshd *s, const char *devstr, int idx)
{
	if (rsh_svc_hist_index(s, devstr) >= 0 || s->n_hist == RSH_SVC_MAX_CONF)
		return;
	snprintf(s->hist[s->n_hist].dev, sizeof(s->hist[0].dev), "%.63s", devstr);
	s->hist[s->n_hist++].index = idx;
}

/* Is index i free for a new device (no configuration line reserves it, no
 * device serves it, and with fresh: no other device had it before)? */
static bool
rsh_svc_index_free(struct rshd *s, unsigned int i, bool fresh)
{
	for (unsigned int k = 0; k < s->conf.n_map; k++)
		if (s->conf.map[k].index == (int)i)
			return false;
	for (unsigned int k = 0; fresh && k < s->n_hist; k++)
		if (s->hist[k].index == (int)i)
			return false;
	return rsh_svc_dev_by_index(s, i) == NULL;
}

/* Index for a new device, as NVIDIA's daemon picks it (§6.9): the
 * configured one, else the one it had before, else the lowest from -i on
 * that no other device ever had, else the lowest free one. A device keeps
 * its index whatever its state (dropped, locked, gone and back). -1: none. */
static int
rsh_svc_pick_index(struct rshd *s, const char *devstr)
{
	int want = rsh_svc_conf_index(&s->conf, devstr);
	unsigned int i;

	if (want >= 0)
		return rsh_svc_dev_by_index(s, want) == NULL ? want : -1;
	want = rsh_svc_hist_index(s, devstr);
	if (want >= 0 && rsh_svc_index_free(s, (unsigned int)want, false))
		return want;
	for (int pass = 0; pass < 2; pass++)
		for (i = s->first_index; i < (unsigned int)s->first_index + 64; i++)
			if (rsh_svc_index_free(s, i, pass == 0))
				return (int)i;
	return -1;
}

/* The PCI revision the scan reports for a device (0 when not listed). */
static uint8_t
rsh_svc_revision(struct rshd *s, const char *devstr)
{
	struct rsh_dev_info info[RSH_SVC_MAX_DEVS];
	int n = rsh_dev_scan(&s->open, strncmp(devstr, "sim:", 4) == 0, info,
			     RSH_SVC_MAX_DEVS);

	for (int i = 0; i < n && i < RSH_SVC_MAX_DEVS; i++)
		if (strcmp(info[i].name, devstr) == 0)
			return info[i].revision;
	return 0;
}

/*
 * The TM FIFO channels, when the device lets us have them: a device in
 * drop mode or in secure NIC mode (the console is refused, §6.6) is
 * served without them, and the health check attaches them once it is
 * ours (rsh_svc_attach_late). 0, or a negative errno that ends the open.
 */
static int
rsh_svc_dev_attach(struct rshd *s, struct rsh_svc_dev *d)
{
	struct rsh_tmfifo_opts to;
	int rc;

	rsh_tmfifo_opts_default(&to);
	to.net = !s->no_net;
	rc = rsh_tmfifo_attach(d->dev, &to);
	if (rc == -EPERM || rc == -EBUSY) {
		RSH_SVC_LOG(INFO, d->name, "TM FIFO channels wait: %s", rsh_last_error());
		d->attach_pending = true;
		return 0;
	}
	if (rc < 0)
		RSH_SVC_LOG(ERR, d->name, "%s: TM FIFO: %s", d->devstr, rsh_last_error());
	return rc;
}

/*
 * Open a device; not yet polled. DROP_MODE 1 opens it dropped. Another
 * rshim driver owning it (a BMC over USB) does not keep it from being
 * served: it opens in drop mode (after one takeover request with
 * FORCE_MODE/-F), its nodes exist, misc FORCE_CMD 1 takes it over, and the
 * health check takes it when the other driver lets go (§6.4, §6.5).
 */
static int
rsh_svc_dev_open(struct rshd *s, struct rsh_svc_dev *d)
{
	struct rsh_devstr_pci_opts pci = {
		.mapping = s->pci_mapping,
		.mapping_from = s->pci_mapping_from,
	};
	struct rsh_open_opts o = s->open;
	char devstr[RSH_DEVSTR_MAX], err[RSH_DEVSTR_MAX];
	int rc;

	o.drop = s->conf.drop_mode == 1;
	o.force_own = s->conf.force_mode;
	/* Livefish stays dropped unless DROP_MODE is configured, as NVIDIA's
	 * daemon keeps it (hardware-notes §6.4); the core's log line says
	 * how to activate it (DROP_MODE 0, FORCE_CMD 1). */
	o.livefish_drop = s->conf.drop_mode < 0;
	rc = rsh_devstr_pci(devstr, sizeof(devstr), d->devstr, &pci, err, sizeof(err));
	if (rc < 0) {
		RSH_SVC_LOG(ERR, d->name, "%s", err);
		return rc;
	}
	rsh_svc_link_check(s, d);
	RSH_SVC_LOG(INFO, d->name, "opening %s (%s%s)", d->devstr,
		    o.drop ? "DROP_MODE 1" : "ownership check",
		    o.force_own && !o.drop ? ", with a takeover request" : "");
	rc = rsh_dev_open(devstr, &o, &d->dev);
	if (rc == -EBUSY && !o.drop) {
		RSH_SVC_LOG(NOTICE, d->name, "%s; served in drop mode: misc FORCE_CMD 1 takes it over, and rshim-pmd takes it once it is released",
			    rsh_last_error());
		o.drop = true;
		o.force_own = false;
		rc = rsh_dev_open(devstr, &o, &d->dev);
		d->own_wait = rc == 0;
	}
	if (rc < 0) {
		RSH_SVC_LOG(ERR, d->name, "%s: %s", d->devstr, rsh_last_error());
		return rc;
	}
	rc = rsh_svc_dev_attach(s, d);
	if (rc < 0) {
		rsh_dev_close(d->dev);
		d->dev = NULL;
	}
	return rc;
}

/* Claim a table slot for devstr under index idx. */
static struct rsh_svc_dev *
rsh_svc_slot(struct rshd *s, const char *devstr, int idx)
{
	struct rsh_svc_dev *d = NULL;
	pthread_condattr_t ca;

	for (unsigned int i = 0; i < RSH_SVC_MAX_DEVS && d == NULL; i++)
		if (!s->devs[i].used)
			d = &s->devs[i];
	if (d == NULL)
		return NULL;
	pthread_mutex_lock(&s->relay_mu);
	memset(d, 0, sizeof(*d));
	d->svc = s;
	d->used = true;
	d->index = (unsigned int)idx;
	d->lock_fd = -1;
	d->cons.master = d->cons.slave = d->cons.ino = -1;
	d->tap.fd = -1;
	snprintf(d->devstr, sizeof(d->devstr), "%.63s", devstr);
	snprintf(d->name, sizeof(d->name), RSH_SVC_NAME_FMT, d->index);
	snprintf(d->mnt, sizeof(d->mnt), "%s/%s", s->dev_dir, d->name);
	d->display_level = s->conf.display_level;
	d->boot_timeout_s = s->conf.boot_timeout_s;
	pthread_mutex_init(&d->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->boot_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_unlock(&s->relay_mu);
	return d;
}

/* Free a slot (everything already stopped). */
static void
rsh_svc_slot_free(struct rshd *s, struct rsh_svc_dev *d)
{
	rsh_svc_unlock_dev(s, d->devstr, d->lock_fd);
	pthread_cond_destroy(&d->boot_cv);
	pthread_mutex_destroy(&d->mu);
	pthread_mutex_lock(&s->relay_mu);
	d->used = false;
	pthread_mutex_unlock(&s->relay_mu);
}

/* Show or hide a device to the relay thread and telemetry. */
static void
rsh_svc_publish(struct rshd *s, struct rsh_svc_dev *d, bool live)
{
	pthread_mutex_lock(&s->relay_mu);
	d->live = live;
	rsh_svc_relay_attach(s, d, live);
	pthread_mutex_unlock(&s->relay_mu);
	/* Shown: the relay serves it now. Hidden: the relay's ppoll lets go
	 * of its PTY, TAP and channel eventfds now, not at the 1 s timeout
	 * (the caller closes them next; a sleeping ppoll keeps them open). */
	rsh_svc_relay_kick(s);
}

/* The one poller of the service, started with no device: devices join and
 * leave while it runs. */
static int
rsh_svc_poller_up(struct rshd *s)
{
	int rc;

	if (s->poller != NULL)
		return 0;
	rc = rsh_poller_create(&s->poll, &s->poller);
	if (rc == 0)
		rc = rsh_poller_start(s->poller);
	if (rc < 0)
		rsh_svc_err("cannot start the poll loop: %s", rsh_last_error());
	return rc;
}

/* Stop serving one device: nodes (a push still open ends: tail, then
 * BOOT_CONTROL=1), console, TAP, then the device leaves the running poller.
 * Main thread; hidden from the relay and telemetry first, so the waits
 * (the push's release) happen outside relay_mu. */
static void
rsh_svc_dev_teardown(struct rshd *s, struct rsh_svc_dev *d)
{
	rsh_svc_publish(s, d, false);
	rsh_svc_nodes_stop(d);
	rsh_svc_boot_stop(d);
	rsh_svc_cons_close(d);
	rsh_svc_tap_close(d);
	if (d->dev != NULL) {
		if (d->in_poller)
			rsh_poller_remove(s->poller, d->dev);
		rsh_tmfifo_detach(d->dev);
		rsh_dev_close(d->dev);
		d->dev = NULL;
	}
	RSH_SVC_LOG(NOTICE, d->name, "%s no longer served", d->devstr);
	rsh_svc_slot_free(s, d);
}

/* The ends users see: console PTY, TAP, nodes. */
static int
rsh_svc_dev_ends(struct rshd *s, struct rsh_svc_dev *d)
{
	int rc = rsh_svc_cons_open(s, d);
	struct rsh_dev_info inf;

	if (rc == 0 && !s->no_net && !d->attach_pending)
		rc = rsh_svc_tap_open(d);
	if (rc == 0)
		rc = rsh_svc_nodes_start(s, d);
	if (rc < 0)
		return rc;
	rsh_dev_get_info(d->dev, &inf);
	RSH_SVC_LOG(NOTICE, d->name, "serving %s (%s) at %s%s%s", d->devstr,
		    rsh_gen_name(inf.gen), d->mnt,
		    d->tap.fd >= 0 ? ", network " : "",
		    d->tap.fd >= 0 ? d->tap.name : "");
	return 0;
}

/* The devices to serve: those named with -d (an allow-list, as the rshim
 * daemon's -d), else the --sim ones, the PCI scan's (without --sim) and
 * the configuration's rshimN lines. "none" lines are applied later. */
static void
rsh_svc_wanted(struct rshd *s, char (*want)[RSH_DEV_NAME_MAX], unsigned int *n)
{
	struct rsh_dev_info info[RSH_SVC_MAX_DEVS];
	unsigned int i, k;
	int found;

	*n = 0;
	for (i = 0; i < s->n_only && *n < RSH_SVC_MAX_DEVS; i++)
		snprintf(want[(*n)++], RSH_DEV_NAME_MAX, "%.63s", s->only_dev[i]);
	if (s->n_only == 0 && !s->sim_only) {
		found = rsh_dev_scan(&s->open, false, info, RSH_SVC_MAX_DEVS);
		for (i = 0; found > 0 && i < (unsigned int)found && i < RSH_SVC_MAX_DEVS; i++)
			if (info[i].supported && *n < RSH_SVC_MAX_DEVS)
				snprintf(want[(*n)++], RSH_DEV_NAME_MAX, "%.63s", info[i].name);
	}
	for (i = 0; !s->allow_list && i < s->conf.n_map && *n < RSH_SVC_MAX_DEVS; i++) {
		bool dup = false;

		if (s->conf.map[i].index < 0)
			continue;
		for (k = 0; k < *n; k++)
			dup |= strcmp(want[k], s->conf.map[i].dev) == 0;
		if (!dup)
			snprintf(want[(*n)++], RSH_DEV_NAME_MAX, "%.63s", s->conf.map[i].dev);
	}
}

/* Should the served device d go (blocked, no longer wanted, renamed)? */
static bool
rsh_svc_must_go(struct rshd *s, struct rsh_svc_dev *d,
		char (*want)[RSH_DEV_NAME_MAX], unsigned int n)
{
	int idx = rsh_svc_conf_index(&s->conf, d->devstr);
	bool listed = false;

	for (unsigned int k = 0; k < n; k++)
		listed |= strcmp(want[k], d->devstr) == 0;
	if (!listed || idx == -1)
		return true;
	return idx >= 0 && (unsigned int)idx != d->index;
}

/* Stop the devices that must go (the others keep running). */
static void
rsh_svc_drop_unwanted(struct rshd *s, char (*want)[RSH_DEV_NAME_MAX],
		      unsigned int n)
{
	for (unsigned int i = 0; i < RSH_SVC_MAX_DEVS; i++) {
		struct rsh_svc_dev *d = &s->devs[i];

		if (d->used && rsh_svc_must_go(s, d, want, n))
			rsh_svc_dev_teardown(s, d);
	}
}

/* Lock and open one new device (not yet polled); NULL when it cannot. */
static struct rsh_svc_dev *
rsh_svc_add_one(struct rshd *s, const char *devstr)
{
	struct rsh_svc_dev *d;
	int idx, fd, rc;

	if (rsh_svc_conf_index(&s->conf, devstr) == -1 || rsh_svc_dev_by_str(s, devstr))
		return NULL;
	idx = rsh_svc_pick_index(s, devstr);
	if (idx < 0) {
		RSH_SVC_LOG(ERR, devstr, "no free rshimN index (fix the rshimN lines of %s)",
			    s->conf_path);
		return NULL;
	}
	if (rsh_svc_lock_dev(s, devstr, &fd) < 0)
		return NULL;
	d = rsh_svc_slot(s, devstr, idx);
	if (d == NULL) {
		rsh_svc_unlock_dev(s, devstr, fd);
		return NULL;
	}
	d->lock_fd = fd;
	rsh_svc_hist_note(s, devstr, idx);
	rsh_svc_lock_note_dev(fd, d);
	d->revision = rsh_svc_revision(s, devstr);
	rc = rsh_svc_dev_open(s, d);
	if (rc < 0) {
		rsh_svc_slot_free(s, d);
		return NULL;
	}
	rsh_svc_misc_init(d);
	return d;
}

/*
 * Bring the table in line with the options and the configuration: drop
 * blocked, renamed and vanished devices, add new ones. Devices join and
 * leave the running poll loop; the others are not disturbed.
 * @return the number of served devices, or a negative errno.
 */
int
rsh_svc_sync_devices(struct rshd *s)
{
	char want[RSH_SVC_MAX_DEVS][RSH_DEV_NAME_MAX];
	unsigned int n, served = 0, i;
	int rc = rsh_svc_poller_up(s);

	if (rc < 0)
		return rc;
	rsh_svc_wanted(s, want, &n);
	/* Opening a device waits (ownership check, reset): no lock held;
	 * a device is published once its ends exist. */
	rsh_svc_drop_unwanted(s, want, n);
	for (i = 0; i < n; i++) {
		struct rsh_svc_dev *d = rsh_svc_add_one(s, want[i]);

		if (d == NULL)
			continue;
		rc = rsh_poller_add(s->poller, d->dev);
		d->in_poller = rc == 0;
		if (rc < 0)
			RSH_SVC_LOG(ERR, d->name, "cannot join the poll loop: %s", rsh_last_error());
		else if (rsh_svc_dev_ends(s, d) < 0)
			RSH_SVC_LOG(ERR, d->name, "nodes not available; the device stays open");
		rsh_svc_publish(s, d, true);
	}
	for (i = 0; i < RSH_SVC_MAX_DEVS; i++)
		served += s->devs[i].used;
	return (int)served;
}

/*
 * A FUSE request runs a long device command (a push's open or end, a
 * misc SW_RESET or log read): the health check's command would queue
 * behind it on the poll lcore and hold the main loop (signals, every
 * other device) for as long, so the device is checked next time.
 */
static bool
rsh_svc_dev_ctl_busy(struct rsh_svc_dev *d)
{
	bool busy;

	pthread_mutex_lock(&d->mu);
	busy = d->boot_opening || d->boot_closing;
	pthread_mutex_unlock(&d->mu);
	return busy || __atomic_load_n(&d->ctl_busy, __ATOMIC_RELAXED) > 0;
}

/* The channels and tmfifo_netN of a device that had to wait for them
 * (dropped or locked at open), once it is ours. */
static void
rsh_svc_attach_late(struct rshd *s, struct rsh_svc_dev *d)
{
	struct rsh_own_info oi;

	rsh_dev_own_info(d->dev, &oi);
	if (oi.dropped || oi.locked)
		return;
	/* Hidden from the relay while its channels and TAP appear. */
	rsh_svc_publish(s, d, false);
	d->attach_pending = false;
	if (rsh_svc_dev_attach(s, d) == 0 && !d->attach_pending) {
		if (!s->no_net && d->tap.fd < 0)
			rsh_svc_tap_open(d);
		RSH_SVC_LOG(NOTICE, d->name, "TM FIFO channels attached: console%s%s",
			    d->tap.fd >= 0 ? " and " : "", d->tap.fd >= 0 ? d->tap.name : "");
	}
	rsh_svc_publish(s, d, true);
}

/* A device another driver owned at open: take it once that driver let it
 * go (the access check finds no other keepalive), every few seconds. */
static void
rsh_svc_take_over(struct rsh_svc_dev *d)
{
	struct rsh_own_info oi;

	rsh_dev_own_info(d->dev, &oi);
	if (!oi.dropped) {
		d->own_wait = false; /* FORCE_CMD or DROP_MODE 0 took it */
		return;
	}
	if (++d->own_tries % RSH_SVC_TAKE_EVERY != 0)
		return;
	if (rsh_dev_drop(d->dev, false, false) == 0) {
		d->own_wait = false;
		RSH_SVC_LOG(NOTICE, d->name, "%s: the other rshim driver let go: this service owns it now",
			    d->devstr);
	} else {
		RSH_SVC_LOG(DEBUG, d->name, "still owned elsewhere: %s", rsh_last_error());
	}
}

/* Mark devices gone (all-ones) or back (answers again); take over and
 * attach the devices that waited. */
void
rsh_svc_check_health(struct rshd *s)
{
	for (unsigned int i = 0; i < RSH_SVC_MAX_DEVS; i++) {
		struct rsh_svc_dev *d = &s->devs[i];
		bool was;
		uint64_t v;
		int rc;

		if (!d->used || d->dev == NULL || rsh_svc_dev_ctl_busy(d))
			continue;
		rsh_svc_link_check(s, d);
		if (d->own_wait)
			rsh_svc_take_over(d);
		if (d->attach_pending)
			rsh_svc_attach_late(s, d);
		rc = rsh_dev_reg_read(d->dev, RSH_BOOT_CONTROL, &v);
		if (rc == -EBUSY || rc == -EIO)
			continue; /* a push runs, or the device is in reset */
		was = __atomic_load_n(&d->gone, __ATOMIC_RELAXED);
		if (rc == -ENODEV && !was) {
			__atomic_store_n(&d->gone, true, __ATOMIC_RELAXED);
			/* The TAP first: the line reports what is done. */
			rsh_svc_tap_set_up(d, false);
			RSH_SVC_LOG(WARNING, d->name, "%s reads all-ones: marked gone (nodes answer ENODEV, %s down)",
				    d->devstr, d->tap.fd >= 0 ? d->tap.name : "no network");
		} else if (rc == 0 && was) {
			/* The channels first (on the poll lcore): what was
			 * queued while gone is dropped and counted, and
			 * the stream resynchronised, before users are let in. */
			rc = rsh_tmfifo_resync(d->dev);
			if (rc < 0 && rc != -ENOENT) {
				RSH_SVC_LOG(INFO, d->name, "%s", rsh_last_error());
				continue; /* the next check tries again */
			}
			__atomic_store_n(&d->gone, false, __ATOMIC_RELAXED);
			rsh_svc_tap_set_up(d, true);
			RSH_SVC_LOG(NOTICE, d->name, "%s answers again: back in service", d->devstr);
			rsh_svc_relay_kick(s);
		}
	}
}

/* SIGTERM: stop everything, leave nothing behind. Pushes are cancelled
 * and end with BOOT_CONTROL=1 while the poll loop still runs. */
void
rsh_svc_stop_all(struct rshd *s)
{
	for (unsigned int i = 0; i < RSH_SVC_MAX_DEVS; i++)
		if (s->devs[i].used)
			rsh_svc_boot_shutdown(&s->devs[i]);
	/* The devices first, while the relay runs (as when one is removed):
	 * their FUSE threads kick the relay, so its wake eventfd is closed
	 * only once they are all stopped (rsh_svc_relay_kick). */
	for (unsigned int i = 0; i < RSH_SVC_MAX_DEVS; i++)
		if (s->devs[i].used)
			rsh_svc_dev_teardown(s, &s->devs[i]);
	rsh_svc_relay_stop(s);
	rsh_poller_destroy(s->poller);
	s->poller = NULL;
}
