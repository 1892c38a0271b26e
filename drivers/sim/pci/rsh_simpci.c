/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-sim-pci's server: messages of QEMU's multi-process PCI proxy in,
 * replies out, in strict request/reply order (SYNC_SYSMEM and SET_IRQFD
 * take none: answering them would put the exchange out of step).
 * Facts: doc/hardware-notes.md §V1-§V4.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rsh_clock.h"
#include "rsh_simpci.h"
#include "rsh_sim_regs.h"

/* One received message. */
struct rsh_simpci_msg {
	struct rsh_mpq_hdr h;
	union {
		struct rsh_mpq_sysmem sysmem;
		struct rsh_mpq_conf conf;
		struct rsh_mpq_bar bar;
		uint8_t raw[RSH_MPQ_MAX_PAYLOAD];
	} u;
	int fds[RSH_MPQ_MAX_FDS];
	unsigned int nfds;
};

static const char *const rsh_simpci_cmd_names[RSH_MPQ_CMD_COUNT] = {
	"sync_sysmem", "ret", "cfg_write", "cfg_read", "bar_write",
	"bar_read", "set_irqfd", "device_reset",
};

/* Name of a command. */
const char *
rsh_simpci_cmd_name(int cmd)
{
	return cmd >= 0 && cmd < RSH_MPQ_CMD_COUNT ? rsh_simpci_cmd_names[cmd] :
						     "?";
}

/* Livefish window read: the backend's config dword, the bytes asked. */
static uint32_t
rsh_simpci_lf_read(void *arg, uint32_t off, int len)
{
	struct rsh_simpci *s = arg;
	uint32_t v = UINT32_MAX;

	s->st.lf_cfg++;
	if (s->be->ops->cfg_read(s->be, off & ~3u, &v) < 0)
		return UINT32_MAX;
	v >>= 8 * (off & 3);
	return len == 4 ? v : v & ((1u << (8 * len)) - 1);
}

/* Livefish window write: whole dwords only (a partial write of the
 * address register would trigger with half an address). */
static void
rsh_simpci_lf_write(void *arg, uint32_t off, uint32_t val, int len)
{
	struct rsh_simpci *s = arg;

	s->st.lf_cfg++;
	if (len != 4 || (off & 3) != 0) {
		s->st.bad_accesses++;
		return;
	}
	(void)s->be->ops->cfg_write(s->be, off, val);
}

/* Set up a server; a livefish function's window goes to the backend. */
int
rsh_simpci_init(struct rsh_simpci *s, int fd, struct rsh_backend *be)
{
	struct rsh_simpci_cfg_hook h = { .off = RSH_SIMPCI_CFG_LF_WIN, .len = 8,
					 .read = rsh_simpci_lf_read,
					 .write = rsh_simpci_lf_write, .arg = s };
	int rc;

	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->be = be;
	if (rsh_sim_reg_bar_off((int)be->gen, RSH_SIM_REG_BOOT_FIFO_DATA, &s->off_fifo) != 0)
		s->off_fifo = UINT32_MAX;
	if (rsh_sim_reg_bar_off((int)be->gen, RSH_SIM_REG_RESET_CONTROL, &s->off_reset) != 0)
		s->off_reset = UINT32_MAX;
	if (rsh_sim_reg_bar_off((int)be->gen, RSH_SIM_REG_BOOT_FIFO_COUNT, &s->off_count) != 0)
		s->off_count = UINT32_MAX;
	rc = rsh_simpci_cfg_init(&s->cfg, be);
	if (rc == 0 && be->cfg_only)
		rc = rsh_simpci_cfg_hook_add(&s->cfg, &h);
	return rc;
}

/* Record why a message is refused; always -EPROTO. */
static int __attribute__((format(printf, 2, 3)))
rsh_simpci_bad(struct rsh_simpci *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* Close every fd a message brought. */
static void
rsh_simpci_close_fds(struct rsh_simpci *s, struct rsh_simpci_msg *m)
{
	unsigned int i;

	for (i = 0; i < m->nfds; i++)
		close(m->fds[i]);
	s->st.fds_closed += m->nfds;
	m->nfds = 0;
}

/* Keep the SCM_RIGHTS fds of a received header. */
static int
rsh_simpci_take_fds(struct rsh_simpci *s, struct msghdr *mh,
		    struct rsh_simpci_msg *m)
{
	struct cmsghdr *c;
	size_t n;

	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (m->nfds + n > RSH_MPQ_MAX_FDS)
			n = RSH_MPQ_MAX_FDS - m->nfds;
		memcpy(&m->fds[m->nfds], CMSG_DATA(c), n * sizeof(int));
		m->nfds += (unsigned int)n;
	}
	if (mh->msg_flags & MSG_CTRUNC)
		return rsh_simpci_bad(s, "more than %d fds with one message",
				      RSH_MPQ_MAX_FDS);
	return 0;
}

/* Read exactly len bytes (after the first); EOF inside is truncation. */
static int
rsh_simpci_read_rest(struct rsh_simpci *s, void *buf, size_t len,
		     const char *what)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = read(s->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(s->err, sizeof(s->err), "socket read: %s",
				 strerror(errno));
			return -EIO;
		}
		if (n == 0)
			return rsh_simpci_bad(s, "truncated message: the peer "
					      "closed inside the %s", what);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Receive a header with its fds: 1, 0 on EOF before it, or -errno. */
static int
rsh_simpci_recv_hdr(struct rsh_simpci *s, struct rsh_simpci_msg *m)
{
	char ctl[CMSG_SPACE(sizeof(int) * RSH_MPQ_MAX_FDS)];
	struct iovec iov = { .iov_base = &m->h, .iov_len = sizeof(m->h) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	ssize_t n;
	int rc;

	n = recvmsg(s->fd, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0 && errno == EINTR)
		return -EINTR;
	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return 0;
	if (n < 0) {
		snprintf(s->err, sizeof(s->err), "socket recvmsg: %s",
			 strerror(errno));
		return -EIO;
	}
	rc = rsh_simpci_take_fds(s, &mh, m);
	if (rc == 0 && (size_t)n < sizeof(m->h))
		rc = rsh_simpci_read_rest(s, (uint8_t *)&m->h + n,
					  sizeof(m->h) - (size_t)n, "header");
	return rc < 0 ? rc : 1;
}

/* Payload size and fd count each command must carry. */
static int
rsh_simpci_check(struct rsh_simpci *s, const struct rsh_simpci_msg *m)
{
	static const struct { uint64_t size; unsigned int fmin, fmax; }
	want[RSH_MPQ_CMD_COUNT] = {
		[RSH_MPQ_SYNC_SYSMEM] = { sizeof(struct rsh_mpq_sysmem), 1,
					  RSH_MPQ_MAX_FDS },
		[RSH_MPQ_CFG_WRITE] = { sizeof(struct rsh_mpq_conf), 0, 0 },
		[RSH_MPQ_CFG_READ] = { sizeof(struct rsh_mpq_conf), 0, 0 },
		[RSH_MPQ_BAR_WRITE] = { sizeof(struct rsh_mpq_bar), 0, 0 },
		[RSH_MPQ_BAR_READ] = { sizeof(struct rsh_mpq_bar), 0, 0 },
		[RSH_MPQ_SET_IRQFD] = { 0, RSH_MPQ_IRQFD_FDS, RSH_MPQ_IRQFD_FDS },
		[RSH_MPQ_DEVICE_RESET] = { 0, 0, 0 },
	};
	int c = m->h.cmd;

	if (c < 0 || c >= RSH_MPQ_CMD_COUNT || c == RSH_MPQ_RET)
		return rsh_simpci_bad(s, "unexpected command %d (size %" PRIu64
				      ")", c, m->h.size);
	if (m->h.size != want[c].size)
		return rsh_simpci_bad(s, "%s with a %" PRIu64 "-byte payload "
				      "(want %" PRIu64 ")",
				      rsh_simpci_cmd_name(c), m->h.size,
				      want[c].size);
	if (m->nfds < want[c].fmin || m->nfds > want[c].fmax)
		return rsh_simpci_bad(s, "%s with %u fds (want %u-%u)",
				      rsh_simpci_cmd_name(c), m->nfds,
				      want[c].fmin, want[c].fmax);
	return 0;
}

/* Send RET with v: 1 sent, 0 the peer is gone, -EIO. */
static int
rsh_simpci_reply(struct rsh_simpci *s, uint64_t v)
{
	struct { struct rsh_mpq_hdr h; uint64_t v; } r = {
		.h = { .cmd = RSH_MPQ_RET, .size = sizeof(uint64_t) }, .v = v };
	const uint8_t *p = (const uint8_t *)&r;
	size_t left = sizeof(r);
	ssize_t n;

	while (left > 0) {
		n = send(s->fd, p, left, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return 0;
		if (n < 0) {
			snprintf(s->err, sizeof(s->err), "socket send: %s",
				 strerror(errno));
			return -EIO;
		}
		p += n;
		left -= (size_t)n;
	}
	s->st.msgs[RSH_MPQ_RET]++;
	return 1;
}

/* BAR offset of an access, or -1 when it is a bad one (counted). */
static int64_t
rsh_simpci_bar_off(struct rsh_simpci *s, const struct rsh_mpq_bar *b)
{
	uint64_t base = rsh_simpci_cfg_bar0(&s->cfg), off;

	off = b->addr - base;
	if (b->memory != 1 || b->addr < base || off >= s->cfg.bar_size ||
	    s->cfg.bar_size - off < b->size ||
	    (b->size != 8 && b->size != 4) || (off & (b->size - 1)) != 0 ||
	    (b->size == 4 && rsh_sim_reg_side_effect((int)s->be->gen, (uint32_t)off))) {
		s->st.bad_accesses++;
		return -1;
	}
	return (int64_t)off;
}

/* Count a read of the register at off (8-byte aligned). */
static void
rsh_simpci_count_read(struct rsh_simpci *s, uint32_t off)
{
	struct rsh_simpci_stats *st = &s->st;
	unsigned int i;

	st->mmio_reads++;
	if (off == s->off_count)
		st->count_reads++;
	for (i = 0; i < st->reg_slots; i++) {
		if (st->reads_by_reg[i].off == off) {
			st->reads_by_reg[i].n++;
			return;
		}
	}
	if (i == RTE_DIM(st->reads_by_reg)) {
		st->reads_other++;
		return;
	}
	st->reads_by_reg[i].off = off;
	st->reads_by_reg[i].n = 1;
	st->reg_slots++;
}

/* BAR_READ: the value for the reply. */
static uint64_t
rsh_simpci_bar_read(struct rsh_simpci *s, const struct rsh_mpq_bar *b)
{
	int64_t off = rsh_simpci_bar_off(s, b);
	uint64_t v;

	if (off < 0)
		return b->size >= 8 ? UINT64_MAX : (1ull << (8 * b->size)) - 1;
	rsh_simpci_count_read(s, (uint32_t)off & ~7u);
	v = s->be->ops->read64(s->be, (uint32_t)off & ~7u);
	if (b->size == 8)
		return v;
	return (off & 4) ? v >> 32 : v & UINT32_MAX;
}

/* Track the boot push window (see struct rsh_simpci_stats) at a write
 * to the register at BAR offset o, counted already. */
static void
rsh_simpci_push_window(struct rsh_simpci *s, uint32_t o)
{
	struct rsh_simpci_stats *st = &s->st;

	if (o == s->off_reset) {
		st->reset_at_ns = rsh_cyc_ns(rsh_now());
		st->reset_seen = true;
		st->push_seen = false;
	} else if (o == s->off_fifo) {
		st->last_at_ns = rsh_cyc_ns(rsh_now());
		st->last_reads = st->mmio_reads;
		st->last_writes = st->mmio_writes;
		st->last_count_reads = st->count_reads;
		if (!st->push_seen) {
			st->push_seen = true;
			st->first_at_ns = st->last_at_ns;
			st->first_reads = st->mmio_reads;
			st->first_writes = st->mmio_writes - 1;
			st->first_count_reads = st->count_reads;
		}
	}
}

/* BAR_WRITE: 8 bytes whole, 4 bytes merged into the register. */
static void
rsh_simpci_bar_write(struct rsh_simpci *s, const struct rsh_mpq_bar *b)
{
	int64_t off = rsh_simpci_bar_off(s, b);
	uint32_t o = (uint32_t)off & ~7u;
	uint64_t v = b->val, old;

	if (off < 0)
		return;
	if (b->size == 4) {
		rsh_simpci_count_read(s, o);
		old = s->be->ops->read64(s->be, o);
		v = (off & 4) ? (old & UINT32_MAX) | (v << 32) :
				(old & ~(uint64_t)UINT32_MAX) | (v & UINT32_MAX);
	}
	s->st.mmio_writes++;
	s->be->ops->write64(s->be, o, v);
	rsh_simpci_push_window(s, o);
}

/* A config message: well formed, then to the model. */
static int
rsh_simpci_conf(struct rsh_simpci *s, const struct rsh_mpq_conf *c,
		bool write, uint64_t *ret)
{
	if (!rsh_simpci_cfg_valid(c->addr, c->len))
		return rsh_simpci_bad(s, "config %s of %d bytes at 0x%x",
				      write ? "write" : "read", c->len, c->addr);
	if (write)
		rsh_simpci_cfg_write(&s->cfg, c->addr, c->val, c->len);
	else
		*ret = rsh_simpci_cfg_read(&s->cfg, c->addr, c->len);
	return 0;
}

/* Act on a checked message; 1 when it takes a reply (value in *ret). */
static int
rsh_simpci_act(struct rsh_simpci *s, struct rsh_simpci_msg *m,
	       uint64_t *ret)
{
	int rc;

	*ret = 0;
	switch (m->h.cmd) {
	case RSH_MPQ_SYNC_SYSMEM: /* no DMA: guest RAM is never touched */
	case RSH_MPQ_SET_IRQFD:   /* INTx needs KVM irqfds (§V5) */
		rsh_simpci_close_fds(s, m);
		return 0;
	case RSH_MPQ_CFG_WRITE:
	case RSH_MPQ_CFG_READ:
		rc = rsh_simpci_conf(s, &m->u.conf,
				     m->h.cmd == RSH_MPQ_CFG_WRITE, ret);
		return rc < 0 ? rc : 1;
	case RSH_MPQ_BAR_WRITE:
		rsh_simpci_bar_write(s, &m->u.bar);
		return 1;
	case RSH_MPQ_BAR_READ:
		*ret = rsh_simpci_bar_read(s, &m->u.bar);
		return 1;
	default: /* RSH_MPQ_DEVICE_RESET: config space only; the DPU
		  * keeps running through a host reset */
		rsh_simpci_cfg_reset(&s->cfg);
		return 1;
	}
}

/* Receive one message, act, reply. */
int
rsh_simpci_serve_one(struct rsh_simpci *s)
{
	struct rsh_simpci_msg m;
	uint64_t ret;
	int rc;

	m.nfds = 0;
	rc = rsh_simpci_recv_hdr(s, &m);
	if (rc <= 0)
		goto out;
	if (m.h.size > RSH_MPQ_MAX_PAYLOAD) {
		rc = rsh_simpci_bad(s, "oversized message: command %d with a "
				    "%" PRIu64 "-byte payload (at most %zu)",
				    m.h.cmd, m.h.size, RSH_MPQ_MAX_PAYLOAD);
		goto out;
	}
	rc = rsh_simpci_read_rest(s, m.u.raw, m.h.size, "payload");
	if (rc == 0)
		rc = rsh_simpci_check(s, &m);
	if (rc < 0)
		goto out;
	s->st.msgs[m.h.cmd]++;
	rc = rsh_simpci_act(s, &m, &ret);
	if (rc == 1)
		rc = rsh_simpci_reply(s, ret) < 0 ? -EIO : 1;
	else if (rc == 0)
		rc = 1;
out:
	rsh_simpci_close_fds(s, &m);
	return rc;
}

/* The counters as one line. */
void
rsh_simpci_stats_line(const struct rsh_simpci *s, char *buf, size_t len)
{
	const struct rsh_simpci_stats *st = &s->st;
	size_t n = 0;
	int i;

	n += (size_t)snprintf(buf, len, "msgs");
	for (i = 0; i < RSH_MPQ_CMD_COUNT && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s=%" PRIu64,
				      rsh_simpci_cmd_name(i), st->msgs[i]);
	if (n < len)
		snprintf(buf + n, len - n, " mmio_reads=%" PRIu64
			 " mmio_writes=%" PRIu64 " bad_accesses=%" PRIu64
			 " fds_closed=%" PRIu64 " lf_cfg=%" PRIu64, st->mmio_reads,
			 st->mmio_writes, st->bad_accesses, st->fds_closed,
			 st->lf_cfg);
	n = strnlen(buf, len);
	for (i = 0; i < (int)st->reg_slots && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s0x%x:%" PRIu64,
				      i == 0 ? " reads_at=" : ",",
				      st->reads_by_reg[i].off, st->reads_by_reg[i].n);
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, " reads_other=%" PRIu64,
				      st->reads_other);
	if (n < len && st->push_seen)
		snprintf(buf + n, len - n, " push_open_ns=%" PRIu64 " push_ns=%" PRIu64
			 " push_reads=%" PRIu64 " push_count_reads=%" PRIu64
			 " push_writes=%" PRIu64,
			 st->reset_seen ? st->first_at_ns - st->reset_at_ns : 0,
			 st->last_at_ns - st->first_at_ns, st->last_reads - st->first_reads,
			 st->last_count_reads - st->first_count_reads,
			 st->last_writes - st->first_writes);
}
