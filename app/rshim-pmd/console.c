/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The console of a device: a PTY whose slave /dev/pts/M is what
 * /dev/rshimN/console links to, so screen, minicom, picocom and cat open a
 * real terminal. Terminal semantics, as NVIDIA's console (hardware-notes
 * §5.1, §5.2) and beyond:
 *
 *  - One interactive owner. The service watches opens and closes of the
 *    slave (inotify); while it is open, the console link points to a
 *    name in the node directory whose open answers EBUSY (".in-use"), and
 *    in secure NIC mode to one that answers EPERM (".secure-nic-mode");
 *    the line itself is in exclusive mode (TIOCEXCL), so a NODE_GROUP
 *    member opening /dev/pts/M by that name gets EBUSY too. The kernel
 *    lets CAP_SYS_ADMIN (root) through an exclusive line.
 *  - The line stays raw whatever a client sets: before each write of DPU
 *    output and each read of input the service checks the slave's flags
 *    and puts back raw mode (no echo, no canonical mode, no output
 *    processing); input read after DPU output was shown while a client
 *    had just turned echo on is discarded, so DPU output is never echoed
 *    back into the DPU.
 *  - Output is held while nobody has the terminal open (64 KiB, oldest
 *    dropped and counted) and shown to the next opener. A terminal program
 *    flushes its input when it starts (TCFLSH): the master runs in packet
 *    mode (TIOCPKT), and a flush in the first second after an open sends
 *    what was shown since the open again.
 *
 * Relay thread, except rsh_svc_cons_target (FUSE threads): cons.mu guards
 * the open count and the inotify descriptor both read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <rte_common.h>

#include "svc.h"

/* A flush this soon after an open is the opener's own: show again. */
#define RSH_SVC_CONS_GRACE_NS (1000ull * 1000 * 1000)

static const struct rsh_pump_cons_ops rsh_svc_cons_ops;

/* Open the device's PTY (packet mode), set the slave raw, watch it. */
int
rsh_svc_cons_open(struct rshd *s, struct rsh_svc_dev *d)
{
	gid_t gid = __atomic_load_n(&s->group_gid, __ATOMIC_RELAXED);
	struct rsh_svc_cons *c = &d->cons;
	struct termios tio;
	int one = 1;

	pthread_mutex_init(&c->mu, NULL);
	c->mu_inited = true;
	c->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (c->master < 0 || grantpt(c->master) < 0 || unlockpt(c->master) < 0 ||
	    ptsname_r(c->master, c->pts, sizeof(c->pts)) != 0 ||
	    ioctl(c->master, TIOCPKT, &one) < 0)
		goto fail;
	c->slave = open(c->pts, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (c->slave < 0 || tcgetattr(c->slave, &tio) < 0)
		goto fail;
	cfmakeraw(&tio);
	cfsetspeed(&tio, B115200);
	if (tcsetattr(c->slave, TCSANOW, &tio) < 0)
		goto fail;
	/* After our own open: every event from now on is a client's. */
	c->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (c->ino < 0 || inotify_add_watch(c->ino, c->pts, IN_OPEN | IN_CLOSE) < 0)
		goto fail;
	/* Root only, or the configured group (like the other nodes). */
	if (chown(c->pts, 0, gid != (gid_t)-1 ? gid : 0) < 0 ||
	    chmod(c->pts, gid != (gid_t)-1 ? 0660 : 0600) < 0)
		RSH_SVC_LOG(WARNING, d->name, "cannot set the owner of %s: %s", c->pts,
			    strerror(errno));
	/* The relay's pump moves the bytes; the inotify wakes it. */
	rsh_pump_cons_init(&c->ep, d->dev, c->master, c->master, &rsh_svc_cons_ops, d);
	c->ep.aux_fd = c->ino;
	return 0;
fail:
	RSH_SVC_LOG(ERR, d->name, "cannot create the console terminal: %s", strerror(errno));
	rsh_svc_cons_close(d);
	return -EIO;
}

/* Close the PTY. */
void
rsh_svc_cons_close(struct rsh_svc_dev *d)
{
	struct rsh_svc_cons *c = &d->cons;

	if (c->ino >= 0)
		close(c->ino);
	if (c->slave >= 0)
		close(c->slave);
	if (c->master >= 0)
		close(c->master);
	c->ino = c->slave = c->master = -1;
	c->pts[0] = '\0';
	c->head = c->len = 0;
	c->ep.in_fd = c->ep.out_fd = c->ep.aux_fd = -1;
	c->ep.tx_len = 0;
	c->users = 0;
	c->excl = false;
	if (c->mu_inited)
		pthread_mutex_destroy(&c->mu);
	c->mu_inited = false;
}

/* The line exclusive while a client has it open (c->mu held): further
 * opens of /dev/pts/M by its own name fail with EBUSY, as the link's. */
static void
rsh_svc_cons_excl(struct rsh_svc_cons *c)
{
	bool excl = c->users > 0;

	if (excl == c->excl)
		return;
	if (ioctl(c->slave, excl ? TIOCEXCL : TIOCNXCL) == 0)
		c->excl = excl;
}

/* Count the client opens and closes queued so far (c->mu held). An open
 * starts the grace period of its flush. */
static void
rsh_svc_cons_events(struct rsh_svc_cons *c)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(c->ino, buf, sizeof(buf))) > 0) {
		for (ssize_t o = 0; o < n;) {
			const struct inotify_event *e = (const void *)(buf + o);

			if ((e->mask & IN_OPEN) != 0) {
				c->users++;
				c->opens++;
				c->grace_until = rsh_mono_ns() + RSH_SVC_CONS_GRACE_NS;
			}
			if ((e->mask & IN_CLOSE) != 0 && c->users > 0)
				c->users--;
			o += (ssize_t)(sizeof(*e) + e->len);
		}
	}
	rsh_svc_cons_excl(c);
}

/* Clients with the terminal open now (relay thread). A new open starts
 * what is kept for its flush afresh (relay-only fields). */
static unsigned int
rsh_svc_cons_users(struct rsh_svc_cons *c)
{
	uint64_t opens, grace;
	unsigned int n;

	pthread_mutex_lock(&c->mu);
	rsh_svc_cons_events(c);
	n = c->users;
	opens = c->opens;
	grace = c->grace_until;
	pthread_mutex_unlock(&c->mu);
	if (opens != c->seen_opens) {
		c->seen_opens = opens;
		c->replay_len = c->replay_pos = 0;
	}
	c->grace = grace;
	return n;
}

/* Bytes wait for the terminal and someone has it open (relay thread). */
static bool
rsh_svc_cons_want_out(void *ctx)
{
	struct rsh_svc_dev *d = ctx;
	struct rsh_svc_cons *c = &d->cons;
	bool open;

	if (c->len == 0 && c->replay_pos == c->replay_len)
		return false;
	pthread_mutex_lock(&c->mu);
	open = c->users > 0;
	pthread_mutex_unlock(&c->mu);
	return open;
}

/*
 * What /dev/rshimN/console links to now (FUSE threads): the PTY slave
 * when nobody has it open, else ".in-use"; ".secure-nic-mode" while the
 * NIC firmware refuses the console. Copied into out.
 */
void
rsh_svc_cons_target(struct rsh_svc_dev *d, char *out, size_t len)
{
	struct rsh_svc_cons *c = &d->cons;
	struct rsh_own_info oi;
	unsigned int users;

	uint64_t opens;

	rsh_dev_own_info(d->dev, &oi);
	pthread_mutex_lock(&c->mu);
	opens = c->opens;
	rsh_svc_cons_events(c);
	users = c->users;
	snprintf(out, len, "%s", oi.locked ? RSH_SVC_CONS_LOCKED :
		 users > 0 ? RSH_SVC_CONS_IN_USE : c->pts);
	opens = c->opens - opens;
	pthread_mutex_unlock(&c->mu);
	/* The events were ours to read: the relay learns of the open now. */
	if (opens > 0)
		rsh_svc_relay_kick(d->svc);
}

/*
 * The slave's line raw again if a client changed it (stty sane, echo):
 * true when it had to be, so input read now may hold echoed DPU output.
 */
static bool
rsh_svc_cons_keep_raw(struct rsh_svc_dev *d)
{
	struct rsh_svc_cons *c = &d->cons;
	struct termios tio;

	if (tcgetattr(c->slave, &tio) < 0)
		return false;
	if ((tio.c_lflag & (ECHO | ECHONL | ICANON | ISIG | IEXTEN)) == 0 &&
	    (tio.c_oflag & OPOST) == 0 &&
	    (tio.c_iflag & (ICRNL | INLCR | IGNCR | IXON | ISTRIP)) == 0)
		return false;
	tio.c_lflag &= ~(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	tio.c_oflag &= ~OPOST;
	tio.c_iflag &= ~(ICRNL | INLCR | IGNCR | IXON | ISTRIP | IGNBRK | BRKINT | PARMRK);
	if (tcsetattr(c->slave, TCSANOW, &tio) < 0)
		return false;
	c->raw_restored++;
	RSH_SVC_LOG(INFO, d->name, "console: a client set line processing or echo on %s; kept raw",
		    c->pts);
	return true;
}

/* One write to the terminal; what it took. */
static size_t
rsh_svc_cons_put(struct rsh_svc_cons *c, const uint8_t *p, size_t n)
{
	ssize_t w = write(c->master, p, n);

	return w > 0 ? (size_t)w : 0;
}

/* What was shown since the open, sent again after the opener's flush. */
static unsigned int
rsh_svc_cons_replay(struct rsh_svc_cons *c)
{
	size_t w;

	if (c->replay_pos >= c->replay_len)
		return 0;
	w = rsh_svc_cons_put(c, c->replay + c->replay_pos, c->replay_len - c->replay_pos);
	c->replay_pos += w;
	return w > 0;
}

/* DPU → buffer, the oldest byte dropped (and counted) when full. */
static size_t
rsh_svc_cons_output(void *ctx, const uint8_t *p, size_t n)
{
	struct rsh_svc_dev *d = ctx;
	struct rsh_svc_cons *c = &d->cons;

	for (size_t i = 0; i < n; i++) {
		if (c->len == RSH_SVC_CONS_BUF) {
			c->head = (c->head + 1) % RSH_SVC_CONS_BUF;
			c->len--;
			c->dropped++;
		}
		c->buf[(c->head + c->len++) % RSH_SVC_CONS_BUF] = p[i];
	}
	return n;
}

/* Buffer → terminal, while it is open (held for the next opener). */
static unsigned int
rsh_svc_cons_flush(void *ctx)
{
	struct rsh_svc_dev *d = ctx;
	struct rsh_svc_cons *c = &d->cons;
	unsigned int work = 0;
	bool grace;
	size_t w;

	if (rsh_svc_cons_users(c) == 0)
		return 0;
	grace = rsh_mono_ns() < c->grace;
	rsh_svc_cons_keep_raw(d);
	work += rsh_svc_cons_replay(c);
	while (c->len > 0 && c->replay_pos == c->replay_len) {
		size_t run = RSH_SVC_CONS_BUF - c->head < c->len ?
			     RSH_SVC_CONS_BUF - c->head : c->len;

		w = rsh_svc_cons_put(c, c->buf + c->head, run);
		if (w == 0)
			break;
		if (grace && c->replay_len + w <= sizeof(c->replay)) {
			memcpy(c->replay + c->replay_len, c->buf + c->head, w);
			c->replay_len += w;
			c->replay_pos = c->replay_len;
		}
		c->head = (c->head + w) % RSH_SVC_CONS_BUF;
		c->len -= w;
		c->unsafe = true;
		work++;
	}
	return work;
}

/* A packet-mode status byte from the master: the opener flushed its
 * input in its grace period, so what it was shown goes out again. */
static void
rsh_svc_cons_status(struct rsh_svc_cons *c, uint8_t st)
{
	if ((st & TIOCPKT_FLUSHREAD) != 0 && rsh_mono_ns() < c->grace) {
		c->replay_pos = 0;
		c->replays++;
	}
}

/* Terminal → the pump (which sends it): a packet from the master. */
static int
rsh_svc_cons_input(void *ctx, uint8_t *buf, size_t cap, size_t *len)
{
	struct rsh_svc_dev *d = ctx;
	struct rsh_svc_cons *c = &d->cons;
	uint8_t pkt[RSH_PUMP_TX + 1];
	ssize_t n;

	n = read(c->master, pkt, RTE_MIN(cap, (size_t)RSH_PUMP_TX) + 1);
	if (n <= 0) {
		c->unsafe = false; /* no echo of what was shown waits */
		return 0;
	}
	if (pkt[0] != TIOCPKT_DATA) {
		rsh_svc_cons_status(c, pkt[0]);
		return 1;
	}
	/* A client turned echo on between the check before a write of DPU
	 * output and the write: what was read may be that output. */
	if (rsh_svc_cons_keep_raw(d) && c->unsafe) {
		c->unsafe = false;
		c->echo_dropped += (uint64_t)(n - 1);
		return 1;
	}
	c->unsafe = false;
	memcpy(buf, pkt + 1, (size_t)(n - 1));
	*len = (size_t)(n - 1);
	return 1;
}

static const struct rsh_pump_cons_ops rsh_svc_cons_ops = {
	.input = rsh_svc_cons_input,
	.output = rsh_svc_cons_output,
	.flush = rsh_svc_cons_flush,
	.want_out = rsh_svc_cons_want_out,
};
