/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulator's boot-ROM model: the consumer of the boot FIFO.
 *
 * Timing is TSC virtual time, no thread: at every host register access
 * the consumer first catches up on the time elapsed since it last ran, at
 * the drain= rate (unlimited by default: everything queued is consumed at
 * once). Idle time is not banked beyond what the FIFO held.
 *
 * It consumes only while out of reset and when BOOT_CONTROL's mode was 0
 * at the last reset (hardware-notes §3.2 steps 3 and 6:
 * the host selects "boot from the rshim FIFO" before the reset key). A
 * reset with mode != 0 stands for an eMMC boot: the FIFO is never read.
 *
 * The consumed words are parsed as a forward-only BFB reader
 * (hardware-notes §D6.3, §D6.5): 24-byte headers, magic 0x13026642,
 * major 1, extra header words skipped, CRC-32 over data plus padding.
 * Progress goes to SCRATCHPAD3 bits 7:0 (RSH_SIM_PROG_*, emulator-defined)
 * and to the 128-word scratch log in the §5.6 record format.
 */
#include <inttypes.h>

#include <rte_cycles.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_bfb_fmt.h"
#include "rsh_log.h"
#include "rsh_sim_priv.h"

/* The 7-bit index cannot express 128, so the log holds at most 127 words
 * (emulator choice; §5.6 gives 128 words and a 7-bit index). */
#define RSH_SIM_LOG_LIMIT (RSH_SIM_LOG_WORDS - 1u)

/* One step of the boot chain: the image BL1/BL2 opens next. */
static const struct {
	uint8_t id;
	uint8_t module;
	const char *text;
} rsh_sim_chain[RSH_SIM_BOOT_CHAIN_LEN] = {
	{ 1, RSH_SIM_LOG_MOD_BL1, "bl2 not in the boot stream" },
	{ 3, RSH_SIM_LOG_MOD_BL2, "bl31 not in the boot stream" },
	{ 5, RSH_SIM_LOG_MOD_BL2, "bl33 not in the boot stream" },
};

static void rsh_sim_bfb_chain_fail(struct rsh_sim *sim, unsigned int id);

/* Deferred-upgrade status in SCRATCHPAD2 bits 12:11. */
static void
rsh_sim_sp2_upgrade(struct rsh_sim *sim, uint64_t status)
{
	uint64_t *sp2 = rsh_sim_reg(sim, RSH_SIM_REG_SCRATCHPAD2);

	*sp2 = (*sp2 & ~RSH_SIM_SP2_UPG_MASK) | status << RSH_SIM_SP2_UPG_SHIFT;
}

/* Queue one prebuilt record (header + len words); dropped and counted
 * when the queue is full. */
void
rsh_sim_log_record(struct rsh_sim *sim, const uint64_t *rec, unsigned int n)
{
	if (n > 0x80 || sim->log_pend_n + n > RSH_SIM_LOG_PEND_WORDS) {
		RSH_SIM_ST_ADD(sim, log_dropped, 1);
		return;
	}
	memcpy(&sim->log_pend[sim->log_pend_n], rec, (size_t)n * 8);
	sim->log_pend_n += n;
	rsh_sim_log_flush(sim);
}

/* Queue one MSG record: header word, then NUL-padded text (§5.6). */
void
rsh_sim_log_msg(struct rsh_sim *sim, unsigned int module, unsigned int level,
		const char *text, bool has_arg, uint32_t arg)
{
	size_t len = strlen(text) / 8 + 1; /* always at least one NUL */
	uint64_t rec[1 + 16];

	if (len > 16) {
		RSH_SIM_ST_ADD(sim, log_dropped, 1);
		return;
	}
	rec[0] = (uint64_t)module << 60 | (uint64_t)RSH_SIM_LOG_TYPE_MSG << 56 |
		 (uint64_t)len << 48 | (uint64_t)(has_arg ? arg : 0) << 16 |
		 (uint64_t)(has_arg ? 1 : 0) << 8 | level;
	memset(&rec[1], 0, len * 8);
	memcpy(&rec[1], text, strlen(text)); /* little-endian: byte k = bits 8k+7:8k */
	rsh_sim_log_record(sim, rec, (unsigned int)(1 + len));
}

/* Write queued records while SEMAPHORE0 is free (the host's log reader
 * holds it, §5.6); a record that does not fit is dropped and counted. */
void
rsh_sim_log_flush(struct rsh_sim *sim)
{
	while (sim->log_pend_n > 0 && *rsh_sim_reg(sim, RSH_SIM_REG_SEMAPHORE0) == 0) {
		uint32_t n = 1 + ((sim->log_pend[0] >> 48) & 0x7F);

		if (sim->log_ptr + n <= RSH_SIM_LOG_LIMIT) {
			memcpy(&sim->log[sim->log_ptr], sim->log_pend, n * 8);
			sim->log_ptr += n;
			RSH_SIM_ST_ADD(sim, log_records, 1);
		} else {
			RSH_SIM_ST_ADD(sim, log_dropped, 1);
		}
		sim->log_pend_n -= n;
		memmove(sim->log_pend, &sim->log_pend[n], sim->log_pend_n * 8);
	}
}

/* Boot progress into SCRATCHPAD3 bits 7:0, keeping the other bits. */
static void
rsh_sim_boot_progress(struct rsh_sim *sim, uint8_t code)
{
	uint64_t *sp3 = rsh_sim_reg(sim, RSH_SIM_REG_SCRATCHPAD3);

	*sp3 = (*sp3 & ~RSH_SIM_SP3_PROGRESS_MASK) | code;
	RSH_SIM_ST_SET(sim, progress, code);
}

/* A broken stream: ERR record with the offset as argument when it fits in
 * 32 bits, stop parsing (consuming and hashing go on). */
static void
rsh_sim_bfb_fail(struct rsh_sim *sim, const char *what, uint64_t off)
{
	bool fits = off <= UINT32_MAX;
	char text[64];

	if (fits)
		snprintf(text, sizeof(text), "%s at offset 0x%%x", what);
	else
		snprintf(text, sizeof(text), "%s beyond 4 GiB", what);
	rsh_sim_log_msg(sim, sim->bfb.linux_reader ? RSH_SIM_LOG_MOD_MISC :
			RSH_SIM_LOG_MOD_BL1, RSH_SIM_LOG_ERR, text, fits,
			(uint32_t)off);
	if (sim->bfb.linux_reader)
		rsh_sim_sp2_upgrade(sim, RSH_SIM_SP2_UPG_FAIL);
	RSH_DEV_LOG(INFO, &sim->be, "boot stream: %s at offset %" PRIu64,
		    what, off);
	RSH_SIM_ST_SET(sim, stream_error, true);
	if (!sim->bfb.linux_reader) /* Linux keeps running */
		rsh_sim_boot_progress(sim, RSH_SIM_PROG_ERROR);
	sim->bfb.st = RSH_SIM_BFB_ERROR;
}

/* A running DPU read a whole BFB from its bootfifo: the deferred update
 * is staged, as the installer reports it (the line bfb-install waits
 * for, hardware-notes §3.8 step 8; the MISC module is the emulator's
 * choice). Trailing bytes go on into the keep buffer. */
static void
rsh_sim_bfb_upgraded(struct rsh_sim *sim)
{
	rsh_sim_log_msg(sim, RSH_SIM_LOG_MOD_MISC, RSH_SIM_LOG_INFO,
			"Runtime upgrade finished", false, 0);
	rsh_sim_sp2_upgrade(sim, RSH_SIM_SP2_UPG_OK);
	RSH_SIM_ST_ADD(sim, upgrades, 1);
	sim->bfb.st = RSH_SIM_BFB_TRAIL;
}

/* crash=: this boot ends in a BL31 crash record (once per device). */
static bool
rsh_sim_bfb_crash(struct rsh_sim *sim)
{
	if (sim->cfg.crash == 0 || sim->crashed)
		return false;
	sim->crashed = true;
	rsh_sim_log_crash(sim, sim->cfg.crash);
	RSH_SIM_ST_SET(sim, stream_error, true);
	rsh_sim_boot_progress(sim, RSH_SIM_PROG_ERROR);
	sim->bfb.st = RSH_SIM_BFB_ERROR;
	return true;
}

/* The last image is in: "DPU is ready"; ATF sets BOOT_CONTROL back to
 * eMMC (hardware-notes §D6.2 step 4, §D8 item 7). */
static void
rsh_sim_bfb_ready(struct rsh_sim *sim)
{
	if (sim->bfb.linux_reader) {
		rsh_sim_bfb_upgraded(sim);
		return;
	}
	rsh_sim_log_msg(sim, RSH_SIM_LOG_MOD_BL2, RSH_SIM_LOG_INFO,
			"Boot stream: %d images", true,
			(uint32_t)sim->st.images_ok);
	if (rsh_sim_bfb_crash(sim))
		return;
	rsh_sim_log_msg(sim, RSH_SIM_LOG_MOD_UEFI, RSH_SIM_LOG_INFO,
			"DPU is ready", false, 0);
	sim->ready_tsc = rsh_sim_now(sim);
	*rsh_sim_reg(sim, RSH_SIM_REG_BOOT_CONTROL) = RSH_SIM_BOOTMODE_EMMC;
	RSH_SIM_ST_SET(sim, booted, true);
	rsh_sim_boot_progress(sim, RSH_SIM_PROG_READY);
	sim->arm_up = true;
	sim->bfb.st = RSH_SIM_BFB_TRAIL;
}

/* All data words of an image are in: check the CRC, go on. */
static void
rsh_sim_bfb_image_done(struct rsh_sim *sim)
{
	struct rsh_sim_bfb *b = &sim->bfb;

	if (b->crc != b->img_crc) {
		RSH_SIM_ST_ADD(sim, images_bad, 1);
		rsh_sim_bfb_fail(sim, "bad image CRC", b->img_offset);
		return;
	}
	RSH_SIM_ST_ADD(sim, images_ok, 1);
	if (b->stage < RSH_SIM_BOOT_CHAIN_LEN &&
	    b->img_id == rsh_sim_chain[b->stage].id)
		b->stage++;
	if (b->img_following == 0 && b->stage < RSH_SIM_BOOT_CHAIN_LEN) {
		rsh_sim_bfb_chain_fail(sim, b->img_id); /* the last image */
		return;
	}
	if (b->img_following == 0) {
		rsh_sim_bfb_ready(sim);
		return;
	}
	b->st = RSH_SIM_BFB_HDR;
	b->hdr_n = 0;
}

/*
 * Forward-only open (hardware-notes §D6.5): the stage waiting for image
 * `want` skips other images while their following-images bitmap says
 * `want` is still to come; when it says it is not, the image is "not
 * present" and the boot fails there, as silicon would (a stream with only
 * a kernel, or bl33 before bl31, never boots). Returns false on failure.
 */
static bool
rsh_sim_bfb_chain(struct rsh_sim *sim, const struct rsh_bfb_hdr *h)
{
	struct rsh_sim_bfb *b = &sim->bfb;
	unsigned int want;

	b->img_id = h->id;
	if (b->stage >= RSH_SIM_BOOT_CHAIN_LEN)
		return true;
	want = rsh_sim_chain[b->stage].id;
	if (h->id == want)
		return true;
	if (h->following & (1ull << want))
		return true;
	rsh_sim_bfb_chain_fail(sim, h->id);
	return false;
}

/* The stage waiting for its image learns it will never come. */
static void
rsh_sim_bfb_chain_fail(struct rsh_sim *sim, unsigned int id)
{
	struct rsh_sim_bfb *b = &sim->bfb;

	rsh_sim_log_msg(sim, rsh_sim_chain[b->stage].module, RSH_SIM_LOG_ERR,
			rsh_sim_chain[b->stage].text, false, 0);
	RSH_DEV_LOG(INFO, &sim->be, "boot stream: %s (image %u at offset %"
		    PRIu64 ")", rsh_sim_chain[b->stage].text, id,
		    b->img_offset);
	RSH_SIM_ST_SET(sim, stream_error, true);
	rsh_sim_boot_progress(sim, RSH_SIM_PROG_ERROR);
	b->st = RSH_SIM_BFB_ERROR;
}

/* Three header words are in: validate (§D6.5 next_header) and set up. */
static void
rsh_sim_bfb_hdr_done(struct rsh_sim *sim)
{
	struct rsh_sim_bfb *b = &sim->bfb;
	struct rsh_bfb_hdr h;

	rsh_bfb_hdr_decode(b->hdr, &h);
	if (h.magic != RSH_BFB_MAGIC)
		return rsh_sim_bfb_fail(sim, "bad BFB magic", b->img_offset);
	if (h.major != RSH_BFB_MAJOR)
		return rsh_sim_bfb_fail(sim, "bad BFB major", b->img_offset);
	if (h.hdr_words < RSH_BFB_HDR_WORDS)
		return rsh_sim_bfb_fail(sim, "bad BFB header length",
					b->img_offset);
	if (!rsh_sim_bfb_chain(sim, &h))
		return;
	if (!b->linux_reader && sim->st.progress != RSH_SIM_PROG_LOADING) {
		rsh_sim_boot_progress(sim, RSH_SIM_PROG_LOADING);
		rsh_sim_log_msg(sim, RSH_SIM_LOG_MOD_BL1, RSH_SIM_LOG_INFO,
				"Boot stream found", false, 0);
	}
	b->skip_words = h.hdr_words - RSH_BFB_HDR_WORDS;
	b->data_words = ((uint64_t)h.image_len + 7) / 8;
	b->crc = 0;
	b->img_crc = h.crc;
	b->img_following = h.following;
	b->st = b->skip_words > 0 ? RSH_SIM_BFB_SKIP : RSH_SIM_BFB_DATA;
	if (b->st == RSH_SIM_BFB_DATA && b->data_words == 0)
		rsh_sim_bfb_image_done(sim);
}

/* Keep trailing bytes for the bootfifo reader (release pairs with the
 * acquire in rsh_sim_bootfifo_read). */
static void
rsh_sim_bfb_keep(struct rsh_sim *sim, const uint64_t *w, unsigned int n)
{
	uint32_t len = sim->keep_len;
	uint32_t k = RTE_MIN((uint64_t)n * 8, RSH_SIM_BOOTFIFO_KEEP - len);

	memcpy(&sim->keep[len], w, k);
	__atomic_store_n(&sim->keep_len, len + k, __ATOMIC_RELEASE);
	RSH_SIM_ST_ADD(sim, trailing_bytes, (uint64_t)n * 8);
}

/* Parse as many of n words as the current state wants; return them. */
static unsigned int
rsh_sim_bfb_step(struct rsh_sim *sim, const uint64_t *w, unsigned int n)
{
	struct rsh_sim_bfb *b = &sim->bfb;
	unsigned int k;

	switch (b->st) {
	case RSH_SIM_BFB_HDR:
		k = RTE_MIN(n, RSH_BFB_HDR_WORDS - b->hdr_n);
		memcpy(&b->hdr[b->hdr_n], w, k * 8);
		b->hdr_n += k;
		if (b->hdr_n == RSH_BFB_HDR_WORDS)
			rsh_sim_bfb_hdr_done(sim);
		return k;
	case RSH_SIM_BFB_SKIP:
		k = RTE_MIN(n, b->skip_words);
		b->skip_words -= k;
		if (b->skip_words == 0)
			b->st = RSH_SIM_BFB_DATA;
		if (b->skip_words == 0 && b->data_words == 0)
			rsh_sim_bfb_image_done(sim);
		return k;
	case RSH_SIM_BFB_DATA:
		k = (unsigned int)RTE_MIN((uint64_t)n, b->data_words);
		b->crc = rsh_bfb_crc32(b->crc, w, (size_t)k * 8);
		b->data_words -= k;
		if (b->data_words == 0)
			rsh_sim_bfb_image_done(sim);
		return k;
	case RSH_SIM_BFB_TRAIL:
		rsh_sim_bfb_keep(sim, w, n);
		return n;
	default:
		RSH_SIM_ST_ADD(sim, error_bytes, (uint64_t)n * 8);
		return n;
	}
}

/* The running DPU's Linux is up and reads its bootfifo file
 * (hardware-notes §D6.5): after a completed boot stream, or booted=1
 * while the ARM runs from eMMC. */
static bool
rsh_sim_linux_reads(const struct rsh_sim *sim)
{
	return sim->st.booted || (sim->cfg.arm.booted && sim->arm_up);
}

/*
 * Linux's bootfifo reader gives up after 500 ms without data (§D6.5); the
 * next word then starts a new session, parsed as a BFB of its own (a
 * deferred update pushed with the reset skipped). A session cut short
 * inside an image is reported.
 */
static void
rsh_sim_bootfifo_session(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_consumer *c = &sim->cons;
	struct rsh_sim_bfb *b = &sim->bfb;
	bool fresh = c->last_word == 0 ? !c->fifo_boot :
		     rsh_sim_linux_reads(sim) && now - c->last_word >
		     rsh_sim_ns_to_cyc(sim, RSH_SIM_BOOTFIFO_IDLE_NS);

	c->last_word = now;
	if (!fresh)
		return;
	if (b->linux_reader && (b->st == RSH_SIM_BFB_SKIP ||
	    b->st == RSH_SIM_BFB_DATA || (b->st == RSH_SIM_BFB_HDR &&
	    b->hdr_n > 0)))
		rsh_sim_log_msg(sim, RSH_SIM_LOG_MOD_MISC, RSH_SIM_LOG_ERR,
				"bootfifo: stream ended inside an image", false, 0);
	memset(b, 0, sizeof(*b));
	b->linux_reader = true;
	b->stage = RSH_SIM_BOOT_CHAIN_LEN; /* no boot chain: Linux runs */
	__atomic_store_n(&sim->keep_len, 0, __ATOMIC_RELEASE);
	RSH_SIM_ST_SET(sim, stream_error, false);
}

/* The consumer reads n contiguous words: hash, count, parse. */
static void
rsh_sim_boot_feed(struct rsh_sim *sim, const uint64_t *w, unsigned int n)
{
	unsigned int k;

	RSH_SIM_ST_SET(sim, hash, rsh_sim_hash_words(sim->st.hash, w, n));
	if (sim->bfb.linux_reader)
		RSH_SIM_ST_ADD(sim, bootfifo_bytes, (uint64_t)n * 8);
	while (n > 0) {
		if (sim->bfb.st == RSH_SIM_BFB_HDR && sim->bfb.hdr_n == 0)
			sim->bfb.img_offset = sim->st.consumed_bytes;
		k = rsh_sim_bfb_step(sim, w, n);
		RSH_SIM_ST_ADD(sim, consumed_bytes, (uint64_t)k * 8);
		w += k;
		n -= k;
	}
}

/* Restart the boot ROM for a reset (or power-on) whose window ends at
 * start: per-boot counters, parser, fault schedule and progress. */
void
rsh_sim_boot_restart(struct rsh_sim *sim, uint64_t start)
{
	uint64_t mode = *rsh_sim_reg(sim, RSH_SIM_REG_BOOT_CONTROL) &
			RSH_SIM_BOOTMODE_MASK;

	memset(&sim->bfb, 0, sizeof(sim->bfb));
	memset(&sim->cons, 0, sizeof(sim->cons));
	sim->cons.fifo_boot = mode == RSH_SIM_BOOTMODE_FIFO;
	sim->cons.start = start;
	sim->cons.seg_t0 = start;
	__atomic_store_n(&sim->keep_len, 0, __ATOMIC_RELEASE);
	RSH_SIM_ST_SET(sim, consumed_bytes, 0);
	RSH_SIM_ST_SET(sim, boot_first_ns, 0);
	RSH_SIM_ST_SET(sim, boot_last_ns, 0);
	RSH_SIM_ST_SET(sim, hash, RSH_SIM_HASH_INIT);
	RSH_SIM_ST_SET(sim, images_ok, 0);
	RSH_SIM_ST_SET(sim, images_bad, 0);
	RSH_SIM_ST_SET(sim, trailing_bytes, 0);
	RSH_SIM_ST_SET(sim, error_bytes, 0);
	RSH_SIM_ST_SET(sim, booted, false);
	RSH_SIM_ST_SET(sim, stream_error, false);
	rsh_sim_fault_restart(sim);
	sim->arm_up = !sim->cons.fifo_boot;
	rsh_sim_boot_progress(sim, sim->cons.fifo_boot ? RSH_SIM_PROG_ROM :
							RSH_SIM_PROG_EMMC);
}

/* Words the consumer may take at now (0: not running, stalled, gone). */
static uint64_t
rsh_sim_boot_budget(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_consumer *c = &sim->cons;
	uint64_t lim, w;

	if ((!c->fifo_boot && !rsh_sim_linux_reads(sim)) || sim->gone ||
	    now < c->start || now < c->stall_until)
		return 0;
	if (c->seg_t0 < c->stall_until) { /* a stall ended: new segment */
		c->seg_t0 = c->stall_until;
		c->seg_words = 0;
	}
	lim = rsh_sim_fault_limit(sim);
	if (lim == 0) { /* a fault at the very start of this segment */
		rsh_sim_fault_fire(sim, c->seg_t0);
		return 0;
	}
	if (sim->cfg.drain_bps == 0)
		return lim;
	w = (uint64_t)((unsigned __int128)(now - c->seg_t0) *
		       sim->cfg.drain_bps / ((unsigned __int128)sim->hz * 8));
	w = w > c->seg_words ? w - c->seg_words : 0;
	return RTE_MIN(w, lim);
}

/* Account n consumed words: fire faults reached, and when the consumer ran
 * dry (idle) start a new rate segment at now so idle time is not banked. */
static void
rsh_sim_boot_took(struct rsh_sim *sim, uint64_t n, uint64_t now, bool idle)
{
	struct rsh_sim_consumer *c = &sim->cons;
	uint64_t t = now;

	c->seg_words += n;
	if (sim->cfg.drain_bps != 0)
		t = c->seg_t0 + (uint64_t)((unsigned __int128)c->seg_words * 8 *
					   sim->hz / sim->cfg.drain_bps);
	if (n > 0) {
		uint64_t t0 = sim->cfg.drain_bps == 0 ? now :
			      t - (uint64_t)((unsigned __int128)n * 8 * sim->hz /
					     sim->cfg.drain_bps);

		if (sim->st.boot_first_ns == 0)
			RSH_SIM_ST_SET(sim, boot_first_ns, rsh_sim_cyc_ns(sim, RTE_MIN(t0, now)));
		RSH_SIM_ST_SET(sim, boot_last_ns, rsh_sim_cyc_ns(sim, RTE_MIN(t, now)));
	}
	if (rsh_sim_fault_limit(sim) == 0)
		rsh_sim_fault_fire(sim, RTE_MIN(t, now));
	if (idle && now >= c->stall_until) {
		/* dry once the stream has started (words taken this session) */
		if (c->dry_at == 0 && c->last_word != 0)
			c->dry_at = RTE_MAX(RTE_MIN(t, now), (uint64_t)1);
		c->seg_t0 = now;
		c->seg_words = 0;
	}
}

/* The host writes again: the time the FIFO stood dry until now counts. */
static void
rsh_sim_boot_refilled(struct rsh_sim *sim, uint64_t now)
{
	struct rsh_sim_consumer *c = &sim->cons;

	if (c->dry_at == 0)
		return;
	if (now > c->dry_at)
		RSH_SIM_ST_ADD(sim, boot_empty_ns, rsh_sim_cyc_ns(sim, now - c->dry_at));
	c->dry_at = 0;
}

/* Let the consumer catch up to now. */
void
rsh_sim_boot_advance(struct rsh_sim *sim, uint64_t now)
{
	const uint64_t *w;
	uint64_t budget;
	unsigned int n;

	if (sim->log_pend_n > 0)
		rsh_sim_log_flush(sim);
	for (;;) {
		budget = rsh_sim_boot_budget(sim, now);
		if (budget == 0)
			return;
		n = rsh_sim_fifo_peek(&sim->boot, &w);
		if (n == 0) {
			rsh_sim_boot_took(sim, 0, now, true);
			return;
		}
		n = (unsigned int)RTE_MIN((uint64_t)n, budget);
		rsh_sim_bootfifo_session(sim, now);
		rsh_sim_boot_feed(sim, w, n);
		rsh_sim_fifo_drop(&sim->boot, n);
		rsh_sim_boot_took(sim, n, now,
				  sim->boot.count == 0 && budget > n);
	}
}

/*
 * Host writes of n words to BOOT_FIFO_DATA. The consumer runs first; when
 * it has drained the FIFO and may take more right now (unlimited drain),
 * it reads straight from the host's burst, which is what a push followed
 * at once by a pop would do. The burst arrives at the device time of the
 * access (plus its MMIO cost with cost=1): words that still find the FIFO
 * full are dropped and counted (§D6.1: full → dropped for MMIO), however
 * long the host's thread takes to get here.
 */
void
rsh_sim_boot_write(struct rsh_sim *sim, const uint64_t *w, unsigned int n,
		   uint64_t now)
{
	uint64_t end = now + sim->cost.pend_cyc; /* the burst's last word */
	uint64_t budget;
	unsigned int k;

	RSH_SIM_ST_ADD(sim, host_boot_words, n);
	for (;;) {
		rsh_sim_boot_advance(sim, now);
		if (sim->gone) {
			RSH_SIM_ST_ADD(sim, ignored_writes, n);
			return;
		}
		rsh_sim_boot_refilled(sim, now);
		if (sim->boot.count == 0) {
			budget = rsh_sim_boot_budget(sim, now);
			k = (unsigned int)RTE_MIN((uint64_t)n, budget);
			if (k > 0) {
				rsh_sim_bootfifo_session(sim, now);
				rsh_sim_boot_feed(sim, w, k);
				rsh_sim_boot_took(sim, k, now, budget > k);
				w += k;
				n -= k;
				continue;
			}
		}
		k = rsh_sim_fifo_push(&sim->boot, w, n);
		w += k;
		n -= k;
		if (n == 0)
			return;
		if (k == 0 || now >= end) {
			RSH_SIM_ST_ADD(sim, boot_overflows, n);
			return;
		}
		now = end; /* once more, when the burst has fully arrived */
	}
}
