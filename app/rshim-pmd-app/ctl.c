/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-pmd-app control options: --misc, --misc-set, --log [--clear],
 * --reset, --reg, --drop (and --force, which asks another rshim driver to
 * hand the device over). Each prints one result line, or JSON with --json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "app.h"

/* A control option; false when c is not one of them. */
bool
rsh_app_ctl_opt(struct rsh_app *app, int c, const char *arg)
{
	struct rsh_app_ctl *x = &app->ctl;

	switch (c) {
	case RSH_OPT_MISC: x->misc = true; break;
	case RSH_OPT_MISC_SET: x->misc_set = arg; break;
	case RSH_OPT_LOG: x->log = true; break;
	case RSH_OPT_CLEAR: x->clear = true; break;
	case RSH_OPT_RESET: x->reset = true; break;
	case RSH_OPT_REG: x->reg = arg; break;
	case RSH_OPT_DROP: x->drop = true; break;
	case RSH_OPT_JSON: x->json = true; break;
	default: return false;
	}
	return true;
}

/* True when a control option asks for work. */
bool
rsh_app_ctl_wanted(const struct rsh_app *app)
{
	const struct rsh_app_ctl *x = &app->ctl;

	return x->misc || x->misc_set != NULL || x->log || x->reset || x->reg != NULL ||
	       x->drop;
}

/* A JSON string (escaped) to f. */
static void
rsh_app_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* An error result: one line on stderr, or a JSON object on stdout. */
static int
rsh_app_ctl_fail(struct rsh_app *app, const char *op, int rc, int code)
{
	const char *msg = rsh_last_error()[0] ? rsh_last_error() : strerror(-rc);

	if (app->ctl.json) {
		printf("{\"op\":\"%s\",\"ok\":false,\"errno\":%d,\"error\":", op, -rc);
		rsh_app_json_str(stdout, msg);
		printf("}\n");
	}
	rsh_app_err("%s", msg);
	return code;
}

/* --misc: the text, or {"misc":{KEY:value...},"log":[...]}. */
static int
rsh_app_ctl_misc(struct rsh_app *app, struct rsh_dev *dev)
{
	static char text[RSH_MISC_TEXT_MAX];
	int n = rsh_misc_read(dev, text, sizeof(text));

	if (n < 0)
		return rsh_app_ctl_fail(app, "misc", n, rsh_app_exit_code(n));
	if (!app->ctl.json) {
		fputs(text, stdout);
		return RSH_EXIT_OK;
	}
	printf("{\"op\":\"misc\",\"ok\":true,\"device\":");
	rsh_app_json_str(stdout, rsh_dev_name(dev));
	printf(",\"keys\":{");
	bool first = true, in_log = false;

	for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		if (line[0] == '-' || strstr(line, "Log Messages") != NULL) {
			if (!in_log)
				printf("},\"log\":[");
			in_log = true;
			first = true;
			continue;
		}
		if (!first)
			putchar(',');
		first = false;
		if (in_log) {
			rsh_app_json_str(stdout, line);
			continue;
		}
		char key[32];
		size_t k = strcspn(line, " ");

		snprintf(key, sizeof(key), "%.*s", (int)RTE_MIN(k, sizeof(key) - 1), line);
		rsh_app_json_str(stdout, key);
		putchar(':');
		rsh_app_json_str(stdout, line + (strlen(line) >= 16 ? 16 : strlen(line)));
	}
	printf(in_log ? "]}\n" : "}}\n");
	return RSH_EXIT_OK;
}

/* --misc-set 'KEY VALUE'. */
static int
rsh_app_ctl_misc_set(struct rsh_app *app, struct rsh_dev *dev)
{
	int rc = rsh_misc_write(dev, app->ctl.misc_set);

	if (rc < 0)
		return rsh_app_ctl_fail(app, "misc-set", rc,
					rc == -EINVAL ? RSH_EXIT_USAGE : rsh_app_exit_code(rc));
	if (app->ctl.json) {
		printf("{\"op\":\"misc-set\",\"ok\":true,\"set\":");
		rsh_app_json_str(stdout, app->ctl.misc_set);
		printf("}\n");
	} else {
		printf("%s: misc %s: done\n", rsh_dev_name(dev), app->ctl.misc_set);
	}
	return RSH_EXIT_OK;
}

/* --log [--clear]: the decoded boot log; exit 7 when it holds an error. */
static int
rsh_app_ctl_log(struct rsh_app *app, struct rsh_dev *dev)
{
	static struct rsh_log_rec recs[256];
	int n = rsh_log_read(dev, app->ctl.clear, recs, RTE_DIM(recs));
	unsigned int errs = 0;

	if (n < 0)
		return rsh_app_ctl_fail(app, "log", n, rsh_app_exit_code(n));
	if (app->ctl.json)
		printf("{\"op\":\"log\",\"ok\":true,\"lines\":[");
	for (int i = 0; i < n; i++) {
		errs += recs[i].level >= 2;
		if (!app->ctl.json) {
			printf("%s\n", recs[i].text);
			continue;
		}
		if (i > 0)
			putchar(',');
		rsh_app_json_str(stdout, recs[i].text);
	}
	if (app->ctl.json)
		printf("],\"errors\":%u,\"cleared\":%s}\n", errs, app->ctl.clear ? "true" : "false");
	else
		printf("%s: %d log line%s, %u error%s%s\n", rsh_dev_name(dev), n, n == 1 ? "" : "s",
		       errs, errs == 1 ? "" : "s", app->ctl.clear ? ", log cleared" : "");
	return errs ? RSH_EXIT_DPU_ERR : RSH_EXIT_OK;
}

/* --reset: software reset with the reset delay, no push. */
static int
rsh_app_ctl_reset(struct rsh_app *app, struct rsh_dev *dev)
{
	int rc;

	if (!app->quiet && !app->ctl.json)
		fprintf(stderr, "rshim-pmd-app: %s: resetting the ARM (software reset, then the reset delay)\n",
			rsh_dev_name(dev));
	rc = rsh_dev_reset(dev, app->boot.reset_delay_ms, &rsh_app_cancel);
	if (rc < 0)
		return rsh_app_ctl_fail(app, "reset", rc, rsh_app_exit_code(rc));
	if (app->ctl.json)
		printf("{\"op\":\"reset\",\"ok\":true}\n");
	else
		printf("%s: ARM reset done\n", rsh_dev_name(dev));
	return RSH_EXIT_OK;
}

/* --reg NAME|0xADDR[.32|.64][=VALUE]. */
static int
rsh_app_ctl_reg(struct rsh_app *app, struct rsh_dev *dev)
{
	struct rsh_reg_req r;
	char what[48];
	int rc = rsh_reg_req_parse(rsh_dev_gen(dev), app->ctl.reg, &r);

	if (rc < 0)
		return rsh_app_ctl_fail(app, "reg", rc, RSH_EXIT_USAGE);
	rc = rsh_dev_reg_req(dev, &r);
	if (rc < 0)
		return rsh_app_ctl_fail(app, "reg", rc,
					rc == -ENOTSUP ? RSH_EXIT_USAGE : rsh_app_exit_code(rc));
	if (r.name[0] != '\0')
		snprintf(what, sizeof(what), "%s (BAR 0x%06x)", r.name, r.bar_off);
	else
		snprintf(what, sizeof(what), "0x%08x (BAR 0x%06x)", r.addr, r.bar_off);
	if (app->ctl.json)
		printf("{\"op\":\"reg\",\"ok\":true,\"reg\":\"%s\",\"bar_off\":%u,\"bits\":%u,\"write\":%s,\"value\":\"0x%0*llx\"}\n",
		       r.name[0] ? r.name : "", r.bar_off, r.size * 8, r.write ? "true" : "false",
		       (int)r.size * 2, (unsigned long long)r.value);
	else
		printf("%s: %s %s 0x%0*llx\n", rsh_dev_name(dev), what, r.write ? "<-" : "=",
		       (int)r.size * 2, (unsigned long long)r.value);
	return RSH_EXIT_OK;
}

/* --drop: the device is released; the process stays until Ctrl-C. */
static int
rsh_app_ctl_drop_wait(struct rsh_app *app, struct rsh_dev *dev)
{
	struct timespec ts = { 0, 50 * 1000000L };

	if (app->ctl.json)
		printf("{\"op\":\"drop\",\"ok\":true}\n");
	else
		printf("%s: drop mode: released to other rshim drivers (no register access); Ctrl-C ends\n",
		       rsh_dev_name(dev));
	fflush(stdout);
	while (!__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
		nanosleep(&ts, NULL);
	return RSH_EXIT_OK;
}

/* The operations, in a fixed order; the first failure ends the run. */
static int
rsh_app_ctl_ops(struct rsh_app *app, struct rsh_dev *dev)
{
	int code = RSH_EXIT_OK;

	if (app->ctl.misc_set != NULL)
		code = rsh_app_ctl_misc_set(app, dev);
	if (code == RSH_EXIT_OK && app->ctl.reset)
		code = rsh_app_ctl_reset(app, dev);
	if (code == RSH_EXIT_OK && app->ctl.reg != NULL)
		code = rsh_app_ctl_reg(app, dev);
	if (code == RSH_EXIT_OK && app->ctl.log)
		code = rsh_app_ctl_log(app, dev);
	if (code == RSH_EXIT_OK && app->ctl.misc)
		code = rsh_app_ctl_misc(app, dev);
	if (code == RSH_EXIT_OK && app->ctl.drop && !app->ctl.misc && !app->ctl.log)
		code = rsh_app_ctl_drop_wait(app, dev);
	return code;
}

/* The TM FIFO is needed for the peer keys (PEER_MAC, PXE_ID, VLAN_ID). */
static bool
rsh_app_ctl_needs_tmfifo(const struct rsh_app *app)
{
	const char *s = app->ctl.misc_set;

	return s != NULL && (strncmp(s, "PEER_MAC", 8) == 0 || strncmp(s, "PXE_ID", 6) == 0 ||
			     strncmp(s, "VLAN_ID", 7) == 0 || strncmp(s, "DISPLAY_LEVEL 1", 15) == 0);
}

/* Open, attach what is needed, start the poll loop, run, close. */
int
rsh_app_ctl_run(struct rsh_app *app)
{
	struct rsh_tmfifo_opts to;
	struct rsh_poller *p = NULL;
	struct rsh_dev *dev = NULL;
	int rc, code;

	app->open.drop = app->ctl.drop;
	rc = rsh_dev_open(app->device, &app->open, &dev);
	if (rc < 0)
		return rsh_app_ctl_fail(app, "open", rc, RSH_EXIT_DEVICE);
	rsh_tmfifo_opts_default(&to);
	to.net = false;
	rc = rsh_app_ctl_needs_tmfifo(app) && !app->ctl.drop ? rsh_tmfifo_attach(dev, &to) : 0;
	if (rc == 0)
		rc = rsh_poller_create(&app->poll, &p);
	if (rc == 0)
		rc = rsh_poller_add(p, dev);
	if (rc == 0)
		rc = rsh_poller_start(p);
	code = rc < 0 ? rsh_app_ctl_fail(app, "start", rc, RSH_EXIT_FAIL) : rsh_app_ctl_ops(app, dev);
	rsh_poller_destroy(p);
	rsh_tmfifo_detach(dev);
	rsh_dev_close(dev);
	return code;
}
