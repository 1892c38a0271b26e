/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The relay thread: console PTYs and tmfifo_netN TAPs of every device.
 *
 * Console: a PTY per device (console.c: one owner, kept raw, output held
 * for the next opener). The PTY lives as long as the device is served,
 * across DPU reboots.
 *
 * TAP: tmfifo_netN, IFF_TAP|IFF_NO_PI, MAC 00:1A:CA:FF:FF:02 + 2·N, MTU
 * 1500, up (hardware-notes §4.8), for the life of the service; 64 KiB
 * reads and writes with TSO/GRO in user space unless NET_OFFLOAD is 0;
 * opened and configured as rshim-pmd-app does it (app/common/rsh_tap.h).
 *
 * The thread is the owner of a pump (app/common/rsh_pump.h) that sleeps
 * on descriptors only (RSH_PUMP_WAIT_FD): the channels' wake-up eventfds,
 * the PTY masters and their inotify, the TAPs and the pump's wake eventfd
 * (table changes, stop). It has no periodic tick: a 1 s housekeeping
 * timeout only, or 1 ms while bytes wait for room in a channel (the rings
 * have no "room again" fd). Devices join and leave the pump as main
 * publishes them (rsh_svc_relay_attach).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_mbuf.h>

#include "rsh_pump.h"
#include "svc.h"

#define RSH_SVC_HOUSEKEEP_MS 1000 /* idle timeout: housekeeping only */
#define RSH_SVC_RETRY_MS 1        /* bytes wait for room in a channel */

/* Spawn attributes for a child: the signals the service blocks or
 * ignores (SIGTERM, SIGINT, SIGHUP, SIGPIPE) as a fresh process has them. */
static void
rsh_svc_spawn_attr(posix_spawnattr_t *a)
{
	sigset_t none, dflt;

	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	posix_spawnattr_init(a);
	posix_spawnattr_setsigmask(a, &none);
	posix_spawnattr_setsigdefault(a, &dflt);
	posix_spawnattr_setflags(a, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

/*
 * `ifup tmfifo_netN`, as NVIDIA's daemon runs when it creates the TAP, so
 * an ifupdown stanza (/etc/network/interfaces) gives it its address.
 * Only when ifup is on PATH; not waited for (the main loop reaps it), its
 * outcome is ifupdown's. systemd-networkd needs nothing: a .network file
 * matching the name applies to the new link by itself.
 */
static void
rsh_svc_ifup(struct rsh_svc_dev *d)
{
	char *argv[] = { "ifup", d->tap.name, NULL };
	const char *path = getenv("PATH");
	char exe[PATH_MAX], dirs[4096], *save = NULL;
	posix_spawnattr_t attr;
	pid_t pid;
	int rc;

	snprintf(dirs, sizeof(dirs), "%s", path != NULL ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
	for (char *dir = strtok_r(dirs, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
		snprintf(exe, sizeof(exe), "%.2000s/ifup", dir);
		if (access(exe, X_OK) != 0)
			continue;
		rsh_svc_spawn_attr(&attr);
		rc = posix_spawn(&pid, exe, NULL, &attr, argv, environ);
		posix_spawnattr_destroy(&attr);
		if (rc != 0) {
			RSH_SVC_LOG(WARNING, d->name, "cannot run %s %s: %s", exe, d->tap.name,
				    strerror(rc));
			return;
		}
		RSH_SVC_LOG(INFO, d->name, "ran %s %s (pid %d)", exe, d->tap.name, (int)pid);
		return;
	}
}

/* Create tmfifo_net<N> (with TSO/GRO unless NET_OFFLOAD 0), configured
 * and up; a device without one is served without network. */
int
rsh_svc_tap_open(struct rsh_svc_dev *d)
{
	bool offload = d->svc->conf.net_offload;
	struct rsh_tap *t = &d->tap;
	const char *what = "";
	char name[16];
	int rc;

	snprintf(name, sizeof(name), "tmfifo_net%u", d->index);
	rc = rsh_tap_open(t, d->index, offload, &what);
	if (rc == -EEXIST && strcmp(what, "name") == 0) {
		RSH_SVC_LOG(ERR, d->name, "%s already exists (another rshim daemon?); the device is served without network",
			    name);
		return 0;
	}
	if (rc == 0)
		rc = rsh_tap_config(t, d->index, NULL, &what);
	if (rc < 0) {
		RSH_SVC_LOG(ERR, d->name, "cannot create %s: %s (needs CAP_NET_ADMIN and the tun module); served without network",
			    name, strerror(-rc));
		rsh_svc_tap_close(d);
		return 0;
	}
	rsh_tap_start(t, d->dev);
	rsh_svc_ifup(d);
	if (offload && t->offload_err != 0)
		RSH_SVC_LOG(WARNING, d->name, "%s: no TSO/GRO offloads (%s): plain 1514-byte frames",
			    t->name, strerror(t->offload_err));
	return 0;
}

/* Link down while the device is gone, up when it is back. */
void
rsh_svc_tap_set_up(struct rsh_svc_dev *d, bool up)
{
	if (d->tap.fd >= 0 && rsh_tap_set_up(d->tap.name, up) < 0)
		RSH_SVC_LOG(WARNING, d->name, "cannot set %s %s", d->tap.name, up ? "up" : "down");
}

/* Close the TAP: the kernel removes the interface. */
void
rsh_svc_tap_close(struct rsh_svc_dev *d)
{
	rsh_tap_close(&d->tap);
}

/*
 * Show or hide a device's endpoints to the pump (main, relay_mu held, as
 * it publishes the device): the console PTY when it has one, the TAP
 * (which idles while the device has none).
 */
void
rsh_svc_relay_attach(struct rshd *s, struct rsh_svc_dev *d, bool live)
{
	rsh_pump_remove(&s->pump, &d->cons.ep);
	rsh_pump_remove(&s->pump, &d->tap_ep);
	if (!live)
		return;
	if (d->cons.master >= 0)
		rsh_pump_add(&s->pump, &d->cons.ep);
	rsh_pump_tap_init(&d->tap_ep, d->dev, &d->tap);
	rsh_pump_add(&s->pump, &d->tap_ep);
}

/* Count one ppoll return (n) by its reason. */
static void
rsh_svc_relay_count(struct rshd *s, int n, bool retry)
{
	__atomic_fetch_add(&s->relay_wakeups, 1, __ATOMIC_RELAXED);
	if (n > 0) {
		__atomic_fetch_add(&s->relay_wake_fd, 1, __ATOMIC_RELAXED);
		return;
	}
	if (n < 0)
		return; /* a signal */
	__atomic_fetch_add(&s->relay_timeouts, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(retry ? &s->relay_timeouts_retry : &s->relay_timeouts_idle,
			   1, __ATOMIC_RELAXED);
}

/*
 * The relay loop: a pass over every published device (a gone one too:
 * what is typed or sent then is dropped, and counted, by the channel),
 * then sleep until an fd or the timeout.
 */
static void *
rsh_svc_relay_thread(void *arg)
{
	struct rshd *s = arg;
	unsigned int work;
	bool sleep;
	int n;

	while (__atomic_load_n(&s->relay_run, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&s->relay_mu);
		work = rsh_pump_work(&s->pump);
		sleep = rsh_pump_prepare(&s->pump, work);
		pthread_mutex_unlock(&s->relay_mu);
		if (!sleep)
			continue;
		n = rsh_pump_sleep(&s->pump);
		rsh_svc_relay_count(s, n, s->pump.held);
	}
	return NULL;
}

/*
 * Wake the relay thread (table changed, device back, stop). Any thread,
 * without relay_mu: the wake eventfd is created before the first device
 * (and its FUSE threads, which kick from rsh_svc_cons_target) and closed
 * by rsh_svc_relay_stop only after every device's nodes stopped
 * (rsh_svc_stop_all), so no kick can write to it while it is closed or
 * its number reused.
 */
void
rsh_svc_relay_kick(struct rshd *s)
{
	if (s->pump.wake_fd >= 0)
		rsh_pump_kick(&s->pump);
}

/* The relay's pump, before any device is published; 0 or -errno. */
int
rsh_svc_relay_init(struct rshd *s)
{
	struct rsh_pump_policy pol = {
		.wait = RSH_PUMP_WAIT_FD,
		.idle_ns = RSH_SVC_HOUSEKEEP_MS * RSH_MONO_NS_PER_MS,
		.retry_ns = RSH_SVC_RETRY_MS * RSH_MONO_NS_PER_MS,
	};
	int rc;

	pthread_mutex_lock(&s->relay_mu);
	rc = rsh_pump_init(&s->pump, &pol);
	pthread_mutex_unlock(&s->relay_mu);
	if (rc < 0)
		RSH_SVC_LOG(ERR, "-", "cannot create the relay wake-up eventfd: %s", strerror(-rc));
	return rc;
}

/* Start the relay thread. */
int
rsh_svc_relay_start(struct rshd *s)
{
	__atomic_store_n(&s->relay_run, 1, __ATOMIC_RELEASE);
	if (pthread_create(&s->relay, NULL, rsh_svc_relay_thread, s) != 0)
		return -EAGAIN;
	s->relay_started = true;
	return 0;
}

/* Stop and join the relay thread; close its pump. After the devices'
 * nodes stopped: nothing else kicks it then (rsh_svc_relay_kick). */
void
rsh_svc_relay_stop(struct rshd *s)
{
	if (s->relay_started) {
		__atomic_store_n(&s->relay_run, 0, __ATOMIC_RELEASE);
		rsh_svc_relay_kick(s);
		pthread_join(s->relay, NULL);
		s->relay_started = false;
	}
	pthread_mutex_lock(&s->relay_mu);
	rsh_pump_fini(&s->pump);
	pthread_mutex_unlock(&s->relay_mu);
}
