/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Register access by name or by address, as bf-reg does it (hardware-notes
 * §1.3 address forms, §5.3 widths): parse `NAME|0xADDR[.32|.64][=VALUE]`,
 * check bounds and alignment, refuse FIFO data registers where an access
 * would lose data, then one read or write.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rsh_cmd.h"
#include "rsh_dev_priv.h"
#include "rsh_log.h"
#include "rsh_own.h"

#define RSH_REQ_BFREG_BIT 0x10000000u /* bf-reg ORs bit 28 in, §1.3 */

/* Table register by name ("BOOT_CONTROL", "rsh_boot_control"). */
static int
rsh_req_find(const char *name, size_t n)
{
	if (n > 4 && strncasecmp(name, "RSH_", 4) == 0) {
		name += 4;
		n -= 4;
	}
	for (int i = 0; i < RSH_REG_COUNT; i++) {
		const char *r = rsh_reg_name((enum rsh_reg)i);

		if (strlen(r) == n && strncasecmp(r, name, n) == 0)
			return i;
	}
	return -1;
}

/* The BAR offset of a bf-reg address for a generation. */
static int
rsh_req_addr(enum rsh_gen gen, uint32_t addr, uint32_t *bar_off)
{
	if (gen == RSH_GEN_BF3) {
		if (rsh_reg_bf3_global_to_bar(addr | RSH_REQ_BFREG_BIT, bar_off) == 0)
			return 0;
		rsh_err_set("address 0x%08x is outside the BlueField-3 rshim window 0x13000000-0x137FFFFF",
			    addr);
		return -EINVAL;
	}
	addr &= ~RSH_REQ_BFREG_BIT;
	if (addr < RSH_BAR0_SIZE_BF12) {
		*bar_off = addr;
		return 0;
	}
	rsh_err_set("address 0x%08x is outside the BlueField-%d BAR (channel<<16 | offset, at most 0x000FFFFF)",
		    addr, gen);
	return -EINVAL;
}

/* The register part: a name or an address, up to '.' or '='. */
static int
rsh_req_target(enum rsh_gen gen, const char *s, size_t n, struct rsh_reg_req *req)
{
	struct rsh_regmap map;
	char *end;
	unsigned long a;
	int i;

	if (n == 0) {
		rsh_err_set("no register given (a name like BOOT_CONTROL, or an address like 0x%s)",
			    gen == RSH_GEN_BF3 ? "13000528" : "00010528");
		return -EINVAL;
	}
	if (isdigit((unsigned char)s[0])) {
		errno = 0;
		a = strtoul(s, &end, 16);
		if (errno != 0 || (size_t)(end - s) != n || a > UINT32_MAX) {
			rsh_err_set("bad register address '%.*s' (hex, e.g. 0x%s)", (int)n, s,
				    gen == RSH_GEN_BF3 ? "13000528" : "00010528");
			return -EINVAL;
		}
		req->addr = (uint32_t)a;
		return rsh_req_addr(gen, req->addr, &req->bar_off);
	}
	i = rsh_req_find(s, n);
	if (i < 0 || rsh_regmap_init(&map, (enum rsh_gen)gen) < 0) {
		rsh_err_set("unknown register '%.*s' (names: BOOT_CONTROL, RESET_CONTROL, SCRATCHPAD1..., or a hex address)",
			    (int)n, s);
		return -EINVAL;
	}
	snprintf(req->name, sizeof(req->name), "%s", rsh_reg_name((enum rsh_reg)i));
	req->bar_off = map.off[i];
	req->addr = req->bar_off;
	return 0;
}

/* Width and value: ".32"/".64", "=VALUE". */
static int
rsh_req_tail(const char *s, struct rsh_reg_req *req)
{
	char *end;

	req->size = 8;
	if (*s == '.') {
		if (strncmp(s, ".32", 3) == 0)
			req->size = 4;
		else if (strncmp(s, ".64", 3) != 0) {
			rsh_err_set("bad access width '%s' (.32 or .64)", s);
			return -EINVAL;
		}
		s += 3;
	}
	if (*s == '\0')
		return 0;
	if (*s != '=' || s[1] == '\0') {
		rsh_err_set("unexpected '%s' after the register (give =VALUE to write)", s);
		return -EINVAL;
	}
	errno = 0;
	req->value = strtoull(s + 1, &end, 0);
	if (errno != 0 || *end != '\0' || s[1] == '-' ||
	    (req->size == 4 && req->value > UINT32_MAX)) {
		rsh_err_set("bad value '%s' (a %u-bit number, e.g. 0x1)", s + 1, req->size * 8);
		return -EINVAL;
	}
	req->write = true;
	return 0;
}

/* Parse a request. */
int
rsh_reg_req_parse(enum rsh_gen gen, const char *spec, struct rsh_reg_req *req)
{
	size_t n = strcspn(spec, ".=");
	int rc;

	memset(req, 0, sizeof(*req));
	if (gen != RSH_GEN_BF1 && gen != RSH_GEN_BF2 && gen != RSH_GEN_BF3) {
		rsh_err_set("unknown BlueField generation %d", gen);
		return -EINVAL;
	}
	/* "0x1300.0528" is no address: a '.' right after hex digits that is
	 * not a width is reported by the width check. */
	rc = rsh_req_target(gen, spec, n, req);
	if (rc == 0)
		rc = rsh_req_tail(spec + n, req);
	if (rc == 0 && (req->bar_off & (req->size - 1)) != 0) {
		rsh_err_set("address 0x%08x is not aligned to its %u-byte access", req->addr,
			    req->size);
		rc = -EINVAL;
	}
	return rc;
}

/* Refuse FIFO data registers where an access would lose data. */
static int
rsh_req_guard(struct rsh_dev *dev, const struct rsh_reg_req *req)
{
	uint32_t off = req->bar_off & ~7u;

	if (__atomic_load_n(&rsh_dev_boot_state(dev)->push, __ATOMIC_ACQUIRE) != NULL) {
		if (off == dev->map.off[RSH_BOOT_FIFO_DATA])
			rsh_err_set("%s: refusing BOOT_FIFO_DATA while a boot push runs: the access would corrupt the boot stream",
				    dev->name);
		else
			rsh_err_set("%s: a boot push owns the device; access registers after it", dev->name);
		return -EBUSY;
	}
	if (__atomic_load_n(&rsh_dev_tmfifo_state(dev)->t, __ATOMIC_ACQUIRE) != NULL &&
	    (off == dev->map.off[RSH_TM_HOST_TO_TILE_DATA] ||
	     off == dev->map.off[RSH_TM_TILE_TO_HOST_DATA])) {
		rsh_err_set("%s: refusing a TM FIFO data register while the console/network channels run: the access would lose a message",
			    dev->name);
		return -EBUSY;
	}
	if (req->write && req->size == 4 && dev->be->ops->write32 == NULL) {
		rsh_err_set("%s: 32-bit writes are not supported by the %s backend; use .64",
			    dev->name, rsh_dev_drv_name(dev));
		return -ENOTSUP;
	}
	return 0;
}

/* One read: a 32-bit read is the backend's 32-bit access, or the half of
 * its aligned 64-bit word (checked for the error patterns as a whole). */
static int
rsh_req_read(struct rsh_dev *dev, struct rsh_reg_req *req)
{
	uint64_t v = req->size == 4 && dev->be->ops->read32 != NULL ?
		     dev->be->ops->read32(dev->be, req->bar_off) :
		     dev->be->ops->read64(dev->be, req->bar_off & ~7u);
	int rc = req->size == 4 && dev->be->ops->read32 != NULL ?
		 (v == UINT32_MAX ? -ENODEV : 0) : rsh_dev_val_err(v);

	if (rc == -ENODEV)
		rsh_err_set("%s: 0x%08x read all-ones: the device is gone", dev->name, req->addr);
	else if (rc < 0)
		rsh_err_set("%s: 0x%08x read 0x%" PRIx64 ": the rshim is not reachable (ARM in reset?)",
			    dev->name, req->addr, v);
	if (req->size == 4 && dev->be->ops->read32 == NULL)
		v = (req->bar_off & 4) ? v >> 32 : v & UINT32_MAX;
	req->value = v;
	return rc;
}

/* The request by address: a copy, value read back into it. */
struct rsh_req_cmd {
	struct rsh_cmd c;
	struct rsh_reg_req req;
};

/* Command step: guard, then the access. */
static int
rsh_req_step(struct rsh_cmd *c, uint64_t now)
{
	struct rsh_reg_req *req = &container_of(c, struct rsh_req_cmd, c)->req;
	int rc = rsh_own_access_ok(c->dev);

	RTE_SET_USED(now);
	if (rc == 0)
		rc = rsh_req_guard(c->dev, req);
	if (rc == 0 && req->write && req->size == 4)
		c->dev->be->ops->write32(c->dev->be, req->bar_off, (uint32_t)req->value);
	else if (rc == 0 && req->write)
		c->dev->be->ops->write64(c->dev->be, req->bar_off, req->value);
	else if (rc == 0)
		rc = rsh_req_read(c->dev, req);
	if (rc == 0 && unlikely(rsh_reg_trace_cmd != NULL))
		rsh_reg_trace(c->dev, req->bar_off, req->size * 8, req->write, req->value);
	return rsh_cmd_finish(c, rc);
}

static const struct rsh_cmd_type rsh_req_type = {
	.name = "register access", .step = rsh_req_step, .run_ms = 1000,
};

/* Run a parsed request on the device's owning thread. */
int
rsh_dev_reg_req(struct rsh_dev *dev, struct rsh_reg_req *req)
{
	struct rsh_req_cmd r;
	int rc;

	if (req->bar_off >= dev->map.bar_size) {
		rsh_err_set("%s: BAR offset 0x%x is outside the 0x%x-byte BAR", dev->name,
			    req->bar_off, dev->map.bar_size);
		return -EINVAL;
	}
	memset(&r.c, 0, sizeof(r.c));
	r.req = *req;
	rc = RSH_CMD_CALL(&rsh_req_type, dev, &r, c);
	if (rc != -ETIMEDOUT)
		req->value = r.req.value;
	return rc;
}

/* The ioctl address as the control API parses it (§1.3, §5.3): BF1/BF2
 * channel<<16|offset, BF3 the global address (channel<<16|offset forms
 * are decoded through the BF3 channel map first). */
int
rsh_reg_ioc_addr(enum rsh_gen gen, uint32_t addr, bool v2, uint32_t *out)
{
	unsigned int chan = addr >> 16, off = addr & 0xFFFF;
	uint32_t bar;

	if (!v2 || gen != RSH_GEN_BF3)
		chan &= 0xF;
	if (gen != RSH_GEN_BF3) {
		*out = chan << 16 | off;
		return 0;
	}
	if (chan >= 0xF) {
		*out = (chan << 16) + off;
		return 0;
	}
	/* A 32-bit register sits at offset 4 of its 8-byte word. */
	if (rsh_reg_decode((enum rsh_gen)gen, chan, off & ~7u, &bar) < 0)
		return -EINVAL;
	*out = RSH_BF3_RSH_BASE_ADDR + bar + (off & 7u);
	return 0;
}
