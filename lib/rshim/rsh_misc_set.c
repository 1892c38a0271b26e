/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * misc writes: one `KEY value` line, hardware-notes §5.5, with the value
 * syntax of NVIDIA's rshim daemon (decimal for levels and timeouts, hex
 * for modes and ids, `0x…` for DEBUG_CODE). A bad line names the keys or
 * the values that are valid.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsh_cmd.h"
#include "rsh_dev_priv.h"
#include "rsh_log.h"
#include "rsh_memacc.h"
#include "rsh_misc.h"
#include "rsh_own.h"

#define RSH_MISC_KEYS "DISPLAY_LEVEL, BOOT_TIMEOUT, USB_TIMEOUT, DROP_MODE, CLEAR_ON_READ, " \
	"BOOT_MODE, SW_RESET, BOOT_RESET_SKIP, PEER_MAC, PXE_ID, VLAN_ID, OPN_STR, " \
	"DEBUG_CODE, FORCE_CMD, DEV_NAME"

/* Parse a whole integer in a base; trailing blanks allowed. */
static int
rsh_misc_num(const char *s, int base, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, base);
	while (isspace((unsigned char)*end))
		end++;
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/* One -EINVAL line about a value. */
static int
rsh_misc_bad(struct rsh_dev *dev, const char *key, const char *val, const char *want)
{
	rsh_err_set("%s: misc %s: bad value '%s' (expected %s)", dev->name, key, val, want);
	return -EINVAL;
}

/* PEER_MAC xx:xx:xx:xx:xx:xx, through the TM FIFO control messages. */
static int
rsh_misc_set_mac(struct rsh_dev *dev, const char *val)
{
	unsigned int m[6];
	struct rsh_tmfifo_ctrl c = { .type = RSH_TMFIFO_CTRL_MAC };
	char tail;

	if (sscanf(val, " %2x:%2x:%2x:%2x:%2x:%2x %c", &m[0], &m[1], &m[2], &m[3],
		   &m[4], &m[5], &tail) != 6)
		return rsh_misc_bad(dev, "PEER_MAC", val, "xx:xx:xx:xx:xx:xx");
	for (int i = 0; i < 6; i++)
		c.mac[i] = (uint8_t)m[i];
	return rsh_tmfifo_ctrl_send(dev, &c);
}

/* VLAN_ID: two decimal ids (0-4095). */
static int
rsh_misc_set_vlan(struct rsh_dev *dev, const char *val)
{
	unsigned int a, b;
	char tail;

	if (sscanf(val, " %u %u %c", &a, &b, &tail) != 2 || a > 4095 || b > 4095)
		return rsh_misc_bad(dev, "VLAN_ID", val, "two VLAN ids 0-4095, e.g. '10 20'");
	return rsh_tmfifo_ctrl_send(dev, &(struct rsh_tmfifo_ctrl){
		.type = RSH_TMFIFO_CTRL_VLAN, .vlan = { (uint16_t)a, (uint16_t)b } });
}

/* Keys that reach the DPU through the TM FIFO (§4.7). */
static int
rsh_misc_set_peer(struct rsh_dev *dev, const char *key, const char *val)
{
	int64_t v;
	int rc;

	if (strcmp(key, "PEER_MAC") == 0)
		rc = rsh_misc_set_mac(dev, val);
	else if (strcmp(key, "VLAN_ID") == 0)
		rc = rsh_misc_set_vlan(dev, val);
	else if (rsh_misc_num(val, 16, 0, UINT32_MAX, &v) < 0)
		return rsh_misc_bad(dev, key, val, "a hex id, e.g. 0x1234");
	else
		rc = rsh_tmfifo_ctrl_send(dev, &(struct rsh_tmfifo_ctrl){
			.type = RSH_TMFIFO_CTRL_PXE, .pxe_id = (uint32_t)v });
	if (rc == -ENOENT)
		rsh_err_set("%s: misc %s goes to the DPU over the TM FIFO, which is not attached (open the console or network channel)",
			    dev->name, key);
	else if (rc == -EAGAIN)
		rsh_err_set("%s: misc %s: the control-message queue is full; retry", dev->name, key);
	if (rc == 0)
		rsh_dev_kick(dev);
	return rc;
}

/* DEBUG_CODE 0x…: SCRATCHPAD1 holds it and the keepalive stops while it
 * is non-zero (§5.5). */
static int
rsh_misc_set_debug(struct rsh_dev *dev, const char *val)
{
	unsigned long long v;
	char tail;

	if (sscanf(val, " 0x%llx %c", &v, &tail) != 1)
		return rsh_misc_bad(dev, "DEBUG_CODE", val, "0x followed by hex digits");
	return rsh_own_debug_code(dev, (uint64_t)v);
}

/* FORCE_CMD: only in drop mode (§5.5): take the device over. */
static int
rsh_misc_set_force(struct rsh_dev *dev, int64_t v)
{
	int rc;

	if (v == 0)
		return 0;
	if (!rsh_own_dropped(rsh_dev_own(dev))) {
		rsh_err_set("%s: misc FORCE_CMD applies in drop mode only (this device is not dropped)",
			    dev->name);
		return -EINVAL;
	}
	__atomic_store_n(&rsh_dev_own(dev)->force_pending, 1, __ATOMIC_RELEASE);
	rc = rsh_dev_drop(dev, false, true);
	__atomic_store_n(&rsh_dev_own(dev)->force_pending, 0, __ATOMIC_RELEASE);
	return rc;
}

/* Keys with one integer value. 1 when key is not one of them. */
static int
rsh_misc_set_int(struct rsh_dev *dev, const char *key, const char *val)
{
	struct rsh_misc_cfg *c = &dev->misc;
	int64_t v;

	if (strcmp(key, "DISPLAY_LEVEL") == 0) {
		if (rsh_misc_num(val, 10, 0, 2, &v) < 0)
			return rsh_misc_bad(dev, key, val, "0 basic, 1 advanced or 2 log");
		c->display_level = (int)v;
	} else if (strcmp(key, "BOOT_TIMEOUT") == 0) {
		if (rsh_misc_num(val, 10, 1, 86400, &v) < 0)
			return rsh_misc_bad(dev, key, val, "seconds, 1-86400");
		c->boot_timeout_s = (unsigned int)v;
	} else if (strcmp(key, "USB_TIMEOUT") == 0) {
		if (rsh_misc_num(val, 10, 0, 300, &v) < 0)
			return rsh_misc_bad(dev, key, val, "seconds, 0-300 (0 = default 40)");
		c->usb_timeout_s = v == 0 ? RSH_MISC_USB_TIMEOUT_S : (unsigned int)v;
	} else if (strcmp(key, "CLEAR_ON_READ") == 0) {
		if (rsh_misc_num(val, 10, 0, 1, &v) < 0)
			return rsh_misc_bad(dev, key, val, "0 or 1");
		c->clear_on_read = v != 0;
	} else if (strcmp(key, "BOOT_RESET_SKIP") == 0) {
		if (rsh_misc_num(val, 16, 0, INT32_MAX, &v) < 0)
			return rsh_misc_bad(dev, key, val, "0 or 1 (hex)");
		c->boot_reset_skip = v != 0;
	} else {
		return 1;
	}
	return 0;
}

/* The BF3 OPN: four 32-bit writes into the YU boot record, first
 * character in each word's most significant byte, as NVIDIA's daemon
 * writes them (the backend has 32-bit access). */
static int
rsh_misc_opn_write_bf3(struct rsh_dev *dev, const char *opn)
{
	char raw[RSH_OPN_LEN] = { 0 };
	uint32_t base = RSH_MISC_BF3_YU_BASE + RSH_MISC_BF3_OPN_OFF;

	memcpy(raw, opn, strnlen(opn, RSH_OPN_LEN));
	for (unsigned int i = 0; i < RSH_OPN_LEN; i += 4) {
		uint32_t w = 0;

		for (unsigned int k = 0; k < 4; k++)
			w = w << 8 | (uint8_t)raw[i + k];
		dev->be->ops->write32(dev->be, base + i, w);
	}
	return 0;
}

/* The OPN write: the NUL-terminated text. */
struct rsh_misc_opn_write_cmd {
	struct rsh_cmd c;
	char opn[RSH_OPN_LEN + 1];
};

/* Command step: write the OPN. */
static int
rsh_misc_opn_write_step(struct rsh_cmd *c, uint64_t now)
{
	const char *opn = container_of(c, struct rsh_misc_opn_write_cmd, c)->opn;

	RTE_SET_USED(now);
	return rsh_cmd_finish(c, c->dev->be->gen == RSH_GEN_BF3 ?
			      rsh_misc_opn_write_bf3(c->dev, opn) :
			      rsh_memacc_opn_write(c->dev, opn));
}

static const struct rsh_cmd_type rsh_misc_opn_write_type = {
	.name = "OPN write", .step = rsh_misc_opn_write_step, .run_ms = 1000,
};

/* OPN_STR (§5.5): up to 16 printable characters into the boot record,
 * lost on a cold reset; an empty value clears it (reads show N/A). BF2
 * through the MEM_ACC widget, BF3 with 32-bit writes into the YU channel
 * (a backend without 32-bit access refuses: a 64-bit write would touch
 * the neighbouring word). */
static int
rsh_misc_set_opn(struct rsh_dev *dev, const char *val)
{
	struct rsh_misc_opn_write_cmd w = { .opn = "" };
	size_t n;

	if (dev->be->gen == RSH_GEN_BF1 ||
	    (dev->be->gen == RSH_GEN_BF3 && dev->be->ops->write32 == NULL)) {
		rsh_err_set("%s: misc OPN_STR: %s", dev->name, dev->be->gen == RSH_GEN_BF1 ?
			    "BlueField-1 has no boot-record OPN" :
			    "this backend has no 32-bit register writes, which the BlueField-3 OPN words need");
		return -ENOTSUP;
	}
	while (isspace((unsigned char)*val))
		val++;
	n = strlen(val);
	while (n > 0 && isspace((unsigned char)val[n - 1]))
		n--;
	for (size_t i = 0; i < n && n <= RSH_OPN_LEN; i++)
		if (val[i] < 0x21 || val[i] > 0x7E)
			n = RSH_OPN_LEN + 1; /* refused below; stops the scan */
	if (n > RSH_OPN_LEN)
		return rsh_misc_bad(dev, "OPN_STR", val, "at most 16 printable characters, no blanks");
	memcpy(w.opn, val, n);
	w.opn[n] = '\0';
	return RSH_CMD_CALL(&rsh_misc_opn_write_type, dev, &w, c);
}

/* Keys that act on the device. 1 when key is not one of them. */
static int
rsh_misc_set_action(struct rsh_dev *dev, const char *key, const char *val)
{
	int64_t v;

	if (strcmp(key, "DROP_MODE") == 0) {
		if (rsh_misc_num(val, 10, 0, 1, &v) < 0)
			return rsh_misc_bad(dev, key, val, "0 normal or 1 drop");
		return rsh_dev_drop(dev, v != 0, false);
	}
	if (strcmp(key, "BOOT_MODE") == 0) {
		if (rsh_misc_num(val, 16, 0, INT32_MAX, &v) < 0)
			return rsh_misc_bad(dev, key, val, "0 rshim, 1 emmc, 2 emmc-boot-swap (hex)");
		return rsh_dev_reg_write(dev, RSH_BOOT_CONTROL,
					 (uint64_t)v & RSH_BOOT_CONTROL__MODE_MASK);
	}
	if (strcmp(key, "SW_RESET") == 0) {
		if (rsh_misc_num(val, 16, 0, INT32_MAX, &v) < 0)
			return rsh_misc_bad(dev, key, val, "a non-zero hex number to reset");
		return v == 0 ? 0 : rsh_dev_reset(dev, -1, NULL);
	}
	if (strcmp(key, "FORCE_CMD") == 0) {
		if (rsh_misc_num(val, 16, 0, INT32_MAX, &v) < 0)
			return rsh_misc_bad(dev, key, val, "1 (hex) to send the force command");
		return rsh_misc_set_force(dev, v);
	}
	if (strcmp(key, "DEBUG_CODE") == 0)
		return rsh_misc_set_debug(dev, val);
	if (strcmp(key, "OPN_STR") == 0)
		return rsh_misc_set_opn(dev, val);
	if (strcmp(key, "PEER_MAC") == 0 || strcmp(key, "PXE_ID") == 0 ||
	    strcmp(key, "VLAN_ID") == 0)
		return rsh_misc_set_peer(dev, key, val);
	return 1;
}

/* Keys NVIDIA's rshim has that rshim-pmd refuses, with the reason. */
static int
rsh_misc_set_unsupported(struct rsh_dev *dev, const char *key)
{
	if (strcmp(key, "DEV_NAME") == 0) {
		rsh_err_set("%s: misc DEV_NAME: rshim-pmd does not rename a device in place; close it and open the new PCI address",
			    dev->name);
		return -ENOTSUP;
	}
	return 1;
}

/* Apply one `KEY value` line. */
int
rsh_misc_write(struct rsh_dev *dev, const char *line)
{
	char key[32];
	const char *val;
	size_t n;
	int rc;

	if (!dev->misc.inited)
		rsh_misc_cfg_default(&dev->misc);
	while (isspace((unsigned char)*line))
		line++;
	n = strcspn(line, " \t\r\n");
	if (n == 0 || n >= sizeof(key)) {
		rsh_err_set("%s: misc: expected 'KEY value' with KEY one of %s", dev->name, RSH_MISC_KEYS);
		return -EINVAL;
	}
	memcpy(key, line, n);
	key[n] = '\0';
	val = line + n;
	rc = rsh_misc_set_int(dev, key, val);
	if (rc == 1)
		rc = rsh_misc_set_action(dev, key, val);
	if (rc == 1)
		rc = rsh_misc_set_unsupported(dev, key);
	if (rc == 1) {
		rsh_err_set("%s: misc: unknown key '%s' (valid: %s)", dev->name, key, RSH_MISC_KEYS);
		return -EINVAL;
	}
	return rc;
}
