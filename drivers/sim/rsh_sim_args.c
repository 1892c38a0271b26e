/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device strings of the emulator: "sim:bf1|bf2|bf3" followed by
 * comma-separated options in DPDK devargs style, e.g.
 * "sim:bf3,drain=200M,stall=2s@64M,gone@1G".
 *
 *   drain=<rate>        boot-ROM consumer rate in bytes/s; K/M/G are
 *                       10^3/10^6/10^9; 0 = unlimited (default)
 *   stall=<dur>@<off>   stop consuming for <dur> once <off> bytes of the
 *                       stream were consumed (up to 8, any order)
 *   gone@<off>          surprise removal once <off> bytes were consumed:
 *                       reads all-ones, writes ignored
 *   resetwin=<dur>      after the reset key every read returns
 *                       0xBAD00ACCE55 for this long (default 2ms)
 *   resetdelay=<dur>    reset delay advertised to the core (default 5ms;
 *                       0 = the generation default of the core, seconds)
 *   rev=<n>             PCI revision ID, 0-255 (default 1)
 *   bootctl=<n>         BOOT_CONTROL at power-on, 0-3 (default 1: eMMC)
 *
 * ARM-side model (rsh_sim_arm.c, hardware-notes §D2-§D4):
 *   booted=<0|1>        1: the ARM's Linux runs from power-on and after
 *                       eMMC resets; 0 (default): only once a boot stream
 *                       completed ("DPU is ready")
 *   peer=<N>|none       Linux ends in namespace rshim-sim<N> (default: a
 *                       per-process counter from 0); none: the built-in
 *                       ARP/ICMP responder and line echo
 *   ctrl=<reply|ignore> answer CTRL_REQ with MAC_1, MAC_2, VLAN_ID, PXE_ID
 *                       as UEFI does (default), or ignore 0xFB-0xFF as
 *                       Linux does
 *   armpoll=<dur>       interval of the ARM's idle TAP/PTY polls (10us)
 *   corrupt@<n>         the n-th message the ARM sends gets a garbage
 *                       header (type 0x5A, bytes 3-7 junk, true length)
 *   oversize@<n>        the n-th message the ARM sends is a 1600-byte
 *                       network frame (the real messages follow it)
 *   armstall=<dur>@<n>  the ARM stops reading HOST_TO_TILE and writing
 *                       TILE_TO_HOST for <dur> after the n-th data
 *                       message it received
 *
 * Benchmarks (rsh_sim_cost.c, rsh_sim_profile.c):
 *   cost=<0|1>          charge every MMIO access in virtual time (default 0)
 *   rd_ns=<n>           cost of one 64-bit read, ns (default 1000; sets cost=1)
 *   wr_ns=<n>           cost of one posted 64-bit write, ns (default 100;
 *                       sets cost=1)
 *   bootdepth=<512|1024> boot FIFO depth in words (default: 1024 on BF3,
 *                       512 on BF1/BF2), e.g. a BF3 shallower than thought
 *   profile=install[/N] drain like a whole install (fast firmware, long
 *                       stalls, slow eMMC tail), N times compressed; not
 *                       with stall=
 *
 * Offsets are bytes with K/M/G = 2^10/2^20/2^30. Durations need a unit:
 * ns, us, ms, s or m (minutes); a bare 0 is accepted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_sim_priv.h"

#define RSH_SIM_DEVSTR_MAX 256

const char rsh_sim_args_valid[] =
	"drain=<rate>, stall=<dur>@<offset>, gone@<offset>, resetwin=<dur>, "
	"resetdelay=<dur>, rev=<0-255>, bootctl=<0-3>, booted=1, "
	"peer=N|none, ctrl=ignore, armpoll=<dur>, corrupt@N, oversize@N, "
	"cost=0|1, rd_ns=<n>, wr_ns=<n>, profile=install[/N], bootdepth=512|1024, "
	"armstall=<dur>@N";

#define RSH_SIM_EXP_RATE "<rate>: bytes/s with optional K/M/G = 10^3/10^6/10^9, 0 = unlimited, e.g. drain=200M"
#define RSH_SIM_EXP_SIZE "<offset>: bytes with optional K/M/G = 2^10/2^20/2^30, e.g. 64M"
#define RSH_SIM_EXP_DUR "<dur>: a number with ns, us, ms, s or m, e.g. 2ms"
#define RSH_SIM_EXP_STALL "<dur>@<offset>, e.g. stall=2s@64M"

/* A number with an optional one-letter multiplier from units/mults. */
static int
rsh_sim_parse_num(const char *s, const char *units, const uint64_t *mults,
		  uint64_t *out)
{
	const char *u;
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -EINVAL;
	if (*end == '\0') {
		*out = v;
		return 0;
	}
	u = strchr(units, *end);
	if (u == NULL || end[1] != '\0' ||
	    v > UINT64_MAX / mults[u - units])
		return -EINVAL;
	*out = v * mults[u - units];
	return 0;
}

/* Byte offset: K/M/G are powers of 1024. */
static int
rsh_sim_parse_size(const char *s, uint64_t *out)
{
	static const uint64_t m[] = { 1ull << 10, 1ull << 20, 1ull << 30 };

	return rsh_sim_parse_num(s, "KMG", m, out);
}

/* Rate in bytes/s: K/M/G are powers of 1000. */
static int
rsh_sim_parse_rate(const char *s, uint64_t *out)
{
	static const uint64_t m[] = { 1000ull, 1000000ull, 1000000000ull };

	return rsh_sim_parse_num(s, "KMG", m, out);
}

/* Duration into ns: ns, us, ms, s, m; a bare number only when 0. */
static int
rsh_sim_parse_dur(const char *s, uint64_t *ns)
{
	static const struct { const char *u; uint64_t mult; } units[] = {
		{ "ns", 1ull }, { "us", 1000ull }, { "ms", 1000000ull },
		{ "s", 1000000000ull }, { "m", 60000000000ull },
	};
	unsigned long long v;
	unsigned int i;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -EINVAL;
	if (*end == '\0' && v == 0) {
		*ns = 0;
		return 0;
	}
	for (i = 0; i < RTE_DIM(units); i++) {
		if (strcmp(end, units[i].u) == 0 &&
		    v <= UINT64_MAX / units[i].mult) {
			*ns = v * units[i].mult;
			return 0;
		}
	}
	return -EINVAL;
}

/* drain=<rate> */
static int
rsh_sim_opt_drain(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_rate(v, &cfg->drain_bps);
}

/* stall=<dur>@<offset>; kept sorted by offset. */
static int
rsh_sim_opt_stall(struct rsh_sim_cfg *cfg, const char *v)
{
	char dur[32];
	const char *at = strchr(v, '@');
	struct rsh_sim_stall s;
	unsigned int i;

	if (at == NULL || (size_t)(at - v) >= sizeof(dur))
		return -EINVAL;
	memcpy(dur, v, at - v);
	dur[at - v] = '\0';
	if (rsh_sim_parse_dur(dur, &s.dur_ns) < 0 ||
	    rsh_sim_parse_size(at + 1, &s.offset) < 0)
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

/* gone@<offset> */
static int
rsh_sim_opt_gone(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_size(v, &cfg->gone_offset);
}

/* resetwin=<dur> */
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

/* rev=<0-255> */
static int
rsh_sim_opt_rev(struct rsh_sim_cfg *cfg, const char *v)
{
	uint64_t n;

	if (rsh_sim_parse_num(v, "", NULL, &n) < 0 || n > 255)
		return -EINVAL;
	cfg->revision = (uint8_t)n;
	return 0;
}

/* bootctl=<0-3> */
static int
rsh_sim_opt_bootctl(struct rsh_sim_cfg *cfg, const char *v)
{
	uint64_t n;

	if (rsh_sim_parse_num(v, "", NULL, &n) < 0 ||
	    n > RSH_BOOT_CONTROL__MODE_MASK)
		return -EINVAL;
	cfg->bootctl = (uint8_t)n;
	return 0;
}

/* booted=<0|1> */
static int
rsh_sim_opt_booted(struct rsh_sim_cfg *cfg, const char *v)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return -EINVAL;
	cfg->arm.booted = v[0] == '1';
	return 0;
}

/* peer=<N>|none */
static int
rsh_sim_opt_peer(struct rsh_sim_cfg *cfg, const char *v)
{
	uint64_t n;

	if (strcmp(v, "none") == 0) {
		cfg->arm.no_peer = true;
		return 0;
	}
	if (rsh_sim_parse_num(v, "", NULL, &n) < 0 || n > 9999)
		return -EINVAL;
	cfg->arm.peer_index = (int)n;
	return 0;
}

/* ctrl=reply|ignore */
static int
rsh_sim_opt_ctrl(struct rsh_sim_cfg *cfg, const char *v)
{
	if (strcmp(v, "reply") != 0 && strcmp(v, "ignore") != 0)
		return -EINVAL;
	cfg->arm.ctrl_ignore = v[0] == 'i';
	return 0;
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
	if (rsh_sim_parse_num(v, "", NULL, n) < 0 || *n == 0)
		return -EINVAL;
	return 0;
}

/* corrupt@<n> */
static int
rsh_sim_opt_corrupt(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_nth(v, &cfg->arm.corrupt_at);
}

/* oversize@<n> */
static int
rsh_sim_opt_oversize(struct rsh_sim_cfg *cfg, const char *v)
{
	return rsh_sim_parse_nth(v, &cfg->arm.oversize_at);
}

/* armstall=<dur>@<n> */
static int
rsh_sim_opt_armstall(struct rsh_sim_cfg *cfg, const char *v)
{
	char dur[32];
	const char *at = strchr(v, '@');

	if (at == NULL || (size_t)(at - v) >= sizeof(dur))
		return -EINVAL;
	memcpy(dur, v, at - v);
	dur[at - v] = '\0';
	if (rsh_sim_parse_dur(dur, &cfg->arm.stall_ns) < 0 ||
	    rsh_sim_parse_nth(at + 1, &cfg->arm.stall_at) < 0)
		return -EINVAL;
	return 0;
}

/* cost=<0|1> */
static int
rsh_sim_opt_cost(struct rsh_sim_cfg *cfg, const char *v)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return -EINVAL;
	cfg->cost_on = v[0] == '1';
	return 0;
}

/* rd_ns=<n>, wr_ns=<n>: at most 1 ms an access; turn the model on. */
static int
rsh_sim_opt_rdns(struct rsh_sim_cfg *cfg, const char *v)
{
	cfg->cost_on = true;
	return rsh_sim_parse_num(v, "", NULL, &cfg->rd_ns) < 0 ||
	       cfg->rd_ns > 1000000 ? -EINVAL : 0;
}

static int
rsh_sim_opt_wrns(struct rsh_sim_cfg *cfg, const char *v)
{
	cfg->cost_on = true;
	return rsh_sim_parse_num(v, "", NULL, &cfg->wr_ns) < 0 ||
	       cfg->wr_ns > 1000000 ? -EINVAL : 0;
}

/* bootdepth=512|1024 */
static int
rsh_sim_opt_bootdepth(struct rsh_sim_cfg *cfg, const char *v)
{
	if (strcmp(v, "512") != 0 && strcmp(v, "1024") != 0)
		return -EINVAL;
	cfg->boot_depth = (uint32_t)atoi(v);
	return 0;
}

/* The option table: key, separator, setter, expected-value text. */
static const struct rsh_sim_opt {
	const char *key;
	char sep;
	bool repeat;
	int (*set)(struct rsh_sim_cfg *cfg, const char *val);
	const char *expect;
} rsh_sim_opts[] = {
	{ "drain", '=', false, rsh_sim_opt_drain, RSH_SIM_EXP_RATE },
	{ "stall", '=', true, rsh_sim_opt_stall, RSH_SIM_EXP_STALL },
	{ "gone", '@', false, rsh_sim_opt_gone, RSH_SIM_EXP_SIZE },
	{ "resetwin", '=', false, rsh_sim_opt_resetwin, RSH_SIM_EXP_DUR },
	{ "resetdelay", '=', false, rsh_sim_opt_resetdelay, RSH_SIM_EXP_DUR },
	{ "rev", '=', false, rsh_sim_opt_rev, "a number 0-255" },
	{ "bootctl", '=', false, rsh_sim_opt_bootctl,
	  "0 (boot FIFO), 1 (eMMC), 2 or 3" },
	{ "booted", '=', false, rsh_sim_opt_booted, "0 or 1" },
	{ "peer", '=', false, rsh_sim_opt_peer,
	  "a namespace index 0-9999 or none" },
	{ "ctrl", '=', false, rsh_sim_opt_ctrl, "reply or ignore" },
	{ "armpoll", '=', false, rsh_sim_opt_armpoll,
	  RSH_SIM_EXP_DUR " (at most 1s)" },
	{ "corrupt", '@', false, rsh_sim_opt_corrupt,
	  "a message number >= 1, e.g. corrupt@3" },
	{ "oversize", '@', false, rsh_sim_opt_oversize,
	  "a message number >= 1, e.g. oversize@3" },
	{ "armstall", '=', false, rsh_sim_opt_armstall,
	  "<dur>@<n>, e.g. armstall=500ms@10" },
	{ "cost", '=', false, rsh_sim_opt_cost, "0 or 1" },
	{ "rd_ns", '=', false, rsh_sim_opt_rdns, "nanoseconds 0-1000000" },
	{ "wr_ns", '=', false, rsh_sim_opt_wrns, "nanoseconds 0-1000000" },
	{ "bootdepth", '=', false, rsh_sim_opt_bootdepth, "512 or 1024" },
	{ "profile", '=', false, rsh_sim_profile_set,
	  "install or install/N (N 1-10000), not with stall=" },
};

/* Apply one "key=value" / "key@value" token. */
static int
rsh_sim_args_token(const char *devstr, char *tok, struct rsh_sim_cfg *cfg,
		   uint32_t *seen)
{
	size_t klen = strcspn(tok, "=@");
	unsigned int i;
	int rc;

	for (i = 0; i < RTE_DIM(rsh_sim_opts); i++) {
		const struct rsh_sim_opt *o = &rsh_sim_opts[i];

		if (strlen(o->key) != klen || strncmp(tok, o->key, klen) != 0)
			continue;
		if (tok[klen] != o->sep) {
			rsh_err_set("%s: option '%s' needs a value: %s%c%s",
				    devstr, o->key, o->key, o->sep, o->expect);
			return -EINVAL;
		}
		if (!o->repeat && (*seen & (1u << i)) != 0) {
			rsh_err_set("%s: option '%s' given twice", devstr, o->key);
			return -EINVAL;
		}
		*seen |= 1u << i;
		rc = o->set(cfg, tok + klen + 1);
		if (rc == -ENOSPC)
			rsh_err_set("%s: too many stall= options (at most %u)",
				    devstr, RSH_SIM_STALLS_MAX);
		else if (rc < 0)
			rsh_err_set("%s: bad value '%s' for %s (expected %s)",
				    devstr, tok + klen + 1, o->key, o->expect);
		return rc < 0 ? -EINVAL : 0;
	}
	tok[klen] = '\0';
	rsh_err_set("%s: unknown option '%s' (valid: %s)", devstr, tok,
		    rsh_sim_args_valid);
	return -EINVAL;
}

/* The generation right after "sim:". */
static int
rsh_sim_args_gen(const char *devstr, const char *g, struct rsh_sim_cfg *cfg)
{
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
 * after a boot stream, peer index from the counter, 10 us fd polls. */
static void
rsh_sim_cfg_default(struct rsh_sim_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->gone_offset = RSH_SIM_NO_OFFSET;
	cfg->resetwin_ns = 2000000;
	cfg->resetdelay_ns = 5000000;
	cfg->revision = 1;
	cfg->bootctl = RSH_BOOT_CONTROL_EMMC;
	cfg->arm.peer_index = -1;
	cfg->arm.poll_ns = 10000;
	cfg->rd_ns = 1000;
	cfg->wr_ns = 100;
}

/* Parse a whole device string into cfg. */
int
rsh_sim_args_parse(const char *devstr, struct rsh_sim_cfg *cfg)
{
	char buf[RSH_SIM_DEVSTR_MAX];
	char *save = NULL, *tok;
	uint32_t seen = 0;
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
	tok = strtok_r(buf, ",", &save);
	rc = rsh_sim_args_gen(devstr, tok != NULL ? tok : "", cfg);
	while (rc == 0 && (tok = strtok_r(NULL, ",", &save)) != NULL)
		rc = rsh_sim_args_token(devstr, tok, cfg, &seen);
	return rc;
}
