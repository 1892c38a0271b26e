/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-sim-pci's server: one emulated rshim function served as the
 * remote end of QEMU's multi-process PCI proxy (rsh_simpci_proto.h).
 * Config cycles go to the config-space model (rsh_simpci_cfg.h); BAR
 * accesses are decoded against the BAR0 base the guest programmed and go
 * to the backend's ops, the same register model the in-process "sim"
 * backend uses. The server adds no device behaviour of its own.
 *
 * Access sizes (doc/hardware-notes.md §1.4, §V4): the rshim registers
 * are 64-bit, and an 8-byte guest access through a mapping of BAR0
 * arrives whole. 8 bytes -> read64 / write64. 4 bytes, naturally aligned
 * -> the half of the 64-bit register (32-bit accesses exist on silicon,
 * §1.4: the OPN words of the BF3 YU block); a 4-byte write merges into
 * the register (read, then write64). A 4-byte access to a register whose
 * access has a side effect (the FIFO data registers, the scratch-log
 * data and semaphore reads, MEM_ACC_CTL) would pop, push or trigger with
 * half a word: it is a bad access — counted, reads all-ones, writes
 * dropped — as is any 1- or 2-byte, unaligned, I/O-space or out-of-BAR
 * access. That is what a driver that lets vfio-pci split an 8-byte
 * pread into two 4-byte accesses meets (§V4).
 *
 * Threads: one, the caller's.
 */
#ifndef RSH_SIMPCI_H
#define RSH_SIMPCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rsh_backend.h"
#include "rsh_simpci_cfg.h"
#include "rsh_simpci_proto.h"

/* Counters of one server. */
struct rsh_simpci_stats {
	uint64_t msgs[RSH_MPQ_CMD_COUNT]; /* messages by command */
	uint64_t mmio_reads;   /* BAR reads that reached the model */
	uint64_t mmio_writes;  /* BAR writes that reached the model */
	uint64_t bad_accesses; /* refused BAR accesses (see above) */
	uint64_t fds_closed;   /* fds received and closed */
	uint64_t lf_cfg;       /* livefish window accesses (config space) */
	/* reads by register, the first 16 registers read (later ones count
	 * in reads_other): which registers a driver polls */
	struct {
		uint32_t off;
		uint64_t n;
	} reads_by_reg[16];
	unsigned int reg_slots; /* slots used */
	uint64_t reads_other;
	/* The last boot push as the host made it: from the latest write to
	 * RESET_CONTROL (a boot open's reset) to the first BOOT_FIFO_DATA
	 * write after it (open_ns), and the BAR accesses from that first to
	 * the latest BOOT_FIFO_DATA write (stream_*): a driver's push
	 * without its open and close. ns on the library's clock. */
	bool push_seen;  /* a BOOT_FIFO_DATA write since the last reset */
	bool reset_seen; /* a RESET_CONTROL write (else open_ns is 0) */
	uint64_t reset_at_ns, first_at_ns, last_at_ns;
	uint64_t first_reads, first_writes, last_reads, last_writes;
	uint64_t count_reads; /* reads of BOOT_FIFO_COUNT: a push's polling */
	uint64_t first_count_reads, last_count_reads;
};

/* One server. */
struct rsh_simpci {
	int fd;                    /* the proxy socket */
	struct rsh_backend *be;    /* the emulated device */
	struct rsh_simpci_cfg cfg;
	struct rsh_simpci_stats st;
	/* BAR offsets of the push window's registers (UINT32_MAX: none) */
	uint32_t off_fifo, off_reset, off_count;
	char err[200];             /* why the last call failed */
};

/**
 * Set a server up on socket fd for device be (not owned: the caller
 * closes both).
 * @return 0, or -EINVAL when be is not a generation the config model
 *         knows.
 */
int rsh_simpci_init(struct rsh_simpci *s, int fd, struct rsh_backend *be);

/**
 * Receive one message, act on it and send its reply if it takes one.
 * @return 1 served; 0 the peer closed the socket (EOF or ECONNRESET
 *         before a message began); -EINTR a signal arrived before a
 *         message began (call again); -EPROTO a malformed message
 *         (s->err says what); -EIO a socket error mid-message.
 */
int rsh_simpci_serve_one(struct rsh_simpci *s);

/** The counters as one line ("msgs cfg_read=... mmio_reads=..."). */
void rsh_simpci_stats_line(const struct rsh_simpci *s, char *buf,
			   size_t len);

/** Name of a command ("?" when unknown). */
const char *rsh_simpci_cmd_name(int cmd);

#endif /* RSH_SIMPCI_H */
