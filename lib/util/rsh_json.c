/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Streaming JSON writer (see rsh_json.h). Output is indented by two spaces
 * per level so that a person can read it and jq can parse it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "rsh_json.h"

/* Start a document on f. */
void
rsh_json_init(struct rsh_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* Newline and indentation for the current depth. */
static void
rsh_json_indent(struct rsh_json *j)
{
	fputc('\n', j->f);
	for (unsigned int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Write a string with RFC 8259 escapes. */
static void
rsh_json_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Separator, indentation and key before a value; false on misuse. */
static bool
rsh_json_pre(struct rsh_json *j, const char *key)
{
	bool obj = j->depth > 0 && j->in_obj[j->depth - 1];

	if (j->err != 0 || j->done || obj != (key != NULL)) {
		j->err = -EINVAL;
		return false;
	}
	if (j->depth == 0)
		return true;
	if (j->has_items[j->depth - 1])
		fputc(',', j->f);
	j->has_items[j->depth - 1] = true;
	rsh_json_indent(j);
	if (key != NULL) {
		rsh_json_quote(j->f, key);
		fputs(": ", j->f);
	}
	return true;
}

/* After a value: the document ends with the top-level value. */
static void
rsh_json_post(struct rsh_json *j)
{
	if (j->depth == 0)
		j->done = true;
}

/* Open a container. */
static void
rsh_json_begin(struct rsh_json *j, const char *key, bool obj)
{
	if (j->depth == RSH_JSON_MAX_DEPTH) {
		j->err = -EINVAL;
		return;
	}
	if (!rsh_json_pre(j, key))
		return;
	fputc(obj ? '{' : '[', j->f);
	j->in_obj[j->depth] = obj;
	j->has_items[j->depth] = false;
	j->depth++;
}

/* Close a container of the given kind. */
static void
rsh_json_end(struct rsh_json *j, bool obj)
{
	if (j->err != 0 || j->depth == 0 || j->in_obj[j->depth - 1] != obj) {
		j->err = -EINVAL;
		return;
	}
	j->depth--;
	if (j->has_items[j->depth])
		rsh_json_indent(j);
	fputc(obj ? '}' : ']', j->f);
	rsh_json_post(j);
}

void
rsh_json_obj_begin(struct rsh_json *j, const char *key)
{
	rsh_json_begin(j, key, true);
}

void
rsh_json_arr_begin(struct rsh_json *j, const char *key)
{
	rsh_json_begin(j, key, false);
}

void
rsh_json_obj_end(struct rsh_json *j)
{
	rsh_json_end(j, true);
}

void
rsh_json_arr_end(struct rsh_json *j)
{
	rsh_json_end(j, false);
}

/* A string value (NULL: null). */
void
rsh_json_str(struct rsh_json *j, const char *key, const char *v)
{
	if (!rsh_json_pre(j, key))
		return;
	if (v == NULL)
		fputs("null", j->f);
	else
		rsh_json_quote(j->f, v);
	rsh_json_post(j);
}

/* An unsigned integer value. */
void
rsh_json_u64(struct rsh_json *j, const char *key, uint64_t v)
{
	if (!rsh_json_pre(j, key))
		return;
	fprintf(j->f, "%" PRIu64, v);
	rsh_json_post(j);
}

/* A signed integer value. */
void
rsh_json_i64(struct rsh_json *j, const char *key, int64_t v)
{
	if (!rsh_json_pre(j, key))
		return;
	fprintf(j->f, "%" PRId64, v);
	rsh_json_post(j);
}

/* A number; nan and inf have no JSON spelling and become null. */
void
rsh_json_double(struct rsh_json *j, const char *key, double v)
{
	if (!rsh_json_pre(j, key))
		return;
	if (isfinite(v))
		fprintf(j->f, "%.15g", v);
	else
		fputs("null", j->f);
	rsh_json_post(j);
}

/* true / false. */
void
rsh_json_bool(struct rsh_json *j, const char *key, bool v)
{
	if (!rsh_json_pre(j, key))
		return;
	fputs(v ? "true" : "false", j->f);
	rsh_json_post(j);
}

/* null. */
void
rsh_json_null(struct rsh_json *j, const char *key)
{
	if (!rsh_json_pre(j, key))
		return;
	fputs("null", j->f);
	rsh_json_post(j);
}

/* End the document. */
int
rsh_json_finish(struct rsh_json *j)
{
	if (j->err == 0 && (j->depth != 0 || !j->done))
		j->err = -EINVAL;
	fputc('\n', j->f);
	if (fflush(j->f) != 0 || ferror(j->f))
		return -EIO;
	return j->err;
}
