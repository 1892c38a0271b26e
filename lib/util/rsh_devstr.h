/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device strings with devargs: the PCI backend takes its options as
 * "0000:03:00.2,mapping=vfio,force-id=1" (drivers/pci/rsh_pci_args.c).
 * The programs keep their own options for them (rshim-pmd-app --mapping,
 * --force-id; the service's PCIE_HAS_VFIO/PCIE_HAS_UIO) and add them to
 * the string they open with this helper.
 */
#ifndef RSH_DEVSTR_H
#define RSH_DEVSTR_H

#include <stdbool.h>
#include <stddef.h>

/* Room for a device string with its devargs. */
#define RSH_DEVSTR_MAX 256

/*
 * devstr with ",mapping=<mapping>" (mapping not NULL) and ",force-id=1"
 * (force_id) appended, into buf; an emulated device ("sim:...") has no
 * such options and is copied unchanged.
 * @return 0, or -ENAMETOOLONG when buf is too small.
 */
int rsh_devstr_pci(char *buf, size_t len, const char *devstr,
		   const char *mapping, bool force_id);

#endif /* RSH_DEVSTR_H */
