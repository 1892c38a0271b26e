/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sysfs helpers of the PCI backend: device-string parsing, small attribute
 * files, symlinks, kernel lockdown, PCI_COMMAND, IOMMU group peers.
 * Everything is relative to a sysfs root that stands for /sys (tests,
 * containers).
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RSH_LOGTYPE rsh_logtype_vfio
#include "rsh_log.h"
#include "rsh_pci_priv.h"

/* snprintf that may truncate, for paths and message fields. */
int
rsh_pci_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

/* Normalise "0000:03:00.1", "03:00.1" or "pcie-0000:03:00.1" into
 * "0000:03:00.1". @return 0 or -EINVAL. */
int
rsh_pci_addr_parse(const char *devstr, char bdf[RSH_PCI_BDF_LEN])
{
	unsigned int dom = 0, bus, dev, fn;
	int n = 0;

	if (devstr == NULL)
		return -EINVAL;
	if (strncmp(devstr, "pcie-", 5) == 0)
		devstr += 5;
	if (sscanf(devstr, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &n)
	    != 4 || devstr[n] != '\0') {
		dom = 0;
		if (sscanf(devstr, "%2x:%2x.%1u%n", &bus, &dev, &fn, &n) != 3 ||
		    devstr[n] != '\0')
			return -EINVAL;
	}
	if (dev > 0x1f || fn > 7)
		return -EINVAL;
	rsh_pci_fmt(bdf, RSH_PCI_BDF_LEN, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	return 0;
}

/* The sysfs root of the options ("/sys" by default). */
const char *
rsh_pci_root(const struct rsh_open_opts *opts)
{
	return opts != NULL && opts->sysfs_root != NULL ? opts->sysfs_root
							  : "/sys";
}

/* Read a small attribute file, trailing newline stripped.
 * @return 0 or -errno. */
int
rsh_pci_read_str(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	rsh_pci_fmt(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* Read an attribute holding a number (0x-prefixed hex or decimal). */
int
rsh_pci_read_ulong(const char *dir, const char *file, unsigned long *val)
{
	char buf[64], *end;
	int rc;

	rc = rsh_pci_read_str(dir, file, buf, sizeof(buf));
	if (rc < 0)
		return rc;
	errno = 0;
	*val = strtoul(buf, &end, 0);
	if (errno != 0 || end == buf)
		return -EINVAL;
	return 0;
}

/* Write a string to an attribute file. @return 0 or -errno. */
int
rsh_pci_write_str(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX];
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	rsh_pci_fmt(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC); /* as echo > does */
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/* Basename of the target of symlink dir/link ("driver", "iommu_group").
 * @return 0, -ENOENT when the link is absent. */
int
rsh_pci_link_base(const char *dir, const char *link, char *buf, size_t len)
{
	char path[PATH_MAX], tgt[PATH_MAX];
	const char *base;
	ssize_t n;

	rsh_pci_fmt(path, sizeof(path), "%s/%s", dir, link);
	n = readlink(path, tgt, sizeof(tgt) - 1);
	if (n < 0)
		return -errno;
	tgt[n] = '\0';
	base = strrchr(tgt, '/');
	rsh_pci_fmt(buf, len, "%s", base != NULL ? base + 1 : tgt);
	return 0;
}

/* BAR0 size from the first line of <dir>/resource ("start end flags"),
 * else from the size of resource0. @return 0 or -ENOENT. */
int
rsh_pci_res0_size(const char *dir, uint64_t *size)
{
	unsigned long long start, end;
	char buf[256], path[PATH_MAX];
	struct stat st;

	if (rsh_pci_read_str(dir, "resource", buf, sizeof(buf)) == 0 &&
	    sscanf(buf, "%llx %llx", &start, &end) == 2 && end > start) {
		*size = end - start + 1;
		return 0;
	}
	rsh_pci_fmt(path, sizeof(path), "%s/resource0", dir);
	if (stat(path, &st) < 0)
		return -ENOENT;
	*size = (uint64_t)st.st_size;
	return 0;
}

/* True when <root>/kernel/security/lockdown selects integrity or
 * confidentiality (§2.1 step 2); the selected word goes to mode. */
bool
rsh_pci_lockdown(const char *root, char *mode, size_t len)
{
	char dir[PATH_MAX], buf[128];
	const char *m = NULL;

	rsh_pci_fmt(dir, sizeof(dir), "%s/kernel/security", root);
	if (rsh_pci_read_str(dir, "lockdown", buf, sizeof(buf)) < 0)
		return false;
	if (strstr(buf, "[integrity]") != NULL)
		m = "integrity";
	else if (strstr(buf, "[confidentiality]") != NULL)
		m = "confidentiality";
	if (m != NULL)
		rsh_pci_fmt(mode, len, "%s", m);
	return m != NULL;
}

/* PCI_COMMAND |= MEMORY | MASTER with 2-byte pread/pwrite at cfg_off + 4
 * (§1.8). @return 0 or -EIO. */
int
rsh_pci_cmd_enable(int fd, off_t cfg_off, const char *name)
{
	uint16_t cmd;

	if (pread(fd, &cmd, sizeof(cmd), cfg_off + RSH_PCI_CMD_OFF) !=
	    sizeof(cmd)) {
		rsh_err_set("%s: cannot read PCI_COMMAND from config space: "
			    "%s; is the device still present?", name,
			    strerror(errno));
		return -EIO;
	}
	if ((cmd & (RSH_PCI_CMD_MEMORY | RSH_PCI_CMD_MASTER)) ==
	    (RSH_PCI_CMD_MEMORY | RSH_PCI_CMD_MASTER))
		return 0;
	cmd |= RSH_PCI_CMD_MEMORY | RSH_PCI_CMD_MASTER;
	if (pwrite(fd, &cmd, sizeof(cmd), cfg_off + RSH_PCI_CMD_OFF) !=
	    sizeof(cmd)) {
		rsh_err_set("%s: cannot set MEMORY|MASTER in PCI_COMMAND: %s; "
			    "run as root", name, strerror(errno));
		return -EIO;
	}
	return 0;
}

/* "0000:03:00.0 (mlx5_core), ..." for the other members of an IOMMU
 * group, from <root>/kernel/iommu_groups/<group>/devices. */
void
rsh_pci_group_peers(const char *root, int group, const char *self,
		    char *buf, size_t len)
{
	char gdir[PATH_MAX], ddir[PATH_MAX], drv[64];
	struct dirent *e;
	size_t used = 0;
	DIR *d;

	buf[0] = '\0';
	rsh_pci_fmt(gdir, sizeof(gdir), "%s/kernel/iommu_groups/%d/devices",
		 root, group);
	d = opendir(gdir);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && used + 1 < len) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0)
			continue;
		rsh_pci_fmt(ddir, sizeof(ddir), "%s/%s", gdir, e->d_name);
		if (rsh_pci_link_base(ddir, "driver", drv, sizeof(drv)) < 0)
			rsh_pci_fmt(drv, sizeof(drv), "no driver");
		used += rsh_pci_fmt(buf + used, len - used, "%s%s (%s)",
				 used ? ", " : "", e->d_name, drv);
	}
	closedir(d);
}
