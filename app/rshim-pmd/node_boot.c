/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /dev/rshimN/boot: `cat x.bfb > /dev/rshim0/boot` (hardware-notes §3).
 * open = the boot engine's open sequence (BOOT_CONTROL=0, reset key, reset
 * delay; skipped with BOOT_RESET_SKIP 1); each write() goes into the
 * hugepage chunk pipeline the poll lcore drains into the boot FIFO; the
 * last close pads the tail to 8 bytes and writes BOOT_CONTROL=1. One
 * writer at a time (EBUSY). No FIFO progress for BOOT_TIMEOUT seconds →
 * ETIMEDOUT; a signal to a stalled writer cancels the push (EINTR).
 * FUSE threads; d->mu guards the writer slot, never held across a wait.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "svc.h"

/* The push of d (valid from open to release), or NULL. */
static struct rsh_boot *
rsh_svc_boot_get(struct rsh_svc_dev *d)
{
	struct rsh_boot *b;

	pthread_mutex_lock(&d->mu);
	b = d->boot;
	pthread_mutex_unlock(&d->mu);
	return b;
}

/* Take the writer slot; -EBUSY when taken. */
static int
rsh_svc_boot_claim(struct rsh_svc_dev *d)
{
	int rc = 0;

	pthread_mutex_lock(&d->mu);
	if (d->boot != NULL || d->boot_opening)
		rc = -EBUSY;
	else
		d->boot_opening = true;
	__atomic_store_n(&d->boot_cancel, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&d->mu);
	return rc;
}

/* open(2) of the boot node by a writer. */
int
rsh_svc_boot_open(struct rsh_svc *s, struct rsh_svc_dev *d, uid_t uid, pid_t pid)
{
	struct rsh_boot_opts o;
	struct rsh_boot *b = NULL;
	int rc = rsh_svc_boot_claim(d);
	int delay_s;

	if (rc < 0) {
		rsh_svc_audit(d, uid, pid, "boot push open (another writer holds the node)", rc);
		return rc;
	}
	rsh_boot_opts_default(&o);
	delay_s = __atomic_load_n(&s->reset_delay_s, __ATOMIC_RELAXED);
	o.reset_delay_ms = delay_s >= 0 ? (int64_t)delay_s * 1000 : -1;
	/* misc writes change these under mu from other FUSE threads */
	pthread_mutex_lock(&d->mu);
	o.stall_timeout_ms = (uint64_t)d->boot_timeout_s * 1000;
	o.skip_reset = d->boot_reset_skip;
	pthread_mutex_unlock(&d->mu);
	o.cancel_flag = &d->boot_cancel;
	rc = rsh_boot_open(d->dev, s->poller, &o, &b);
	if (rc < 0)
		RSH_SVC_LOG(ERR, d->name, "boot open: %s", rsh_last_error());
	pthread_mutex_lock(&d->mu);
	d->boot_opening = false;
	d->boot = b;
	d->boot_uid = uid;
	d->boot_pid = pid;
	pthread_mutex_unlock(&d->mu);
	rsh_svc_audit(d, uid, pid, o.skip_reset && rc == 0 ?
		      "boot push start (reset skipped)" : "boot push start", rc);
	return rc;
}

/* write(2): queue bytes; blocks while every chunk is in flight. */
int
rsh_svc_boot_write(struct rsh_svc_dev *d, const void *buf, size_t len)
{
	struct rsh_boot *b = rsh_svc_boot_get(d);
	int rc;

	if (b == NULL)
		return -EBADF;
	rc = rsh_boot_write(b, buf, len);
	return rc == -ECANCELED ? -EINTR : rc;
}

/* close(2): wait until what was written is in the FIFO; the push's error
 * (ETIMEDOUT, ENODEV, EINTR) is what close returns. */
int
rsh_svc_boot_flush(struct rsh_svc_dev *d)
{
	struct rsh_boot *b = rsh_svc_boot_get(d);
	struct rsh_boot_stats st;
	int state;

	if (b == NULL)
		return 0;
	for (;;) {
		struct timespec ts = { 0, 2000000 };

		state = rsh_boot_state(b);
		rsh_boot_get_stats(b, &st);
		/* The stall deadline of the push bounds this wait. */
		if (state != 0 || st.bytes_pushed >= st.bytes_queued)
			break;
		nanosleep(&ts, NULL);
	}
	if (state < 0)
		return state == -ECANCELED ? -EINTR : state;
	return 0;
}

/* The summary line of a finished push. */
static void
rsh_svc_boot_summary(struct rsh_svc_dev *d, const struct rsh_boot_stats *st, int rc)
{
	double sec = st->elapsed_ns / 1e9, mib = st->bytes_pushed / 1048576.0;

	RSH_SVC_LOG(NOTICE, d->name, "boot push %s: %" PRIu64 " bytes in %.3f s, %.1f MiB/s, FIFO-full waits %" PRIu64 ", stalls %" PRIu64,
		    rc == 0 ? "done" : strerror(-rc), st->bytes_pushed, sec,
		    sec > 0 ? mib / sec : 0.0, st->fifo_full_waits, st->stalls);
}

/*
 * Last release: tail padding, BOOT_CONTROL=1, free the slot. The push
 * leaves the slot before rsh_boot_close() frees it, so no other thread
 * (telemetry, a cancel) can reach it; the slot stays claimed
 * (boot_opening) until the close is over, so a new writer gets EBUSY.
 */
void
rsh_svc_boot_release(struct rsh_svc_dev *d, uid_t uid, pid_t pid)
{
	struct rsh_boot_stats st;
	struct rsh_boot *b;
	int rc;

	pthread_mutex_lock(&d->mu);
	b = d->boot;
	if (b != NULL) {
		d->boot = NULL;
		d->boot_opening = true;
	}
	pthread_mutex_unlock(&d->mu);
	if (b == NULL)
		return;
	/* A release carries no caller: name the writer that opened it. */
	if (pid == 0) {
		uid = d->boot_uid;
		pid = d->boot_pid;
	}
	memset(&st, 0, sizeof(st));
	rc = rsh_boot_close(b, &st);
	pthread_mutex_lock(&d->mu);
	d->boot_opening = false;
	d->last_boot = st;
	d->boot_bytes += st.bytes_pushed;
	d->boot_pushes++;
	d->boot_errors += rc < 0;
	pthread_mutex_unlock(&d->mu);
	rsh_svc_boot_summary(d, &st, rc);
	rsh_svc_audit(d, uid, pid, "boot push end", rc);
}

/*
 * Cancel the push or the open in progress (any thread). The push was
 * opened with this flag as its cancel flag: the poll lcore and a blocked
 * writer see it, and the push itself is never touched here (a release
 * may be freeing it).
 */
void
rsh_svc_boot_cancel(struct rsh_svc_dev *d)
{
	__atomic_store_n(&d->boot_cancel, 1, __ATOMIC_RELAXED);
}
