/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * misc keys, hardware-notes §5.4 (read) and §5.5 (write). The text matches
 * what `cat /dev/rshimN/misc` prints with NVIDIA's rshim daemon (key
 * padded to 16 columns, the value, a legend), because bfb-install and
 * users' scripts grep it; the boot log follows at DISPLAY_LEVEL 2.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rsh_cmd.h"
#include "rsh_dev_priv.h"
#include "rsh_log.h"
#include "rsh_scratchlog_decode.h"
#include "rsh_memacc.h"
#include "rsh_misc.h"
#include "rsh_own.h"

/* BF3 YU block: boot-record OPN, 16 bytes as four 32-bit words, most
 * significant byte first (§1.5). */
#define RSH_MISC_OPN_LEN RSH_OPN_LEN
#define RSH_MISC_PEER_WAIT_MS 1000u /* §4.7: the reader gives up after 1 s */

static const char *const rsh_misc_bf_modes[] = {
	"Unknown", "DPU mode", "NIC mode", "Reserved",
};

/* Settings defaults (§5.4). */
void
rsh_misc_cfg_default(struct rsh_misc_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->boot_timeout_s = RSH_MISC_BOOT_TIMEOUT_S;
	c->usb_timeout_s = RSH_MISC_USB_TIMEOUT_S;
	c->inited = true;
}

/* Append one formatted line; keeps *pos within the buffer. */
static void __attribute__((format(printf, 4, 5)))
rsh_misc_put(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n < len - *pos ? (size_t)n : len - *pos - 1;
}

#define RSH_MISC_KEY(buf, len, pos, key, fmt, ...) \
	rsh_misc_put(buf, len, pos, "%-16s" fmt "\n", key, ##__VA_ARGS__)

/* The keys every level shows (§5.4 "always", BF2+/BF3 ones). */
static void
rsh_misc_format_basic(const struct rsh_misc_view *v, char *buf, size_t len, size_t *pos)
{
	RSH_MISC_KEY(buf, len, pos, "DISPLAY_LEVEL", "%d (0:basic, 1:advanced, 2:log)",
		     v->display_level);
	if (v->gen == 3)
		RSH_MISC_KEY(buf, len, pos, "BF_MODE", "%s", rsh_misc_bf_modes[v->bf_mode & 3]);
	RSH_MISC_KEY(buf, len, pos, "BOOT_MODE", "%u (0:rshim, 1:emmc, 2:emmc-boot-swap)",
		     v->boot_mode & 3);
	RSH_MISC_KEY(buf, len, pos, "BOOT_TIMEOUT", "%u (seconds)", v->boot_timeout_s);
	RSH_MISC_KEY(buf, len, pos, "USB_TIMEOUT", "%u (seconds)", v->usb_timeout_s);
	RSH_MISC_KEY(buf, len, pos, "DROP_MODE", "%d (0:normal, 1:drop)", v->drop);
	RSH_MISC_KEY(buf, len, pos, "SW_RESET", "%d (1: reset)", 0);
	RSH_MISC_KEY(buf, len, pos, "DEV_NAME", "%s", v->dev_name);
	RSH_MISC_KEY(buf, len, pos, "DEV_INFO", "BlueField-%d(Rev %u)", v->gen, v->revision);
	if (v->gen >= 2)
		RSH_MISC_KEY(buf, len, pos, "OPN_STR", "%s",
			     v->opn != NULL && v->opn[0] != '\0' ? v->opn : "N/A");
	if (v->gen == 3) {
		if (v->have_uptime)
			RSH_MISC_KEY(buf, len, pos, "UP_TIME", "%llu(s)",
				     (unsigned long long)v->uptime_s);
		RSH_MISC_KEY(buf, len, pos, "SECURE_NIC_MODE", "%d (0:no, 1:yes)", v->secure_nic);
	}
	RSH_MISC_KEY(buf, len, pos, "FORCE_CMD", "%d (1: send Force command)", v->force_cmd);
}

/* The misc text at the view's display level. */
size_t
rsh_misc_format(const struct rsh_misc_view *v, char *buf, size_t len)
{
	const uint8_t *m = v->peer_mac;
	size_t pos = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	rsh_misc_format_basic(v, buf, len, &pos);
	if (v->display_level == 1) {
		RSH_MISC_KEY(buf, len, &pos, "BOOT_RESET_SKIP", "%d (1: skip)", v->boot_reset_skip);
		RSH_MISC_KEY(buf, len, &pos, "PEER_MAC", "%02x:%02x:%02x:%02x:%02x:%02x (rw)",
			     m[0], m[1], m[2], m[3], m[4], m[5]);
		RSH_MISC_KEY(buf, len, &pos, "PXE_ID", "0x%08x (rw)", v->pxe_id);
		RSH_MISC_KEY(buf, len, &pos, "VLAN_ID", "%u %u (rw)", v->vlan[0], v->vlan[1]);
		RSH_MISC_KEY(buf, len, &pos, "CLEAR_ON_READ", "%d (0:no, 1:yes)", v->clear_on_read);
	} else if (v->display_level == 2) {
		rsh_misc_put(buf, len, &pos, "---------------------------------------\n"
			     "             Log Messages\n"
			     "---------------------------------------\n%s",
			     v->log_text != NULL ? v->log_text : "");
	}
	return pos;
}

/* The device's settings, initialised on first use. */
static struct rsh_misc_cfg *
rsh_misc_cfg(struct rsh_dev *dev)
{
	if (!dev->misc.inited)
		rsh_misc_cfg_default(&dev->misc);
	return &dev->misc;
}

/* Raw boot-record bytes to text: up to the first NUL or non-printable
 * byte, trailing spaces trimmed; "" (shown as N/A) when nothing is left. */
static void
rsh_misc_opn_text(const char *raw, char *opn)
{
	unsigned int n = 0;

	while (n < RSH_MISC_OPN_LEN && raw[n] >= 0x20 && raw[n] <= 0x7E) {
		opn[n] = raw[n];
		n++;
	}
	while (n > 0 && opn[n - 1] == ' ')
		n--;
	opn[n] = '\0';
}

/* BF3 OPN from the YU boot record: four 32-bit words, first character in
 * the most significant byte (as NVIDIA's daemon reads them), with the
 * backend's 32-bit access or the half of each 64-bit word. An all-ones
 * word shows N/A. */
static void
rsh_misc_opn_bf3(struct rsh_dev *dev, char *raw)
{
	uint32_t base = RSH_MISC_BF3_YU_BASE + RSH_MISC_BF3_OPN_OFF;

	raw[0] = '\0';
	for (unsigned int i = 0; i < RSH_MISC_OPN_LEN; i += 4) {
		uint32_t v = rsh_dev_rd32_off(dev, base + i);

		if (v == UINT32_MAX) {
			raw[0] = '\0';
			return;
		}
		for (unsigned int k = 0; k < 4; k++)
			raw[i + k] = (char)(v >> (24 - 8 * k));
	}
}

/* The OPN: BF3 through the YU channel, BF2 through the MEM_ACC widget
 * (§1.5, §1.6); any failure shows N/A. */
static void
rsh_misc_opn(struct rsh_dev *dev, char *opn)
{
	char raw[RSH_MISC_OPN_LEN] = { 0 };

	opn[0] = '\0';
	if (dev->be->gen == RSH_GEN_BF3)
		rsh_misc_opn_bf3(dev, raw);
	else if (dev->be->gen == RSH_GEN_BF2 && rsh_memacc_opn_read(dev, raw) < 0)
		return;
	rsh_misc_opn_text(raw, opn);
}

/* The OPN read: its text. */
struct rsh_misc_opn_cmd {
	struct rsh_cmd c;
	char opn[RSH_OPN_LEN + 1];
};

/* Command step: the OPN. */
static int
rsh_misc_opn_step(struct rsh_cmd *c, uint64_t now)
{
	RTE_SET_USED(now);
	rsh_misc_opn(c->dev, container_of(c, struct rsh_misc_opn_cmd, c)->opn);
	return rsh_cmd_finish(c, 0);
}

static const struct rsh_cmd_type rsh_misc_opn_type = {
	.name = "OPN read", .step = rsh_misc_opn_step, .run_ms = 1000,
};

/* The OPN, read on the device's owning thread (a 17-byte buffer). */
static void
rsh_misc_opn_cmd(struct rsh_dev *dev, char *opn)
{
	struct rsh_misc_opn_cmd o = { .opn = "" };

	(void)RSH_CMD_CALL(&rsh_misc_opn_type, dev, &o, c);
	memcpy(opn, o.opn, sizeof(o.opn));
}

/* Keep what a misc read could read, for the reads that cannot. */
static void
rsh_misc_cache_put(struct rsh_misc_cfg *c, const struct rsh_misc_view *v, const char *opn)
{
	uint64_t w[2] = { 0, 0 };

	memcpy(w, opn, strnlen(opn, sizeof(w)));
	__atomic_store_n(&c->cache.boot_mode, v->boot_mode, __ATOMIC_RELAXED);
	__atomic_store_n(&c->cache.bf_mode, v->bf_mode, __ATOMIC_RELAXED);
	__atomic_store_n(&c->cache.uptime_s, v->have_uptime ? v->uptime_s : UINT64_MAX,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&c->cache.tsc, rsh_now(), __ATOMIC_RELAXED);
	__atomic_store_n(&c->cache.opn[0], w[0], __ATOMIC_RELAXED);
	__atomic_store_n(&c->cache.opn[1], w[1], __ATOMIC_RELAXED);
	__atomic_store_n(&c->cache.valid, 1, __ATOMIC_RELEASE);
}

/* The cached registers into the view (UP_TIME moved on by the time since
 * it was read); false when nothing was ever read. */
static bool
rsh_misc_cache_get(struct rsh_misc_cfg *c, struct rsh_misc_view *v, char *opn)
{
	uint64_t w[2], up;

	if (!__atomic_load_n(&c->cache.valid, __ATOMIC_ACQUIRE))
		return false;
	v->boot_mode = (unsigned int)__atomic_load_n(&c->cache.boot_mode, __ATOMIC_RELAXED);
	v->bf_mode = (unsigned int)__atomic_load_n(&c->cache.bf_mode, __ATOMIC_RELAXED);
	up = __atomic_load_n(&c->cache.uptime_s, __ATOMIC_RELAXED);
	v->have_uptime = up != UINT64_MAX;
	v->uptime_s = v->have_uptime ? up + (rsh_now() -
		      __atomic_load_n(&c->cache.tsc, __ATOMIC_RELAXED)) / rsh_hz() : 0;
	w[0] = __atomic_load_n(&c->cache.opn[0], __ATOMIC_RELAXED);
	w[1] = __atomic_load_n(&c->cache.opn[1], __ATOMIC_RELAXED);
	memcpy(opn, w, RSH_MISC_OPN_LEN);
	opn[RSH_MISC_OPN_LEN] = '\0';
	return true;
}

/* Registers of the view, each read by a command; while a push owns the
 * device or it is in reset, the last values read. */
static int
rsh_misc_read_regs(struct rsh_dev *dev, struct rsh_misc_view *v, char *opn)
{
	uint64_t x;
	int rc = rsh_dev_reg_read(dev, RSH_BOOT_CONTROL, &x);

	if ((rc == -EBUSY || rc == -EIO) && !rsh_own_dropped(rsh_dev_own(dev)) &&
	    rsh_misc_cache_get(&dev->misc, v, opn))
		return 0;
	if (rc == -ENODEV || rc == -EBUSY)
		return rc;
	v->boot_mode = rc == 0 ? (unsigned int)(x & RSH_BOOT_CONTROL__MODE_MASK) : 0;
	if (v->gen == 2)
		rsh_misc_opn_cmd(dev, opn);
	if (v->gen == 3) {
		if (rsh_dev_reg_read(dev, RSH_SCRATCHPAD2, &x) == 0)
			v->bf_mode = (unsigned int)(x >> 4) & 3;
		v->have_uptime = rsh_dev_reg_read(dev, RSH_UPTIME, &x) == 0;
		v->uptime_s = v->have_uptime ? x / RSH_UPTIME_HZ_BF3 : 0;
		rsh_misc_opn_cmd(dev, opn);
	}
	if (rc == 0)
		rsh_misc_cache_put(&dev->misc, v, opn);
	return 0;
}

/* Level 1: ask the DPU for its values; silence is normal (§4.7). */
static void
rsh_misc_peer(struct rsh_dev *dev, struct rsh_misc_view *v)
{
	struct rsh_tmfifo_peer peer;

	memset(&peer, 0, sizeof(peer));
	if (!rsh_tmfifo_attached(dev) || dev->poller == NULL)
		return;
	(void)rsh_tmfifo_ctrl_query(dev, RSH_MISC_PEER_WAIT_MS, &peer);
	if (peer.have & (RSH_TMFIFO_PEER_HAVE_MAC1 | RSH_TMFIFO_PEER_HAVE_MAC2))
		memcpy(v->peer_mac, peer.mac, 6);
	if (peer.have & RSH_TMFIFO_PEER_HAVE_PXE)
		v->pxe_id = peer.pxe_id;
	if (peer.have & RSH_TMFIFO_PEER_HAVE_VLAN)
		memcpy(v->vlan, peer.vlan, sizeof(v->vlan));
}

/* Level 2: the decoded boot log. */
static int
rsh_misc_log(struct rsh_dev *dev, bool clear, char *text, size_t len)
{
	static __thread struct rsh_scratchlog_rec recs[2 * RSH_SCRATCH_BUF_WORDS];
	int n = rsh_scratchlog_read(dev, clear, recs, RTE_DIM(recs));

	text[0] = '\0';
	if (n < 0)
		return n;
	rsh_scratchlog_to_text(recs, (unsigned int)n, text, len);
	return 0;
}

/* The misc text of a device. */
int
rsh_misc_read(struct rsh_dev *dev, char *buf, size_t len)
{
	static __thread char log_text[RSH_MISC_TEXT_MAX];
	struct rsh_misc_cfg *c = rsh_misc_cfg(dev);
	struct rsh_misc_view v = { 0 };
	char opn[RSH_MISC_OPN_LEN + 1] = "", name[RSH_DEV_NAME_MAX + 8];
	int rc;

	v.gen = dev->be->gen;
	v.revision = dev->be->revision;
	v.display_level = c->display_level;
	v.boot_timeout_s = c->boot_timeout_s;
	v.usb_timeout_s = c->usb_timeout_s;
	v.drop = rsh_own_dropped(rsh_dev_own(dev));
	v.secure_nic = __atomic_load_n(&rsh_dev_own(dev)->locked, __ATOMIC_ACQUIRE) != 0;
	v.force_cmd = __atomic_load_n(&rsh_dev_own(dev)->force_pending, __ATOMIC_ACQUIRE) != 0;
	v.boot_reset_skip = c->boot_reset_skip;
	v.clear_on_read = c->clear_on_read;
	v.opn = opn;
	/* NVIDIA's rshim names PCIe devices "pcie-<domain:bus:dev.fn>", a
	 * livefish function "pcie-lf-<domain:bus:dev.fn>". */
	snprintf(name, sizeof(name), "%s%s",
		 strcmp(rsh_dev_drv_name(dev), "pci") != 0 ? "" :
		 dev->be->livefish ? "pcie-lf-" : "pcie-", dev->name);
	v.dev_name = name;
	if (!v.drop) {
		rc = rsh_misc_read_regs(dev, &v, opn);
		if (rc < 0)
			return rc;
	}
	if (v.display_level == 1 && !v.drop)
		rsh_misc_peer(dev, &v);
	if (v.display_level == 2 && !v.drop) {
		rc = rsh_misc_log(dev, c->clear_on_read, log_text, sizeof(log_text));
		if (rc == -EBUSY)
			snprintf(log_text, sizeof(log_text), "(a boot push owns the device: the log is read once it ends)\n");
		else if (rc < 0 && rc != -ETIMEDOUT)
			return rc;
		v.log_text = log_text;
	}
	return (int)rsh_misc_format(&v, buf, len);
}
