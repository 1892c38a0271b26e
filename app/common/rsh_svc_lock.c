/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service's per-device lock (see rsh_svc_lock.h): path from the
 * device's host-wide key, take, record, release, and the holder lookup of
 * rshim-pmd-app, and the names the record carries.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rsh.h"
#include "rsh_svc_lock.h"

/* RUN_DIR/<key>.lock; '/' in a key (never in the library's keys) and a
 * leading '.' are made safe so the file stays inside RUN_DIR. */
int
rsh_svc_lock_path(const char *run_dir, const char *devstr, char *path,
		  size_t len)
{
	char key[RSH_DEV_NAME_MAX];
	int rc = rsh_dev_host_key(devstr, key, sizeof(key));

	if (rc <= 0)
		return rc;
	for (char *c = key; *c != '\0'; c++)
		if (*c == '/' || (c == key && *c == '.'))
			*c = '_';
	if ((size_t)snprintf(path, len, "%s/%s.lock", run_dir, key) >= len)
		return -ENAMETOOLONG;
	return 1;
}

/* Parse a lock record "<pid> <name>" read from fd. */
static void
rsh_svc_lock_read(int fd, struct rsh_svc_lock_holder *h)
{
	char rec[64];
	ssize_t n = pread(fd, rec, sizeof(rec) - 1, 0);
	char *sp;

	memset(h, 0, sizeof(*h));
	rec[n > 0 ? n : 0] = '\0';
	rec[strcspn(rec, "\n")] = '\0';
	h->pid = strtol(rec, &sp, 10);
	if (sp == rec || h->pid <= 0) {
		h->pid = 0;
		return;
	}
	if (*sp == ' ')
		snprintf(h->name, sizeof(h->name), "%.31s", sp + 1);
}

/*
 * Open the lock file: created with O_EXCL, or an existing one (a service
 * that died leaves it) only when it is a plain file of this user with one
 * name: never a symbolic link (O_NOFOLLOW) or a hard link planted to a
 * file root would then truncate. An fd, or -errno (-ELOOP, -EMLINK).
 */
static int
rsh_svc_lock_open(const char *path)
{
	const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW;
	struct stat st;
	int fd = open(path, flags | O_CREAT | O_EXCL, 0644);

	if (fd >= 0 || errno != EEXIST)
		return fd >= 0 ? fd : -errno;
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid()) {
		close(fd);
		return -EMLINK;
	}
	return fd;
}

/* Take the lock; see the header. */
int
rsh_svc_lock_take(const char *run_dir, const char *devstr, int *fd,
		  struct rsh_svc_lock_holder *h)
{
	char path[4096];
	int rc = rsh_svc_lock_path(run_dir, devstr, path, sizeof(path));

	*fd = -1;
	if (rc <= 0)
		return rc == 0 ? 1 : rc;
	rc = rsh_svc_lock_open(path);
	if (rc < 0)
		return rc;
	if (flock(rc, LOCK_EX | LOCK_NB) < 0) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		rsh_svc_lock_read(rc, h);
		close(rc);
		return err;
	}
	*fd = rc;
	return 0;
}

/* Record who holds it. */
int
rsh_svc_lock_note(int fd, const char *name)
{
	char rec[64];
	int n = snprintf(rec, sizeof(rec), "%ld %s\n", (long)getpid(), name);

	if (ftruncate(fd, 0) < 0 || pwrite(fd, rec, (size_t)n, 0) != n)
		return -errno;
	return 0;
}

/* Remove the file while still holding the lock, then release it. */
void
rsh_svc_lock_drop(const char *run_dir, const char *devstr, int fd)
{
	char path[4096];

	if (fd < 0)
		return;
	if (rsh_svc_lock_path(run_dir, devstr, path, sizeof(path)) > 0)
		unlink(path);
	close(fd);
}

/* Holder lookup without taking the lock for long (a shared probe). */
int
rsh_svc_lock_held(const char *run_dir, const char *devstr,
		  struct rsh_svc_lock_holder *h)
{
	char path[4096];
	int fd, held;

	if (rsh_svc_lock_path(run_dir, devstr, path, sizeof(path)) <= 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	if (held)
		rsh_svc_lock_read(fd, h);
	close(fd);
	return held;
}

/* The client's lock directory; see the header. */
const char *
rsh_svc_lock_dir(void)
{
	const char *v = getenv(RSH_SVC_LOCK_DIR_ENV);

	return v != NULL && v[0] != '\0' ? v : RSH_SVC_LOCK_DIR;
}

/* "rshimN" or ".../rshimN": N, else -1. */
int
rsh_svc_name_index(const char *name)
{
	const char *b = strrchr(name, '/');
	char *end;
	long n;

	b = b != NULL ? b + 1 : name;
	if (strncmp(b, "rshim", 5) != 0 || b[5] < '0' || b[5] > '9')
		return -1;
	n = strtol(b + 5, &end, 10);
	return *end == '\0' && n <= RSH_SVC_NAME_MAX_INDEX ? (int)n : -1;
}
