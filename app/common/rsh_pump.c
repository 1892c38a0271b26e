/* SPDX-License-Identifier: BSD-3-Clause */
/* The host end's pump, both owners' loop: see rsh_pump.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_common.h>

#include "rsh_mono.h"
#include "rsh_pump.h"

/* WAIT_ADAPTIVE: spin this long after the last work, then back off from
 * 10 us; for 5 ms after data moved sleep at most 50 us (a reply is likely
 * soon: ping, TCP ACK). While spinning, look at an emptied TAP at most
 * every 20 us: with 64 KiB reads (TSO) it is empty most of the time, and a
 * zero-timeout ppoll() per pass would be the loop's main system call. */
#define RSH_PUMP_SPIN_NS 200000ull
#define RSH_PUMP_BACKOFF_START_NS 10000ull
#define RSH_PUMP_ALERT_NS 5000000ull
#define RSH_PUMP_ALERT_SLEEP_NS 50000ull
#define RSH_PUMP_TAP_CHECK_NS 20000ull

int
rsh_pump_init(struct rsh_pump *p, const struct rsh_pump_policy *pol)
{
	memset(p, 0, sizeof(*p));
	p->pol = *pol;
	p->idle_since = rsh_mono_ns();
	p->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return p->wake_fd < 0 ? -errno : 0;
}

void
rsh_pump_fini(struct rsh_pump *p)
{
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	p->wake_fd = -1;
	p->n_ep = 0;
	p->npfd = 0;
}

void
rsh_pump_cons_init(struct rsh_pump_ep *ep, struct rsh_dev *dev, int in_fd,
		   int out_fd, const struct rsh_pump_cons_ops *ops, void *ctx)
{
	int fl = in_fd >= 0 ? fcntl(in_fd, F_GETFL) : -1;

	memset(ep, 0, sizeof(*ep));
	ep->kind = RSH_PUMP_CONSOLE;
	ep->dev = dev;
	ep->in_fd = in_fd;
	ep->out_fd = out_fd;
	ep->aux_fd = -1;
	ep->in_nb = fl >= 0 && (fl & O_NONBLOCK) != 0;
	ep->ops = ops;
	ep->ctx = ctx;
}

void
rsh_pump_tap_init(struct rsh_pump_ep *ep, struct rsh_dev *dev, struct rsh_tap *t)
{
	memset(ep, 0, sizeof(*ep));
	ep->kind = RSH_PUMP_TAP;
	ep->dev = dev;
	ep->in_fd = ep->out_fd = ep->aux_fd = -1;
	ep->tap = t;
}

int
rsh_pump_add(struct rsh_pump *p, struct rsh_pump_ep *ep)
{
	if (ep->added)
		return -EEXIST;
	if (p->n_ep == RSH_PUMP_MAX_EP)
		return -ENOSPC;
	p->ep[p->n_ep++] = ep;
	ep->added = true;
	return 0;
}

void
rsh_pump_remove(struct rsh_pump *p, struct rsh_pump_ep *ep)
{
	unsigned int i;

	for (i = 0; i < p->npfd; i++)
		if (p->pfd_ep[i] == ep)
			p->pfd_ep[i] = NULL;
	for (i = 0; i < p->n_ep; i++) {
		if (p->ep[i] != ep)
			continue;
		p->ep[i] = p->ep[--p->n_ep];
		break;
	}
	ep->added = false;
}

void
rsh_pump_kick(struct rsh_pump *p)
{
	uint64_t one = 1;

	if (write(p->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return; /* a full counter wakes as well */
}

/* Clear the wake eventfd (non-blocking). */
static void
rsh_pump_wake_clear(struct rsh_pump *p)
{
	uint64_t v;

	p->wake_reads++;
	if (read(p->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
}

/*
 * What the last wait said: the owner's wake-up, readable input, a TAP to
 * read again. The wake eventfd is read only when the wait saw it set: a
 * spinning pass makes no system call for it. A kick the pass did not see
 * is not lost: it ends the next wait that polls the eventfd at once, and
 * the pass after that wait clears it.
 */
static void
rsh_pump_take_revents(struct rsh_pump *p)
{
	nfds_t i;

	for (i = 0; i < p->npfd; i++) {
		struct rsh_pump_ep *ep = p->pfd_ep[i];
		short r = p->pfd[i].revents;

		if (p->pfd_role[i] == RSH_PUMP_FD_WAKE && (r & POLLIN))
			rsh_pump_wake_clear(p);
		if (ep == NULL || r == 0)
			continue;
		if (p->pfd_role[i] == RSH_PUMP_FD_IN &&
		    (r & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
			ep->in_ready = true;
		else if (p->pfd_role[i] == RSH_PUMP_FD_TAP)
			rsh_tap_polled(ep->tap, r);
	}
	p->npfd = 0;
}

/* DPU → host: at most RSH_PUMP_CONS_PASS bytes to the owner's output;
 * then its held output. */
static unsigned int
rsh_pump_cons_out(struct rsh_pump_ep *ep)
{
	unsigned int work = 0;
	uint8_t buf[RSH_PUMP_CONS_PASS];
	size_t n, took;

	n = rsh_tmfifo_console_read(ep->dev, buf, sizeof(buf));
	if (n > 0) {
		ep->from_dpu += n;
		took = ep->ops->output(ep->ctx, buf, n);
		ep->out_dropped += n - RTE_MIN(took, n);
		work++;
	}
	if (ep->ops->flush != NULL)
		work += ep->ops->flush(ep->ctx);
	return work;
}

/* Host → DPU: new input when nothing is held, then what the channel takes. */
static unsigned int
rsh_pump_cons_in(struct rsh_pump_ep *ep)
{
	unsigned int work = 0;
	size_t len = 0, took;
	int rc;

	if (ep->tx_len == 0 && !ep->eof && ep->in_fd >= 0 &&
	    (ep->in_nb || ep->in_ready)) {
		ep->in_ready = false;
		rc = ep->ops->input(ep->ctx, ep->tx, sizeof(ep->tx), &len);
		ep->eof = rc < 0;
		ep->tx_len = rc > 0 ? RTE_MIN(len, sizeof(ep->tx)) : 0;
		work += rc > 0;
	}
	if (ep->tx_len == 0)
		return work;
	took = rsh_tmfifo_console_write(ep->dev, ep->tx, ep->tx_len);
	memmove(ep->tx, ep->tx + took, ep->tx_len - took);
	ep->tx_len -= took;
	ep->to_dpu += took;
	return work + (took > 0);
}

/* TAP → DPU, then DPU → TAP. */
unsigned int
rsh_pump_tap(struct rsh_tap *t, struct rsh_dev *dev)
{
	return rsh_tap_to_dpu(t, dev) + rsh_tap_from_dpu(t, dev);
}

unsigned int
rsh_pump_work(struct rsh_pump *p)
{
	unsigned int i, work = 0;

	rsh_pump_take_revents(p);
	for (i = 0; i < p->n_ep; i++) {
		struct rsh_pump_ep *ep = p->ep[i];

		if (ep->kind == RSH_PUMP_TAP) {
			if (ep->tap->fd >= 0)
				work += rsh_pump_tap(ep->tap, ep->dev);
		} else if (ep->in_fd >= 0 || ep->out_fd >= 0) {
			work += rsh_pump_cons_out(ep);
			work += rsh_pump_cons_in(ep);
		}
	}
	return work;
}

/* Add one fd to the wait. */
static void
rsh_pump_poll_fd(struct rsh_pump *p, struct rsh_pump_ep *ep, int fd,
		 short events, enum rsh_pump_role role)
{
	p->pfd[p->npfd] = (struct pollfd){ .fd = fd, .events = events };
	p->pfd_ep[p->npfd] = ep;
	p->pfd_role[p->npfd++] = (uint8_t)role;
}

/* A console endpoint's host fds: input while nothing is held, output
 * while held output waits for the fd (one entry when they are one fd). */
static void
rsh_pump_poll_cons(struct rsh_pump *p, struct rsh_pump_ep *ep)
{
	bool in = ep->in_fd >= 0 && !ep->eof && ep->tx_len == 0;
	bool out = ep->out_fd >= 0 && ep->ops->want_out != NULL &&
		   ep->ops->want_out(ep->ctx);

	if (in && out && ep->in_fd == ep->out_fd) {
		rsh_pump_poll_fd(p, ep, ep->in_fd, POLLIN | POLLOUT, RSH_PUMP_FD_IN);
		out = false;
	} else if (in) {
		rsh_pump_poll_fd(p, ep, ep->in_fd, POLLIN, RSH_PUMP_FD_IN);
	}
	if (out)
		rsh_pump_poll_fd(p, ep, ep->out_fd, POLLOUT, RSH_PUMP_FD_OUT);
	if (ep->aux_fd >= 0)
		rsh_pump_poll_fd(p, ep, ep->aux_fd, POLLIN, RSH_PUMP_FD_AUX);
}

/* The host fds of every endpoint (a TAP only once a read found it empty:
 * readiness, not reads); sets p->held. */
static void
rsh_pump_poll_hosts(struct rsh_pump *p)
{
	unsigned int i;

	p->held = false;
	for (i = 0; i < p->n_ep; i++) {
		struct rsh_pump_ep *ep = p->ep[i];

		if (ep->kind == RSH_PUMP_CONSOLE) {
			if (ep->in_fd < 0 && ep->out_fd < 0)
				continue;
			p->held |= ep->tx_len > 0;
			rsh_pump_poll_cons(p, ep);
			continue;
		}
		if (ep->tap->fd < 0)
			continue;
		p->held |= ep->tap->n_pend > 0;
		if (ep->tap->drained && rsh_tap_want_read(ep->tap))
			rsh_pump_poll_fd(p, ep, ep->tap->fd, POLLIN, RSH_PUMP_FD_TAP);
	}
}

/* Add and arm a channel's wake-up; true when data already waits. */
static bool
rsh_pump_chan_arm(struct rsh_pump *p, struct rsh_pump_ep *ep,
		  enum rsh_tmfifo_chan ch)
{
	int fd = rsh_tmfifo_rx_fd(ep->dev, ch);

	if (fd < 0)
		return false;
	rsh_pump_poll_fd(p, ep, fd, POLLIN, RSH_PUMP_FD_CHAN);
	return rsh_tmfifo_rx_arm(ep->dev, ch);
}

/* The owner's wake-up and every channel's, armed; true when data waits. */
static bool
rsh_pump_poll_chans(struct rsh_pump *p)
{
	bool ready = false;
	unsigned int i;

	rsh_pump_poll_fd(p, NULL, p->wake_fd, POLLIN, RSH_PUMP_FD_WAKE);
	for (i = 0; i < p->n_ep; i++) {
		struct rsh_pump_ep *ep = p->ep[i];
		bool open = ep->kind == RSH_PUMP_TAP ? ep->tap->fd >= 0 :
			    ep->in_fd >= 0 || ep->out_fd >= 0;

		if (open)
			ready |= rsh_pump_chan_arm(p, ep, ep->kind == RSH_PUMP_TAP ?
						   RSH_TMFIFO_NET : RSH_TMFIFO_CONSOLE);
	}
	return ready;
}

/* Every source of work has a descriptor: nothing held, no fdless one. */
static bool
rsh_pump_all_fd(const struct rsh_pump *p)
{
	unsigned int i;

	if (p->fdless || p->held)
		return false;
	for (i = 0; i < p->n_ep; i++)
		if (p->ep[i]->kind == RSH_PUMP_TAP && p->ep[i]->tap->fd >= 0 &&
		    !p->ep[i]->tap->drained)
			return false;
	return true;
}

/* WAIT_FD: nothing to wait for after work; else every fd, the idle or
 * the retry timeout. */
static bool
rsh_pump_prepare_fd(struct rsh_pump *p, unsigned int work)
{
	p->npfd = 0;
	if (work > 0)
		return false;
	rsh_pump_poll_hosts(p);
	if (rsh_pump_poll_chans(p))
		return false; /* data queued since the pass: the next pass */
	p->timeout_ns = p->held ? p->pol.retry_ns : p->pol.idle_ns;
	return true;
}

/* WAIT_ADAPTIVE: the back-off after a pass (0: spin). */
static uint64_t
rsh_pump_backoff(struct rsh_pump *p, bool worked, uint64_t now)
{
	if (worked) {
		p->idle_since = now;
		p->backoff_ns = 0;
		return 0;
	}
	if (now - p->idle_since <= RSH_PUMP_SPIN_NS)
		return 0;
	p->backoff_ns = p->backoff_ns ? p->backoff_ns * 2 : RSH_PUMP_BACKOFF_START_NS;
	p->backoff_ns = RTE_MIN(p->backoff_ns, p->pol.ceiling_ns);
	if (now - p->idle_since < RSH_PUMP_ALERT_NS)
		p->backoff_ns = RTE_MIN(p->backoff_ns, RSH_PUMP_ALERT_SLEEP_NS);
	return p->backoff_ns;
}

/* While spinning: drop the TAP fds from the zero-timeout look unless
 * their readiness is due again. */
static void
rsh_pump_spin_taps(struct rsh_pump *p, uint64_t now)
{
	nfds_t i, k = 0;

	if (now - p->tap_checked_ns >= RSH_PUMP_TAP_CHECK_NS) {
		for (i = 0; i < p->npfd; i++)
			if (p->pfd_role[i] == RSH_PUMP_FD_TAP)
				p->tap_checked_ns = now;
		return;
	}
	for (i = 0; i < p->npfd; i++) {
		if (p->pfd_role[i] == RSH_PUMP_FD_TAP)
			continue;
		p->pfd[k] = p->pfd[i];
		p->pfd_ep[k] = p->pfd_ep[i];
		p->pfd_role[k++] = p->pfd_role[i];
	}
	p->npfd = k;
}

/* WAIT_ADAPTIVE: spinning, a zero-timeout look at the host fds (none
 * when there is nothing to look at); else the channels too, and the
 * back-off or the idle timeout. */
static bool
rsh_pump_prepare_adaptive(struct rsh_pump *p, unsigned int work)
{
	uint64_t now = rsh_mono_ns();
	uint64_t ns = rsh_pump_backoff(p, work > 0, now);

	p->npfd = 0;
	rsh_pump_poll_hosts(p);
	if (work > 0 || ns == 0) {
		ns = 0;
		rsh_pump_spin_taps(p, now);
	} else if (rsh_pump_poll_chans(p)) {
		ns = 0;
	} else if (rsh_pump_all_fd(p)) {
		ns = p->pol.idle_ns;
	}
	p->timeout_ns = ns;
	return p->npfd > 0 || ns > 0;
}

bool
rsh_pump_prepare(struct rsh_pump *p, unsigned int work)
{
	if (p->pol.wait == RSH_PUMP_WAIT_ADAPTIVE)
		return rsh_pump_prepare_adaptive(p, work);
	return rsh_pump_prepare_fd(p, work);
}

int
rsh_pump_sleep(struct rsh_pump *p)
{
	struct timespec ts = rsh_ns_timespec(p->timeout_ns);

	return ppoll(p->pfd, p->npfd, &ts, NULL);
}

unsigned int
rsh_pump_run_once(struct rsh_pump *p)
{
	unsigned int work = rsh_pump_work(p);

	if (rsh_pump_prepare(p, work))
		rsh_pump_sleep(p);
	return work;
}
