/* SPDX-License-Identifier: BSD-3-Clause */
/* rshim-pmd-app: the inputs of a push, read once (input.c). */
#ifndef RSH_APP_INPUT_H
#define RSH_APP_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rsh.h"
#include "rsh_bfb.h"

struct rsh_app;

/* One input file. Main thread only. */
struct rsh_app_in_file {
	const char *path;          /* as given; "-" is stdin */
	int fd;
	bool regular;              /* a regular file: its size must not change */
	uint64_t size;             /* st_size of a regular file */
	uint64_t got;              /* bytes read so far */
};

/* The push's inputs in order: boot stream, --config, --rootfs. */
struct rsh_app_input {
	struct rsh_app_in_file f[3];
	unsigned int n, n_saved;
	unsigned int cur;          /* the file being read */
	uint8_t *head;             /* bytes of a pipe read ahead before reset */
	size_t head_len, head_off;
	struct rsh_boot *b;        /* set during the push: reads are queued */
	int push_err;              /* the boot engine's error, 0 if none */
	int err;                   /* the first error of a read, 0 if none */
	uint64_t delivered;        /* bytes handed to the boot engine */
	char msg[256];             /* an input error (shrank, read error) */
	void (*progress)(void *arg);
	void *progress_arg;
};

/* Open the inputs (exit code, 0 = ok); close them. */
int rsh_app_input_open(struct rsh_app *app, struct rsh_app_input *in);
void rsh_app_input_close(struct rsh_app_input *in);

/* Validate before the reset (exit code, 0 = go on). */
int rsh_app_input_precheck(struct rsh_app *app, struct rsh_app_input *in);

/* rsh_bfb_read_fn over the inputs; queues to in->b when set. */
ssize_t rsh_app_input_read(void *arg, void *buf, size_t len);

/* Total size when every input is a regular file, else 0. */
uint64_t rsh_app_input_total(const struct rsh_app_input *in);

/* "stdin" or the path. */
const char *rsh_app_in_name(const struct rsh_app_in_file *f);

#endif /* RSH_APP_INPUT_H */
