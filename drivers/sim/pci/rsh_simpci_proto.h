/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire format of QEMU's multi-process PCI proxy (-device
 * x-pci-proxy-dev,fd=N), as rshim-sim-pci serves it: layout only.
 *
 * Every message is a 16-byte header (command, padding, payload size)
 * followed by the payload; file descriptors ride as SCM_RIGHTS on the
 * header. Host byte order (little-endian on x86). Written from reading
 * QEMU 7.2 include/hw/remote/mpqemu-link.h and hw/remote/mpqemu-link.c
 * (doc/hardware-notes.md §V1).
 */
#ifndef RSH_SIMPCI_PROTO_H
#define RSH_SIMPCI_PROTO_H

#include <stdint.h>

/* Commands. Only the ones marked "reply" are answered, with one RET. */
enum rsh_mpq_cmd {
	RSH_MPQ_SYNC_SYSMEM = 0,  /* guest RAM regions + fds; no reply */
	RSH_MPQ_RET = 1,          /* the reply: u64 value */
	RSH_MPQ_CFG_WRITE = 2,    /* reply */
	RSH_MPQ_CFG_READ = 3,     /* reply carries the value */
	RSH_MPQ_BAR_WRITE = 4,    /* reply */
	RSH_MPQ_BAR_READ = 5,     /* reply carries the value */
	RSH_MPQ_SET_IRQFD = 6,    /* INTx + resample eventfds; no reply */
	RSH_MPQ_DEVICE_RESET = 7, /* reply */
	RSH_MPQ_CMD_COUNT,
};

/* Header of every message. */
struct rsh_mpq_hdr {
	int32_t cmd;
	uint32_t pad;
	uint64_t size;            /* payload bytes that follow */
};

/* SYNC_SYSMEM: up to 8 guest RAM regions, one fd each. */
#define RSH_MPQ_MAX_FDS 8
struct rsh_mpq_sysmem {
	uint64_t gpas[RSH_MPQ_MAX_FDS];
	uint64_t sizes[RSH_MPQ_MAX_FDS];
	uint64_t offsets[RSH_MPQ_MAX_FDS];
};

/* PCI_CFGWRITE / PCI_CFGREAD. */
struct rsh_mpq_conf {
	uint32_t addr;            /* config-space offset */
	uint32_t val;             /* value written (0 for a read) */
	int32_t len;              /* 1, 2 or 4 */
};

/* BAR_WRITE / BAR_READ: addr is guest-physical (BAR base + offset). */
struct rsh_mpq_bar {
	uint64_t addr;
	uint64_t val;
	uint32_t size;            /* 1, 2, 4 or 8 bytes */
	uint8_t memory;           /* 1 memory BAR, 0 I/O BAR */
	uint8_t pad[3];
};

/* The largest payload: SYNC_SYSMEM's. Anything bigger is refused. */
#define RSH_MPQ_MAX_PAYLOAD sizeof(struct rsh_mpq_sysmem)
/* The value a SET_IRQFD carries: exactly two fds. */
#define RSH_MPQ_IRQFD_FDS 2

_Static_assert(sizeof(struct rsh_mpq_hdr) == 16, "mpqemu header is 16 bytes");
_Static_assert(sizeof(struct rsh_mpq_sysmem) == 192, "SYNC_SYSMEM is 192 bytes");
_Static_assert(sizeof(struct rsh_mpq_conf) == 12, "config message is 12 bytes");
_Static_assert(sizeof(struct rsh_mpq_bar) == 24, "BAR message is 24 bytes");

#endif /* RSH_SIMPCI_PROTO_H */
