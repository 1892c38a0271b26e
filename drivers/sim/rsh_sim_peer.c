/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated DPU's Linux ends: network namespace + TAP, PTY shell, and
 * the built-in ARP/ICMP responder and line echo used where namespaces are
 * unavailable. See rsh_sim_peer.h for the cleanup strategy.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_backend.h"
#include "rsh_log.h"
#include "rsh_sim_peer.h"

#define RSH_SIM_PEER_MAX 16       /* live peers in one process */
#define RSH_SIM_PEER_QLEN 32      /* responder reply frames */
#define RSH_SIM_PEER_ECHO_BUF 16384
#define RSH_SIM_PEER_LINE_MAX 1024
#define RSH_SIM_NETNS_DIR "/run/netns"

/* Registry slot read by the signal-safe cleanup. */
struct rsh_sim_peer_slot {
	volatile sig_atomic_t used;
	pid_t pid;                 /* shell, 0 = none */
	char path[64];             /* bind mount, "" = none */
};

static struct rsh_sim_peer_slot rsh_sim_peer_reg[RSH_SIM_PEER_MAX];
static pthread_mutex_t rsh_sim_peer_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static bool rsh_sim_peer_atexit_done;

/* One frame of the responder's reply queue. */
struct rsh_sim_peer_frame {
	uint16_t len;
	uint8_t b[RSH_SIM_PEER_FRAME_MAX];
};

/* A peer. Used by one thread (the ARM model). */
struct rsh_sim_peer {
	char ns_name[32];
	unsigned int index;
	int lock_fd;      /* host-wide claim on ns_name, -1 */
	int slot;
	bool netns;
	int ns_fd;        /* keeps the namespace alive, -1 */
	int tap_fd;       /* -1 with the responder */
	int pty_fd;       /* -1 with the line echo */
	pid_t shell_pid;
	uint8_t mac[6];
	uint32_t ip;      /* network order */
	/* responder: reply frames */
	struct rsh_sim_peer_frame q[RSH_SIM_PEER_QLEN];
	unsigned int q_head, q_cnt;
	/* line echo: input line, output bytes */
	char line[RSH_SIM_PEER_LINE_MAX];
	size_t line_len;
	char out[RSH_SIM_PEER_ECHO_BUF];
	size_t out_head, out_cnt;
};

/* Async-signal-safe: kill every recorded shell, unmount every namespace. */
void
rsh_sim_peer_cleanup_signal(void)
{
	unsigned int i;

	for (i = 0; i < RSH_SIM_PEER_MAX; i++) {
		if (!rsh_sim_peer_reg[i].used)
			continue;
		if (rsh_sim_peer_reg[i].pid > 0)
			kill(-rsh_sim_peer_reg[i].pid, SIGKILL);
		if (rsh_sim_peer_reg[i].path[0] != '\0') {
			umount2(rsh_sim_peer_reg[i].path, MNT_DETACH);
			unlink(rsh_sim_peer_reg[i].path);
		}
		rsh_sim_peer_reg[i].used = 0;
	}
}

/* atexit() hook: the same cleanup for exit() paths. */
static void
rsh_sim_peer_atexit(void)
{
	rsh_sim_peer_cleanup_signal();
}

/* Take a registry slot; -1 when all are in use. */
static int
rsh_sim_peer_slot_get(void)
{
	int i, s = -1;

	pthread_mutex_lock(&rsh_sim_peer_reg_lock);
	if (!rsh_sim_peer_atexit_done)
		rsh_sim_peer_atexit_done = atexit(rsh_sim_peer_atexit) == 0;
	for (i = 0; i < RSH_SIM_PEER_MAX && s < 0; i++) {
		if (rsh_sim_peer_reg[i].used)
			continue;
		memset(&rsh_sim_peer_reg[i], 0, sizeof(rsh_sim_peer_reg[i]));
		rsh_sim_peer_reg[i].used = 1;
		s = i;
	}
	pthread_mutex_unlock(&rsh_sim_peer_reg_lock);
	return s;
}

/* Set interface flags up (and keep the others). */
static int
rsh_sim_peer_if_up(int sk, const char *ifname)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(sk, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	return ioctl(sk, SIOCSIFFLAGS, &ifr) < 0 ? -errno : 0;
}

/* One SIOCSIF* address-type ioctl with an IPv4 address. */
static int
rsh_sim_peer_if_addr(int sk, const char *ifname, unsigned long req,
		     uint32_t addr)
{
	struct sockaddr_in *sin;
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	sin = (struct sockaddr_in *)&ifr.ifr_addr;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = addr;
	return ioctl(sk, req, &ifr) < 0 ? -errno : 0;
}

/* MAC, MTU, address, netmask, up: the DPU's tmfifo_net0, §4.8. */
static int
rsh_sim_peer_tap_config(struct rsh_sim_peer *p, int sk)
{
	uint32_t mask = htonl(~0u << (32 - RSH_SIM_PEER_PREFIX));
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), RSH_SIM_PEER_IFNAME);
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, p->mac, 6);
	if (ioctl(sk, SIOCSIFHWADDR, &ifr) < 0)
		return -errno;
	ifr.ifr_mtu = RSH_SIM_PEER_MTU;
	if (ioctl(sk, SIOCSIFMTU, &ifr) < 0)
		return -errno;
	rc = rsh_sim_peer_if_addr(sk, RSH_SIM_PEER_IFNAME, SIOCSIFADDR, p->ip);
	if (rc == 0)
		rc = rsh_sim_peer_if_addr(sk, RSH_SIM_PEER_IFNAME,
					  SIOCSIFNETMASK, mask);
	if (rc == 0)
		rc = rsh_sim_peer_if_up(sk, RSH_SIM_PEER_IFNAME);
	if (rc == 0)
		rc = rsh_sim_peer_if_up(sk, "lo");
	return rc;
}

/* Open the TAP in the current (new) namespace and configure it. */
static int
rsh_sim_peer_tap_open(struct rsh_sim_peer *p)
{
	struct ifreq ifr;
	int sk, rc;

	p->tap_fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (p->tap_fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), RSH_SIM_PEER_IFNAME);
	if (ioctl(p->tap_fd, TUNSETIFF, &ifr) < 0)
		return -errno;
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0)
		return -errno;
	rc = rsh_sim_peer_tap_config(p, sk);
	close(sk);
	return rc;
}

/* Remove a bind-mounted namespace file (stale or ours). */
static void
rsh_sim_peer_ns_unlink(const char *path)
{
	umount2(path, MNT_DETACH);
	unlink(path);
}

/*
 * Name the namespace of the calling thread like `ip netns add` does: a
 * bind mount of its ns file on /run/netns/<name>. Not fatal on failure:
 * ns_fd keeps the namespace alive unnamed.
 */
static void
rsh_sim_peer_ns_name_it(struct rsh_sim_peer *p)
{
	struct rsh_sim_peer_slot *s = &rsh_sim_peer_reg[p->slot];
	char path[64];
	int fd;

	snprintf(path, sizeof(path), RSH_SIM_NETNS_DIR "/%s", p->ns_name);
	mkdir(RSH_SIM_NETNS_DIR, 0755);
	if (access(path, F_OK) == 0) {
		RSH_LOG(NOTICE, "removing stale network namespace %s", p->ns_name);
		rsh_sim_peer_ns_unlink(path);
	}
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0 || close(fd) != 0 ||
	    mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL) != 0) {
		RSH_LOG(NOTICE, "network namespace %s left unnamed: %s",
			p->ns_name, strerror(errno));
		if (fd >= 0)
			unlink(path);
		return;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
}

/* Helper thread: new netns, name it, TAP inside. Caller's ns untouched. */
static void *
rsh_sim_peer_ns_thread(void *arg)
{
	struct rsh_sim_peer *p = arg;
	intptr_t rc = 0;

	if (unshare(CLONE_NEWNET) != 0)
		return (void *)(intptr_t)-errno;
	p->ns_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (p->ns_fd < 0)
		return (void *)(intptr_t)-errno;
	rsh_sim_peer_ns_name_it(p);
	rc = rsh_sim_peer_tap_open(p);
	return (void *)rc;
}

/* Run the namespace helper thread; -errno of the first failing step. */
static int
rsh_sim_peer_ns_create(struct rsh_sim_peer *p)
{
	pthread_t th;
	void *ret;
	int rc;

	rc = pthread_create(&th, NULL, rsh_sim_peer_ns_thread, p);
	if (rc != 0)
		return -rc;
	pthread_join(th, &ret);
	return (int)(intptr_t)ret;
}

/* Child side of the shell fork: only async-signal-safe calls, then exec. */
static void
rsh_sim_peer_shell_child(const char *pts, int ns_fd, const char *shell)
{
	char *const argv[] = { (char *)shell, "-i", NULL };
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
			       "HOME=/root", "TERM=dumb", "PS1=dpu# ", NULL };
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	setsid();
	fd = open(pts, O_RDWR);
	if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0 ||
	    (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) != 0))
		_exit(127);
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	execve(shell, argv, envp);
	_exit(127);
}

/* A shell on a new PTY inside the namespace (setns before exec). */
static int
rsh_sim_peer_shell_start(struct rsh_sim_peer *p, const char *shell)
{
	char pts[64];
	pid_t pid;

	p->pty_fd = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (p->pty_fd < 0)
		return -errno;
	if (grantpt(p->pty_fd) != 0 || unlockpt(p->pty_fd) != 0 ||
	    ptsname_r(p->pty_fd, pts, sizeof(pts)) != 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		rsh_sim_peer_shell_child(pts, p->ns_fd, shell);
	p->shell_pid = pid;
	rsh_sim_peer_reg[p->slot].pid = pid;
	return 0;
}

/* Namespace, TAP and shell; nothing is left behind on failure. */
static int
rsh_sim_peer_kernel_ends(struct rsh_sim_peer *p, const struct rsh_sim_peer_opts *o)
{
	int rc = rsh_sim_peer_ns_create(p);

	if (rc != 0)
		return rc;
	p->netns = true;
	if (o->no_shell)
		return 0;
	rc = rsh_sim_peer_shell_start(p, o->shell != NULL ? o->shell : "/bin/sh");
	if (rc != 0)
		RSH_LOG(ERR, "%s: no shell on a pseudo-terminal: %s", p->ns_name,
			strerror(-rc));
	return rc;
}

/* Close every fd and stop the shell (keeps the registry slot). */
static void
rsh_sim_peer_release(struct rsh_sim_peer *p)
{
	struct rsh_sim_peer_slot *s = &rsh_sim_peer_reg[p->slot];

	if (p->shell_pid > 0) {
		kill(-p->shell_pid, SIGKILL);
		kill(p->shell_pid, SIGKILL);
		waitpid(p->shell_pid, NULL, 0);
		s->pid = 0;
		p->shell_pid = -1;
	}
	if (p->pty_fd >= 0)
		close(p->pty_fd);
	if (p->tap_fd >= 0)
		close(p->tap_fd);
	if (p->ns_fd >= 0)
		close(p->ns_fd);
	p->pty_fd = p->tap_fd = p->ns_fd = -1;
	if (s->path[0] != '\0') {
		rsh_sim_peer_ns_unlink(s->path);
		s->path[0] = '\0';
	}
	rsh_sim_nslock_release(p->lock_fd); /* after the name is gone */
	p->lock_fd = -1;
	p->netns = false;
}

/* The first index whose lock is free and whose name is not taken: an
 * automatic pick never removes anything, not even a leftover. */
static int
rsh_sim_peer_claim_auto(unsigned int *index)
{
	char path[64];
	unsigned int i;
	pid_t holder;
	int fd;

	for (i = 0; i < RSH_SIM_NS_INDEX_MAX; i++) {
		fd = rsh_sim_nslock_claim(i, &holder);
		if (fd == -EBUSY)
			continue;
		snprintf(path, sizeof(path), RSH_SIM_NETNS_DIR "/%s%u", rsh_sim_ns_prefix(), i);
		if (access(path, F_OK) == 0) {
			rsh_sim_nslock_release(fd);
			continue;
		}
		*index = i;
		return fd;
	}
	return -EBUSY;
}

/*
 * Claim the namespace name before touching /run/netns: only the holder
 * of rshim-sim<N>'s lock may name it or remove a leftover of it. -EBUSY
 * when another live instance holds an explicitly asked N.
 */
static int
rsh_sim_peer_claim(struct rsh_sim_peer *p, const struct rsh_sim_peer_opts *o)
{
	pid_t holder = 0;
	int fd;

	p->index = o->index;
	if (o->auto_index)
		fd = rsh_sim_peer_claim_auto(&p->index);
	else
		fd = rsh_sim_nslock_claim(o->index, &holder);
	snprintf(p->ns_name, sizeof(p->ns_name), "%s%u", rsh_sim_ns_prefix(), p->index);
	if (fd == -EBUSY) {
		rsh_err_set("network namespace %s is used by another live emulated DPU (pid %ld); choose another peer=<N>",
			    p->ns_name, (long)holder);
		return -EBUSY;
	}
	if (fd == -EPERM) {
		/* A lock directory or file that is not safe to use (logged):
		 * no namespace without its lock. */
		rsh_err_set("network namespace %s: its lock is not safe to use", p->ns_name);
		return -EPERM;
	}
	if (fd < 0)
		RSH_LOG(DEBUG, "%s: no lock file (%s)", p->ns_name,
			strerror(-fd));
	p->lock_fd = fd;
	return 0;
}

/* Create the peer ends, see rsh_sim_peer.h. */
int
rsh_sim_peer_create(const struct rsh_sim_peer_opts *o, struct rsh_sim_peer **out)
{
	static const uint8_t mac[6] = RSH_SIM_PEER_MAC;
	struct rsh_sim_peer *p = calloc(1, sizeof(*p));
	int rc = 0;

	if (p == NULL)
		return -ENOMEM;
	p->slot = rsh_sim_peer_slot_get();
	if (p->slot < 0) {
		free(p);
		return -ENOMEM;
	}
	snprintf(p->ns_name, sizeof(p->ns_name), "%s%u", rsh_sim_ns_prefix(), o->index);
	p->index = o->index;
	p->lock_fd = -1;
	p->ns_fd = p->tap_fd = p->pty_fd = -1;
	p->shell_pid = -1;
	memcpy(p->mac, mac, 6);
	inet_pton(AF_INET, RSH_SIM_PEER_IP, &p->ip);
	if (!o->no_netns)
		rc = rsh_sim_peer_claim(p, o);
	if (!o->no_netns && rc == 0)
		rc = rsh_sim_peer_kernel_ends(p, o);
	if (rc == -EPERM || rc == -EACCES) {
		RSH_LOG(NOTICE, "%s: no network namespace (%s): using the built-in "
			"ARP/ICMP responder for %s and a line-echo console",
			p->ns_name, strerror(-rc), RSH_SIM_PEER_IP);
		rsh_sim_peer_release(p);
		rc = 0;
	}
	if (rc != 0) {
		RSH_LOG(ERR, "%s: peer setup failed: %s", p->ns_name, strerror(-rc));
		rsh_sim_peer_destroy(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* Tear everything down, see rsh_sim_peer.h. */
void
rsh_sim_peer_destroy(struct rsh_sim_peer *p)
{
	if (p == NULL)
		return;
	rsh_sim_peer_release(p);
	rsh_sim_peer_reg[p->slot].used = 0;
	free(p);
}

/* Accessors. */
unsigned int
rsh_sim_peer_index(const struct rsh_sim_peer *p)
{
	return p->index;
}

bool
rsh_sim_peer_is_netns(const struct rsh_sim_peer *p)
{
	return p->netns;
}

bool
rsh_sim_peer_has_shell(const struct rsh_sim_peer *p)
{
	return p->pty_fd >= 0;
}

const char *
rsh_sim_peer_ns_name(const struct rsh_sim_peer *p)
{
	return p->ns_name;
}

int
rsh_sim_peer_net_fd(const struct rsh_sim_peer *p)
{
	return p->tap_fd;
}

int
rsh_sim_peer_con_fd(const struct rsh_sim_peer *p)
{
	return p->pty_fd;
}

pid_t
rsh_sim_peer_shell_pid(const struct rsh_sim_peer *p)
{
	return p->shell_pid;
}

/* Internet checksum (RFC 1071) over len bytes. */
static uint16_t
rsh_sim_peer_csum(const uint8_t *b, size_t len)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

/* Queue a reply frame built in f (len set). */
static void
rsh_sim_peer_q_push(struct rsh_sim_peer *p, const struct rsh_sim_peer_frame *f)
{
	if (p->q_cnt == RSH_SIM_PEER_QLEN)
		return; /* a lost reply, like a busy host would */
	p->q[(p->q_head + p->q_cnt++) % RSH_SIM_PEER_QLEN] = *f;
}

/* Responder: ARP request for our IP → ARP reply (RFC 826). */
static void
rsh_sim_peer_arp(struct rsh_sim_peer *p, const uint8_t *in, size_t len)
{
	static const uint8_t hdr[8] = { 0, 1, 8, 0, 6, 4, 0, 1 };
	struct rsh_sim_peer_frame f;
	uint8_t *a = f.b + 14;

	if (len < 42 || memcmp(in + 14, hdr, 8) != 0 ||
	    memcmp(in + 38, &p->ip, 4) != 0)
		return;
	memcpy(f.b, in + 6, 6);           /* to the requester */
	memcpy(f.b + 6, p->mac, 6);
	f.b[12] = 0x08;
	f.b[13] = 0x06;
	memcpy(a, hdr, 8);
	a[7] = 2;                         /* reply */
	memcpy(a + 8, p->mac, 6);         /* sender: us */
	memcpy(a + 14, &p->ip, 4);
	memcpy(a + 18, in + 22, 10);      /* target: requester's MAC + IP */
	memset(f.b + 42, 0, 18);          /* pad to the 60-byte minimum */
	f.len = 60;
	rsh_sim_peer_q_push(p, &f);
}

/* Responder: ICMP echo request to our IP → echo reply (RFC 792). */
static void
rsh_sim_peer_icmp(struct rsh_sim_peer *p, const uint8_t *in, size_t len)
{
	struct rsh_sim_peer_frame f;
	size_t ihl, tot;
	uint8_t *ip = f.b + 14, *ic;
	uint16_t c;

	if (len < 34 || (in[14] >> 4) != 4 || in[23] != 1 ||
	    memcmp(in + 30, &p->ip, 4) != 0)
		return;
	ihl = (size_t)(in[14] & 0xF) * 4;
	tot = (size_t)(in[16] << 8 | in[17]);
	if (ihl < 20 || tot < ihl + 8 || 14 + tot > len || in[14 + ihl] != 8)
		return;
	memcpy(f.b, in + 6, 6);
	memcpy(f.b + 6, p->mac, 6);
	memcpy(f.b + 12, in + 12, 2 + tot);
	memcpy(ip + 12, in + 30, 4);      /* swap addresses */
	memcpy(ip + 16, in + 26, 4);
	ip[8] = 64;                       /* TTL */
	ip[10] = ip[11] = 0;
	c = rsh_sim_peer_csum(ip, ihl);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	ic = ip + ihl;
	ic[0] = 0;                        /* echo reply */
	ic[2] = ic[3] = 0;
	c = rsh_sim_peer_csum(ic, tot - ihl);
	ic[2] = (uint8_t)(c >> 8);
	ic[3] = (uint8_t)c;
	f.len = (uint16_t)(14 + tot < 60 ? 60 : 14 + tot);
	memset(f.b + 14 + tot, 0, f.len - 14 - tot);
	rsh_sim_peer_q_push(p, &f);
}

/* Give the DPU one frame, see rsh_sim_peer.h. */
ssize_t
rsh_sim_peer_net_write(struct rsh_sim_peer *p, const void *frame, size_t len)
{
	const uint8_t *b = frame;
	ssize_t n;

	if (len > RSH_SIM_PEER_FRAME_MAX)
		return -EMSGSIZE;
	if (p->tap_fd >= 0) {
		n = write(p->tap_fd, frame, len);
		return n < 0 ? -errno : n;
	}
	if (len >= 14 && b[12] == 0x08 && b[13] == 0x06)
		rsh_sim_peer_arp(p, b, len);
	else if (len >= 14 && b[12] == 0x08 && b[13] == 0x00)
		rsh_sim_peer_icmp(p, b, len);
	return (ssize_t)len; /* anything else: accepted and ignored */
}

/* Take one frame from the DPU, see rsh_sim_peer.h. */
ssize_t
rsh_sim_peer_net_read(struct rsh_sim_peer *p, void *buf, size_t cap)
{
	struct rsh_sim_peer_frame *f;
	ssize_t n;

	if (p->tap_fd >= 0) {
		n = read(p->tap_fd, buf, cap);
		return n < 0 ? -errno : n;
	}
	if (p->q_cnt == 0)
		return -EAGAIN;
	f = &p->q[p->q_head];
	if (f->len > cap)
		return -EMSGSIZE;
	memcpy(buf, f->b, f->len);
	p->q_head = (p->q_head + 1) % RSH_SIM_PEER_QLEN;
	p->q_cnt--;
	return f->len;
}

/* Line echo: append output bytes (dropped beyond the buffer). */
static void
rsh_sim_peer_out(struct rsh_sim_peer *p, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && p->out_cnt < sizeof(p->out); i++)
		p->out[(p->out_head + p->out_cnt++) % sizeof(p->out)] = s[i];
}

/* Line echo: a finished line; "echo ARGS" answers ARGS, like a shell. */
static void
rsh_sim_peer_echo_line(struct rsh_sim_peer *p)
{
	const char *l = p->line;
	size_t n = p->line_len;

	if (n > 0 && l[n - 1] == '\r')
		n--;
	if (n >= 5 && memcmp(l, "echo ", 5) == 0) {
		l += 5;
		n -= 5;
	}
	rsh_sim_peer_out(p, l, n);
	rsh_sim_peer_out(p, "\r\n", 2);
	p->line_len = 0;
}

/* Console input, see rsh_sim_peer.h. */
ssize_t
rsh_sim_peer_con_write(struct rsh_sim_peer *p, const void *buf, size_t len)
{
	const char *s = buf;
	ssize_t n;
	size_t i;

	if (p->pty_fd >= 0) {
		n = write(p->pty_fd, buf, len);
		return n < 0 ? -errno : n;
	}
	for (i = 0; i < len; i++) {
		if (s[i] == '\n' || p->line_len == sizeof(p->line))
			rsh_sim_peer_echo_line(p);
		if (s[i] != '\n')
			p->line[p->line_len++] = s[i];
	}
	return (ssize_t)len;
}

/* Console output, see rsh_sim_peer.h. */
ssize_t
rsh_sim_peer_con_read(struct rsh_sim_peer *p, void *buf, size_t cap)
{
	char *d = buf;
	ssize_t n;
	size_t i;

	if (p->pty_fd >= 0) {
		n = read(p->pty_fd, buf, cap);
		/* EIO: the shell closed the slave (exited) */
		return n < 0 ? -errno : n;
	}
	if (p->out_cnt == 0)
		return -EAGAIN;
	for (i = 0; i < cap && p->out_cnt > 0; i++, p->out_cnt--) {
		d[i] = p->out[p->out_head];
		p->out_head = (p->out_head + 1) % sizeof(p->out);
	}
	return (ssize_t)i;
}
