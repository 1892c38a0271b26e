/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small host queries shared by rshim-pmd-app and the rshim-pmd service.
 */
#ifndef RSH_SYS_H
#define RSH_SYS_H

#include <stdbool.h>

/* Free 2 MiB hugepages the EAL wants before it runs on hugepages. */
#define RSH_MIN_FREE_HUGEPAGES 8

/* Free 2 MiB hugepages now (0 when none are reserved or sysfs is absent). */
long rsh_free_hugepages(void);

/* True when at least RSH_MIN_FREE_HUGEPAGES are free. */
bool rsh_have_hugepages(void);

#endif /* RSH_SYS_H */
