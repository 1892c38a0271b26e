/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fake sysfs trees for the PCI backend tests: a temp dir standing for /sys
 * with bus/pci/devices/<bdf> (vendor, device, class, revision, irq,
 * numa_node, resource, sparse resource0, config, driver_override, enable,
 * link speed/width), driver and iommu_group links, kernel/iommu_groups.
 */
#ifndef RSH_FAKE_SYSFS_H
#define RSH_FAKE_SYSFS_H

#include <limits.h>
#include <stdint.h>

/* One fake PCI function. */
struct rsh_fake_fn {
	const char *bdf;        /* "0000:03:00.2" */
	uint16_t vendor, device;
	uint8_t revision;
	uint64_t bar_size;      /* resource0 length (sparse) */
	const char *driver;     /* NULL = unbound */
	int group;              /* -1 = no iommu_group link */
	const char *cur_speed, *max_speed; /* NULL = "8.0 GT/s PCIe" */
	unsigned int cur_width, max_width; /* 0 = 16 */
};

/* Create the root (mkdtemp under /tmp) into root[PATH_MAX]. */
int rsh_fake_root_new(char *root);
/* Add one function. */
int rsh_fake_fn_add(const char *root, const struct rsh_fake_fn *fn);
/* Write a file under root (creating its directory). */
int rsh_fake_write(const char *root, const char *rel, const char *text);
/* Read 8 bytes at off of <root>/bus/pci/devices/<bdf>/<file>. */
uint64_t rsh_fake_read64(const char *root, const char *bdf, const char *file,
			 uint64_t off);
/* Write 8 bytes at off of that file. */
void rsh_fake_write64(const char *root, const char *bdf, const char *file,
		      uint64_t off, uint64_t v);
/* Remove the tree. */
void rsh_fake_root_free(const char *root);
/* Number of open file descriptors of this process. */
int rsh_fake_open_fds(void);

#endif /* RSH_FAKE_SYSFS_H */
