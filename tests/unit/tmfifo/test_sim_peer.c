/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the emulated DPU's Linux ends (drivers/sim/rsh_sim_peer.c).
 * Default mode: the built-in ARP/ICMP responder and the line echo (no
 * privileges needed). "--netns": the namespace + TAP + PTY shell (root);
 * without root, or where namespaces are not permitted, exits 77 (skipped).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "rsh_sim_peer.h"
#include "rsh_test_frames.h"


/* Milliseconds of CLOCK_MONOTONIC. */
static uint64_t
rsh_t_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A valid ARP reply from the peer to us. */
static bool
rsh_t_is_arp_reply(const uint8_t *f, ssize_t n)
{
	return n >= 42 && f[12] == 0x08 && f[13] == 0x06 && f[21] == 2 &&
	       f[15] == 1 && f[16] == 0x08 && f[18] == 6 && f[19] == 4 &&
	       memcmp(f, rsh_test_host_mac, 6) == 0 &&
	       memcmp(f + 6, rsh_test_peer_mac, 6) == 0 &&
	       memcmp(f + 22, rsh_test_peer_mac, 6) == 0 &&
	       memcmp(f + 28, rsh_test_peer_ip, 4) == 0 &&
	       memcmp(f + 32, rsh_test_host_mac, 6) == 0 &&
	       memcmp(f + 38, rsh_test_host_ip, 4) == 0;
}

/* A valid echo reply to rsh_test_icmp_req(f, 74, seq). */
static bool
rsh_t_is_icmp_reply(const uint8_t *f, ssize_t n, uint16_t seq)
{
	const uint8_t *ip = f + 14, *ic = ip + 20;
	int i;

	if (n < 14 + 60 || f[12] != 0x08 || f[13] != 0 || ip[0] != 0x45 ||
	    ip[9] != 1 || memcmp(f, rsh_test_host_mac, 6) != 0 ||
	    memcmp(ip + 12, rsh_test_peer_ip, 4) != 0 ||
	    memcmp(ip + 16, rsh_test_host_ip, 4) != 0 || rsh_test_csum(ip, 20) != 0 ||
	    ic[0] != 0 || ic[4] != 0x12 || ic[5] != 0x34 || ic[7] != (uint8_t)seq ||
	    rsh_test_csum(ic, 40) != 0)
		return false;
	for (i = 0; i < 32; i++)
		if (ic[8 + i] != (uint8_t)(0xA0 + i))
			return false;
	return true;
}

/* Read frames until one matches (ARP reply, or ICMP reply seq) or 3 s. */
static bool
rsh_t_wait_frame(struct rsh_sim_peer *p, int want_icmp_seq)
{
	uint64_t end = rsh_t_ms() + 3000;
	struct pollfd pfd = { .fd = rsh_sim_peer_net_fd(p), .events = POLLIN };
	uint8_t f[2048];
	ssize_t n;

	while (rsh_t_ms() < end) {
		n = rsh_sim_peer_net_read(p, f, sizeof(f));
		if (n == -EAGAIN) {
			if (pfd.fd < 0)
				return false; /* responder: answers at once */
			poll(&pfd, 1, 20);
			continue;
		}
		assert_true(n > 0);
		if (want_icmp_seq < 0 ? rsh_t_is_arp_reply(f, n) :
		    rsh_t_is_icmp_reply(f, n, (uint16_t)want_icmp_seq))
			return true;
	}
	return false;
}

/* s starts a line of output: at a line start or right after the prompt
 * (the shell may print its prompt after the echo of early input). */
static bool
rsh_t_line_start(const char *buf, const char *s)
{
	return s == buf || s[-1] == '\n' ||
	       (s - buf >= 5 && memcmp(s - 5, "dpu# ", 5) == 0);
}

/* Console output until a line that is exactly text (not "echo text"). */
static bool
rsh_t_wait_line(struct rsh_sim_peer *p, const char *text)
{
	uint64_t end = rsh_t_ms() + 5000;
	struct pollfd pfd = { .fd = rsh_sim_peer_con_fd(p), .events = POLLIN };
	static char buf[65536];
	size_t len = 0, tl = strlen(text);
	ssize_t n;
	char *s;

	while (rsh_t_ms() < end && len < sizeof(buf) - 1) {
		n = rsh_sim_peer_con_read(p, buf + len, sizeof(buf) - 1 - len);
		if (n < 0) {
			if (n != -EAGAIN || pfd.fd < 0)
				return false;
			poll(&pfd, 1, 20);
			continue;
		}
		len += (size_t)n;
		buf[len] = '\0';
		for (s = strstr(buf, text); s != NULL; s = strstr(s + 1, text))
			if (rsh_t_line_start(buf, s) &&
			    (s[tl] == '\r' || s[tl] == '\n'))
				return true;
	}
	fprintf(stderr, "console output (%zu bytes): [%s]\n", len, buf);
	return false;
}

/* ARP, ICMP and a console command against whatever ends p has. */
static void
rsh_t_exercise(struct rsh_sim_peer *p)
{
	static const char cmd[] = "echo marker-123\n";
	uint8_t f[2048];
	size_t n;

	n = rsh_test_arp_req(f);
	assert_int_equal(rsh_sim_peer_net_write(p, f, n), (ssize_t)n);
	assert_true(rsh_t_wait_frame(p, -1));
	n = rsh_test_icmp_req(f, 14 + 60, 7);
	assert_int_equal(rsh_sim_peer_net_write(p, f, n), (ssize_t)n);
	assert_true(rsh_t_wait_frame(p, 7));
	assert_int_equal(rsh_sim_peer_net_write(p, f, 1600), -EMSGSIZE);
	assert_int_equal(rsh_sim_peer_con_write(p, cmd, sizeof(cmd) - 1),
			 (ssize_t)sizeof(cmd) - 1);
	assert_true(rsh_t_wait_line(p, "marker-123"));
}

/* True when the named network namespace exists (its /run/netns entry:
 * `ip netns list` output is partial while other processes of the host
 * add and delete namespaces). */
static bool
rsh_t_netns_listed(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	return access(path, F_OK) == 0;
}

/* True when pid is gone or a zombie. */
static bool
rsh_t_pid_dead(pid_t pid)
{
	char path[64], st[256];
	FILE *f;
	bool dead = true;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return true;
	if (fgets(st, sizeof(st), f) != NULL && strstr(st, ") Z") == NULL)
		dead = false;
	fclose(f);
	return dead;
}

/* Responder + line echo work without privileges. */
static void
test_responder(void **state)
{
	struct rsh_sim_peer_opts o = { .index = 900, .no_netns = true };
	struct rsh_sim_peer *p;
	char name[48];
	uint8_t f[128];
	size_t n;

	(void)state;
	assert_int_equal(rsh_sim_peer_create(&o, &p), 0);
	assert_false(rsh_sim_peer_is_netns(p));
	assert_false(rsh_sim_peer_has_shell(p));
	assert_int_equal(rsh_sim_peer_net_fd(p), -1);
	snprintf(name, sizeof(name), "%s900", rsh_sim_ns_prefix());
	assert_string_equal(rsh_sim_peer_ns_name(p), name);
	rsh_t_exercise(p);
	/* an ARP request for another address gets no answer */
	n = rsh_test_arp_req(f);
	f[41] = 3;
	assert_int_equal(rsh_sim_peer_net_write(p, f, n), (ssize_t)n);
	assert_int_equal(rsh_sim_peer_net_read(p, f, sizeof(f)), -EAGAIN);
	rsh_sim_peer_destroy(p);
	if (geteuid() == 0)
		return;
	/* without privileges the default falls back (with a notice) */
	o.no_netns = false;
	assert_int_equal(rsh_sim_peer_create(&o, &p), 0);
	assert_false(rsh_sim_peer_is_netns(p));
	rsh_t_exercise(p);
	rsh_sim_peer_destroy(p);
}

/* Namespace + TAP + shell: the kernel answers; teardown removes it all. */
static void
test_netns(void **state)
{
	struct rsh_sim_peer_opts o = { .index = 900 };
	static const char cmd[] = "grep -c tmfifo_net0 /proc/net/dev\n";
	struct rsh_sim_peer *p;
	char name[32];
	pid_t sh;

	(void)state;
	assert_int_equal(rsh_sim_peer_create(&o, &p), 0);
	if (!rsh_sim_peer_is_netns(p)) {
		rsh_sim_peer_destroy(p);
		skip();
	}
	snprintf(name, sizeof(name), "%s", rsh_sim_peer_ns_name(p));
	assert_true(rsh_t_netns_listed(name));
	assert_true(rsh_sim_peer_has_shell(p));
	assert_true(rsh_sim_peer_net_fd(p) >= 0);
	sh = rsh_sim_peer_shell_pid(p);
	rsh_t_exercise(p);
	/* the shell runs inside the namespace: it sees tmfifo_net0 */
	assert_int_equal(rsh_sim_peer_con_write(p, cmd, sizeof(cmd) - 1),
			 (ssize_t)sizeof(cmd) - 1);
	assert_true(rsh_t_wait_line(p, "1"));
	rsh_sim_peer_destroy(p);
	assert_false(rsh_t_netns_listed(name));
	assert_true(rsh_t_pid_dead(sh));
}

/* SIGTERM path: a handler calling the signal-safe cleanup leaves nothing. */
static void
rsh_t_on_term(int sig)
{
	(void)sig;
	rsh_sim_peer_cleanup_signal();
	_exit(0);
}

static void
test_netns_signal_cleanup(void **state)
{
	struct rsh_sim_peer_opts o = { .index = 990 };
	struct rsh_sim_peer *p;
	int fds[2], st;
	pid_t child, sh = -1;
	char name[32];

	(void)state;
	snprintf(name, sizeof(name), "%s%u", rsh_sim_ns_prefix(), o.index);
	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		signal(SIGTERM, rsh_t_on_term);
		if (rsh_sim_peer_create(&o, &p) != 0 || !rsh_sim_peer_is_netns(p))
			_exit(3);
		sh = rsh_sim_peer_shell_pid(p);
		if (write(fds[1], &sh, sizeof(sh)) != sizeof(sh))
			_exit(4);
		raise(SIGTERM);
		_exit(5);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &sh, sizeof(sh)), sizeof(sh));
	close(fds[0]);
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_false(rsh_t_netns_listed(name));
	/* The shell got its signal; it dies when the scheduler lets it. */
	for (int i = 0; i < 1000 && !rsh_t_pid_dead(sh); i++)
		usleep(10000);
	assert_true(rsh_t_pid_dead(sh));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(test_responder),
	};
	const struct CMUnitTest netns[] = {
		cmocka_unit_test(test_netns),
		cmocka_unit_test(test_netns_signal_cleanup),
	};
	struct rsh_sim_peer_opts o = { .index = 899, .no_shell = true };
	struct rsh_sim_peer *p;
	char prefix[24];
	bool ok;

	/* This run's own namespace names: nothing else on the host meets them. */
	snprintf(prefix, sizeof(prefix), "rsht%d-", (int)getpid());
	setenv("RSHIM_SIM_NETNS_PREFIX", prefix, 1);
	if (argc < 2 || strcmp(argv[1], "--netns") != 0)
		return cmocka_run_group_tests(plain, NULL, NULL);
	if (geteuid() != 0) {
		printf("skipped: namespace tests need root\n");
		return 77;
	}
	if (rsh_sim_peer_create(&o, &p) != 0)
		return 77;
	ok = rsh_sim_peer_is_netns(p);
	rsh_sim_peer_destroy(p);
	if (!ok) {
		printf("skipped: network namespaces not permitted here\n");
		return 77;
	}
	return cmocka_run_group_tests(netns, NULL, NULL);
}
