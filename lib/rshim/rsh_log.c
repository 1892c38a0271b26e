/* SPDX-License-Identifier: BSD-3-Clause */
/* The core's DPDK logtypes (each backend registers its own) and the per-thread last-error line. */
#include <stdarg.h>
#include <stdio.h>

#include <rte_log.h>

#include "rsh_backend.h"
#include "rsh_log.h"

RTE_LOG_REGISTER(rsh_logtype_core, pmd.rshim, NOTICE);
RTE_LOG_REGISTER(rsh_logtype_boot, pmd.rshim.boot, NOTICE);
RTE_LOG_REGISTER(rsh_logtype_fifo, pmd.rshim.fifo, NOTICE);
/* Every control-path register access at debug (rsh_cmd.c), off by default. */
RTE_LOG_REGISTER(rsh_logtype_reg, pmd.rshim.reg, NOTICE);

static __thread char rsh_err_line[512];

/* Record the calling thread's one-line error (also logged at DEBUG). */
void
rsh_err_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rsh_err_line, sizeof(rsh_err_line), fmt, ap);
	va_end(ap);
	RSH_LOG(DEBUG, "%s", rsh_err_line);
}

/* The calling thread's last error line. */
const char *
rsh_last_error(void)
{
	return rsh_err_line;
}
