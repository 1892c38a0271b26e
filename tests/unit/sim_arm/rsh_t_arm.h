/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness of test_sim_arm.c: an emulated device opened through the
 * backend ops, the host side's TM FIFO sender and its TILE_TO_HOST
 * decoder, waits on the virtual clock, and predicates over what the DPU
 * sent. One test program includes it.
 */
#ifndef RSH_T_ARM_H
#define RSH_T_ARM_H

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_common.h>

#include "rsh_backend.h"
#include "rsh_bfb_fmt.h"
#include "rsh_regs.h"
#include "rsh_clock.h"
#include "rsh_sim.h"
#include "rsh_sim_peer.h"
#include "rsh_test_frames.h"
#include "rsh_test_time.h"
#include "rsh_tmfifo_proto.h"

#define RSH_T_MAX_MSGS 512
#define RSH_T_PEER_NS 90 /* namespace index of the --netns run */

static bool rsh_t_netns;

/* One decoded TILE_TO_HOST message. */
struct tmsg {
	uint64_t hdr;
	uint8_t type;
	uint16_t len;
	uint8_t data[2048];
};

/* An open device and the host side's decoder of its TILE_TO_HOST stream. */
struct rsh_t_arm {
	struct rsh_backend *be;
	struct rsh_regmap map;
	struct tmsg *m;        /* decoded messages */
	unsigned int n;
	struct tmsg cur;       /* message being collected */
	unsigned int cur_words, cur_got;
	bool in_msg;
	uint64_t words_seen;
	bool pad_ok;           /* every padding byte was zero */
};

static inline void
rsh_t_open(struct rsh_t_arm *t, const char *devstr)
{
	const struct rsh_backend_driver *drv = rsh_backend_find("sim");
	char s[256];

	memset(t, 0, sizeof(*t));
	t->pad_ok = true;
	snprintf(s, sizeof(s), "%s%s", devstr,
		 rsh_t_netns ? ",peer=90" : ",peer=none");
	assert_non_null(drv);
	assert_int_equal(drv->probe(s, NULL, &t->be), 0);
	assert_int_equal(rsh_regmap_init(&t->map, t->be->gen), 0);
	t->m = calloc(RSH_T_MAX_MSGS, sizeof(*t->m));
	assert_non_null(t->m);
}

static inline void
rsh_t_close(struct rsh_t_arm *t)
{
	t->be->ops->close(t->be);
	free(t->m);
}

static inline uint64_t
rsh_t_rd(struct rsh_t_arm *t, enum rsh_reg r)
{
	return t->be->ops->read64(t->be, t->map.off[r]);
}

static inline struct rsh_sim_arm_stats
rsh_t_astats(struct rsh_t_arm *t)
{
	struct rsh_sim_arm_stats st;

	assert_int_equal(rsh_sim_arm_stats_get(t->be, &st), 0);
	return st;
}

/* Host writes n words to HOST_TO_TILE (caller keeps within 253). */
static inline void
rsh_t_hsend(struct rsh_t_arm *t, const uint64_t *w, unsigned int n)
{
	t->be->ops->write_fifo(t->be, t->map.off[RSH_TM_HOST_TO_TILE_DATA], w, n);
}

/* Host sends one message: header (with checksum) + packed payload. */
static inline void
rsh_t_hsend_msg(struct rsh_t_arm *t, uint8_t type, const void *p, uint16_t len)
{
	uint64_t w[RSH_TM_FIFO_SIZE];

	w[0] = rsh_tmfifo_hdr_encode(type, len, NULL);
	rsh_tmfifo_pack(&w[1], p, len);
	rsh_t_hsend(t, w, rsh_tmfifo_msg_words(len));
}

/* Decode one TILE_TO_HOST word; unknown types with a length are drained
 * like the host demux does. */
static inline void
rsh_t_decode(struct rsh_t_arm *t, uint64_t w)
{
	struct tmsg *c = &t->cur;
	unsigned int i, k;

	t->words_seen++;
	if (!t->in_msg) {
		memset(c, 0, sizeof(*c));
		c->hdr = w;
		c->type = rsh_tmfifo_hdr_type(w);
		c->len = rsh_tmfifo_hdr_len(w);
		t->cur_words = (c->len + 7) / 8;
		t->cur_got = 0;
		t->in_msg = c->len > 0;
		if (!t->in_msg && t->n < RSH_T_MAX_MSGS)
			t->m[t->n++] = *c; /* control word */
		return;
	}
	k = t->cur_got * 8;
	for (i = 0; i < 8; i++) {
		if (k + i < c->len && k + i < sizeof(c->data))
			c->data[k + i] = (uint8_t)(w >> (8 * i));
		else if (k + i >= c->len && (uint8_t)(w >> (8 * i)) != 0)
			t->pad_ok = false;
	}
	if (++t->cur_got == t->cur_words) {
		t->in_msg = false;
		if (t->n < RSH_T_MAX_MSGS)
			t->m[t->n++] = *c;
	}
}

/* One host RX pass: read the count, pop that many words, decode. */
static inline unsigned int
rsh_t_hpoll(struct rsh_t_arm *t)
{
	uint64_t w[RSH_TM_FIFO_SIZE];
	unsigned int n = (unsigned int)(rsh_t_rd(t, RSH_TM_TILE_TO_HOST_STS) &
					RSH_TM_STS__COUNT_MASK);
	unsigned int i;

	assert_true(n <= RSH_TM_FIFO_SIZE - 1); /* the ARM never fills it */
	t->be->ops->read_fifo(t->be, t->map.off[RSH_TM_TILE_TO_HOST_DATA], w, n);
	for (i = 0; i < n; i++)
		rsh_t_decode(t, w[i]);
	return n;
}

/* One step of a wait: 50 us of clock time, and a real 50 us nap when a
 * namespace peer (a real TAP and shell) is on the other side. */
static inline void
rsh_t_step(void)
{
	if (rsh_t_netns)
		usleep(50);
	rsh_clock_advance_ns(50000);
}

/* Poll until pred(t) holds or ms of clock time pass; returns pred's last
 * value. */
static inline bool
rsh_t_hwait(struct rsh_t_arm *t, bool (*pred)(struct rsh_t_arm *, const void *),
      const void *arg, unsigned int ms)
{
	uint64_t end = rsh_now() + rsh_ms_cyc(ms);

	do {
		rsh_t_hpoll(t);
		if (pred(t, arg))
			return true;
		rsh_t_step();
	} while (rsh_now() < end);
	return pred(t, arg);
}

/* All console output received so far, as one string. */
static inline size_t
rsh_t_console(struct rsh_t_arm *t, char *out, size_t cap)
{
	size_t o = 0;
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (t->m[i].type != RSH_TMFIFO_TYPE_CONSOLE)
			continue;
		if (o + t->m[i].len >= cap)
			break;
		memcpy(out + o, t->m[i].data, t->m[i].len);
		o += t->m[i].len;
	}
	out[o] = '\0';
	return o;
}

static inline bool
rsh_t_pred_console_has(struct rsh_t_arm *t, const void *arg)
{
	static char s[65536];

	rsh_t_console(t, s, sizeof(s));
	return strstr(s, arg) != NULL;
}

/* arg appears in the console output other than right after "echo "
 * (the terminal's echo of the typed command line). */
static inline bool
rsh_t_pred_console_answer(struct rsh_t_arm *t, const void *arg)
{
	static char s[65536];
	const char *p = s;
	size_t n = rsh_t_console(t, s, sizeof(s));

	(void)n;
	while ((p = strstr(p, arg)) != NULL) {
		if (p - s < 5 || memcmp(p - 5, "echo ", 5) != 0)
			return true;
		p++;
	}
	return false;
}

/* Number of ARP replies from the DPU to us among the messages. */
static inline unsigned int
rsh_t_arp_replies(struct rsh_t_arm *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->n; i++) {
		const uint8_t *f = t->m[i].data;

		if (t->m[i].type == RSH_TMFIFO_TYPE_NET && t->m[i].len >= 42 &&
		    f[12] == 0x08 && f[13] == 0x06 && f[21] == 2 &&
		    memcmp(f, rsh_test_host_mac, 6) == 0 &&
		    memcmp(f + 22, rsh_test_peer_mac, 6) == 0 &&
		    memcmp(f + 28, rsh_test_peer_ip, 4) == 0)
			n++;
	}
	return n;
}

static inline bool
rsh_t_pred_arp_replies(struct rsh_t_arm *t, const void *arg)
{
	return rsh_t_arp_replies(t) >= *(const unsigned int *)arg;
}

/* Every header the ARM sent: known type, bytes 3-6 zero, checksum ok. */
static inline void
rsh_t_check_headers(struct rsh_t_arm *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		uint64_t h = t->m[i].hdr;

		if (t->m[i].len == 0)
			continue;
		assert_true(t->m[i].type == RSH_TMFIFO_TYPE_NET ||
			    t->m[i].type == RSH_TMFIFO_TYPE_CONSOLE);
		assert_int_equal((h >> 24) & 0xFFFFFFFFull, 0);
		assert_true(rsh_tmfifo_hdr_csum_ok(h));
	}
	assert_true(t->pad_ok);
	assert_false(t->in_msg);
}

#endif /* RSH_T_ARM_H */
