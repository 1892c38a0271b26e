/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PCIe link of each served PCI function, for the troubleshooter: the
 * speed and width sysfs reports against what the function is capable of,
 * logged when the device is opened and whenever it changes (the health
 * check looks once a second); a link below its capability is a warning.
 * Emulated devices have no link. Main thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "svc.h"

/* One sysfs attribute of the function, first word, "" when absent. */
static void
rsh_svc_link_attr(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (f == NULL)
		return;
	if (fgets(out, (int)len, f) == NULL)
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

/* "8.0 GT/s PCIe" -> "8.0 GT/s". */
static void
rsh_svc_link_speed(char *s)
{
	char *p = strstr(s, " PCIe");

	if (p != NULL)
		*p = '\0';
}

/*
 * Read the link into d->link; log it when it differs from what was logged
 * last (at open: always). Not a PCI function: nothing.
 */
void
rsh_svc_link_check(struct rshd *s, struct rsh_svc_dev *d)
{
	char key[RSH_DEV_NAME_MAX], dir[PATH_MAX], cs[32], ms[32], cw[16], mw[16], now[128];
	bool degraded;

	if (rsh_dev_host_key(d->devstr, key, sizeof(key)) != 1 || strncmp(key, "sim-", 4) == 0)
		return;
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s",
		 s->open.sysfs_root != NULL ? s->open.sysfs_root : "/sys", key);
	rsh_svc_link_attr(dir, "current_link_speed", cs, sizeof(cs));
	rsh_svc_link_attr(dir, "max_link_speed", ms, sizeof(ms));
	rsh_svc_link_attr(dir, "current_link_width", cw, sizeof(cw));
	rsh_svc_link_attr(dir, "max_link_width", mw, sizeof(mw));
	if (cs[0] == '\0' && cw[0] == '\0')
		return; /* no link attributes (a VF, an old kernel) */
	rsh_svc_link_speed(cs);
	rsh_svc_link_speed(ms);
	snprintf(now, sizeof(now), "%s x%s (capable of %s x%s)", cs, cw, ms, mw);
	if (strcmp(now, d->link) == 0)
		return;
	degraded = strcmp(cs, ms) != 0 || strcmp(cw, mw) != 0;
	if (degraded)
		RSH_SVC_LOG(WARNING, d->name, "PCIe link of %s %s: %s; boot pushes and the TM FIFO run slower (check the slot, the riser and the BIOS link settings)",
			    key, d->link[0] == '\0' ? "degraded" : "changed, degraded", now);
	else
		RSH_SVC_LOG(NOTICE, d->name, "PCIe link of %s%s: %s", key,
			    d->link[0] == '\0' ? "" : " changed", now);
	snprintf(d->link, sizeof(d->link), "%s", now);
}
