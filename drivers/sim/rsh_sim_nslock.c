/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which emulated device owns which network namespace name, host-wide.
 *
 * Every live instance holds an flock(2) on /run/rshim-sim/rshim-sim<N>.lock
 * for as long as its namespace rshim-sim<N> exists; the lock goes away with
 * the process however it ends. An instance names (and, if a leftover is
 * there, removes) namespace N only while holding lock N, so it can never
 * remove the namespace of another live instance: a held lock means "in
 * use", a free lock on an existing namespace means "stale" (removed only
 * for an explicit peer=<N>; an automatic pick skips taken names). The pid of the
 * holder is written into the file, for messages only.
 *
 * RSHIM_SIM_LOCK_DIR overrides the directory (tests, unprivileged runs);
 * RSHIM_SIM_NETNS_PREFIX replaces "rshim-sim" in the names (a test run's
 * own namespaces, which nothing else on the host can take or remove).
 *
 * The emulator often runs as root in a directory a user may reach, so it
 * never follows what was planted there: the directory must be ours or
 * root's and writable by nobody else unless it is sticky (as /tmp is);
 * lock files are opened with O_NOFOLLOW relative to the checked directory
 * and written (truncated, the pid) only when they are plain files of ours
 * with one link. A plain file of another user in a sticky directory (that
 * user's emulator) is locked read-only and left as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_sim_peer.h"

#define RSH_SIM_LOCK_DIR "/run/rshim-sim"
#define RSH_SIM_NS_PREFIX "rshim-sim"
#define RSH_SIM_NS_PREFIX_MAX 20
/* Lock files: never a terminal, never a wait on a planted FIFO. */
#define RSH_SIM_LOCK_OFLAGS (O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* The namespace name prefix: RSHIM_SIM_NETNS_PREFIX when it is a short
 * name of letters, digits, '-' and '_', else "rshim-sim". */
const char *
rsh_sim_ns_prefix(void)
{
	const char *p = getenv("RSHIM_SIM_NETNS_PREFIX");

	if (p == NULL || *p == '\0' || strlen(p) > RSH_SIM_NS_PREFIX_MAX ||
	    strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != strlen(p))
		return RSH_SIM_NS_PREFIX;
	return p;
}

/* Why a lock directory must not be used, or NULL. */
static const char *
rsh_sim_nslock_dir_bad(const struct stat *st)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "owned by another user";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st->st_mode & S_ISVTX) == 0)
		return "writable by group or others and not sticky";
	return NULL;
}

/* The lock directory (created 0755 when missing), opened and checked: a
 * directory fd, -ENOENT when there is none to use (go on unlocked), or
 * -EPERM with the reason logged. */
static int
rsh_sim_nslock_dir(void)
{
	const char *d = getenv("RSHIM_SIM_LOCK_DIR"), *why;
	struct stat st;
	int fd;

	if (d == NULL || *d == '\0')
		d = RSH_SIM_LOCK_DIR;
	if (mkdir(d, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	why = fstat(fd, &st) < 0 ? strerror(errno) : rsh_sim_nslock_dir_bad(&st);
	if (why == NULL)
		return fd;
	close(fd);
	RSH_LOG(WARNING, "lock directory %s: %s; no network namespace locks taken there (fix its owner or mode, or set RSHIM_SIM_LOCK_DIR)",
		d, why);
	return -EPERM;
}

/*
 * Open lock file name in the directory dfd: created (O_EXCL), or an
 * existing plain file with one link (read-only when we may not write it);
 * *ours when it is a file of ours (it may be written). Never follows a
 * link, never blocks, never truncates; -EPERM for anything else.
 */
static int
rsh_sim_nslock_open(int dfd, const char *name, bool *ours)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | RSH_SIM_LOCK_OFLAGS, 0644);

	*ours = fd >= 0;
	if (fd >= 0 || errno != EEXIST)
		return fd >= 0 ? fd : -errno;
	fd = openat(dfd, name, O_RDWR | RSH_SIM_LOCK_OFLAGS);
	if (fd < 0 && errno == EACCES)
		fd = openat(dfd, name, O_RDONLY | RSH_SIM_LOCK_OFLAGS);
	if (fd < 0)   /* a symbolic link, a directory, a FIFO nobody reads */
		return errno == ELOOP || errno == EISDIR || errno == ENXIO ? -EPERM : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		return -EPERM;
	}
	*ours = st.st_uid == geteuid();
	return fd;
}

/* pid written in a lock file, 0 when unreadable. */
static pid_t
rsh_sim_nslock_holder(int fd)
{
	char b[24] = { 0 };

	if (pread(fd, b, sizeof(b) - 1, 0) <= 0)
		return 0;
	return (pid_t)atol(b);
}

int
rsh_sim_nslock_claim(unsigned int index, pid_t *holder)
{
	char name[64], b[24];
	int dfd, fd, n;
	bool ours;

	*holder = 0;
	dfd = rsh_sim_nslock_dir();
	if (dfd < 0)
		return dfd;
	snprintf(name, sizeof(name), "%s%u.lock", rsh_sim_ns_prefix(), index);
	fd = rsh_sim_nslock_open(dfd, name, &ours);
	close(dfd);
	if (fd == -EPERM)
		RSH_LOG(WARNING, "lock file %s is not a plain file with one link (a link planted there?); not used",
			name);
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int err = errno == EWOULDBLOCK ? EBUSY : errno;

		*holder = rsh_sim_nslock_holder(fd);
		close(fd);
		return -err;
	}
	n = snprintf(b, sizeof(b), "%ld\n", (long)getpid());
	if (ours && (ftruncate(fd, 0) != 0 || pwrite(fd, b, (size_t)n, 0) != n)) {
		/* the pid is for messages only; the lock is what counts */
	}
	return fd;
}

int
rsh_sim_nslock_claim_free(unsigned int *index)
{
	unsigned int i;
	pid_t holder;
	int fd;

	for (i = 0; i < RSH_SIM_NS_INDEX_MAX; i++) {
		fd = rsh_sim_nslock_claim(i, &holder);
		if (fd != -EBUSY) {
			*index = i;
			return fd;
		}
	}
	return -EBUSY;
}

void
rsh_sim_nslock_release(int fd)
{
	if (fd >= 0)
		close(fd); /* drops the flock */
}
