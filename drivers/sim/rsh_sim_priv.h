/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the emulated rshim function, shared by its .c files:
 * the device object, the FIFO rings, and the seams between the register
 * file (rsh_sim.c), the boot-ROM model (rsh_sim_boot.c), the fault
 * schedule (rsh_sim_fault.c), the option parser (rsh_sim_args.c) and the
 * ARM-side tmfifo peer (rsh_sim_arm*.c).
 *
 * Threads: every field is written by the one thread doing the MMIO (the
 * backend ops are called from one thread at a time, rsh_backend.h); only
 * the counters in "st" and the bootfifo cursor are read elsewhere.
 */
#ifndef RSH_SIM_PRIV_H
#define RSH_SIM_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rsh_backend.h"
#include "rsh_sim.h"
#include "rsh_sim_regs.h"

/* The emulator's logtype, pmd.rshim.sim (rsh_sim_log.c). */
extern int rsh_logtype_sim;

#define RSH_SIM_STALLS_MAX 8
#define RSH_SIM_LUT_SLOTS 64u        /* reverse lookup, > 2 x RSH_SIM_REG_COUNT */
#define RSH_SIM_LOG_PEND_WORDS 64u   /* records waiting for SEMAPHORE0 */
#define RSH_SIM_NO_OFFSET UINT64_MAX
#define RSH_SIM_BOOTFIFO_IDLE_NS 500000000ull /* Linux reader gives up */

/* Scratch-log record fields, hardware-notes §5.6. */
#define RSH_SIM_LOG_MOD_MISC 0u
#define RSH_SIM_LOG_MOD_BL1 1u
#define RSH_SIM_LOG_MOD_BL2 2u
#define RSH_SIM_LOG_MOD_BL31 4u
#define RSH_SIM_LOG_MOD_UEFI 5u
#define RSH_SIM_LOG_TYPE_MSG 4u
#define RSH_SIM_LOG_INFO 0u
#define RSH_SIM_LOG_ERR 2u

/* One stall= fault: stop consuming for dur_ns once offset bytes are read. */
struct rsh_sim_stall {
	uint64_t offset;
	uint64_t dur_ns;
};

/* ARM-side model options (rsh_sim_arm.c); 0 = fault not armed. */
struct rsh_sim_arm_cfg {
	bool booted;            /* booted=1: up at power-on and eMMC resets */
	bool no_peer;           /* peer=none: responder + line echo */
	bool ctrl_ignore;       /* ctrl=ignore: drop 0xFB-0xFF like Linux */
	int peer_index;         /* peer=<N>; -1 = first free N, host-wide */
	uint64_t poll_ns;       /* armpoll=<dur>: idle fd poll interval */
	uint64_t corrupt_at;    /* corrupt@<n>: n-th message sent */
	uint64_t oversize_at;   /* oversize@<n>: n-th message sent */
	uint64_t stall_at;      /* armstall=<dur>@<n>: n-th message received */
	uint64_t stall_ns;
	uint64_t uefi_ns;       /* uefi=<dur>: UEFI holds the FIFOs that long */
};

/* When an on-demand fault fires: bytes of the boot stream consumed since
 * reset, bytes through the TM FIFO data registers (both ways) since
 * power-on, or time since power-on. */
enum rsh_sim_trig_kind {
	RSH_SIM_TRIG_NONE,
	RSH_SIM_TRIG_BOOT,
	RSH_SIM_TRIG_TM,
	RSH_SIM_TRIG_TIME,
};

struct rsh_sim_trig {
	enum rsh_sim_trig_kind kind;
	uint64_t at;            /* bytes, or ns for TIME */
};

/* Another rshim driver on the same device (a BMC over USB), owner=. */
enum rsh_sim_owner {
	RSH_SIM_OWNER_NONE,
	RSH_SIM_OWNER_BMC,      /* keepalive; answers OSP_REQ and lets go */
	RSH_SIM_OWNER_BMC_OLD,  /* keepalive; overwrites OSP_REQ */
	RSH_SIM_OWNER_BMC_REQ,  /* wants the device: sends OSP_REQ */
};

/* NIC firmware reset request on SCRATCHPAD6, rst=. */
struct rsh_sim_rst_cfg {
	uint8_t type;           /* 0 none, 1 DPU, 2 NIC (rst_type) */
	uint64_t at_ns;         /* time since power-on */
	uint32_t downtime;      /* rst_downtime, units of 10 ms */
};

#define RSH_SIM_SHARED_NAME_MAX 32

/* Parsed device string (rsh_sim_args.c). */
struct rsh_sim_cfg {
	enum rsh_gen gen;
	struct rsh_sim_trig gone;    /* gone@: removal trigger */
	struct rsh_sim_trig armreset;/* armreset@: ARM reset trigger */
	enum rsh_sim_owner owner;
	bool locked;                 /* lock=1: secure NIC mode LOCK word */
	struct rsh_sim_rst_cfg rst;
	uint8_t crash;               /* crash=: 0 or a §5.6 record type */
	char shared[RSH_SIM_SHARED_NAME_MAX]; /* shared=NAME, "" = private */
	uint64_t drain_bps;          /* bytes per second, 0 = unlimited */
	struct rsh_sim_stall stall[RSH_SIM_STALLS_MAX]; /* sorted by offset */
	unsigned int n_stalls;
	uint64_t gone_offset;        /* RSH_SIM_NO_OFFSET = never */
	uint64_t return_ns;          /* return=: back this long after gone, 0 = never */
	uint64_t resetwin_ns;        /* bad-value window after the key */
	uint64_t resetdelay_ns;      /* advertised in be->reset_delay_ms */
	uint8_t revision;
	uint8_t bootctl;             /* BOOT_CONTROL at power-on */
	struct rsh_sim_arm_cfg arm;
	/* MMIO cost model and install profile (rsh_sim_cost.c) */
	/* livefish (rsh_sim_lf.c) */
	bool livefish;               /* livefish=1: config-space gateway only */
	uint8_t lf_stuck;            /* lfstuck=: RSH_SIM_LF_STUCK_* */
	uint8_t lf_seq;              /* lfseq=ref: the driver's sequence hint */
	uint32_t lf_pend;            /* lfpend=: polls a trigger stays busy */
	uint64_t lf_quiet_ns;        /* lfquiet=: BF3 after RESET_CONTROL */
	uint64_t cfg_ns;             /* cfg_ns=: one config cycle */
	uint32_t boot_depth;         /* bootdepth=: boot FIFO words, 0 = the generation's */
	bool cost_on;                /* cost=1, or rd_ns=/wr_ns= given */
	uint64_t rd_ns, wr_ns;       /* per 64-bit read / posted write */
	unsigned int prof_scale;     /* profile=install: 1/N of the bytes and stalls, 0 = off */
	uint64_t prof_bps[RSH_SIM_STALLS_MAX + 1]; /* rate after stall i */
};

#define RSH_SIM_LF_STUCK_LOCK 1u      /* the gateway lock never frees */
#define RSH_SIM_LF_STUCK_BUSY 2u      /* busy / pending never clears */

/* The livefish gateway model (rsh_sim_lf.c), hardware-notes §L1-§L6. */
struct rsh_sim_lf {
	uint32_t win_addr, win_data;  /* config 0x58 / 0x5C */
	/* BF1 TRIO CR gateway */
	uint32_t trio_lock, trio_data, trio_ctl, trio_addr;
	/* Byte Access Widget (BF1/BF2) */
	uint32_t baw_ctl, baw_addr, baw_wlo, baw_pend;
	uint64_t baw_rval;
	bool baw_rhalf, baw_whalf, baw_interlock;
	/* boot FIFO holding register */
	uint32_t hold_lo;
	bool hold_half;
	/* BF3 MSN GW_CR_64B */
	uint32_t msn_reg0, msn_type, msn_hi, msn_lo, msn_addr, msn_width;
	uint32_t msn_busy;
	uint64_t quiet_until;         /* device time */
};

/* MMIO cost model state (rsh_sim_cost.c); the MMIO thread writes it. */
struct rsh_sim_cost {
	uint64_t cfg_cyc;            /* per config cycle (livefish) */
	uint64_t rd_cyc, wr_cyc;     /* per access, TSC cycles */
	uint64_t virt_cyc;           /* charged: device clock - TSC (relaxed) */
	uint64_t emu_cyc;            /* real cycles inside the ops (relaxed) */
	uint64_t drain_reads;        /* reads BF1's §1.9 rule adds (relaxed) */
	uint64_t wr_run;             /* posted writes since the last read */
	uint64_t op_t0;              /* TSC at the entry of the current op */
	uint64_t pend_cyc;           /* cost of the current op charged at exit */
	uint64_t op_max_cyc;         /* longest own time of one op */
};

/* A word ring; cap is a power of two. */
struct rsh_sim_fifo {
	uint64_t *w;
	uint32_t cap;   /* storage size, power of two */
	uint32_t depth; /* accepted words (<= cap) */
	uint32_t head;  /* next word to pop */
	uint32_t count;
};

/* Forward-only BFB reader of the boot-ROM model, hardware-notes §D6.5. */
enum rsh_sim_bfb_state {
	RSH_SIM_BFB_HDR,   /* collecting a 3-word header */
	RSH_SIM_BFB_SKIP,  /* extra header words (hdr_len > 3) */
	RSH_SIM_BFB_DATA,  /* image data + padding, CRC'd */
	RSH_SIM_BFB_TRAIL, /* after the last image: kept for "bootfifo" */
	RSH_SIM_BFB_ERROR, /* broken stream: consume and count only */
};

struct rsh_sim_bfb {
	enum rsh_sim_bfb_state st;
	uint64_t hdr[3];
	unsigned int hdr_n;
	uint32_t skip_words;
	uint64_t data_words;
	uint32_t crc;
	uint32_t img_crc;       /* CRC from the current header */
	uint64_t img_following; /* following-images bitmap */
	uint64_t img_offset;    /* stream offset of the current header */
	unsigned int stage;     /* images of the boot chain loaded */
	uint8_t img_id;
	bool linux_reader;      /* the running DPU's bootfifo reader, not
				 * the boot ROM, reads this session */
};

/* What the boot chain opens in turn, forward-only (hardware-notes §D6.5):
 * BL1 opens bl2 (id 1), BL2 opens bl31 (3) then bl33 (5, UEFI); UEFI takes
 * the rest of the stream up to the last image. */
#define RSH_SIM_BOOT_CHAIN_LEN 3u

/* Boot-ROM consumer timing (TSC virtual time) and fault schedule. */
struct rsh_sim_consumer {
	bool fifo_boot;      /* BOOT_CONTROL mode was 0 at the last reset */
	uint64_t last_word;  /* TSC of the last word taken (0: none yet) */
	uint64_t start;      /* TSC when the consumer may start (reset end) */
	uint64_t seg_t0;     /* rate segment start (TSC) */
	uint64_t seg_words;  /* words consumed in this segment */
	uint64_t stall_until;/* TSC; consumer idle before this */
	uint64_t dry_at;     /* TSC the FIFO ran dry while the consumer could
			      * take more (0: it did not): until the host's
			      * next write, the DPU waits for the host */
	unsigned int next_stall;
};

/* State of rsh_sim_event.c. */
enum rsh_sim_rst_phase {
	RSH_SIM_RST_IDLE = 0,
	/* RSH_SIM_RST_REQUEST (1) and RSH_SIM_RST_START (2) as in SP6 */
	RSH_SIM_RST_ACKED = 4,
	RSH_SIM_RST_DOWN = 5,
};

struct rsh_sim_ev {
	bool active;           /* anything to run at the next access */
	bool locked;
	enum rsh_sim_owner owner;
	bool acking;           /* bmc: answering an OSP_REQ */
	unsigned int osp_n;    /* OSP_ACK / OSP_REQ written so far */
	uint64_t owner_next;   /* TSC of the other driver's next step */
	unsigned int rst_phase;
	unsigned int rst_type;
	uint32_t rst_downtime;
	uint64_t rst_next;
	bool rst_fired;
	bool armreset_done;
	uint32_t mbox;         /* injected events, bit per enum value */
	uint32_t mbox_arg[RSH_SIM_EV_COUNT];
};

struct rsh_sim;

/* Hooks for the ARM-side tmfifo peer; NULL until rsh_sim_arm.c exists. */
struct rsh_sim_arm_ops {
	/* Called at every TM FIFO register access, before it takes effect. */
	void (*arm_poll)(struct rsh_sim *sim, uint64_t now);
	/* Called when the ARM is reset (TM FIFOs already cleared). */
	void (*arm_reset)(struct rsh_sim *sim);
	/* Called from close, before the device is freed. */
	void (*arm_close)(struct rsh_sim *sim);
};

/* One emulated rshim function. */
struct rsh_sim {
	struct rsh_backend be; /* first: the core sees only this */
	struct rsh_sim_cfg cfg;
	uint32_t bar_size;
	uint32_t off[RSH_SIM_REG_COUNT]; /* BAR offsets, rsh_sim_regs.c */
	uint64_t hz;           /* rsh_hz() at probe */
	uint64_t *mem;         /* plain storage, bar_size / 8 words */
	void *shm;             /* shared=: the mapped segment, else NULL */
	struct {
		uint32_t off;
		uint8_t reg1;  /* enum rsh_sim_reg + 1, 0 = empty slot */
	} lut[RSH_SIM_LUT_SLOTS];
	/* Reset and time. */
	uint64_t por_tsc;      /* power-on (probe) */
	uint64_t reset_tsc;    /* last accepted reset key */
	uint64_t reset_until;  /* reads are 0xBAD00ACCE55 before this */
	uint64_t resetwin_cyc;
	bool gone;
	uint64_t gone_tsc;     /* when gone fired (return= counts from it) */
	uint64_t linkdown_until; /* NIC FW reset: all-ones before this */
	uint64_t tm_bytes;     /* TM FIFO data bytes, both ways */
	struct rsh_sim_ev ev;
	/* FIFOs. */
	struct rsh_sim_fifo boot, htt, tth;
	uint64_t boot_w[RSH_SIM_BOOT_DEPTH_BF3];
	uint64_t htt_w[RSH_SIM_TM_DEPTH];
	uint64_t tth_w[RSH_SIM_TM_DEPTH];
	/* Boot-ROM model. */
	struct rsh_sim_consumer cons;
	struct rsh_sim_bfb bfb;
	uint8_t keep[RSH_SIM_BOOTFIFO_KEEP];
	uint32_t keep_len;     /* release store; read by bootfifo readers */
	/* Scratch log, §5.6: one pointer for host reads and writes. */
	uint64_t log[RSH_SIM_LOG_WORDS];
	uint32_t log_ptr;
	uint64_t log_pend[RSH_SIM_LOG_PEND_WORDS];
	uint32_t log_pend_n;
	/* ARM-side peer. */
	const struct rsh_sim_arm_ops *arm;
	void *arm_priv;
	bool arm_up;           /* ARM "running": booted or eMMC boot */
	bool crashed;          /* crash= fired (one boot only) */
	uint64_t ready_tsc;    /* device time of the last "DPU is ready" */
	struct rsh_sim_cost cost;
	struct rsh_sim_stats st;
	/* MEM_ACC widget (rsh_sim_memacc.c): YU block words, 4 KiB. */
	uint32_t yu[1024];
	bool memacc_stall;     /* test hook: accesses never complete */
	struct rsh_sim_lf lf;  /* livefish=1 */
};

/* Single-writer counter update (readers use relaxed loads). */
#define RSH_SIM_ST_ADD(sim, f, n) \
	__atomic_store_n(&(sim)->st.f, (sim)->st.f + (n), __ATOMIC_RELAXED)
#define RSH_SIM_ST_SET(sim, f, v) \
	__atomic_store_n(&(sim)->st.f, (v), __ATOMIC_RELAXED)

/* Nanoseconds into TSC cycles of this device. */
static inline uint64_t
rsh_sim_ns_to_cyc(const struct rsh_sim *sim, uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * sim->hz / 1000000000u);
}

/* TSC cycles of this device into nanoseconds. */
static inline uint64_t
rsh_sim_cyc_ns(const struct rsh_sim *sim, uint64_t cyc)
{
	return (uint64_t)((unsigned __int128)cyc * 1000000000u / sim->hz);
}

/* Plain storage of a table register. */
static inline uint64_t *
rsh_sim_reg(struct rsh_sim *sim, enum rsh_sim_reg reg)
{
	return &sim->mem[sim->off[reg] >> 3];
}

/* Ring: push up to n words, return how many fit (<= depth - count). */
static inline unsigned int
rsh_sim_fifo_push(struct rsh_sim_fifo *f, const uint64_t *w, unsigned int n)
{
	uint32_t room = f->depth - f->count;
	uint32_t tail = (f->head + f->count) & (f->cap - 1);
	uint32_t first;

	if (n > room)
		n = room;
	first = RTE_MIN(n, f->cap - tail);
	memcpy(&f->w[tail], w, (size_t)first * 8);
	memcpy(&f->w[0], w + first, (size_t)(n - first) * 8);
	f->count += n;
	return n;
}

/* Ring: pop up to n words into w, return how many were there. */
static inline unsigned int
rsh_sim_fifo_pop(struct rsh_sim_fifo *f, uint64_t *w, unsigned int n)
{
	uint32_t first;

	if (n > f->count)
		n = f->count;
	first = RTE_MIN(n, f->cap - f->head);
	memcpy(w, &f->w[f->head], (size_t)first * 8);
	memcpy(w + first, &f->w[0], (size_t)(n - first) * 8);
	f->head = (f->head + n) & (f->cap - 1);
	f->count -= n;
	return n;
}

/* Ring: the contiguous words at the head (for in-place consumption). */
static inline unsigned int
rsh_sim_fifo_peek(const struct rsh_sim_fifo *f, const uint64_t **w)
{
	*w = &f->w[f->head];
	return RTE_MIN(f->count, f->cap - f->head);
}

/* Ring: drop n words at the head (n <= count). */
static inline void
rsh_sim_fifo_drop(struct rsh_sim_fifo *f, unsigned int n)
{
	f->head = (f->head + n) & (f->cap - 1);
	f->count -= n;
}

/* Ring: forget everything. */
static inline void
rsh_sim_fifo_clear(struct rsh_sim_fifo *f)
{
	f->head = 0;
	f->count = 0;
}

/* ---- For the ARM-side model (rsh_sim_arm.c) ---- */

/* Pop up to n words the host wrote into HOST_TO_TILE; returns how many. */
static inline unsigned int
rsh_sim_htt_pop(struct rsh_sim *sim, uint64_t *w, unsigned int n)
{
	return rsh_sim_fifo_pop(&sim->htt, w, n);
}

/* Push up to n words into TILE_TO_HOST; returns how many fit. */
static inline unsigned int
rsh_sim_tth_push(struct rsh_sim *sim, const uint64_t *w, unsigned int n)
{
	return rsh_sim_fifo_push(&sim->tth, w, n);
}

/* Words waiting in HOST_TO_TILE / TILE_TO_HOST. */
static inline unsigned int
rsh_sim_htt_count(const struct rsh_sim *sim)
{
	return sim->htt.count;
}

static inline unsigned int
rsh_sim_tth_count(const struct rsh_sim *sim)
{
	return sim->tth.count;
}

/* ---- rsh_sim_arm.c ---- */

/* Install the ARM-side model at probe (sets sim->arm, sim->arm_priv). */
int rsh_sim_arm_attach(struct rsh_sim *sim);

/* ---- rsh_sim_args.c ---- */

/* Parse "sim:bfN[,opt...]"; -EINVAL with rsh_err_set() on any error. */
int rsh_sim_args_parse(const char *devstr, struct rsh_sim_cfg *cfg);

/* "key=<syntax>, ..." (or only the keys) of every option into buf. */
void rsh_sim_args_list(char *buf, size_t len, bool keys_only);

/* ---- rsh_sim_boot.c ---- */

/* Restart the boot ROM after a reset (or power-on) that ends at start. */
void rsh_sim_boot_restart(struct rsh_sim *sim, uint64_t start);

/* Let the consumer catch up to now (called at every host access). */
void rsh_sim_boot_advance(struct rsh_sim *sim, uint64_t now);

/* Host writes of n words to BOOT_FIFO_DATA (drops counted). */
void rsh_sim_boot_write(struct rsh_sim *sim, const uint64_t *w,
			unsigned int n, uint64_t now);

/* Queue one MSG record for the scratch log; text <= 120 chars. */
void rsh_sim_log_msg(struct rsh_sim *sim, unsigned int module,
		     unsigned int level, const char *text, bool has_arg,
		     uint32_t arg);

/* Move queued records into the log while SEMAPHORE0 is free. */
void rsh_sim_log_flush(struct rsh_sim *sim);

/* Queue one prebuilt scratch-log record (header + len words). */
void rsh_sim_log_record(struct rsh_sim *sim, const uint64_t *rec,
			unsigned int n);

/* ---- rsh_sim.c ---- */

/* Reset the ARM: by the host's key (counted in resets) or on its own. */
void rsh_sim_arm_reset(struct rsh_sim *sim, uint64_t now, bool key);

/* The sim device behind a backend, NULL if it is not one. */
struct rsh_sim *rsh_sim_of_mut(struct rsh_backend *be);

/* ---- rsh_sim_shm.c ---- */

/* Register storage, private or shared=; *fresh: power-on values needed. */
int rsh_sim_mem_attach(struct rsh_sim *sim, bool *fresh);
/* The power-on values are written: other processes may attach. */
void rsh_sim_mem_ready(struct rsh_sim *sim);
void rsh_sim_mem_detach(struct rsh_sim *sim);

/* ---- rsh_sim_event.c ---- */

void rsh_sim_event_power_on(struct rsh_sim *sim, uint64_t now);
void rsh_sim_event_tick_slow(struct rsh_sim *sim, uint64_t now);
void rsh_sim_log_crash(struct rsh_sim *sim, unsigned int type);
void rsh_sim_gone_now(struct rsh_sim *sim, const char *why, uint64_t now);
/* A gone device due back (return= elapsed or injected)? Powers it on. */
bool rsh_sim_return_check(struct rsh_sim *sim, uint64_t now);
/* Power-on after a hot-plug: every register to its reset value. */
void rsh_sim_replug(struct rsh_sim *sim, uint64_t now);

/* Run the event model when something is armed or was injected. */
static inline void
rsh_sim_event_tick(struct rsh_sim *sim, uint64_t now)
{
	if (sim->ev.active ||
	    __atomic_load_n(&sim->ev.mbox, __ATOMIC_RELAXED) != 0)
		rsh_sim_event_tick_slow(sim, now);
}
/* ---- rsh_sim_cost.c ---- */

/* Per-access costs from the options (at probe). */
void rsh_sim_cost_init(struct rsh_sim *sim);

/* The device's clock: TSC plus the MMIO time charged so far. */
uint64_t rsh_sim_now(const struct rsh_sim *sim);

/* At the entry of a read / write op of n words: charge it, return the
 * device's time for the access. rsh_sim_cost_leave() at its exit. */
uint64_t rsh_sim_cost_read(struct rsh_sim *sim, unsigned int n);
uint64_t rsh_sim_cost_write(struct rsh_sim *sim, unsigned int n);
void rsh_sim_cost_leave(struct rsh_sim *sim);

/* profile=install[/N]: stalls and per-phase rates into cfg. */
int rsh_sim_profile_set(struct rsh_sim_cfg *cfg, const char *v);

/* The drain rate of the phase after n_fired stalls (profile only). */
void rsh_sim_profile_phase(struct rsh_sim *sim, unsigned int n_fired);

/* The sim device behind a backend, NULL if it is not one (rsh_sim.c). */
const struct rsh_sim *rsh_sim_cast(const struct rsh_backend *be);

/* ops (rsh_sim_stats.c): the counters and the cost model's as extended
 * statistics, "sim_<field of rsh_sim_stats>" then "sim_cost_<field of
 * rsh_sim_cost_stats>". */
int rsh_sim_xstats_get_names(const struct rsh_backend *be,
			     struct rsh_xstat_name *names, unsigned int n);
int rsh_sim_xstats_get(const struct rsh_backend *be, uint64_t *v, unsigned int n);

/* At the entry of a config cycle (livefish): charge it, return the
 * device's time; rsh_sim_cost_leave() at its exit. */
uint64_t rsh_sim_cost_cfg(struct rsh_sim *sim);

/* ---- rsh_sim.c: one access of the register model at device time ---- */
uint64_t rsh_sim_do_read64(struct rsh_backend *be, uint32_t off, uint64_t now);
void rsh_sim_do_write64(struct rsh_backend *be, uint32_t off, uint64_t v,
			uint64_t now);

/* ---- rsh_sim_lf.c: livefish=1 ---- */
int rsh_sim_lf_cfg_read(struct rsh_backend *be, uint32_t off, uint32_t *v);
int rsh_sim_lf_cfg_write(struct rsh_backend *be, uint32_t off, uint32_t v);
/* True (counted) when the function is livefish: its BAR is refused. */
bool rsh_sim_lf_nobar(struct rsh_sim *sim, unsigned int n);
/* Option setters: livefish=, lfstuck=, lfpend=, lfquiet=, cfg_ns=, lfseq=. */
int rsh_sim_opt_livefish(struct rsh_sim_cfg *cfg, const char *v);
int rsh_sim_opt_lfstuck(struct rsh_sim_cfg *cfg, const char *v);
int rsh_sim_opt_lfpend(struct rsh_sim_cfg *cfg, const char *v);
int rsh_sim_opt_lfquiet(struct rsh_sim_cfg *cfg, const char *v);
int rsh_sim_opt_cfgns(struct rsh_sim_cfg *cfg, const char *v);
int rsh_sim_opt_lfseq(struct rsh_sim_cfg *cfg, const char *v);

/* ---- rsh_sim_fault.c ---- */

/* Arm the fault schedule at the start of a boot stream. */
void rsh_sim_fault_restart(struct rsh_sim *sim);

/* rsh_sim_memacc.c: power-on contents, and a MEM_ACC_CTL write. */
void rsh_sim_memacc_init(struct rsh_sim *sim);
void rsh_sim_memacc_ctl(struct rsh_sim *sim, uint64_t ctl);

/* Words the consumer may take before the next fault offset. */
uint64_t rsh_sim_fault_limit(const struct rsh_sim *sim);

/* Fire the faults whose offset was reached at TSC t. */
void rsh_sim_fault_fire(struct rsh_sim *sim, uint64_t t);

/* Stream offset of a pending armreset@<offset>, or RSH_SIM_NO_OFFSET. */
uint64_t rsh_sim_fault_armreset_at(const struct rsh_sim *sim);

#endif /* RSH_SIM_PRIV_H */
