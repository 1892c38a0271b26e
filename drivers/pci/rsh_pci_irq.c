/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interrupt source of a mapped function, for the core's SCRATCHPAD6
 * reset handshake (hardware-notes §2.7, §6.7): the VFIO
 * INTx eventfd, the UIO node, or, in direct mode, PCI_STATUS.INTx (§1.8).
 * Every call is non-blocking.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <unistd.h>

#include "rsh_pci_priv.h"

#define RSH_PCI_COMMAND_OFF 4
#define RSH_PCI_STATUS_OFF 6
#define RSH_PCI_COMMAND_INTX_DISABLE 0x400u
#define RSH_PCI_STATUS_INTX 0x08u

/* 16-bit config space read/write through the function's config fd. */
static int
rsh_pci_cfg16(struct rsh_pci_dev *pd, unsigned int off, uint16_t *v, bool wr)
{
	ssize_t n = wr ? pwrite(pd->cfg_fd, v, 2, pd->cfg_off + off) :
			 pread(pd->cfg_fd, v, 2, pd->cfg_off + off);

	return n == 2 ? 0 : -EIO;
}

/* VFIO: one 8-byte eventfd count; vfio-pci masked INTx, unmask it. */
static int
rsh_pci_irq_vfio(struct rsh_pci_dev *pd)
{
	uint64_t cnt;

	if (read(pd->irq_fd, &cnt, sizeof(cnt)) != sizeof(cnt))
		return 0;
	rsh_vfio_irq_unmask(pd);
	return 1;
}

/* UIO: a 4-byte event count; uio_pci_generic set INTX_DISABLE, clear it. */
static int
rsh_pci_irq_uio(struct rsh_pci_dev *pd)
{
	struct pollfd pfd = { .fd = pd->uio_fd, .events = POLLIN };
	uint32_t cnt;
	uint16_t cmd;

	if (poll(&pfd, 1, 0) != 1 || read(pd->uio_fd, &cnt, sizeof(cnt)) != sizeof(cnt))
		return 0;
	if (pd->cfg_fd >= 0 && rsh_pci_cfg16(pd, RSH_PCI_COMMAND_OFF, &cmd, false) == 0) {
		cmd &= ~RSH_PCI_COMMAND_INTX_DISABLE;
		(void)rsh_pci_cfg16(pd, RSH_PCI_COMMAND_OFF, &cmd, true);
	}
	return 1;
}

/* Direct: no interrupt is delivered; PCI_STATUS says whether INTx is set. */
static int
rsh_pci_irq_direct(struct rsh_pci_dev *pd)
{
	uint16_t st;

	if (pd->cfg_fd < 0 || rsh_pci_cfg16(pd, RSH_PCI_STATUS_OFF, &st, false) < 0)
		return -ENOTSUP;
	return (st & RSH_PCI_STATUS_INTX) ? 1 : 0;
}

/* ops.irq_poll: 1 an interrupt arrived (re-armed), 0 none, -ENOTSUP. */
int
rsh_pci_irq_poll(struct rsh_backend *be)
{
	struct rsh_pci_dev *pd = (struct rsh_pci_dev *)be;

	switch (pd->mapping) {
	case RSH_PCI_MAP_VFIO:
		return pd->irq_fd >= 0 ? rsh_pci_irq_vfio(pd) : -ENOTSUP;
	case RSH_PCI_MAP_UIO:
		return pd->uio_fd >= 0 ? rsh_pci_irq_uio(pd) : -ENOTSUP;
	case RSH_PCI_MAP_DIRECT:
		return rsh_pci_irq_direct(pd);
	default:
		return -ENOTSUP;
	}
}
