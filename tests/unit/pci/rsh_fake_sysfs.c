/* SPDX-License-Identifier: BSD-3-Clause */
/* Fake sysfs trees for the PCI backend tests (see rsh_fake_sysfs.h). */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rsh_fake_sysfs.h"

/* snprintf without truncation warnings (paths stay below PATH_MAX). */
static int __attribute__((format(printf, 3, 4)))
rsh_fake_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

/* mkdir -p. */
static int
rsh_fake_mkdirs(const char *path)
{
	char tmp[PATH_MAX], *p;

	rsh_fake_fmt(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* Create the root (mkdtemp under /tmp) into root[PATH_MAX]. */
int
rsh_fake_root_new(char *root)
{
	char p[PATH_MAX + 32];

	rsh_fake_fmt(root, PATH_MAX, "/tmp/rsh-fake-sysfs-XXXXXX");
	if (mkdtemp(root) == NULL)
		return -errno;
	rsh_fake_fmt(p, sizeof(p), "%s/bus/pci/devices", root);
	rsh_fake_mkdirs(p);
	rsh_fake_fmt(p, sizeof(p), "%s/kernel/iommu_groups", root);
	return rsh_fake_mkdirs(p);
}

/* Write a file under root (creating its directory). */
int
rsh_fake_write(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX * 2], *slash;
	FILE *f;

	rsh_fake_fmt(p, sizeof(p), "%s/%s", root, rel);
	slash = strrchr(p, '/');
	*slash = '\0';
	rsh_fake_mkdirs(p);
	*slash = '/';
	f = fopen(p, "w");
	if (f == NULL)
		return -errno;
	fputs(text, f);
	fclose(f);
	return 0;
}

/* Write one attribute of a function. */
static void
rsh_fake_attr(const char *root, const char *bdf, const char *file,
	      const char *fmt, unsigned long v)
{
	char rel[256], text[128];

	rsh_fake_fmt(rel, sizeof(rel), "bus/pci/devices/%s/%s", bdf, file);
	rsh_fake_fmt(text, sizeof(text), fmt, v);
	rsh_fake_write(root, rel, text);
}

/* Sparse resource0 and a 256-byte config space with IDs and revision. */
static int
rsh_fake_bar_cfg(const char *dir, const struct rsh_fake_fn *fn)
{
	uint8_t cfg[256] = { 0 };
	char p[PATH_MAX * 2];
	int fd;

	rsh_fake_fmt(p, sizeof(p), "%s/resource0", dir);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)fn->bar_size) < 0)
		return -errno;
	close(fd);
	memcpy(cfg, &fn->vendor, 2);
	memcpy(cfg + 2, &fn->device, 2);
	cfg[8] = fn->revision;
	rsh_fake_fmt(p, sizeof(p), "%s/config", dir);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, cfg, sizeof(cfg)) != sizeof(cfg))
		return -errno;
	close(fd);
	return 0;
}

/* driver and iommu_group links (and the group's devices entry). */
static void
rsh_fake_links(const char *root, const char *dir, const struct rsh_fake_fn *fn)
{
	char tgt[PATH_MAX * 2], lnk[PATH_MAX * 2];

	if (fn->driver != NULL) {
		rsh_fake_fmt(tgt, sizeof(tgt), "%s/bus/pci/drivers/%s", root,
			 fn->driver);
		rsh_fake_mkdirs(tgt);
		rsh_fake_fmt(lnk, sizeof(lnk), "%s/driver", dir);
		symlink(tgt, lnk);
	}
	if (fn->group < 0)
		return;
	rsh_fake_fmt(tgt, sizeof(tgt), "%s/kernel/iommu_groups/%d/devices", root,
		 fn->group);
	rsh_fake_mkdirs(tgt);
	rsh_fake_fmt(lnk, sizeof(lnk), "%s/%s", tgt, fn->bdf);
	symlink(dir, lnk);
	rsh_fake_fmt(tgt, sizeof(tgt), "%s/kernel/iommu_groups/%d", root, fn->group);
	rsh_fake_fmt(lnk, sizeof(lnk), "%s/iommu_group", dir);
	symlink(tgt, lnk);
}

/* Add one function. */
int
rsh_fake_fn_add(const char *root, const struct rsh_fake_fn *fn)
{
	char dir[PATH_MAX * 2], rel[256], res[512];
	const char *cs = fn->cur_speed ? fn->cur_speed : "8.0 GT/s PCIe";
	const char *ms = fn->max_speed ? fn->max_speed : "8.0 GT/s PCIe";
	unsigned long long base = 0xe0000000ull;

	rsh_fake_fmt(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, fn->bdf);
	rsh_fake_mkdirs(dir);
	rsh_fake_attr(root, fn->bdf, "vendor", "0x%04lx\n", fn->vendor);
	rsh_fake_attr(root, fn->bdf, "device", "0x%04lx\n", fn->device);
	rsh_fake_attr(root, fn->bdf, "class", "0x%06lx\n", 0x080100);
	rsh_fake_attr(root, fn->bdf, "revision", "0x%02lx\n", fn->revision);
	rsh_fake_attr(root, fn->bdf, "irq", "%lu\n", 16);
	rsh_fake_attr(root, fn->bdf, "numa_node", "%lu\n", 0);
	rsh_fake_attr(root, fn->bdf, "enable", "%lu\n", 0);
	rsh_fake_attr(root, fn->bdf, "driver_override", "(null)%.0lu\n", 0);
	rsh_fake_attr(root, fn->bdf, "current_link_width", "%lu\n",
		      fn->cur_width ? fn->cur_width : 16);
	rsh_fake_attr(root, fn->bdf, "max_link_width", "%lu\n",
		      fn->max_width ? fn->max_width : 16);
	rsh_fake_fmt(rel, sizeof(rel), "bus/pci/devices/%s/current_link_speed",
		 fn->bdf);
	rsh_fake_fmt(res, sizeof(res), "%s\n", cs);
	rsh_fake_write(root, rel, res);
	rsh_fake_fmt(rel, sizeof(rel), "bus/pci/devices/%s/max_link_speed", fn->bdf);
	rsh_fake_fmt(res, sizeof(res), "%s\n", ms);
	rsh_fake_write(root, rel, res);
	rsh_fake_fmt(rel, sizeof(rel), "bus/pci/devices/%s/resource", fn->bdf);
	rsh_fake_fmt(res, sizeof(res), "0x%016llx 0x%016llx 0x%016llx\n"
		 "0x0000000000000000 0x0000000000000000 0x0000000000000000\n",
		 base, base + fn->bar_size - 1, 0x14220cull);
	rsh_fake_write(root, rel, res);
	if (rsh_fake_bar_cfg(dir, fn) < 0)
		return -EIO;
	rsh_fake_links(root, dir, fn);
	return 0;
}

/* pread/pwrite 8 bytes of a function's file. */
static int
rsh_fake_rw64(const char *root, const char *bdf, const char *file,
	      uint64_t off, uint64_t *v, int wr)
{
	char p[PATH_MAX * 2];
	ssize_t n;
	int fd;

	rsh_fake_fmt(p, sizeof(p), "%s/bus/pci/devices/%s/%s", root, bdf, file);
	fd = open(p, O_RDWR);
	if (fd < 0)
		return -errno;
	n = wr ? pwrite(fd, v, 8, (off_t)off) : pread(fd, v, 8, (off_t)off);
	close(fd);
	return n == 8 ? 0 : -EIO;
}

/* Read 8 bytes at off of <root>/bus/pci/devices/<bdf>/<file>. */
uint64_t
rsh_fake_read64(const char *root, const char *bdf, const char *file,
		uint64_t off)
{
	uint64_t v = 0xDEADDEADDEADDEADull;

	rsh_fake_rw64(root, bdf, file, off, &v, 0);
	return v;
}

/* Write 8 bytes at off of that file. */
void
rsh_fake_write64(const char *root, const char *bdf, const char *file,
		 uint64_t off, uint64_t v)
{
	rsh_fake_rw64(root, bdf, file, off, &v, 1);
}

/* Remove the tree. */
void
rsh_fake_root_free(const char *root)
{
	char cmd[PATH_MAX + 16];

	if (root == NULL || strncmp(root, "/tmp/rsh-fake-sysfs-", 20) != 0)
		return;
	rsh_fake_fmt(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
}

/* Number of open file descriptors of this process. */
int
rsh_fake_open_fds(void)
{
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the DIR's own fd */
}
