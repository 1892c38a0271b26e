/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mount point of /dev/rshimN and the threads that serve its FUSE
 * session.
 *
 * Mount point: the service creates DIR/rshimN itself (0755) or takes an
 * existing one only when it is a plain directory of root's; a symbolic
 * link or a directory a user made is refused, so a user who can write to
 * DIR never gets the nodes mounted over a directory of their choice. The
 * checked directory is opened (O_PATH, no symlinks) and mounted through
 * /proc/self/fd, so it cannot be swapped between the check and the mount;
 * libfuse is handed the /dev/fuse descriptor ("/dev/fd/N") and never
 * mounts or unmounts anything itself.
 *
 * Threads: a worker waits in poll(2) on the session's /dev/fuse (non-
 * blocking) and on a stop eventfd, takes one request and runs it; when
 * the last idle worker takes one, another is started (up to
 * RSH_SVC_FUSE_THREADS), so a request that waits (a boot write into a
 * stalled DPU, a reset delay) never holds misc or an interrupt. Stopping
 * never waits for the users of the mount: the mount is detached, the
 * workers leave at the stop eventfd once their request is answered, and
 * closing /dev/fuse then ends the connection, so whatever a process still
 * holds (an open file, a current directory) answers ENOTCONN.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "svc.h"

/* True when st is a directory of this (root) process no one else may
 * write to: what a mount point must be. */
static bool
rsh_svc_mnt_dir_ok(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == geteuid();
}

/* DIR/rshimN left mounted by a service that died: unmount it. */
static void
rsh_svc_mnt_stale(struct rsh_svc_dev *d)
{
	RSH_SVC_LOG(NOTICE, d->name, "%s: stale mount of a service that died; unmounting it",
		    d->mnt);
	if (umount2(d->mnt, MNT_DETACH | UMOUNT_NOFOLLOW) < 0)
		RSH_SVC_LOG(WARNING, d->name, "cannot unmount %s: %s", d->mnt, strerror(errno));
}

/* True when DIR/rshimN is a mount whose server is gone (lstat in st). */
static bool
rsh_svc_mnt_is_stale(struct rsh_svc_dev *d, int lrc, const struct stat *st)
{
	struct stat dir;
	struct statfs sf;

	if (lrc < 0)
		return errno == ENOTCONN || errno == ECONNABORTED;
	if (stat(d->svc->dev_dir, &dir) < 0 || dir.st_dev == st->st_dev)
		return false; /* not a mount */
	/* statfs always asks the FUSE server (lstat may answer from cache). */
	return statfs(d->mnt, &sf) < 0 && (errno == ENOTCONN || errno == ECONNABORTED);
}

/* Why an existing DIR/rshimN cannot be used, or NULL (lstat in st). */
static const char *
rsh_svc_mnt_refuse(struct rsh_svc_dev *d, const struct stat *st)
{
	struct stat dir;

	if (S_ISLNK(st->st_mode))
		return "is a symbolic link (not made by rshim-pmd); remove it";
	if (!S_ISDIR(st->st_mode))
		return "is not a directory; remove it";
	if (stat(d->svc->dev_dir, &dir) == 0 && dir.st_dev != st->st_dev)
		return "is mounted by another process (another rshim-pmd?); name this device another rshimN";
	if (!rsh_svc_mnt_dir_ok(st))
		return "is a directory root does not own (not made by rshim-pmd); remove it";
	return NULL;
}

/* Create DIR/rshimN or check the existing one; the checked directory
 * opened O_PATH in *fd. */
static int
rsh_svc_mnt_prepare(struct rsh_svc_dev *d, int *fd, bool *created)
{
	struct stat st;
	const char *why;

	*created = false;
	if (rsh_svc_mnt_is_stale(d, lstat(d->mnt, &st), &st))
		rsh_svc_mnt_stale(d);
	if (lstat(d->mnt, &st) == 0) {
		why = rsh_svc_mnt_refuse(d, &st);
		if (why != NULL) {
			RSH_SVC_LOG(ERR, d->name, "%s %s", d->mnt, why);
			return -EPERM;
		}
	} else if (mkdir(d->mnt, 0755) == 0) {
		*created = true;
	} else {
		RSH_SVC_LOG(ERR, d->name, "cannot create %s: %s", d->mnt, strerror(errno));
		return -errno;
	}
	*fd = open(d->mnt, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0 || fstat(*fd, &st) < 0 || !rsh_svc_mnt_dir_ok(&st)) {
		RSH_SVC_LOG(ERR, d->name, "%s changed while rshim-pmd prepared it (a symbolic link?); not mounted",
			    d->mnt);
		if (*fd >= 0)
			close(*fd);
		return -EPERM;
	}
	return 0;
}

/*
 * Create or check DIR/rshimN and mount a FUSE connection on it (root
 * only: allow_other, the kernel checks the modes). *fuse_fd is the
 * connection for fuse_session_mount("/dev/fd/N").
 */
int
rsh_svc_mnt_make(struct rsh_svc_dev *d, int *fuse_fd, bool *created)
{
	char target[64], opts[160];
	int dir = -1, rc;

	rc = rsh_svc_mnt_prepare(d, &dir, created);
	if (rc < 0)
		return rc;
	*fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (*fuse_fd < 0) {
		rc = -errno;
		goto fail;
	}
	snprintf(target, sizeof(target), "/proc/self/fd/%d", dir);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other,default_permissions",
		 *fuse_fd);
	if (mount("rshim-pmd", target, "fuse.rshim-pmd", MS_NOSUID | MS_NODEV, opts) < 0) {
		rc = -errno;
		close(*fuse_fd);
		goto fail;
	}
	close(dir);
	return 0;
fail:
	RSH_SVC_LOG(ERR, d->name, "cannot mount %s: %s (FUSE: is /dev/fuse there?)", d->mnt,
		    strerror(-rc));
	close(dir);
	if (*created)
		rmdir(d->mnt);
	return rc;
}

/* Detach DIR/rshimN at once (users of it keep what they hold) and remove
 * the directory. */
void
rsh_svc_mnt_drop(struct rsh_svc_dev *d)
{
	if (umount2(d->mnt, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL)
		RSH_SVC_LOG(WARNING, d->name, "cannot unmount %s: %s", d->mnt, strerror(errno));
	if (rmdir(d->mnt) < 0 && errno != ENOENT)
		RSH_SVC_LOG(WARNING, d->name, "cannot remove %s: %s", d->mnt, strerror(errno));
}

static int rsh_svc_loop_spawn(struct rsh_svc_loop *l);

/* A worker took a request: start another if none is left idle. */
static void
rsh_svc_loop_busy(struct rsh_svc_loop *l, int delta)
{
	pthread_mutex_lock(&l->mu);
	l->idle += delta;
	if (l->idle == 0 && !l->stopping && l->n < RSH_SVC_FUSE_THREADS)
		rsh_svc_loop_spawn(l);
	pthread_mutex_unlock(&l->mu);
}

/* Tell every worker to leave (an eventfd stays readable). */
static void
rsh_svc_loop_wake(struct rsh_svc_loop *l)
{
	uint64_t one = 1;

	if (write(l->stop_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		RSH_SVC_LOG(WARNING, "-", "cannot stop a FUSE worker: %s", strerror(errno));
}

/* Wait for a request or the stop; false when the worker must leave. */
static bool
rsh_svc_loop_wait(struct rsh_svc_loop *l)
{
	struct pollfd pfd[2] = {
		{ .fd = l->fd, .events = POLLIN },
		{ .fd = l->stop_fd, .events = POLLIN },
	};

	while (poll(pfd, 2, -1) < 0)
		if (errno != EINTR)
			return false;
	return pfd[1].revents == 0;
}

/* One worker: requests until the stop or the end of the connection. */
static void *
rsh_svc_loop_worker(void *arg)
{
	struct rsh_svc_loop *l = arg;
	struct fuse_buf buf = { .mem = NULL };
	int rc;

	while (rsh_svc_loop_wait(l)) {
		/* One worker reads at a time (the connection is non-blocking),
		 * and the look at what it read comes before any other worker
		 * reads the next request: what seen notes is known to every
		 * later request (node_boot.c: a boot release before an open). */
		pthread_mutex_lock(&l->recv_mu);
		rc = fuse_session_receive_buf(l->se, &buf);
		if (rc > 0 && l->seen != NULL && (buf.flags & FUSE_BUF_IS_FD) == 0)
			l->seen(l->seen_arg, buf.mem, (size_t)rc);
		pthread_mutex_unlock(&l->recv_mu);
		if (rc == -EAGAIN || rc == -EINTR)
			continue; /* another worker took it */
		if (rc <= 0) {
			/* Unmounted with nobody left on it, or aborted. */
			rsh_svc_loop_wake(l);
			break;
		}
		rsh_svc_loop_busy(l, -1);
		fuse_session_process_buf(l->se, &buf);
		rsh_svc_loop_busy(l, 1);
	}
	free(buf.mem);
	return NULL;
}

/* Start one more worker (l->mu held). */
static int
rsh_svc_loop_spawn(struct rsh_svc_loop *l)
{
	if (pthread_create(&l->threads[l->n], NULL, rsh_svc_loop_worker, l) != 0)
		return -EAGAIN;
	l->n++;
	l->idle++;
	return 0;
}

/* Serve the session se, whose connection is fd; seen (if not NULL) is
 * shown each request as it is read. */
int
rsh_svc_loop_start(struct rsh_svc_loop *l, struct fuse_session *se, int fd,
		   rsh_svc_loop_seen_fn seen, void *seen_arg)
{
	int rc;

	memset(l, 0, sizeof(*l));
	l->se = se;
	l->fd = fd;
	l->seen = seen;
	l->seen_arg = seen_arg;
	pthread_mutex_init(&l->mu, NULL);
	pthread_mutex_init(&l->recv_mu, NULL);
	l->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->stop_fd < 0) {
		rc = -errno;
		goto fail;
	}
	pthread_mutex_lock(&l->mu);
	rc = rsh_svc_loop_spawn(l);
	pthread_mutex_unlock(&l->mu);
	if (rc == 0)
		return 0;
	close(l->stop_fd);
fail:
	pthread_mutex_destroy(&l->recv_mu);
	pthread_mutex_destroy(&l->mu);
	return rc;
}

/* Stop the workers: each leaves once its request is answered. */
void
rsh_svc_loop_stop(struct rsh_svc_loop *l)
{
	unsigned int n;

	pthread_mutex_lock(&l->mu);
	l->stopping = true;
	n = l->n;
	pthread_mutex_unlock(&l->mu);
	rsh_svc_loop_wake(l);
	/* No worker starts once stopping is set: n is final. */
	for (unsigned int i = 0; i < n; i++)
		pthread_join(l->threads[i], NULL);
	close(l->stop_fd);
	pthread_mutex_destroy(&l->recv_mu);
	pthread_mutex_destroy(&l->mu);
}
