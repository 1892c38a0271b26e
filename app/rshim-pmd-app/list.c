/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --list: rshim functions with their kernel driver, whether rshim-pmd can
 * use them and, when not, the command that fixes it; emulated ones on
 * request. Exit 4 when nothing is found.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "rsh_json.h"
#include "rsh_parse.h"

#define RSH_APP_LIST_MAX 64

/* A PCI function: the scan filled its host side (driver, IOMMU, link). */
static bool
rsh_app_dev_pci(const struct rsh_dev_info *d)
{
	return strcmp(d->driver, "pci") == 0;
}

/* Kernel driver of a scanned function: "-" for an emulated one. */
void
rsh_app_dev_kdrv(const struct rsh_dev_info *d, char *buf, size_t len)
{
	if (!rsh_app_dev_pci(d))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s", d->kdriver[0] ? d->kdriver : "none");
}

/* The link trained below its maximum speed or width. */
static bool
rsh_app_link_degraded(const struct rsh_dev_link *l)
{
	return l->speed_mts != l->max_speed_mts || l->width < l->max_width;
}

/* One link speed as sysfs writes it, without the space: "8.0GT/s". */
static void
rsh_app_link_speed(uint32_t mts, char *buf, size_t len)
{
	if (mts == 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%u.%uGT/s", mts / 1000, mts % 1000 / 100);
}

/* "cur/max speed xW/xW" of a PCI function, "" for an emulated one. */
static void
rsh_app_link(const struct rsh_dev_info *d, char *buf, size_t len)
{
	char cs[16], ms[16];

	buf[0] = '\0';
	if (!rsh_app_dev_pci(d))
		return;
	rsh_app_link_speed(d->link.speed_mts, cs, sizeof(cs));
	rsh_app_link_speed(d->link.max_speed_mts, ms, sizeof(ms));
	snprintf(buf, len, "%s/%s x%u/x%u", cs, ms, d->link.width, d->link.max_width);
}

/* NUMA node and IOMMU group columns: "-" for an emulated function,
 * "none" for a PCI function without an IOMMU group. */
static void
rsh_app_numa_grp(const struct rsh_dev_info *d, char *numa, size_t nlen,
		 char *grp, size_t glen)
{
	if (!rsh_app_dev_pci(d)) {
		snprintf(numa, nlen, "-");
		snprintf(grp, glen, "-");
		return;
	}
	snprintf(numa, nlen, "%d", d->numa_node);
	if (d->iommu_group < 0)
		snprintf(grp, glen, "none");
	else
		snprintf(grp, glen, "%d", d->iommu_group);
}

/* Whether rshim-pmd can drive a function; why not and the fix if not. */
bool
rsh_app_dev_usable(const struct rsh_dev_info *d, char *why, size_t wlen,
		   char *fix, size_t flen)
{
	char kdrv[32];

	why[0] = fix[0] = '\0';
	if (!d->supported) {
		snprintf(why, wlen, "BAR0 too small for its generation");
		snprintf(fix, flen, "use the .1/.2 function of the DPU that is the rshim");
		return false;
	}
	rsh_app_dev_kdrv(d, kdrv, sizeof(kdrv));
	if (strcmp(kdrv, "-") == 0 || strcmp(kdrv, "vfio-pci") == 0 ||
	    strcmp(kdrv, "uio_pci_generic") == 0)
		return true;
	if (strcmp(kdrv, "none") == 0)
		snprintf(why, wlen, "not bound to a userspace driver");
	else
		snprintf(why, wlen, "bound to %s", kdrv);
	snprintf(fix, flen, "rshim-devbind.py -b vfio-pci %s", d->name);
	return false;
}

/* One table row (and a fix line under an unusable one). */
static void
rsh_app_list_row(const struct rsh_dev_info *d)
{
	char kdrv[32], bar[24], numa[16], grp[16], link[64], why[96], fix[128];
	bool ok = rsh_app_dev_usable(d, why, sizeof(why), fix, sizeof(fix));
	bool lf = d->livefish;

	rsh_app_dev_kdrv(d, kdrv, sizeof(kdrv));
	rsh_fmt_size(bar, sizeof(bar), d->bar_size);
	rsh_app_numa_grp(d, numa, sizeof(numa), grp, sizeof(grp));
	rsh_app_link(d, link, sizeof(link));
	if (rsh_app_dev_pci(d) && rsh_app_link_degraded(&d->link))
		strncat(link, " DEGRADED", sizeof(link) - strlen(link) - 1);
	if (lf) /* no usable BAR: the config-space gateway, §1.7 */
		snprintf(bar, sizeof(bar), "livefish");
	printf("%-20s %-12s %-4u %-16s %-8s %-5s %-6s %-34s %s%s\n", d->name,
	       rsh_gen_name(d->gen), d->revision, kdrv, bar,
	       numa, grp, link[0] ? link : "-",
	       ok ? "usable" : d->supported ? "unusable: " : "unsupported: ",
	       ok ? "" : why);
	if (!ok)
		printf("%-20s fix: %s\n", d->name, fix);
	if (lf) /* the recipe: doc/hardware.md, "Livefish recovery" */
		printf("%-20s livefish (no NIC firmware): boot push, boot log, misc and console through the config-space gateway; recover it: rshim-pmd-app --device %s --push-boot <bfb>\n",
		       d->name, d->name);
}

/* One JSON object per function. */
static void
rsh_app_list_json_dev(struct rsh_json *j, const struct rsh_dev_info *d)
{
	char kdrv[32], link[64], why[96], fix[128];
	bool ok = rsh_app_dev_usable(d, why, sizeof(why), fix, sizeof(fix));
	bool pci = rsh_app_dev_pci(d);

	rsh_app_dev_kdrv(d, kdrv, sizeof(kdrv));
	rsh_app_link(d, link, sizeof(link));
	rsh_json_obj_begin(j, NULL);
	rsh_json_str(j, "device", d->name);
	rsh_json_str(j, "backend", d->driver);
	rsh_json_str(j, "generation", rsh_gen_name(d->gen));
	rsh_json_u64(j, "revision", d->revision);
	rsh_json_str(j, "kernel_driver", strcmp(kdrv, "-") ? kdrv : NULL);
	rsh_json_u64(j, "bar0_bytes", d->bar_size);
	if (pci)
		rsh_json_i64(j, "numa_node", d->numa_node);
	else
		rsh_json_null(j, "numa_node");
	/* null: no IOMMU (or noiommu), or an emulated function */
	if (pci && d->iommu_group >= 0)
		rsh_json_i64(j, "iommu_group", d->iommu_group);
	else
		rsh_json_null(j, "iommu_group");
	rsh_json_str(j, "link", link[0] ? link : NULL);
	rsh_json_bool(j, "link_degraded", pci && rsh_app_link_degraded(&d->link));
	rsh_json_bool(j, "livefish", d->livefish);
	rsh_json_bool(j, "usable", ok);
	rsh_json_str(j, "problem", ok ? NULL : why);
	rsh_json_str(j, "fix", ok ? NULL : fix);
	rsh_json_obj_end(j);
}

/* The --json document of --list. */
static void
rsh_app_list_json(const struct rsh_dev_info *info, int n)
{
	struct rsh_json j;

	rsh_json_init(&j, stdout);
	rsh_json_obj_begin(&j, NULL);
	rsh_json_arr_begin(&j, "devices");
	for (int i = 0; i < n && i < RSH_APP_LIST_MAX; i++)
		rsh_app_list_json_dev(&j, &info[i]);
	rsh_json_arr_end(&j);
	rsh_json_obj_end(&j);
	if (rsh_json_finish(&j) == -EINVAL)
		rsh_app_err("internal error: malformed JSON document");
}

/* Print one table (or JSON document) of every device found. */
int
rsh_app_list(struct rsh_app *app)
{
	struct rsh_dev_info info[RSH_APP_LIST_MAX];
	int n = rsh_dev_scan(&app->open, app->list_sim, info, RSH_APP_LIST_MAX);

	if (n < 0) {
		rsh_app_err("device scan failed: %s", rsh_last_error());
		return RSH_EXIT_DEVICE;
	}
	if (app->json) {
		rsh_app_list_json(info, n);
	} else if (n > 0) {
		printf("%-20s %-12s %-4s %-16s %-8s %-5s %-6s %-34s %s\n", "DEVICE",
		       "GENERATION", "REV", "KERNEL-DRIVER", "BAR0", "NUMA",
		       "IOMMU", "LINK(cur/max)", "STATUS");
		for (int i = 0; i < n && i < RSH_APP_LIST_MAX; i++)
			rsh_app_list_row(&info[i]);
	}
	if (n == 0) {
		rsh_app_err("no rshim function found%s",
			    app->list_sim ? "" : " (add --sim to list the emulated BlueFields)");
		return RSH_EXIT_DEVICE;
	}
	return RSH_EXIT_OK;
}
