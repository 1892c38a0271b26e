/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TM FIFO mux/demux tests' model (test_tmfifo_tx.c, test_tmfifo_rx.c)
 * on the tests' one mock backend (tests/common/rsh_t_mock.h): two
 * in-memory 256-word FIFOs behind its hooks, checked burst by burst and
 * word by word, the ARM side that drains and fills them, and the per-case
 * setup/teardown of a fake device over the mock. Every case runs on the
 * virtual clock: a test steps it past the 1 s "gone" and 2 s Tx-stuck
 * deadlines instead of waiting them out.
 */
#ifndef RSH_T_TMFIFO_MOCK_H
#define RSH_T_TMFIFO_MOCK_H

#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "rsh_dev_priv.h"
#include "rsh_t_mock.h"
#include "rsh_tmfifo_api.h"
#include "rsh_tmfifo_priv.h"
#include "rsh_tmfifo_proto.h"

#define RSH_T_FIFO 256u
#define RSH_T_LOG_MAX (1u << 16)

/* A 256-word FIFO with drop-on-full, like the hardware (§4.1). */
struct rsh_t_fifo {
	uint64_t w[RSH_T_FIFO];
	unsigned int head, cnt;
	unsigned int dropped;
};

/* The mock backend and what it observed. */
struct rsh_t_be {
	struct rsh_t_mock mk;   /* first: the backend */
	struct rsh_regmap map;
	struct rsh_t_fifo htt, tth;
	/* HTT side: STS reads in this poll pass, credit then. */
	unsigned int htt_sts_pass;
	unsigned int htt_credit;
	unsigned int htt_sts_reads, write_calls;
	unsigned int tth_sts_pass;
	unsigned int tth_sts_reads, read_calls;
	unsigned int credit_violations, sts_violations;
	unsigned int max_burst;
	uint64_t sts_bad;       /* non-zero: both STS registers read this */
	/* Every word the ARM side popped from HTT, in order. */
	uint64_t log[RSH_T_LOG_MAX];
	unsigned int log_n;
};

/* One test's world: EAL already up; a fake device over the mock. */
struct rsh_t_ctx {
	struct rsh_t_be m;
	struct rsh_dev dev;
};

/* Push one word; drop when full. */
static inline void
rsh_t_push(struct rsh_t_fifo *f, uint64_t w)
{
	if (f->cnt == RSH_T_FIFO) {
		f->dropped++;
		return;
	}
	f->w[(f->head + f->cnt++) % RSH_T_FIFO] = w;
}

/* Pop one word; all-ones when empty. */
static inline uint64_t
rsh_t_pop(struct rsh_t_fifo *f)
{
	uint64_t w;

	if (f->cnt == 0)
		return UINT64_MAX;
	w = f->w[f->head];
	f->head = (f->head + 1) % RSH_T_FIFO;
	f->cnt--;
	return w;
}

/* Hook: the two STS registers; other registers read 0. */
static inline bool
rsh_t_read64(struct rsh_t_mock *mk, uint32_t off, uint64_t *v)
{
	struct rsh_t_be *m = (struct rsh_t_be *)mk;

	if (m->sts_bad != 0 && (off == m->map.off[RSH_TM_HOST_TO_TILE_STS] ||
				off == m->map.off[RSH_TM_TILE_TO_HOST_STS])) {
		m->htt_sts_pass += off == m->map.off[RSH_TM_HOST_TO_TILE_STS];
		m->tth_sts_pass += off == m->map.off[RSH_TM_TILE_TO_HOST_STS];
		*v = m->sts_bad;
	} else if (off == m->map.off[RSH_TM_HOST_TO_TILE_STS]) {
		m->htt_sts_reads++;
		m->htt_sts_pass++;
		if (m->htt_sts_pass > 1)
			m->sts_violations++;
		m->htt_credit = m->htt.cnt >= 253 ? 0 : 253 - m->htt.cnt;
		*v = m->htt.cnt;
	} else if (off == m->map.off[RSH_TM_TILE_TO_HOST_STS]) {
		m->tth_sts_reads++;
		m->tth_sts_pass++;
		assert_true(m->tth_sts_pass <= 1);
		*v = m->tth.cnt;
	} else {
		*v = 0;
	}
	return true;
}

/* Hook: register writes are only counted (nothing else is expected). */
static inline bool
rsh_t_write64(struct rsh_t_mock *mk, uint32_t off, uint64_t v)
{
	RTE_SET_USED(mk);
	RTE_SET_USED(off);
	RTE_SET_USED(v);
	return true;
}

/* Hook, HTT burst: checks one STS read per burst and the 256-count-3
 * credit. */
static inline bool
rsh_t_write_fifo(struct rsh_t_mock *mk, uint32_t off, const uint64_t *w,
		 unsigned int n)
{
	struct rsh_t_be *m = (struct rsh_t_be *)mk;
	unsigned int i;

	assert_int_equal(off, m->map.off[RSH_TM_HOST_TO_TILE_DATA]);
	m->write_calls++;
	if (n > m->htt_credit)
		m->credit_violations++;
	assert_true(n <= m->htt_credit); /* on every call */
	assert_int_equal(m->htt_sts_pass, 1); /* checked in this very pass */
	m->htt_credit -= n;
	m->max_burst = RTE_MAX(m->max_burst, n);
	for (i = 0; i < n; i++)
		rsh_t_push(&m->htt, w[i]);
	return true;
}

/* Hook, TTH burst: one STS read per burst, never more than available. */
static inline bool
rsh_t_read_fifo(struct rsh_t_mock *mk, uint32_t off, uint64_t *w,
		unsigned int n)
{
	struct rsh_t_be *m = (struct rsh_t_be *)mk;
	unsigned int i;

	assert_int_equal(off, m->map.off[RSH_TM_TILE_TO_HOST_DATA]);
	m->read_calls++;
	assert_int_equal(m->tth_sts_pass, 1);
	assert_true(n <= m->tth.cnt);
	for (i = 0; i < n; i++)
		w[i] = rsh_t_pop(&m->tth);
	return true;
}

/* The TM FIFO model behind the mock's hooks. */
static const struct rsh_t_hooks rsh_t_tm_hooks = {
	.rd = rsh_t_read64,
	.wr = rsh_t_write64,
	.wfifo = rsh_t_write_fifo,
	.rfifo = rsh_t_read_fifo,
};

/* ARM side: pop up to n words from HTT into the log. */
static inline unsigned int
rsh_t_arm_drain(struct rsh_t_ctx *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && c->m.htt.cnt > 0; i++) {
		assert_true(c->m.log_n < RSH_T_LOG_MAX);
		c->m.log[c->m.log_n++] = rsh_t_pop(&c->m.htt);
	}
	return i;
}

/* ARM side: queue a message into TTH (header + padded payload). */
static inline void
rsh_t_arm_send(struct rsh_t_ctx *c, uint64_t hdr, const void *p, size_t len)
{
	uint64_t w[8192];
	size_t i, nw = (len + 7) / 8;

	rsh_tmfifo_pack(w, p, len);
	rsh_t_push(&c->m.tth, hdr);
	for (i = 0; i < nw; i++)
		rsh_t_push(&c->m.tth, w[i]);
}

/* Per-case setup: a fresh mock and device (no shared globals), on the
 * virtual clock. */
static inline int
rsh_t_setup(void **state)
{
	struct rsh_t_ctx *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return -1;
	rsh_clock_virtual_set(true);
	memset(&rsh_t_next, 0, sizeof(rsh_t_next));
	rsh_t_next.hooks = &rsh_t_tm_hooks;
	if (rsh_t_mock_init(&c->m.mk, "mock:bf3", RSH_GEN_BF3) != 0) {
		free(c);
		return -1;
	}
	c->m.map = c->m.mk.map;
	snprintf(c->dev.name, sizeof(c->dev.name), "mock:bf3");
	c->dev.be = &c->m.mk.be;
	c->dev.map = c->m.map;
	/* The service states, as rsh_dev_open allocates them (no inits:
	 * the mock device is neither checked nor owned). */
	if (rsh_dev_svc_alloc(&c->dev) != 0) {
		free(c->m.mk.regs);
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

/* Per-case teardown. */
static inline int
rsh_t_teardown(void **state)
{
	struct rsh_t_ctx *c = *state;

	rsh_tmfifo_detach(&c->dev);
	rsh_dev_svc_free(&c->dev);
	free(c->m.mk.regs);
	free(c);
	rsh_clock_virtual_set(false);
	return 0;
}

/* Attach with small rings, no sync fill unless asked. */
static inline void
rsh_t_attach(struct rsh_t_ctx *c, unsigned int ring, bool sync)
{
	struct rsh_tmfifo_opts o;

	rsh_tmfifo_opts_default(&o);
	o.ring_size = ring;
	o.pool_size = 1023;
	o.no_sync = !sync;
	assert_int_equal(rsh_tmfifo_attach(&c->dev, &o), 0);
}

/* One poll pass at the clock's now. */
static inline unsigned int
rsh_t_poll(struct rsh_t_ctx *c)
{
	uint64_t sleep_ns = 1000000;

	c->m.htt_sts_pass = 0;
	c->m.tth_sts_pass = 0;
	return rsh_tmfifo_poll(&c->dev, rsh_now(), &sleep_ns);
}

/* A net frame whose bytes identify it: byte i = id + i, byte 0..1 = id. */
static inline struct rte_mbuf *
rsh_t_frame(struct rsh_t_ctx *c, unsigned int id, unsigned int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rsh_tmfifo_pool(&c->dev));
	uint8_t *p;
	unsigned int i;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	assert_non_null(p);
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(id + i);
	return m;
}

#endif /* RSH_T_TMFIFO_MOCK_H */
