/* SPDX-License-Identifier: BSD-3-Clause */
/* --list: real rshim functions and, on request, emulated ones. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

#define RSH_APP_LIST_MAX 64

/* Print one table of every device found. */
int
rsh_app_list(struct rsh_app *app)
{
	struct rsh_dev_info info[RSH_APP_LIST_MAX];
	int n = rsh_dev_scan(&app->open, app->list_sim, info, RSH_APP_LIST_MAX);

	if (n < 0) {
		rsh_app_err("device scan failed: %s", rsh_last_error());
		return RSH_EXIT_DEVICE;
	}
	printf("%-20s %-6s %-12s %-4s %-9s %-10s %s\n", "DEVICE", "DRIVER",
	       "GENERATION", "REV", "BAR0", "STATUS", "DETAIL");
	for (int i = 0; i < n && i < RSH_APP_LIST_MAX; i++) {
		const struct rsh_dev_info *d = &info[i];

		printf("%-20s %-6s %-12s %-4u %-9" PRIu64 " %-10s %s\n", d->name,
		       d->driver, rsh_gen_name(d->gen), d->revision,
		       d->bar_size >> 10, d->supported ? "ok" : "unsupported",
		       d->detail);
	}
	if (n == 0)
		fprintf(stderr, "rshim-pmd-app: no rshim function found%s\n",
			app->list_sim ? "" : " (add --sim to list the emulated BlueFields)");
	return RSH_EXIT_OK;
}
