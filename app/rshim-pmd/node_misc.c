/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /dev/rshimN/misc (text, hardware-notes §5.4/§5.5) and the register
 * ioctls of /dev/rshimN/rshim (§5.3), through the public API plus the
 * in-tree register table (rsh_regs.h: address decode, field masks), which
 * is not installed.
 *
 * What the public API cannot do yet is refused with EOPNOTSUPP and one log
 * line: DROP_MODE, FORCE_CMD, SW_RESET, DEBUG_CODE, OPN_STR writes, and
 * register addresses outside the driver's register table.
 * FUSE threads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsh_regs.h"
#include "svc.h"

/* Register ioctls (§5.3): v1 12 bytes, v2 13 bytes with a size byte. */
#define RSH_SVC_IOC_READ 0xC00C5200u
#define RSH_SVC_IOC_WRITE 0xC00C5201u
#define RSH_SVC_IOC_READ2 0xC00D5200u
#define RSH_SVC_IOC_WRITE2 0xC00D5201u

struct rsh_svc_ioc_msg2 {
	uint32_t addr;
	uint64_t data;
	uint8_t data_size;
} __attribute__((packed));
_Static_assert(sizeof(struct rsh_svc_ioc_msg2) == 13, "register ioctl v2 layout");

/* Append a formatted line to buf; returns the new length. */
static size_t __attribute__((format(printf, 4, 5)))
rsh_svc_put(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len >= size)
		return len;
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	return n < 0 ? len : (len + n < size ? len + n : size - 1);
}

/* A register as text for misc ("busy" during a push, "gone", ...). */
static int
rsh_svc_misc_reg(struct rsh_svc_dev *d, enum rsh_reg reg, uint64_t *v)
{
	int rc = rsh_dev_reg_read(d->dev, reg, v);

	if (rc < 0)
		*v = 0;
	return rc;
}

/* Level-0 lines: the keys the rshim daemon always shows. */
static size_t
rsh_svc_misc_basic(struct rsh_svc_dev *d, char *buf, size_t size, size_t n)
{
	enum rsh_gen gen = rsh_dev_gen(d->dev);
	uint64_t v;
	int rc;

	n = rsh_svc_put(buf, size, n, "%-16s%d (0:basic, 1:advanced, 2:log)\n",
			"DISPLAY_LEVEL", d->display_level);
	if (gen == RSH_GEN_BF3) {
		static const char *const modes[4] = { "Unknown", "DPU mode", "NIC mode", "Reserved" };

		rc = rsh_svc_misc_reg(d, RSH_SCRATCHPAD2, &v);
		n = rsh_svc_put(buf, size, n, "%-16s%s\n", "BF_MODE",
				rc < 0 ? "Unknown" : modes[(v >> 4) & 3]);
	}
	rc = rsh_svc_misc_reg(d, RSH_BOOT_CONTROL, &v);
	n = rsh_svc_put(buf, size, n, "%-16s%" PRIu64 " (0:rshim, 1:emmc, 2:emmc-boot-swap)\n",
			"BOOT_MODE", (uint64_t)(v & RSH_BOOT_CONTROL__MODE_MASK));
	n = rsh_svc_put(buf, size, n, "%-16s%u (seconds)\n", "BOOT_TIMEOUT", d->boot_timeout_s);
	n = rsh_svc_put(buf, size, n, "%-16s%d (0:normal, 1:drop)\n", "DROP_MODE", 0);
	n = rsh_svc_put(buf, size, n, "%-16s%d (1: reset)\n", "SW_RESET", 0);
	n = rsh_svc_put(buf, size, n, "%-16s%s%s\n", "DEV_NAME",
			strncmp(d->devstr, "sim:", 4) == 0 ? "" : "pcie-", d->devstr);
	n = rsh_svc_put(buf, size, n, "%-16sBlueField-%d(Rev %u)\n", "DEV_INFO",
			(int)gen, d->revision);
	if (gen == RSH_GEN_BF3 && rsh_svc_misc_reg(d, RSH_UPTIME, &v) == 0)
		n = rsh_svc_put(buf, size, n, "%-16s%" PRIu64 "(s)\n", "UP_TIME",
				(uint64_t)(v / RSH_UPTIME_HZ_BF3));
	n = rsh_svc_put(buf, size, n, "%-16s%d (1: send Force command)\n", "FORCE_CMD", 0);
	return n;
}

/* Level-1 lines: reset skip, peer values (CTRL_REQ, 1 s), clear-on-read. */
static size_t
rsh_svc_misc_advanced(struct rsh_svc_dev *d, char *buf, size_t size, size_t n)
{
	struct rsh_tmfifo_peer p;

	memset(&p, 0, sizeof(p));
	n = rsh_svc_put(buf, size, n, "%-16s%d (1: skip)\n", "BOOT_RESET_SKIP",
			d->boot_reset_skip);
	if (rsh_tmfifo_ctrl_query(d->dev, 1000, &p) < 0)
		rsh_tmfifo_peer_get(d->dev, &p);
	n = rsh_svc_put(buf, size, n, "%-16s%02x:%02x:%02x:%02x:%02x:%02x (rw)\n",
			"PEER_MAC", p.mac[0], p.mac[1], p.mac[2], p.mac[3], p.mac[4], p.mac[5]);
	n = rsh_svc_put(buf, size, n, "%-16s0x%08x (rw)\n", "PXE_ID", p.pxe_id);
	n = rsh_svc_put(buf, size, n, "%-16s%u %u (rw)\n", "VLAN_ID", p.vlan[0], p.vlan[1]);
	n = rsh_svc_put(buf, size, n, "%-16s%d (0:no, 1:yes)\n", "CLEAR_ON_READ",
			d->clear_on_read);
	return n;
}

/* Level-2 block: the decoded scratch log (§5.6). */
static size_t
rsh_svc_misc_log(struct rsh_svc_dev *d, char *buf, size_t size, size_t n)
{
	static const char rule[] = "---------------------------------------\n";
	struct rsh_log_rec *recs = calloc(RSH_SCRATCH_BUF_WORDS, sizeof(*recs));
	int got, i;

	if (recs == NULL)
		return n;
	n = rsh_svc_put(buf, size, n, "%s             Log Messages\n%s", rule, rule);
	got = rsh_log_read(d->dev, d->clear_on_read, recs, RSH_SCRATCH_BUF_WORDS);
	if (got < 0)
		n = rsh_svc_put(buf, size, n, "(log not readable: %s)\n", strerror(-got));
	for (i = 0; i < got; i++)
		n = rsh_svc_put(buf, size, n, "%s\n", recs[i].text);
	free(recs);
	return n;
}

/* Render the misc text for one open. @return its length. */
int
rsh_svc_misc_render(struct rsh_svc_dev *d, char *buf, size_t size)
{
	size_t n = rsh_svc_misc_basic(d, buf, size, 0);

	if (d->display_level >= 1)
		n = rsh_svc_misc_advanced(d, buf, size, n);
	if (d->display_level >= 2)
		n = rsh_svc_misc_log(d, buf, size, n);
	return (int)n;
}

/* Parse an integer in any base (0x… hex); -EINVAL when not a number. */
static int
rsh_svc_num(const char *v, int base, uint64_t *out)
{
	char *end;

	if (v == NULL)
		return -EINVAL;
	errno = 0;
	*out = strtoull(v, &end, base);
	return errno != 0 || end == v || (*end != '\0' && *end != '\n') ? -EINVAL : 0;
}

/* PEER_MAC xx:xx:xx:xx:xx:xx. */
static int
rsh_svc_misc_mac(struct rsh_svc_dev *d, const char *v)
{
	unsigned int m[6];
	uint8_t mac[6];

	if (v == NULL || sscanf(v, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
				&m[4], &m[5]) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)m[i];
	return rsh_tmfifo_ctrl_set_mac(d->dev, mac);
}

/* Keys the public API can serve today. -ENOENT: not one of them. */
static int
rsh_svc_misc_key(struct rsh_svc_dev *d, const char *key, const char *v, const char *v2)
{
	uint64_t x, y;

	if (strcmp(key, "DISPLAY_LEVEL") == 0 || strcmp(key, "BOOT_TIMEOUT") == 0 ||
	    strcmp(key, "CLEAR_ON_READ") == 0 || strcmp(key, "BOOT_RESET_SKIP") == 0) {
		if (rsh_svc_num(v, key[5] == 'R' ? 16 : 10, &x) < 0)
			return -EINVAL;
		pthread_mutex_lock(&d->mu);
		if (key[0] == 'D')
			d->display_level = x > 2 ? 2 : (int)x;
		else if (key[0] == 'C')
			d->clear_on_read = x != 0;
		else if (key[5] == 'R')
			d->boot_reset_skip = x != 0;
		else
			d->boot_timeout_s = x == 0 ? 1 : (unsigned int)x;
		pthread_mutex_unlock(&d->mu);
		return 0;
	}
	if (strcmp(key, "BOOT_MODE") == 0)
		return rsh_svc_num(v, 16, &x) < 0 ? -EINVAL :
		       rsh_dev_reg_write(d->dev, RSH_BOOT_CONTROL, x & RSH_BOOT_CONTROL__MODE_MASK);
	if (strcmp(key, "PEER_MAC") == 0)
		return rsh_svc_misc_mac(d, v);
	if (strcmp(key, "PXE_ID") == 0)
		return rsh_svc_num(v, 16, &x) < 0 ? -EINVAL :
		       rsh_tmfifo_ctrl_set_pxe(d->dev, (uint32_t)x);
	if (strcmp(key, "VLAN_ID") == 0)
		return rsh_svc_num(v, 10, &x) < 0 || rsh_svc_num(v2, 10, &y) < 0 ? -EINVAL :
		       rsh_tmfifo_ctrl_set_vlan(d->dev, (uint16_t)x, (uint16_t)y);
	if (strcmp(key, "DEV_NAME") == 0 || strcmp(key, "USB_TIMEOUT") == 0)
		return 0; /* accepted, nothing to do for this backend */
	return -ENOENT;
}

/* write(2) on misc: one "KEY value" line. */
int
rsh_svc_misc_write(struct rsh_svc *s, struct rsh_svc_dev *d, const char *buf,
		   size_t len, uid_t uid, pid_t pid)
{
	static const char *const later[] = { "DROP_MODE", "FORCE_CMD", "SW_RESET",
					     "DEBUG_CODE", "OPN_STR" };
	char line[256], action[320], *save = NULL, *key, *v, *v2;
	int rc;

	(void)s;
	if (len == 0 || len >= sizeof(line))
		return len == 0 ? 0 : -EINVAL;
	memcpy(line, buf, len);
	line[len] = '\0';
	line[strcspn(line, "\n")] = '\0';
	snprintf(action, sizeof(action), "misc write \"%.200s\"", line);
	key = strtok_r(line, " \t", &save);
	v = strtok_r(NULL, " \t", &save);
	v2 = strtok_r(NULL, " \t", &save);
	rc = key == NULL ? -EINVAL : rsh_svc_misc_key(d, key, v, v2);
	for (unsigned int i = 0; rc == -ENOENT && i < sizeof(later) / sizeof(later[0]); i++) {
		if (strcmp(key, later[i]) == 0) {
			RSH_SVC_LOG(WARNING, d->name, "misc %s is not available in this rshim-pmd (needs the ownership/control API)",
				    key);
			rc = -EOPNOTSUPP;
		}
	}
	if (rc == -ENOENT)
		rc = -EINVAL;
	pthread_mutex_lock(&d->mu);
	d->misc_writes++;
	pthread_mutex_unlock(&d->mu);
	rsh_svc_audit(d, uid, pid, action, rc);
	return rc;
}

/* Payload size of a register ioctl, 0 for any other command. */
size_t
rsh_svc_reg_ioctl_size(unsigned int cmd)
{
	if (cmd == RSH_SVC_IOC_READ || cmd == RSH_SVC_IOC_WRITE)
		return 12;
	if (cmd == RSH_SVC_IOC_READ2 || cmd == RSH_SVC_IOC_WRITE2)
		return 13;
	return 0;
}

/* BAR offset of an ioctl address (§1.3, §5.3). */
static int
rsh_svc_ioc_bar(enum rsh_gen gen, uint32_t addr, bool v2, uint32_t *bar)
{
	unsigned int chan = addr >> 16, off = addr & 0xFFFF;

	if (!v2 || gen != RSH_GEN_BF3)
		chan &= 0xF;
	if (gen == RSH_GEN_BF3 && chan >= 0xF)
		return rsh_reg_bf3_global_to_bar((chan << 16) + off, bar);
	return rsh_reg_decode(gen, chan, off, bar);
}

/* The table register at a BAR offset; -EINVAL when the table has none. */
static int
rsh_svc_ioc_reg(enum rsh_gen gen, uint32_t bar, enum rsh_reg *out)
{
	for (int r = 0; r < RSH_REG_COUNT; r++) {
		const struct rsh_reg_def *def = &rsh_reg_table[r];
		uint32_t b;

		if (rsh_reg_decode(gen, def->chan, gen == RSH_GEN_BF3 ? def->off_bf3 :
				   def->off_bf12, &b) == 0 && b == bar) {
			*out = (enum rsh_reg)r;
			return 0;
		}
	}
	return -EINVAL;
}

/* Run one register ioctl in place on data (12 or 13 bytes). */
int
rsh_svc_reg_ioctl(struct rsh_svc_dev *d, unsigned int cmd, void *data,
		  size_t in_size, uid_t uid, pid_t pid)
{
	struct rsh_svc_ioc_msg2 m = { 0 };
	bool wr = cmd == RSH_SVC_IOC_WRITE || cmd == RSH_SVC_IOC_WRITE2;
	enum rsh_gen gen = rsh_dev_gen(d->dev);
	enum rsh_reg reg;
	char action[96];
	uint32_t bar;
	int rc;

	memcpy(&m, data, in_size);
	if (in_size == 12)
		m.data_size = 8;
	rc = m.data_size == 4 || m.data_size == 8 ? 0 : -EINVAL;
	if (rc == 0)
		rc = rsh_svc_ioc_bar(gen, m.addr, in_size == 13, &bar);
	if (rc == 0 && rsh_svc_ioc_reg(gen, bar, &reg) < 0) {
		RSH_SVC_LOG(WARNING, d->name, "register 0x%08x (BAR 0x%x) is not in the driver's register table; only table registers are reachable",
			    m.addr, bar);
		rc = -EINVAL;
	}
	if (rc == 0 && wr)
		rc = rsh_dev_reg_write(d->dev, reg, m.data_size == 4 ?
				       (m.data & 0xFFFFFFFFull) : m.data);
	else if (rc == 0) {
		uint64_t val = 0;

		rc = rsh_dev_reg_read(d->dev, reg, &val);
		m.data = val;
	}
	if (rc == 0 && !wr && m.data_size == 4)
		m.data &= 0xFFFFFFFFull;
	pthread_mutex_lock(&d->mu);
	wr ? d->reg_writes++ : d->reg_reads++;
	pthread_mutex_unlock(&d->mu);
	if (wr) {
		snprintf(action, sizeof(action), "register write 0x%08x <- 0x%" PRIx64,
			 m.addr, m.data);
		rsh_svc_audit(d, uid, pid, action, rc);
	}
	memcpy(data, &m, in_size);
	return rc;
}
