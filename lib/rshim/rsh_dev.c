/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device object: backend registry, open/close by device string,
 * control-path register access and device scan.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "rsh_cmd.h"
#include "rsh_dev_priv.h"
#include "rsh_log.h"

static TAILQ_HEAD(, rsh_backend_driver) rsh_drivers =
	TAILQ_HEAD_INITIALIZER(rsh_drivers);

/* Add a backend driver; called from constructors before main(). */
void
rsh_backend_register(struct rsh_backend_driver *drv)
{
	TAILQ_INSERT_TAIL(&rsh_drivers, drv, next);
}

/* Find a backend driver by name. */
const struct rsh_backend_driver *
rsh_backend_find(const char *name)
{
	struct rsh_backend_driver *drv;

	TAILQ_FOREACH(drv, &rsh_drivers, next)
		if (strcmp(drv->name, name) == 0)
			return drv;
	return NULL;
}

/* The driver whose match() accepts the device string. */
static struct rsh_backend_driver *
rsh_backend_match(const char *devstr)
{
	struct rsh_backend_driver *drv;

	TAILQ_FOREACH(drv, &rsh_drivers, next)
		if (drv->match(devstr))
			return drv;
	return NULL;
}

/* A cfg_only backend (a livefish function, hardware-notes §1.7): put
 * the driver that can reach its registers through config space on top;
 * the new backend owns the probed one. */
static int
rsh_dev_stack(struct rsh_backend **be)
{
	struct rsh_backend_driver *drv;
	struct rsh_backend *top = NULL, *low = *be;
	int rc;

	TAILQ_FOREACH(drv, &rsh_drivers, next) {
		if (drv->stack == NULL)
			continue;
		rc = drv->stack(low, &top);
		if (rc < 0) {
			low->ops->close(low);
			return rc;
		}
		top->drv = low->drv;
		*be = top;
		return 0;
	}
	rsh_err_set("%s: a livefish function, but no livefish gateway driver is built in",
		    low->name);
	low->ops->close(low);
	return -ENOTSUP;
}

/* Is there a backend for this device string? */
int
rsh_dev_check(const char *devstr)
{
	if (devstr == NULL || *devstr == '\0') {
		rsh_err_set("empty device string (use a PCI address like 0000:03:00.2 or sim:bf3)");
		return -EINVAL;
	}
	if (rsh_backend_match(devstr) == NULL) {
		rsh_err_set("%s: unknown device string (use a PCI address like 0000:03:00.2, or sim:bf1, sim:bf2, sim:bf3)",
			    devstr);
		return -EINVAL;
	}
	return 0;
}

/* Host-wide name of a device string (see rsh.h). */
int
rsh_dev_host_key(const char *devstr, char *key, size_t len)
{
	struct rsh_backend_driver *drv;
	int rc = rsh_dev_check(devstr);

	if (rc < 0)
		return rc;
	drv = rsh_backend_match(devstr);
	return drv->host_key != NULL ? drv->host_key(devstr, key, len) : 0;
}

/* Open a device by string through the matching backend. */
int
rsh_dev_open(const char *devstr, const struct rsh_open_opts *opts,
	     struct rsh_dev **out)
{
	static const struct rsh_open_opts no_opts;
	struct rsh_backend_driver *drv;
	struct rsh_backend *be = NULL;
	struct rsh_dev *dev;
	int rc;

	rsh_err_set("%s", "");
	rc = rsh_dev_check(devstr);
	if (rc < 0)
		return rc;
	drv = rsh_backend_match(devstr);
	rc = drv->probe(devstr, opts ? opts : &no_opts, &be);
	if (rc < 0)
		return rc;
	be->drv = drv;
	if (be->cfg_only) {
		rc = rsh_dev_stack(&be);
		if (rc < 0)
			return rc;
	}
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL) {
		rc = -ENOMEM;
		goto err_close;
	}
	rc = rsh_regmap_init(&dev->map, be->gen);
	if (rc < 0) {
		rsh_err_set("%s: backend reported an unknown BlueField generation %d",
			    be->name, be->gen);
		goto err_free;
	}
	snprintf(dev->name, sizeof(dev->name), "%s", be->name);
	dev->be = be;
	rsh_misc_cfg_default(&dev->misc);
	rc = rsh_dev_svc_alloc(dev);
	if (rc < 0)
		goto err_free;
	/* Not on a poller yet: this thread owns the registers (§6.3). */
	rc = rsh_dev_svc_init(dev, opts ? opts : &no_opts);
	if (rc < 0)
		goto err_free;
	*out = dev;
	RSH_DEV_LOG(INFO, dev, "opened (%s, backend %s)",
		    rsh_gen_name(be->gen), drv->name);
	return 0;
err_free:
	rsh_dev_svc_free(dev);
	free(dev);
err_close:
	be->ops->close(be);
	return rc;
}

/* Close a device and its backend. */
void
rsh_dev_close(struct rsh_dev *dev)
{
	if (dev == NULL)
		return;
	if (dev->poller != NULL) {
		/* -ETIMEDOUT: a wedged loop still holds dev; freeing it would
		 * hand the loop freed memory when it runs again. */
		if (rsh_poller_remove(dev->poller, dev) == -ETIMEDOUT) {
			RSH_DEV_LOG(ERR, dev, "%s; the device stays allocated", rsh_last_error());
			return;
		}
	} else {
		rsh_dev_svc_stop(dev);
	}
	/* Off the poller: this thread releases the device (§2.8, §6). */
	rsh_dev_svc_fini(dev);
	rsh_dev_svc_free(dev);
	dev->be->ops->close(dev->be);
	free(dev);
}

/* Device name. */
const char *
rsh_dev_name(const struct rsh_dev *dev)
{
	return dev->name;
}

/* Backend driver name (internal: the public form is rsh_dev_get_info). */
const char *
rsh_dev_drv_name(const struct rsh_dev *dev)
{
	return dev->be->drv ? dev->be->drv->name : "?";
}

/* Identity of an open device, see rsh.h. */
int
rsh_dev_get_info(const struct rsh_dev *dev, struct rsh_dev_info *info)
{
	if (dev == NULL || info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", dev->name);
	snprintf(info->driver, sizeof(info->driver), "%s", rsh_dev_drv_name(dev));
	info->gen = dev->be->gen;
	info->revision = dev->be->revision;
	info->bar_size = dev->be->bar_size;
	info->supported = true;
	info->livefish = dev->be->livefish;
	info->iommu_group = -1;
	info->numa_node = -1;
	return 0;
}

/* Snapshot of the MMIO counters (single writer; relaxed loads). */
void
rsh_dev_get_stats(const struct rsh_dev *dev, struct rsh_mmio_stats *st)
{
	st->reads = __atomic_load_n(&dev->be->stats.reads, __ATOMIC_RELAXED);
	st->writes = __atomic_load_n(&dev->be->stats.writes, __ATOMIC_RELAXED);
}

/* Refuse register work while a boot push owns the device, or while the
 * device is dropped (another driver's, §6.4). */
static int
rsh_dev_check_boot(struct rsh_dev *dev)
{
	int rc = rsh_own_access_ok(dev);

	if (rc < 0)
		return rc;
	if (__atomic_load_n(&rsh_dev_boot_state(dev)->push, __ATOMIC_ACQUIRE) != NULL) {
		rsh_err_set("%s: a boot push owns the device", dev->name);
		return -EBUSY;
	}
	return 0;
}

/* One register access by table name: reg, and the value written or read. */
struct rsh_dev_reg_cmd {
	struct rsh_cmd c;
	enum rsh_reg reg;
	uint64_t val;
};

/* Command step: one register read into val. */
static int
rsh_dev_read_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_dev_reg_cmd *r = container_of(c, struct rsh_dev_reg_cmd, c);
	int rc = rsh_dev_check_boot(c->dev);

	RTE_SET_USED(now);
	if (rc == 0)
		r->val = rsh_dev_rd(c->dev, r->reg);
	return rsh_cmd_finish(c, rc);
}

/* Command step: one register write of val. */
static int
rsh_dev_write_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_dev_reg_cmd *r = container_of(c, struct rsh_dev_reg_cmd, c);
	int rc = rsh_dev_check_boot(c->dev);

	RTE_SET_USED(now);
	if (rc == 0)
		rsh_dev_wr(c->dev, r->reg, r->val);
	return rsh_cmd_finish(c, rc);
}

static const struct rsh_cmd_type rsh_dev_read_type = {
	.name = "register read", .step = rsh_dev_read_step, .run_ms = 1000,
};
static const struct rsh_cmd_type rsh_dev_write_type = {
	.name = "register write", .step = rsh_dev_write_step, .run_ms = 1000,
};

/* Control-path register read with the error-pattern check of §1.4. */
int
rsh_dev_reg_read(struct rsh_dev *dev, enum rsh_reg reg, uint64_t *val)
{
	struct rsh_dev_reg_cmd r = { .reg = reg };
	uint64_t v;
	int rc;

	if ((unsigned int)reg >= RSH_REG_COUNT)
		return -EINVAL;
	rc = RSH_CMD_CALL(&rsh_dev_read_type, dev, &r, c);
	if (rc < 0)
		return rc;
	v = r.val;
	rc = rsh_dev_val_err(v);
	if (rc == -ENODEV)
		rsh_err_set("%s: %s read all-ones: the device is gone (removed, reset or powered off)",
			    dev->name, rsh_reg_name(reg));
	else if (rc == -EIO)
		rsh_err_set("%s: %s read 0x%" PRIx64 ": the rshim is not reachable (ARM in reset?); retry in a few seconds",
			    dev->name, rsh_reg_name(reg), v);
	*val = v;
	return rc;
}

/* Control-path register write. */
int
rsh_dev_reg_write(struct rsh_dev *dev, enum rsh_reg reg, uint64_t val)
{
	struct rsh_dev_reg_cmd w = { .reg = reg, .val = val };

	if ((unsigned int)reg >= RSH_REG_COUNT)
		return -EINVAL;
	return RSH_CMD_CALL(&rsh_dev_write_type, dev, &w, c);
}

/* List the devices of every backend that can scan. */
int
rsh_dev_scan(const struct rsh_open_opts *opts, bool include_sim,
	     struct rsh_dev_info *info, unsigned int max)
{
	static const struct rsh_open_opts no_opts;
	struct rsh_backend_driver *drv;
	unsigned int total = 0;
	int n;

	TAILQ_FOREACH(drv, &rsh_drivers, next) {
		if (drv->scan == NULL)
			continue;
		if (!include_sim && drv->emulated)
			continue;
		n = drv->scan(opts ? opts : &no_opts,
			      total < max ? info + total : NULL,
			      total < max ? max - total : 0);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

/* The device-string options of every driver that documents them. */
void
rsh_dev_help(FILE *f)
{
	struct rsh_backend_driver *drv;

	TAILQ_FOREACH(drv, &rsh_drivers, next)
		if (drv->help != NULL)
			drv->help(f);
}
