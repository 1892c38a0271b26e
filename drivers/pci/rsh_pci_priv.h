/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/pci private: the PCI device object shared by discovery
 * (rsh_pci_scan.c), the sysfs helpers (rsh_pci_sysfs.c) and the three
 * mapping modes (rsh_vfio.c, rsh_uio.c, rsh_direct.c).
 *
 * Facts: hardware-notes §1.1 (IDs), §1.2 (BAR0),
 * §1.8 (PCI_COMMAND), §2 (mapping modes).
 */
#ifndef RSH_PCI_PRIV_H
#define RSH_PCI_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rsh_backend.h"
#include "rsh_pci_ids.h"
#include "rsh_pci_log.h"

#define RSH_PCI_VENDOR RSH_PCI_VENDOR_ID /* §1.1, rsh_pci_ids.h */
#define RSH_PCI_BDF_LEN 13          /* "dddd:bb:dd.f" + NUL */
#define RSH_PCI_CMD_OFF 0x04        /* PCI_COMMAND, §1.8 */
#define RSH_PCI_CMD_MEMORY 0x0002u
#define RSH_PCI_CMD_MASTER 0x0004u
#define RSH_PCI_REV_OFF 0x08        /* PCI_REVISION_ID, §1.1 */
#define RSH_PCI_DRV_VFIO "vfio-pci"
#define RSH_PCI_DRV_UIO "uio_pci_generic"
#define RSH_PCI_DRV_FAKE "rshim"    /* driver_override of direct mode, §2.2 */

/* How BAR0 is mapped; the order is the fallback order of §2.6. */
enum rsh_pci_mapping {
	RSH_PCI_MAP_VFIO = 0,
	RSH_PCI_MAP_UIO,
	RSH_PCI_MAP_DIRECT,
	RSH_PCI_MAP_COUNT,
};

/*
 * One opened rshim PCI function. Written by probe (control path); the
 * MMIO fields (bar, posted) then by whichever single thread does MMIO.
 */
struct rsh_pci_dev {
	struct rsh_backend be;          /* first: the core sees only this */
	char root[PATH_MAX];            /* stands for /sys */
	char dir[PATH_MAX];             /* <root>/bus/pci/devices/<bdf> */
	char kdrv[64];                  /* bound kernel driver, "" = none */
	uint16_t device_id;
	enum rsh_pci_mapping mapping;
	uint8_t *bar;                   /* mapped BAR0, NULL until mapped */
	size_t bar_len;                 /* mapped length: the bounds */
	uint64_t min_bar;               /* smallest BAR0 accepted, §1.2 */
	uint32_t drain_off;             /* harmless register for BF1 drain */
	unsigned int posted;            /* BF1: posted writes since a read */
	bool oob_logged;                /* out-of-range access reported */
	bool override_set;              /* direct: driver_override written */
	bool noiommu;                   /* VFIO group is noiommu-N */
	bool livefish;                  /* 0211/0214/021c: config space only */
	bool cfg_err_logged;            /* a failed config access reported */
	int res_fd;                     /* direct/UIO: resource0 */
	int uio_fd;                     /* UIO: /dev/uioN (INTx), or -1 */
	int container_fd;               /* VFIO */
	int group_fd;                   /* VFIO (owned by rte_vfio) */
	int group_num;                  /* VFIO */
	int dev_fd;                     /* VFIO device fd */
	int irq_fd;                     /* VFIO INTx eventfd, or -1 */
	off_t cfg_off;                  /* config space offset in cfg fd */
	int cfg_fd;                     /* fd config space is read through */
};

/* Device directories of tests and VMs: /dev/vfio and /dev (for uioN). */
extern const char *rsh_pci_vfio_dir;
extern const char *rsh_pci_dev_dir;

/* rsh_pci_args.c: the devargs of a PCI device string. */
struct rsh_pci_args {
	int mapping;    /* enum rsh_pci_mapping, -1: VFIO -> UIO -> direct */
	bool force_id;  /* accept IDs that are not an rshim function's */
};
/* "<address>[,key=value,...]": the canonical address of the address
 * part into bdf. @return 0, or -EINVAL (no message). */
int rsh_pci_devstr_addr(const char *devstr, char bdf[RSH_PCI_BDF_LEN]);
/* The devargs after the address into args (defaults without any).
 * @return 0, or -EINVAL with a message naming the key and the valid
 * ones (unknown key, bad value, a key given twice). */
int rsh_pci_args_parse(const char *devstr, struct rsh_pci_args *args);

/* rsh_pci_sysfs.c */
/* snprintf that may truncate (paths under PATH_MAX, message fields);
 * @return the snprintf result. */
int rsh_pci_fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rsh_pci_addr_parse(const char *devstr, char bdf[RSH_PCI_BDF_LEN]);
const char *rsh_pci_root(const struct rsh_open_opts *opts);
int rsh_pci_read_str(const char *dir, const char *file, char *buf,
		     size_t len);
int rsh_pci_read_ulong(const char *dir, const char *file,
		       unsigned long *val);
int rsh_pci_write_str(const char *dir, const char *file, const char *val);
int rsh_pci_link_base(const char *dir, const char *link, char *buf,
		      size_t len);
int rsh_pci_res0_size(const char *dir, uint64_t *size);
bool rsh_pci_lockdown(const char *root, char *mode, size_t len);
int rsh_pci_cmd_enable(int fd, off_t cfg_off, const char *name);
void rsh_pci_group_peers(const char *root, int group, const char *self,
			 char *buf, size_t len);

/* rsh_pci_scan.c */
enum rsh_gen rsh_pci_id_gen(uint16_t device_id, bool *livefish);
uint64_t rsh_pci_min_bar(enum rsh_gen gen);
int rsh_pci_check_bar(struct rsh_pci_dev *pd, uint64_t size);

/* rsh_pci_lf.c: a livefish function is served through config space
 * only (the core stacks the gateway of rsh_lf.c on it). */
extern const struct rsh_backend_ops rsh_pci_cfg_ops;
/* UIO/direct: open <dir>/config read-write (VFIO uses its region). */
int rsh_pci_cfg_open(struct rsh_pci_dev *pd);

/* The mapping modes: map BAR0 into pd->bar / pd->bar_len, or fail with
 * a one-line message (rsh_err_set) and a negative errno, leaving nothing
 * open. unmap releases everything map acquired. */
int rsh_vfio_map(struct rsh_pci_dev *pd);
void rsh_vfio_unmap(struct rsh_pci_dev *pd);
/* Re-enable INTx after an eventfd event (vfio-pci masks it, §2.5 step 7). */
void rsh_vfio_irq_unmask(struct rsh_pci_dev *pd);
/* rsh_pci_irq.c: ops.irq_poll. */
int rsh_pci_irq_poll(struct rsh_backend *be);
int rsh_uio_map(struct rsh_pci_dev *pd);
void rsh_uio_unmap(struct rsh_pci_dev *pd);
int rsh_direct_map(struct rsh_pci_dev *pd);
void rsh_direct_unmap(struct rsh_pci_dev *pd);
/* Shared by UIO and direct: mmap <dir>/resource0 and enable decoding. */
int rsh_direct_map_res0(struct rsh_pci_dev *pd);
void rsh_direct_unmap_res0(struct rsh_pci_dev *pd);

#endif /* RSH_PCI_PRIV_H */
