/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --doctor, the device layers: the rshim answers register reads, nobody
 * else owns it (the open's ownership check, the SCRATCHPAD1 LOCK word,
 * hardware-notes §6.1-§6.3), the TM FIFO console answers a carriage
 * return, and the DPU answers ARP on the tmfifo network (its tmfifo_net0
 * is 192.168.100.2 by default, hardware-notes §4.8).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_mbuf.h>

#include "doctor.h"
#include "rsh_tmfifo_addr.h"

#define RSH_DOC_LOCK_HI 0x4B434F4Cu                /* "LOCK" in bytes 4..7 */
#define RSH_DOC_WAIT_STEP_NS 100000000L
#define RSH_DOC_FIFO_WAIT_STEPS 50                 /* 5 s */
#define RSH_DOC_NET_WAIT_STEPS 30                  /* 3 s */

/* tmfifo_net addresses: the host end and the DPU's default. */
static const uint8_t rsh_doc_host_mac[6] = RSH_TMFIFO_HOST_MAC;
static const uint8_t rsh_doc_host_ip[4] = { 192, 168, 100, 1 };
static const uint8_t rsh_doc_dpu_ip[4] = { 192, 168, 100, 2 };

/* Sleep one wait step; false when cancelled. */
static bool
rsh_doc_nap(void)
{
	struct timespec ts = { 0, RSH_DOC_WAIT_STEP_NS };

	nanosleep(&ts, NULL);
	return !__atomic_load_n(&rsh_app_cancel, __ATOMIC_RELAXED);
}

/* Open the device with both channels and a running poller; err: why not. */
static int
rsh_doc_dev_open(struct rsh_doc *d, char *err, size_t errlen)
{
	struct rsh_tmfifo_opts to;
	int rc;

	rc = rsh_app_dev_open(d->app, d->target, &d->dev, err, errlen);
	if (rc < 0)
		return rc;
	rsh_tmfifo_opts_default(&to);
	to.console = to.net = true;
	d->fifo_rc = rsh_tmfifo_attach(d->dev, &to);
	rc = rsh_poller_create(&d->app->poll, &d->poller);
	if (rc == 0)
		rc = rsh_poller_add(d->poller, d->dev);
	if (rc == 0)
		rc = rsh_poller_start(d->poller);
	if (rc < 0)
		snprintf(err, errlen, "%s",
			 rsh_last_error()[0] ? rsh_last_error() : strerror(-rc));
	return rc;
}

/* Layer 6: EAL, open, one register read. */
void
rsh_doc_reach(struct rsh_doc *d, int eal_argc, char **eal_argv)
{
	struct rsh_dev_info inf;
	char err[256] = "";
	uint64_t v = 0;
	int rc;

	if (d->app->device == NULL)
		d->app->device = d->target;
	if (rsh_app_eal_init(d->app, eal_argc, eal_argv) < 0) {
		rsh_doc_set(d, RSH_DOC_FAIL, "RSHIM_PMD_NO_HUGE=1 rshim-pmd-app --doctor",
			    "DPDK EAL did not start: %s", rsh_app_last_err);
		return;
	}
	d->eal_up = true;
	rc = rsh_doc_dev_open(d, err, sizeof(err));
	if (rc == -EBUSY) {
		d->busy = true;
		snprintf(d->busy_msg, sizeof(d->busy_msg), "%s", err);
		rsh_doc_set(d, RSH_DOC_WARN, NULL, "reachable, but in use (see owner)");
		return;
	}
	if (rc == 0) {
		rc = rsh_dev_reg_read(d->dev, RSH_BOOT_CONTROL, &v);
		if (rc < 0)
			snprintf(err, sizeof(err), "%s", rsh_last_error()[0] ?
				 rsh_last_error() : strerror(-rc));
	}
	if (rc < 0 || v == UINT64_MAX) {
		rsh_doc_set(d, RSH_DOC_FAIL, "rshim-devbind.py --status; if the DPU was just reset, wait and retry",
			    "cannot read the rshim: %s", rc < 0 ? err :
			    "registers read all-ones (device gone or in reset)");
		return;
	}
	rsh_dev_get_info(d->dev, &inf);
	rsh_doc_set(d, RSH_DOC_OK, NULL, "%s answers (BOOT_CONTROL %llu)",
		    rsh_gen_name(inf.gen), (unsigned long long)v);
}

/* Pid of a running rshim daemon, or 0. */
static long
rsh_doc_rshim_daemon(void)
{
	DIR *dir = opendir("/proc");
	struct dirent *e;
	char path[300], comm[32];
	long pid = 0;
	FILE *f;

	while (dir != NULL && pid == 0 && (e = readdir(dir)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) != NULL && strcmp(comm, "rshim\n") == 0)
			pid = strtol(e->d_name, NULL, 10);
		fclose(f);
	}
	if (dir != NULL)
		closedir(dir);
	return pid;
}

/*
 * Layer 7: nobody else owns the rshim. The library's open runs the
 * ownership check (a live keepalive of another driver in SCRATCHPAD1 makes
 * it -EBUSY, hardware-notes §6.3), so the doctor does not clear
 * SCRATCHPAD1 itself (the keepalive found there now may be this process's
 * own); it adds the secure-NIC LOCK word and a running rshim daemon.
 */
void
rsh_doc_owner(struct rsh_doc *d)
{
	const char *fix = "stop the other driver (systemctl stop rshim; rmmod rshim_pcie) or hand the rshim over from the BMC";
	long pid = rsh_doc_rshim_daemon();
	uint64_t v = 0;

	if (d->busy) {
		rsh_doc_set(d, RSH_DOC_FAIL, fix, "the rshim is owned elsewhere: %s", d->busy_msg);
		return;
	}
	if (rsh_dev_reg_read(d->dev, RSH_SCRATCHPAD1, &v) < 0)
		v = 0;
	if (v >> 32 == RSH_DOC_LOCK_HI) {
		rsh_doc_set(d, RSH_DOC_FAIL, "leave secure NIC mode on the DPU (its documentation: SECURE_NIC_MODE)",
			    "the DPU is in secure NIC mode (SCRATCHPAD1 LOCK): boot and console are refused");
		return;
	}
	if (pid != 0)
		rsh_doc_set(d, RSH_DOC_WARN, "systemctl stop rshim",
			    "opened, but an rshim daemon runs on this host (pid %ld)", pid);
	else
		rsh_doc_set(d, RSH_DOC_OK, NULL, "no other owner");
}

/* Layer 8: the TM FIFO console answers a carriage return. */
void
rsh_doc_fifo(struct rsh_doc *d)
{
	const char *fix = "boot the DPU (rshim-pmd-app --push-boot FILE) and check that its mlxbf-tmfifo console (hvc0) runs a getty";
	char buf[256];
	size_t got = 0;

	if (d->fifo_rc < 0) {
		rsh_doc_set(d, RSH_DOC_FAIL, fix, "cannot open the TM FIFO: %s",
			    rsh_last_error()[0] ? rsh_last_error() : strerror(-d->fifo_rc));
		return;
	}
	if (rsh_tmfifo_console_write(d->dev, "\r", 1) != 1) {
		rsh_doc_set(d, RSH_DOC_FAIL, fix, "the console channel takes no data");
		return;
	}
	rsh_dev_notify(d->dev);
	for (int i = 0; i < RSH_DOC_FIFO_WAIT_STEPS && got == 0 && rsh_doc_nap(); i++)
		got = rsh_tmfifo_console_read(d->dev, buf, sizeof(buf));
	if (got == 0)
		rsh_doc_set(d, RSH_DOC_FAIL, fix, "no answer on the console within 5 s");
	else
		rsh_doc_set(d, RSH_DOC_OK, NULL, "the console answered (%zu bytes)", got);
}

/* An ARP request from the host end for the DPU's address (RFC 826). */
static struct rte_mbuf *
rsh_doc_arp_request(struct rsh_doc *d)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rsh_tmfifo_pool(d->dev));
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, 60);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0, 60);
	memset(p, 0xff, 6);                           /* broadcast */
	memcpy(p + 6, rsh_doc_host_mac, 6);
	p[12] = 0x08; p[13] = 0x06;                   /* ARP */
	p[15] = 1; p[16] = 0x08; p[18] = 6; p[19] = 4; /* Ethernet, IPv4 */
	p[21] = 1;                                    /* request */
	memcpy(p + 22, rsh_doc_host_mac, 6);
	memcpy(p + 28, rsh_doc_host_ip, 4);
	memcpy(p + 38, rsh_doc_dpu_ip, 4);
	return m;
}

/* True when a frame is the DPU's ARP reply to us. */
static bool
rsh_doc_is_arp_reply(struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	return rte_pktmbuf_data_len(m) >= 42 && p[12] == 0x08 && p[13] == 0x06 &&
	       p[21] == 2 && memcmp(p + 28, rsh_doc_dpu_ip, 4) == 0;
}

/* Layer 9: the DPU answers ARP on the tmfifo network. */
void
rsh_doc_net(struct rsh_doc *d)
{
	struct rte_mbuf *req = rsh_doc_arp_request(d), *rx[16];
	bool answered = false;

	if (req == NULL || rsh_tmfifo_net_tx_burst(d->dev, &req, 1) != 1) {
		rte_pktmbuf_free(req);
		rsh_doc_set(d, RSH_DOC_FAIL, NULL, "cannot queue a frame on the network channel");
		return;
	}
	rsh_dev_notify(d->dev);
	for (int i = 0; i < RSH_DOC_NET_WAIT_STEPS && !answered && rsh_doc_nap(); i++) {
		uint16_t n = rsh_tmfifo_net_rx_burst(d->dev, rx, RTE_DIM(rx));

		for (uint16_t k = 0; k < n; k++) {
			answered |= rsh_doc_is_arp_reply(rx[k]);
			rte_pktmbuf_free(rx[k]);
		}
	}
	if (answered)
		rsh_doc_set(d, RSH_DOC_OK, NULL, "192.168.100.2 answered ARP on the tmfifo network");
	else
		rsh_doc_set(d, RSH_DOC_FAIL, "on the DPU: ip addr add 192.168.100.2/24 dev tmfifo_net0; ip link set tmfifo_net0 up",
			    "no ARP answer from 192.168.100.2 within 3 s");
}

/* Stop the poller, close the device, stop EAL. */
void
rsh_doc_dev_close(struct rsh_doc *d)
{
	rsh_poller_destroy(d->poller);
	d->poller = NULL;
	if (d->dev != NULL && rsh_tmfifo_attached(d->dev))
		rsh_tmfifo_detach(d->dev);
	rsh_dev_close(d->dev);
	d->dev = NULL;
	if (d->eal_up)
		rte_eal_cleanup();
	d->eal_up = false;
}
