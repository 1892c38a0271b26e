/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A livefish rshim function (15b3:0211/0214/021c, no NIC firmware) as
 * the PCI backend serves it: no BAR, only 4-byte config-space accesses,
 * through the VFIO config region (pread/pwrite at the offset the kernel
 * reports) or, for UIO and direct mode, the sysfs "config" file. The core
 * stacks the gateway of rsh_lf.c on this backend.
 *
 * Facts: doc/hardware-notes.md §1.7, §2.5 step 6 (config region), §L1,
 * §V9 (what vfio-pci does with these bytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>

#define RSH_LOGTYPE rsh_logtype_vfio
#include "rsh_log.h"
#include "rsh_pci_priv.h"

/* The fd config space is read through: VFIO's device fd, else sysfs. */
static int
rsh_pci_cfg_fd(const struct rsh_pci_dev *pd)
{
	return pd->cfg_fd >= 0 ? pd->cfg_fd : pd->dev_fd;
}

/* Report the first failed config access of the device. */
static int
rsh_pci_cfg_fail(struct rsh_pci_dev *pd, const char *op, uint32_t off,
		 ssize_t n)
{
	int rc = n < 0 ? -errno : -EIO;

	if (!pd->cfg_err_logged) {
		pd->cfg_err_logged = true;
		RSH_DEV_LOG(ERR, &pd->be, "config-space %s at 0x%x failed (%s); the livefish gateway cannot be reached",
			    op, off, n < 0 ? strerror(-rc) : "short transfer");
	}
	return rc;
}

/* ops: one little-endian config dword. */
static int
rsh_pci_cfg_read(struct rsh_backend *be, uint32_t off, uint32_t *v)
{
	struct rsh_pci_dev *pd = (struct rsh_pci_dev *)be;
	uint32_t le;
	ssize_t n = pread(rsh_pci_cfg_fd(pd), &le, 4, pd->cfg_off + off);

	if (n != 4)
		return rsh_pci_cfg_fail(pd, "read", off, n);
	*v = rte_le_to_cpu_32(le);
	return 0;
}

static int
rsh_pci_cfg_write(struct rsh_backend *be, uint32_t off, uint32_t v)
{
	struct rsh_pci_dev *pd = (struct rsh_pci_dev *)be;
	uint32_t le = rte_cpu_to_le_32(v);
	ssize_t n = pwrite(rsh_pci_cfg_fd(pd), &le, 4, pd->cfg_off + off);

	return n == 4 ? 0 : rsh_pci_cfg_fail(pd, "write", off, n);
}

/* ops: no BAR. Never called (the gateway is stacked on top); all-ones. */
static uint64_t
rsh_pci_cfg_nobar_read(struct rsh_backend *be, uint32_t off)
{
	RTE_SET_USED(be);
	RTE_SET_USED(off);
	return UINT64_MAX;
}

static void
rsh_pci_cfg_nobar_write(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	RTE_SET_USED(be);
	RTE_SET_USED(off);
	RTE_SET_USED(v);
}

static void
rsh_pci_cfg_nobar_wfifo(struct rsh_backend *be, uint32_t off,
			const uint64_t *w, unsigned int n)
{
	RTE_SET_USED(be);
	RTE_SET_USED(off);
	RTE_SET_USED(w);
	RTE_SET_USED(n);
}

static void
rsh_pci_cfg_nobar_rfifo(struct rsh_backend *be, uint32_t off, uint64_t *w,
			unsigned int n)
{
	RTE_SET_USED(be);
	RTE_SET_USED(off);
	memset(w, 0xFF, (size_t)n * sizeof(*w));
}

/* ops: unmap as the mapping mode does, free (rsh_pci_scan.c's close). */
static void
rsh_pci_cfg_close(struct rsh_backend *be)
{
	struct rsh_pci_dev *pd = (struct rsh_pci_dev *)be;

	if (pd->mapping == RSH_PCI_MAP_VFIO)
		rsh_vfio_unmap(pd);
	else if (pd->mapping == RSH_PCI_MAP_UIO)
		rsh_uio_unmap(pd);
	else
		rsh_direct_unmap(pd);
	free(pd);
}

const struct rsh_backend_ops rsh_pci_cfg_ops = {
	.read64 = rsh_pci_cfg_nobar_read,
	.write64 = rsh_pci_cfg_nobar_write,
	.write_fifo = rsh_pci_cfg_nobar_wfifo,
	.read_fifo = rsh_pci_cfg_nobar_rfifo,
	.cfg_read = rsh_pci_cfg_read,
	.cfg_write = rsh_pci_cfg_write,
	.close = rsh_pci_cfg_close,
};

/* UIO/direct: <dir>/config read-write (root); nothing else is mapped. */
int
rsh_pci_cfg_open(struct rsh_pci_dev *pd)
{
	char path[PATH_MAX];
	int rc;

	rsh_pci_fmt(path, sizeof(path), "%s/config", pd->dir);
	pd->cfg_fd = open(path, O_RDWR | O_CLOEXEC);
	pd->cfg_off = 0;
	if (pd->cfg_fd >= 0)
		return 0;
	rc = -errno;
	rsh_err_set("%s: cannot open %s: %s; the livefish gateway is reached through config space: run as root",
		    pd->be.name, path, strerror(-rc));
	return rc;
}
