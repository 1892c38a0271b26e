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
 * The loop runs on the main lcore as the owner of the host end's pump
 * (app/common/rsh_pump.h), the service's relay loop with another policy:
 * it spins while data moves, then backs off adaptively
 * (RSH_PUMP_WAIT_ADAPTIVE), sleeping in ppoll() on stdin, the TAP and the
 * channels' wake-up eventfds, which the poll lcore signals when it queues
 * console or network data for us. So no data waits on a timeout; the
 * timeout only paces retries of work this side holds (keys or frames the
 * rings had no room for), the ethdev mode (no fd) and the pipe-mode
 * linger check. This file is the console endpoint's hooks (escape keys,
 * stdout) and the loop's exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "app.h"
#include "rsh_pump.h"

#define RSH_APP_ESC 0x1d /* Ctrl-] */
#define RSH_APP_BUSY_SLEEP_NS 20000ull
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

/* Keys from a TTY: handle the Ctrl-] escape, the rest into out. */
static size_t
rsh_app_console_keys(struct rsh_app_console *c, const char *buf, size_t n,
		     uint8_t *out, size_t cap)
{
	size_t i, k = 0;

	for (i = 0; i < n && k + 2 <= cap; i++) {
		if (c->esc) {
			c->esc = false;
			if (buf[i] == 'q' || buf[i] == 'Q') {
				c->quit = true;
				return k;
			}
			if (buf[i] != RSH_APP_ESC)
				out[k++] = RSH_APP_ESC;
			out[k++] = (uint8_t)buf[i];
		} else if (buf[i] == RSH_APP_ESC) {
			c->esc = true;
		} else {
			out[k++] = (uint8_t)buf[i];
		}
	}
	return k;
}

/* Write all of buf to stdout (blocking: stdout paces the console); the
 * bytes written (fewer when stdout is closed). */
size_t
rsh_app_write_all(const char *buf, size_t n)
{
	size_t done = 0;
	ssize_t k;

	fflush(stdout); /* lines printed before (a push summary) go first */
	while (done < n) {
		k = write(STDOUT_FILENO, buf + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		done += (size_t)k;
	}
	return done;
}

/* The pump's input hook: stdin, read when readable (half the room: an
 * escaped Ctrl-] doubles). */
static int
rsh_app_console_input(void *ctx, uint8_t *out, size_t cap, size_t *len)
{
	struct rsh_app_console *c = ctx;
	char buf[RSH_PUMP_TX / 2];
	ssize_t n;

	n = read(STDIN_FILENO, buf, RTE_MIN(sizeof(buf), cap / 2));
	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
		return -1;
	if (n < 0)
		return 0;
	if (c->tty) {
		*len = rsh_app_console_keys(c, buf, (size_t)n, out, cap);
	} else {
		memcpy(out, buf, (size_t)n);
		*len = (size_t)n;
	}
	return 1;
}

/* The pump's output hook: DPU output to stdout. */
static size_t
rsh_app_console_output(void *ctx, const uint8_t *p, size_t n)
{
	struct rsh_app_console *c = ctx;

	c->shown += n;
	c->last_out_ns = rsh_mono_ns();
	return rsh_app_write_all((const char *)p, n);
}

static const struct rsh_pump_cons_ops rsh_app_console_ops = {
	.input = rsh_app_console_input,
	.output = rsh_app_console_output,
};

/* State of one run of the channel loop (main lcore). */
struct rsh_app_chan {
	struct rsh_app_console con;
	struct rsh_tap tap;
	struct rsh_app_ethdev eth;
	struct rsh_pump pump;
	struct rsh_pump_ep con_ep, tap_ep;
};

/* Pipe mode is done: stdin ended, all sent, the console quiet a while. */
static bool
rsh_app_console_done(struct rsh_app *app, struct rsh_app_chan *ch,
		     struct rsh_dev *dev)
{
	struct rsh_tmfifo_chan_stats st;

	if (!ch->con_ep.eof || ch->con_ep.tx_len > 0 || app->net != NULL)
		return false;
	if (rsh_tmfifo_get_stats(dev, RSH_TMFIFO_CONSOLE, &st, NULL) < 0 ||
	    st.tx_bytes < ch->con_ep.to_dpu)
		return false;
	return rsh_mono_ns() - ch->con.last_out_ns > (uint64_t)(app->linger_s * 1e9);
}

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

/* The pump of this run: the console on stdin/stdout, the TAP; the
 * ethdev is a source without a descriptor. Exit code. */
static int
rsh_app_chan_pump(struct rsh_app *app, struct rsh_app_chan *ch,
		  struct rsh_dev *dev)
{
	struct rsh_pump_policy pol = {
		.wait = RSH_PUMP_WAIT_ADAPTIVE,
		.idle_ns = RSH_APP_FD_IDLE_NS,
		.ceiling_ns = rsh_app_chan_ceiling(app),
	};
	int rc = rsh_pump_init(&ch->pump, &pol);

	if (rc < 0) {
		rsh_app_err("cannot create an eventfd: %s", strerror(-rc));
		return RSH_EXIT_FAIL;
	}
	ch->pump.fdless = ch->eth.open;
	if (app->console) {
		rsh_pump_cons_init(&ch->con_ep, dev, STDIN_FILENO, STDOUT_FILENO,
				   &rsh_app_console_ops, &ch->con);
		rsh_pump_add(&ch->pump, &ch->con_ep);
	}
	if (ch->tap.fd >= 0) {
		rsh_pump_tap_init(&ch->tap_ep, dev, &ch->tap);
		rsh_pump_add(&ch->pump, &ch->tap_ep);
	}
	return 0;
}

/*
 * The loop: until Ctrl-] q, a signal, the end of pipe input, or the
 * device going away (exit code RSH_EXIT_GONE, one line).
 */
static int
rsh_app_chan_loop(struct rsh_app *app, struct rsh_app_chan *ch,
		  struct rsh_dev *dev)
{
	unsigned int work;

	while (!__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED)) {
		if (rsh_tmfifo_status(dev) == -ENODEV) {
			if (ch->con.tty)
				rsh_app_tio_restore();
			rsh_app_err("%s", rsh_last_error());
			return RSH_EXIT_GONE;
		}
		work = rsh_pump_work(&ch->pump);
		if (ch->con.quit || rsh_app_console_done(app, ch, dev))
			break;
		if (ch->eth.open)
			work += rsh_app_ethdev_step(&ch->eth);
		if (rsh_pump_prepare(&ch->pump, work))
			rsh_pump_sleep(&ch->pump);
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
	ch.pump.wake_fd = -1;
	code = rsh_app_chan_attach(app, dev);
	if (code != 0)
		return code;
	code = rsh_app_chan_open(app, &ch, dev);
	if (code == 0)
		code = rsh_app_chan_pump(app, &ch, dev);
	if (code == 0)
		code = rsh_app_chan_loop(app, &ch, dev);
	rsh_pump_fini(&ch.pump);
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
