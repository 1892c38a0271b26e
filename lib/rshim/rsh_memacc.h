/* SPDX-License-Identifier: BSD-3-Clause */
/* MEM_ACC widget access (hardware-notes §1.6); owning thread only. */
#ifndef RSH_MEMACC_H
#define RSH_MEMACC_H

#include <stdint.h>

struct rsh_dev;

#define RSH_OPN_LEN 16u /* boot-record OPN bytes (hardware-notes §1.5) */

/* One 4-byte read/write of SoC-physical memory. 0, -ETIMEDOUT (widget
 * gave no response after 1000 polls; rsh_last_error() says so), or
 * -EBUSY (dropped, or a boot push owns the device), or -ENODEV/-EIO for
 * a gone / unreachable device. */
int rsh_memacc_read32(struct rsh_dev *dev, uint64_t phys, uint32_t *v);
int rsh_memacc_write32(struct rsh_dev *dev, uint64_t phys, uint32_t v);

/* BlueField-2 boot-record OPN (raw 16 bytes) through the widget. */
int rsh_memacc_opn_read(struct rsh_dev *dev, char raw[RSH_OPN_LEN]);
int rsh_memacc_opn_write(struct rsh_dev *dev, const char *opn);

#endif
