/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A small streaming JSON writer: one document on a FILE, written as it
 * goes (no tree in memory). Used for the machine-readable output of
 * rshim-pmd-app (--json) and its benchmarks.
 *
 * Every value call takes a key: inside an object it must be non-NULL,
 * inside an array and at the top level it must be NULL. Misuse (a key
 * where none belongs, unbalanced ends, more than RSH_JSON_MAX_DEPTH
 * levels) is remembered and reported by rsh_json_finish(), never written
 * out as broken JSON silently. Strings are escaped per RFC 8259 (control
 * characters as \u00XX; bytes >= 0x80 are passed through). Non-finite
 * doubles are written as null.
 */
#ifndef RSH_JSON_H
#define RSH_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RSH_JSON_MAX_DEPTH 16

/** Writer state (one thread). */
struct rsh_json {
	FILE *f;
	unsigned int depth;                  /**< open containers */
	bool in_obj[RSH_JSON_MAX_DEPTH];     /**< container kind per level */
	bool has_items[RSH_JSON_MAX_DEPTH];  /**< a comma is due */
	bool done;                           /**< the top-level value ended */
	int err;                             /**< first misuse: -EINVAL */
};

/** Start a document on f. */
void rsh_json_init(struct rsh_json *j, FILE *f);

/** Open an object / array (key: see above). */
void rsh_json_obj_begin(struct rsh_json *j, const char *key);
void rsh_json_arr_begin(struct rsh_json *j, const char *key);

/** Close the innermost object / array. */
void rsh_json_obj_end(struct rsh_json *j);
void rsh_json_arr_end(struct rsh_json *j);

/** Values. A NULL string is written as null. */
void rsh_json_str(struct rsh_json *j, const char *key, const char *v);
void rsh_json_u64(struct rsh_json *j, const char *key, uint64_t v);
void rsh_json_i64(struct rsh_json *j, const char *key, int64_t v);
void rsh_json_double(struct rsh_json *j, const char *key, double v);
void rsh_json_bool(struct rsh_json *j, const char *key, bool v);
void rsh_json_null(struct rsh_json *j, const char *key);

/**
 * End the document: a newline, then flush.
 * @return 0; -EINVAL misuse or unbalanced containers; -EIO the stream
 *   reported a write error (errno tells which, e.g. EPIPE).
 */
int rsh_json_finish(struct rsh_json *j);

#endif /* RSH_JSON_H */
