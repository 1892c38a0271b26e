/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UIO mapping (uio_pci_generic): the BAR is the sysfs resource0 mmap of
 * direct mode; /dev/uioN is kept open as the INTx source.
 *
 * Facts: hardware-notes §2.4.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RSH_LOGTYPE rsh_logtype_vfio
#include "rsh_log.h"
#include "rsh_pci_priv.h"

const char *rsh_pci_dev_dir = "/dev";

/* uio index from <dir>/uio/uio<N> (or uio:uio<N> / uio<N> in <dir>).
 * @return N or -ENOENT. */
static int
rsh_uio_index(const char *dir)
{
	char sub[PATH_MAX];
	struct dirent *e;
	int idx = -ENOENT;
	DIR *d;

	rsh_pci_fmt(sub, sizeof(sub), "%s/uio", dir);
	d = opendir(sub);
	if (d == NULL)
		d = opendir(dir);
	if (d == NULL)
		return -ENOENT;
	while (idx < 0 && (e = readdir(d)) != NULL) {
		if (sscanf(e->d_name, "uio:uio%d", &idx) != 1 &&
		    sscanf(e->d_name, "uio%d", &idx) != 1)
			idx = -ENOENT;
	}
	closedir(d);
	return idx;
}

/* UIO mode: bound to uio_pci_generic; resource0 mmap + /dev/uioN. */
int
rsh_uio_map(struct rsh_pci_dev *pd)
{
	char node[PATH_MAX];
	int idx, rc;

	if (strcmp(pd->kdrv, RSH_PCI_DRV_UIO) != 0) {
		rsh_err_set("%s: %s%s; run: rshim-devbind.py -b %s %s",
			    pd->be.name, pd->kdrv[0] ? "bound to " :
			    "not bound to any driver", pd->kdrv, RSH_PCI_DRV_UIO,
			    pd->be.name);
		return pd->kdrv[0] ? -EBUSY : -ENODEV;
	}
	rc = rsh_direct_map_res0(pd);
	if (rc < 0)
		return rc;
	idx = rsh_uio_index(pd->dir);
	rsh_pci_fmt(node, sizeof(node), "%s/uio%d", rsh_pci_dev_dir, idx);
	pd->uio_fd = idx < 0 ? -1 : open(node, O_RDWR | O_CLOEXEC);
	if (pd->uio_fd < 0)
		RSH_DEV_LOG(NOTICE, &pd->be, "no UIO interrupt node (%s): "
			    "SCRATCHPAD6 reset events will be polled",
			    idx < 0 ? "no uio entry in sysfs" : node);
	return 0;
}

/* Undo rsh_uio_map. */
void
rsh_uio_unmap(struct rsh_pci_dev *pd)
{
	if (pd->uio_fd >= 0)
		close(pd->uio_fd);
	pd->uio_fd = -1;
	rsh_direct_unmap_res0(pd);
}
