/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PCI configuration space of an emulated rshim function, as silicon
 * presents it (doc/hardware-notes.md §1.1, §1.2, §1.8, §V2): 256 bytes
 * built from a table of fields (value, writable bits), BAR0 64-bit
 * non-prefetchable memory, interrupt pin A, a PCIe capability. Ranges can
 * be handed to hooks (a livefish gateway window forwarded to the
 * emulator, say) instead of the byte store.
 *
 * Threads: one, the server's.
 */
#ifndef RSH_SIMPCI_CFG_H
#define RSH_SIMPCI_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "rsh_backend.h"

#define RSH_SIMPCI_CFG_SIZE 256u

/* A config-space range served by code instead of the byte store. */
struct rsh_simpci_cfg_hook {
	uint16_t off, len;
	uint32_t (*read)(void *arg, uint32_t off, int len);
	void (*write)(void *arg, uint32_t off, uint32_t val, int len);
	void *arg;
};

#define RSH_SIMPCI_CFG_HOOKS 4

/* Config space of one function. */
struct rsh_simpci_cfg {
	uint8_t b[RSH_SIMPCI_CFG_SIZE];     /* current bytes */
	uint8_t wmask[RSH_SIMPCI_CFG_SIZE]; /* writable bits */
	uint8_t reset[RSH_SIMPCI_CFG_SIZE]; /* values after DEVICE_RESET */
	uint64_t bar_size;
	bool bar_hi_live;  /* upper BAR0 dword behaves (after 1st reset) */
	struct rsh_simpci_cfg_hook hooks[RSH_SIMPCI_CFG_HOOKS];
	unsigned int n_hooks;
};

/* Offsets the server and the tests use. */
#define RSH_SIMPCI_CFG_COMMAND 0x04
#define RSH_SIMPCI_CFG_BAR0 0x10
#define RSH_SIMPCI_CFG_BAR0_HI 0x14
#define RSH_SIMPCI_CFG_CAP_PTR 0x34
#define RSH_SIMPCI_CFG_INT_PIN 0x3D
#define RSH_SIMPCI_CFG_PCIE_CAP 0x40
#define RSH_SIMPCI_CFG_LF_VSC 0x48     /* livefish: vendor-specific cap */
#define RSH_SIMPCI_CFG_LF_WIN 0x58     /* livefish: address/data window */
#define RSH_SIMPCI_CFG_LF_PCIE 0x80    /* livefish: PCIe cap moved here */
#define RSH_SIMPCI_CMD_MEMORY 0x0002u
#define RSH_SIMPCI_CMD_INTX_DISABLE 0x0400u
#define RSH_SIMPCI_BAR_MEM64 0x4u          /* type bits of BAR0 */

/**
 * Build the config space of a device: IDs from its generation and
 * revision, BAR0 of be->bar_size; a livefish function (be->cfg_only):
 * its livefish ID, no BAR, the gateway window in a vendor capability.
 * @return 0, or -EINVAL for an unknown generation or BAR size.
 */
int rsh_simpci_cfg_init(struct rsh_simpci_cfg *c,
			const struct rsh_backend *be);

/** PCI device ID of a generation's rshim function (0 if unknown). */
uint16_t rsh_simpci_cfg_device_id(enum rsh_gen gen);

/**
 * Add a hook for [off, off + len). Accesses that overlap it go to the
 * hook whole.
 * @return 0, -ENOSPC when the table is full, -EINVAL for a bad range.
 */
int rsh_simpci_cfg_hook_add(struct rsh_simpci_cfg *c,
			    const struct rsh_simpci_cfg_hook *h);

/** Read len (1, 2, 4) bytes at off; all-ones outside the 256 bytes. */
uint32_t rsh_simpci_cfg_read(struct rsh_simpci_cfg *c, uint32_t off, int len);

/** Write len bytes at off through the writable-bit mask. */
void rsh_simpci_cfg_write(struct rsh_simpci_cfg *c, uint32_t off,
			  uint32_t val, int len);

/**
 * DEVICE_RESET: back to reset values; from the first one on, the upper
 * BAR0 dword takes writes (doc/hardware-notes.md §V3).
 */
void rsh_simpci_cfg_reset(struct rsh_simpci_cfg *c);

/** Guest-physical base of BAR0 as the guest programmed it. */
uint64_t rsh_simpci_cfg_bar0(const struct rsh_simpci_cfg *c);

/** True when a (off, len) config access is well formed. */
bool rsh_simpci_cfg_valid(uint32_t off, int len);

#endif /* RSH_SIMPCI_CFG_H */
