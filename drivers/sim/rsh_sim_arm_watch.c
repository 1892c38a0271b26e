/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Readiness of the emulated DPU's Linux ends (TAP and shell PTY) without
 * polling them with read(): a small thread blocks in poll() on the
 * descriptors the ARM model found empty and raises a flag when one turns
 * readable; the model reads only flagged descriptors. When a read finds a
 * descriptor empty again the model drops its flag and writes the wake-up
 * eventfd, so the thread adds it back to its poll set.
 *
 * Threads: the flags are the only state shared with the ARM model (the
 * thread doing the MMIO); the watcher never touches registers or the
 * peer's data, only poll() on its descriptors.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rsh_sim_arm_priv.h"

struct rsh_sim_arm_watch {
	pthread_t th;
	int efd;                   /* wake-up: a flag was dropped, or stop */
	int fd[RSH_SIM_ARM_WATCH_N];
	int ready[RSH_SIM_ARM_WATCH_N]; /* 1: readable, the model reads */
	int stop;
};

/* Block until a watched descriptor is readable or the model wakes us. */
static void *
rsh_sim_arm_watch_thread(void *arg)
{
	struct rsh_sim_arm_watch *w = arg;
	struct pollfd pfd[RSH_SIM_ARM_WATCH_N + 1];
	int map[RSH_SIM_ARM_WATCH_N + 1];
	unsigned int i, n;
	uint64_t v;

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = w->efd, .events = POLLIN };
		for (i = 0; i < RSH_SIM_ARM_WATCH_N; i++) {
			if (w->fd[i] < 0 || __atomic_load_n(&w->ready[i], __ATOMIC_ACQUIRE))
				continue;
			map[n] = (int)i;
			pfd[n++] = (struct pollfd){ .fd = w->fd[i], .events = POLLIN };
		}
		if (poll(pfd, n, -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents != 0 && read(w->efd, &v, sizeof(v)) < 0)
			v = 0;
		for (i = 1; i < n; i++)
			if (pfd[i].revents != 0)
				__atomic_store_n(&w->ready[map[i]], 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Start watching net_fd and con_fd (either may be -1). 0 or -errno. */
int
rsh_sim_arm_watch_start(struct rsh_sim_arm_watch **out, int net_fd, int con_fd)
{
	struct rsh_sim_arm_watch *w = calloc(1, sizeof(*w));
	int rc;

	*out = NULL;
	if (w == NULL)
		return -ENOMEM;
	w->fd[RSH_SIM_ARM_WATCH_NET] = net_fd;
	w->fd[RSH_SIM_ARM_WATCH_CON] = con_fd;
	/* Start as readable: the first read finds out. */
	w->ready[RSH_SIM_ARM_WATCH_NET] = w->ready[RSH_SIM_ARM_WATCH_CON] = 1;
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0) {
		rc = -errno;
		free(w);
		return rc;
	}
	rc = pthread_create(&w->th, NULL, rsh_sim_arm_watch_thread, w);
	if (rc != 0) {
		close(w->efd);
		free(w);
		return -rc;
	}
	*out = w;
	return 0;
}

/* Wake the thread (a flag dropped, or stop). */
static void
rsh_sim_arm_watch_kick(struct rsh_sim_arm_watch *w)
{
	uint64_t one = 1;

	if (write(w->efd, &one, sizeof(one)) < 0)
		one = 0; /* counter full: the thread is awake anyway */
}

/* Stop the thread, free (NULL: nothing). */
void
rsh_sim_arm_watch_stop(struct rsh_sim_arm_watch *w)
{
	if (w == NULL)
		return;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	rsh_sim_arm_watch_kick(w);
	pthread_join(w->th, NULL);
	close(w->efd);
	free(w);
}

/* May the model read descriptor i? (Always, without a watcher.) */
bool
rsh_sim_arm_watch_ready(struct rsh_sim_arm_watch *w, unsigned int i)
{
	return w == NULL || __atomic_load_n(&w->ready[i], __ATOMIC_ACQUIRE) != 0;
}

/* A read found descriptor i empty: watch it again. */
void
rsh_sim_arm_watch_empty(struct rsh_sim_arm_watch *w, unsigned int i)
{
	if (w == NULL)
		return;
	__atomic_store_n(&w->ready[i], 0, __ATOMIC_RELEASE);
	rsh_sim_arm_watch_kick(w);
}
