/* SPDX-License-Identifier: BSD-3-Clause */
/* Device strings with devargs (rsh_devstr.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rsh_devstr.h"

int
rsh_devstr_pci(char *buf, size_t len, const char *devstr,
	       const char *mapping, bool force_id)
{
	bool pci = strncmp(devstr, "sim:", 4) != 0;
	int n;

	n = snprintf(buf, len, "%s%s%s%s", devstr,
		     pci && mapping != NULL ? ",mapping=" : "",
		     pci && mapping != NULL ? mapping : "",
		     pci && force_id ? ",force-id=1" : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
