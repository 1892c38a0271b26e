/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PCI IDs of a BlueField's functions, vendor 0x15B3, hardware-notes
 * §1.1: the one table the pci backend's scan and rshim-pmd-app's doctor
 * read. usertools/rshim-devbind.py keeps its own copy in Python; the
 * usertools suite checks it against this table (one entry a line, in the
 * form "{ 0xID, GEN, RSH_PCI_KIND_X }", which that test parses).
 *
 * Plain C, layout only.
 */
#ifndef RSH_PCI_IDS_H
#define RSH_PCI_IDS_H

#include <stdint.h>

#define RSH_PCI_VENDOR_ID 0x15B3u

/* What a function of the DPU is. */
enum rsh_pci_kind {
	RSH_PCI_KIND_RSHIM,     /* the rshim function, NIC firmware running */
	RSH_PCI_KIND_LIVEFISH,  /* rshim through config space, no NIC firmware */
	RSH_PCI_KIND_NIC_PF,    /* a NIC physical function (not ours) */
};

/* One device ID: its BlueField generation (1, 2, 3; the values of enum
 * rsh_gen) and kind. */
struct rsh_pci_id_ent {
	uint16_t device;
	uint8_t gen;
	uint8_t kind;           /* enum rsh_pci_kind */
};

/* NIC PF of BF1 *(inferred: from lspci listings of BlueField-1 cards)*. */
static const struct rsh_pci_id_ent rsh_pci_id_table[] = {
	{ 0xC2D2, 1, RSH_PCI_KIND_RSHIM },
	{ 0xC2D3, 2, RSH_PCI_KIND_RSHIM },
	{ 0xC2D4, 3, RSH_PCI_KIND_RSHIM },    /* older firmware */
	{ 0xC2D5, 3, RSH_PCI_KIND_RSHIM },
	{ 0x0211, 1, RSH_PCI_KIND_LIVEFISH },
	{ 0x0214, 2, RSH_PCI_KIND_LIVEFISH },
	{ 0x021C, 3, RSH_PCI_KIND_LIVEFISH },
	{ 0xA2D2, 1, RSH_PCI_KIND_NIC_PF },
	{ 0xA2D6, 2, RSH_PCI_KIND_NIC_PF },
	{ 0xA2DC, 3, RSH_PCI_KIND_NIC_PF },
};

/* The entry of a 0x15B3 device ID, or NULL. */
static inline const struct rsh_pci_id_ent *
rsh_pci_id_find(uint16_t device)
{
	for (unsigned int i = 0; i < sizeof(rsh_pci_id_table) / sizeof(rsh_pci_id_table[0]); i++)
		if (rsh_pci_id_table[i].device == device)
			return &rsh_pci_id_table[i];
	return NULL;
}

#endif /* RSH_PCI_IDS_H */
