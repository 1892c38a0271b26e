/* SPDX-License-Identifier: BSD-3-Clause */
/* The emulator's DPDK logtype: the backend registers its own, not the core. */
#include <rte_log.h>

#include "rsh_sim_priv.h"

RTE_LOG_REGISTER(rsh_logtype_sim, pmd.rshim.sim, NOTICE);
