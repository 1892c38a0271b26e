/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/pci private: the PCI backend's one logtype, pmd.rshim.vfio
 * (registered in rsh_pci_scan.c), shared by the device object
 * (rsh_pci_priv.h) and the livefish gateway (rsh_lf.h).
 */
#ifndef RSH_PCI_LOG_H
#define RSH_PCI_LOG_H

extern int rsh_logtype_vfio;

#endif /* RSH_PCI_LOG_H */
