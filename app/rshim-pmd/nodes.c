/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /dev/rshimN as a FUSE directory (libfuse3 low-level API), one session per
 * device: boot, misc and rshim are files, console is a symlink to the
 * device's PTY (/dev/pts/M), so screen, minicom, picocom and cat open a real
 * terminal; while the terminal is open, or refused in secure NIC mode, the
 * link points to a hidden name here whose open answers EBUSY or EPERM
 * (console.c). The rshim daemon serves the same names as CUSE character
 * devices (hardware-notes §5.1); this host has no CUSE, so rshim-pmd builds
 * the FUSE directory only.
 *
 * Access: files are root-only (0600) unless a NODE_GROUP is configured
 * (0660, that group); the kernel enforces it (default_permissions). Every
 * request carries the caller's uid and pid, which the audit lines name.
 * A device marked gone answers ENODEV on every node.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <linux/fuse.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svc.h"

/* Background requests (releases) the kernel may have in flight. */
#define RSH_SVC_FUSE_BACKGROUND 64

enum rsh_svc_ino {
	RSH_SVC_INO_ROOT = FUSE_ROOT_ID,
	RSH_SVC_INO_BOOT,
	RSH_SVC_INO_CONSOLE,
	RSH_SVC_INO_MISC,
	RSH_SVC_INO_RSHIM,
	RSH_SVC_INO_END,
	/* Hidden (not listed): where the console link points meanwhile. */
	RSH_SVC_INO_CONS_BUSY = RSH_SVC_INO_END,
	RSH_SVC_INO_CONS_LOCKED,
	RSH_SVC_INO_ALL,
};

static const char *const rsh_svc_node_names[RSH_SVC_INO_ALL] = {
	[RSH_SVC_INO_BOOT] = "boot", [RSH_SVC_INO_CONSOLE] = "console",
	[RSH_SVC_INO_MISC] = "misc", [RSH_SVC_INO_RSHIM] = "rshim",
	[RSH_SVC_INO_CONS_BUSY] = RSH_SVC_CONS_IN_USE,
	[RSH_SVC_INO_CONS_LOCKED] = RSH_SVC_CONS_LOCKED,
};

/* A device's FUSE session. */
struct rsh_svc_fuse {
	struct rshd *s;
	struct rsh_svc_dev *d;
	struct fuse_session *se;
	struct rsh_svc_loop loop;
	bool looping;
	pthread_mutex_t fh_mu;     /* guards open_fh, next_fh and the refs */
	struct rsh_svc_misc_fh *open_fh; /* misc opens not yet released:
					  * freed at unmount if the release
					  * never came */
	uint64_t next_fh;
};

/*
 * Text of one open of misc (rendered at open, hardware-notes §5.4). The
 * FUSE file handle is its id, not its address: a reader killed while its
 * read is answered makes the kernel send the release at once, and another
 * worker may run it first, so a read finds the open by id and holds a
 * reference while it replies from buf.
 */
struct rsh_svc_misc_fh {
	struct rsh_svc_misc_fh *prev, *next;
	uint64_t id;
	unsigned int refs;         /* the open, and each read replying */
	size_t len;
	char buf[8192];
};

/* Track a misc open (FUSE threads): its id. */
static uint64_t
rsh_svc_fh_link(struct rsh_svc_fuse *f, struct rsh_svc_misc_fh *m)
{
	pthread_mutex_lock(&f->fh_mu);
	m->id = ++f->next_fh;
	m->refs = 1;
	m->prev = NULL;
	m->next = f->open_fh;
	if (m->next != NULL)
		m->next->prev = m;
	f->open_fh = m;
	pthread_mutex_unlock(&f->fh_mu);
	return m->id;
}

/* The open with this id, with a reference taken; NULL once released. */
static struct rsh_svc_misc_fh *
rsh_svc_fh_get(struct rsh_svc_fuse *f, uint64_t id)
{
	struct rsh_svc_misc_fh *m;

	pthread_mutex_lock(&f->fh_mu);
	for (m = f->open_fh; m != NULL && m->id != id; m = m->next)
		;
	if (m != NULL)
		m->refs++;
	pthread_mutex_unlock(&f->fh_mu);
	return m;
}

/* Drop a reference (fh_mu held); the last one frees. */
static void
rsh_svc_fh_unref(struct rsh_svc_misc_fh *m)
{
	if (--m->refs == 0)
		free(m);
}

/* A read is done with the open. */
static void
rsh_svc_fh_put(struct rsh_svc_fuse *f, struct rsh_svc_misc_fh *m)
{
	pthread_mutex_lock(&f->fh_mu);
	rsh_svc_fh_unref(m);
	pthread_mutex_unlock(&f->fh_mu);
}

/* Release: forget the open; freed once no read uses it. */
static void
rsh_svc_fh_free(struct rsh_svc_fuse *f, uint64_t id)
{
	struct rsh_svc_misc_fh *m;

	pthread_mutex_lock(&f->fh_mu);
	for (m = f->open_fh; m != NULL && m->id != id; m = m->next)
		;
	if (m != NULL) {
		if (m->prev != NULL)
			m->prev->next = m->next;
		else
			f->open_fh = m->next;
		if (m->next != NULL)
			m->next->prev = m->prev;
		rsh_svc_fh_unref(m);
	}
	pthread_mutex_unlock(&f->fh_mu);
}

/* The session's device. */
static struct rsh_svc_fuse *
rsh_svc_req_fuse(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* Attributes of a node. */
static void
rsh_svc_node_stat(struct rsh_svc_fuse *f, fuse_ino_t ino, struct stat *st)
{
	gid_t gid = __atomic_load_n(&f->s->group_gid, __ATOMIC_RELAXED);
	bool grp = gid != (gid_t)-1;

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_nlink = 1;
	st->st_gid = grp ? gid : 0;
	if (ino == RSH_SVC_INO_ROOT) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (ino == RSH_SVC_INO_CONSOLE) {
		st->st_mode = S_IFLNK | 0777;
		st->st_size = strlen(f->d->cons.pts);
	} else if (ino >= RSH_SVC_INO_END) {
		st->st_mode = S_IFREG | 0666; /* its open answers the errno */
	} else {
		st->st_mode = S_IFREG | (grp ? 0660 : 0600);
	}
}

/* True when the device is gone: reply ENODEV. */
static bool
rsh_svc_gone(fuse_req_t req, struct rsh_svc_fuse *f)
{
	if (!__atomic_load_n(&f->d->gone, __ATOMIC_RELAXED))
		return false;
	fuse_reply_err(req, ENODEV);
	return true;
}

/* lookup: the four names in the root. */
static void
rsh_svc_ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct rsh_svc_fuse *f = rsh_svc_req_fuse(req);
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	if (parent != RSH_SVC_INO_ROOT) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	for (unsigned int i = RSH_SVC_INO_BOOT; i < RSH_SVC_INO_ALL; i++) {
		if (strcmp(name, rsh_svc_node_names[i]) != 0)
			continue;
		if (i == RSH_SVC_INO_CONSOLE && f->d->cons.pts[0] == '\0')
			break;
		e.ino = i;
		e.attr_timeout = 1.0;
		e.entry_timeout = 1.0;
		rsh_svc_node_stat(f, i, &e.attr);
		fuse_reply_entry(req, &e);
		return;
	}
	fuse_reply_err(req, ENOENT);
}

/* getattr. */
static void
rsh_svc_ll_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (ino >= RSH_SVC_INO_ALL) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	rsh_svc_node_stat(rsh_svc_req_fuse(req), ino, &st);
	fuse_reply_attr(req, &st, 1.0);
}

/* setattr: only the truncation an open(O_TRUNC) asks for (bf-reg opens
 * the rshim node with '>'); nothing is stored, so it is a no-op. */
static void
rsh_svc_ll_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		   int to_set, struct fuse_file_info *fi)
{
	(void)attr;
	if (to_set & ~(FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME |
		       FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_CTIME)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	rsh_svc_ll_getattr(req, ino, fi);
}

/* readlink: console → /dev/pts/M. */
static void
rsh_svc_ll_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct rsh_svc_fuse *f = rsh_svc_req_fuse(req);
	char target[sizeof(f->d->cons.pts)];

	if (ino != RSH_SVC_INO_CONSOLE || f->d->cons.pts[0] == '\0') {
		fuse_reply_err(req, EINVAL);
		return;
	}
	rsh_svc_cons_target(f->d, target, sizeof(target));
	fuse_reply_readlink(req, target);
}

/* readdir of the root. */
static void
rsh_svc_ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct rsh_svc_fuse *f = rsh_svc_req_fuse(req);
	static const char *const dots[2] = { ".", ".." };
	char buf[1024];
	size_t used = 0;
	struct stat st;

	(void)fi;
	if (ino != RSH_SVC_INO_ROOT) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	/* Offsets 0 and 1 are "." and ".."; from 2 on, the offset is the
	 * node's inode number. */
	for (off_t i = off; i < RSH_SVC_INO_END; i++) {
		const char *name = i < 2 ? dots[i] : rsh_svc_node_names[i];
		size_t n;

		if (i == RSH_SVC_INO_CONSOLE && f->d->cons.pts[0] == '\0')
			continue;
		rsh_svc_node_stat(f, i < 2 ? RSH_SVC_INO_ROOT : (fuse_ino_t)i, &st);
		n = fuse_add_direntry(req, buf + used, sizeof(buf) - used, name, &st, i + 1);
		if (used + n > size || used + n > sizeof(buf))
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
}

/* A stalled boot write was interrupted (signal to the writer). */
static void
rsh_svc_boot_intr(fuse_req_t req, void *arg)
{
	(void)req;
	rsh_svc_boot_cancel(arg);
}

/* open: boot takes the one writer slot; misc renders its text. */
static void
rsh_svc_ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rsh_svc_fuse *f = rsh_svc_req_fuse(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct rsh_svc_misc_fh *m;
	uint64_t gen;
	int rc;

	if (rsh_svc_gone(req, f))
		return;
	fi->direct_io = 1;
	fi->nonseekable = ino == RSH_SVC_INO_BOOT;
	fi->fh = 0;
	if (ino == RSH_SVC_INO_CONS_BUSY || ino == RSH_SVC_INO_CONS_LOCKED) {
		/* The console, as NVIDIA's: one owner; secure NIC mode. */
		rsh_svc_audit(f->d, ctx->uid, ctx->pid, "console open",
			      ino == RSH_SVC_INO_CONS_BUSY ? -EBUSY : -EPERM);
		fuse_reply_err(req, ino == RSH_SVC_INO_CONS_BUSY ? EBUSY : EPERM);
		return;
	}
	if (ino == RSH_SVC_INO_BOOT && (fi->flags & O_ACCMODE) == O_RDONLY) {
		fuse_reply_err(req, EINVAL); /* write-only node */
		return;
	}
	if (ino == RSH_SVC_INO_BOOT) {
		/* The reset delay of the open is interruptible too. */
		fuse_req_interrupt_func(req, rsh_svc_boot_intr, f->d);
		rc = rsh_svc_boot_open(f->s, f->d, ctx->uid, ctx->pid, &gen);
		if (rc < 0) {
			fuse_reply_err(req, -rc);
			return;
		}
		fi->fh = gen; /* the open's generation: never 0 */
	} else if (ino == RSH_SVC_INO_MISC && (fi->flags & O_ACCMODE) != O_WRONLY) {
		m = calloc(1, sizeof(*m));
		if (m == NULL) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
		rc = rsh_svc_misc_render(f->d, m->buf, sizeof(m->buf));
		m->len = rc > 0 ? (size_t)rc : 0;
		fi->fh = rsh_svc_fh_link(f, m);
	} else if (ino != RSH_SVC_INO_MISC && ino != RSH_SVC_INO_RSHIM) {
		fuse_reply_err(req, ino == RSH_SVC_INO_ROOT ? EISDIR : ENOENT);
		return;
	}
	/* The opener is gone (its request was dropped): no release will
	 * come for this handle, so undo the open here. */
	if (fuse_reply_open(req, fi) == -ENOENT && fi->fh != 0) {
		if (ino == RSH_SVC_INO_BOOT)
			rsh_svc_boot_release(f->d, fi->fh);
		else
			rsh_svc_fh_free(f, fi->fh);
	}
}

/* read: misc only (boot is write-only; rshim is ioctl-only, §5.1). */
static void
rsh_svc_ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi)
{
	struct rsh_svc_fuse *f = rsh_svc_req_fuse(req);
	struct rsh_svc_misc_fh *m = NULL;

	if (ino == RSH_SVC_INO_MISC && fi->fh != 0)
		m = rsh_svc_fh_get(f, fi->fh);
	if (m == NULL)
		fuse_reply_err(req, EINVAL);
	else if ((size_t)off >= m->len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, m->buf + off, m->len - off < size ? m->len - off : size);
	if (m != NULL)
		rsh_svc_fh_put(f, m);
}

/* write: boot data into the push; one "KEY value" into misc. */
static void
rsh_svc_ll_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		 off_t off, struct fuse_file_info *fi)
{
	struct rsh_svc_fuse *f = rsh_svc_req_fuse(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	int rc;

	(void)off;
	if (rsh_svc_gone(req, f))
		return;
	if (ino == RSH_SVC_INO_BOOT && fi->fh != 0) {
		fuse_req_interrupt_func(req, rsh_svc_boot_intr, f->d);
		rc = rsh_svc_boot_write(f->d, fi->fh, buf, size);
	} else if (ino == RSH_SVC_INO_MISC) {
		rc = rsh_svc_misc_write(f->s, f->d, buf, size, ctx->uid, ctx->pid);
	} else {
		rc = -EINVAL;
	}
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_write(req, size);
}

/* flush (every close): the boot writer learns the push's outcome here,
 * because close(2) returns flush's error; the push ends here. */
static void
rsh_svc_ll_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rsh_svc_fuse *f = rsh_svc_req_fuse(req);
	int rc = 0;

	if (ino == RSH_SVC_INO_BOOT && fi->fh != 0) {
		fuse_req_interrupt_func(req, rsh_svc_boot_intr, f->d);
		rc = rsh_svc_boot_flush(f->d, fi->fh);
	}
	fuse_reply_err(req, rc < 0 ? -rc : 0);
}

/* release: a boot push nobody wrote to ends here; misc text is freed. */
static void
rsh_svc_ll_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rsh_svc_fuse *f = rsh_svc_req_fuse(req);

	if (ino == RSH_SVC_INO_BOOT && fi->fh != 0)
		rsh_svc_boot_release(f->d, fi->fh);
	else if (ino == RSH_SVC_INO_MISC && fi->fh != 0)
		rsh_svc_fh_free(f, fi->fh);
	fuse_reply_err(req, 0);
}

/* ioctl on rshim: the register ioctls of bf-reg, fixed sizes (restricted
 * FUSE ioctls: the kernel copies _IOC_SIZE(cmd) bytes each way). */
static void
rsh_svc_ll_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		 struct fuse_file_info *fi, unsigned int flags,
		 const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	struct rsh_svc_fuse *f = rsh_svc_req_fuse(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	size_t need = rsh_svc_reg_ioctl_size(cmd);
	uint8_t data[16];
	int rc;

	(void)arg;
	(void)fi;
	(void)flags;
	if (rsh_svc_gone(req, f))
		return;
	if (ino != RSH_SVC_INO_RSHIM || need == 0) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	if (in_bufsz < need || out_bufsz < need) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	memcpy(data, in_buf, need);
	rc = rsh_svc_reg_ioctl(f->d, cmd, data, need, ctx->uid, ctx->pid);
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_ioctl(req, 0, data, need);
}

/*
 * init: large writes so a boot push moves MiBs per request. Requests are
 * read into memory (no splice), so the loop can look at each one; room
 * for many releases in flight, so a release is queued (not held back by
 * the kernel's background limit) before the close that sent it returns.
 */
static void
rsh_svc_ll_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	conn->max_write = 1u << 20;
	conn->want &= ~(FUSE_CAP_ATOMIC_O_TRUNC | FUSE_CAP_SPLICE_READ);
	conn->max_background = RSH_SVC_FUSE_BACKGROUND;
}

/*
 * A request read from the connection, before any worker runs a later one
 * (fuse_loop.c): a release of a boot open tells the writer slot that its
 * writer has closed (node_boot.c). The kernel's wire format, <linux/fuse.h>.
 */
static void
rsh_svc_req_seen(void *arg, const void *req, size_t len)
{
	const struct fuse_in_header *h = req;
	const struct fuse_release_in *in = (const void *)(h + 1);
	struct rsh_svc_fuse *f = arg;

	if (len < sizeof(*h) + sizeof(*in) || h->opcode != FUSE_RELEASE ||
	    h->nodeid != RSH_SVC_INO_BOOT)
		return;
	rsh_svc_boot_release_seen(f->d, in->fh);
}

static const struct fuse_lowlevel_ops rsh_svc_ll_ops = {
	.init = rsh_svc_ll_init,
	.lookup = rsh_svc_ll_lookup,
	.getattr = rsh_svc_ll_getattr,
	.setattr = rsh_svc_ll_setattr,
	.readlink = rsh_svc_ll_readlink,
	.readdir = rsh_svc_ll_readdir,
	.open = rsh_svc_ll_open,
	.read = rsh_svc_ll_read,
	.write = rsh_svc_ll_write,
	.flush = rsh_svc_ll_flush,
	.release = rsh_svc_ll_release,
	.ioctl = rsh_svc_ll_ioctl,
};

/* Mount DIR/rshimN and serve it (fuse_loop.c: mount point, threads). */
int
rsh_svc_nodes_start(struct rshd *s, struct rsh_svc_dev *d)
{
	char *argv[] = { "rshim-pmd", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	struct rsh_svc_fuse *f = calloc(1, sizeof(*f));
	char dev_fd[32];
	bool created;
	int fd = -1;

	if (f == NULL)
		return -ENOMEM;
	f->s = s;
	f->d = d;
	pthread_mutex_init(&f->fh_mu, NULL);
	if (rsh_svc_mnt_make(d, &fd, &created) < 0)
		goto fail_free;
	f->se = fuse_session_new(&args, &rsh_svc_ll_ops, sizeof(rsh_svc_ll_ops), f);
	fuse_opt_free_args(&args);
	snprintf(dev_fd, sizeof(dev_fd), "/dev/fd/%d", fd);
	/* libfuse takes the mounted connection (and closes it at destroy). */
	if (f->se == NULL || fuse_session_mount(f->se, dev_fd) != 0)
		goto fail;
	fd = -1;
	if (rsh_svc_loop_start(&f->loop, f->se, fuse_session_fd(f->se),
			       rsh_svc_req_seen, f) < 0)
		goto fail;
	f->looping = true;
	d->fuse = f;
	return 0;
fail:
	RSH_SVC_LOG(ERR, d->name, "cannot serve %s (FUSE session)", d->mnt);
	if (fd >= 0)
		close(fd);
	rsh_svc_mnt_drop(d);
	if (f->se != NULL)
		fuse_session_destroy(f->se);
fail_free:
	pthread_mutex_destroy(&f->fh_mu);
	free(f);
	return -EIO;
}

/*
 * Detach DIR/rshimN, stop the session's threads, end the connection,
 * remove the directory. Never waits for the mount's users: a file still
 * open or a shell inside answers ENOTCONN from then on.
 */
void
rsh_svc_nodes_stop(struct rsh_svc_dev *d)
{
	struct rsh_svc_fuse *f = d->fuse;

	if (f == NULL)
		return;
	/* Requests that wait (a push, an open's or SW_RESET's reset delay)
	 * end now. */
	rsh_svc_boot_shutdown(d);
	__atomic_store_n(&d->ctl_cancel, 1, __ATOMIC_RELAXED);
	rsh_svc_mnt_drop(d);
	if (f->looping)
		rsh_svc_loop_stop(&f->loop);
	/* Closes /dev/fuse: requests still queued are answered ENOTCONN. */
	fuse_session_destroy(f->se);
	/* No worker is left: every open still listed has only its own ref. */
	while (f->open_fh != NULL)
		rsh_svc_fh_free(f, f->open_fh->id);
	pthread_mutex_destroy(&f->fh_mu);
	free(f);
	d->fuse = NULL;
}
