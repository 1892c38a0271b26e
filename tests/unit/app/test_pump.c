/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host end's pump (app/common/rsh_pump.c), the loop both programs
 * own: console bytes both ways between a socketpair endpoint and an
 * emulated BlueField-3 whose ARM side echoes lines
 * (sim:bf3,booted=1,peer=none) under a running poller, with each wait
 * policy; a pass's bound on DPU console bytes; the owner's wake-up
 * through its eventfd (read only after a wait saw it set, never lost);
 * the policies' timeouts
 * (the service's: idle or retry, never a syscall after work; the app's:
 * spin, back off 10 us doubling, 50 us while alert, the idle timeout once
 * every source has a descriptor).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "rsh.h"
#include "rsh_mono.h"
#include "rsh_pump.h"
#include "rsh_test_eal.h"

#define T_MS 1000000ull

/* The test's console end: the pump's half of a socketpair. */
struct t_end {
	int fd;
	size_t out_calls;
};

static int
t_input(void *ctx, uint8_t *buf, size_t cap, size_t *len)
{
	struct t_end *e = ctx;
	ssize_t n = read(e->fd, buf, cap);

	if (n == 0)
		return -1;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	*len = (size_t)n;
	return 1;
}

static size_t
t_output(void *ctx, const uint8_t *p, size_t n)
{
	struct t_end *e = ctx;
	ssize_t w = write(e->fd, p, n);

	e->out_calls++;
	return w > 0 ? (size_t)w : 0;
}

static const struct rsh_pump_cons_ops t_ops = {
	.input = t_input,
	.output = t_output,
};

/* An emulated BlueField-3 with its console channel, under a poller. */
struct t_dev {
	struct rsh_dev *dev;
	struct rsh_poller *p;
};

static void
t_dev_open(struct t_dev *t)
{
	struct rsh_tmfifo_opts o;
	struct rsh_poll_opts po;

	assert_int_equal(rsh_dev_open("sim:bf3,booted=1,peer=none", NULL, &t->dev), 0);
	rsh_poll_opts_default(&po);
	assert_int_equal(rsh_poller_create(&po, &t->p), 0);
	assert_int_equal(rsh_poller_add(t->p, t->dev), 0);
	assert_int_equal(rsh_poller_start(t->p), 0);
	rsh_tmfifo_opts_default(&o);
	o.console = true;
	o.net = false;
	assert_int_equal(rsh_tmfifo_attach(t->dev, &o), 0);
}

static void
t_dev_close(struct t_dev *t)
{
	rsh_tmfifo_detach(t->dev);
	rsh_poller_stop(t->p);
	assert_int_equal(rsh_poller_remove(t->p, t->dev), 0);
	rsh_poller_destroy(t->p);
	rsh_dev_close(t->dev);
}

/* What the test's half has read so far. */
struct t_seen {
	char buf[65536];
	size_t len;
};

static void
t_collect(int fd, struct t_seen *s)
{
	ssize_t n;

	while (s->len + 1 < sizeof(s->buf) &&
	       (n = read(fd, s->buf + s->len, sizeof(s->buf) - 1 - s->len)) > 0)
		s->len += (size_t)n;
	s->buf[s->len] = '\0';
}

/* tag is in what was read other than right after "echo " (the echo of
 * the typed line). */
static bool
t_answered(const struct t_seen *s, const char *tag)
{
	const char *p = s->buf;

	while ((p = strstr(p, tag)) != NULL) {
		if (p - s->buf < 5 || memcmp(p - 5, "echo ", 5) != 0)
			return true;
		p++;
	}
	return false;
}

/* Run the pump until tag shows on the test's half, or 10 s. */
static bool
t_pump_until(struct rsh_pump *p, int fd, struct t_seen *s, const char *tag,
	     bool answer)
{
	uint64_t end = rsh_mono_ns() + 10000 * T_MS;

	do {
		rsh_pump_run_once(p);
		t_collect(fd, s);
		if (answer ? t_answered(s, tag) : strstr(s->buf, tag) != NULL)
			return true;
	} while (rsh_mono_ns() < end);
	return false;
}

/* A line typed on the socketpair reaches the DPU and its answer comes
 * back, through a pump with the given policy; every byte counted. */
static void
t_round_trip(const struct rsh_pump_policy *pol)
{
	const char *in = "echo pump-4711\n";
	static struct t_seen seen;
	struct rsh_pump_ep ep;
	struct rsh_pump p;
	struct t_end end;
	struct t_dev t;
	uint64_t t0;
	int sv[2];

	memset(&seen, 0, sizeof(seen));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	end.fd = sv[0];
	end.out_calls = 0;
	t_dev_open(&t);
	assert_int_equal(rsh_pump_init(&p, pol), 0);
	rsh_pump_cons_init(&ep, t.dev, sv[0], sv[0], &t_ops, &end);
	assert_true(ep.in_nb);
	assert_int_equal(rsh_pump_add(&p, &ep), 0);
	assert_int_equal(rsh_pump_add(&p, &ep), -EEXIST);
	assert_true(t_pump_until(&p, sv[1], &seen,
				 "rshim-pmd emulated BlueField-3 (sim:bf3)", false));
	assert_int_equal(write(sv[1], in, strlen(in)), (ssize_t)strlen(in));
	t0 = rsh_mono_ns();
	if (!t_pump_until(&p, sv[1], &seen, "pump-4711\r", true)) {
		print_error("console so far: '%s'\n", seen.buf);
		fail();
	}
	/* Well within the 10 s idle timeout: the socket and the channel's
	 * eventfd woke the pump, not the timeout. */
	assert_true(rsh_mono_ns() - t0 < 5000 * T_MS);
	/* host → DPU: all of it taken by the channel, nothing held */
	assert_int_equal(ep.to_dpu, strlen(in));
	assert_int_equal(ep.tx_len, 0);
	/* nobody kicked: no pass read the wake eventfd */
	assert_int_equal(p.wake_reads, 0);
	/* DPU → host: read from the channel = delivered, nothing dropped */
	assert_true(ep.from_dpu > 0);
	assert_int_equal(ep.out_dropped, 0);
	assert_int_equal(ep.from_dpu, seen.len);
	assert_true(end.out_calls > 0);
	rsh_pump_remove(&p, &ep);
	assert_false(ep.added);
	assert_int_equal(p.n_ep, 0);
	rsh_pump_fini(&p);
	t_dev_close(&t);
	close(sv[0]);
	close(sv[1]);
}

/* The service's policy: sleep on descriptors only. The idle timeout is
 * 10 s, so the round trip in time shows the wake-ups came from the
 * socket and the channel's eventfd. */
static void
test_both_ways_fd(void **state)
{
	struct rsh_pump_policy pol = {
		.wait = RSH_PUMP_WAIT_FD, .idle_ns = 10000 * T_MS, .retry_ns = T_MS,
	};

	(void)state;
	t_round_trip(&pol);
}

/* The app's policy: spin while data moves, then back off. */
static void
test_both_ways_adaptive(void **state)
{
	struct rsh_pump_policy pol = {
		.wait = RSH_PUMP_WAIT_ADAPTIVE, .idle_ns = 10000 * T_MS,
		.ceiling_ns = 10 * T_MS,
	};

	(void)state;
	t_round_trip(&pol);
}

/* A host end that refuses output: the bytes are counted as dropped. */
static size_t
t_output_refuse(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	(void)p;
	return n / 2;
}

static void
test_output_dropped_counted(void **state)
{
	static const struct rsh_pump_cons_ops ops = {
		.input = t_input, .output = t_output_refuse,
	};
	struct rsh_pump_policy pol = {
		.wait = RSH_PUMP_WAIT_FD, .idle_ns = 10 * T_MS, .retry_ns = T_MS,
	};
	uint64_t end_ns = rsh_mono_ns() + 10000 * T_MS;
	struct rsh_pump_ep ep;
	struct rsh_pump p;
	struct t_end end;
	struct t_dev t;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	end.fd = sv[0];
	t_dev_open(&t);
	assert_int_equal(rsh_pump_init(&p, &pol), 0);
	rsh_pump_cons_init(&ep, t.dev, sv[0], sv[0], &ops, &end);
	assert_int_equal(rsh_pump_add(&p, &ep), 0);
	while (ep.from_dpu == 0 && rsh_mono_ns() < end_ns)
		rsh_pump_run_once(&p); /* the banner */
	assert_true(ep.from_dpu > 0);
	assert_true(ep.out_dropped > 0);
	assert_true(ep.out_dropped < ep.from_dpu);
	rsh_pump_fini(&p);
	t_dev_close(&t);
	close(sv[0]);
	close(sv[1]);
}

/*
 * A chatty DPU: with more than a pass's budget queued, a pass gives the
 * output hook one read of RSH_PUMP_CONS_PASS bytes, then takes the key
 * waiting on the host side, and the wait does not sleep while the rest
 * is queued; the rest arrives pass by pass, each within the budget.
 */
static void
test_console_pass_budget(void **state)
{
	struct rsh_pump_policy pol = {
		.wait = RSH_PUMP_WAIT_FD, .idle_ns = 10000 * T_MS, .retry_ns = T_MS,
	};
	const size_t expect = 12 * (900 + 2); /* each line echoed with \r\n */
	uint64_t end_ns, base, from0, to0, n0;
	struct rsh_tmfifo_chan_stats st;
	static struct t_seen seen;
	unsigned int i, work, passes = 0;
	struct rsh_pump_ep ep;
	struct rsh_pump p;
	struct t_end end;
	struct t_dev t;
	char line[901];
	size_t calls;
	int sv[2];

	(void)state;
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	end.fd = sv[0];
	end.out_calls = 0;
	t_dev_open(&t);
	assert_int_equal(rsh_pump_init(&p, &pol), 0);
	rsh_pump_cons_init(&ep, t.dev, sv[0], sv[0], &t_ops, &end);
	assert_int_equal(rsh_pump_add(&p, &ep), 0);
	assert_true(t_pump_until(&p, sv[1], &seen, "(no shell)\r\n", false));
	/* 12 lines of 900 bytes into the line echo, not through the pump;
	 * wait until their echo is queued for the host */
	assert_int_equal(rsh_tmfifo_get_stats(t.dev, RSH_TMFIFO_CONSOLE, &st, NULL), 0);
	base = st.rx_bytes;
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	for (i = 0; i < 12; i++)
		assert_int_equal(rsh_tmfifo_console_write(t.dev, line, sizeof(line)),
				 sizeof(line));
	end_ns = rsh_mono_ns() + 10000 * T_MS;
	while (st.rx_bytes - base < expect && rsh_mono_ns() < end_ns) {
		usleep(1000);
		assert_int_equal(rsh_tmfifo_get_stats(t.dev, RSH_TMFIFO_CONSOLE, &st, NULL), 0);
	}
	assert_int_equal(st.rx_bytes - base, expect);
	assert_true(expect > 2 * RSH_PUMP_CONS_PASS);
	/* a key typed meanwhile */
	assert_int_equal(write(sv[1], "k", 1), 1);
	from0 = ep.from_dpu;
	to0 = ep.to_dpu;
	calls = end.out_calls;
	work = rsh_pump_work(&p);
	assert_true(work > 0);
	assert_int_equal(ep.from_dpu - from0, RSH_PUMP_CONS_PASS);
	assert_int_equal(end.out_calls - calls, 1);
	assert_int_equal(ep.to_dpu - to0, 1);
	assert_false(rsh_pump_prepare(&p, work)); /* the rest waits: no sleep */
	while (ep.from_dpu - from0 < expect && passes < 100) {
		n0 = ep.from_dpu;
		calls = end.out_calls;
		work = rsh_pump_work(&p);
		assert_true(ep.from_dpu - n0 <= RSH_PUMP_CONS_PASS);
		assert_true(end.out_calls - calls <= 1);
		assert_false(rsh_pump_prepare(&p, work) && ep.from_dpu - from0 < expect);
		passes++;
	}
	assert_int_equal(ep.from_dpu - from0, expect);
	assert_true(passes >= 2);
	assert_int_equal(ep.out_dropped, 0);
	rsh_pump_fini(&p);
	t_dev_close(&t);
	close(sv[0]);
	close(sv[1]);
}

/* The owner's wake-up from another thread ends a 10 s sleep. */
static void *
t_kicker(void *arg)
{
	usleep(50000);
	rsh_pump_kick(arg);
	return NULL;
}

/* The eventfd is set (a zero-timeout look). */
static bool
t_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN) != 0;
}

static void
t_wake(enum rsh_pump_wait wait)
{
	struct rsh_pump_policy pol = {
		.wait = wait, .idle_ns = 10000 * T_MS, .retry_ns = T_MS,
		.ceiling_ns = 10000 * T_MS,
	};
	struct rsh_pump p;
	pthread_t th;
	uint64_t t0, dt;

	assert_int_equal(rsh_pump_init(&p, &pol), 0);
	/* A kick no wait saw: the pass makes no system call for it (the
	 * eventfd stays set)... */
	rsh_pump_kick(&p);
	assert_int_equal(rsh_pump_work(&p), 0);
	assert_int_equal(p.wake_reads, 0);
	assert_true(t_readable(p.wake_fd));
	/* ...and is not lost: the next wait ends at once, the pass after
	 * it clears the eventfd */
	p.idle_since = 0; /* the adaptive policy past its spin and alert */
	p.backoff_ns = 5000 * T_MS;
	assert_true(rsh_pump_prepare(&p, 0));
	assert_int_equal(p.timeout_ns, 10000 * T_MS);
	assert_int_equal(p.npfd, 1);
	t0 = rsh_mono_ns();
	assert_int_equal(rsh_pump_sleep(&p), 1);
	assert_true(rsh_mono_ns() - t0 < 5000 * T_MS);
	assert_int_equal(rsh_pump_work(&p), 0);
	assert_int_equal(p.wake_reads, 1);
	assert_false(t_readable(p.wake_fd));
	/* the stale kick cleared: this wait sleeps until the thread's kick */
	assert_true(rsh_pump_prepare(&p, 0));
	assert_int_equal(p.timeout_ns, 10000 * T_MS);
	assert_int_equal(pthread_create(&th, NULL, t_kicker, &p), 0);
	t0 = rsh_mono_ns();
	assert_int_equal(rsh_pump_sleep(&p), 1);
	dt = rsh_mono_ns() - t0;
	pthread_join(th, NULL);
	assert_true(p.pfd[0].fd == p.wake_fd && (p.pfd[0].revents & POLLIN));
	assert_true(dt >= 40 * T_MS);
	assert_true(dt < 5000 * T_MS);
	/* the next pass clears it: a new wait sleeps again (its timeout) */
	assert_int_equal(rsh_pump_work(&p), 0);
	assert_int_equal(p.wake_reads, 2);
	p.pol.idle_ns = p.pol.ceiling_ns = T_MS;
	p.backoff_ns = T_MS;
	assert_true(rsh_pump_prepare(&p, 0));
	assert_int_equal(rsh_pump_sleep(&p), 0);
	rsh_pump_fini(&p);
	assert_int_equal(p.wake_fd, -1);
}

static void
test_wake_fd(void **state)
{
	(void)state;
	t_wake(RSH_PUMP_WAIT_FD);
}

static void
test_wake_adaptive(void **state)
{
	(void)state;
	t_wake(RSH_PUMP_WAIT_ADAPTIVE);
}

/* The service's policy: no system call after work; idle timeout, or the
 * retry timeout while bytes wait for room in a channel. */
static void
test_policy_fd(void **state)
{
	struct rsh_pump_policy pol = {
		.wait = RSH_PUMP_WAIT_FD, .idle_ns = 1000 * T_MS, .retry_ns = T_MS,
	};
	struct t_end end = { .fd = -1 };
	struct rsh_pump_ep ep;
	struct rsh_dev *dev;
	struct rsh_pump p;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	assert_int_equal(rsh_pump_init(&p, &pol), 0);
	/* channels not attached: no channel eventfd, the host fds only */
	assert_int_equal(rsh_dev_open("sim:bf3", NULL, &dev), 0);
	rsh_pump_cons_init(&ep, dev, sv[0], sv[0], &t_ops, &end);
	assert_int_equal(rsh_pump_add(&p, &ep), 0);
	assert_false(rsh_pump_prepare(&p, 3));
	assert_int_equal(p.npfd, 0);
	assert_true(rsh_pump_prepare(&p, 0));
	assert_int_equal(p.timeout_ns, 1000 * T_MS);
	assert_false(p.held);
	assert_int_equal(p.npfd, 2); /* the socket, the wake eventfd */
	ep.tx_len = 5;               /* typed bytes the channel has no room for */
	assert_true(rsh_pump_prepare(&p, 0));
	assert_true(p.held);
	assert_int_equal(p.timeout_ns, T_MS);
	assert_int_equal(p.npfd, 1); /* no input read while bytes are held */
	rsh_pump_fini(&p);
	rsh_dev_close(dev);
	close(sv[0]);
	close(sv[1]);
}

/* The app's policy: spin 200 us after work, then 10 us doubling, at most
 * 50 us for 5 ms after work, then up to the ceiling; the idle timeout
 * once every source has a descriptor. */
static void
test_policy_adaptive(void **state)
{
	struct rsh_pump_policy pol = {
		.wait = RSH_PUMP_WAIT_ADAPTIVE, .idle_ns = 100 * T_MS,
		.ceiling_ns = 200000,
	};
	static const uint64_t alert[] = { 10000, 20000, 40000, 50000, 50000 };
	struct rsh_pump p;
	unsigned int i;

	(void)state;
	assert_int_equal(rsh_pump_init(&p, &pol), 0);
	p.fdless = true;             /* a source without a descriptor */
	assert_false(rsh_pump_prepare(&p, 1)); /* spinning, nothing to look at */
	assert_int_equal(p.timeout_ns, 0);
	assert_int_equal(p.npfd, 0);
	for (i = 0; i < RTE_DIM(alert); i++) {
		/* past the spin, within the alert window */
		p.idle_since = rsh_mono_ns() - 300000;
		assert_true(rsh_pump_prepare(&p, 0));
		assert_int_equal(p.timeout_ns, alert[i]);
	}
	p.idle_since = rsh_mono_ns() - 10 * T_MS; /* past the alert window */
	assert_true(rsh_pump_prepare(&p, 0));
	assert_int_equal(p.timeout_ns, 100000);
	assert_true(rsh_pump_prepare(&p, 0));
	assert_int_equal(p.timeout_ns, 200000); /* the ceiling */
	assert_true(rsh_pump_prepare(&p, 0));
	assert_int_equal(p.timeout_ns, 200000);
	p.fdless = false;            /* every source has a descriptor */
	assert_true(rsh_pump_prepare(&p, 0));
	assert_int_equal(p.timeout_ns, 100 * T_MS);
	assert_false(rsh_pump_prepare(&p, 1)); /* work: spin again */
	assert_int_equal(p.backoff_ns, 0);
	rsh_pump_fini(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_fd),
		cmocka_unit_test(test_policy_adaptive),
		cmocka_unit_test(test_wake_fd),
		cmocka_unit_test(test_wake_adaptive),
		cmocka_unit_test(test_both_ways_fd),
		cmocka_unit_test(test_both_ways_adaptive),
		cmocka_unit_test(test_output_dropped_counted),
		cmocka_unit_test(test_console_pass_budget),
	};

	return cmocka_run_group_tests(tests, rsh_test_eal_setup,
				      rsh_test_eal_teardown);
}
