/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host end's pump: one loop that moves a device's console and network
 * channels to and from the host, for both owners. rshim-pmd-app runs it
 * on its main lcore for one device (stdin/stdout, a TAP); the service's
 * relay thread runs it for every device (a PTY master, a TAP).
 *
 * Endpoints: a console channel <-> a pair of fds (in and out, the same fd
 * for a PTY master) whose bytes pass through the owner's hooks (escape
 * keys, packet-mode status, held output), and a network channel <-> a TAP
 * (rsh_tap.h). A pass (rsh_pump_work) moves what can move, a bounded
 * amount per endpoint (one console read of RSH_PUMP_CONS_PASS bytes, the
 * TAP's bursts) so that none starves the others or the owner's checks
 * between passes; the wait (rsh_pump_prepare, rsh_pump_sleep) sleeps in ppoll on the channels'
 * wake-up eventfds (rsh_tmfifo_rx_fd, armed with rsh_tmfifo_rx_arm), the
 * endpoints' fds and the owner's wake eventfd (rsh_pump_kick). How long
 * it sleeps is the owner's policy, a parameter:
 *
 *  - RSH_PUMP_WAIT_FD: sleep on descriptors only (the service): no system
 *    call after a pass that moved data, else the idle timeout, or the
 *    retry timeout while bytes wait for room in a channel (the rings have
 *    no "room again" fd);
 *  - RSH_PUMP_WAIT_ADAPTIVE: spin while data moves, then back off (the
 *    app): a zero-timeout look at the host fds while spinning (the TAP's
 *    at most every 20 us), then 10 us doubling to the ceiling, at most
 *    50 us for 5 ms after data moved (a reply is likely soon), and the
 *    idle timeout once every source has a descriptor to wait on.
 *
 * Every byte is counted: a console byte read from the channel is
 * delivered (or held) by the owner's output hook or counted in
 * out_dropped; a host byte is taken by the channel (to_dpu) or waits in
 * the endpoint; what the owner discards on input it counts itself.
 *
 * One thread runs a pump. An owner that shares its endpoints with other
 * threads (the service's device table) calls rsh_pump_work and
 * rsh_pump_prepare under its lock and rsh_pump_sleep outside it;
 * rsh_pump_kick may be called from any thread.
 */
#ifndef RSH_PUMP_H
#define RSH_PUMP_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rsh.h"
#include "rsh_tap.h"

#define RSH_PUMP_MAX_EP 32u        /* two a device, 16 devices */
#define RSH_PUMP_TX 4096u          /* host bytes a console endpoint holds */
/* DPU console bytes a pass moves per endpoint: one read. The owner's
 * output hook may block (the app's stdout on a slow terminal), so a
 * chatty DPU must not keep the pass from the host's input (the escape
 * key), the TAP and the owner's checks; a pass that moved bytes is work,
 * so the wait does not sleep on what is left. */
#define RSH_PUMP_CONS_PASS 4096u
#define RSH_PUMP_PFD_PER_EP 4u     /* in, out, aux fds, channel eventfd */

/* How the owner waits. */
enum rsh_pump_wait {
	RSH_PUMP_WAIT_FD,          /* sleep on descriptors only */
	RSH_PUMP_WAIT_ADAPTIVE,    /* spin while data moves, then back off */
};

struct rsh_pump_policy {
	enum rsh_pump_wait wait;
	uint64_t idle_ns;          /* nothing held, every source has an fd */
	uint64_t retry_ns;         /* WAIT_FD: bytes wait for room in a channel */
	uint64_t ceiling_ns;       /* WAIT_ADAPTIVE: longest back-off sleep */
};

/*
 * A console endpoint's hooks (ctx: the owner's). input is called when the
 * in fd may be readable (at once for a non-blocking fd, after ppoll said
 * so for a blocking one) and the endpoint holds nothing: it reads and
 * stores in buf what goes to the DPU (*len), and returns 1 when it read
 * something (*len may be 0: a key it handled, a status byte), 0 when
 * nothing was there, -1 at the end of input. output takes bytes from the
 * DPU and returns how many it delivered or holds; the rest is dropped.
 * flush (optional) moves held output to the host, returns the work done;
 * want_out (optional) says held output waits for POLLOUT on the out fd.
 */
struct rsh_pump_cons_ops {
	int (*input)(void *ctx, uint8_t *buf, size_t cap, size_t *len);
	size_t (*output)(void *ctx, const uint8_t *p, size_t n);
	unsigned int (*flush)(void *ctx);
	bool (*want_out)(void *ctx);
};

enum rsh_pump_kind {
	RSH_PUMP_CONSOLE,
	RSH_PUMP_TAP,
};

/* One endpoint; the owner's memory, written by the pump's thread. */
struct rsh_pump_ep {
	enum rsh_pump_kind kind;
	struct rsh_dev *dev;
	/* console: fds (-1 none: the endpoint idles), hooks */
	int in_fd, out_fd;
	int aux_fd;                /* polled for POLLIN only: wakes the pump */
	bool in_nb;                /* in_fd is non-blocking: read every pass */
	bool in_ready;             /* ppoll said in_fd is readable */
	bool eof;                  /* input ended */
	const struct rsh_pump_cons_ops *ops;
	void *ctx;
	uint8_t tx[RSH_PUMP_TX];   /* host bytes the channel has not taken */
	size_t tx_len;
	uint64_t to_dpu;           /* bytes the channel took */
	uint64_t from_dpu;         /* bytes read from the channel */
	uint64_t out_dropped;      /* of those, what the host end refused */
	/* network */
	struct rsh_tap *tap;
	bool added;
};

/* The wait's record of each fd polled: its endpoint and role. */
enum rsh_pump_role {
	RSH_PUMP_FD_WAKE,
	RSH_PUMP_FD_CHAN,
	RSH_PUMP_FD_IN,            /* also out when in_fd == out_fd */
	RSH_PUMP_FD_OUT,
	RSH_PUMP_FD_AUX,
	RSH_PUMP_FD_TAP,
};

struct rsh_pump {
	struct rsh_pump_policy pol;
	int wake_fd;               /* eventfd: the owner's wake-up */
	uint64_t wake_reads;       /* reads of it: after a wait saw it set */
	bool fdless;               /* a source without an fd (the ethdev) */
	struct rsh_pump_ep *ep[RSH_PUMP_MAX_EP];
	unsigned int n_ep;
	/* the wait (rsh_pump_prepare → rsh_pump_sleep → next rsh_pump_work) */
	struct pollfd pfd[1 + RSH_PUMP_PFD_PER_EP * RSH_PUMP_MAX_EP];
	struct rsh_pump_ep *pfd_ep[1 + RSH_PUMP_PFD_PER_EP * RSH_PUMP_MAX_EP];
	uint8_t pfd_role[1 + RSH_PUMP_PFD_PER_EP * RSH_PUMP_MAX_EP];
	nfds_t npfd;
	uint64_t timeout_ns;       /* of the prepared wait */
	bool held;                 /* bytes wait for room in a channel */
	/* WAIT_ADAPTIVE */
	uint64_t idle_since, backoff_ns;
	uint64_t tap_checked_ns;   /* last zero-timeout look at a TAP */
};

/** Ready a pump (its wake eventfd); 0 or -errno. */
int rsh_pump_init(struct rsh_pump *p, const struct rsh_pump_policy *pol);

/** Close the wake eventfd; the endpoints stay the owner's. */
void rsh_pump_fini(struct rsh_pump *p);

/**
 * A console endpoint on dev's console channel: in_fd read through
 * ops->input, DPU bytes given to ops->output (out_fd is polled for
 * POLLOUT when ops->want_out says so). in_fd's O_NONBLOCK is read now.
 */
void rsh_pump_cons_init(struct rsh_pump_ep *ep, struct rsh_dev *dev, int in_fd,
			int out_fd, const struct rsh_pump_cons_ops *ops, void *ctx);

/** A network endpoint: dev's network channel <-> t. */
void rsh_pump_tap_init(struct rsh_pump_ep *ep, struct rsh_dev *dev,
		       struct rsh_tap *t);

/** Add an endpoint; -ENOSPC when full, -EEXIST when added. */
int rsh_pump_add(struct rsh_pump *p, struct rsh_pump_ep *ep);

/** Remove an endpoint (and what the last wait said about its fds). */
void rsh_pump_remove(struct rsh_pump *p, struct rsh_pump_ep *ep);

/** Wake a sleeping pump (any thread). */
void rsh_pump_kick(struct rsh_pump *p);

/**
 * One pass: take what the last wait said (the wake eventfd is cleared
 * when it saw it set, no system call otherwise), move console bytes and
 * TAP frames both ways. The work done.
 */
unsigned int rsh_pump_work(struct rsh_pump *p);

/**
 * Build the wait after a pass that did @p work, by the policy: the fds
 * and p->timeout_ns. False when there is nothing to sleep on (spin on).
 */
bool rsh_pump_prepare(struct rsh_pump *p, unsigned int work);

/** Sleep in ppoll on the prepared wait; ppoll's result. */
int rsh_pump_sleep(struct rsh_pump *p);

/** rsh_pump_work, then the wait; the work done. */
unsigned int rsh_pump_run_once(struct rsh_pump *p);

/** Move TAP frames both ways (rsh_tap_to_dpu, rsh_tap_from_dpu); the work done. */
unsigned int rsh_pump_tap(struct rsh_tap *t, struct rsh_dev *dev);

#endif /* RSH_PUMP_H */
