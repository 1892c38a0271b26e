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

/* A program's own PCI options and where each comes from. */
struct rsh_devstr_pci_opts {
	const char *mapping;		/* NULL: none */
	const char *mapping_from;	/* e.g. "--mapping", "PCIE_HAS_VFIO 0" */
	bool force_id;
	const char *force_id_from;	/* e.g. "--force-id" */
};

/*
 * devstr with ",mapping=<mapping>" (o->mapping not NULL) and ",force-id=1"
 * (o->force_id) appended, into buf; an emulated device ("sim:...") has no
 * such options and is copied unchanged.
 *
 * A key the device string already carries is not appended again: when its
 * value agrees with the program's option the string is used as given; when
 * it disagrees (mapping=uio against --mapping vfio, force-id=0 against
 * --force-id) neither silently wins and the call fails with one line
 * naming both and what to do. A value the string gives that does not
 * parse is left to the backend, which names the valid ones.
 *
 * @param err  On failure, one line naming what is wrong and what to do.
 * @return 0; -EINVAL the option and the device string disagree;
 *   -ENAMETOOLONG buf is too small.
 */
int rsh_devstr_pci(char *buf, size_t len, const char *devstr,
		   const struct rsh_devstr_pci_opts *o, char *err, size_t errlen);

#endif /* RSH_DEVSTR_H */
