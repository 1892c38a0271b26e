/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging for the library and the drivers: DPDK logtypes, one macro.
 * A .c file may define RSH_LOGTYPE (one of the ints below, or its
 * backend's own: each backend registers a "pmd.rshim.<name>" logtype with
 * RTE_LOG_REGISTER) before including this header; the default is the core
 * type "pmd.rshim".
 */
#ifndef RSH_LOG_H
#define RSH_LOG_H

#include <rte_log.h>

extern int rsh_logtype_core; /* pmd.rshim */
extern int rsh_logtype_boot; /* pmd.rshim.boot */
extern int rsh_logtype_fifo; /* pmd.rshim.fifo */
extern int rsh_logtype_reg;  /* pmd.rshim.reg: the register trace (debug) */

#ifndef RSH_LOGTYPE
#define RSH_LOGTYPE rsh_logtype_core
#endif

/* Log one line, prefixed with the function name. */
#define RSH_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, RSH_LOGTYPE, "rshim: %s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

/* Log one line about a device (anything with a char name[] member). */
#define RSH_DEV_LOG(level, dev, fmt, ...) \
	rte_log(RTE_LOG_##level, RSH_LOGTYPE, "rshim: %s(): %s: " fmt "\n", \
		__func__, (dev)->name, ##__VA_ARGS__)

/* Data-path log (per word / per packet): compiled out unless RSH_DEBUG_DP. */
#ifdef RSH_DEBUG_DP
#define RSH_DP_LOG(level, fmt, ...) RSH_LOG(level, fmt, ##__VA_ARGS__)
#else
#define RSH_DP_LOG(level, fmt, ...) do { } while (0)
#endif

#endif /* RSH_LOG_H */
