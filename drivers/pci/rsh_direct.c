/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct mapping: mmap of sysfs resource0 with no kernel driver bound, the
 * last resort of the fallback chain. Refused under kernel lockdown; the
 * function is protected with driver_override = "rshim" so vfio-pci or
 * uio_pci_generic cannot grab it behind our back.
 *
 * Facts: hardware-notes §2.1 step 2 (lockdown), §2.2
 * (enable, driver_override), §2.3 (mmap), §2.8 (clear on teardown).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define RSH_LOGTYPE rsh_logtype_vfio
#include "rsh_log.h"
#include "rsh_pci_priv.h"

/* Open and mmap <dir>/resource0, then set MEMORY|MASTER through
 * <dir>/config (§2.3, §1.8). Shared with UIO (§2.4). */
int
rsh_direct_map_res0(struct rsh_pci_dev *pd)
{
	char path[PATH_MAX];
	struct stat st;
	int rc;

	if (pd->livefish) /* no usable BAR: config space only, §1.7 */
		return rsh_pci_cfg_open(pd);
	rsh_pci_fmt(path, sizeof(path), "%s/resource0", pd->dir);
	pd->res_fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (pd->res_fd < 0) {
		rc = -errno;
		rsh_err_set("%s: cannot open %s: %s; run as root", pd->be.name,
			    path, strerror(-rc));
		return rc;
	}
	rc = -ENODEV;
	if (fstat(pd->res_fd, &st) < 0 || rsh_pci_check_bar(pd, st.st_size))
		goto err_close;
	/* MAP_LOCKED of §2.3 is left out: MMIO pages are never swapped and
	 * it needs RLIMIT_MEMLOCK for an 8 MiB BF3 BAR. (inferred) */
	pd->bar = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       pd->res_fd, 0);
	if (pd->bar == MAP_FAILED) {
		rc = -errno;
		pd->bar = NULL;
		rsh_err_set("%s: mmap of %s failed: %s", pd->be.name, path,
			    strerror(-rc));
		goto err_close;
	}
	pd->bar_len = st.st_size;
	rsh_pci_fmt(path, sizeof(path), "%s/config", pd->dir);
	pd->cfg_fd = open(path, O_RDWR | O_CLOEXEC);
	pd->cfg_off = 0;
	rc = pd->cfg_fd < 0 ? -EIO :
			      rsh_pci_cmd_enable(pd->cfg_fd, 0, pd->be.name);
	if (pd->cfg_fd < 0)
		rsh_err_set("%s: cannot open %s: %s; run as root", pd->be.name,
			    path, strerror(errno));
	if (rc < 0)
		goto err_unmap;
	return 0;
err_unmap:
	if (pd->cfg_fd >= 0)
		close(pd->cfg_fd);
	pd->cfg_fd = -1;
	munmap(pd->bar, pd->bar_len);
	pd->bar = NULL;
	pd->bar_len = 0;
err_close:
	close(pd->res_fd);
	pd->res_fd = -1;
	return rc;
}

/* Undo rsh_direct_map_res0. */
void
rsh_direct_unmap_res0(struct rsh_pci_dev *pd)
{
	if (pd->bar != NULL)
		munmap(pd->bar, pd->bar_len);
	pd->bar = NULL;
	pd->bar_len = 0;
	if (pd->cfg_fd >= 0)
		close(pd->cfg_fd);
	pd->cfg_fd = -1;
	if (pd->res_fd >= 0)
		close(pd->res_fd);
	pd->res_fd = -1;
}

/* Direct mode: no driver, no lockdown; enable + driver_override (§2.2). */
int
rsh_direct_map(struct rsh_pci_dev *pd)
{
	char mode[32];
	int rc;

	if (rsh_pci_lockdown(pd->root, mode, sizeof(mode))) {
		/* Lockdown refuses sysfs config writes as well as resource0
		 * mmap: a livefish function's gateway is no way round it. */
		rsh_err_set("%s: direct mapping refused: kernel lockdown "
			    "[%s] forbids %s; VFIO is required: "
			    "enable the IOMMU (intel_iommu=on or amd_iommu=on), "
			    "modprobe vfio-pci, rshim-devbind.py -b vfio-pci %s",
			    pd->be.name, mode, pd->livefish ?
			    "config-space writes through sysfs (the livefish gateway)" :
			    "resource0 mmap", pd->be.name);
		return -EPERM;
	}
	if (pd->kdrv[0] != '\0') {
		rsh_err_set("%s: bound to %s; direct mapping needs no driver: "
			    "run: rshim-devbind.py -u %s (or use --mapping %s)",
			    pd->be.name, pd->kdrv, pd->be.name,
			    strcmp(pd->kdrv, RSH_PCI_DRV_VFIO) ? "uio" : "vfio");
		return -EBUSY;
	}
	(void)rsh_pci_write_str(pd->dir, "enable", "1"); /* errors ignored */
	pd->override_set = rsh_pci_write_str(pd->dir, "driver_override",
					     RSH_PCI_DRV_FAKE) == 0;
	if (!pd->override_set)
		RSH_DEV_LOG(WARNING, &pd->be, "cannot write driver_override; "
			    "vfio-pci/uio new_id may grab this function");
	rc = rsh_direct_map_res0(pd);
	if (rc < 0)
		goto err_override;
	RSH_DEV_LOG(NOTICE, &pd->be, "direct resource0 mapping (no kernel "
		    "driver; driver_override=%s)", RSH_PCI_DRV_FAKE);
	return 0;
err_override:
	rsh_direct_unmap(pd);
	return rc;
}

/* Direct teardown: unmap, then clear driver_override (§2.8). */
void
rsh_direct_unmap(struct rsh_pci_dev *pd)
{
	rsh_direct_unmap_res0(pd);
	if (pd->override_set)
		(void)rsh_pci_write_str(pd->dir, "driver_override", "\n");
	pd->override_set = false;
}
