/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /etc/rshim-pmd.conf: one "KEY value" per line, '#' comments, the keys of
 * the rshim daemon's rshim.conf where they apply (hardware-notes §7.1):
 * rshimN <dev>, none <dev>, BOOT_TIMEOUT, PCIE_RESET_DELAY, DROP_MODE,
 * FORCE_MODE, DISPLAY_LEVEL, NET_OFFLOAD, PCIE_HAS_VFIO, PCIE_HAS_UIO,
 * PCIE_INTR_POLL_INTERVAL; and rshim-pmd's own NODE_GROUP and
 * RESCAN_INTERVAL. Anything else is an error naming file:line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsh_parse.h"
#include "svc.h"

/* Defaults: the rshim daemon's, §7.1. */
void
rsh_svc_conf_default(struct rsh_svc_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->boot_timeout_s = 300;
	c->reset_delay_s = -1;
	c->drop_mode = -1;
	c->has_vfio = true;
	c->has_uio = true;
	c->intr_poll_ms = 10;
	c->net_offload = true;
}

/* A whole number no larger than max (the shared parser: no sign, no
 * fraction, no trailing junk). */
static int
rsh_svc_conf_uint(const char *v, unsigned long max, unsigned long *out)
{
	uint64_t n = 0;
	int rc = rsh_parse_uint(v, 0, max, &n);

	*out = (unsigned long)n;
	return rc;
}

/* "pcie-0000:03:00.2" and "0000:03:00.2" name one device: keep the
 * device string form rsh_dev_open takes. */
static const char *
rsh_svc_conf_devname(const char *v)
{
	return strncmp(v, "pcie-", 5) == 0 ? v + 5 : v;
}

/* A device line: rshimN <dev> or none <dev>. */
static int
rsh_svc_conf_map(struct rsh_svc_conf *c, const char *key, const char *val,
		 const char **why)
{
	unsigned long n = 0;

	if (strcmp(key, "none") != 0 &&
	    rsh_svc_conf_uint(key + 5, 255, &n) < 0) {
		*why = "rshimN needs a number N (0-255)";
		return -EINVAL;
	}
	if (rsh_dev_check(rsh_svc_conf_devname(val)) < 0) {
		*why = "not a device name (expected pcie-0000:03:00.2, 0000:03:00.2 or sim:bf3[,options])";
		return -EINVAL;
	}
	if (c->n_map == RSH_SVC_MAX_CONF) {
		*why = "too many device lines (at most 64)";
		return -EINVAL;
	}
	snprintf(c->map[c->n_map].dev, sizeof(c->map[0].dev), "%s",
		 rsh_svc_conf_devname(val));
	c->map[c->n_map++].index = strcmp(key, "none") == 0 ? -1 : (int)n;
	return 0;
}

/* A numeric key, with its bounds. */
static int
rsh_svc_conf_num(struct rsh_svc_conf *c, const char *key, const char *val,
		 const char **why)
{
	static const struct {
		const char *key;
		unsigned long max;
	} keys[] = {
		{ "BOOT_TIMEOUT", 86400 }, { "PCIE_RESET_DELAY", 600 },
		{ "DROP_MODE", 1 }, { "FORCE_MODE", 1 }, { "DISPLAY_LEVEL", 2 },
		{ "PCIE_HAS_VFIO", 1 }, { "PCIE_HAS_UIO", 1 },
		{ "PCIE_INTR_POLL_INTERVAL", 10000 }, { "RESCAN_INTERVAL", 86400 },
		{ "NET_OFFLOAD", 1 },
		{ "USB_TIMEOUT", 300 }, { "USB_RESET_DELAY", 600 },
	};
	unsigned long v;
	unsigned int i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i].key) == 0)
			break;
	if (i == sizeof(keys) / sizeof(keys[0])) {
		*why = "unknown key";
		return -EINVAL;
	}
	if (rsh_svc_conf_uint(val, keys[i].max, &v) < 0) {
		static char hint[64];

		snprintf(hint, sizeof(hint), "bad value (a whole number 0-%lu)",
			 keys[i].max);
		*why = hint;
		return -ERANGE;
	}
	switch (i) {
	case 0: c->boot_timeout_s = v; break;
	case 1: c->reset_delay_s = (int)v; break;
	case 2: c->drop_mode = (int)v; break;
	case 3: c->force_mode = v != 0; break;
	case 4: c->display_level = (int)v; break;
	case 5: c->has_vfio = v != 0; break;
	case 6: c->has_uio = v != 0; break;
	case 7: c->intr_poll_ms = v; break;
	case 8: c->rescan_s = v; break;
	case 9: c->net_offload = v != 0; break;
	default: break; /* USB keys: accepted, no USB backend */
	}
	return 0;
}

/* One non-comment line split into key and value. */
static int
rsh_svc_conf_line(struct rsh_svc_conf *c, char *line, const char **why)
{
	char *key, *val, *extra, *save = NULL;

	key = strtok_r(line, " \t\r\n", &save);
	if (key == NULL || key[0] == '#')
		return 0;
	val = strtok_r(NULL, " \t\r\n", &save);
	extra = strtok_r(NULL, " \t\r\n", &save);
	if (val == NULL) {
		*why = "missing value";
		return -EINVAL;
	}
	if (extra != NULL && extra[0] != '#') {
		*why = "more than one value";
		return -EINVAL;
	}
	if (strlen(key) > 31 || strlen(val) > 63) {
		*why = "key longer than 31 or value longer than 63 characters";
		return -EINVAL;
	}
	if (strcmp(key, "none") == 0 || (strncmp(key, "rshim", 5) == 0 &&
					 isdigit((unsigned char)key[5])))
		return rsh_svc_conf_map(c, key, val, why);
	if (strcmp(key, "NODE_GROUP") == 0) {
		if (strlen(val) >= sizeof(c->group)) {
			*why = "group name longer than 31 characters";
			return -EINVAL;
		}
		snprintf(c->group, sizeof(c->group), "%.31s", val);
		return 0;
	}
	return rsh_svc_conf_num(c, key, val, why);
}

/* Parse the file into *c (defaults first). */
int
rsh_svc_conf_load(const char *path, bool required, struct rsh_svc_conf *c)
{
	char line[256];
	const char *why = NULL;
	unsigned int lineno = 0;
	FILE *f;
	int rc = 0;

	rsh_svc_conf_default(c);
	f = fopen(path, "r");
	if (f == NULL) {
		if (!required && errno == ENOENT)
			return 0;
		rsh_svc_err("%s: cannot open: %s (give an existing file with -c)",
			    path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char copy[256];

		lineno++;
		snprintf(copy, sizeof(copy), "%s", line);
		copy[strcspn(copy, "\r\n")] = '\0';
		rc = rsh_svc_conf_line(c, line, &why);
		if (rc < 0) {
			rsh_svc_err("%s:%u: %s: \"%s\" (see rshim-pmd.conf(5))",
				    path, lineno, why, copy);
			break;
		}
	}
	fclose(f);
	return rc < 0 ? -EINVAL : 0;
}

/* Configured index of a device: >= 0, -1 blocked ("none"), -2 not named. */
int
rsh_svc_conf_index(const struct rsh_svc_conf *c, const char *dev)
{
	for (unsigned int i = 0; i < c->n_map; i++)
		if (strcmp(c->map[i].dev, dev) == 0)
			return c->map[i].index;
	return -2;
}
