/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --doctor: walk the layers between this host and the DPU in order and
 * print one line per layer: ok, what failed and the command that fixes
 * it. The PCI layers read sysfs (--sysfs-root stands for /sys); the device
 * layers open the device (doctor_dev.c). A layer whose prerequisite failed
 * is skipped. The exit code is the first failed layer's (20-28, see
 * enum rsh_doc_code), 0 when every layer is fine; --json gives the same as
 * one document.
 *
 * IDs (hardware-notes §1.1, the table in rsh_pci_ids.h shared with the
 * pci backend's scan): rshim functions 15b3:c2d2 (BF1), c2d3 (BF2),
 * c2d4/c2d5 (BF3), livefish 0211/0214/021c; the NIC physical functions of
 * the DPU are 15b3:a2d6 (BF2) and 15b3:a2dc (BF3), and 15b3:a2d2 on BF1
 * *(inferred: from lspci listings of BlueField-1 cards)*.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"
#include "rsh_json.h"
#include "rsh_pci_ids.h"

/* What each kind of DPU function is called here. */
static const char *const rsh_doc_kind_name[] = {
	[RSH_PCI_KIND_RSHIM] = "rshim",
	[RSH_PCI_KIND_LIVEFISH] = "livefish",
	[RSH_PCI_KIND_NIC_PF] = "NIC PF",
};

/* Set the current layer's verdict. */
void
rsh_doc_set(struct rsh_doc *d, enum rsh_doc_status st, const char *fix,
	    const char *fmt, ...)
{
	va_list ap;

	d->st = st;
	snprintf(d->fix, sizeof(d->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(d->detail, sizeof(d->detail), fmt, ap);
	va_end(ap);
}

/* Copy a string, truncated to fit. */
static void
rsh_doc_copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Read a sysfs attribute of a PCI function (first line); false if none. */
static bool
rsh_doc_attr(const struct rsh_doc *d, const char *bdf, const char *attr,
	     char *buf, size_t len)
{
	char path[512];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", d->root, bdf, attr);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* Base name of a symlink under a PCI function ("driver"); false if none. */
static bool
rsh_doc_link(const struct rsh_doc *d, const char *bdf, const char *name,
	     char *buf, size_t len)
{
	char path[512], target[512];
	ssize_t n;
	const char *base;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", d->root, bdf, name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	base = strrchr(target, '/');
	rsh_doc_copy(buf, len, base ? base + 1 : target);
	return true;
}

/* The kind of a 15b3 device ID, or NULL. */
static const char *
rsh_doc_kind(uint16_t id)
{
	const struct rsh_pci_id_ent *e = rsh_pci_id_find(id);

	return e != NULL ? rsh_doc_kind_name[e->kind] : NULL;
}

/* Add one function when it is a DPU's. */
static void
rsh_doc_add_fn(struct rsh_doc *d, const char *bdf)
{
	char ven[16], dev[16];
	const char *kind;
	uint16_t id;

	if (!rsh_doc_attr(d, bdf, "vendor", ven, sizeof(ven)) ||
	    !rsh_doc_attr(d, bdf, "device", dev, sizeof(dev)) ||
	    strtoul(ven, NULL, 16) != RSH_PCI_VENDOR_ID)
		return;
	id = (uint16_t)strtoul(dev, NULL, 16);
	kind = rsh_doc_kind(id);
	if (kind == NULL || d->n_fns == RSH_DOC_MAX_FNS)
		return;
	rsh_doc_copy(d->fns[d->n_fns].bdf, sizeof(d->fns[0].bdf), bdf);
	d->fns[d->n_fns].device = id;
	d->fns[d->n_fns].kind = kind;
	d->n_fns++;
}

/* Collect the DPU functions (sorted by address, as sysfs lists them). */
static void
rsh_doc_scan(struct rsh_doc *d)
{
	char path[512];
	struct dirent **ents;
	int n;

	snprintf(path, sizeof(path), "%s/bus/pci/devices", d->root);
	n = scandir(path, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.')
			rsh_doc_add_fn(d, ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* The function --device names, or the first rshim function. */
static const struct rsh_doc_fn *
rsh_doc_pick(struct rsh_doc *d)
{
	const char *want = d->app->device;

	if (want != NULL && strncmp(want, "pcie-", 5) == 0)
		want += 5;
	for (unsigned int i = 0; i < d->n_fns; i++) {
		const char *b = d->fns[i].bdf;

		if (want == NULL ? strcmp(d->fns[i].kind, "rshim") == 0 :
		    strcmp(b, want) == 0 || strcmp(b + 5, want) == 0)
			return &d->fns[i];
	}
	return NULL;
}

/* Layer 1: PCI enumeration of the DPU's functions. */
static void
rsh_doc_pci(struct rsh_doc *d)
{
	const struct rsh_doc_fn *t;
	char list[200] = "";
	size_t off = 0;

	rsh_doc_scan(d);
	for (unsigned int i = 0; i < d->n_fns && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s %s (15b3:%04x)",
					i ? ", " : "", d->fns[i].bdf, d->fns[i].kind,
					d->fns[i].device);
	t = rsh_doc_pick(d);
	if (t != NULL && strcmp(t->kind, "rshim") == 0) {
		snprintf(d->target, sizeof(d->target), "%s", t->bdf);
		rsh_doc_set(d, RSH_DOC_OK, NULL, "%s", list);
	} else if (t != NULL && strcmp(t->kind, "livefish") == 0) {
		/* No NIC firmware: the rshim is reached through the config
		 * space gateway (hardware-notes §1.7); the layers go on. */
		snprintf(d->target, sizeof(d->target), "%s", t->bdf);
		rsh_doc_set(d, RSH_DOC_WARN, "recover it: rshim-pmd-app --device <bdf> --push-boot <bfb> (doc/hardware.md, Livefish recovery)",
			    "%s is in livefish mode (no NIC firmware): served through the config-space gateway: boot push, boot log, misc, console; no SCRATCHPAD6 interrupt, no secure NIC mode", t->bdf);
	} else if (t != NULL || d->app->device != NULL) {
		rsh_doc_set(d, RSH_DOC_FAIL, "rshim-pmd-app --doctor without --device, or lspci -d 15b3:",
			    "%s is not a DPU rshim function (found: %s)", d->app->device,
			    d->n_fns ? list : "no DPU function");
	} else if (d->n_fns > 0) {
		rsh_doc_set(d, RSH_DOC_FAIL, "check that the DPU exposes its rshim to the host (its NIC firmware setting) and lspci -d 15b3:",
			    "DPU functions but no rshim function (15b3:c2d2-c2d5): %s", list);
	} else {
		rsh_doc_set(d, RSH_DOC_FAIL, "lspci -d 15b3: (is the DPU seated and powered?)",
			    "no BlueField function on the PCI bus");
	}
}

/* Current/maximum speed and width of a function; true when degraded. */
static bool
rsh_doc_link_of(const struct rsh_doc *d, const char *bdf, char *buf, size_t len)
{
	char cs[32] = "?", ms[32] = "?", cw[8] = "?", mw[8] = "?";

	rsh_doc_attr(d, bdf, "current_link_speed", cs, sizeof(cs));
	rsh_doc_attr(d, bdf, "max_link_speed", ms, sizeof(ms));
	rsh_doc_attr(d, bdf, "current_link_width", cw, sizeof(cw));
	rsh_doc_attr(d, bdf, "max_link_width", mw, sizeof(mw));
	cs[strcspn(cs, " ")] = ms[strcspn(ms, " ")] = '\0';
	snprintf(buf, len, "%s GT/s x%s (capable of %s GT/s x%s)", cs, cw, ms, mw);
	return strcmp(cs, ms) != 0 || atoi(cw) < atoi(mw);
}

/* Layer 2: link speed and width against capability. */
static void
rsh_doc_pcie_link(struct rsh_doc *d)
{
	char link[96];

	for (unsigned int i = 0; i < d->n_fns; i++) {
		/* The functions of this DPU: same domain and bus. */
		if (strncmp(d->fns[i].bdf, d->target, 7) != 0 ||
		    !rsh_doc_link_of(d, d->fns[i].bdf, link, sizeof(link)))
			continue;
		rsh_doc_set(d, RSH_DOC_FAIL, "reseat the card or check the slot's link settings in the BIOS",
			    "%s (%s) trained below its capability: %s", d->fns[i].bdf,
			    d->fns[i].kind, link);
		return;
	}
	rsh_doc_link_of(d, d->target, link, sizeof(link));
	rsh_doc_set(d, RSH_DOC_OK, NULL, "%s: %s", d->target, link);
}

/* True when VFIO's no-IOMMU mode is on (the vfio module's parameter). */
static bool
rsh_doc_noiommu(const struct rsh_doc *d)
{
	char path[512], v[8] = "N";
	FILE *f;

	snprintf(path, sizeof(path), "%s/module/vfio/parameters/enable_unsafe_noiommu_mode", d->root);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fgets(v, sizeof(v), f) == NULL)
		v[0] = 'N';
	fclose(f);
	return v[0] == 'Y';
}

/* The fix for a function without a userspace driver, from what this host
 * can do: vfio-pci needs an IOMMU group (or no-IOMMU mode) and the module
 * (rshim-devbind.py loads it; said so the user knows why it was missing). */
static const char *
rsh_doc_bind_fix(struct rsh_doc *d, char *why, size_t len)
{
	char grp[16], path[512];

	why[0] = '\0';
	if (!rsh_doc_link(d, d->target, "iommu_group", grp, sizeof(grp)) && !rsh_doc_noiommu(d)) {
		snprintf(why, len, "; it has no IOMMU group, so vfio-pci cannot take it");
		snprintf(d->fix, sizeof(d->fix), "enable the IOMMU (intel_iommu=on or amd_iommu=on) and rshim-devbind.py -b vfio-pci %s, or: rshim-devbind.py -b uio_pci_generic %s",
			 d->target, d->target);
		return d->fix;
	}
	snprintf(path, sizeof(path), "%s/bus/pci/drivers/vfio-pci", d->root);
	if (access(path, F_OK) != 0) {
		snprintf(why, len, "; vfio-pci is not loaded");
		snprintf(d->fix, sizeof(d->fix), "modprobe vfio-pci && rshim-devbind.py -b vfio-pci %s",
			 d->target);
		return d->fix;
	}
	snprintf(d->fix, sizeof(d->fix), "rshim-devbind.py -b vfio-pci %s", d->target);
	return d->fix;
}

/* Layer 3: kernel driver of the rshim function. */
static void
rsh_doc_driver(struct rsh_doc *d)
{
	char fix[sizeof(d->fix)], why[64];

	if (!rsh_doc_link(d, d->target, "driver", d->kdrv, sizeof(d->kdrv)))
		d->kdrv[0] = '\0';
	if (strcmp(d->kdrv, "vfio-pci") == 0 || strcmp(d->kdrv, "uio_pci_generic") == 0) {
		rsh_doc_set(d, RSH_DOC_OK, NULL, "%s bound to %s", d->target, d->kdrv);
		return;
	}
	snprintf(fix, sizeof(fix), "%s", rsh_doc_bind_fix(d, why, sizeof(why)));
	if (d->kdrv[0] == '\0')
		rsh_doc_set(d, RSH_DOC_FAIL, fix, "%s is not bound to a userspace driver%s",
			    d->target, why);
	else
		rsh_doc_set(d, RSH_DOC_FAIL, fix, "%s is bound to %s%s%s", d->target, d->kdrv,
			    strcmp(d->kdrv, "rshim_pcie") == 0 ?
			    " (the kernel rshim driver)" : "", why);
}

/* Layer 4: IOMMU group and VFIO (vfio-pci only). */
static void
rsh_doc_iommu(struct rsh_doc *d)
{
	char grp[16], path[512], noiommu[2] = { rsh_doc_noiommu(d) ? 'Y' : 'N', '\0' };

	if (strcmp(d->kdrv, "uio_pci_generic") == 0) {
		rsh_doc_set(d, RSH_DOC_OK, NULL, "uio_pci_generic: no IOMMU used");
		return;
	}
	if (!rsh_doc_link(d, d->target, "iommu_group", grp, sizeof(grp))) {
		rsh_doc_set(d, noiommu[0] == 'Y' ? RSH_DOC_OK : RSH_DOC_FAIL,
			    "enable the IOMMU (intel_iommu=on or amd_iommu=on on the kernel command line), or: modprobe vfio enable_unsafe_noiommu_mode=1",
			    "%s has no IOMMU group%s", d->target,
			    noiommu[0] == 'Y' ? "; VFIO no-IOMMU mode is on" : "");
		return;
	}
	/* In no-IOMMU mode vfio still makes a group, named noiommu-<N> in
	 * /dev/vfio (found on a real kernel in a guest, hardware-notes §V7). */
	snprintf(path, sizeof(path), "/dev/vfio/%s%s", noiommu[0] == 'Y' ? "noiommu-" : "", grp);
	if (strcmp(d->root, "/sys") == 0 && access(path, R_OK | W_OK) != 0) {
		rsh_doc_set(d, RSH_DOC_FAIL, "run as root, or give your user access to /dev/vfio/<group>",
			    "IOMMU group %s: %s: %s", grp, path, strerror(errno));
		return;
	}
	rsh_doc_set(d, RSH_DOC_OK, NULL, "IOMMU group %s%s", grp,
		    noiommu[0] == 'Y' ? " (VFIO no-IOMMU mode: /dev/vfio/noiommu-<group>)" : "");
}

/* Free hugepages of one size, or -1. */
static long
rsh_doc_free_pages(const struct rsh_doc *d, const char *size)
{
	char path[512];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/hugepages-%s/free_hugepages",
		 d->root, size);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/* Layer 5: hugepages (a warning: the app falls back to --no-huge). */
static void
rsh_doc_huge(struct rsh_doc *d)
{
	long p2m = rsh_doc_free_pages(d, "2048kB");
	long p1g = rsh_doc_free_pages(d, "1048576kB");

	if (p2m >= 8 || p1g >= 1)
		rsh_doc_set(d, RSH_DOC_OK, NULL, "%ld free 2 MiB pages, %ld free 1 GiB pages",
			    p2m < 0 ? 0 : p2m, p1g < 0 ? 0 : p1g);
	else
		rsh_doc_set(d, RSH_DOC_WARN, "rshim-hugepages 256M",
			    "no free hugepages: the app runs with ordinary memory (--no-huge)");
}

/* The layers in walking order; needs: bits of layers that must be ok. */
enum { L_PCI, L_LINK, L_DRIVER, L_IOMMU, L_HUGE, L_REACH, L_OWNER, L_FIFO, L_NET, L_COUNT };
static const struct {
	const char *name;
	enum rsh_doc_code code;
	unsigned int needs;
	bool pci_only;         /* skipped on an emulated device */
} rsh_doc_layers[L_COUNT] = {
	[L_PCI] = { "pci", RSH_DOC_PCI, 0, true },
	[L_LINK] = { "link", RSH_DOC_LINK, 1u << L_PCI, true },
	[L_DRIVER] = { "driver", RSH_DOC_DRIVER, 1u << L_PCI, true },
	[L_IOMMU] = { "iommu", RSH_DOC_IOMMU, 1u << L_DRIVER, true },
	[L_HUGE] = { "hugepages", RSH_DOC_HUGE, 0, false },
	[L_REACH] = { "rshim", RSH_DOC_REACH, 1u << L_PCI | 1u << L_DRIVER | 1u << L_IOMMU, false },
	[L_OWNER] = { "owner", RSH_DOC_OWNER, 1u << L_REACH, false },
	[L_FIFO] = { "tmfifo", RSH_DOC_FIFO, 1u << L_OWNER, false },
	[L_NET] = { "tmfifo_net", RSH_DOC_NET, 1u << L_FIFO, false },
};

static const char *const rsh_doc_status_names[] = {
	[RSH_DOC_OK] = "ok", [RSH_DOC_WARN] = "warn", [RSH_DOC_FAIL] = "FAIL",
	[RSH_DOC_SKIP] = "skip",
};

/* Run one layer (its verdict lands in d). */
static void
rsh_doc_run_layer(struct rsh_doc *d, unsigned int l, int eal_argc, char **eal_argv)
{
	switch (l) {
	case L_PCI: rsh_doc_pci(d); break;
	case L_LINK: rsh_doc_pcie_link(d); break;
	case L_DRIVER: rsh_doc_driver(d); break;
	case L_IOMMU: rsh_doc_iommu(d); break;
	case L_HUGE: rsh_doc_huge(d); break;
	case L_REACH: rsh_doc_reach(d, eal_argc, eal_argv); break;
	case L_OWNER: rsh_doc_owner(d); break;
	case L_FIFO: rsh_doc_fifo(d); break;
	default: rsh_doc_net(d); break;
	}
}

/* Print one layer's line (and its fix) or add it to the JSON array. */
static void
rsh_doc_report(const struct rsh_doc *d, unsigned int l, struct rsh_json *j)
{
	const char *who = d->target[0] ? d->target : "host";

	if (j != NULL) {
		rsh_json_obj_begin(j, NULL);
		rsh_json_str(j, "layer", rsh_doc_layers[l].name);
		rsh_json_str(j, "status", rsh_doc_status_names[d->st]);
		rsh_json_str(j, "detail", d->detail);
		rsh_json_str(j, "fix", d->fix[0] ? d->fix : NULL);
		rsh_json_i64(j, "code", d->st == RSH_DOC_FAIL ? rsh_doc_layers[l].code : 0);
		rsh_json_obj_end(j);
		return;
	}
	printf("%s: %-10s %-4s %s\n", who, rsh_doc_layers[l].name,
	       rsh_doc_status_names[d->st], d->detail);
	if (d->fix[0] && d->st != RSH_DOC_OK && d->st != RSH_DOC_SKIP)
		printf("%s: %-10s      fix: %s\n", who, "", d->fix);
	fflush(stdout);
}

/* Verdict of a layer that cannot run: the first unmet need. */
static bool
rsh_doc_blocked(struct rsh_doc *d, unsigned int l, unsigned int ok_mask)
{
	unsigned int missing = rsh_doc_layers[l].needs & ~ok_mask;

	if (d->sim && rsh_doc_layers[l].pci_only) {
		rsh_doc_set(d, RSH_DOC_SKIP, NULL, "emulated device");
		return true;
	}
	if (d->sim)
		missing &= ~((1u << L_PCI) | (1u << L_DRIVER) | (1u << L_IOMMU));
	if (missing == 0)
		return false;
	rsh_doc_set(d, RSH_DOC_SKIP, NULL, "needs the %s layer",
		    rsh_doc_layers[__builtin_ctz(missing)].name);
	return true;
}

/* --doctor: every layer in order; the first failure's code. */
int
rsh_app_doctor(struct rsh_app *app, int eal_argc, char **eal_argv)
{
	struct rsh_doc d = { .app = app };
	struct rsh_json j;
	unsigned int ok_mask = 0;
	int code = 0;

	d.root = app->open.sysfs_root ? app->open.sysfs_root : "/sys";
	d.sim = app->device != NULL && strncmp(app->device, "sim:", 4) == 0;
	if (d.sim)
		snprintf(d.target, sizeof(d.target), "%s", app->device);
	if (app->json) {
		rsh_json_init(&j, stdout);
		rsh_json_obj_begin(&j, NULL);
		rsh_json_arr_begin(&j, "layers");
	}
	for (unsigned int l = 0; l < L_COUNT; l++) {
		if (!rsh_doc_blocked(&d, l, ok_mask))
			rsh_doc_run_layer(&d, l, eal_argc, eal_argv);
		if (d.st == RSH_DOC_OK || d.st == RSH_DOC_WARN)
			ok_mask |= 1u << l;
		if (d.st == RSH_DOC_FAIL && code == 0)
			code = rsh_doc_layers[l].code;
		rsh_doc_report(&d, l, app->json ? &j : NULL);
	}
	rsh_doc_dev_close(&d);
	if (app->json) {
		rsh_json_arr_end(&j);
		rsh_json_str(&j, "device", d.target[0] ? d.target : NULL);
		rsh_json_i64(&j, "exit_code", code);
		rsh_json_obj_end(&j);
		if (rsh_json_finish(&j) == -EINVAL)
			rsh_app_err("internal error: malformed JSON document");
	}
	return code;
}
