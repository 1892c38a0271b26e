/* SPDX-License-Identifier: BSD-3-Clause */
/* The one clear error line of a program, see rsh_errline.h. */
#include "rsh_errline.h"

/* Keep the message, then print it with the program's name. */
const char *
rsh_errline_vset(char *buf, size_t size, FILE *f, const char *prog,
		 const char *hint, const char *fmt, va_list ap)
{
	vsnprintf(buf, size, fmt, ap);
	if (f != NULL)
		fprintf(f, "%s: %s%s\n", prog, buf, hint != NULL ? hint : "");
	return buf;
}
