/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config space of the emulated rshim function, table-driven: each row is
 * a field with its reset value (a literal or one computed from the
 * device) and its writable bits. Unlisted bytes read 0 and ignore writes.
 *
 * Facts: doc/hardware-notes.md §1.1 (vendor 0x15B3, device IDs, revision
 * at 0x08, class "DMA controller"), §1.2 (BAR0 1 MiB / 8 MiB), §1.8
 * (MEMORY, MASTER and INTX_DISABLE in PCI_COMMAND), §V2-§V3 (what the
 * guest kernel and QEMU's proxy need: interrupt pin A, a writable
 * INTx-disable bit, the upper BAR0 dword rule).
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "rsh_simpci_cfg.h"

/* Where a field's reset value comes from. */
enum rsh_simpci_src {
	RSH_SIMPCI_LIT,     /* the row's value */
	RSH_SIMPCI_DEVID,   /* device ID of the generation */
	RSH_SIMPCI_REV,     /* revision from the device string's rev= */
	RSH_SIMPCI_BAR0,    /* BAR0 size mask | type */
	RSH_SIMPCI_LNKCAP,  /* max speed, max width */
	RSH_SIMPCI_LNKSTA,  /* trained speed and width */
	RSH_SIMPCI_LNKCAP2, /* supported speeds vector */
	RSH_SIMPCI_LNKCTL2, /* target speed */
};

/* One field of the table. */
struct rsh_simpci_field {
	uint8_t off, size;
	enum rsh_simpci_src src;
	uint32_t val;   /* literal value, ORed into a computed one */
	uint32_t wmask; /* writable bits */
};

#define RSH_SIMPCI_PCIE(o) (RSH_SIMPCI_CFG_PCIE_CAP + (o))

static const struct rsh_simpci_field rsh_simpci_fields[] = {
	{ 0x00, 2, RSH_SIMPCI_LIT, 0x15B3, 0 },          /* vendor, §1.1 */
	{ 0x02, 2, RSH_SIMPCI_DEVID, 0, 0 },
	/* MEMORY, MASTER (§1.8), PARITY, SERR, INTX_DISABLE (§1.8, §V2);
	 * no I/O BAR, so I/O space stays off. */
	{ 0x04, 2, RSH_SIMPCI_LIT, 0, 0x0546 },
	{ 0x06, 2, RSH_SIMPCI_LIT, 0x0010, 0 },          /* status: cap list */
	{ 0x08, 1, RSH_SIMPCI_REV, 0, 0 },
	{ 0x09, 1, RSH_SIMPCI_LIT, 0x00, 0 },            /* prog-if */
	{ 0x0A, 2, RSH_SIMPCI_LIT, 0x0801, 0 },          /* DMA controller */
	{ 0x0C, 1, RSH_SIMPCI_LIT, 0, 0xFF },            /* cache line */
	{ 0x0D, 1, RSH_SIMPCI_LIT, 0, 0xFF },            /* latency timer */
	{ 0x0E, 1, RSH_SIMPCI_LIT, 0x00, 0 },            /* header type 0 */
	{ 0x10, 4, RSH_SIMPCI_BAR0, 0, 0 },              /* wmask computed */
	/* 0x14: upper BAR0 dword, writable after the first reset (§V3). */
	{ 0x2C, 2, RSH_SIMPCI_LIT, 0x15B3, 0 },          /* subsystem vendor */
	{ 0x34, 1, RSH_SIMPCI_LIT, RSH_SIMPCI_CFG_PCIE_CAP, 0 },
	{ 0x3C, 1, RSH_SIMPCI_LIT, 0, 0xFF },            /* interrupt line */
	{ 0x3D, 1, RSH_SIMPCI_LIT, 0x01, 0 },            /* pin A, §V2 */
	/* PCIe capability v2, endpoint (so the guest shows the link). */
	{ RSH_SIMPCI_PCIE(0x00), 2, RSH_SIMPCI_LIT, 0x0010, 0 },
	{ RSH_SIMPCI_PCIE(0x02), 2, RSH_SIMPCI_LIT, 0x0002, 0 },
	{ RSH_SIMPCI_PCIE(0x04), 4, RSH_SIMPCI_LIT, 0x00008001, 0 }, /* MPS 256 */
	{ RSH_SIMPCI_PCIE(0x08), 2, RSH_SIMPCI_LIT, 0x2810, 0x7CFF },
	{ RSH_SIMPCI_PCIE(0x0C), 4, RSH_SIMPCI_LNKCAP, 0, 0 },
	{ RSH_SIMPCI_PCIE(0x10), 2, RSH_SIMPCI_LIT, 0, 0x0FFB },
	{ RSH_SIMPCI_PCIE(0x12), 2, RSH_SIMPCI_LNKSTA, 0x1000, 0 },
	{ RSH_SIMPCI_PCIE(0x28), 2, RSH_SIMPCI_LIT, 0, 0x0460 },
	{ RSH_SIMPCI_PCIE(0x2C), 4, RSH_SIMPCI_LNKCAP2, 0, 0 },
	{ RSH_SIMPCI_PCIE(0x30), 2, RSH_SIMPCI_LNKCTL2, 0, 0x000F },
};

/*
 * Link of each generation: BlueField-1 and -2 PCIe Gen4 x16, BlueField-3
 * Gen5 x16 (inferred: NVIDIA's product briefs give the DPU's host
 * interface; the rshim function reports its port's link).
 */
static unsigned int
rsh_simpci_speed(enum rsh_gen gen)
{
	return gen == RSH_GEN_BF3 ? 5 : 4; /* PCIe link speed codes */
}

/* Device ID of a generation's rshim function, §1.1 (BF3: the current
 * 0xC2D5, not the older firmware's 0xC2D4). */
uint16_t
rsh_simpci_cfg_device_id(enum rsh_gen gen)
{
	switch (gen) {
	case RSH_GEN_BF1: return 0xC2D2;
	case RSH_GEN_BF2: return 0xC2D3;
	case RSH_GEN_BF3: return 0xC2D5;
	default: return 0;
	}
}

/* Livefish device ID of a generation (§1.1, §L1; 0 if unknown). */
static uint16_t
rsh_simpci_cfg_lf_id(enum rsh_gen gen)
{
	switch (gen) {
	case RSH_GEN_BF1: return 0x0211;
	case RSH_GEN_BF2: return 0x0214;
	case RSH_GEN_BF3: return 0x021C;
	default: return 0;
	}
}

/* Reset value of a field for this device. */
static uint32_t
rsh_simpci_field_val(const struct rsh_simpci_field *f,
		     const struct rsh_backend *be)
{
	unsigned int sp = rsh_simpci_speed(be->gen);

	switch (f->src) {
	case RSH_SIMPCI_DEVID:
		return be->cfg_only ? rsh_simpci_cfg_lf_id(be->gen) :
				      rsh_simpci_cfg_device_id(be->gen);
	case RSH_SIMPCI_REV: return be->revision;
	case RSH_SIMPCI_BAR0: return RSH_SIMPCI_BAR_MEM64;
	case RSH_SIMPCI_LNKCAP: return sp | 16u << 4;
	case RSH_SIMPCI_LNKSTA: return f->val | sp | 16u << 4;
	case RSH_SIMPCI_LNKCAP2: return ((1u << sp) - 1) << 1;
	case RSH_SIMPCI_LNKCTL2: return sp;
	default: return f->val;
	}
}

/* Store v (size bytes, little-endian) at off in one of the arrays. */
static void
rsh_simpci_put(uint8_t *a, unsigned int off, unsigned int size, uint32_t v)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		a[off + i] = (uint8_t)(v >> (8 * i));
}

/*
 * Livefish (be->cfg_only): no BAR; the address/data window at 0x58/0x5C
 * (§1.7) inside a vendor-specific capability (ID 0x09, 24 bytes at
 * 0x48: the window is its dwords 4 and 5), the PCIe capability moved
 * to 0x80 behind it. The place of the capability is the emulator's
 * choice (inferred: the hardware notes give the window's offsets only);
 * a capability of its own is what makes vfio-pci pass the bytes through
 * raw (hardware-notes §V9).
 */
static void
rsh_simpci_cfg_livefish(struct rsh_simpci_cfg *c)
{
	unsigned int len = 0x3C;

	memmove(c->reset + RSH_SIMPCI_CFG_LF_PCIE, c->reset + RSH_SIMPCI_CFG_PCIE_CAP, len);
	memmove(c->wmask + RSH_SIMPCI_CFG_LF_PCIE, c->wmask + RSH_SIMPCI_CFG_PCIE_CAP, len);
	memset(c->reset + RSH_SIMPCI_CFG_PCIE_CAP, 0, RSH_SIMPCI_CFG_LF_PCIE - RSH_SIMPCI_CFG_PCIE_CAP);
	memset(c->wmask + RSH_SIMPCI_CFG_PCIE_CAP, 0, RSH_SIMPCI_CFG_LF_PCIE - RSH_SIMPCI_CFG_PCIE_CAP);
	memset(c->reset + RSH_SIMPCI_CFG_BAR0, 0, 8);
	memset(c->wmask + RSH_SIMPCI_CFG_BAR0, 0, 8);
	c->reset[RSH_SIMPCI_CFG_CAP_PTR] = RSH_SIMPCI_CFG_LF_VSC;
	c->reset[RSH_SIMPCI_CFG_LF_VSC] = 0x09;                     /* vendor-specific */
	c->reset[RSH_SIMPCI_CFG_LF_VSC + 1] = RSH_SIMPCI_CFG_LF_PCIE; /* next */
	c->reset[RSH_SIMPCI_CFG_LF_VSC + 2] = 0x18;                 /* length */
	c->reset[RSH_SIMPCI_CFG_LF_PCIE + 1] = 0;                   /* last */
	c->bar_size = 0;
}

/* Build the config space of a device from the table. */
int
rsh_simpci_cfg_init(struct rsh_simpci_cfg *c, const struct rsh_backend *be)
{
	const struct rsh_simpci_field *f;
	unsigned int i;

	if (rsh_simpci_cfg_device_id(be->gen) == 0 || (!be->cfg_only &&
	    (be->bar_size < 16 || !rte_is_power_of_2(be->bar_size) ||
	     be->bar_size > (1ull << 31))))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->bar_size = be->bar_size;
	for (i = 0; i < RTE_DIM(rsh_simpci_fields); i++) {
		f = &rsh_simpci_fields[i];
		rsh_simpci_put(c->reset, f->off, f->size,
			       rsh_simpci_field_val(f, be));
		rsh_simpci_put(c->wmask, f->off, f->size, f->wmask);
	}
	/* BAR0: the address bits above the size are writable (§1.2). */
	rsh_simpci_put(c->wmask, RSH_SIMPCI_CFG_BAR0, 4,
		       (uint32_t)~(c->bar_size - 1) & ~0xFu);
	if (be->cfg_only)
		rsh_simpci_cfg_livefish(c);
	memcpy(c->b, c->reset, sizeof(c->b));
	return 0;
}

/* Add a hook for a range. */
int
rsh_simpci_cfg_hook_add(struct rsh_simpci_cfg *c,
			const struct rsh_simpci_cfg_hook *h)
{
	if (h->len == 0 || h->off + h->len > RSH_SIMPCI_CFG_SIZE ||
	    h->read == NULL || h->write == NULL)
		return -EINVAL;
	if (c->n_hooks == RSH_SIMPCI_CFG_HOOKS)
		return -ENOSPC;
	c->hooks[c->n_hooks++] = *h;
	return 0;
}

/* Hook overlapping [off, off + len), or NULL. */
static const struct rsh_simpci_cfg_hook *
rsh_simpci_hook_of(const struct rsh_simpci_cfg *c, uint32_t off, int len)
{
	unsigned int i;

	for (i = 0; i < c->n_hooks; i++) {
		const struct rsh_simpci_cfg_hook *h = &c->hooks[i];

		if (off < (uint32_t)h->off + h->len && off + len > h->off)
			return h;
	}
	return NULL;
}

/* True for len 1, 2 or 4 inside the 256 bytes. */
bool
rsh_simpci_cfg_valid(uint32_t off, int len)
{
	return (len == 1 || len == 2 || len == 4) &&
	       off + (uint32_t)len <= RSH_SIMPCI_CFG_SIZE;
}

/* Read len bytes at off. */
uint32_t
rsh_simpci_cfg_read(struct rsh_simpci_cfg *c, uint32_t off, int len)
{
	const struct rsh_simpci_cfg_hook *h;
	uint32_t v = 0;
	int i;

	if (!rsh_simpci_cfg_valid(off, len))
		return UINT32_MAX;
	h = rsh_simpci_hook_of(c, off, len);
	if (h != NULL)
		return h->read(h->arg, off, len);
	for (i = 0; i < len; i++)
		v |= (uint32_t)c->b[off + i] << (8 * i);
	return v;
}

/* Write len bytes at off through the mask. */
void
rsh_simpci_cfg_write(struct rsh_simpci_cfg *c, uint32_t off, uint32_t val,
		     int len)
{
	const struct rsh_simpci_cfg_hook *h;
	uint8_t m;
	int i;

	if (!rsh_simpci_cfg_valid(off, len))
		return;
	h = rsh_simpci_hook_of(c, off, len);
	if (h != NULL)
		return h->write(h->arg, off, val, len);
	for (i = 0; i < len; i++) {
		m = c->wmask[off + i];
		c->b[off + i] = (uint8_t)((c->b[off + i] & ~m) |
					  ((val >> (8 * i)) & m));
	}
}

/* Reset values; the upper BAR0 dword comes alive at the first reset:
 * before it, QEMU probes the BARs itself and would register that dword
 * as a BAR of its own (§V3). */
void
rsh_simpci_cfg_reset(struct rsh_simpci_cfg *c)
{
	memcpy(c->b, c->reset, sizeof(c->b));
	c->bar_hi_live = true;
	if (c->bar_size != 0) /* livefish: no BAR at all */
		rsh_simpci_put(c->wmask, RSH_SIMPCI_CFG_BAR0_HI, 4, UINT32_MAX);
}

/* BAR0 base: low dword without the type bits, upper dword on top. */
uint64_t
rsh_simpci_cfg_bar0(const struct rsh_simpci_cfg *c)
{
	uint64_t lo = 0, hi = 0;
	int i;

	for (i = 0; i < 4; i++) {
		lo |= (uint64_t)c->b[RSH_SIMPCI_CFG_BAR0 + i] << (8 * i);
		hi |= (uint64_t)c->b[RSH_SIMPCI_CFG_BAR0_HI + i] << (8 * i);
	}
	return (hi << 32) | (lo & ~0xFull);
}
