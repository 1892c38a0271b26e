/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VFIO backend: the bring-up sequence and its error paths with
 * -Wl,--wrap= seams for the rte_vfio_* container/group calls, ioctl, mmap
 * and access. The "device fd" is a sparse temp file: BAR0 at offset 0 and
 * the config region at an offset that is NOT the index << 40 convention,
 * so a hard-coded offset would fail. Every case checks that nothing is
 * left open.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/vfio.h>

#include "rsh_backend.h"
#include "rsh_fake_sysfs.h"
#include "rsh_pci_priv.h"

#define RSH_T_CFG_OFF 0x40000000ull /* queried config region offset */
#define RSH_T_GROUP 7

/* The fake kernel of one case. */
struct rsh_tv {
	char root[PATH_MAX];
	char vdir[PATH_MAX + 16];
	char devfile[PATH_MAX + 16];
	struct rsh_open_opts opts;
	const struct rsh_backend_driver *drv;
	int fds;
	/* knobs */
	bool no_container, not_viable, no_mmap_flag, mmap_fail, deny;
	int api_version;
	uint64_t bar_size;
	/* observed */
	int container_fd, group_fd, dev_fd;
	int destroyed, unbound, set_iommu_type, ext_type;
	int irq_sets, irq_last_count;
	uint32_t irq_last_flags;
};

static struct rsh_tv *rsh_tv; /* the running case, for the wrappers */

int __real_ioctl(int fd, unsigned long req, ...);
void *__real_mmap(void *a, size_t l, int p, int f, int fd, off_t o);
void *__real_mmap64(void *a, size_t l, int p, int f, int fd, off_t o);
int __real_access(const char *path, int mode);

/* wrap: a container is /dev/null, or fails. */
int
__wrap_rte_vfio_container_create(void)
{
	if (rsh_tv->no_container)
		return -1;
	rsh_tv->container_fd = open("/dev/null", O_RDWR);
	return rsh_tv->container_fd;
}

/* wrap: destroy closes the container (and an unreleased group). */
int
__wrap_rte_vfio_container_destroy(int fd)
{
	assert_int_equal(fd, rsh_tv->container_fd);
	rsh_tv->destroyed++;
	return close(fd);
}

/* wrap: binding a group opens it. */
int
__wrap_rte_vfio_container_group_bind(int cfd, int num)
{
	assert_int_equal(cfd, rsh_tv->container_fd);
	assert_int_equal(num, RSH_T_GROUP);
	rsh_tv->group_fd = open("/dev/null", O_RDWR);
	return rsh_tv->group_fd;
}

/* wrap: unbinding closes the group fd. */
int
__wrap_rte_vfio_container_group_unbind(int cfd, int num)
{
	assert_int_equal(cfd, rsh_tv->container_fd);
	assert_int_equal(num, RSH_T_GROUP);
	rsh_tv->unbound++;
	return close(rsh_tv->group_fd);
}

/* Container and group ioctls. */
static int
rsh_tv_ioctl_cg(unsigned long req, void *arg)
{
	struct vfio_group_status *gs = arg;

	switch (req) {
	case VFIO_GET_API_VERSION:
		return rsh_tv->api_version;
	case VFIO_CHECK_EXTENSION:
		rsh_tv->ext_type = (int)(uintptr_t)arg;
		return 1;
	case VFIO_SET_IOMMU:
		rsh_tv->set_iommu_type = (int)(uintptr_t)arg;
		return 0;
	case VFIO_GROUP_GET_STATUS:
		gs->flags = rsh_tv->not_viable ? 0 : VFIO_GROUP_FLAGS_VIABLE;
		return 0;
	case VFIO_GROUP_SET_CONTAINER:
		return *(int *)arg == rsh_tv->container_fd ? 0 : -1;
	case VFIO_GROUP_GET_DEVICE_FD:
		assert_string_equal((const char *)arg, "0000:03:00.2");
		rsh_tv->dev_fd = open(rsh_tv->devfile, O_RDWR);
		return rsh_tv->dev_fd;
	}
	return -1;
}

/* Device-fd ioctls. */
static int
rsh_tv_ioctl_dev(unsigned long req, void *arg)
{
	struct vfio_device_info *di = arg;
	struct vfio_region_info *ri = arg;
	struct vfio_irq_info *ii = arg;
	struct vfio_irq_set *is = arg;

	switch (req) {
	case VFIO_DEVICE_GET_INFO:
		di->num_regions = VFIO_PCI_NUM_REGIONS;
		di->num_irqs = VFIO_PCI_NUM_IRQS;
		return 0;
	case VFIO_DEVICE_GET_REGION_INFO:
		ri->flags = VFIO_REGION_INFO_FLAG_READ |
			    VFIO_REGION_INFO_FLAG_WRITE;
		if (ri->index == VFIO_PCI_BAR0_REGION_INDEX) {
			ri->size = rsh_tv->bar_size;
			ri->offset = 0;
			if (!rsh_tv->no_mmap_flag)
				ri->flags |= VFIO_REGION_INFO_FLAG_MMAP;
		} else if (ri->index == VFIO_PCI_CONFIG_REGION_INDEX) {
			ri->size = 256;
			ri->offset = RSH_T_CFG_OFF;
		}
		return 0;
	case VFIO_DEVICE_GET_IRQ_INFO:
		ii->flags = VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_MASKABLE;
		ii->count = 1;
		return 0;
	case VFIO_DEVICE_SET_IRQS:
		rsh_tv->irq_sets++;
		rsh_tv->irq_last_count = is->count;
		rsh_tv->irq_last_flags = is->flags;
		return 0;
	}
	return -1;
}

/* wrap: ioctl on the fake fds; everything else is real. */
int
__wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (rsh_tv != NULL && fd >= 0 &&
	    (fd == rsh_tv->container_fd || fd == rsh_tv->group_fd))
		return rsh_tv_ioctl_cg(req, arg);
	if (rsh_tv != NULL && fd >= 0 && fd == rsh_tv->dev_fd)
		return rsh_tv_ioctl_dev(req, arg);
	return __real_ioctl(fd, req, arg);
}

/* wrap: mmap failure injection on the device fd. */
void *
__wrap_mmap(void *a, size_t l, int p, int f, int fd, off_t o)
{
	if (rsh_tv != NULL && rsh_tv->mmap_fail && fd == rsh_tv->dev_fd) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return __real_mmap(a, l, p, f, fd, o);
}

/* wrap: mmap64, what mmap becomes with _FILE_OFFSET_BITS=64. */
void *
__wrap_mmap64(void *a, size_t l, int p, int f, int fd, off_t o)
{
	if (rsh_tv != NULL && rsh_tv->mmap_fail && fd == rsh_tv->dev_fd) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return __real_mmap64(a, l, p, f, fd, o);
}

/* wrap: access() as a non-root user would see the group node. */
int
__wrap_access(const char *path, int mode)
{
	if (rsh_tv != NULL && rsh_tv->deny &&
	    strncmp(path, rsh_tv->vdir, strlen(rsh_tv->vdir)) == 0) {
		errno = EACCES;
		return -1;
	}
	return __real_access(path, mode);
}

/* Setup: a BF2 bound to vfio-pci in group 7, /dev/vfio/{vfio,7}, the
 * device file with config (vendor, device, rev 5) at RSH_T_CFG_OFF. */
static int
rsh_tv_setup(void **state)
{
	static struct rsh_tv t;
	struct rsh_fake_fn fn = { .bdf = "0000:03:00.2", .vendor = 0x15b3,
				  .device = 0xc2d3, .revision = 1,
				  .bar_size = 0x100000, .driver = "vfio-pci",
				  .group = RSH_T_GROUP };
	uint8_t cfg[16] = { 0xb3, 0x15, 0xd3, 0xc2, 0, 0, 0, 0, 5 };
	int fd;

	memset(&t, 0, sizeof(t));
	t.container_fd = t.group_fd = t.dev_fd = -1;
	t.bar_size = 0x100000;
	if (rsh_fake_root_new(t.root) < 0 || rsh_fake_fn_add(t.root, &fn))
		return -1;
	rsh_fake_write(t.root, "dev/vfio/vfio", "");
	rsh_fake_write(t.root, "dev/vfio/7", "");
	snprintf(t.vdir, sizeof(t.vdir), "%s/dev/vfio", t.root);
	snprintf(t.devfile, sizeof(t.devfile), "%s/vfio-dev", t.root);
	fd = open(t.devfile, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, RSH_T_CFG_OFF + 256) < 0 ||
	    pwrite(fd, cfg, sizeof(cfg), RSH_T_CFG_OFF) != sizeof(cfg))
		return -1;
	close(fd);
	rsh_pci_vfio_dir = t.vdir;
	t.opts.sysfs_root = t.root;
	t.drv = rsh_backend_find("pci");
	t.fds = rsh_fake_open_fds();
	rsh_tv = &t;
	*state = &t;
	return t.drv == NULL ? -1 : 0;
}

/* Teardown: remove the tree; fail if anything is left open. */
static int
rsh_tv_teardown(void **state)
{
	struct rsh_tv *t = *state;
	int fds = rsh_fake_open_fds();

	rsh_tv = NULL;
	rsh_pci_vfio_dir = "/dev/vfio";
	rsh_fake_root_free(t->root);
	if (fds != t->fds)
		fprintf(stderr, "fd leak: %d open, %d before\n", fds, t->fds);
	return fds == t->fds ? 0 : -1;
}

/* Probe must fail with rc, a message containing want, nothing open. */
static void
rsh_tv_fail(struct rsh_tv *t, int rc, const char *want)
{
	struct rsh_backend *be = NULL;

	assert_int_equal(t->drv->probe("03:00.2,mapping=vfio", &t->opts, &be), rc);
	assert_null(be);
	if (strstr(rsh_last_error(), want) == NULL)
		fail_msg("message '%s' lacks '%s'", rsh_last_error(), want);
	assert_int_equal(rsh_fake_open_fds(), t->fds);
}

/* Success: BAR0 mapped at the region offset, config at the QUERIED
 * offset, INTx set up and torn down with count 0. */
static void
test_vfio_success(void **state)
{
	struct rsh_tv *t = *state;
	struct rsh_backend *be = NULL;
	uint64_t v = 0;
	int fd;

	assert_int_equal(t->drv->probe("pcie-0000:03:00.2,mapping=vfio", &t->opts, &be), 0);
	assert_int_equal(((struct rsh_pci_dev *)be)->mapping, RSH_PCI_MAP_VFIO);
	assert_int_equal(be->bar_size, 0x100000);
	assert_int_equal(be->revision, 5); /* from the VFIO config region */
	assert_int_equal(t->ext_type, VFIO_TYPE1_IOMMU);
	assert_int_equal(t->set_iommu_type, VFIO_TYPE1_IOMMU);
	assert_int_equal(t->irq_sets, 2); /* trigger eventfd, then unmask */
	assert_int_equal(t->irq_last_flags, VFIO_IRQ_SET_DATA_NONE |
			 VFIO_IRQ_SET_ACTION_UNMASK);
	be->ops->write64(be, 0x10C20, 0xfeedull);
	fd = open(t->devfile, O_RDONLY);
	assert_int_equal(pread(fd, &v, 8, 0x10C20), 8);
	assert_int_equal(v, 0xfeedull);
	assert_int_equal(pread(fd, &v, 2, RSH_T_CFG_OFF + 4), 2);
	assert_int_equal(v & 0x6, 0x6); /* MEMORY|MASTER */
	close(fd);
	/* INTx: nothing pending, then one eventfd event, re-armed (unmask). */
	assert_int_equal(be->ops->irq_poll(be), 0);
	v = 1;
	assert_int_equal(write(((struct rsh_pci_dev *)be)->irq_fd, &v, 8), 8);
	assert_int_equal(be->ops->irq_poll(be), 1);
	assert_int_equal(t->irq_sets, 3);
	assert_int_equal(t->irq_last_flags, VFIO_IRQ_SET_DATA_NONE |
			 VFIO_IRQ_SET_ACTION_UNMASK);
	assert_int_equal(be->ops->irq_poll(be), 0);
	be->ops->close(be);
	assert_int_equal(t->irq_sets, 4);
	assert_int_equal(t->irq_last_count, 0); /* §2.5 step 8: disable */
	assert_int_equal(t->irq_last_flags, VFIO_IRQ_SET_DATA_NONE |
			 VFIO_IRQ_SET_ACTION_TRIGGER);
	assert_int_equal(t->unbound, 1);
	assert_int_equal(t->destroyed, 1);
}

/* No container: modprobe hint. */
static void
test_vfio_no_container(void **state)
{
	struct rsh_tv *t = *state;

	t->no_container = true;
	rsh_tv_fail(t, -ENODEV, "cannot open a VFIO container");
	rsh_tv_fail(t, -ENODEV, "modprobe vfio-pci");
}

/* API mismatch: named versions; the container is destroyed. */
static void
test_vfio_api_mismatch(void **state)
{
	struct rsh_tv *t = *state;

	t->api_version = 1;
	rsh_tv_fail(t, -ENOTSUP, "VFIO API version 1, expected 0");
	assert_int_equal(t->destroyed, 1);
}

/* Group not viable: lists the other devices and their drivers. */
static void
test_vfio_group_not_viable(void **state)
{
	struct rsh_tv *t = *state;
	struct rsh_fake_fn nic = { .bdf = "0000:03:00.0", .vendor = 0x15b3,
				   .device = 0xa2d6, .bar_size = 0x2000000,
				   .driver = "mlx5_core", .group = RSH_T_GROUP };

	rsh_fake_fn_add(t->root, &nic);
	t->not_viable = true;
	rsh_tv_fail(t, -EBUSY, "0000:03:00.2: IOMMU group 7 not viable; other "
		    "devices in it: 0000:03:00.0 (mlx5_core); bind them to "
		    "vfio-pci too");
	assert_int_equal(t->unbound, 1);
	assert_int_equal(t->destroyed, 1);
}

/* No MMAP flag on BAR0. */
static void
test_vfio_no_mmap_flag(void **state)
{
	struct rsh_tv *t = *state;

	t->no_mmap_flag = true;
	rsh_tv_fail(t, -ENOTSUP, "not mmap-able (no MMAP flag)");
}

/* mmap failure. */
static void
test_vfio_mmap_failure(void **state)
{
	struct rsh_tv *t = *state;

	t->mmap_fail = true;
	rsh_tv_fail(t, -ENOMEM, "mmap of VFIO BAR0 (0x100000 bytes) failed");
}

/* Permission denied on the group node names node and owner. */
static void
test_vfio_permission_denied(void **state)
{
	struct rsh_tv *t = *state;
	char want[PATH_MAX + 64];

	t->deny = true;
	snprintf(want, sizeof(want), "permission denied on %s/7 (owner ",
		 t->vdir);
	rsh_tv_fail(t, -EACCES, want);
	assert_int_equal(t->destroyed, 0); /* refused before any container */
}

/* IOMMU off: no iommu_group link; kernel parameter and noiommu named. */
static void
test_vfio_iommu_off(void **state)
{
	struct rsh_tv *t = *state;
	char lnk[PATH_MAX + 64];

	snprintf(lnk, sizeof(lnk), "%s/bus/pci/devices/0000:03:00.2/"
		 "iommu_group", t->root);
	assert_int_equal(unlink(lnk), 0);
	rsh_tv_fail(t, -ENODEV, "no IOMMU group (IOMMU off); boot with "
		    "intel_iommu=on");
	rsh_tv_fail(t, -ENODEV, "enable_unsafe_noiommu_mode=1");
}

/* vfio-pci not loaded: no /dev/vfio. */
static void
test_vfio_not_loaded(void **state)
{
	struct rsh_tv *t = *state;
	char want[PATH_MAX + 64];

	rsh_pci_vfio_dir = "/nonexistent/dev/vfio";
	snprintf(want, sizeof(want), "vfio-pci not loaded (no %s); run: "
		 "modprobe vfio-pci", rsh_pci_vfio_dir);
	rsh_tv_fail(t, -ENODEV, want);
}

/* noiommu: group node noiommu-7, NOIOMMU container type, BAR too small. */
static void
test_vfio_noiommu_and_small_bar(void **state)
{
	struct rsh_tv *t = *state;
	struct rsh_backend *be = NULL;
	char node[PATH_MAX + 32];

	rsh_fake_write(t->root, "module/vfio/parameters/"
		       "enable_unsafe_noiommu_mode", "Y\n");
	snprintf(node, sizeof(node), "%s/7", t->vdir);
	unlink(node);
	rsh_fake_write(t->root, "dev/vfio/noiommu-7", "");
	assert_int_equal(t->drv->probe("03:00.2,mapping=vfio", &t->opts, &be), 0);
	assert_int_equal(t->ext_type, VFIO_NOIOMMU_IOMMU);
	assert_int_equal(t->set_iommu_type, VFIO_NOIOMMU_IOMMU);
	be->ops->close(be);
	t->bar_size = 0x10000;
	rsh_tv_fail(t, -ENODEV, "BAR0 is 64 KiB but BlueField-2 needs 1024 KiB");
}

int
main(void)
{
#define RSH_T(f) cmocka_unit_test_setup_teardown(f, rsh_tv_setup, rsh_tv_teardown)
	const struct CMUnitTest tests[] = {
		RSH_T(test_vfio_success),
		RSH_T(test_vfio_no_container),
		RSH_T(test_vfio_api_mismatch),
		RSH_T(test_vfio_group_not_viable),
		RSH_T(test_vfio_no_mmap_flag),
		RSH_T(test_vfio_mmap_failure),
		RSH_T(test_vfio_permission_denied),
		RSH_T(test_vfio_iommu_off),
		RSH_T(test_vfio_not_loaded),
		RSH_T(test_vfio_noiommu_and_small_bar),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
