/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "pci" backend driver: device-string match, probe (identity checks,
 * then VFIO -> UIO -> direct as hardware-notes §2.6),
 * the MMIO ops table, and discovery with libpci.
 *
 * Facts: hardware-notes §1.1 (IDs), §1.2 (BAR0 sizes),
 * §1.9 (BF1 drain), §2.1 (mode selection), §2.6 (fallback).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/pci.h>
#include <rte_common.h>

#define RSH_LOGTYPE rsh_logtype_vfio
#include "rsh_log.h"
#include "rsh_pci_mmio.h"
#include "rsh_pci_ids.h"
#include "rsh_pci_priv.h"
#include "rsh_lf.h"

/* The table's generations are enum rsh_gen's values. */
_Static_assert(RSH_GEN_BF1 == 1 && RSH_GEN_BF2 == 2 && RSH_GEN_BF3 == 3,
	       "rsh_pci_id_table generations");

/* Generation of an rshim device ID (RSH_GEN_NONE if not one), from the
 * one ID table (rsh_pci_ids.h, §1.1). */
enum rsh_gen
rsh_pci_id_gen(uint16_t device_id, bool *livefish)
{
	const struct rsh_pci_id_ent *e = rsh_pci_id_find(device_id);

	*livefish = e != NULL && e->kind == RSH_PCI_KIND_LIVEFISH;
	if (e == NULL || e->kind == RSH_PCI_KIND_NIC_PF)
		return RSH_GEN_NONE;
	return (enum rsh_gen)e->gen;
}

/* Smallest BAR0 a generation needs, §1.2. */
uint64_t
rsh_pci_min_bar(enum rsh_gen gen)
{
	return rsh_backend_bar_size(gen == RSH_GEN_BF3 ? RSH_GEN_BF3 : RSH_GEN_BF2);
}

/* ops: one register read. */
static uint64_t
rsh_pci_read64(struct rsh_backend *be, uint32_t off)
{
	return rsh_pci_rd((struct rsh_pci_dev *)be, off);
}

/* ops: one register write. */
static void
rsh_pci_write64(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	rsh_pci_wr((struct rsh_pci_dev *)be, off, v);
}

/* ops: one 32-bit register read (4-aligned; the BF3 YU OPN words). */
static uint32_t
rsh_pci_read32(struct rsh_backend *be, uint32_t off)
{
	return rsh_pci_rd32((struct rsh_pci_dev *)be, off);
}

/* ops: one 32-bit register write. */
static void
rsh_pci_write32(struct rsh_backend *be, uint32_t off, uint32_t v)
{
	rsh_pci_wr32((struct rsh_pci_dev *)be, off, v);
}

/* ops: n posted writes to one FIFO data register. One rte_io_wmb() first
 * orders the whole burst after the caller's earlier stores (the words and
 * the status read that granted the credit); inside the burst writes to one
 * device register stay in program order, so relaxed writes suffice. */
static void
rsh_pci_write_fifo(struct rsh_backend *be, uint32_t off, const uint64_t *w,
		   unsigned int n)
{
	struct rsh_pci_dev *pd = (struct rsh_pci_dev *)be;
	unsigned int i;

	if (n == 0 || !rsh_pci_in_bar(pd, off))
		return;
	rte_io_wmb();
	for (i = 0; i < n; i++) {
		rte_write64_relaxed(w[i], pd->bar + off);
		rsh_pci_bf1_drain(pd);
	}
	rsh_backend_count(&pd->be.stats.writes, n);
}

/* ops: n pops of one FIFO data register. Relaxed reads inside the burst;
 * one rte_io_rmb() after it so no later load of the caller is ordered
 * before the popped words arrived. */
static void
rsh_pci_read_fifo(struct rsh_backend *be, uint32_t off, uint64_t *w,
		  unsigned int n)
{
	struct rsh_pci_dev *pd = (struct rsh_pci_dev *)be;
	unsigned int i;

	if (!rsh_pci_in_bar(pd, off)) {
		for (i = 0; i < n; i++)
			w[i] = UINT64_MAX;
		return;
	}
	for (i = 0; i < n; i++)
		w[i] = rte_read64_relaxed(pd->bar + off);
	rte_io_rmb();
	rsh_backend_count(&pd->be.stats.reads, n);
	pd->posted = 0;
}

/* The unmap function of each mapping mode. */
static void (*const rsh_pci_unmap_fn[RSH_PCI_MAP_COUNT])
	(struct rsh_pci_dev *) = {
	[RSH_PCI_MAP_VFIO] = rsh_vfio_unmap,
	[RSH_PCI_MAP_UIO] = rsh_uio_unmap,
	[RSH_PCI_MAP_DIRECT] = rsh_direct_unmap,
};

/* ops: unmap and free. */
static void
rsh_pci_close(struct rsh_backend *be)
{
	struct rsh_pci_dev *pd = (struct rsh_pci_dev *)be;

	if (pd == NULL)
		return;
	rsh_pci_unmap_fn[pd->mapping](pd);
	free(pd);
}

static const struct rsh_backend_ops rsh_pci_ops = {
	.read64 = rsh_pci_read64,
	.write64 = rsh_pci_write64,
	.read32 = rsh_pci_read32,
	.write32 = rsh_pci_write32,
	.write_fifo = rsh_pci_write_fifo,
	.read_fifo = rsh_pci_read_fifo,
	.close = rsh_pci_close,
	.irq_poll = rsh_pci_irq_poll,
};

static struct rsh_backend_driver rsh_pci_driver;

/* match: any PCI address form, with or without devargs (they are
 * checked by probe and host_key, which can name a bad one). */
static int
rsh_pci_match(const char *devstr)
{
	char bdf[RSH_PCI_BDF_LEN];

	return rsh_pci_devstr_addr(devstr, bdf) == 0;
}

/* Check vendor/device (§1.1) and fill gen; force-id=1 accepts others. */
static int
rsh_pci_check_id(struct rsh_pci_dev *pd, const struct rsh_pci_args *args)
{
	unsigned long ven = 0, dev = 0;
	uint64_t sz = 0;
	bool lf;

	if (rsh_pci_read_ulong(pd->dir, "vendor", &ven) < 0 ||
	    rsh_pci_read_ulong(pd->dir, "device", &dev) < 0) {
		rsh_err_set("%s: cannot read vendor/device in %s; device gone? "
			    "(check lspci)", pd->be.name, pd->dir);
		return -ENODEV;
	}
	pd->device_id = (uint16_t)dev;
	pd->be.gen = ven == RSH_PCI_VENDOR ? rsh_pci_id_gen(dev, &lf) :
					     RSH_GEN_NONE;
	/* Livefish (no NIC firmware): served through config space, §1.7. */
	pd->livefish = pd->be.gen != RSH_GEN_NONE && lf;
	if (pd->be.gen != RSH_GEN_NONE)
		return 0;
	if (!args->force_id) {
		rsh_err_set("%s: not an rshim function (vendor 0x%04lx device "
			    "0x%04lx); pick the BlueField rshim function "
			    "(rshim-pmd-app --list) or add force-id=1 "
			    "(rshim-pmd-app --force-id) to override", pd->be.name, ven, dev);
		return -ENODEV;
	}
	/* Forced: guess the generation from the BAR size, §1.2. */
	rsh_pci_res0_size(pd->dir, &sz);
	pd->be.gen = sz >= rsh_backend_bar_size(RSH_GEN_BF3) ? RSH_GEN_BF3 : RSH_GEN_BF2;
	RSH_DEV_LOG(WARNING, &pd->be, "force-id: IDs %04lx:%04lx treated "
		    "as %s", ven, dev, rsh_gen_name(pd->be.gen));
	return 0;
}

/* Revision from config offset 8 (§1.1), else the "revision" file. */
static void
rsh_pci_read_rev(struct rsh_pci_dev *pd)
{
	char path[PATH_MAX];
	unsigned long rev = 0;
	uint8_t b;
	int fd;

	rsh_pci_fmt(path, sizeof(path), "%s/config", pd->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &b, 1, RSH_PCI_REV_OFF) == 1) {
		pd->be.revision = b;
	} else if (rsh_pci_read_ulong(pd->dir, "revision", &rev) == 0) {
		pd->be.revision = (uint8_t)rev;
	}
	if (fd >= 0)
		close(fd);
}

/* Refuse a BAR0 below the generation's size, §1.2. */
int
rsh_pci_check_bar(struct rsh_pci_dev *pd, uint64_t size)
{
	if (size >= pd->min_bar)
		return 0;
	rsh_err_set("%s: BAR0 is %" PRIu64 " KiB but %s needs %" PRIu64
		    " KiB; this is not the rshim function (try the .1/.2 "
		    "function of the DPU, see rshim-pmd-app --list)",
		    pd->be.name, size >> 10, rsh_gen_name(pd->be.gen),
		    pd->min_bar >> 10);
	return -ENODEV;
}

/* Create the device object and run the identity checks. */
static int
rsh_pci_dev_new(const char *bdf, const struct rsh_open_opts *opts,
		const struct rsh_pci_args *args, struct rsh_pci_dev **out)
{
	struct rsh_pci_dev *pd;
	struct stat st;
	uint64_t sz = 0;
	int rc;

	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return -ENOMEM;
	pd->res_fd = pd->uio_fd = pd->container_fd = pd->group_fd = -1;
	pd->dev_fd = pd->irq_fd = pd->cfg_fd = -1;
	pd->be.ops = &rsh_pci_ops;
	pd->be.drv = &rsh_pci_driver;
	rsh_pci_fmt(pd->be.name, sizeof(pd->be.name), "%s", bdf);
	rsh_pci_fmt(pd->root, sizeof(pd->root), "%s", rsh_pci_root(opts));
	rsh_pci_fmt(pd->dir, sizeof(pd->dir), "%s/bus/pci/devices/%s",
		 pd->root, bdf);
	rc = -ENODEV;
	if (stat(pd->dir, &st) < 0) {
		rsh_err_set("%s: no such PCI address (not in %s/bus/pci/"
			    "devices); list rshim functions with "
			    "rshim-pmd-app --list or lspci -d 15b3:", bdf,
			    pd->root);
		goto err;
	}
	rc = rsh_pci_check_id(pd, args);
	if (rc < 0)
		goto err;
	rsh_pci_read_rev(pd);
	pd->min_bar = rsh_pci_min_bar(pd->be.gen);
	if (!pd->livefish && rsh_pci_res0_size(pd->dir, &sz) == 0) {
		rc = rsh_pci_check_bar(pd, sz);
		if (rc < 0)
			goto err;
	}
	if (rsh_backend_reg_off(pd->be.gen, RSH_FABRIC_DIM, &pd->drain_off) < 0)
		pd->drain_off = 0;
	if (rsh_pci_link_base(pd->dir, "driver", pd->kdrv,
			      sizeof(pd->kdrv)) < 0)
		pd->kdrv[0] = '\0';
	*out = pd;
	return 0;
err:
	free(pd);
	return rc;
}

static const char *const rsh_pci_map_names[RSH_PCI_MAP_COUNT] = {
	"vfio", "uio", "direct",
};

static int (*const rsh_pci_map_fn[RSH_PCI_MAP_COUNT])(struct rsh_pci_dev *) = {
	rsh_vfio_map, rsh_uio_map, rsh_direct_map,
};

/* Bound to a driver no mapping mode can use: name it and the fix, §3. */
static bool
rsh_pci_foreign_driver(struct rsh_pci_dev *pd)
{
	if (pd->kdrv[0] == '\0' || strcmp(pd->kdrv, RSH_PCI_DRV_VFIO) == 0 ||
	    strcmp(pd->kdrv, RSH_PCI_DRV_UIO) == 0)
		return false;
	rsh_err_set("%s: bound to %s; run: rshim-devbind.py -b vfio-pci %s",
		    pd->be.name, pd->kdrv, pd->be.name);
	return true;
}

/* Map with the forced mode (mapping >= 0), or VFIO -> UIO -> direct
 * (§2.6). The first failure's message is kept: it names the fix for the
 * preferred mode. */
static int
rsh_pci_map_any(struct rsh_pci_dev *pd, int mapping)
{
	char first[256] = "";
	int i, rc, rc0 = 0;

	for (i = 0; i < RSH_PCI_MAP_COUNT; i++) {
		if (mapping >= 0 && mapping != i)
			continue;
		pd->mapping = i;
		rc = rsh_pci_map_fn[i](pd);
		if (rc == 0) {
			if (first[0] != '\0')
				RSH_DEV_LOG(NOTICE, &pd->be, "using %s mapping;"
					    " VFIO not used: %s",
					    rsh_pci_map_names[i], first);
			return 0;
		}
		if (first[0] == '\0') {
			rsh_pci_fmt(first, sizeof(first), "%s", rsh_last_error());
			rc0 = rc;
		}
		RSH_DEV_LOG(DEBUG, &pd->be, "%s: %s", rsh_pci_map_names[i],
			    rsh_last_error());
	}
	rsh_err_set("%s", first);
	return rc0;
}

/* probe: open and map one rshim function. */
static int
rsh_pci_probe(const char *devstr, const struct rsh_open_opts *opts,
	      struct rsh_backend **out)
{
	char bdf[RSH_PCI_BDF_LEN];
	struct rsh_pci_args args;
	struct rsh_pci_dev *pd;
	int rc;

	if (rsh_pci_devstr_addr(devstr, bdf) < 0) {
		rsh_err_set("%s: not a PCI address; use 0000:03:00.2, 03:00.2 "
			    "or pcie-0000:03:00.2", devstr ? devstr : "(null)");
		return -EINVAL;
	}
	rc = rsh_pci_args_parse(devstr, &args);
	if (rc < 0)
		return rc;
	rc = rsh_pci_dev_new(bdf, opts, &args, &pd);
	if (rc < 0)
		return rc;
	rc = -EBUSY;
	if (rsh_pci_foreign_driver(pd))
		goto err;
	rc = rsh_pci_map_any(pd, args.mapping);
	if (rc < 0)
		goto err;
	pd->be.bar_size = pd->bar_len;
	if (pd->livefish) {
		pd->be.ops = &rsh_pci_cfg_ops;
		pd->be.cfg_only = true;
	}
	if (pd->livefish)
		RSH_DEV_LOG(INFO, &pd->be, "%s rev %u, livefish (15b3:%04x, config space only), %s mapping",
			    rsh_gen_name(pd->be.gen), pd->be.revision, pd->device_id,
			    rsh_pci_map_names[pd->mapping]);
	else
		RSH_DEV_LOG(INFO, &pd->be, "%s rev %u, BAR0 0x%zx, %s mapping",
			    rsh_gen_name(pd->be.gen), pd->be.revision, pd->bar_len,
			    rsh_pci_map_names[pd->mapping]);
	*out = &pd->be;
	return 0;
err:
	free(pd);
	return rc;
}

/* Set when libpci reports a fatal error during a scan. */
static __thread jmp_buf *rsh_pci_scan_jmp;

/* libpci error callback: log and unwind the scan (libpci would exit). */
static void __attribute__((noreturn, format(printf, 1, 2)))
rsh_pci_lib_error(char *msg, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, msg);
	vsnprintf(line, sizeof(line), msg, ap);
	va_end(ap);
	RSH_LOG(ERR, "libpci: %s", line);
	longjmp(*rsh_pci_scan_jmp, 1);
}

/* libpci warning/debug callback: drop. */
static void __attribute__((format(printf, 1, 2)))
rsh_pci_lib_quiet(char *msg __rte_unused, ...)
{
}

/* "8.0 GT/s PCIe" -> 8000 MT/s; 0 when unreadable or "Unknown". */
static uint32_t
rsh_pci_speed(const char *dir, const char *file)
{
	unsigned int whole = 0, tenth = 0;
	char s[64];

	if (rsh_pci_read_str(dir, file, s, sizeof(s)) < 0 ||
	    sscanf(s, "%u.%1u", &whole, &tenth) < 1 || whole > 1000)
		return 0;
	return whole * 1000u + tenth * 100u;
}

/* The link's current and maximum speed and width (zeros: unreadable). */
static void
rsh_pci_link(const char *dir, struct rsh_dev_link *l)
{
	unsigned long cw = 0, mw = 0;

	l->speed_mts = rsh_pci_speed(dir, "current_link_speed");
	l->max_speed_mts = rsh_pci_speed(dir, "max_link_speed");
	rsh_pci_read_ulong(dir, "current_link_width", &cw);
	rsh_pci_read_ulong(dir, "max_link_width", &mw);
	l->width = (uint8_t)RTE_MIN(cw, 255ul);
	l->max_width = (uint8_t)RTE_MIN(mw, 255ul);
}

/* IOMMU group number, -1 for none (no IOMMU, or noiommu). */
static int
rsh_pci_iommu_group(const char *dir, struct pci_dev *d)
{
	const char *s = pci_get_string_property(d, PCI_FILL_IOMMU_GROUP);
	char grp[16] = "";
	char *end;
	long g;

	/* libpci 3.9 leaves it empty on some trees: the sysfs link first. */
	if (rsh_pci_link_base(dir, "iommu_group", grp, sizeof(grp)) < 0 && s != NULL)
		rsh_pci_fmt(grp, sizeof(grp), "%s", s);
	g = strtol(grp, &end, 10);
	return end == grp || *end != '\0' || g < 0 || g > INT32_MAX ? -1 : (int)g;
}

/* Fill one scan entry from libpci and sysfs. */
static void
rsh_pci_info_fill(const char *root, struct pci_dev *d, enum rsh_gen gen,
		  bool lf, struct rsh_dev_info *inf)
{
	char dir[PATH_MAX];
	const char *s;

	memset(inf, 0, sizeof(*inf));
	rsh_pci_fmt(inf->name, sizeof(inf->name), "%04x:%02x:%02x.%u",
		 d->domain, d->bus, d->dev, d->func);
	rsh_pci_fmt(inf->driver, sizeof(inf->driver), "pci");
	rsh_pci_fmt(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, inf->name);
	inf->gen = gen;
	inf->revision = d->rev_id;
	inf->bar_size = d->size[0];
	if (inf->bar_size == 0)
		rsh_pci_res0_size(dir, &inf->bar_size);
	/* Livefish: no usable BAR; served through config space (§1.7). */
	inf->livefish = lf;
	inf->supported = lf || inf->bar_size >= rsh_pci_min_bar(gen);
	/* libpci 3.9 leaves the driver empty on some trees: sysfs first. */
	s = pci_get_string_property(d, PCI_FILL_DRIVER);
	if (rsh_pci_link_base(dir, "driver", inf->kdriver, sizeof(inf->kdriver)) < 0)
		rsh_pci_fmt(inf->kdriver, sizeof(inf->kdriver), "%s", s != NULL ? s : "");
	inf->iommu_group = rsh_pci_iommu_group(dir, d);
	inf->numa_node = d->numa_node;
	rsh_pci_link(dir, &inf->link);
}

/* Walk libpci's device list; returns how many rshim functions it saw. */
static int
rsh_pci_scan_list(const char *root, struct pci_access *acc,
		  struct rsh_dev_info *info, unsigned int max)
{
	struct pci_dev *d;
	enum rsh_gen gen;
	int n = 0;
	bool lf;

	for (d = acc->devices; d != NULL; d = d->next) {
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_SIZES |
			      PCI_FILL_CLASS_EXT | PCI_FILL_NUMA_NODE |
			      PCI_FILL_IOMMU_GROUP | PCI_FILL_DRIVER);
		if (d->vendor_id != RSH_PCI_VENDOR)
			continue;
		gen = rsh_pci_id_gen(d->device_id, &lf);
		if (gen == RSH_GEN_NONE)
			continue;
		if ((unsigned int)n < max)
			rsh_pci_info_fill(root, d, gen, lf, &info[n]);
		n++;
	}
	return n;
}

/* scan: every rshim function under <root>/bus/pci (libpci sysfs). */
static int
rsh_pci_scan(const struct rsh_open_opts *opts, struct rsh_dev_info *info,
	     unsigned int max)
{
	const char *root = rsh_pci_root(opts);
	char path[PATH_MAX], devs[PATH_MAX + 16];
	struct pci_access *acc;
	jmp_buf jb;
	volatile int n = 0;

	rsh_pci_fmt(path, sizeof(path), "%s/bus/pci", root);
	rsh_pci_fmt(devs, sizeof(devs), "%s/devices", path);
	if (access(devs, R_OK | X_OK) < 0)
		return 0; /* no PCI bus in this root (container): nothing */
	acc = pci_alloc();
	if (acc == NULL)
		return -ENOMEM;
	acc->method = PCI_ACCESS_SYS_BUS_PCI;
	acc->error = rsh_pci_lib_error;
	acc->warning = rsh_pci_lib_quiet;
	acc->debug = rsh_pci_lib_quiet;
	pci_set_param(acc, "sysfs.path", path);
	rsh_pci_scan_jmp = &jb;
	if (setjmp(jb) == 0) {
		pci_init(acc);
		pci_scan_bus(acc);
		n = rsh_pci_scan_list(root, acc, info, max);
	} else {
		n = -EIO;
	}
	rsh_pci_scan_jmp = NULL;
	pci_cleanup(acc);
	return n;
}

/* host_key: a PCI function is one device for the whole host; its key is
 * the canonical address without devargs, so "03:00.2" and
 * "pcie-0000:03:00.2,mapping=uio" meet. */
static int
rsh_pci_host_key(const char *devstr, char *key, size_t len)
{
	char bdf[RSH_PCI_BDF_LEN];
	struct rsh_pci_args args;

	if (rsh_pci_devstr_addr(devstr, bdf) < 0 ||
	    rsh_pci_args_parse(devstr, &args) < 0)
		return -EINVAL;
	if ((size_t)snprintf(key, len, "%s", bdf) >= len)
		return -ENAMETOOLONG;
	return 1;
}

static struct rsh_backend_driver rsh_pci_driver = {
	.name = "pci",
	.match = rsh_pci_match,
	.probe = rsh_pci_probe,
	.scan = rsh_pci_scan,
	.host_key = rsh_pci_host_key,
	.stack = rsh_lf_stack,
};

RSH_BACKEND_REGISTER(rsh_pci_driver);
RTE_LOG_REGISTER(rsh_logtype_vfio, pmd.rshim.vfio, NOTICE);
