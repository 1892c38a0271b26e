/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MEM_ACC widget: one 4-byte access of SoC-physical memory through the
 * rshim (hardware-notes §1.6), and the BlueField-2 boot-record OPN on top
 * of it (hardware-notes §1.5). Runs on the device's owning thread only
 * (callers are command steps); the wait is bounded by a number of
 * MEM_ACC_RSP_CNT reads, as NVIDIA's rshim-user-space does.
 */
#include <errno.h>
#include <string.h>

#include "rsh_dev_priv.h"
#include "rsh_log.h"
#include "rsh_memacc.h"
#include "rsh_own.h"

#define RSH_MEMACC_SEND (1ull << 63)
#define RSH_MEMACC_WRITE (1ull << 48)
#define RSH_MEMACC_SIZE4 (2ull << 52)
#define RSH_MEMACC_ADDR_MASK ((1ull << 40) - 1)
#define RSH_MEMACC_POLLS 1000u
#define RSH_MEMACC_PRIV_BIT_BF12 48
#define RSH_MEMACC_BF2_OPN_PHYS (0x2800000ull + 0xFD8u)

/* Grant the widget its privilege level (§1.6 step 1); refused while the
 * device is dropped or a boot push owns it, like any register access. */
static int
rsh_memacc_priv(struct rsh_dev *dev)
{
	unsigned int bit = dev->be->gen == RSH_GEN_BF3 ? 0 : RSH_MEMACC_PRIV_BIT_BF12;
	int rc = rsh_own_access_ok(dev);
	uint64_t v;

	if (rc < 0)
		return rc;
	if (__atomic_load_n(&rsh_dev_boot_state(dev)->push, __ATOMIC_ACQUIRE) != NULL) {
		rsh_err_set("%s: a boot push owns the device", dev->name);
		return -EBUSY;
	}
	v = rsh_dev_rd(dev, RSH_DEVICE_MSTR_PRIV_LVL);
	if (rsh_reg_val_is_bad(v))
		return rsh_dev_val_err(v);
	if (!(v & (1ull << bit)))
		rsh_dev_wr(dev, RSH_DEVICE_MSTR_PRIV_LVL, v | 1ull << bit);
	return 0;
}

/* One 4-byte access; *v is the data to write or receives the data read. */
static int
rsh_memacc_access(struct rsh_dev *dev, uint64_t phys, bool write, uint32_t *v)
{
	uint64_t c0, c;
	int rc = rsh_memacc_priv(dev);

	if (rc < 0)
		return rc;
	c0 = rsh_dev_rd(dev, RSH_MEM_ACC_RSP_CNT);
	if (rsh_reg_val_is_bad(c0))
		return rsh_dev_val_err(c0);
	if (write)
		rsh_dev_wr(dev, RSH_MEM_ACC_DATA, *v);
	rsh_dev_wr(dev, RSH_MEM_ACC_CTL, (phys & RSH_MEMACC_ADDR_MASK) | RSH_MEMACC_SIZE4 |
		   (write ? RSH_MEMACC_WRITE : 0) | RSH_MEMACC_SEND);
	for (unsigned int i = 0; i < RSH_MEMACC_POLLS; i++) {
		c = rsh_dev_rd(dev, RSH_MEM_ACC_RSP_CNT);
		if (rsh_reg_val_is_bad(c))
			return rsh_dev_val_err(c);
		if (c != c0) {
			if (!write)
				*v = (uint32_t)rsh_dev_rd(dev, RSH_MEM_ACC_DATA);
			return 0;
		}
	}
	rsh_err_set("%s: MEM_ACC widget timeout: no response to the %s of SoC address 0x%llx after %u polls (the device may be in reset; retry)",
		    dev->name, write ? "write" : "read", (unsigned long long)phys,
		    RSH_MEMACC_POLLS);
	return -ETIMEDOUT;
}

int
rsh_memacc_read32(struct rsh_dev *dev, uint64_t phys, uint32_t *v)
{
	return rsh_memacc_access(dev, phys, false, v);
}

int
rsh_memacc_write32(struct rsh_dev *dev, uint64_t phys, uint32_t v)
{
	return rsh_memacc_access(dev, phys, true, &v);
}

/* The OPN's 16 raw bytes: first character in each word's top byte. */
int
rsh_memacc_opn_read(struct rsh_dev *dev, char raw[RSH_OPN_LEN])
{
	for (unsigned int i = 0; i < RSH_OPN_LEN; i += 4) {
		uint32_t w = 0;
		int rc = rsh_memacc_read32(dev, RSH_MEMACC_BF2_OPN_PHYS + i, &w);

		if (rc < 0)
			return rc;
		for (unsigned int k = 0; k < 4; k++)
			raw[i + k] = (char)(w >> (24 - 8 * k));
	}
	return 0;
}

/* Write the OPN, NUL-padded to 16 bytes (the caller checked its length). */
int
rsh_memacc_opn_write(struct rsh_dev *dev, const char *opn)
{
	char raw[RSH_OPN_LEN] = { 0 };

	memcpy(raw, opn, strnlen(opn, RSH_OPN_LEN));
	for (unsigned int i = 0; i < RSH_OPN_LEN; i += 4) {
		uint32_t w = 0;
		int rc;

		for (unsigned int k = 0; k < 4; k++)
			w = w << 8 | (uint8_t)raw[i + k];
		rc = rsh_memacc_write32(dev, RSH_MEMACC_BF2_OPN_PHYS + i, w);
		if (rc < 0)
			return rc;
	}
	return 0;
}
