/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device strings of the emulator: "sim:bf1|bf2|bf3" followed by DPDK
 * devargs ("key=value,key=value", parsed by rte_kvargs), e.g.
 * "sim:bf3,drain=200M,stall=2s@64M,gone@1G".
 *
 * ONE table below describes every option: the parser walks it, and the
 * --help text (rsh_sim_help) and the option list of doc/emulator.md
 * (rsh_sim_doc, checked by a test) are printed from it.
 *
 * Options marked "@" may also be written key@value (gone@1G), the form
 * the emulator always accepted; it is turned into key=value before
 * rte_kvargs sees the string.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_parse.h"
#include "rsh_sim_priv.h"

#define RSH_SIM_DEVSTR_MAX 256

#define RSH_SIM_OPT_REPEAT 1u /* may be given more than once */
#define RSH_SIM_OPT_AT 2u     /* written key@value (key=value also works) */

/* One option: key, value syntax, default, meaning, setter. */
struct rsh_sim_opt {
	const char *key;
	const char *syntax;
	const char *def;
	const char *help;
	unsigned int flags;
	int (*set)(struct rsh_sim_cfg *cfg, const char *val);
};

/* Values go through the project's one parser (lib/util/rsh_parse.h):
 * sizes K/M/G = 1024^n, rates K/M/G = 1000^n, durations with a unit. */
static int
rsh_sim_parse_size(const char *s, uint64_t *out)
{
	return rsh_parse_size(s, 0, UINT64_MAX, out);
}

static int
rsh_sim_parse_rate(const char *s, uint64_t *out)
{
	return rsh_parse_rate(s, 0, UINT64_MAX, out);
}

static int
rsh_sim_parse_dur(const char *s, uint64_t *ns)
{
	return rsh_parse_duration(s, 0, 0, UINT64_MAX, ns);
}

static int
rsh_sim_parse_range(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	return rsh_parse_uint(s, lo, hi, out);
}

/* "<a>@<b>" split at the first '@' into a (copied) and b. */
static int
rsh_sim_split_at(const char *v, char *a, size_t alen, const char **b)
{
	const char *at = strchr(v, '@');

	if (at == NULL || (size_t)(at - v) >= alen)
		return -EINVAL;
	memcpy(a, v, at - v);
	a[at - v] = '\0';
	*b = at + 1;
	return 0;
}

/* A trigger: <size> (boot stream), tm:<size> or time:<dur>. */
static int
rsh_sim_parse_trig(const char *v, struct rsh_sim_trig *t)
{
	if (strncmp(v, "tm:", 3) == 0) {
		t->kind = RSH_SIM_TRIG_TM;
		return rsh_sim_parse_size(v + 3, &t->at);
	}
	if (strncmp(v, "time:", 5) == 0) {
		t->kind = RSH_SIM_TRIG_TIME;
		return rsh_sim_parse_dur(v + 5, &t->at);
	}
	t->kind = RSH_SIM_TRIG_BOOT;
	return rsh_sim_parse_size(v, &t->at);
}

static int
rsh_sim_opt_drain(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_rate(v, &cfg->drain_bps);
}

/* stall=<dur>@<offset>; kept sorted by offset. */
static int
rsh_sim_opt_stall(struct rsh_sim_cfg *cfg, const char *v)
{
	struct rsh_sim_stall s;
	const char *off;
	char dur[32];
	unsigned int i;

	if (rsh_sim_split_at(v, dur, sizeof(dur), &off) < 0 ||
	    rsh_sim_parse_dur(dur, &s.dur_ns) < 0 ||
	    rsh_sim_parse_size(off, &s.offset) < 0)
		return -EINVAL;
	if (cfg->prof_scale != 0)
		return -EINVAL; /* profile= has its own stalls */
	if (cfg->n_stalls == RSH_SIM_STALLS_MAX)
		return -ENOSPC;
	for (i = cfg->n_stalls; i > 0 && cfg->stall[i - 1].offset > s.offset; i--)
		cfg->stall[i] = cfg->stall[i - 1];
	cfg->stall[i] = s;
	cfg->n_stalls++;
	return 0;
}

static int
rsh_sim_opt_return(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_dur(v, &cfg->return_ns);
}

static int
rsh_sim_opt_gone(struct rsh_sim_cfg *cfg, const char *v)
{
	if (rsh_sim_parse_trig(v, &cfg->gone) < 0)
		return -EINVAL;
	if (cfg->gone.kind == RSH_SIM_TRIG_BOOT)
		cfg->gone_offset = cfg->gone.at;
	return 0;
}

static int
rsh_sim_opt_armreset(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_trig(v, &cfg->armreset);
}

static int
rsh_sim_opt_resetwin(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_dur(v, &cfg->resetwin_ns);
}

/* resetdelay=<dur>; must fit the core's millisecond field. */
static int
rsh_sim_opt_resetdelay(struct rsh_sim_cfg *cfg, const char *v)
{
	if (rsh_sim_parse_dur(v, &cfg->resetdelay_ns) < 0 ||
	    cfg->resetdelay_ns / 1000000 > UINT32_MAX - 1)
		return -EINVAL;
	return 0;
}

static int
rsh_sim_opt_rev(struct rsh_sim_cfg *cfg, const char *v)
{
	uint64_t n;

	if (rsh_sim_parse_range(v, 0, 255, &n) < 0)
		return -EINVAL;
	cfg->revision = (uint8_t)n;
	return 0;
}

static int
rsh_sim_opt_bootctl(struct rsh_sim_cfg *cfg, const char *v)
{
	uint64_t n;

	if (rsh_sim_parse_range(v, 0, RSH_SIM_BOOTMODE_MASK, &n) < 0)
		return -EINVAL;
	cfg->bootctl = (uint8_t)n;
	return 0;
}

/* A value from a NULL-terminated word list: its index, or -EINVAL. */
static int
rsh_sim_parse_word(const char *v, const char *const *words)
{
	int i;

	for (i = 0; words[i] != NULL; i++)
		if (strcmp(v, words[i]) == 0)
			return i;
	return -EINVAL;
}

static int
rsh_sim_opt_booted(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_parse_bool(v, &cfg->arm.booted);
}

static int
rsh_sim_opt_peer(struct rsh_sim_cfg *cfg, const char *v)
{
	uint64_t n;

	if (strcmp(v, "none") == 0) {
		cfg->arm.no_peer = true;
		return 0;
	}
	if (rsh_sim_parse_range(v, 0, 9999, &n) < 0)
		return -EINVAL;
	cfg->arm.peer_index = (int)n;
	return 0;
}

static int
rsh_sim_opt_ctrl(struct rsh_sim_cfg *cfg, const char *v)
{
	static const char *const w[] = { "ignore", "reply", NULL };
	int i = rsh_sim_parse_word(v, w);

	cfg->arm.ctrl_ignore = i != 1;
	return i < 0 ? i : 0;
}

/* uefi=<dur> */
static int
rsh_sim_opt_uefi(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_dur(v, &cfg->arm.uefi_ns);
}

/* armpoll=<dur>, at most 1 s */
static int
rsh_sim_opt_armpoll(struct rsh_sim_cfg *cfg, const char *v)
{
	if (rsh_sim_parse_dur(v, &cfg->arm.poll_ns) < 0 ||
	    cfg->arm.poll_ns > 1000000000ull)
		return -EINVAL;
	return 0;
}

/* A message number n >= 1. */
static int
rsh_sim_parse_nth(const char *v, uint64_t *n)
{
	return rsh_sim_parse_range(v, 1, UINT64_MAX, n);
}

static int
rsh_sim_opt_corrupt(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_nth(v, &cfg->arm.corrupt_at);
}

static int
rsh_sim_opt_oversize(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_nth(v, &cfg->arm.oversize_at);
}

/* armstall=<dur>@<n> */
static int
rsh_sim_opt_armstall(struct rsh_sim_cfg *cfg, const char *v)
{
	const char *nth;
	char dur[32];

	if (rsh_sim_split_at(v, dur, sizeof(dur), &nth) < 0 ||
	    rsh_sim_parse_dur(dur, &cfg->arm.stall_ns) < 0 ||
	    rsh_sim_parse_nth(nth, &cfg->arm.stall_at) < 0)
		return -EINVAL;
	return 0;
}

static int
rsh_sim_opt_owner(struct rsh_sim_cfg *cfg, const char *v)
{
	static const char *const w[] = { "none", "bmc", "bmc-old",
					 "bmc-request", NULL };
	int i = rsh_sim_parse_word(v, w);

	cfg->owner = (enum rsh_sim_owner)(i < 0 ? 0 : i);
	return i < 0 ? i : 0;
}

static int
rsh_sim_opt_lock(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_parse_bool(v, &cfg->locked);
}

/* rst=<dpu|nic>[:<downtime>]@<dur> */
static int
rsh_sim_opt_rst(struct rsh_sim_cfg *cfg, const char *v)
{
	static const char *const w[] = { "", "dpu", "nic", NULL };
	uint64_t down = 0;
	const char *when;
	char what[32];
	char *colon;
	int i;

	if (rsh_sim_split_at(v, what, sizeof(what), &when) < 0)
		return -EINVAL;
	colon = strchr(what, ':');
	if (colon != NULL) {
		*colon = '\0';
		if (rsh_sim_parse_dur(colon + 1, &down) < 0 ||
		    down / 10000000 > 0xFF)
			return -EINVAL;
	}
	i = rsh_sim_parse_word(what, w);
	if (i <= 0 || rsh_sim_parse_dur(when, &cfg->rst.at_ns) < 0)
		return -EINVAL;
	cfg->rst.type = (uint8_t)i;
	cfg->rst.downtime = (uint32_t)((down + 9999999) / 10000000);
	return 0;
}

static int
rsh_sim_opt_crash(struct rsh_sim_cfg *cfg, const char *v)
{
	static const char *const w[] = { "", "panic", "exception", NULL };
	int i = rsh_sim_parse_word(v, w);

	if (i <= 0)
		return -EINVAL;
	cfg->crash = (uint8_t)i; /* §5.6 type: 1 PANIC, 2 EXCEPTION */
	return 0;
}

/* shared=NAME: letters, digits, '-', '_'. */
static int
rsh_sim_opt_shared(struct rsh_sim_cfg *cfg, const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= sizeof(cfg->shared) ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789-_") != n)
		return -EINVAL;
	memcpy(cfg->shared, v, n + 1);
	return 0;
}

/* cost=<0|1> */
static int
rsh_sim_opt_cost(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_parse_bool(v, &cfg->cost_on);
}

/* rd_ns=<n>, wr_ns=<n>: at most 1 ms an access; turn the model on. */
static int
rsh_sim_opt_rdns(struct rsh_sim_cfg *cfg, const char *v)
{
	cfg->cost_on = true;
	return rsh_sim_parse_range(v, 0, 1000000, &cfg->rd_ns);
}

static int
rsh_sim_opt_wrns(struct rsh_sim_cfg *cfg, const char *v)
{
	cfg->cost_on = true;
	return rsh_sim_parse_range(v, 0, 1000000, &cfg->wr_ns);
}

/* bootdepth=512|1024 */
static int
rsh_sim_opt_bootdepth(struct rsh_sim_cfg *cfg, const char *v)
{
	static const char *const w[] = { "512", "1024", NULL };
	int i = rsh_sim_parse_word(v, w);

	cfg->boot_depth = i == 0 ? 512 : 1024;
	return i < 0 ? i : 0;
}

#define RSH_SIM_SZ "K/M/G = 1024^n"
#define RSH_SIM_TRIG "<off> = boot-stream bytes since reset, tm:<size> = TM FIFO bytes since power-on, time:<dur> = since power-on"

/* THE option table: parser, --help and doc/emulator.md come from it. */
static const struct rsh_sim_opt rsh_sim_opts[] = {
	{ "drain", "<rate>", "0 (unlimited)",
	  "boot-ROM consumer speed in bytes/s; K/M/G = 1000^n; 0 = unlimited",
	  0, rsh_sim_opt_drain },
	{ "stall", "<dur>@<off>", "none",
	  "the consumer stops reading for <dur> once <off> bytes of the stream were consumed; up to 8; " RSH_SIM_SZ,
	  RSH_SIM_OPT_REPEAT, rsh_sim_opt_stall },
	{ "gone", "<trigger>", "never",
	  "surprise removal: every read all-ones, writes ignored; " RSH_SIM_TRIG,
	  RSH_SIM_OPT_AT, rsh_sim_opt_gone },
	{ "armreset", "<trigger>", "never",
	  "the ARM resets on its own (watchdog, crash): TM FIFOs cleared, Linux restarts; same triggers as gone",
	  RSH_SIM_OPT_AT, rsh_sim_opt_armreset },
	{ "return", "<dur>", "never",
	  "a gone device answers again <dur> after it went, powered on fresh as after a hot-plug (registers reset, BOOT_CONTROL at its power-on value); gone@ fires once",
	  0, rsh_sim_opt_return },
	{ "resetwin", "<dur>", "2ms",
	  "after the reset key every read returns 0xBAD00ACCE55 for this long",
	  0, rsh_sim_opt_resetwin },
	{ "resetdelay", "<dur>", "5ms",
	  "reset delay advertised to the core (0 = the core's per-generation default)",
	  0, rsh_sim_opt_resetdelay },
	{ "rev", "<0-255>", "1", "PCI revision ID", 0, rsh_sim_opt_rev },
	{ "bootctl", "<0-3>", "1",
	  "BOOT_CONTROL at power-on (0 boot FIFO, 1 eMMC)", 0,
	  rsh_sim_opt_bootctl },
	{ "booted", "<bool>", "0",
	  "1: the DPU's Linux (console, network, bootfifo reader) runs from power-on and after eMMC resets; 0: only after a completed boot stream",
	  0, rsh_sim_opt_booted },
	{ "peer", "<N>|none", "first free N",
	  "Linux ends in network namespace rshim-sim<N>; none: built-in ARP/ICMP responder and line echo",
	  0, rsh_sim_opt_peer },
	{ "ctrl", "ignore|reply", "ignore",
	  "control messages 0xFB-0xFF: ignored as Linux and UEFI do, or answered (MAC, VLAN, PXE)",
	  0, rsh_sim_opt_ctrl },
	{ "uefi", "<dur>", "0",
	  "after a boot stream UEFI holds the TM FIFOs this long before Linux: whole messages only, console input into a 1 KiB ring, network frames dropped",
	  0, rsh_sim_opt_uefi },
	{ "armpoll", "<dur>", "10us",
	  "how often an idle ARM side looks at its TAP and PTY (at most 1s)",
	  0, rsh_sim_opt_armpoll },
	{ "corrupt", "<n>", "none",
	  "the n-th message the ARM sends gets a garbage header",
	  RSH_SIM_OPT_AT, rsh_sim_opt_corrupt },
	{ "oversize", "<n>", "none",
	  "the ARM sends a 1600-byte network frame before its n-th message",
	  RSH_SIM_OPT_AT, rsh_sim_opt_oversize },
	{ "armstall", "<dur>@<n>", "none",
	  "after the n-th data message from the host the ARM leaves both TM FIFOs alone for <dur>",
	  0, rsh_sim_opt_armstall },
	{ "owner", "none|bmc|bmc-old|bmc-request", "none",
	  "another rshim driver (a BMC): bmc writes its keepalive and hands over on OSP_REQ; bmc-old ignores OSP_REQ; bmc-request asks us for the device",
	  0, rsh_sim_opt_owner },
	{ "lock", "<bool>", "0",
	  "1: secure NIC mode, SCRATCHPAD1 reads the LOCK word and host writes to it are ignored",
	  0, rsh_sim_opt_lock },
	{ "rst", "dpu|nic[:<down>]@<dur>", "none",
	  "NIC firmware asks for a DPU or NIC reset on SCRATCHPAD6 <dur> after power-on; <down> = link-down time",
	  0, rsh_sim_opt_rst },
	{ "crash", "panic|exception", "none",
	  "the next boot ends in a PANIC or EXCEPTION record in the scratch log instead of \"DPU is ready\"",
	  0, rsh_sim_opt_crash },
	{ "cost", "<bool>", "0",
	  "charge every MMIO access in virtual time (benchmarks)",
	  0, rsh_sim_opt_cost },
	{ "rd_ns", "<n>", "1000",
	  "cost of one 64-bit read in ns, 0-1000000; sets cost=1",
	  0, rsh_sim_opt_rdns },
	{ "wr_ns", "<n>", "100",
	  "cost of one posted 64-bit write in ns, 0-1000000; sets cost=1",
	  0, rsh_sim_opt_wrns },
	{ "bootdepth", "512|1024", "1024 on BF3, 512 on BF1/BF2",
	  "boot FIFO depth in words, e.g. a BF3 shallower than thought",
	  0, rsh_sim_opt_bootdepth },
	{ "livefish", "<bool>", "0",
	  "1: the function has no NIC firmware: livefish device ID (0211/0214/021c), no usable BAR, registers only through the config-space gateway of the generation",
	  0, rsh_sim_opt_livefish },
	{ "lfstuck", "lock|busy", "none",
	  "livefish fault: the gateway lock (or interlock) never frees, or busy/pending never clears",
	  0, rsh_sim_opt_lfstuck },
	{ "lfpend", "<n>", "0",
	  "livefish: polls of busy/pending a gateway trigger lasts, 0-1000",
	  0, rsh_sim_opt_lfpend },
	{ "lfquiet", "<dur>", "10s",
	  "livefish BF3: after a RESET_CONTROL write the gateway must not be touched this long (advertised to the driver)",
	  0, rsh_sim_opt_lfquiet },
	{ "lfseq", "pmd|ref", "pmd",
	  "livefish: the gateway sequence the driver is asked to use: rshim-pmd's, or the reference daemon's (benchmark baseline)",
	  0, rsh_sim_opt_lfseq },
	{ "cfg_ns", "<n>", "1500",
	  "cost of one config-space cycle in ns (livefish), 0-1000000; sets cost=1",
	  0, rsh_sim_opt_cfgns },
	{ "profile", "install[/N]", "none",
	  "drain like a whole install (fast firmware, long stalls, slow eMMC tail), N times compressed; not with stall=",
	  0, rsh_sim_profile_set },
	{ "shared", "<name>", "private",
	  "the register file lives in shared memory /rshim-sim-<name>: every process opening the same name meets the same registers",
	  0, rsh_sim_opt_shared },
};

#define RSH_SIM_N_OPTS RTE_DIM(rsh_sim_opts)

/* "key=<syntax>" or "key@<syntax>" of one option. */
static int
rsh_sim_opt_form(const struct rsh_sim_opt *o, char *buf, size_t len)
{
	return snprintf(buf, len, "%s%c%s", o->key,
			(o->flags & RSH_SIM_OPT_AT) ? '@' : '=', o->syntax);
}

void
rsh_sim_args_list(char *buf, size_t len, bool keys_only)
{
	size_t used = 0;
	unsigned int i;
	char f[64];

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < RSH_SIM_N_OPTS; i++) {
		if (keys_only)
			snprintf(f, sizeof(f), "%s", rsh_sim_opts[i].key);
		else
			rsh_sim_opt_form(&rsh_sim_opts[i], f, sizeof(f));
		if (used + 2 + strlen(f) + 5 >= len) { /* whole words only */
			snprintf(buf + used, len - used, ", ...");
			return;
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i > 0 ? ", " : "", f);
	}
}

#define RSH_SIM_HELP_COL 27u
#define RSH_SIM_HELP_WIDTH 79u

/* text word-wrapped from column col (already reached) to the width. */
static void
rsh_sim_help_wrap(FILE *f, const char *text, unsigned int col)
{
	const char *p = text;

	while (*p != '\0') {
		size_t w = strcspn(p, " ");

		if (col > RSH_SIM_HELP_COL &&
		    col + 1 + w > RSH_SIM_HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)RSH_SIM_HELP_COL, "");
			col = RSH_SIM_HELP_COL;
		} else if (col > RSH_SIM_HELP_COL) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, p);
		col += (unsigned int)w;
		p += w;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

void
rsh_sim_help(FILE *f)
{
	char form[64], text[512];
	unsigned int i;
	int n;

	fprintf(f, "Emulated BlueField: sim:bf1|sim:bf2|sim:bf3[,option,...]\n");
	for (i = 0; i < RSH_SIM_N_OPTS; i++) {
		const struct rsh_sim_opt *o = &rsh_sim_opts[i];

		rsh_sim_opt_form(o, form, sizeof(form));
		n = fprintf(f, "  %s", form);
		if (n >= (int)RSH_SIM_HELP_COL - 1) {
			fputc('\n', f);
			n = 0;
		}
		fprintf(f, "%*s", (int)RSH_SIM_HELP_COL - n, "");
		snprintf(text, sizeof(text), "%s (default: %s)", o->help, o->def);
		rsh_sim_help_wrap(f, text, RSH_SIM_HELP_COL);
	}
	fprintf(f, "  <dur>: %s; <off>, <size>: %s;\n  <rate>: %s; <bool>: %s\n",
		RSH_PARSE_HINT_DURATION, RSH_PARSE_HINT_SIZE, RSH_PARSE_HINT_RATE,
		RSH_PARSE_HINT_BOOL);
}

/* One character of a Markdown table cell. */
static void
rsh_sim_doc_char(FILE *f, char c)
{
	if (c == '|' || c == '<' || c == '>')
		fputc('\\', f);
	fputc(c, f);
}

void
rsh_sim_doc(FILE *f)
{
	unsigned int i;
	char form[64];

	fprintf(f, "| option | meaning | default |\n|---|---|---|\n");
	for (i = 0; i < RSH_SIM_N_OPTS; i++) {
		const struct rsh_sim_opt *o = &rsh_sim_opts[i];
		const char *p;

		rsh_sim_opt_form(o, form, sizeof(form));
		fputs("| `", f);
		for (p = form; *p != '\0'; p++) /* '|' ends a cell even in code */
			fprintf(f, *p == '|' ? "\\|" : "%c", *p);
		fputs("` | ", f);
		for (p = o->help; *p != '\0'; p++) /* '|' ends a cell, '<' a tag */
			rsh_sim_doc_char(f, *p);
		fprintf(f, " | %s |\n", o->def);
	}
}

/* The table row of a key, NULL when there is none. */
static const struct rsh_sim_opt *
rsh_sim_opt_find(const char *key, size_t klen)
{
	unsigned int i;

	for (i = 0; i < RSH_SIM_N_OPTS; i++)
		if (strlen(rsh_sim_opts[i].key) == klen &&
		    strncmp(rsh_sim_opts[i].key, key, klen) == 0)
			return &rsh_sim_opts[i];
	return NULL;
}

/*
 * Check every token names a known option with a value, and rewrite the
 * key@value form into key=value in place (opts is a writable copy).
 */
static int
rsh_sim_args_precheck(const char *devstr, char *opts)
{
	char list[768];
	char *tok = opts;

	while (tok != NULL && *tok != '\0') {
		char *next = strchr(tok, ',');
		size_t klen = strcspn(tok, "=@,");
		const struct rsh_sim_opt *o = rsh_sim_opt_find(tok, klen);

		if (o == NULL) {
			rsh_sim_args_list(list, sizeof(list), true);
			rsh_err_set("%s: unknown option '%.*s'; valid: %s",
				    devstr, (int)klen, tok, list);
			return -EINVAL;
		}
		if (tok[klen] == '@' && (o->flags & RSH_SIM_OPT_AT))
			tok[klen] = '=';
		if (tok[klen] != '=' || tok[klen + 1] == ',' ||
		    tok[klen + 1] == '\0') {
			rsh_sim_opt_form(o, list, sizeof(list));
			rsh_err_set("%s: option '%s' needs a value: %s", devstr,
				    o->key, list);
			return -EINVAL;
		}
		tok = next != NULL ? next + 1 : NULL;
	}
	return 0;
}

/* Context of one rte_kvargs_process() call. */
struct rsh_sim_kv_ctx {
	const char *devstr;
	const struct rsh_sim_opt *o;
	struct rsh_sim_cfg *cfg;
};

/* rte_kvargs handler: apply one value through the table's setter. */
static int
rsh_sim_kv_apply(const char *key, const char *val, void *opaque)
{
	struct rsh_sim_kv_ctx *c = opaque;
	char form[64];
	int rc;

	RTE_SET_USED(key);
	rc = val != NULL ? c->o->set(c->cfg, val) : -EINVAL;
	if (rc == -ENOSPC) {
		rsh_err_set("%s: too many %s= options (at most %u)", c->devstr,
			    c->o->key, RSH_SIM_STALLS_MAX);
	} else if (rc < 0) {
		rsh_sim_opt_form(c->o, form, sizeof(form));
		rsh_err_set("%s: bad value '%s' for %s (expected %s: %s)",
			    c->devstr, val != NULL ? val : "", c->o->key, form,
			    c->o->help);
	}
	return rc < 0 ? -1 : 0;
}

/* Run every option of the table over the parsed list. */
static int
rsh_sim_args_apply(const char *devstr, struct rte_kvargs *kv,
		   struct rsh_sim_cfg *cfg)
{
	struct rsh_sim_kv_ctx c = { .devstr = devstr, .cfg = cfg };
	unsigned int i;

	for (i = 0; i < RSH_SIM_N_OPTS; i++) {
		c.o = &rsh_sim_opts[i];
		if (!(c.o->flags & RSH_SIM_OPT_REPEAT) &&
		    rte_kvargs_count(kv, c.o->key) > 1) {
			rsh_err_set("%s: option '%s' given twice", devstr,
				    c.o->key);
			return -EINVAL;
		}
		if (rte_kvargs_process(kv, c.o->key, rsh_sim_kv_apply, &c) != 0)
			return -EINVAL;
	}
	return 0;
}

/* The generation right after "sim:"; *rest = the options (or ""). */
static int
rsh_sim_args_gen(const char *devstr, char *g, struct rsh_sim_cfg *cfg,
		 char **rest)
{
	char *comma = strchr(g, ',');

	*rest = comma != NULL ? comma + 1 : g + strlen(g);
	if (comma != NULL)
		*comma = '\0';
	if (strcmp(g, "bf1") == 0)
		cfg->gen = RSH_GEN_BF1;
	else if (strcmp(g, "bf2") == 0)
		cfg->gen = RSH_GEN_BF2;
	else if (strcmp(g, "bf3") == 0)
		cfg->gen = RSH_GEN_BF3;
	else {
		rsh_err_set("%s: unknown generation '%s' (valid: bf1, bf2, bf3)",
			    devstr, g);
		return -EINVAL;
	}
	return 0;
}

/* Defaults: unlimited drain, no faults, 2 ms window, 5 ms delay; ARM up
 * after a boot stream, first free peer index, 10 us fd polls, control
 * messages ignored as the public peers do. */
static void
rsh_sim_cfg_default(struct rsh_sim_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->gone_offset = RSH_SIM_NO_OFFSET;
	cfg->resetwin_ns = 2000000;
	cfg->resetdelay_ns = 5000000;
	cfg->revision = 1;
	cfg->lf_pend = 0;
	cfg->lf_quiet_ns = 10000000000ull;
	cfg->cfg_ns = 1500;
	cfg->bootctl = RSH_SIM_BOOTMODE_EMMC;
	cfg->arm.peer_index = -1;
	cfg->arm.poll_ns = 10000;
	cfg->arm.ctrl_ignore = true;
	cfg->rd_ns = 1000;
	cfg->wr_ns = 100;
}

/* Parse a whole device string into cfg. */
int
rsh_sim_args_parse(const char *devstr, struct rsh_sim_cfg *cfg)
{
	char buf[RSH_SIM_DEVSTR_MAX];
	struct rte_kvargs *kv;
	char *opts;
	int rc;

	rsh_sim_cfg_default(cfg);
	if (devstr == NULL || strncmp(devstr, "sim:", 4) != 0) {
		rsh_err_set("%s: not an emulator device string (expected sim:bf1, sim:bf2 or sim:bf3[,options])",
			    devstr != NULL ? devstr : "(null)");
		return -EINVAL;
	}
	if (strlen(devstr) >= sizeof(buf)) {
		rsh_err_set("%.40s...: device string longer than %u characters",
			    devstr, RSH_SIM_DEVSTR_MAX - 1);
		return -EINVAL;
	}
	strcpy(buf, devstr + 4);
	rc = rsh_sim_args_gen(devstr, buf, cfg, &opts);
	if (rc == 0)
		rc = rsh_sim_args_precheck(devstr, opts);
	if (rc < 0 || *opts == '\0')
		return rc;
	kv = rte_kvargs_parse(opts, NULL);
	if (kv == NULL) {
		rsh_err_set("%s: cannot parse the options (key=value,key=value expected)",
			    devstr);
		return -EINVAL;
	}
	rc = rsh_sim_args_apply(devstr, kv, cfg);
	rte_kvargs_free(kv);
	return rc;
}
