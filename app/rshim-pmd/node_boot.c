/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /dev/rshimN/boot: `cat x.bfb > /dev/rshim0/boot` (hardware-notes §3).
 * open = the boot engine's open sequence (BOOT_CONTROL=0, reset key, reset
 * delay; skipped with BOOT_RESET_SKIP 1); each write() goes into the
 * hugepage chunk pipeline the poll lcore drains into the boot FIFO. One
 * writer at a time (EBUSY). No FIFO progress for BOOT_TIMEOUT seconds →
 * ETIMEDOUT; a signal to a stalled writer cancels the push (EINTR).
 *
 * The push ends at the first close(2) after data was written: flush pads
 * the tail to 8 bytes, waits until every word is in the FIFO, writes
 * BOOT_CONTROL=1 and returns the push's result, so `cat` and `dd` report
 * a failed push, and the node is free before close returns (the next
 * writer never meets the last one). A flush with nothing written may come
 * from a descriptor duplicated from one that still writes (a shell's
 * redirection), so it ends nothing: a writer open that wrote nothing ends
 * at its release, sent by the kernel once no descriptor of the open is
 * left. The kernel queues that release before close(2) returns, ahead of
 * any open that follows, and the session loop notes each boot release as
 * it reads it, before any worker runs a later request
 * (rsh_svc_boot_release_seen): an open that finds the slot's writer
 * released waits for that release to end it (an event, not a guess), and
 * one that finds a writer still open gets EBUSY at once. Each writer open
 * has a generation number (its FUSE file handle): a late release or a
 * write of an open whose push already ended never touches the next push.
 * FUSE threads; d->mu guards the writer slot, never held across a wait
 * (the condition variable waits release it).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "svc.h"

/* Backstop for an open waiting for a release already read to end the
 * slot's push: that end is bounded by the restore's own deadline (8 s,
 * lib/rshim/rsh_boot_open.c); the wait ends on the event, long before. */
#define RSH_SVC_BOOT_HANDOVER_MS 15000

/* A deadline ms from now, for pthread_cond_timedwait (monotonic). */
static struct timespec
rsh_svc_deadline(unsigned int ms)
{
	return rsh_ns_timespec(rsh_mono_ns() + ms * RSH_MONO_NS_PER_MS);
}

/* The slot is taken (d->mu held). */
static bool
rsh_svc_boot_taken(const struct rsh_svc_dev *d)
{
	return d->boot != NULL || d->boot_opening || d->boot_closing;
}

/* The slot's writer has closed its last descriptor (the kernel sent the
 * release) and that release is ending what is left of its push (d->mu
 * held). */
static bool
rsh_svc_boot_handing_over(const struct rsh_svc_dev *d)
{
	return d->boot_gen != 0 && d->boot_released == d->boot_gen &&
	       (d->boot != NULL || d->boot_closing);
}

/*
 * Take the writer slot (d->mu held): its generation, or -EBUSY. A writer
 * that has closed is waited for, never refused; one still open (or still
 * closing, its close not yet returned) is refused at once.
 */
static int64_t
rsh_svc_boot_claim(struct rsh_svc_dev *d)
{
	struct timespec until = rsh_svc_deadline(RSH_SVC_BOOT_HANDOVER_MS);
	uint64_t cancels = d->boot_cancels;

	while (rsh_svc_boot_handing_over(d) && d->boot_cancels == cancels &&
	       pthread_cond_timedwait(&d->boot_cv, &d->mu, &until) == 0)
		;
	if (rsh_svc_boot_taken(d))
		return -EBUSY;
	d->boot_opening = true;
	d->boot_wrote = false;
	d->boot_gen = ++d->boot_next_gen;
	__atomic_store_n(&d->boot_cancel, 0, __ATOMIC_RELAXED);
	return (int64_t)d->boot_gen;
}

/* open(2) of the boot node by a writer: 0 and *gen (the file handle). */
int
rsh_svc_boot_open(struct rshd *s, struct rsh_svc_dev *d, uid_t uid, pid_t pid,
		  uint64_t *gen)
{
	struct rsh_boot_opts o;
	struct rsh_boot *b = NULL;
	int64_t g;
	int delay_s, rc;

	pthread_mutex_lock(&d->mu);
	g = rsh_svc_boot_claim(d);
	/* misc writes change these under mu from other FUSE threads */
	rsh_boot_opts_default(&o);
	o.stall_timeout_ms = (uint64_t)d->boot_timeout_s * 1000;
	o.skip_reset = d->boot_reset_skip;
	pthread_mutex_unlock(&d->mu);
	if (g < 0) {
		rsh_svc_audit(d, uid, pid, "boot push open (another writer holds the node)", -EBUSY);
		return -EBUSY;
	}
	delay_s = __atomic_load_n(&s->reset_delay_s, __ATOMIC_RELAXED);
	o.reset_delay_ms = delay_s >= 0 ? (int64_t)delay_s * 1000 : -1;
	o.cancel_flag = &d->boot_cancel;
	rc = rsh_boot_open(d->dev, s->poller, &o, &b);
	if (rc < 0)
		RSH_SVC_LOG(ERR, d->name, "boot open: %s", rsh_last_error());
	if (rc == -EBUSY && rsh_svc_dev_dropped(d))
		rc = -EINVAL; /* drop mode: NVIDIA's daemon answers EINVAL */
	pthread_mutex_lock(&d->mu);
	d->boot_opening = false;
	d->boot = b;
	d->boot_uid = uid;
	d->boot_pid = pid;
	pthread_cond_broadcast(&d->boot_cv);
	pthread_mutex_unlock(&d->mu);
	rsh_svc_audit(d, uid, pid, o.skip_reset && rc == 0 ?
		      "boot push start (reset skipped)" : "boot push start", rc);
	*gen = (uint64_t)g;
	return rc;
}

/*
 * The writer's errno for a push's result: a cancel is EINTR when a signal
 * to the writer asked for it, EIO when the service stopped (a writer that
 * was not interrupted must not take EINTR for a success: dd's close does).
 */
static int
rsh_svc_boot_errno(struct rsh_svc_dev *d, int rc)
{
	if (rc != -ECANCELED)
		return rc;
	return __atomic_load_n(&d->boot_stopped, __ATOMIC_RELAXED) ? -EIO : -EINTR;
}

/* write(2): queue bytes; blocks while every chunk is in flight. EPIPE
 * once this open's push has ended (a close after data ends it). */
int
rsh_svc_boot_write(struct rsh_svc_dev *d, uint64_t gen, const void *buf, size_t len)
{
	struct rsh_boot *b = NULL;
	int rc;

	pthread_mutex_lock(&d->mu);
	if (d->boot != NULL && d->boot_gen == gen && !d->boot_ending) {
		b = d->boot;
		d->boot_users++;
		d->boot_wrote = true;
	}
	pthread_mutex_unlock(&d->mu);
	if (b == NULL)
		return -EPIPE;
	rc = rsh_boot_write(b, buf, len);
	pthread_mutex_lock(&d->mu);
	if (--d->boot_users == 0)
		pthread_cond_broadcast(&d->boot_cv);
	pthread_mutex_unlock(&d->mu);
	return rsh_svc_boot_errno(d, rc);
}

/* The summary line of a finished push. */
static void
rsh_svc_boot_summary(struct rsh_svc_dev *d, const struct rsh_boot_stats *st, int rc)
{
	double sec = rsh_ns_s(st->elapsed_ns), mib = st->bytes_pushed / 1048576.0;

	RSH_SVC_LOG(NOTICE, d->name, "boot push %s: %" PRIu64 " bytes in %.3f s, %.1f MiB/s, FIFO-full waits %" PRIu64 ", stalls %" PRIu64,
		    rc == 0 ? "done" : strerror(-rc), st->bytes_pushed, sec,
		    sec > 0 ? mib / sec : 0.0, st->fifo_full_waits, st->stalls);
}

/*
 * End the push of generation gen (d->mu held on entry, released on
 * return): no new write takes it, the writes in flight finish, then tail
 * padding, BOOT_CONTROL=1 and free, with the slot still taken, so the
 * next open starts after this one. The push's result, or 0 when gen's
 * push already ended.
 */
static int
rsh_svc_boot_end(struct rsh_svc_dev *d, uint64_t gen)
{
	struct rsh_boot_stats st;
	struct rsh_boot *b;
	uid_t uid;
	pid_t pid;
	int rc;

	if (d->boot == NULL || d->boot_gen != gen || d->boot_ending) {
		pthread_mutex_unlock(&d->mu);
		return 0;
	}
	d->boot_ending = true;
	while (d->boot_users > 0)
		pthread_cond_wait(&d->boot_cv, &d->mu); /* writes have deadlines */
	b = d->boot;
	d->boot = NULL;
	d->boot_closing = true;
	uid = d->boot_uid;
	pid = d->boot_pid;
	pthread_mutex_unlock(&d->mu);
	memset(&st, 0, sizeof(st));
	rc = rsh_boot_close(b, &st);
	pthread_mutex_lock(&d->mu);
	d->boot_closing = false;
	d->boot_ending = false;
	d->last_boot = st;
	d->boot_bytes += st.bytes_pushed;
	d->boot_pushes++;
	d->boot_errors += rc < 0;
	pthread_cond_broadcast(&d->boot_cv);
	pthread_mutex_unlock(&d->mu);
	rsh_svc_boot_summary(d, &st, rc);
	rsh_svc_audit(d, uid, pid, "boot push end", rc);
	return rsh_svc_boot_errno(d, rc);
}

/*
 * close(2) (FUSE flush, on every close of a descriptor): after data, the
 * end of the push and its result (ETIMEDOUT, ENODEV, EINTR, EIO); without data
 * (a shell's close of the descriptor it just duplicated) nothing.
 */
int
rsh_svc_boot_flush(struct rsh_svc_dev *d, uint64_t gen)
{
	pthread_mutex_lock(&d->mu);
	if (d->boot != NULL && d->boot_gen == gen && !d->boot_wrote) {
		pthread_mutex_unlock(&d->mu);
		return 0;
	}
	return rsh_svc_boot_end(d, gen);
}

/*
 * The session loop read the release of boot open gen from the connection
 * (before any later request runs): its writer has no descriptor left, and
 * an open that follows waits for this release instead of refusing.
 */
void
rsh_svc_boot_release_seen(struct rsh_svc_dev *d, uint64_t gen)
{
	pthread_mutex_lock(&d->mu);
	d->boot_released = gen;
	pthread_mutex_unlock(&d->mu);
}

/* The last close of the open (FUSE release): a push nobody wrote to ends
 * here; after a flush ended it, nothing is left to do. */
void
rsh_svc_boot_release(struct rsh_svc_dev *d, uint64_t gen)
{
	pthread_mutex_lock(&d->mu);
	rsh_svc_boot_end(d, gen);
}

/* The device stops being served: end whatever push it has. */
void
rsh_svc_boot_stop(struct rsh_svc_dev *d)
{
	pthread_mutex_lock(&d->mu);
	rsh_svc_boot_end(d, d->boot_gen);
}

/*
 * Cancel the push or the open in progress (any thread). The push was
 * opened with this flag as its cancel flag: the poll lcore and a blocked
 * writer see it, and the push itself is never touched here (an end may
 * be freeing it); an open waiting for the slot gives up.
 */
void
rsh_svc_boot_shutdown(struct rsh_svc_dev *d)
{
	__atomic_store_n(&d->boot_stopped, 1, __ATOMIC_RELAXED);
	rsh_svc_boot_cancel(d);
}

void
rsh_svc_boot_cancel(struct rsh_svc_dev *d)
{
	__atomic_store_n(&d->boot_cancel, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&d->mu);
	d->boot_cancels++;
	pthread_cond_broadcast(&d->boot_cv);
	pthread_mutex_unlock(&d->mu);
}
