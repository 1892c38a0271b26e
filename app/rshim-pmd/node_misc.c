/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /dev/rshimN/misc (text, hardware-notes §5.4/§5.5) and the register
 * ioctls of /dev/rshimN/rshim (§5.3), on the library's control API
 * (rsh_misc_read/write, rsh_reg_req_parse/rsh_dev_reg_req, and
 * rsh_reg_ioc_addr for the channel<<16|offset form of a BlueField-3
 * address). The control API also gives the field constants misc
 * renders from while a push owns the device (BOOT_CONTROL's mode, the
 * uptime clock, the scratch log's size), so no register table is needed.
 *
 * The service mirrors DISPLAY_LEVEL, BOOT_TIMEOUT, CLEAR_ON_READ and
 * BOOT_RESET_SKIP: BOOT_TIMEOUT is the stall deadline of its pushes, and
 * while a push owns the device (the library answers EBUSY) misc is
 * rendered here from the mirror and the registers the API can read.
 * FUSE threads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct rsh_dev_info inf;
	enum rsh_gen gen;
	uint64_t v;
	int rc;

	rsh_dev_get_info(d->dev, &inf);
	gen = inf.gen;
	n = rsh_svc_put(buf, size, n, "%-16s%d (0:basic, 1:advanced, 2:log)\n",
			"DISPLAY_LEVEL", __atomic_load_n(&d->display_level, __ATOMIC_RELAXED));
	if (gen == RSH_GEN_BF3) {
		static const char *const modes[4] = { "Unknown", "DPU mode", "NIC mode", "Reserved" };

		rc = rsh_svc_misc_reg(d, RSH_SCRATCHPAD2, &v);
		n = rsh_svc_put(buf, size, n, "%-16s%s\n", "BF_MODE",
				rc < 0 ? "Unknown" : modes[(v >> 4) & 3]);
	}
	rc = rsh_svc_misc_reg(d, RSH_BOOT_CONTROL, &v);
	n = rsh_svc_put(buf, size, n, "%-16s%" PRIu64 " (0:rshim, 1:emmc, 2:emmc-boot-swap)\n",
			"BOOT_MODE", (uint64_t)(v & RSH_CTL_BOOT_MODE_MASK));
	n = rsh_svc_put(buf, size, n, "%-16s%u (seconds)\n", "BOOT_TIMEOUT",
			__atomic_load_n(&d->boot_timeout_s, __ATOMIC_RELAXED));
	n = rsh_svc_put(buf, size, n, "%-16s%u (seconds)\n", "USB_TIMEOUT", d->svc->conf.usb_timeout_s);
	n = rsh_svc_put(buf, size, n, "%-16s%d (0:normal, 1:drop)\n", "DROP_MODE",
			rsh_svc_dev_dropped(d));
	n = rsh_svc_put(buf, size, n, "%-16s%d (1: reset)\n", "SW_RESET", 0);
	n = rsh_svc_put(buf, size, n, "%-16s%s%s\n", "DEV_NAME",
			strncmp(d->devstr, "sim:", 4) == 0 ? "" :
			inf.livefish ? "pcie-lf-" : "pcie-", d->devstr);
	n = rsh_svc_put(buf, size, n, "%-16sBlueField-%d(Rev %u)\n", "DEV_INFO",
			(int)gen, d->revision);
	if (gen == RSH_GEN_BF3 && rsh_svc_misc_reg(d, RSH_UPTIME, &v) == 0)
		n = rsh_svc_put(buf, size, n, "%-16s%" PRIu64 "(s)\n", "UP_TIME",
				(uint64_t)(v / RSH_CTL_BF3_UPTIME_HZ));
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
			__atomic_load_n(&d->boot_reset_skip, __ATOMIC_RELAXED));
	if (rsh_tmfifo_ctrl_query(d->dev, 1000, &p) < 0)
		rsh_tmfifo_peer_get(d->dev, &p);
	n = rsh_svc_put(buf, size, n, "%-16s%02x:%02x:%02x:%02x:%02x:%02x (rw)\n",
			"PEER_MAC", p.mac[0], p.mac[1], p.mac[2], p.mac[3], p.mac[4], p.mac[5]);
	n = rsh_svc_put(buf, size, n, "%-16s0x%08x (rw)\n", "PXE_ID", p.pxe_id);
	n = rsh_svc_put(buf, size, n, "%-16s%u %u (rw)\n", "VLAN_ID", p.vlan[0], p.vlan[1]);
	n = rsh_svc_put(buf, size, n, "%-16s%d (0:no, 1:yes)\n", "CLEAR_ON_READ",
			__atomic_load_n(&d->clear_on_read, __ATOMIC_RELAXED));
	return n;
}

/* Level-2 block: the decoded scratch log (§5.6). */
static size_t
rsh_svc_misc_log(struct rsh_svc_dev *d, char *buf, size_t size, size_t n)
{
	static const char rule[] = "---------------------------------------\n";
	struct rsh_scratchlog_rec *recs = calloc(RSH_CTL_LOG_RECS_MAX, sizeof(*recs));
	int got, i;

	if (recs == NULL)
		return n;
	n = rsh_svc_put(buf, size, n, "%s             Log Messages\n%s", rule, rule);
	got = rsh_scratchlog_read(d->dev, __atomic_load_n(&d->clear_on_read, __ATOMIC_RELAXED),
				  recs, RSH_CTL_LOG_RECS_MAX);
	if (got < 0)
		n = rsh_svc_put(buf, size, n, "(log not readable: %s)\n", strerror(-got));
	for (i = 0; i < got; i++)
		n = rsh_svc_put(buf, size, n, "%s\n", recs[i].text);
	free(recs);
	return n;
}

/* The misc text from the service's mirror (while a push runs). */
static int
rsh_svc_misc_fallback(struct rsh_svc_dev *d, char *buf, size_t size)
{
	size_t n = rsh_svc_misc_basic(d, buf, size, 0);

	if (__atomic_load_n(&d->display_level, __ATOMIC_RELAXED) >= 1)
		n = rsh_svc_misc_advanced(d, buf, size, n);
	if (__atomic_load_n(&d->display_level, __ATOMIC_RELAXED) >= 2)
		n = rsh_svc_misc_log(d, buf, size, n);
	return (int)n;
}

/* Render the misc text for one open. @return its length. */
int
rsh_svc_misc_render(struct rsh_svc_dev *d, char *buf, size_t size)
{
	int rc;

	__atomic_fetch_add(&d->ctl_busy, 1, __ATOMIC_RELAXED);
	rc = rsh_misc_read(d->dev, buf, size);
	if (rc < 0)
		rc = rsh_svc_misc_fallback(d, buf, size);
	__atomic_fetch_sub(&d->ctl_busy, 1, __ATOMIC_RELAXED);
	return rc;
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

/* Mirror a key the service also uses (after the library took it). */
static void
rsh_svc_misc_mirror(struct rsh_svc_dev *d, const char *key, const char *v)
{
	uint64_t x;

	if (rsh_svc_num(v, strcmp(key, "BOOT_RESET_SKIP") == 0 ? 16 : 10, &x) < 0)
		return;
	pthread_mutex_lock(&d->mu);
	if (strcmp(key, "DISPLAY_LEVEL") == 0)
		__atomic_store_n(&d->display_level, x > 2 ? 2 : (int)x, __ATOMIC_RELAXED);
	else if (strcmp(key, "CLEAR_ON_READ") == 0)
		__atomic_store_n(&d->clear_on_read, x != 0, __ATOMIC_RELAXED);
	else if (strcmp(key, "BOOT_RESET_SKIP") == 0)
		__atomic_store_n(&d->boot_reset_skip, x != 0, __ATOMIC_RELAXED);
	else if (strcmp(key, "BOOT_TIMEOUT") == 0)
		__atomic_store_n(&d->boot_timeout_s, x == 0 ? 1 : (unsigned int)x, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&d->mu);
}

/* Apply the configuration's DISPLAY_LEVEL, BOOT_TIMEOUT and USB_TIMEOUT
 * to a new device (the library keeps the misc state), after one read at
 * level 0 that gives misc its values for the time a push owns the device. */
void
rsh_svc_misc_init(struct rsh_svc_dev *d)
{
	char line[64], *text = malloc(RSH_MISC_TEXT_MAX);

	if (text != NULL && rsh_misc_read(d->dev, text, RSH_MISC_TEXT_MAX) < 0)
		RSH_SVC_LOG(INFO, d->name, "misc not read at open: %s", rsh_last_error());
	free(text);
	snprintf(line, sizeof(line), "USB_TIMEOUT %u", d->svc->conf.usb_timeout_s);
	if (rsh_misc_write(d->dev, line) < 0)
		RSH_SVC_LOG(WARNING, d->name, "%s", rsh_last_error());

	snprintf(line, sizeof(line), "DISPLAY_LEVEL %d", __atomic_load_n(&d->display_level, __ATOMIC_RELAXED));
	if (rsh_misc_write(d->dev, line) < 0)
		RSH_SVC_LOG(WARNING, d->name, "%s", rsh_last_error());
	snprintf(line, sizeof(line), "BOOT_TIMEOUT %u", __atomic_load_n(&d->boot_timeout_s, __ATOMIC_RELAXED));
	if (rsh_misc_write(d->dev, line) < 0)
		RSH_SVC_LOG(WARNING, d->name, "%s", rsh_last_error());
}

/* "SW_RESET <non-zero hex>": a reset the service runs itself (with a
 * cancel flag); anything else, SW_RESET 0 too, is the library's. */
static bool
rsh_svc_misc_is_reset(const char *line)
{
	char copy[256], *save = NULL, *key, *v, *extra;
	uint64_t x;

	snprintf(copy, sizeof(copy), "%s", line);
	key = strtok_r(copy, " \t", &save);
	v = strtok_r(NULL, " \t", &save);
	extra = strtok_r(NULL, " \t", &save);
	return key != NULL && strcmp(key, "SW_RESET") == 0 && extra == NULL &&
	       rsh_svc_num(v, 16, &x) == 0 && x != 0 && x <= INT32_MAX;
}

/*
 * SW_RESET: the reset key, then PCIE_RESET_DELAY (the device's default
 * when unset, as a push's open), then the rshim answers; the write
 * returns after all of it, as NVIDIA's does, so a script finds the
 * device reset when its write returns.
 */
static int
rsh_svc_misc_reset(struct rshd *s, struct rsh_svc_dev *d)
{
	int delay_s = __atomic_load_n(&s->reset_delay_s, __ATOMIC_RELAXED);
	uint64_t t0 = rsh_mono_ns();
	int rc;

	RSH_SVC_LOG(INFO, d->name, "SW_RESET: reset key, then the reset delay (%s)",
		    delay_s >= 0 ? "PCIE_RESET_DELAY" : "the device's default");
	rc = rsh_dev_reset(d->dev, delay_s >= 0 ? (int64_t)delay_s * 1000 : -1, &d->ctl_cancel);
	if (rc == 0)
		RSH_SVC_LOG(NOTICE, d->name, "SW_RESET done: the rshim answers after %" PRIu64 " ms",
			    (rsh_mono_ns() - t0) / 1000000);
	return rc;
}

/* write(2) on misc: one "KEY value" line. */
int
rsh_svc_misc_write(struct rshd *s, struct rsh_svc_dev *d, const char *buf,
		   size_t len, uid_t uid, pid_t pid)
{
	char line[256], shown[4 * 200 + 1], action[sizeof(shown) + 16], *save = NULL;
	char *key, *v, *nl;
	int rc;

	if (len == 0 || len >= sizeof(line))
		return len == 0 ? 0 : -EINVAL;
	memcpy(line, buf, len);
	nl = memchr(line, '\n', len);
	len = nl != NULL ? (size_t)(nl - line) : len;
	line[len] = '\0';
	/* The line is the caller's: quoted with control bytes escaped. */
	rsh_svc_escape(line, len < 200 ? len : 200, shown, sizeof(shown));
	snprintf(action, sizeof(action), "misc write \"%s\"", shown);
	/* SW_RESET waits out the reset delay on the poll lcore: here, with
	 * a cancel flag, so stopping the nodes never waits for it. */
	__atomic_fetch_add(&d->ctl_busy, 1, __ATOMIC_RELAXED);
	if (memchr(line, '\0', len) != NULL) {
		/* A NUL would hide the rest of the line from the parser. */
		rc = -EINVAL;
	} else if (rsh_svc_misc_is_reset(line)) {
		rc = rsh_svc_misc_reset(s, d);
	} else {
		rc = rsh_misc_write(d->dev, line);
	}
	__atomic_fetch_sub(&d->ctl_busy, 1, __ATOMIC_RELAXED);
	if (rc < 0) {
		const char *e = memchr(line, '\0', len) != NULL ?
				"misc: a NUL byte in the line" : rsh_last_error();

		rsh_svc_escape(e, strlen(e), shown, sizeof(shown));
		RSH_SVC_LOG(WARNING, d->name, "%s", shown);
	}
	if (rc == -ENOTSUP)
		rc = -EOPNOTSUPP;
	key = strtok_r(line, " \t", &save);
	v = strtok_r(NULL, " \t", &save);
	if (rc == 0 && key != NULL)
		rsh_svc_misc_mirror(d, key, v);
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

/* Run one register ioctl in place on data (12 or 13 bytes). */
int
rsh_svc_reg_ioctl(struct rsh_svc_dev *d, unsigned int cmd, void *data,
		  size_t in_size, uid_t uid, pid_t pid)
{
	struct rsh_svc_ioc_msg2 m = { 0 };
	bool wr = cmd == RSH_SVC_IOC_WRITE || cmd == RSH_SVC_IOC_WRITE2;
	struct rsh_dev_info inf;
	struct rsh_reg_req req;
	char spec[64], action[96];
	uint32_t addr = 0;
	int rc;

	memcpy(&m, data, in_size);
	if (in_size == 12)
		m.data_size = 8;
	rsh_dev_get_info(d->dev, &inf);
	rc = m.data_size == 4 || m.data_size == 8 ? 0 : -EINVAL;
	if (rc == 0)
		rc = rsh_reg_ioc_addr(inf.gen, m.addr, in_size == 13, &addr);
	if (rc == 0) {
		int n = snprintf(spec, sizeof(spec), "0x%08x.%u", addr, m.data_size * 8u);

		if (wr)
			snprintf(spec + n, sizeof(spec) - n, "=0x%" PRIx64, (uint64_t)m.data);
		rc = rsh_reg_req_parse(inf.gen, spec, &req);
	}
	if (rc == 0)
		rc = rsh_dev_reg_req(d->dev, &req);
	if (rc < 0 && rc != -EINVAL)
		RSH_SVC_LOG(WARNING, d->name, "register 0x%08x: %s", m.addr, rsh_last_error());
	if (rc == 0 && !wr)
		m.data = req.value;
	if (rc == -ENOTSUP)
		rc = -EOPNOTSUPP;
	pthread_mutex_lock(&d->mu);
	wr ? d->reg_writes++ : d->reg_reads++;
	pthread_mutex_unlock(&d->mu);
	if (wr) {
		snprintf(action, sizeof(action), "register write 0x%08x <- 0x%" PRIx64,
			 m.addr, (uint64_t)m.data);
		rsh_svc_audit(d, uid, pid, action, rc);
	}
	memcpy(data, &m, in_size);
	return rc;
}
