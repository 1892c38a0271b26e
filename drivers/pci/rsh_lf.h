/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/pci private: the livefish gateway. A livefish function (no NIC
 * firmware, device 15b3:0211/0214/021c) has no usable BAR; its rshim
 * registers are reached through a window in PCI config space and a
 * per-generation gateway behind it (doc/hardware-notes.md §1.7, §L1-§L6):
 *
 *   config 0x58/0x5C   address/data window: one CR-space dword per access
 *   BF1                TRIO CR gateway (lock, 4-byte accesses, big-endian
 *                      data) in front of the rshim, then the Byte Access
 *                      Widget for every 64-bit register
 *   BF2                the rshim channel-1 registers straight in CR space,
 *                      then the Byte Access Widget (with its interlock)
 *   BF3                the MSN GW_CR_64B gateway: 64-bit accesses
 *
 * Boot FIFO words skip the widget on BF1/BF2 (the holding register merges
 * two 4-byte writes). The gateway is stacked by the core on a backend that
 * serves only config space (rsh_backend.cfg_only): the PCI backend for a
 * real function (VFIO config region, or sysfs "config"), the emulator's
 * livefish=1 mode in-process.
 *
 * Threads: like every backend, called from one thread at a time.
 */
#ifndef RSH_LF_H
#define RSH_LF_H

#include <stdbool.h>
#include <stdint.h>

#include "rsh_backend.h"
#include "rsh_pci_log.h"

/* Config-space window, §1.7. */
#define RSH_LF_CFG_ADDR 0x58u
#define RSH_LF_CFG_DATA 0x5Cu
#define RSH_LF_CFG_READ 0x1u          /* address bit 0: a read */

/* BF1 TRIO CR gateway, §L2. */
#define RSH_LF_TRIO_LOCK 0xE38A0u
#define RSH_LF_TRIO_DATA_LO 0xE38B0u
#define RSH_LF_TRIO_CTL 0xE38B4u
#define RSH_LF_TRIO_ADDR_LO 0xE38BCu
#define RSH_LF_TRIO_LOCKED 0x80000000u
#define RSH_LF_TRIO_TRIGGER 0xE0000000u
#define RSH_LF_TRIO_RD4 0x6u
#define RSH_LF_TRIO_WR4 0x2u

/* BF2: the rshim channel-1 registers in CR space, §L3. */
#define RSH_LF_BF2_CR_BASE 0x310000u
/* The rshim's own address of a BF1/BF2 register: 0x80000000 | ch << 16
 * | off, i.e. 0x80000000 | BAR offset (§L2). */
#define RSH_LF_RSH_BASE 0x80000000u

/* Byte Access Widget, channel-1 offsets, §1.5, §L4. */
#define RSH_LF_BAW_CTL 0x490u
#define RSH_LF_BAW_WDAT 0x498u
#define RSH_LF_BAW_RDAT 0x4A0u
#define RSH_LF_BAW_ADDR 0x4A8u
#define RSH_LF_BAW_INTERLOCK 0x4B0u
#define RSH_LF_BAW_TRIGGER 0x40u
#define RSH_LF_BAW_SIZE4 0x10u
#define RSH_LF_BAW_PENDING 0x20u

/* BF3 MSN GW_CR_64B boot gateway, §L5. */
#define RSH_LF_MSN_REG0 0xAE01040u
#define RSH_LF_MSN_REG0_COPY 0xAE01044u
#define RSH_LF_MSN_ACC_TYPE 0xAE0104Cu
#define RSH_LF_MSN_DATA_HI 0xAE01050u
#define RSH_LF_MSN_DATA_LO 0xAE01054u
#define RSH_LF_MSN_ADDR 0xAE01058u
#define RSH_LF_MSN_ACC_WIDTH 0xAE0105Cu
#define RSH_LF_MSN_LOCK 0x80000000u
#define RSH_LF_MSN_BUSY 0x40000000u
#define RSH_LF_MSN_W64 0x20000u
#define RSH_LF_MSN_W32 0x1F00u
#define RSH_LF_MSN_READ 1u
#define RSH_LF_MSN_WRITE 0u
/* BF3 global address of BAR offset o is 0x13000000 + o; the gateway
 * takes it without bit 28, in dwords (§1.3, §L5). */
#define RSH_LF_BF3_BASE 0x03000000u

/* Timing, §1.7 / §L6. */
#define RSH_LF_POLL_MS 2000u          /* RSHIM_LOCK_RETRY_TIME */
#define RSH_LF_BF3_QUIET_MS 10000u    /* after RESET_CONTROL on BF3 */
#define RSH_LF_RESET_EXTRA_MS 500u    /* livefish boot-open delay, §L6 */
#define RSH_LF_FAIL_BACKOFF_MS 1000u  /* a failed gateway is left alone */
#define RSH_LF_BF1_DRAIN_WORDS 7u     /* §1.9 on the livefish path */

/* Counters of one gateway (single writer; tests and logs read them). */
struct rsh_lf_stats {
	uint64_t lock_polls;     /* lock / interlock reads that found it held */
	uint64_t busy_polls;     /* busy / pending reads that found it busy */
	uint64_t timeouts;       /* polls that hit the 2 s deadline */
	uint64_t failed_ops;     /* ops answered without the gateway */
	uint64_t quiet_ops;      /* ops inside the BF3 quiet window */
	uint64_t drain_reads;    /* BF1 7-write rule reads */
	uint64_t cfg_errors;     /* config accesses that failed */
};

/* One stacked gateway device. */
struct rsh_lf {
	struct rsh_backend be;   /* first: the core sees only this */
	struct rsh_backend *low; /* config space */
	uint32_t boot_off;       /* BOOT_FIFO_DATA BAR offset */
	uint32_t reset_off;      /* RESET_CONTROL BAR offset */
	bool ref;                /* the reference daemon's sequence */
	bool held;               /* BF1 TRIO / BF3 MSN lock held now */
	bool cache_ok;           /* trio_addr/ctl or msn_* hold these */
	bool reg0_ok;            /* msn_reg0 is REG0 as last read */
	uint32_t trio_addr, trio_ctl;
	uint32_t msn_addr, msn_width, msn_type, msn_reg0;
	unsigned int bf1_words;  /* boot words since the last read (BF1) */
	uint64_t quiet_until;    /* TSC: BF3 after RESET_CONTROL */
	bool quiet_release;      /* the MSN lock to free when quiet ends */
	uint64_t fail_until;     /* TSC: left alone after a failure */
	struct rsh_lf_stats st;
};

/* ---- rsh_lf_gw.c: the gateways, one 32- or 64-bit access each ---- */

/* One CR-space dword through the config window (2 config cycles). */
int rsh_lf_cr_rd(struct rsh_lf *lf, uint32_t addr, uint32_t *v);
int rsh_lf_cr_wr(struct rsh_lf *lf, uint32_t addr, uint32_t v);
/* BF1/BF2: one 4-byte access of an rshim register (BAR offset off). */
int rsh_lf_rsh_rd32(struct rsh_lf *lf, uint32_t off, uint32_t *v);
int rsh_lf_rsh_wr32(struct rsh_lf *lf, uint32_t off, uint32_t v);
/* BF1: take / free the TRIO gateway lock (held across an op). */
int rsh_lf_trio_lock(struct rsh_lf *lf);
int rsh_lf_trio_unlock(struct rsh_lf *lf);
/* BF1/BF2: one 64-bit access through the Byte Access Widget. */
int rsh_lf_baw_rd64(struct rsh_lf *lf, uint32_t off, uint64_t *v);
int rsh_lf_baw_wr64(struct rsh_lf *lf, uint32_t off, uint64_t v);
/* BF3: MSN lock, one access with it held, free. */
int rsh_lf_msn_lock(struct rsh_lf *lf);
int rsh_lf_msn_unlock(struct rsh_lf *lf);
int rsh_lf_msn_rd(struct rsh_lf *lf, uint32_t off, uint64_t *v, bool w32);
int rsh_lf_msn_wr(struct rsh_lf *lf, uint32_t off, uint64_t v,
		  bool reset_write, bool w32);
/* BF3: after the quiet window, the busy wait and lock release a reset
 * write left pending. */
int rsh_lf_msn_finish(struct rsh_lf *lf);

/* ---- rsh_lf.c ---- */

/* The "stack" op of the pci driver: a gateway on a cfg_only backend. */
int rsh_lf_stack(struct rsh_backend *lower, struct rsh_backend **out);

/* The gateway behind a backend, NULL if it is not one (tests). */
struct rsh_lf *rsh_lf_of(struct rsh_backend *be);

#endif /* RSH_LF_H */
