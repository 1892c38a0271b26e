/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-pmd-app control options: --misc, --misc-set, --log [--clear],
 * --reset, --reg, --drop (--force, in opts.c, also asks another rshim
 * driver to hand the device over). They plug into the option table and
 * the device run through rsh_app_ctl_optset. Each operation prints one
 * result line (--misc and --log print their text first), or, with --json,
 * one object of the document.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "app.h"
#include "rsh_json.h"

enum {
	RSH_OPT_MISC = RSH_APP_OPT_EXT_BASE, RSH_OPT_MISC_SET, RSH_OPT_LOG,
	RSH_OPT_CLEAR, RSH_OPT_RESET, RSH_OPT_REG, RSH_OPT_DROP,
};

static const struct option rsh_app_ctl_opts[] = {
	{ "misc", no_argument, NULL, RSH_OPT_MISC },
	{ "misc-set", required_argument, NULL, RSH_OPT_MISC_SET },
	{ "log", no_argument, NULL, RSH_OPT_LOG },
	{ "clear", no_argument, NULL, RSH_OPT_CLEAR },
	{ "reset", no_argument, NULL, RSH_OPT_RESET },
	{ "reg", required_argument, NULL, RSH_OPT_REG },
	{ "drop", no_argument, NULL, RSH_OPT_DROP },
	{ NULL, 0, NULL, 0 },
};

/* One control option. */
static int
rsh_app_ctl_apply(struct rsh_app *app, int c, const char *arg)
{
	struct rsh_app_ctl *x = &app->ctl;

	switch (c) {
	case RSH_OPT_MISC: x->misc = true; break;
	case RSH_OPT_MISC_SET: x->misc_set = arg; break;
	case RSH_OPT_LOG: x->log = true; break;
	case RSH_OPT_CLEAR: x->clear = true; break;
	case RSH_OPT_RESET: x->reset = true; break;
	case RSH_OPT_REG: x->reg = arg; break;
	case RSH_OPT_DROP:
		x->drop = true;
		app->open.drop = true; /* opened without touching a register */
		break;
	default: return -EINVAL;
	}
	return 0;
}

/* The option that asked for the control mode, or NULL. */
static const char *
rsh_app_ctl_mode(const struct rsh_app *app)
{
	const struct rsh_app_ctl *x = &app->ctl;

	if (x->misc_set != NULL)
		return "--misc-set";
	if (x->reset)
		return "--reset";
	if (x->reg != NULL)
		return "--reg";
	if (x->log)
		return "--log";
	if (x->misc)
		return "--misc";
	return x->drop ? "--drop" : NULL;
}

/* An operation's failure: the line on stderr, and "error" in JSON. */
static int
rsh_app_ctl_fail(struct rsh_json *j, const char *op, int rc, int code)
{
	const char *msg = rsh_last_error()[0] ? rsh_last_error() : strerror(-rc);

	rsh_app_err("%s", msg);
	if (j != NULL) {
		rsh_json_obj_begin(j, op);
		rsh_json_bool(j, "ok", false);
		rsh_json_i64(j, "errno", -rc);
		rsh_json_str(j, "error", msg);
		rsh_json_obj_end(j);
	}
	return code;
}

/* The misc text as JSON: "keys" {KEY: value}, "log" [lines]. */
static void
rsh_app_ctl_misc_json(struct rsh_json *j, char *text)
{
	bool in_log = false;
	char key[32];

	rsh_json_obj_begin(j, "misc");
	rsh_json_obj_begin(j, "keys");
	for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		if (line[0] == '-' || strstr(line, "Log Messages") != NULL) {
			if (!in_log) {
				rsh_json_obj_end(j);
				rsh_json_arr_begin(j, "log");
			}
			in_log = true;
			continue;
		}
		if (in_log) {
			rsh_json_str(j, NULL, line);
			continue;
		}
		snprintf(key, sizeof(key), "%.*s", (int)RTE_MIN(strcspn(line, " "), sizeof(key) - 1),
			 line);
		rsh_json_str(j, key, line + RTE_MIN(strlen(line), (size_t)16));
	}
	if (in_log)
		rsh_json_arr_end(j);
	else
		rsh_json_obj_end(j);
	rsh_json_obj_end(j);
}

/* --misc: the text as cat /dev/rshimN/misc shows it. */
static int
rsh_app_ctl_misc(struct rsh_json *j, struct rsh_dev *dev)
{
	static char text[RSH_MISC_TEXT_MAX];
	int n = rsh_misc_read(dev, text, sizeof(text));

	if (n < 0)
		return rsh_app_ctl_fail(j, "misc", n, rsh_app_exit_code(n));
	if (j != NULL)
		rsh_app_ctl_misc_json(j, text);
	else
		fputs(text, stdout);
	return RSH_EXIT_OK;
}

/* Control messages sent so far (0 without channels). */
static uint64_t
rsh_app_ctl_tx_ctrl(struct rsh_dev *dev)
{
	struct rsh_tmfifo_stats st;

	return rsh_tmfifo_get_stats(dev, RSH_TMFIFO_CONSOLE, NULL, &st) == 0 ? st.tx_ctrl : 0;
}

/* Wait (1 s at most) until the poll loop sent the queued control
 * messages, so the channels are not detached under them. */
static void
rsh_app_ctl_ctrl_flush(struct rsh_dev *dev, uint64_t want)
{
	struct timespec ts = { 0, 1000000L };

	for (unsigned int i = 0; i < 1000 && rsh_app_ctl_tx_ctrl(dev) < want; i++)
		nanosleep(&ts, NULL);
}

/* One --misc-set 'KEY VALUE'. */
static int
rsh_app_ctl_misc_set(struct rsh_json *j, struct rsh_dev *dev, const char *line)
{
	uint64_t sent = rsh_app_ctl_tx_ctrl(dev);
	int rc = rsh_misc_write(dev, line);

	if (rc < 0)
		return rsh_app_ctl_fail(j, "misc_set", rc,
					rc == -EINVAL || rc == -ENOTSUP ? RSH_EXIT_USAGE :
					rsh_app_exit_code(rc));
	/* PEER_MAC queues two messages, PXE_ID and VLAN_ID one. */
	if (rsh_app_ctl_tx_ctrl(dev) < sent + 1 && rsh_tmfifo_attached(dev))
		rsh_app_ctl_ctrl_flush(dev, sent + (strncmp(line, "PEER_MAC", 8) == 0 ? 2 : 1));
	if (j != NULL) {
		rsh_json_obj_begin(j, "misc_set");
		rsh_json_bool(j, "ok", true);
		rsh_json_str(j, "set", line);
		rsh_json_obj_end(j);
	} else {
		printf("%s: misc %s: done\n", rsh_dev_name(dev), line);
	}
	return RSH_EXIT_OK;
}

/* --log [--clear]: the decoded boot log; exit 7 when it holds an error. */
static int
rsh_app_ctl_log(struct rsh_app *app, struct rsh_json *j, struct rsh_dev *dev)
{
	static struct rsh_scratchlog_rec recs[256];
	int n = rsh_scratchlog_read(dev, app->ctl.clear, recs, RTE_DIM(recs));
	unsigned int errs = 0;

	if (n < 0)
		return rsh_app_ctl_fail(j, "log", n, rsh_app_exit_code(n));
	if (j != NULL) {
		rsh_json_obj_begin(j, "log");
		rsh_json_arr_begin(j, "lines");
	}
	for (int i = 0; i < n; i++) {
		errs += recs[i].level >= 2;
		if (j != NULL)
			rsh_json_str(j, NULL, recs[i].text);
		else
			printf("%s\n", recs[i].text);
	}
	if (j != NULL) {
		rsh_json_arr_end(j);
		rsh_json_u64(j, "errors", errs);
		rsh_json_bool(j, "cleared", app->ctl.clear);
		rsh_json_obj_end(j);
	} else {
		printf("%s: %d log line%s, %u error%s%s\n", rsh_dev_name(dev), n, n == 1 ? "" : "s",
		       errs, errs == 1 ? "" : "s", app->ctl.clear ? ", log cleared" : "");
	}
	return errs ? RSH_EXIT_DPU_ERR : RSH_EXIT_OK;
}

/* --reset: software reset with the reset delay, no push. */
static int
rsh_app_ctl_reset(struct rsh_app *app, struct rsh_json *j, struct rsh_dev *dev)
{
	int rc;

	if (!app->quiet && j == NULL)
		fprintf(stderr, "rshim-pmd-app: %s: resetting the ARM (software reset, then the reset delay)\n",
			rsh_dev_name(dev));
	rc = rsh_dev_reset(dev, app->boot.reset_delay_ms, &rsh_app_cancel);
	if (rc < 0)
		return rsh_app_ctl_fail(j, "reset", rc, rsh_app_exit_code(rc));
	if (j != NULL) {
		rsh_json_obj_begin(j, "reset");
		rsh_json_bool(j, "ok", true);
		rsh_json_obj_end(j);
	} else {
		printf("%s: ARM reset done\n", rsh_dev_name(dev));
	}
	return RSH_EXIT_OK;
}

/* The result of --reg as JSON. */
static void
rsh_app_ctl_reg_json(struct rsh_json *j, const struct rsh_reg_req *r)
{
	char v[24];

	snprintf(v, sizeof(v), "0x%0*llx", (int)r->size * 2, (unsigned long long)r->value);
	rsh_json_obj_begin(j, "reg");
	rsh_json_bool(j, "ok", true);
	rsh_json_str(j, "name", r->name);
	rsh_json_u64(j, "addr", r->addr);
	rsh_json_u64(j, "bar_off", r->bar_off);
	rsh_json_u64(j, "bits", r->size * 8);
	rsh_json_bool(j, "write", r->write);
	rsh_json_str(j, "value", v);
	rsh_json_obj_end(j);
}

/* --reg NAME|0xADDR[.32|.64][=VALUE]. */
static int
rsh_app_ctl_reg(struct rsh_app *app, struct rsh_json *j, struct rsh_dev *dev)
{
	struct rsh_dev_info inf;
	struct rsh_reg_req r;
	char what[48];
	int rc;

	rsh_dev_get_info(dev, &inf);
	rc = rsh_reg_req_parse(inf.gen, app->ctl.reg, &r);
	if (rc < 0)
		return rsh_app_ctl_fail(j, "reg", rc, RSH_EXIT_USAGE);
	rc = rsh_dev_reg_req(dev, &r);
	if (rc < 0)
		return rsh_app_ctl_fail(j, "reg", rc,
					rc == -ENOTSUP ? RSH_EXIT_USAGE : rsh_app_exit_code(rc));
	if (j != NULL) {
		rsh_app_ctl_reg_json(j, &r);
		return RSH_EXIT_OK;
	}
	if (r.name[0] != '\0')
		snprintf(what, sizeof(what), "%s (BAR 0x%06x)", r.name, r.bar_off);
	else
		snprintf(what, sizeof(what), "0x%08x (BAR 0x%06x)", r.addr, r.bar_off);
	printf("%s: %s %s 0x%0*llx\n", rsh_dev_name(dev), what, r.write ? "<-" : "=",
	       (int)r.size * 2, (unsigned long long)r.value);
	return RSH_EXIT_OK;
}

/* --drop: the device is released; the process stays until Ctrl-C. */
static int
rsh_app_ctl_drop_wait(struct rsh_json *j, struct rsh_dev *dev)
{
	struct timespec ts = { 0, 50 * 1000000L };

	if (j == NULL) {
		printf("%s: drop mode: released to other rshim drivers (no register access); Ctrl-C ends\n",
		       rsh_dev_name(dev));
		fflush(stdout);
	}
	while (!__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
		nanosleep(&ts, NULL);
	if (j != NULL) {
		rsh_json_obj_begin(j, "drop");
		rsh_json_bool(j, "ok", true);
		rsh_json_obj_end(j);
	}
	return RSH_EXIT_OK;
}

/* The operations, in a fixed order; the first failure ends the run. */
static int
rsh_app_ctl_ops(struct rsh_app *app, struct rsh_json *j, struct rsh_dev *dev)
{
	const struct rsh_app_ctl *x = &app->ctl;
	int code = RSH_EXIT_OK;

	if (x->misc_set != NULL) {
		static char lines[4096];
		char *save = NULL;

		snprintf(lines, sizeof(lines), "%s", x->misc_set);
		for (char *l = strtok_r(lines, ";", &save); l != NULL && code == RSH_EXIT_OK;
		     l = strtok_r(NULL, ";", &save))
			code = rsh_app_ctl_misc_set(j, dev, l);
	}
	if (code == RSH_EXIT_OK && x->reset)
		code = rsh_app_ctl_reset(app, j, dev);
	if (code == RSH_EXIT_OK && x->reg != NULL)
		code = rsh_app_ctl_reg(app, j, dev);
	if (code == RSH_EXIT_OK && x->log)
		code = rsh_app_ctl_log(app, j, dev);
	if (code == RSH_EXIT_OK && x->misc)
		code = rsh_app_ctl_misc(j, dev);
	if (code == RSH_EXIT_OK && x->drop && strcmp(rsh_app_ctl_mode(app), "--drop") == 0)
		code = rsh_app_ctl_drop_wait(j, dev); /* --drop alone */
	return code;
}

/* The TM FIFO is needed to reach the DPU: PEER_MAC, PXE_ID, VLAN_ID, and
 * a level-1 read, which asks the DPU for them. */
static bool
rsh_app_ctl_needs_tmfifo(const struct rsh_app *app)
{
	const char *s = app->ctl.misc_set, *d;

	if (s == NULL || app->ctl.drop)
		return false;
	d = strstr(s, "DISPLAY_LEVEL");
	return strstr(s, "PEER_MAC") != NULL || strstr(s, "PXE_ID") != NULL ||
	       strstr(s, "VLAN_ID") != NULL || (d != NULL && atoi(d + 13) == 1);
}

/* Run the control operations on an opened device with a running poller. */
static int
rsh_app_ctl_run(struct rsh_app *app, struct rsh_dev *dev, struct rsh_poller *p)
{
	struct rsh_tmfifo_opts to;
	struct rsh_json js, *j = app->json ? &js : NULL;
	struct rsh_dev_info inf;
	int rc, code;

	RTE_SET_USED(p);
	rsh_dev_get_info(dev, &inf);
	rsh_tmfifo_opts_default(&to);
	to.net = false;
	rc = rsh_app_ctl_needs_tmfifo(app) ? rsh_tmfifo_attach(dev, &to) : 0;
	if (j != NULL) {
		rsh_json_init(j, stdout);
		rsh_json_obj_begin(j, NULL);
		rsh_json_str(j, "device", inf.name);
		rsh_json_str(j, "generation", rsh_gen_name(inf.gen));
	}
	code = rc < 0 ? rsh_app_ctl_fail(j, "tmfifo", rc, RSH_EXIT_FAIL) :
	       rsh_app_ctl_ops(app, j, dev);
	if (j != NULL) {
		rsh_json_i64(j, "exit_code", code);
		rsh_json_obj_end(j);
		if (rsh_json_finish(j) < 0 && code == RSH_EXIT_OK)
			code = RSH_EXIT_FAIL;
	}
	rsh_tmfifo_detach(dev);
	return code;
}

const struct rsh_app_optset rsh_app_ctl_optset = {
	.longopts = rsh_app_ctl_opts,
	.usage =
"Control:\n"
"  --misc                 print the misc keys as cat /dev/rshimN/misc does\n"
"  --misc-set 'KEY VALUE' set a misc key (DISPLAY_LEVEL, BOOT_MODE, SW_RESET,\n"
"                         BOOT_RESET_SKIP, PEER_MAC, DROP_MODE, DEBUG_CODE, ...);\n"
"                         several as 'KEY VALUE;KEY VALUE', applied in order\n"
"  --log [--clear]        print the boot log (exit 7 when it reports an error)\n"
"  --reset                reset the ARM (software reset and the reset delay, no push)\n"
"  --reg NAME|0xADDR[.32|.64][=VALUE]  read or write one register; bf-reg\n"
"                         addresses: 0x00010528 on BF1/BF2, 0x13000528 on BF3\n"
"  --drop                 release the device to other rshim drivers until Ctrl-C\n"
"  Several may be combined; they run as: --misc-set, --reset, --reg, --log, --misc.\n"
"\n",
	.apply = rsh_app_ctl_apply,
	.mode = rsh_app_ctl_mode,
	.run = rsh_app_ctl_run,
};
