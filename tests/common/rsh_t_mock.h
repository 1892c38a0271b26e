/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one mock rshim backend of the unit tests (device strings "mock:bf2",
 * "mock:bf3"), behind the core's ops table:
 *  - a register file of the whole BAR, decoded by the core's table;
 *  - a reset model: after the reset key the rshim is unreachable for
 *    down_ms (BAD_ACCESS reads, writes ignored), or gone for good;
 *  - a write log, the boot FIFO's burst counters, the scratch log's
 *    auto-incrementing data register, an optional interrupt source;
 *  - a check that every access comes from one thread at a time (the
 *    backend contract), and a one-shot trigger that injects an event
 *    (cancel, gone, unreachable) right after a chosen access;
 *  - hooks a test installs to model what sits behind some registers: the
 *    other rshim driver of an ownership test (it acts on the clock at
 *    every access, on virtual time), the ARM side of a TM FIFO test.
 * Times come from the core's clock (rsh_now), so a test on the virtual
 * clock (rsh_clock_virtual_set) runs the reset windows in zero real time.
 *
 * A test sets rsh_t_next (hooks, context, first register values; it
 * applies to every probe until the test changes it) before rsh_dev_open();
 * rsh_t_mock_of(dev) gives the mock. It is freed at close unless keep is
 * set (then rsh_t_mock_free, so the words can be read after the close).
 */
#ifndef RSH_T_MOCK_H
#define RSH_T_MOCK_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsh.h"
#include "rsh_backend.h"
#include "rsh_clock.h"
#include "rsh_dev_priv.h"

#define RSH_T_LOG 1024u

struct rsh_t_mock;

/* What a test models behind the registers. Each hook returns true when it
 * handled the access (reads: *v set); false lets the register file do it.
 * Hooks run inside the access, on the thread doing it. */
struct rsh_t_hooks {
	bool (*rd)(struct rsh_t_mock *m, uint32_t off, uint64_t *v);
	bool (*wr)(struct rsh_t_mock *m, uint32_t off, uint64_t v);
	bool (*wfifo)(struct rsh_t_mock *m, uint32_t off, const uint64_t *w, unsigned int n);
	bool (*rfifo)(struct rsh_t_mock *m, uint32_t off, uint64_t *w, unsigned int n);
	/* NULL: no interrupt source (the core polls SCRATCHPAD6). */
	int (*irq_poll)(struct rsh_t_mock *m);
};

/* Behaviour after the reset key is written. */
enum rsh_t_after_reset {
	RSH_T_BACK_AFTER,  /* unreachable for down_ms, then back */
	RSH_T_GONE,        /* all-ones for good */
};

/* An event the trigger injects. */
enum rsh_t_ev {
	RSH_T_EV_NONE = 0,
	RSH_T_EV_CANCEL,   /* set *cancel */
	RSH_T_EV_GONE,     /* all-ones from now on */
	RSH_T_EV_DOWN,     /* unreachable for down_ms from now, then back */
};

/* Fire ev once, after the first access that matches. */
struct rsh_t_trig {
	enum rsh_t_ev ev;
	bool on_write;     /* a write (else a read) of reg */
	enum rsh_reg reg;
	bool match_val;    /* writes: only this value */
	uint64_t val;
	bool after_reset;  /* only once the reset key was written */
	int *cancel;
	uint64_t down_ms;
	uint32_t fired;
};

/* What the next probe starts with (set by the test before the open). */
struct rsh_t_next {
	const struct rsh_t_hooks *hooks;
	void *ctx;
	bool keep;            /* not freed at close: rsh_t_mock_free */
	bool set_sp1;         /* SCRATCHPAD1 starts as sp1 */
	uint64_t sp1;
	bool set_fabric;      /* FABRIC_DIM starts as fabric */
	uint64_t fabric;
	uint32_t reset_delay_ms;
};
static struct rsh_t_next rsh_t_next;

/* The mock the last probe made (also when the open then failed). */
static struct rsh_t_mock *rsh_t_last;

struct rsh_t_mock {
	struct rsh_backend be;
	struct rsh_regmap map;
	uint64_t *regs;               /* the whole BAR, by 8-byte word */
	const struct rsh_t_hooks *hooks;
	void *ctx;                    /* the hooks' state */
	bool keep;
	enum rsh_t_after_reset after_reset;
	uint64_t down_ms;
	uint64_t reset_tsc;           /* 0 = no reset yet */
	unsigned int resets;
	unsigned int wlog_n;
	uint32_t wlog_off[RSH_T_LOG];
	uint64_t wlog_val[RSH_T_LOG];
	uint32_t in_access;           /* >0 while an access runs */
	uint32_t overlaps;            /* two threads inside at once */
	pthread_t last_thread;
	uint32_t thread_changes;      /* accesses from a new thread */
	struct rsh_t_trig trig;
	/* Boot FIFO: data words written, and the longest run of them
	 * between two BOOT_FIFO_COUNT reads (the credit of one read). */
	uint64_t fifo_words;
	uint32_t fifo_run;
	uint32_t fifo_run_max;
	uint64_t count_reads;
	/* The scratch log (hardware-notes §5.6): words, the index LOG_CTL
	 * reads, and the data register's auto-incrementing pointer. */
	uint64_t log[RSH_SCRATCH_BUF_WORDS];
	unsigned int log_idx, log_ptr;
};

/* The register of m named by the core's table. */
static inline uint64_t *
rsh_t_reg(struct rsh_t_mock *m, enum rsh_reg r)
{
	return &m->regs[m->map.off[r] / 8];
}

/* A register word, read or written atomically (other threads of a test
 * may look at it while the poll loop runs). */
static inline uint64_t
rsh_t_get(struct rsh_t_mock *m, enum rsh_reg r)
{
	return __atomic_load_n(rsh_t_reg(m, r), __ATOMIC_ACQUIRE);
}

static inline void
rsh_t_set(struct rsh_t_mock *m, enum rsh_reg r, uint64_t v)
{
	__atomic_store_n(rsh_t_reg(m, r), v, __ATOMIC_RELEASE);
}

/* Enter an access: detect overlap and note thread changes. */
static inline void
rsh_t_enter(struct rsh_t_mock *m)
{
	if (__atomic_fetch_add(&m->in_access, 1, __ATOMIC_ACQ_REL) != 0)
		__atomic_fetch_add(&m->overlaps, 1, __ATOMIC_RELAXED);
	if (!pthread_equal(m->last_thread, pthread_self())) {
		m->last_thread = pthread_self();
		m->thread_changes++;
	}
}

static inline void
rsh_t_leave(struct rsh_t_mock *m)
{
	__atomic_fetch_sub(&m->in_access, 1, __ATOMIC_ACQ_REL);
}

/* The reset state now: 0 normal, 1 unreachable, 2 gone. */
static inline int
rsh_t_reset_state(struct rsh_t_mock *m)
{
	/* Tests inject from their own thread (rsh_t_inject): acquire pairs
	 * with its release store of reset_tsc. */
	uint64_t t = __atomic_load_n(&m->reset_tsc, __ATOMIC_ACQUIRE);

	if (t == 0)
		return 0;
	if (__atomic_load_n(&m->after_reset, __ATOMIC_RELAXED) == RSH_T_GONE)
		return 2;
	return rsh_now() - t < rsh_ms_cyc(__atomic_load_n(&m->down_ms, __ATOMIC_RELAXED)) ?
	       1 : 0;
}

/* Inject ev now (also used by the tests directly). */
static inline void
rsh_t_inject(struct rsh_t_mock *m, enum rsh_t_ev ev, int *cancel, uint64_t down_ms)
{
	switch (ev) {
	case RSH_T_EV_CANCEL:
		__atomic_store_n(cancel, 1, __ATOMIC_RELAXED);
		break;
	case RSH_T_EV_GONE:
		__atomic_store_n(&m->after_reset, RSH_T_GONE, __ATOMIC_RELAXED);
		__atomic_store_n(&m->reset_tsc, rsh_now(), __ATOMIC_RELEASE);
		break;
	case RSH_T_EV_DOWN:
		__atomic_store_n(&m->after_reset, RSH_T_BACK_AFTER, __ATOMIC_RELAXED);
		__atomic_store_n(&m->down_ms, down_ms, __ATOMIC_RELAXED);
		__atomic_store_n(&m->reset_tsc, rsh_now(), __ATOMIC_RELEASE);
		break;
	default:
		break;
	}
}

/* Fire the trigger if this access matches it. */
static inline void
rsh_t_trig_check(struct rsh_t_mock *m, bool is_write, uint32_t off, uint64_t v)
{
	struct rsh_t_trig *t = &m->trig;

	if (t->ev == RSH_T_EV_NONE || t->fired || t->on_write != is_write ||
	    off != m->map.off[t->reg] || (t->match_val && v != t->val) ||
	    (t->after_reset && m->resets == 0))
		return;
	__atomic_store_n(&t->fired, 1, __ATOMIC_RELEASE);
	rsh_t_inject(m, t->ev, t->cancel, t->down_ms);
}

/* The register file's read side: the scratch log's data register pops. */
static inline uint64_t
rsh_t_file_rd(struct rsh_t_mock *m, uint32_t off)
{
	if (off == m->map.off[RSH_SCRATCH_BUF_CTL])
		return m->log_idx;
	if (off == m->map.off[RSH_SCRATCH_BUF_DAT])
		return m->log[m->log_ptr++ % RSH_SCRATCH_BUF_WORDS];
	return __atomic_load_n(&m->regs[off / 8], __ATOMIC_ACQUIRE);
}

/* The register file's write side: the scratch log's index, the reset key. */
static inline void
rsh_t_file_wr(struct rsh_t_mock *m, uint32_t off, uint64_t v)
{
	if (off == m->map.off[RSH_SCRATCH_BUF_CTL]) {
		m->log_ptr = 0;
		m->log_idx = (unsigned int)v & 0x7F;
		return;
	}
	__atomic_store_n(&m->regs[off / 8], v, __ATOMIC_RELEASE);
	if (off == m->map.off[RSH_RESET_CONTROL] &&
	    (v & RSH_RESET_CONTROL__KEY_MASK) == RSH_RESET_CONTROL__KEY) {
		__atomic_store_n(&m->reset_tsc, rsh_now(), __ATOMIC_RELEASE);
		__atomic_store_n(&m->resets, m->resets + 1, __ATOMIC_RELAXED);
	}
}

static inline uint64_t
rsh_t_rd(struct rsh_backend *be, uint32_t off)
{
	struct rsh_t_mock *m = (struct rsh_t_mock *)be;
	uint64_t v;
	int st;

	rsh_t_enter(m);
	be->stats.reads++;
	if (off == m->map.off[RSH_BOOT_FIFO_COUNT]) {
		__atomic_store_n(&m->count_reads, m->count_reads + 1, __ATOMIC_RELAXED);
		m->fifo_run = 0;
	}
	st = rsh_t_reset_state(m);
	if (st == 2)
		v = RSH_ALL_ONES;
	else if (st == 1)
		v = RSH_BAD_ACCESS1;
	else if (m->hooks == NULL || m->hooks->rd == NULL || !m->hooks->rd(m, off, &v))
		v = rsh_t_file_rd(m, off);
	rsh_t_trig_check(m, false, off, v);
	rsh_t_leave(m);
	return v;
}

static inline void
rsh_t_wr(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	struct rsh_t_mock *m = (struct rsh_t_mock *)be;

	rsh_t_enter(m);
	be->stats.writes++;
	if (off == m->map.off[RSH_BOOT_FIFO_DATA]) {
		__atomic_store_n(&m->fifo_words, m->fifo_words + 1, __ATOMIC_RELAXED);
		if (++m->fifo_run > m->fifo_run_max)
			m->fifo_run_max = m->fifo_run;
	}
	if (rsh_t_reset_state(m) == 0) {
		if (m->wlog_n < RSH_T_LOG) {
			m->wlog_off[m->wlog_n] = off;
			m->wlog_val[m->wlog_n++] = v;
		}
		if (m->hooks == NULL || m->hooks->wr == NULL || !m->hooks->wr(m, off, v))
			rsh_t_file_wr(m, off, v);
	}
	rsh_t_trig_check(m, true, off, v);
	rsh_t_leave(m);
}

static inline void
rsh_t_wfifo(struct rsh_backend *be, uint32_t off, const uint64_t *w, unsigned int n)
{
	struct rsh_t_mock *m = (struct rsh_t_mock *)be;

	if (m->hooks != NULL && m->hooks->wfifo != NULL && m->hooks->wfifo(m, off, w, n)) {
		be->stats.writes += n;
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		rsh_t_wr(be, off, w[i]);
}

static inline void
rsh_t_rfifo(struct rsh_backend *be, uint32_t off, uint64_t *w, unsigned int n)
{
	struct rsh_t_mock *m = (struct rsh_t_mock *)be;

	if (m->hooks != NULL && m->hooks->rfifo != NULL && m->hooks->rfifo(m, off, w, n)) {
		be->stats.reads += n;
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		w[i] = rsh_t_rd(be, off);
}

/* Free a mock (its register file too). */
static inline void
rsh_t_mock_free(struct rsh_t_mock *m)
{
	if (m != NULL)
		free(m->regs);
	free(m);
}

static inline void
rsh_t_close(struct rsh_backend *be)
{
	struct rsh_t_mock *m = (struct rsh_t_mock *)be;

	if (!m->keep)
		rsh_t_mock_free(m);
}

static inline int
rsh_t_irq_poll(struct rsh_backend *be)
{
	struct rsh_t_mock *m = (struct rsh_t_mock *)be;

	return m->hooks != NULL && m->hooks->irq_poll != NULL ? m->hooks->irq_poll(m) : -ENOTSUP;
}

static const struct rsh_backend_ops rsh_t_ops = {
	.read64 = rsh_t_rd, .write64 = rsh_t_wr, .write_fifo = rsh_t_wfifo,
	.read_fifo = rsh_t_rfifo, .close = rsh_t_close, .irq_poll = rsh_t_irq_poll,
};

/* The mock behind an open device. */
static inline struct rsh_t_mock *
rsh_t_mock_of(struct rsh_dev *dev)
{
	return (struct rsh_t_mock *)dev->be;
}

/*
 * Make m (zeroed, possibly embedded in a test's struct) a sane device of
 * generation gen named name: FABRIC_DIM answers, BOOT_CONTROL 2,
 * RESET_CONTROL's upper half set (the key must keep it), then rsh_t_next
 * applied. 0, or -ENOMEM (m->regs freed).
 */
static inline int
rsh_t_mock_init(struct rsh_t_mock *m, const char *name, enum rsh_gen gen)
{
	m->be.ops = &rsh_t_ops;
	m->be.gen = gen;
	m->be.bar_size = gen == RSH_GEN_BF3 ? RSH_BAR0_SIZE_BF3 : RSH_BAR0_SIZE_BF12;
	m->regs = calloc(m->be.bar_size / 8, sizeof(uint64_t));
	if (m->regs == NULL || rsh_regmap_init(&m->map, gen) != 0) {
		free(m->regs);
		m->regs = NULL;
		return -ENOMEM;
	}
	snprintf(m->be.name, sizeof(m->be.name), "%s", name);
	*rsh_t_reg(m, RSH_FABRIC_DIM) = rsh_t_next.set_fabric ? rsh_t_next.fabric :
							      0x0000000200000004ull;
	*rsh_t_reg(m, RSH_BOOT_CONTROL) = 2;
	*rsh_t_reg(m, RSH_RESET_CONTROL) = 0x500000000ull;
	*rsh_t_reg(m, RSH_SCRATCHPAD1) = rsh_t_next.set_sp1 ? rsh_t_next.sp1 : 0;
	m->be.reset_delay_ms = rsh_t_next.reset_delay_ms;
	m->down_ms = 20;
	m->hooks = rsh_t_next.hooks;
	m->ctx = rsh_t_next.ctx;
	m->keep = rsh_t_next.keep;
	return 0;
}

/* A new mock (rsh_t_mock_init), NULL when out of memory. */
static inline struct rsh_t_mock *
rsh_t_mock_new(const char *name, enum rsh_gen gen)
{
	struct rsh_t_mock *m = calloc(1, sizeof(*m));

	if (m != NULL && rsh_t_mock_init(m, name, gen) != 0) {
		free(m);
		m = NULL;
	}
	return m;
}

static inline int
rsh_t_match(const char *s)
{
	return strncmp(s, "mock:", 5) == 0;
}

static inline int
rsh_t_probe(const char *s, const struct rsh_open_opts *o, struct rsh_backend **out)
{
	struct rsh_t_mock *m = rsh_t_mock_new(s, strcmp(s, "mock:bf3") == 0 ?
					      RSH_GEN_BF3 : RSH_GEN_BF2);

	(void)o;
	if (m == NULL)
		return -ENOMEM;
	rsh_t_last = m;
	*out = &m->be;
	return 0;
}

static struct rsh_backend_driver rsh_t_drv = {
	.name = "mock", .match = rsh_t_match, .probe = rsh_t_probe,
};
RSH_BACKEND_REGISTER(rsh_t_drv);

/* True when the write log holds (reg, value). */
static inline bool
rsh_t_wrote(struct rsh_t_mock *m, enum rsh_reg r, uint64_t v)
{
	for (unsigned int i = 0; i < m->wlog_n; i++)
		if (m->wlog_off[i] == m->map.off[r] && m->wlog_val[i] == v)
			return true;
	return false;
}

/* Number of writes to reg in the log. */
static inline unsigned int
rsh_t_writes_to(struct rsh_t_mock *m, enum rsh_reg r)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < m->wlog_n; i++)
		n += m->wlog_off[i] == m->map.off[r];
	return n;
}

#endif /* RSH_T_MOCK_H */
