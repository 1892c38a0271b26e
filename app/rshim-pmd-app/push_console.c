/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --push-boot FILE --console: the DPU console shown while the boot
 * streams. The channels are attached before the push starts, so the poll
 * loop reads the console during the push (what the ARM prints as it
 * boots); the push's progress hooks call rsh_app_push_console_show(),
 * which writes what arrived to stdout. On a terminal, the progress bar's
 * line on stderr is cleared first so console text never lands in the
 * middle of it, and a console line left open (a prompt) is ended on
 * stderr so the bar's carriage return cannot overwrite it; the bar is
 * redrawn on the next tick. After a good push
 * the same channels serve the interactive console (rsh_app_channels).
 */
#include <stdbool.h>
#include <stdio.h>

#include "app.h"

/* Attach the channels before a push when --console (or --net) follows. */
int
rsh_app_push_console_begin(struct rsh_app *app, struct rsh_dev *dev)
{
	if (!app->console)
		return RSH_EXIT_OK;
	return rsh_app_chan_attach(app, dev);
}

/* Write what the DPU printed to stdout; true when anything was shown. */
bool
rsh_app_push_console_show(struct rsh_dev *dev, bool clear_bar)
{
	char out[4096], last = '\n';
	bool shown = false;
	size_t n;

	if (!rsh_tmfifo_attached(dev))
		return false;
	while ((n = rsh_tmfifo_console_read(dev, out, sizeof(out))) > 0) {
		if (!shown && clear_bar) {
			fputs("\r\033[K", stderr);
			fflush(stderr);
		}
		shown = true;
		rsh_app_write_all(out, n);
		last = out[n - 1];
	}
	/* A partial line (a prompt) would be overwritten by the bar's \r:
	 * the bar goes to the next line instead. */
	if (shown && clear_bar && last != '\n') {
		fputs("\r\n", stderr);
		fflush(stderr);
	}
	return shown;
}

/* A failed push ends the run: let go of the channels attached for it. */
void
rsh_app_push_console_end(struct rsh_app *app, struct rsh_dev *dev, int code)
{
	if (app->console && code != RSH_EXIT_OK && rsh_tmfifo_attached(dev))
		rsh_tmfifo_detach(dev);
}
