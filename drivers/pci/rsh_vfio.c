/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VFIO mapping through DPDK's public rte_vfio_* container/group calls plus
 * the device-fd ioctls: region info of BAR0 and of the config region (the
 * config offset is queried, not the vfio-pci "index << 40" convention),
 * mmap of BAR0, MEMORY|MASTER in PCI_COMMAND, INTx eventfd. Each step that
 * can fail says what is wrong and what to run.
 *
 * Facts: hardware-notes §2.1 (VFIO prerequisites),
 * §2.5 (ioctl sequence; teardown with count = 0, step 8), §1.2, §1.8.
 * The EAL must be initialised first (rte_vfio keeps the container table).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/vfio.h>
#include <rte_vfio.h>

#define RSH_LOGTYPE rsh_logtype_vfio
#include "rsh_log.h"
#include "rsh_pci_priv.h"

const char *rsh_pci_vfio_dir = "/dev/vfio";

/* Driver, /dev/vfio and the IOMMU group exist (§2.1); noiommu noted. */
static int
rsh_vfio_precheck(struct rsh_pci_dev *pd)
{
	char grp[32], par[PATH_MAX], yn[8] = "";
	struct stat st;

	if (strcmp(pd->kdrv, RSH_PCI_DRV_VFIO) != 0) {
		rsh_err_set("%s: %s%s; run: rshim-devbind.py -b vfio-pci %s",
			    pd->be.name, pd->kdrv[0] ? "bound to " :
			    "not bound to any driver", pd->kdrv, pd->be.name);
		return pd->kdrv[0] ? -EBUSY : -ENODEV;
	}
	if (stat(rsh_pci_vfio_dir, &st) < 0) {
		rsh_err_set("%s: vfio-pci not loaded (no %s); run: modprobe "
			    "vfio-pci", pd->be.name, rsh_pci_vfio_dir);
		return -ENODEV;
	}
	rsh_pci_fmt(par, sizeof(par), "%s/module/vfio/parameters", pd->root);
	rsh_pci_read_str(par, "enable_unsafe_noiommu_mode", yn, sizeof(yn));
	pd->noiommu = yn[0] == 'Y' || yn[0] == '1';
	if (rsh_pci_link_base(pd->dir, "iommu_group", grp, sizeof(grp)) < 0 ||
	    sscanf(grp, "%d", &pd->group_num) != 1) {
		rsh_err_set("%s: no IOMMU group (IOMMU off); boot with "
			    "intel_iommu=on iommu=pt (AMD: amd_iommu=on), or in "
			    "a VM without vIOMMU: modprobe vfio "
			    "enable_unsafe_noiommu_mode=1", pd->be.name);
		return -ENODEV;
	}
	return 0;
}

/* The group node exists and we may open it (names node and owner). */
static int
rsh_vfio_node_check(struct rsh_pci_dev *pd)
{
	char node[PATH_MAX];
	struct passwd *pw;
	struct stat st;

	rsh_pci_fmt(node, sizeof(node), "%s/%s%d", rsh_pci_vfio_dir,
		 pd->noiommu ? "noiommu-" : "", pd->group_num);
	if (stat(node, &st) < 0) {
		rsh_err_set("%s: %s missing: vfio-pci did not create the group"
			    " node; run: modprobe vfio-pci and rebind with "
			    "rshim-devbind.py -b vfio-pci %s", pd->be.name, node,
			    pd->be.name);
		return -ENODEV;
	}
	if (access(node, R_OK | W_OK) == 0)
		return 0;
	pw = getpwuid(st.st_uid);
	rsh_err_set("%s: permission denied on %s (owner %s, mode %04o); run "
		    "as root or: chown $USER %s", pd->be.name, node,
		    pw != NULL ? pw->pw_name : "?", st.st_mode & 07777, node);
	return -EACCES;
}

/* Create a container; check API version and the IOMMU type (§2.5.1). */
static int
rsh_vfio_container(struct rsh_pci_dev *pd, int *iommu_type)
{
	int ver;

	pd->container_fd = rte_vfio_container_create();
	if (pd->container_fd < 0) {
		rsh_err_set("%s: cannot open a VFIO container (%s/vfio); run: "
			    "modprobe vfio-pci (and do not start the EAL with "
			    "--no-pci)", pd->be.name, rsh_pci_vfio_dir);
		return -ENODEV;
	}
	ver = ioctl(pd->container_fd, VFIO_GET_API_VERSION);
	if (ver != VFIO_API_VERSION) {
		rsh_err_set("%s: VFIO API version %d, expected %d: kernel and "
			    "DPDK do not match", pd->be.name, ver,
			    VFIO_API_VERSION);
		return -ENOTSUP;
	}
	*iommu_type = pd->noiommu ? VFIO_NOIOMMU_IOMMU : VFIO_TYPE1_IOMMU;
	if (ioctl(pd->container_fd, VFIO_CHECK_EXTENSION, *iommu_type) <= 0) {
		rsh_err_set("%s: VFIO container lacks the %s IOMMU type; boot "
			    "with intel_iommu=on (AMD: amd_iommu=on), or in a VM"
			    " without vIOMMU: modprobe vfio "
			    "enable_unsafe_noiommu_mode=1", pd->be.name,
			    pd->noiommu ? "noiommu" : "Type1");
		return -ENODEV;
	}
	return 0;
}

/* Open the group; it must be viable; attach it to the container (§2.5.3). */
static int
rsh_vfio_group(struct rsh_pci_dev *pd, int iommu_type)
{
	struct vfio_group_status gs = { .argsz = sizeof(gs) };
	char peers[160];

	pd->group_fd = rte_vfio_container_group_bind(pd->container_fd,
						     pd->group_num);
	if (pd->group_fd < 0) {
		rsh_err_set("%s: cannot open VFIO group %d; is it used by "
			    "another process?", pd->be.name, pd->group_num);
		return -EBUSY;
	}
	if (ioctl(pd->group_fd, VFIO_GROUP_GET_STATUS, &gs) < 0 ||
	    !(gs.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		rsh_pci_group_peers(pd->root, pd->group_num, pd->be.name,
				    peers, sizeof(peers));
		rsh_err_set("%s: IOMMU group %d not viable; other devices in "
			    "it: %s; bind them to vfio-pci too", pd->be.name,
			    pd->group_num, peers[0] ? peers : "(unknown)");
		return -EBUSY;
	}
	if (gs.flags & VFIO_GROUP_FLAGS_CONTAINER_SET)
		return 0;
	if (ioctl(pd->group_fd, VFIO_GROUP_SET_CONTAINER,
		  &pd->container_fd) < 0 ||
	    ioctl(pd->container_fd, VFIO_SET_IOMMU, iommu_type) < 0) {
		rsh_err_set("%s: cannot attach VFIO group %d to a container: "
			    "%s", pd->be.name, pd->group_num, strerror(errno));
		return -EIO;
	}
	return 0;
}

/* Device fd and its regions (§2.5.4-5). */
static int
rsh_vfio_device(struct rsh_pci_dev *pd)
{
	struct vfio_device_info di = { .argsz = sizeof(di) };

	pd->dev_fd = ioctl(pd->group_fd, VFIO_GROUP_GET_DEVICE_FD,
			   pd->be.name);
	if (pd->dev_fd < 0) {
		rsh_err_set("%s: cannot get the VFIO device fd: %s; is it used "
			    "by another process?", pd->be.name, strerror(errno));
		pd->dev_fd = -1;
		return -EBUSY;
	}
	if (ioctl(pd->dev_fd, VFIO_DEVICE_GET_INFO, &di) < 0 ||
	    di.num_regions <= VFIO_PCI_CONFIG_REGION_INDEX) {
		rsh_err_set("%s: VFIO device info has %u regions, need BAR0 "
			    "and config", pd->be.name, di.num_regions);
		return -EIO;
	}
	return 0;
}

/* Region info of one index. */
static int
rsh_vfio_region(struct rsh_pci_dev *pd, unsigned int index,
		struct vfio_region_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->argsz = sizeof(*ri);
	ri->index = index;
	if (ioctl(pd->dev_fd, VFIO_DEVICE_GET_REGION_INFO, ri) < 0) {
		rsh_err_set("%s: VFIO region %u info failed: %s", pd->be.name,
			    index, strerror(errno));
		return -EIO;
	}
	return 0;
}

/* mmap BAR0 at the offset the kernel gives (§1.2, §2.5.5). */
static int
rsh_vfio_bar(struct rsh_pci_dev *pd)
{
	struct vfio_region_info ri;
	void *p;
	int rc;

	rc = rsh_vfio_region(pd, VFIO_PCI_BAR0_REGION_INDEX, &ri);
	if (rc < 0)
		return rc;
	if (!(ri.flags & VFIO_REGION_INFO_FLAG_MMAP)) {
		rsh_err_set("%s: VFIO BAR0 is not mmap-able (no MMAP flag); "
			    "use --mapping uio or direct", pd->be.name);
		return -ENOTSUP;
	}
	rc = rsh_pci_check_bar(pd, ri.size);
	if (rc < 0)
		return rc;
	p = mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, pd->dev_fd,
		 ri.offset);
	if (p == MAP_FAILED) {
		rc = -errno;
		rsh_err_set("%s: mmap of VFIO BAR0 (0x%" PRIx64 " bytes) "
			    "failed: %s", pd->be.name, (uint64_t)ri.size,
			    strerror(-rc));
		return rc;
	}
	pd->bar = p;
	pd->bar_len = ri.size;
	return 0;
}

/* Config region: queried offset; MEMORY|MASTER; revision (§1.8, §1.1). */
static int
rsh_vfio_config(struct rsh_pci_dev *pd)
{
	struct vfio_region_info ri;
	uint8_t rev;
	int rc;

	rc = rsh_vfio_region(pd, VFIO_PCI_CONFIG_REGION_INDEX, &ri);
	if (rc < 0)
		return rc;
	pd->cfg_off = ri.offset;
	rc = rsh_pci_cmd_enable(pd->dev_fd, pd->cfg_off, pd->be.name);
	if (rc < 0)
		return rc;
	if (pread(pd->dev_fd, &rev, 1, pd->cfg_off + RSH_PCI_REV_OFF) == 1)
		pd->be.revision = rev;
	return 0;
}

/* SET_IRQS on the INTx index with an optional eventfd. */
static int
rsh_vfio_irq_set(struct rsh_pci_dev *pd, uint32_t flags, uint32_t count,
		 int efd)
{
	char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	struct vfio_irq_set *s = (struct vfio_irq_set *)buf;
	int32_t fd = efd;

	memset(buf, 0, sizeof(buf));
	s->argsz = sizeof(buf);
	s->flags = flags;
	s->index = VFIO_PCI_INTX_IRQ_INDEX;
	s->start = 0;
	s->count = count;
	memcpy(s->data, &fd, sizeof(fd));
	return ioctl(pd->dev_fd, VFIO_DEVICE_SET_IRQS, s);
}

/* INTx through an eventfd for the SCRATCHPAD6 handshake (§2.5.7);
 * optional: without it SP6 events are polled. */
static void
rsh_vfio_irq_on(struct rsh_pci_dev *pd)
{
	struct vfio_irq_info ii = { .argsz = sizeof(ii),
				    .index = VFIO_PCI_INTX_IRQ_INDEX };

	if (ioctl(pd->dev_fd, VFIO_DEVICE_GET_IRQ_INFO, &ii) < 0 ||
	    !(ii.flags & VFIO_IRQ_INFO_EVENTFD) || ii.count == 0)
		goto none;
	pd->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pd->irq_fd < 0)
		goto none;
	if (rsh_vfio_irq_set(pd, VFIO_IRQ_SET_DATA_EVENTFD |
			     VFIO_IRQ_SET_ACTION_TRIGGER, 1, pd->irq_fd) < 0 ||
	    rsh_vfio_irq_set(pd, VFIO_IRQ_SET_DATA_NONE |
			     VFIO_IRQ_SET_ACTION_UNMASK, 1, -1) < 0) {
		close(pd->irq_fd);
		pd->irq_fd = -1;
		goto none;
	}
	return;
none:
	RSH_DEV_LOG(INFO, &pd->be, "no VFIO INTx eventfd: SCRATCHPAD6 reset "
		    "events will be polled");
}

/* Re-enable INTx after an event: vfio-pci auto-masks level INTx. */
void
rsh_vfio_irq_unmask(struct rsh_pci_dev *pd)
{
	(void)rsh_vfio_irq_set(pd, VFIO_IRQ_SET_DATA_NONE |
			       VFIO_IRQ_SET_ACTION_UNMASK, 1, -1);
}

/* Tear INTx down with count = 0: DATA_NONE|ACTION_TRIGGER with count 1
 * would be a loopback trigger, not a disable (§2.5 step 8, inferred). */
static void
rsh_vfio_irq_off(struct rsh_pci_dev *pd)
{
	if (pd->irq_fd < 0)
		return;
	(void)rsh_vfio_irq_set(pd, VFIO_IRQ_SET_DATA_NONE |
			       VFIO_IRQ_SET_ACTION_TRIGGER, 0, -1);
	close(pd->irq_fd);
	pd->irq_fd = -1;
}

/* VFIO mode, §2.5 steps 1-7 (no DMA mapping, step 9). */
int
rsh_vfio_map(struct rsh_pci_dev *pd)
{
	int rc, type = VFIO_TYPE1_IOMMU;

	rc = rsh_vfio_precheck(pd);
	if (rc == 0)
		rc = rsh_vfio_node_check(pd);
	if (rc < 0)
		return rc;
	if (pd->noiommu)
		RSH_DEV_LOG(NOTICE, &pd->be, "VFIO noiommu mode (group "
			    "noiommu-%d): no IOMMU isolation; acceptable as "
			    "the rshim function does no DMA", pd->group_num);
	rc = rsh_vfio_container(pd, &type);
	if (rc == 0)
		rc = rsh_vfio_group(pd, type);
	if (rc == 0)
		rc = rsh_vfio_device(pd);
	if (rc == 0 && !pd->livefish) /* livefish: no usable BAR, §1.7 */
		rc = rsh_vfio_bar(pd);
	if (rc == 0)
		rc = rsh_vfio_config(pd);
	if (rc < 0)
		goto err;
	if (!pd->livefish) /* the reference's livefish path has no IRQ */
		rsh_vfio_irq_on(pd);
	return 0;
err:
	rsh_vfio_unmap(pd);
	return rc;
}

/* Undo rsh_vfio_map in reverse order; safe on a partial map. */
void
rsh_vfio_unmap(struct rsh_pci_dev *pd)
{
	if (pd->dev_fd >= 0)
		rsh_vfio_irq_off(pd);
	if (pd->bar != NULL)
		munmap(pd->bar, pd->bar_len);
	pd->bar = NULL;
	pd->bar_len = 0;
	if (pd->dev_fd >= 0)
		close(pd->dev_fd);
	pd->dev_fd = -1;
	if (pd->group_fd >= 0)
		rte_vfio_container_group_unbind(pd->container_fd,
						pd->group_num);
	pd->group_fd = -1;
	if (pd->container_fd >= 0)
		rte_vfio_container_destroy(pd->container_fd);
	pd->container_fd = -1;
}
