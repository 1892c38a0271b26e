/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rshim-pmd control plane (included by rsh.h): ownership, misc keys,
 * software reset and register access by address.
 *
 * Errors: 0 or a negative errno; rsh_last_error() holds one line.
 */
#ifndef RSH_CTL_H
#define RSH_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rsh_reg_ids.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rsh_dev;

/** Ownership state of a device (hardware-notes §6). */
struct rsh_own_info {
	bool dropped;        /**< drop mode: no register access */
	bool locked;         /**< secure NIC mode (SCRATCHPAD1 reads LOCK) */
	uint64_t keepalives; /**< keepalive words written */
	uint64_t releases;   /**< handed over to a requester (OSP_ACK) */
	uint64_t takeovers;  /**< taken over from another owner (OSP_REQ) */
};

/** Copy the ownership state. */
void rsh_dev_own_info(const struct rsh_dev *dev, struct rsh_own_info *out);

/**
 * Enter (drop=true) or leave drop mode (§6.4). Entering releases the
 * device (SCRATCHPAD1 and SCRATCHPAD6 cleared) and stops all register
 * access; leaving runs the access check again, with a takeover request
 * (OSP_REQ) when force is set.
 * @return 0; -EBUSY a boot push runs, or another owner (no force);
 *   -ETIMEDOUT the poll loop did not drop within 1 s; -ENODEV gone.
 */
int rsh_dev_drop(struct rsh_dev *dev, bool drop, bool force);

/** Size of a buffer that holds any misc text (NVIDIA's rshim uses 4069 bytes). */
#define RSH_MISC_TEXT_MAX 8192u

/*
 * Register fields misc shows, for a caller that renders the misc keys
 * itself while a boot push owns the device (rsh_dev_reg_read() still
 * answers then; rsh_misc_read() does not).
 */
/** BOOT_MODE: the mode field of RSH_BOOT_CONTROL (0 boots from the rshim boot FIFO). */
#define RSH_CTL_BOOT_MODE_MASK 0x3ull
/** UP_TIME: BlueField-3's RSH_UPTIME counts at this rate, Hz. */
#define RSH_CTL_BF3_UPTIME_HZ 200000000ull
/** The most records the scratch log holds (rsh_scratchlog_read()'s useful max). */
#define RSH_CTL_LOG_RECS_MAX 128u

/**
 * The misc text, as `cat /dev/rshimN/misc` shows it (§5.4): one
 * `KEY<padded to 16>value (legend)` line per key at the device's
 * DISPLAY_LEVEL; level 1 asks the DPU for PEER_MAC/PXE_ID/VLAN_ID and
 * waits up to 1 s (no answer is normal: zeros); level 2 appends the boot
 * log. @return the text length; -EBUSY push running or dropped;
 * -ENODEV/-EIO device gone / unreachable.
 */
int rsh_misc_read(struct rsh_dev *dev, char *buf, size_t len);

/**
 * Apply one `KEY value` line (§5.5).
 * @return 0; -EINVAL unknown key or bad value (the line lists the valid
 *   ones); -ENOTSUP a key rshim-pmd does not implement; -ENOENT the key
 *   needs the TM FIFO channels; or the errno of the action.
 */
int rsh_misc_write(struct rsh_dev *dev, const char *line);

/**
 * Software reset of the ARM without a push (misc SW_RESET, §5.5): the
 * reset key, then the reset delay (reset_delay_ms < 0: the device
 * default), then wait until the rshim answers. cancel_flag may be NULL.
 * @return 0; -EBUSY push running or dropped; -ECANCELED; -ENODEV;
 *   -ETIMEDOUT the rshim did not come back.
 */
int rsh_dev_reset(struct rsh_dev *dev, int64_t reset_delay_ms,
		  const int *cancel_flag);

/** A register access request, parsed from `NAME|0xADDR[.32|.64][=VALUE]`. */
struct rsh_reg_req {
	char name[32];      /**< table name, or "" for an address */
	uint32_t addr;      /**< the address as given (bf-reg form) */
	uint32_t bar_off;   /**< BAR0 offset it decodes to */
	unsigned int size;  /**< 4 or 8 bytes */
	bool write;
	uint64_t value;     /**< written, or read back */
};

/**
 * Parse a register request for a generation: a table name (BOOT_CONTROL,
 * case-insensitive), or a bf-reg address — BF1/BF2 `channel<<16|offset`
 * (e.g. 0x00010528; bf-reg's bit 28 allowed), BF3 the global address
 * (0x13000528, or 0x03000528 which bf-reg turns into it) — with an
 * optional width and value. Checks bounds and alignment.
 * @return 0; -EINVAL with a line naming what is wrong.
 */
int rsh_reg_req_parse(enum rsh_gen gen, const char *spec, struct rsh_reg_req *req);

/**
 * Run a parsed request. FIFO data registers are refused where an access
 * would lose or corrupt data (the boot FIFO while a push runs, the TM
 * FIFO while the channels are attached).
 * @return 0; -EBUSY refused (line says why); -ENOTSUP a 32-bit write;
 *   -ENODEV/-EIO read all-ones / a "not reachable" pattern.
 */
int rsh_dev_reg_req(struct rsh_dev *dev, struct rsh_reg_req *req);

/**
 * The address of NVIDIA's register ioctls (RSHIM_IOC_READ/WRITE and their
 * v2 forms, as bf-reg issues them) in the form rsh_reg_req_parse takes,
 * for generation gen: BF1/BF2 `channel<<16|offset` (the
 * channel's 4 bits), BF3 the global address, a BF3 `channel<<16|offset`
 * decoded through the BF3 channel map first (v2: the channel's full
 * width).
 * @return 0 and *out; -EINVAL a BF3 channel and offset with no register.
 */
int rsh_reg_ioc_addr(enum rsh_gen gen, uint32_t addr, bool v2, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif /* RSH_CTL_H */
