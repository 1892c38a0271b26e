/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one clear error line of a program (rshim-pmd-app, the rshim-pmd
 * service, rshim-mkbfb): "<prog>: <message>[<hint>]", the message kept in
 * the caller's buffer (rshim-pmd-app reports it again in --json). Each
 * program's rsh_*_err() wrapper is a va_list over this one setter.
 *
 * Plain C, no DPDK: the service sends the kept line to its logtype itself.
 */
#ifndef RSH_ERRLINE_H
#define RSH_ERRLINE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/**
 * Format the message into buf (truncated to size) and, when f is not NULL,
 * write "<prog>: <message><hint>\n" to f (hint may be NULL).
 *
 * @return buf.
 */
const char *rsh_errline_vset(char *buf, size_t size, FILE *f, const char *prog,
			     const char *hint, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

#endif /* RSH_ERRLINE_H */
