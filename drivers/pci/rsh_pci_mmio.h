/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BAR0 MMIO of the PCI backends: bounds-checked 64-bit accesses through
 * rte_read64/rte_write64, counted in be->stats. Inline so the FIFO burst
 * loops compile to plain loads and stores.
 *
 * Facts: hardware-notes §1.4 (64-bit, 8-byte aligned,
 * barriers), §1.9 (BF1 posted-write drain).
 */
#ifndef RSH_PCI_MMIO_H
#define RSH_PCI_MMIO_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_io.h>

#include "rsh_pci_priv.h"

#ifndef RSH_LOGTYPE
#define RSH_LOGTYPE rsh_logtype_vfio
#endif
#include "rsh_log.h"

/* §1.9: BF1 takes at most 15 posted 8-byte writes before a read. */
#define RSH_PCI_BF1_POSTED_MAX 15u

/* True when an 8-byte access at off lies inside the mapped BAR; logs the
 * first violation of the device once. */
static inline bool
rsh_pci_in_bar(struct rsh_pci_dev *pd, uint32_t off)
{
	if (pd->bar != NULL && (off & 7u) == 0 && pd->bar_len >= 8 &&
	    off <= pd->bar_len - 8)
		return true;
	if (!pd->oob_logged) {
		pd->oob_logged = true;
		RSH_DEV_LOG(ERR, &pd->be, "BAR0 access at 0x%x outside the "
			    "mapped 0x%zx bytes (or unaligned); reads give "
			    "all-ones, writes are dropped", off, pd->bar_len);
	}
	return false;
}

/* BF1 only: after 15 posted writes do a real read of a harmless register
 * so the posted writes drain (§1.9). Counted as a read. */
static inline void
rsh_pci_bf1_drain(struct rsh_pci_dev *pd)
{
	if (pd->be.gen != RSH_GEN_BF1 || ++pd->posted < RSH_PCI_BF1_POSTED_MAX)
		return;
	(void)rte_read64_relaxed(pd->bar + pd->drain_off);
	rsh_backend_count(&pd->be.stats.reads, 1);
	pd->posted = 0;
}

/* One 64-bit read with barrier; all-ones outside the BAR. */
static inline uint64_t
rsh_pci_rd(struct rsh_pci_dev *pd, uint32_t off)
{
	if (!rsh_pci_in_bar(pd, off))
		return UINT64_MAX;
	rsh_backend_count(&pd->be.stats.reads, 1);
	pd->posted = 0;
	return rte_read64(pd->bar + off);
}

/* One 64-bit write with barrier; dropped outside the BAR. */
static inline void
rsh_pci_wr(struct rsh_pci_dev *pd, uint32_t off, uint64_t v)
{
	if (!rsh_pci_in_bar(pd, off))
		return;
	rte_write64(v, pd->bar + off);
	rsh_backend_count(&pd->be.stats.writes, 1);
	rsh_pci_bf1_drain(pd);
}

/* One 32-bit read with barrier (4-aligned); all-ones outside the BAR. */
static inline uint32_t
rsh_pci_rd32(struct rsh_pci_dev *pd, uint32_t off)
{
	if ((off & 3) != 0 || !rsh_pci_in_bar(pd, off & ~7u))
		return UINT32_MAX;
	rsh_backend_count(&pd->be.stats.reads, 1);
	pd->posted = 0;
	return rte_read32(pd->bar + off);
}

/* One 32-bit write with barrier (4-aligned); dropped outside the BAR. */
static inline void
rsh_pci_wr32(struct rsh_pci_dev *pd, uint32_t off, uint32_t v)
{
	if ((off & 3) != 0 || !rsh_pci_in_bar(pd, off & ~7u))
		return;
	rte_write32(v, pd->bar + off);
	rsh_backend_count(&pd->be.stats.writes, 1);
	rsh_pci_bf1_drain(pd);
}

#endif /* RSH_PCI_MMIO_H */
