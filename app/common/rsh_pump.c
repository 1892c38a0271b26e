/* SPDX-License-Identifier: BSD-3-Clause */
/* The host end's pump steps shared by both owners, see rsh_pump.h. */
#include "rsh_pump.h"

/* Add and arm the channel's wake-up; true when data already waits. */
bool
rsh_pump_chan_arm(struct rsh_dev *dev, enum rsh_tmfifo_chan ch,
		  struct pollfd *pfd, nfds_t *n)
{
	int fd = rsh_tmfifo_rx_fd(dev, ch);

	if (fd < 0)
		return false;
	pfd[(*n)++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	return rsh_tmfifo_rx_arm(dev, ch);
}

/* TAP → DPU, then DPU → TAP. */
unsigned int
rsh_pump_tap(struct rsh_tap *t, struct rsh_dev *dev)
{
	return rsh_tap_to_dpu(t, dev) + rsh_tap_from_dpu(t, dev);
}
