/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated DPU's Linux ends of the TM FIFO channels,
 * used by the ARM-side model (rsh_sim_arm.c):
 *
 * - network end: a TAP device "tmfifo_net0" (MAC 00:1A:CA:FF:FF:01,
 *   192.168.100.2/24, MTU 1500) inside a network namespace rshim-sim<N>,
 *   so a real Linux stack answers ARP, ICMP, TCP; where no namespace can be
 *   created (not root, EPERM) a built-in ARP + ICMP echo responder for
 *   192.168.100.2 behind the same read/write-frame calls, with a notice;
 * - console end: /bin/sh -i on a pseudo-terminal inside that namespace, or
 *   a line echo where that is impossible;
 * - teardown that removes the namespace, the TAP and the shell.
 *
 * Cleanup strategy: every live peer is recorded in a fixed-size static
 * registry. rsh_sim_peer_cleanup_signal() walks it using only
 * async-signal-safe calls (kill, umount2, unlink), so an app's
 * SIGINT/SIGTERM handler may call it before _exit()/re-raising; the first
 * create also registers it with atexit() for exit() paths. The shell gets
 * PR_SET_PDEATHSIG(SIGKILL) so it dies with the thread that created the
 * peer, and a namespace left mounted by a SIGKILLed run is removed by the
 * next create of the same index (with a notice). The TAP device is not
 * persistent: it goes away with its namespace.
 *
 * Threads: one peer is used by one thread at a time (the ARM model), except
 * rsh_sim_peer_cleanup_signal().
 */
#ifndef RSH_SIM_PEER_H
#define RSH_SIM_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rsh_tmfifo_addr.h"

/* The emulator's logtype, pmd.rshim.sim (rsh_sim_log.c). */
extern int rsh_logtype_sim;

/* Defaults of the DPU side, hardware-notes §D3.2, §4.8. */
#define RSH_SIM_PEER_MAC RSH_TMFIFO_DPU_MAC
#define RSH_SIM_PEER_IP "192.168.100.2"
#define RSH_SIM_PEER_PREFIX 24
#define RSH_SIM_PEER_MTU 1500
#define RSH_SIM_PEER_IFNAME "tmfifo_net0"
#define RSH_SIM_PEER_FRAME_MAX 1518u /* MTU + 14 + 4 */

struct rsh_sim_peer;

/* Options. */
struct rsh_sim_peer_opts {
	unsigned int index;  /* N in rshim-sim<N> */
	bool auto_index;     /* index: the first N no live instance holds */
	bool no_netns;       /* force the built-in responder and line echo */
	bool no_shell;       /* line echo console even with a namespace */
	const char *shell;   /* NULL = "/bin/sh" */
};

/*
 * Create the peer ends. Falls back to the responder/echo when namespaces
 * are not permitted (one NOTICE line).
 * @return 0; -ENOMEM; other -errno when a namespace was created but the
 *   TAP or the PTY could not be set up (nothing is left behind).
 */
/* Namespace indexes 0..RSH_SIM_NS_INDEX_MAX-1 (peer=<N>). */
#define RSH_SIM_NS_INDEX_MAX 10000u

/*
 * Host-wide claim on namespace name rshim-sim<index> (rsh_sim_nslock.c):
 * an fd holding the lock, -EBUSY with the holder's pid when another live
 * instance has it, -EPERM when the lock directory or file is not safe to
 * use (a directory others may write to and not sticky, a link or a
 * non-plain file at the lock's name; logged), or another -errno (no lock
 * directory: go on unlocked).
 */
int rsh_sim_nslock_claim(unsigned int index, pid_t *holder);

/* "rshim-sim", or the run's own prefix (RSHIM_SIM_NETNS_PREFIX). */
const char *rsh_sim_ns_prefix(void);

/* Claim the first free index; its fd, and the index in *index. */
int rsh_sim_nslock_claim_free(unsigned int *index);

/* Give a claim up (close its fd). */
void rsh_sim_nslock_release(int fd);

/* N of rshim-sim<N> this peer got. */
unsigned int rsh_sim_peer_index(const struct rsh_sim_peer *p);

int rsh_sim_peer_create(const struct rsh_sim_peer_opts *o,
			struct rsh_sim_peer **out);

/* Kill the shell, remove the namespace and the TAP, free. NULL is fine. */
void rsh_sim_peer_destroy(struct rsh_sim_peer *p);

/* True when the network end is a kernel stack in a namespace. */
bool rsh_sim_peer_is_netns(const struct rsh_sim_peer *p);

/* True when the console end is a shell on a PTY. */
bool rsh_sim_peer_has_shell(const struct rsh_sim_peer *p);

/* "rshim-sim<N>" (also set in responder mode, where nothing is created). */
const char *rsh_sim_peer_ns_name(const struct rsh_sim_peer *p);

/* Non-blocking TAP fd (for poll()), -1 with the responder. */
int rsh_sim_peer_net_fd(const struct rsh_sim_peer *p);

/* Non-blocking PTY master fd, -1 with the line echo. */
int rsh_sim_peer_con_fd(const struct rsh_sim_peer *p);

/* Shell process id, -1 with the line echo. */
pid_t rsh_sim_peer_shell_pid(const struct rsh_sim_peer *p);

/*
 * Give the DPU's Linux one Ethernet frame (from the host).
 * @return len; -EAGAIN no room now; -EMSGSIZE over 1518 bytes; -errno.
 */
ssize_t rsh_sim_peer_net_write(struct rsh_sim_peer *p, const void *frame,
			       size_t len);

/*
 * Take one Ethernet frame the DPU's Linux sends (to the host).
 * @return its length; -EAGAIN none waiting; -errno.
 */
ssize_t rsh_sim_peer_net_read(struct rsh_sim_peer *p, void *buf, size_t cap);

/* Console input (host keystrokes). @return bytes taken, -EAGAIN, -errno. */
ssize_t rsh_sim_peer_con_write(struct rsh_sim_peer *p, const void *buf,
			       size_t len);

/* Console output of the DPU. @return bytes, -EAGAIN none, -errno. */
ssize_t rsh_sim_peer_con_read(struct rsh_sim_peer *p, void *buf, size_t cap);

/* Async-signal-safe: kill every shell, unmount every namespace. */
void rsh_sim_peer_cleanup_signal(void);

#endif /* RSH_SIM_PEER_H */
