/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --console (and the channel loop shared with --net): the DPU console on
 * this terminal, or on pipes.
 *
 * On a TTY the terminal goes raw and every key goes to the DPU; Ctrl-]
 * then q quits (like telnet), Ctrl-] twice sends one Ctrl-]. The terminal
 * is restored on every exit path: normal return, Ctrl-] q, SIGINT /
 * SIGTERM / SIGHUP (the handler only sets the cancel flag; the loop then
 * returns through the same restore), and exit() (atexit).
 *
 * Pipe mode (stdin not a TTY): stdin is copied to the console and the
 * console to stdout; after stdin ends the app waits until its bytes are
 * sent and the console has been quiet for --linger seconds, then exits
 * (unless --net also runs: then it runs until a signal).
 *
 * The loop runs on the main lcore: it sleeps in ppoll() on stdin, the TAP
 * and the channels' wake-up eventfds, which the poll lcore signals when it
 * queues console or network data for us (rsh_tmfifo_rx_arm). So no data
 * waits on a timeout; the timeout only paces retries of work this side
 * holds (keys or frames the rings had no room for), the ethdev mode (no
 * fd) and the pipe-mode linger check.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "rsh_pump.h"

#define RSH_APP_ESC 0x1d /* Ctrl-] */
#define RSH_APP_SPIN_NS 200000ull
#define RSH_APP_BACKOFF_START_NS 10000ull
/* After data moved, a reply is likely soon (ping, TCP ACK): for this long
 * sleep at most RSH_APP_ALERT_SLEEP_NS, then back off to --max-sleep. */
#define RSH_APP_ALERT_NS 5000000ull
#define RSH_APP_ALERT_SLEEP_NS 50000ull
#define RSH_APP_BUSY_SLEEP_NS 20000ull
/* While spinning, look at an emptied TAP's readiness at most this often:
 * with 64 KiB reads (TSO) the TAP is empty most of the time, and a
 * zero-timeout ppoll() per pass was the loop's main system call. */
#define RSH_APP_TAP_CHECK_NS 20000ull
/* Longest idle sleep of the channel loop: NVIDIA's rshim daemon's idle tick, hardware-notes §4.9. */
#define RSH_APP_IDLE_TICK_NS 10000000ull
/* Idle sleep when every source has a descriptor: only the linger check. */
#define RSH_APP_FD_IDLE_NS 100000000ull

/* The saved terminal, for the atexit restore. */
static struct termios rsh_app_saved_tio;
static int rsh_app_tio_saved;

/* Put the terminal back (idempotent, async-signal-safe calls only). */
static void
rsh_app_tio_restore(void)
{
	if (__atomic_exchange_n(&rsh_app_tio_saved, 0, __ATOMIC_RELAXED))
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &rsh_app_saved_tio);
}

/* --console needs an open stdin (a terminal or a pipe); one that was
 * closed at start now reads /dev/null (main.c), which is no console. */
int
rsh_app_console_precheck(struct rsh_app *app)
{
	if (!app->console)
		return 0;
	if (rsh_app_stdin_closed || fcntl(STDIN_FILENO, F_GETFL) < 0) {
		rsh_app_err("--console: standard input is closed; run it on a terminal or give it a pipe (e.g. echo cmd | %s --console)",
			    app->prog);
		return RSH_EXIT_USAGE;
	}
	return 0;
}

/* Raw terminal on a TTY; nothing to do on pipes. Exit code. */
int
rsh_app_console_open(struct rsh_app_console *c)
{
	static bool registered;
	struct termios raw;

	memset(c, 0, sizeof(*c));
	c->tty = isatty(STDIN_FILENO);
	c->last_out_ns = rsh_mono_ns();
	signal(SIGPIPE, SIG_IGN); /* a closed stdout must not skip the restore */
	if (!c->tty)
		return 0;
	if (tcgetattr(STDIN_FILENO, &rsh_app_saved_tio) < 0) {
		rsh_app_err("--console: cannot read the terminal settings: %s", strerror(errno));
		return RSH_EXIT_FAIL;
	}
	if (!registered) {
		atexit(rsh_app_tio_restore);
		registered = true;
	}
	raw = rsh_app_saved_tio;
	cfmakeraw(&raw);
	__atomic_store_n(&rsh_app_tio_saved, 1, __ATOMIC_RELAXED);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
	fprintf(stderr, "rshim-pmd-app: console connected; Ctrl-] then q quits\r\n");
	return 0;
}

/* Restore the terminal. */
void
rsh_app_console_close(struct rsh_app_console *c)
{
	if (c->tty) {
		rsh_app_tio_restore();
		fputc('\n', stderr);
	}
}

/* Keys from a TTY: handle the Ctrl-] escape, queue the rest. */
static void
rsh_app_console_keys(struct rsh_app_console *c, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n && c->in_len + 2 <= sizeof(c->in); i++) {
		if (c->esc) {
			c->esc = false;
			if (buf[i] == 'q' || buf[i] == 'Q') {
				c->quit = true;
				return;
			}
			if (buf[i] != RSH_APP_ESC)
				c->in[c->in_len++] = RSH_APP_ESC;
			c->in[c->in_len++] = buf[i];
		} else if (buf[i] == RSH_APP_ESC) {
			c->esc = true;
		} else {
			c->in[c->in_len++] = buf[i];
		}
	}
}

/* Write all of buf to stdout (blocking: stdout paces the console). */
void
rsh_app_write_all(const char *buf, size_t n)
{
	ssize_t k;

	fflush(stdout); /* lines printed before (a push summary) go first */
	while (n > 0) {
		k = write(STDOUT_FILENO, buf, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		buf += k;
		n -= (size_t)k;
	}
}

/* Read stdin when it is readable and nothing is waiting. */
static void
rsh_app_console_input(struct rsh_app_console *c, bool readable)
{
	char buf[sizeof(c->in) / 2];
	ssize_t n;

	if (!readable || c->eof || c->in_len > 0)
		return;
	n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
		c->eof = true;
		return;
	}
	if (n < 0)
		return;
	if (c->tty) {
		rsh_app_console_keys(c, buf, (size_t)n);
	} else {
		memcpy(c->in, buf, (size_t)n);
		c->in_len = (size_t)n;
	}
}

/* One step: DPU output to stdout, stdin to the DPU. Returns work. */
unsigned int
rsh_app_console_step(struct rsh_app_console *c, struct rsh_dev *dev,
		     bool readable)
{
	char out[4096];
	size_t n, k;
	unsigned int work = 0;

	n = rsh_tmfifo_console_read(dev, out, sizeof(out));
	if (n > 0) {
		rsh_app_write_all(out, n);
		c->shown += n;
		c->last_out_ns = rsh_mono_ns();
		work += (unsigned int)n;
	}
	rsh_app_console_input(c, readable);
	if (c->in_len > 0) {
		k = rsh_tmfifo_console_write(dev, c->in, c->in_len);
		memmove(c->in, c->in + k, c->in_len - k);
		c->in_len -= k;
		c->written += k;
		work += (unsigned int)k;
	}
	return work;
}

/* Pipe mode is done: stdin ended, all sent, the console quiet a while. */
static bool
rsh_app_console_done(struct rsh_app *app, struct rsh_app_console *c,
		     struct rsh_dev *dev)
{
	struct rsh_tmfifo_chan_stats st;

	if (!c->eof || c->in_len > 0 || app->net != NULL)
		return false;
	if (rsh_tmfifo_get_stats(dev, RSH_TMFIFO_CONSOLE, &st, NULL) < 0 ||
	    st.tx_bytes < c->written)
		return false;
	return rsh_mono_ns() - c->last_out_ns > (uint64_t)(app->linger_s * 1e9);
}

/* State of one run of the channel loop (main lcore). */
struct rsh_app_chan {
	struct rsh_app_console con;
	struct rsh_tap tap;
	struct rsh_app_ethdev eth;
	uint64_t idle_since, backoff_ns;
	uint64_t tap_checked_ns;   /* last zero-timeout look at the TAP */
};

/*
 * Longest sleep of the idle loop. Input from stdin and the TAP wakes it at
 * once; only data from the DPU waits for the timeout, so an idle loop may
 * sleep 10 x --max-sleep, at most 10 ms (the reference daemon's idle
 * tick, §4.9).
 * With --busy-poll the poll lcore spins; this loop stays at short sleeps
 * instead of spinning too, so the kernel (TAP, TCP) keeps a core on a
 * two-core machine.
 */
static uint64_t
rsh_app_chan_ceiling(const struct rsh_app *app)
{
	if (app->poll.busy_poll)
		return RSH_APP_BUSY_SLEEP_NS;
	return RTE_MIN(app->poll.max_sleep_us * 10000ull, RSH_APP_IDLE_TICK_NS);
}

/*
 * Arm the channels' wake-ups; true when data is already queued. Sets
 * *all_fd when every source of work has a descriptor to wait on.
 */
static bool
rsh_app_chan_arm(struct rsh_app *app, struct rsh_app_chan *ch,
		 struct rsh_dev *dev, struct pollfd *pfd, nfds_t *n, bool *all_fd)
{
	bool ready = false;

	*all_fd = !ch->eth.open && ch->con.in_len == 0 && ch->tap.n_pend == 0 &&
		  (ch->tap.fd < 0 || ch->tap.drained);
	if (app->console)
		ready |= rsh_pump_chan_arm(dev, RSH_TMFIFO_CONSOLE, pfd, n);
	if (ch->tap.fd >= 0)
		ready |= rsh_pump_chan_arm(dev, RSH_TMFIFO_NET, pfd, n);
	return ready;
}

/* The adaptive timeout for work this side holds (or the ethdev mode). */
static uint64_t
rsh_app_chan_backoff(struct rsh_app *app, struct rsh_app_chan *ch, bool worked,
		     uint64_t now)
{
	if (worked) {
		ch->idle_since = now;
		ch->backoff_ns = 0;
		return 0;
	}
	if (now - ch->idle_since <= RSH_APP_SPIN_NS)
		return 0;
	ch->backoff_ns = ch->backoff_ns ? ch->backoff_ns * 2 : RSH_APP_BACKOFF_START_NS;
	ch->backoff_ns = RTE_MIN(ch->backoff_ns, rsh_app_chan_ceiling(app));
	if (now - ch->idle_since < RSH_APP_ALERT_NS)
		ch->backoff_ns = RTE_MIN(ch->backoff_ns, RSH_APP_ALERT_SLEEP_NS);
	return ch->backoff_ns;
}

/* Sleep in ppoll until an fd is ready, data is queued, or the timeout. */
static void
rsh_app_chan_wait(struct rsh_app *app, struct rsh_app_chan *ch,
		  struct rsh_dev *dev, bool worked, bool *stdin_ready)
{
	struct pollfd pfd[4];
	struct timespec ts = { 0, 0 };
	uint64_t now = rsh_mono_ns();
	uint64_t ns = rsh_app_chan_backoff(app, ch, worked, now);
	nfds_t n = 0, first, tap = RTE_DIM(pfd);
	bool all_fd;

	*stdin_ready = false;
	if (app->console && !ch->con.eof && ch->con.in_len == 0)
		pfd[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	/* The TAP only once a read found it empty: readiness, not reads. */
	if (ch->tap.fd >= 0 && ch->tap.n_pend == 0 && ch->tap.drained) {
		tap = n;
		pfd[n++] = (struct pollfd){ .fd = ch->tap.fd, .events = POLLIN };
	}
	first = n;
	if (worked || ns == 0) {
		ns = 0;
		/* Spinning: the TAP's readiness at most every 20 us. */
		if (tap < n && now - ch->tap_checked_ns < RSH_APP_TAP_CHECK_NS) {
			n--;
			first--;
			tap = RTE_DIM(pfd);
		} else if (tap < n) {
			ch->tap_checked_ns = now;
		}
	}
	else if (rsh_app_chan_arm(app, ch, dev, pfd, &n, &all_fd))
		ns = 0;
	else if (all_fd)
		ns = RSH_APP_FD_IDLE_NS;
	/* Spinning with nothing to learn from the kernel: no system call. */
	if (n == 0 && ns == 0)
		return;
	ts = rsh_ns_timespec(ns);
	if (ppoll(pfd, n, &ts, NULL) <= 0)
		return;
	if (first > 0 && pfd[0].fd == STDIN_FILENO)
		*stdin_ready = pfd[0].revents != 0;
	if (tap < n)
		rsh_tap_polled(&ch->tap, pfd[tap].revents);
}

/* Open the host ends after the channels are attached. Exit code. */
static int
rsh_app_chan_open(struct rsh_app *app, struct rsh_app_chan *ch,
		  struct rsh_dev *dev)
{
	int code = 0;

	ch->tap.fd = app->tap_fd;
	ch->tap.vnet = app->tap_vnet;
	ch->tap.offload_err = app->tap_offload_err;
	snprintf(ch->tap.name, sizeof(ch->tap.name), "tmfifo_net%u", app->tap_index);
	app->tap_fd = -1; /* owned by ch->tap now */
	if (ch->tap.fd >= 0)
		code = rsh_app_tap_config(&ch->tap, app->tap_index, app->ip);
	if (code == 0 && ch->tap.fd >= 0)
		rsh_app_tap_start(app, &ch->tap, dev);
	if (code == 0 && app->net != NULL && strcmp(app->net, "ethdev") == 0)
		code = rsh_app_ethdev_open(&ch->eth, dev, app->ip);
	if (code == 0 && app->console)
		code = rsh_app_console_open(&ch->con);
	if (code == 0 && !app->quiet && ch->tap.fd >= 0)
		fprintf(stderr, "rshim-pmd-app: %s is up%s%s%s\n", ch->tap.name,
			app->ip ? " with " : "", app->ip ? app->ip : "",
			ch->con.tty ? "\r" : "");
	if (code == 0 && !app->quiet && ch->eth.open)
		fprintf(stderr, "rshim-pmd-app: ethdev port %u (net_rshim0) answers ARP and ping for %s\n",
			ch->eth.port, app->ip ? app->ip : "192.168.100.1");
	return code;
}

/*
 * The loop: until Ctrl-] q, a signal, the end of pipe input, or the
 * device going away (exit code RSH_EXIT_GONE, one line).
 */
static int
rsh_app_chan_loop(struct rsh_app *app, struct rsh_app_chan *ch,
		  struct rsh_dev *dev)
{
	bool ready = false;
	unsigned int work;

	ch->idle_since = rsh_mono_ns();
	while (!__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED)) {
		if (rsh_tmfifo_status(dev) == -ENODEV) {
			if (ch->con.tty)
				rsh_app_tio_restore();
			rsh_app_err("%s", rsh_last_error());
			return RSH_EXIT_GONE;
		}
		work = 0;
		if (app->console) {
			work += rsh_app_console_step(&ch->con, dev, ready);
			if (ch->con.quit || rsh_app_console_done(app, &ch->con, dev))
				break;
		}
		if (ch->tap.fd >= 0)
			work += rsh_app_tap_step(&ch->tap, dev);
		if (ch->eth.open)
			work += rsh_app_ethdev_step(&ch->eth);
		rsh_app_chan_wait(app, ch, dev, work > 0, &ready);
	}
	return 0;
}

/* Attach the channels; the running poll loop takes them between passes.
 * Already attached (before a --push-boot, push_console.c): nothing to do. */
int
rsh_app_chan_attach(struct rsh_app *app, struct rsh_dev *dev)
{
	struct rsh_tmfifo_opts o;
	int rc;

	if (rsh_tmfifo_attached(dev))
		return 0;
	rsh_tmfifo_opts_default(&o);
	o.console = app->console;
	o.net = app->net != NULL;
	rc = rsh_tmfifo_attach(dev, &o);
	if (rc < 0) {
		rsh_app_err("%s", rsh_last_error());
		return rsh_app_exit_code(rc);
	}
	return 0;
}

/* --console and/or --net on an opened device with a running poller. */
int
rsh_app_channels(struct rsh_app *app, struct rsh_dev *dev, struct rsh_poller *p)
{
	struct rsh_app_chan ch;
	int code;

	memset(&ch, 0, sizeof(ch));
	ch.tap.fd = -1;
	code = rsh_app_chan_attach(app, dev);
	if (code != 0)
		return code;
	code = rsh_app_chan_open(app, &ch, dev);
	if (code == 0)
		code = rsh_app_chan_loop(app, &ch, dev);
	if (app->console)
		rsh_app_console_close(&ch.con);
	rsh_app_ethdev_close(&ch.eth);
	rsh_tap_close(&ch.tap);
	if (!app->quiet)
		rsh_app_tmfifo_stats(stderr, dev);
	if (!app->quiet && ch.tap.rx_frames + ch.tap.tx_frames > 0) {
		char line[512];

		rsh_tap_stats_line(&ch.tap, line, sizeof(line));
		fprintf(stderr, "rshim-pmd-app: stats %s: %s\n", ch.tap.name, line);
	}
	/* The poll loop lets go of the channels between two passes. */
	rsh_tmfifo_detach(dev);
	RTE_SET_USED(p);
	if (code == 0 && __atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED))
		code = RSH_EXIT_OK; /* a signal is the normal way to stop --net */
	return code;
}
