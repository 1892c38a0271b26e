/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-pmd.conf: one "KEY value" per line, '#' comments, the whole format
 * of NVIDIA's rshim.conf (hardware-notes §7.1): rshimN <dev>, none <dev>,
 * BOOT_TIMEOUT, PCIE_RESET_DELAY, DROP_MODE, FORCE_MODE, DISPLAY_LEVEL,
 * USB_TIMEOUT, USB_RESET_DELAY, PCIE_HAS_VFIO, PCIE_HAS_UIO,
 * PCIE_INTR_POLL_INTERVAL; and rshim-pmd's own NODE_GROUP, NET_OFFLOAD,
 * POLL_RT_BOOST, POLL_RT_CAP and RESCAN_INTERVAL. NVIDIA's file drops in
 * unchanged: a line whose key rshim-pmd does not know, whatever follows
 * the key (no value, several values) and however long it is, and a device
 * it does not serve (usb-...) get one warning naming file:line and are
 * skipped, as NVIDIA's daemon skips lines it does not act on; pcie-lf-BDF
 * names a livefish function. A malformed line of a known key (a missing
 * value, two values, a value out of range or too long, content past 1024
 * characters) is an error naming file:line, and so is a NUL byte in any
 * line; every value is checked here, when the file is read.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

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
	c->rt_boost = true;
	c->rt_cap_pct = RSH_POLL_RT_CAP_DEFAULT;
	c->usb_timeout_s = 40;
	c->usb_reset_delay_s = 1;
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

/* "pcie-0000:03:00.2", "pcie-lf-0000:03:00.2" (NVIDIA's name for a
 * livefish function) and "0000:03:00.2" name one device: keep the device
 * string form rsh_dev_open takes (the scan tells a livefish function by
 * its ID, whatever it is called). */
const char *
rsh_svc_devname(const char *v)
{
	if (strncmp(v, "pcie-lf-", 8) == 0)
		return v + 8;
	return strncmp(v, "pcie-", 5) == 0 ? v + 5 : v;
}

/*
 * A device kind NVIDIA's rshim serves and rshim-pmd does not (USB): the
 * line is skipped with one warning (*why), never refused. 1 when skipped.
 */
static int
rsh_svc_conf_foreign(const char *val, const char **why)
{
	if (strncmp(val, "usb-", 4) == 0) {
		*why = "a USB rshim: not served by rshim-pmd (PCIe only); line skipped";
		return 1;
	}
	return 0;
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
	if (rsh_svc_conf_foreign(val, why))
		return 1;
	if (rsh_dev_check(rsh_svc_devname(val)) < 0) {
		*why = "not a device name (expected pcie-0000:03:00.2, 0000:03:00.2 or sim:bf3[,options])";
		return -EINVAL;
	}
	if (c->n_map == RSH_SVC_MAX_CONF) {
		*why = "too many device lines (at most 64)";
		return -EINVAL;
	}
	snprintf(c->map[c->n_map].dev, sizeof(c->map[0].dev), "%s",
		 rsh_svc_devname(val));
	c->map[c->n_map++].index = strcmp(key, "none") == 0 ? -1 : (int)n;
	return 0;
}

/* The numeric keys, with their bounds (checked when the file is read). */
static const struct {
	const char *key;
	unsigned long min, max;
} rsh_svc_conf_nums[] = {
	{ "BOOT_TIMEOUT", 1, 86400 }, { "PCIE_RESET_DELAY", 0, 600 },
	{ "DROP_MODE", 0, 1 }, { "FORCE_MODE", 0, 1 }, { "DISPLAY_LEVEL", 0, 2 },
	{ "PCIE_HAS_VFIO", 0, 1 }, { "PCIE_HAS_UIO", 0, 1 },
	{ "PCIE_INTR_POLL_INTERVAL", 0, 10000 }, { "RESCAN_INTERVAL", 0, 86400 },
	{ "NET_OFFLOAD", 0, 1 }, { "POLL_RT_BOOST", 0, 1 }, { "POLL_RT_CAP", 1, 100 },
	{ "USB_TIMEOUT", 0, 300 }, { "USB_RESET_DELAY", 0, 600 },
};
#define RSH_SVC_CONF_NNUMS (sizeof(rsh_svc_conf_nums) / sizeof(rsh_svc_conf_nums[0]))

/* Index of a numeric key in rsh_svc_conf_nums, or RSH_SVC_CONF_NNUMS. */
static unsigned int
rsh_svc_conf_num_find(const char *key)
{
	unsigned int i;

	for (i = 0; i < RSH_SVC_CONF_NNUMS; i++)
		if (strcmp(key, rsh_svc_conf_nums[i].key) == 0)
			break;
	return i;
}

/* A key rshim-pmd knows: a device line (rshim<anything> included, whose
 * N is then checked: a typo would move a DPU to another index),
 * NODE_GROUP or a numeric key. */
static bool
rsh_svc_conf_known(const char *key)
{
	return strcmp(key, "none") == 0 || strncmp(key, "rshim", 5) == 0 ||
	       strcmp(key, "NODE_GROUP") == 0 ||
	       rsh_svc_conf_num_find(key) < RSH_SVC_CONF_NNUMS;
}

/* A numeric key's value into *c. */
static int
rsh_svc_conf_num(struct rsh_svc_conf *c, const char *key, const char *val,
		 const char **why)
{
	unsigned int i = rsh_svc_conf_num_find(key);
	unsigned long v;

	if (rsh_svc_conf_uint(val, rsh_svc_conf_nums[i].max, &v) < 0 ||
	    v < rsh_svc_conf_nums[i].min) {
		static char hint[64];

		snprintf(hint, sizeof(hint), "bad value (a whole number %lu-%lu)",
			 rsh_svc_conf_nums[i].min, rsh_svc_conf_nums[i].max);
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
	case 10: c->rt_boost = v != 0; break;
	case 11: c->rt_cap_pct = (unsigned int)v; break;
	case 12: c->usb_timeout_s = (unsigned int)v; break; /* shown in misc */
	default:
		c->usb_reset_delay_s = (unsigned int)v; /* rshim-pmd -c -p shows it */
		*why = "a USB setting: no USB rshim is served by rshim-pmd; skipped";
		return 1;
	}
	return 0;
}

/* Every byte of s is printable ASCII. */
static bool
rsh_svc_conf_printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* One line without its comment, split into key and value: 0 applied, 1
 * skipped with a warning (*why), or -errno with *why. */
static int
rsh_svc_conf_line(struct rsh_svc_conf *c, char *line, const char **why)
{
	char *key, *val, *extra, *save = NULL;

	key = strtok_r(line, " \t\r\n", &save);
	if (key == NULL)
		return 0;
	/* Whatever its shape: NVIDIA's daemon skips the line too. */
	if (!rsh_svc_conf_known(key)) {
		*why = "unknown key: skipped";
		return 1;
	}
	val = strtok_r(NULL, " \t\r\n", &save);
	extra = strtok_r(NULL, " \t\r\n", &save);
	if (val == NULL) {
		*why = "missing value";
		return -EINVAL;
	}
	if (extra != NULL) {
		*why = "more than one value";
		return -EINVAL;
	}
	if (strlen(key) > 31 || strlen(val) > 63) {
		*why = "key longer than 31 or value longer than 63 characters";
		return -EINVAL;
	}
	if (!rsh_svc_conf_printable(key) || !rsh_svc_conf_printable(val)) {
		/* A control or non-ASCII byte (a terminal escape, a bidi
		 * override) would reach log lines in device names. */
		*why = "a byte outside printable ASCII";
		return -EINVAL;
	}
	/* rshim<anything>: a device line, whose N is checked (a typo in
	 * one would move a DPU to another index). */
	if (strcmp(key, "none") == 0 || strncmp(key, "rshim", 5) == 0)
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

/*
 * Copy s into out with every byte outside printable ASCII, and the
 * backslash and double quote, written as \xNN, so a line quoted in a log
 * never carries terminal escapes or a forged line of its own.
 */
void
rsh_svc_escape(const char *s, size_t len, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < size; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '"')
			out[o++] = (char)ch;
		else
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", ch);
	}
	if (size > 0)
		out[o < size ? o : size - 1] = '\0';
}

/* The reader's state: the content of the line so far (without comment). */
struct rsh_svc_conf_rd {
	char line[RSH_SVC_CONF_LINE_MAX + 1];
	size_t len;              /* bytes of content kept */
	bool comment;            /* past a '#' that starts a word */
	bool too_long;
	bool nul;
};

/* One byte of a line into the reader. */
static void
rsh_svc_conf_byte(struct rsh_svc_conf_rd *r, int ch)
{
	if (ch == '\0')
		r->nul = true;
	if (r->comment || r->nul)
		return;
	if (ch == '#' && (r->len == 0 || isspace((unsigned char)r->line[r->len - 1]))) {
		r->comment = true;
		return;
	}
	if (r->len == RSH_SVC_CONF_LINE_MAX) {
		r->too_long = true;
		return;
	}
	r->line[r->len++] = (char)ch;
}

/* Whether a line's first word is a key rshim-pmd knows (or there is no
 * word in the part read): a line too long to keep whole is an error then,
 * else it is skipped like any line of an unknown key. */
static bool
rsh_svc_conf_line_known(const char *line)
{
	char key[RSH_SVC_CONF_LINE_MAX + 1];
	size_t skip = strspn(line, " \t\r"), n = strcspn(line + skip, " \t\r");

	snprintf(key, sizeof(key), "%.*s", (int)n, line + skip);
	return n == 0 || rsh_svc_conf_known(key);
}

/* Check and apply one read line; error line naming file:line. */
static int
rsh_svc_conf_apply(const char *path, unsigned int lineno, struct rsh_svc_conf_rd *r,
		   struct rsh_svc_conf *c)
{
	char shown[4 * 200 + 1];
	const char *why = NULL;
	int rc = 0;

	r->line[r->len] = '\0';
	rsh_svc_escape(r->line, r->len < 200 ? r->len : 200, shown, sizeof(shown));
	if (r->nul)
		why = "a NUL byte in the line (is this a text file?)";
	else if (r->too_long && rsh_svc_conf_line_known(r->line))
		why = "line longer than 1024 characters (comments may be longer)";
	if (why == NULL)
		rc = rsh_svc_conf_line(c, r->line, &why);
	if (rc == 1) {
		/* A line of NVIDIA's format rshim-pmd does not act on. */
		RSH_SVC_LOG(WARNING, "-", "%s:%u: %s: \"%s%s\" (see rshim-pmd.conf(5))",
			    path, lineno, why, shown, r->len > 200 ? "..." : "");
		return 0;
	}
	if (why != NULL) {
		rsh_svc_err("%s:%u: %s: \"%s%s\" (see rshim-pmd.conf(5))", path, lineno,
			    why, shown, r->len > 200 ? "..." : "");
		return -EINVAL;
	}
	return rc;
}

/* Read the open file line by line, of any length. */
static int
rsh_svc_conf_read(FILE *f, const char *path, struct rsh_svc_conf *c)
{
	struct rsh_svc_conf_rd r;
	unsigned int lineno = 1;
	int ch, rc = 0;

	memset(&r, 0, sizeof(r));
	while (rc == 0 && (ch = getc(f)) != EOF) {
		if (ch != '\n') {
			rsh_svc_conf_byte(&r, ch);
			if (!r.nul)
				continue;
		}
		rc = rsh_svc_conf_apply(path, lineno++, &r, c);
		memset(&r, 0, sizeof(r));
	}
	if (rc == 0 && ferror(f)) {
		rsh_svc_err("%s:%u: cannot read: %s", path, lineno, strerror(errno));
		return -EIO;
	}
	if (rc == 0 && (r.len > 0 || r.comment))
		rc = rsh_svc_conf_apply(path, lineno, &r, c);
	return rc;
}

/*
 * The configuration read when none is named: rshim-pmd.conf in the
 * build's sysconfdir; when that is absent and NVIDIA's /etc/rshim.conf
 * exists, NVIDIA's file (*nvidia true). The service and command mode's -p
 * both read this one. RSHIM_PMD_TEST_ETC=DIR (for tests only) looks for
 * both files in DIR instead.
 */
const char *
rsh_svc_conf_pick(bool *nvidia)
{
	static char own[PATH_MAX], theirs[PATH_MAX];
	const char *dir = getenv("RSHIM_PMD_TEST_ETC");

	snprintf(own, sizeof(own), "%s", RSH_SVC_CONF_DEFAULT);
	snprintf(theirs, sizeof(theirs), "%s", RSH_SVC_CONF_NVIDIA);
	if (dir != NULL && dir[0] != '\0') {
		snprintf(own, sizeof(own), "%.2000s/rshim-pmd.conf", dir);
		snprintf(theirs, sizeof(theirs), "%.2000s/rshim.conf", dir);
	}
	*nvidia = access(own, F_OK) < 0 && access(theirs, F_OK) == 0;
	return *nvidia ? theirs : own;
}

/* Parse the file into *c (defaults first). */
int
rsh_svc_conf_load(const char *path, bool required, struct rsh_svc_conf *c)
{
	struct stat st;
	FILE *f;
	int fd, rc;

	rsh_svc_conf_default(c);
	/* Non-blocking: a FIFO's open would wait for a writer (at start, or
	 * in the main loop at SIGHUP); regular files ignore the flag. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (f == NULL) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		if (!required && rc == -ENOENT)
			return 0;
		rsh_svc_err("%s: cannot open: %s (give an existing file with -C)",
			    path, strerror(-rc));
		return rc;
	}
	/* /dev/null is the empty configuration ("-C /dev/null": defaults
	 * only); any other device, a FIFO or a directory is refused. */
	if (fstat(fileno(f), &st) == 0 && S_ISCHR(st.st_mode) &&
	    strcmp(path, "/dev/null") == 0) {
		fclose(f);
		return 0;
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		rsh_svc_err("%s: not a regular file (give a configuration file with -C, see rshim-pmd.conf(5))",
			    path);
		fclose(f);
		return -EINVAL;
	}
	rc = rsh_svc_conf_read(f, path, c);
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
