/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-sim-pci's protocol handling (drivers/sim/pci/rsh_simpci.c) over a
 * socketpair, no QEMU: config reads and writes, QEMU's BAR probe and the
 * upper-dword rule, BAR accesses at guest-physical addresses and the
 * access-size rule, no reply to SYNC_SYSMEM / SET_IRQFD (their fds
 * closed), EOF, truncated, oversized and malformed messages. The device
 * is a mock backend that records every register access.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "rsh_simpci.h"

#define T_BAR 0x800000u   /* BlueField-3 */
#define T_BASE 0xfe000000u
#define T_BOOT_FIFO_DATA 0x2000u /* BF3, hardware-notes §1.5 */
#define T_BOOT_CONTROL 0x0528u
#define T_RESET_CONTROL 0x0500u
#define T_BOOT_FIFO_COUNT 0x1000u

/* A mock device: plain 64-bit storage, accesses counted. */
struct t_dev {
	struct rsh_backend be;
	uint64_t *mem;
	unsigned int reads, writes;
	uint32_t last_off;
};

static uint64_t
t_read64(struct rsh_backend *be, uint32_t off)
{
	struct t_dev *d = (struct t_dev *)be;

	d->reads++;
	d->last_off = off;
	return d->mem[off / 8];
}

static void
t_write64(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	struct t_dev *d = (struct t_dev *)be;

	d->writes++;
	d->last_off = off;
	d->mem[off / 8] = v;
}

static const struct rsh_backend_ops t_ops = {
	.read64 = t_read64, .write64 = t_write64,
};

/* One case's state: the device, the server, QEMU's end of the socket. */
struct t_ctx {
	struct t_dev dev;
	struct rsh_simpci s;
	int qemu;
};

static int
t_setup(void **state)
{
	struct t_ctx *c = calloc(1, sizeof(*c));
	int sv[2];

	assert_non_null(c);
	c->dev.be.ops = &t_ops;
	c->dev.be.gen = RSH_GEN_BF3;
	c->dev.be.revision = 1;
	c->dev.be.bar_size = T_BAR;
	snprintf(c->dev.be.name, sizeof(c->dev.be.name), "sim:bf3");
	c->dev.mem = calloc(T_BAR / 8, sizeof(uint64_t));
	assert_non_null(c->dev.mem);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(rsh_simpci_init(&c->s, sv[0], &c->dev.be), 0);
	c->qemu = sv[1];
	*state = c;
	return 0;
}

static int
t_teardown(void **state)
{
	struct t_ctx *c = *state;

	if (c->qemu >= 0)
		close(c->qemu);
	close(c->s.fd);
	free(c->dev.mem);
	free(c);
	return 0;
}

/* Send one message as QEMU does: header (+ fds), then the payload. */
static void
t_send(struct t_ctx *c, int cmd, const void *p, uint64_t size,
       const int *fds, unsigned int nfds)
{
	struct rsh_mpq_hdr h = { .cmd = cmd, .size = size };
	char ctl[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (nfds > 0) {
		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	assert_int_equal(sendmsg(c->qemu, &mh, 0), (ssize_t)sizeof(h));
	if (p != NULL && size > 0)
		assert_int_equal(write(c->qemu, p, size), (ssize_t)size);
}

/* The server's RET, which must be there now (non-blocking). */
static uint64_t
t_ret(struct t_ctx *c)
{
	struct { struct rsh_mpq_hdr h; uint64_t v; } r;

	assert_int_equal(recv(c->qemu, &r, sizeof(r), MSG_DONTWAIT),
			 (ssize_t)sizeof(r));
	assert_int_equal(r.h.cmd, RSH_MPQ_RET);
	assert_int_equal(r.h.size, 8);
	return r.v;
}

/* True when the server sent nothing. */
static bool
t_no_reply(struct t_ctx *c)
{
	char b;

	return recv(c->qemu, &b, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

/* A config read through the server. */
static uint32_t
t_cfg_rd(struct t_ctx *c, uint32_t off, int len)
{
	struct rsh_mpq_conf m = { .addr = off, .len = len };

	t_send(c, RSH_MPQ_CFG_READ, &m, sizeof(m), NULL, 0);
	assert_int_equal(rsh_simpci_serve_one(&c->s), 1);
	return (uint32_t)t_ret(c);
}

static void
t_cfg_wr(struct t_ctx *c, uint32_t off, uint32_t v, int len)
{
	struct rsh_mpq_conf m = { .addr = off, .val = v, .len = len };

	t_send(c, RSH_MPQ_CFG_WRITE, &m, sizeof(m), NULL, 0);
	assert_int_equal(rsh_simpci_serve_one(&c->s), 1);
	assert_int_equal(t_ret(c), 0);
}

/* A BAR access at a guest-physical address. */
static uint64_t
t_bar(struct t_ctx *c, bool write, uint64_t addr, uint64_t v, uint32_t size)
{
	struct rsh_mpq_bar m = { .addr = addr, .val = v, .size = size,
				 .memory = 1 };

	t_send(c, write ? RSH_MPQ_BAR_WRITE : RSH_MPQ_BAR_READ, &m, sizeof(m),
	       NULL, 0);
	assert_int_equal(rsh_simpci_serve_one(&c->s), 1);
	return t_ret(c);
}

static void
t_reset(struct t_ctx *c)
{
	t_send(c, RSH_MPQ_DEVICE_RESET, NULL, 0, NULL, 0);
	assert_int_equal(rsh_simpci_serve_one(&c->s), 1);
	assert_int_equal(t_ret(c), 0);
}

/* IDs, class, pin, capability list as silicon presents them. */
static void
test_cfg_identity(void **state)
{
	struct t_ctx *c = *state;

	assert_int_equal(t_cfg_rd(c, 0x00, 2), 0x15B3);
	assert_int_equal(t_cfg_rd(c, 0x02, 2), 0xC2D5);
	assert_int_equal(t_cfg_rd(c, 0x00, 4), 0xC2D515B3);
	assert_int_equal(t_cfg_rd(c, 0x08, 1), 1);
	assert_int_equal(t_cfg_rd(c, 0x0A, 2), 0x0801);
	assert_int_equal(t_cfg_rd(c, 0x0E, 1), 0);
	assert_int_equal(t_cfg_rd(c, 0x3D, 1), 1);
	assert_int_equal(t_cfg_rd(c, 0x06, 2) & 0x10, 0x10);
	assert_int_equal(t_cfg_rd(c, 0x34, 1), 0x40);
	assert_int_equal(t_cfg_rd(c, 0x40, 1), 0x10); /* PCIe capability */
	assert_int_equal(t_cfg_rd(c, 0x52, 2) & 0x3FF, 5 | 16 << 4);
	/* read-only bytes ignore writes */
	t_cfg_wr(c, 0x00, 0x12345678, 4);
	assert_int_equal(t_cfg_rd(c, 0x00, 4), 0xC2D515B3);
	assert_int_equal(c->s.st.msgs[RSH_MPQ_CFG_READ], 12);
	assert_int_equal(c->s.st.msgs[RSH_MPQ_CFG_WRITE], 1);
}

/* Livefish: the backend's config dwords behind the window. */
static uint32_t t_lf_win[2];
static unsigned int t_lf_calls;

static int
t_lf_cfg_read(struct rsh_backend *be, uint32_t off, uint32_t *v)
{
	(void)be;
	t_lf_calls++;
	*v = t_lf_win[(off - 0x58) / 4];
	return 0;
}

static int
t_lf_cfg_write(struct rsh_backend *be, uint32_t off, uint32_t v)
{
	(void)be;
	t_lf_calls++;
	t_lf_win[(off - 0x58) / 4] = v;
	return 0;
}

static const struct rsh_backend_ops t_lf_ops = {
	.read64 = t_read64, .write64 = t_write64,
	.cfg_read = t_lf_cfg_read, .cfg_write = t_lf_cfg_write,
};

/* A livefish function (cfg_only): its livefish ID, no BAR (QEMU's probe
 * finds none), the window at 0x58/0x5C inside a vendor-specific
 * capability at 0x48, the PCIe capability behind it at 0x80; window
 * accesses go to the backend's config ops, whole dwords only. */
static void
test_cfg_livefish(void **state)
{
	struct t_ctx *c = *state;

	c->dev.be.ops = &t_lf_ops;
	c->dev.be.cfg_only = true;
	c->dev.be.bar_size = 0;
	assert_int_equal(rsh_simpci_init(&c->s, c->s.fd, &c->dev.be), 0);
	assert_int_equal(t_cfg_rd(c, 0x00, 4), 0x021C15B3);
	assert_int_equal(t_cfg_rd(c, 0x34, 1), 0x48);
	assert_int_equal(t_cfg_rd(c, 0x48, 4), 0x00188009); /* VSC, next 0x80, len 24 */
	assert_int_equal(t_cfg_rd(c, 0x80, 1), 0x10);       /* PCIe capability */
	assert_int_equal(t_cfg_rd(c, 0x81, 1), 0x00);
	t_cfg_wr(c, 0x10, 0xFFFFFFFF, 4);                   /* BAR probe */
	assert_int_equal(t_cfg_rd(c, 0x10, 4), 0);
	t_reset(c);
	t_cfg_wr(c, 0x14, 0xFFFFFFFF, 4);
	assert_int_equal(t_cfg_rd(c, 0x14, 4), 0);
	t_lf_calls = 0;
	t_cfg_wr(c, 0x5C, 0xCAFEF00D, 4);
	t_cfg_wr(c, 0x58, 0x310C21, 4);
	assert_int_equal(t_lf_win[0], 0x310C21);
	assert_int_equal(t_lf_win[1], 0xCAFEF00D);
	assert_int_equal(t_cfg_rd(c, 0x5C, 4), 0xCAFEF00D);
	assert_int_equal(t_cfg_rd(c, 0x5E, 2), 0xCAFE);
	t_cfg_wr(c, 0x58, 0x1, 2); /* a partial write: refused, counted */
	assert_int_equal(t_lf_win[0], 0x310C21);
	assert_int_equal(c->s.st.bad_accesses, 1);
	assert_int_equal(t_lf_calls, 4);
}

/* BlueField-1 and -2 (hardware-notes §1.1, §1.2): their device IDs, the
 * revision the device reports, a 64-bit 1 MiB BAR0, the PCIe capability
 * at the Gen4 x16 link. */
static void
test_cfg_generations(void **state)
{
	static const struct { enum rsh_gen gen; uint32_t id; unsigned int speed; } g[] = {
		{ RSH_GEN_BF1, 0xC2D215B3, 4 },
		{ RSH_GEN_BF2, 0xC2D315B3, 4 },
	};
	struct t_ctx *c = *state;

	for (unsigned int i = 0; i < RTE_DIM(g); i++) {
		c->dev.be.gen = g[i].gen;
		c->dev.be.revision = 2;
		c->dev.be.bar_size = 0x100000;
		assert_int_equal(rsh_simpci_init(&c->s, c->s.fd, &c->dev.be), 0);
		assert_int_equal(t_cfg_rd(c, 0x00, 4), g[i].id);
		assert_int_equal(t_cfg_rd(c, 0x08, 1), 2);
		assert_int_equal(t_cfg_rd(c, 0x0A, 2), 0x0801);
		assert_int_equal(t_cfg_rd(c, 0x3D, 1), 1);
		assert_int_equal(t_cfg_rd(c, 0x52, 2) & 0x3FF, g[i].speed | 16 << 4);
		t_reset(c);
		t_cfg_wr(c, 0x10, 0xFFFFFFFF, 4);
		assert_int_equal(t_cfg_rd(c, 0x10, 4), 0xFFF00004);
		t_cfg_wr(c, 0x14, 0xFFFFFFFF, 4);
		assert_int_equal(t_cfg_rd(c, 0x14, 4), 0xFFFFFFFF);
	}
}

/* DEVICE_RESET puts the command register and BAR0 back to their reset
 * values (what a function reset does to config space). */
static void
test_cfg_device_reset(void **state)
{
	struct t_ctx *c = *state;

	t_reset(c);
	t_cfg_wr(c, 0x10, T_BASE, 4);
	t_cfg_wr(c, 0x04, 0x0406, 2);
	assert_int_equal(t_cfg_rd(c, 0x04, 2), 0x0406);
	assert_int_equal(rsh_simpci_cfg_bar0(&c->s.cfg), T_BASE);
	t_reset(c);
	assert_int_equal(t_cfg_rd(c, 0x04, 2), 0);
	assert_int_equal(t_cfg_rd(c, 0x10, 4), 4);
	assert_int_equal(c->s.st.msgs[RSH_MPQ_DEVICE_RESET], 2);
}

/* PCI_COMMAND: MEMORY, MASTER, INTX_DISABLE writable, I/O not. */
static void
test_cfg_command(void **state)
{
	struct t_ctx *c = *state;

	t_cfg_wr(c, 0x04, 0xFFFF, 2);
	assert_int_equal(t_cfg_rd(c, 0x04, 2), 0x0546);
	t_cfg_wr(c, 0x04, 0x0006, 2);
	assert_int_equal(t_cfg_rd(c, 0x04, 2), 0x0006);
	t_cfg_wr(c, 0x05, 0x04, 1);  /* INTx disable as one byte */
	assert_int_equal(t_cfg_rd(c, 0x04, 2), 0x0406);
}

/* QEMU's start-up probe of 0x10-0x28, then DEVICE_RESET, then the
 * guest's 64-bit sizing of BAR0. */
static void
test_bar_probe(void **state)
{
	struct t_ctx *c = *state;
	uint32_t off;

	for (off = 0x10; off <= 0x28; off += 4) {
		uint32_t orig = t_cfg_rd(c, off, 4);

		t_cfg_wr(c, off, 0xFFFFFFFF, 4);
		if (off == 0x10)
			assert_int_equal(t_cfg_rd(c, off, 4), 0xFF800004);
		else /* upper dword, other BARs: no size, so no bogus BAR */
			assert_int_equal(t_cfg_rd(c, off, 4), 0);
		t_cfg_wr(c, off, orig, 4);
	}
	t_reset(c);
	t_cfg_wr(c, 0x14, 0xFFFFFFFF, 4);
	assert_int_equal(t_cfg_rd(c, 0x14, 4), 0xFFFFFFFF);
	t_cfg_wr(c, 0x10, T_BASE, 4);
	t_cfg_wr(c, 0x14, 0, 4);
	assert_int_equal(t_cfg_rd(c, 0x10, 4), T_BASE | 4);
	assert_int_equal(rsh_simpci_cfg_bar0(&c->s.cfg), T_BASE);
	assert_int_equal(c->s.st.msgs[RSH_MPQ_DEVICE_RESET], 1);
}

/* Program BAR0 at T_BASE as the guest's BIOS does. */
static void
t_place_bar(struct t_ctx *c)
{
	t_reset(c);
	t_cfg_wr(c, 0x10, T_BASE, 4);
	t_cfg_wr(c, 0x14, 0, 4);
}

/* 8-byte accesses reach the model whole at BAR offsets. */
static void
test_bar_rw64(void **state)
{
	struct t_ctx *c = *state;

	t_place_bar(c);
	t_bar(c, true, T_BASE + T_BOOT_CONTROL, 0x1122334455667788ull, 8);
	assert_int_equal(c->dev.last_off, T_BOOT_CONTROL);
	assert_int_equal(c->dev.mem[T_BOOT_CONTROL / 8], 0x1122334455667788ull);
	assert_int_equal(t_bar(c, false, T_BASE + T_BOOT_CONTROL, 0, 8),
			 0x1122334455667788ull);
	/* the last word of the BAR */
	t_bar(c, true, T_BASE + T_BAR - 8, 7, 8);
	assert_int_equal(c->dev.mem[T_BAR / 8 - 1], 7);
	assert_int_equal(c->s.st.mmio_reads, 1);
	assert_int_equal(c->s.st.mmio_writes, 2);
	assert_int_equal(c->s.st.bad_accesses, 0);
}

/* Reads count by register (4-byte halves as their register); the 17th
 * distinct register counts as "other"; the counters line shows them. */
static void
test_bar_reads_by_reg(void **state)
{
	struct t_ctx *c = *state;
	char line[1024];
	unsigned int i;

	t_place_bar(c);
	t_bar(c, false, T_BASE + T_BOOT_CONTROL, 0, 8);
	t_bar(c, false, T_BASE + T_BOOT_CONTROL + 4, 0, 4);
	for (i = 1; i <= 16; i++)
		t_bar(c, false, T_BASE + T_BAR - 8 * i, 0, 8);
	assert_int_equal(c->s.st.reg_slots, 16);
	assert_int_equal(c->s.st.reads_by_reg[0].off, T_BOOT_CONTROL);
	assert_int_equal(c->s.st.reads_by_reg[0].n, 2);
	assert_int_equal(c->s.st.reads_other, 1);
	rsh_simpci_stats_line(&c->s, line, sizeof(line));
	assert_non_null(strstr(line, " reads_at=0x" ));
	assert_non_null(strstr(line, ":2,"));
	assert_non_null(strstr(line, " reads_other=1"));
}

/* The push window: from the reset write to the first FIFO write, then
 * the accesses from the first to the last FIFO write; a new reset starts
 * a new window. */
static void
test_bar_push_window(void **state)
{
	struct t_ctx *c = *state;
	char line[1024];

	t_place_bar(c);
	rsh_simpci_stats_line(&c->s, line, sizeof(line));
	assert_null(strstr(line, "push_ns="));
	t_bar(c, true, T_BASE + T_BOOT_FIFO_DATA, 1, 8); /* before any reset */
	t_bar(c, true, T_BASE + T_RESET_CONTROL, 0xCA710001, 8);
	t_bar(c, false, T_BASE + T_BOOT_CONTROL, 0, 8);  /* open: not counted */
	t_bar(c, true, T_BASE + T_BOOT_FIFO_DATA, 2, 8);
	t_bar(c, false, T_BASE + T_BOOT_FIFO_COUNT, 0, 8);
	t_bar(c, true, T_BASE + T_BOOT_FIFO_DATA, 3, 8);
	t_bar(c, false, T_BASE + T_BOOT_CONTROL, 0, 8);
	t_bar(c, true, T_BASE + T_BOOT_FIFO_DATA, 4, 8);
	t_bar(c, false, T_BASE + T_BOOT_CONTROL, 0, 8);  /* close: not counted */
	rsh_simpci_stats_line(&c->s, line, sizeof(line));
	assert_non_null(strstr(line, " push_reads=2 push_count_reads=1 push_writes=3"));
	t_bar(c, true, T_BASE + T_RESET_CONTROL, 0xCA710001, 8);
	t_bar(c, true, T_BASE + T_BOOT_FIFO_DATA, 5, 8);
	rsh_simpci_stats_line(&c->s, line, sizeof(line));
	assert_non_null(strstr(line, " push_reads=0 push_count_reads=0 push_writes=1"));
}

/* 4 bytes: halves of plain registers; FIFO data registers refused. */
static void
test_bar_rw32(void **state)
{
	struct t_ctx *c = *state;
	unsigned int w;

	t_place_bar(c);
	c->dev.mem[T_BOOT_CONTROL / 8] = 0xAAAABBBBCCCCDDDDull;
	assert_int_equal(t_bar(c, false, T_BASE + T_BOOT_CONTROL, 0, 4), 0xCCCCDDDD);
	assert_int_equal(t_bar(c, false, T_BASE + T_BOOT_CONTROL + 4, 0, 4), 0xAAAABBBB);
	t_bar(c, true, T_BASE + T_BOOT_CONTROL + 4, 0x12345678, 4);
	assert_int_equal(c->dev.mem[T_BOOT_CONTROL / 8], 0x12345678CCCCDDDDull);
	w = c->dev.writes;
	assert_int_equal(t_bar(c, false, T_BASE + T_BOOT_FIFO_DATA, 0, 4), 0xFFFFFFFF);
	t_bar(c, true, T_BASE + T_BOOT_FIFO_DATA + 4, 1, 4);
	assert_int_equal(c->dev.writes, w);
	assert_int_equal(c->s.st.bad_accesses, 2);
}

/* Bad accesses: out of the BAR, below it, 1/2 bytes, unaligned. */
static void
test_bar_bad(void **state)
{
	struct t_ctx *c = *state;
	unsigned int r;

	t_place_bar(c);
	r = c->dev.reads;
	assert_int_equal(t_bar(c, false, T_BASE + T_BAR, 0, 8), UINT64_MAX);
	assert_int_equal(t_bar(c, false, T_BASE - 8, 0, 8), UINT64_MAX);
	assert_int_equal(t_bar(c, false, T_BASE + 0x528, 0, 2), 0xFFFF);
	assert_int_equal(t_bar(c, false, T_BASE + 0x528, 0, 1), 0xFF);
	assert_int_equal(t_bar(c, false, T_BASE + 0x52C, 0, 8), UINT64_MAX);
	assert_int_equal(c->dev.reads, r);
	assert_int_equal(c->s.st.bad_accesses, 5);
}

/* SYNC_SYSMEM and SET_IRQFD: no reply, fds closed, next reply in step. */
static void
test_no_reply_msgs(void **state)
{
	struct t_ctx *c = *state;
	struct rsh_mpq_sysmem sm = { .gpas = { 0 }, .sizes = { 1u << 30 } };
	int p1[2], p2[2], fds[2];
	char b;

	assert_int_equal(pipe(p1), 0);
	assert_int_equal(pipe(p2), 0);
	t_send(c, RSH_MPQ_SYNC_SYSMEM, &sm, sizeof(sm), &p1[1], 1);
	assert_int_equal(rsh_simpci_serve_one(&c->s), 1);
	assert_true(t_no_reply(c));
	fds[0] = p2[1];
	fds[1] = p2[1];
	t_send(c, RSH_MPQ_SET_IRQFD, NULL, 0, fds, 2);
	assert_int_equal(rsh_simpci_serve_one(&c->s), 1);
	assert_true(t_no_reply(c));
	/* our write ends closed too: EOF proves the server closed its own */
	close(p1[1]);
	close(p2[1]);
	assert_int_equal(read(p1[0], &b, 1), 0);
	assert_int_equal(read(p2[0], &b, 1), 0);
	close(p1[0]);
	close(p2[0]);
	assert_int_equal(c->s.st.fds_closed, 3);
	assert_int_equal(t_cfg_rd(c, 0x00, 2), 0x15B3); /* still in step */
	assert_int_equal(c->s.st.msgs[RSH_MPQ_SYNC_SYSMEM], 1);
	assert_int_equal(c->s.st.msgs[RSH_MPQ_SET_IRQFD], 1);
}

/* QEMU goes away: EOF before a message is a clean end. */
static void
test_eof(void **state)
{
	struct t_ctx *c = *state;

	close(c->qemu);
	c->qemu = -1;
	assert_int_equal(rsh_simpci_serve_one(&c->s), 0);
}

/* A payload cut short by EOF is refused with a clear reason. */
static void
test_truncated(void **state)
{
	struct t_ctx *c = *state;
	struct rsh_mpq_hdr h = { .cmd = RSH_MPQ_CFG_READ, .size = 12 };
	uint32_t part = 0;

	assert_int_equal(write(c->qemu, &h, sizeof(h)), (ssize_t)sizeof(h));
	assert_int_equal(write(c->qemu, &part, sizeof(part)), 4);
	close(c->qemu);
	c->qemu = -1;
	assert_int_equal(rsh_simpci_serve_one(&c->s), -EPROTO);
	assert_non_null(strstr(c->s.err, "truncated"));
}

/* A size past the largest payload is refused before reading it. */
static void
test_oversized(void **state)
{
	struct t_ctx *c = *state;

	t_send(c, RSH_MPQ_BAR_READ, NULL, 4096, NULL, 0);
	assert_int_equal(rsh_simpci_serve_one(&c->s), -EPROTO);
	assert_non_null(strstr(c->s.err, "oversized"));
}

/* Wrong command, wrong size for its command, fds where none belong. */
static void
test_malformed(void **state)
{
	struct t_ctx *c = *state;
	struct rsh_mpq_conf bad_len = { .addr = 0, .len = 3 };
	struct rsh_mpq_bar bar = { .size = 8, .memory = 1 };
	uint64_t v = 0;
	int p[2];

	t_send(c, RSH_MPQ_RET, &v, sizeof(v), NULL, 0);
	assert_int_equal(rsh_simpci_serve_one(&c->s), -EPROTO);
	assert_non_null(strstr(c->s.err, "unexpected command 1"));
	t_send(c, 42, NULL, 0, NULL, 0);
	assert_int_equal(rsh_simpci_serve_one(&c->s), -EPROTO);
	t_send(c, RSH_MPQ_CFG_READ, &bad_len, sizeof(bad_len), NULL, 0);
	assert_int_equal(rsh_simpci_serve_one(&c->s), -EPROTO);
	t_send(c, RSH_MPQ_CFG_READ, &bar, 8, NULL, 0);
	assert_int_equal(rsh_simpci_serve_one(&c->s), -EPROTO);
	assert_non_null(strstr(c->s.err, "cfg_read with a 8-byte payload"));
	assert_int_equal(pipe(p), 0);
	t_send(c, RSH_MPQ_BAR_READ, &bar, sizeof(bar), &p[1], 1);
	assert_int_equal(rsh_simpci_serve_one(&c->s), -EPROTO);
	assert_non_null(strstr(c->s.err, "bar_read with 1 fds"));
	close(p[0]);
	close(p[1]);
	assert_true(t_no_reply(c));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cfg_identity, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_command, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_generations, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_device_reset, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_livefish, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_bar_probe, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_bar_reads_by_reg, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_bar_push_window, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_bar_rw64, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_bar_rw32, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_bar_bad, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_no_reply_msgs, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_eof, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_truncated, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_oversized, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_malformed, t_setup, t_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
