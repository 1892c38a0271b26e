/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rshim-pmd service's per-device lock, one protocol for the program
 * that takes it (the service) and the one that looks for its holder
 * (rshim-pmd-app): an flock(2) on RUN_DIR/<key>.lock for every device that
 * other processes of the host can reach, where <key> is the library's
 * host-wide name of the device (rsh_dev_host_key(): the canonical PCI
 * address, or "sim-shared-NAME" for a shared= emulation). The file holds
 * one line, "<pid> rshimN", of the service serving the device. A private
 * emulated device has no lock: every process has its own.
 */
#ifndef RSH_SVC_LOCK_H
#define RSH_SVC_LOCK_H

#include <stddef.h>
#include <sys/types.h>

/* Where the service keeps its locks; RSHIM_PMD_RUN_DIR stands for it in
 * rshim-pmd-app (tests), as --run-dir does in the service. */
#define RSH_SVC_LOCK_DIR "/run/rshim-pmd"
#define RSH_SVC_LOCK_DIR_ENV "RSHIM_PMD_RUN_DIR"

/* The name the service gives the N-th device it serves (its nodes are
 * /dev/<name>/..., its record's second field is <name>). */
#define RSH_SVC_NAME_FMT "rshim%u"
#define RSH_SVC_NAME_MAX_INDEX 255

/* Who holds a lock, from its record. */
struct rsh_svc_lock_holder {
	long pid;       /* 0 when the record is empty or unreadable */
	char name[32];  /* "rshimN", "" when not recorded */
};

/*
 * The lock file of a device string: 1 and path filled when the device can
 * be shared (it has a lock), 0 when it is private, -EINVAL for a device
 * string no backend accepts, -ENAMETOOLONG.
 */
int rsh_svc_lock_path(const char *run_dir, const char *devstr, char *path,
		      size_t len);

/*
 * Take the lock of a shareable device: 0 and *fd (the caller keeps it open
 * while it serves the device); 1 when the device is private (*fd = -1, no
 * lock needed); -EBUSY when another live process holds it (*h filled);
 * another negative errno when the file cannot be used (errno kept).
 */
int rsh_svc_lock_take(const char *run_dir, const char *devstr, int *fd,
		      struct rsh_svc_lock_holder *h);

/* Record "<pid> <name>" in a held lock. @return 0 or -errno. */
int rsh_svc_lock_note(int fd, const char *name);

/* Release a lock taken by rsh_svc_lock_take and remove its file. */
void rsh_svc_lock_drop(const char *run_dir, const char *devstr, int fd);

/*
 * Is the device held by a live service? 1 (and *h filled) when it is, 0
 * when it is not, is private, or has no lock file.
 */
int rsh_svc_lock_held(const char *run_dir, const char *devstr,
		      struct rsh_svc_lock_holder *h);

/*
 * The lock directory as a client of the service sees it: RSH_SVC_LOCK_DIR,
 * or RSHIM_PMD_RUN_DIR when set and not empty.
 */
const char *rsh_svc_lock_dir(void);

/*
 * The index N of a service device name "rshimN" (or a path ending in
 * "/rshimN", N at most RSH_SVC_NAME_MAX_INDEX): N, or -1 when it is not one.
 */
int rsh_svc_name_index(const char *name);

#endif /* RSH_SVC_LOCK_H */
