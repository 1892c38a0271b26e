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
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "rsh_sim_peer.h"

#define RSH_SIM_LOCK_DIR "/run/rshim-sim"
#define RSH_SIM_NS_PREFIX "rshim-sim"
#define RSH_SIM_NS_PREFIX_MAX 20

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

/* The lock directory, created when missing. */
static const char *
rsh_sim_nslock_dir(void)
{
	const char *d = getenv("RSHIM_SIM_LOCK_DIR");

	if (d == NULL || *d == '\0')
		d = RSH_SIM_LOCK_DIR;
	mkdir(d, 0755);
	return d;
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
	char path[256], b[24];
	int fd, n;

	*holder = 0;
	snprintf(path, sizeof(path), "%s/%s%u.lock", rsh_sim_nslock_dir(),
		 rsh_sim_ns_prefix(), index);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int err = errno == EWOULDBLOCK ? EBUSY : errno;

		*holder = rsh_sim_nslock_holder(fd);
		close(fd);
		return -err;
	}
	n = snprintf(b, sizeof(b), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, b, (size_t)n, 0) != n) {
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
