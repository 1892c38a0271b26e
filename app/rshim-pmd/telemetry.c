/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry: /rshim/list, /rshim/info,N and /rshim/stats,N, readable
 * with dpdk-telemetry.py (-f <file prefix>). Callbacks run on the telemetry
 * thread; they read the table under relay_mu (held only per pass).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "svc.h"

static struct rshd *rsh_svc_tel;

/* The service, as published by rsh_svc_telemetry_register(). */
static struct rshd *
rsh_svc_tel_get(void)
{
	return __atomic_load_n(&rsh_svc_tel, __ATOMIC_ACQUIRE);
}

/* The device named by the parameter "N" (rshimN), table locked. */
static struct rsh_svc_dev *
rsh_svc_tel_dev(const char *params)
{
	char *end;
	unsigned long n;

	if (params == NULL || params[0] == '\0')
		return NULL;
	n = strtoul(params, &end, 10);
	if (*end != '\0')
		return NULL;
	return rsh_svc_dev_by_index(rsh_svc_tel_get(), (unsigned int)n);
}

/* /rshim/list: the served indexes. */
static int
rsh_svc_tel_list(const char *cmd, const char *params, struct rte_tel_data *t)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_array(t, RTE_TEL_INT_VAL);
	pthread_mutex_lock(&rsh_svc_tel_get()->relay_mu);
	for (unsigned int i = 0; i < RSH_SVC_MAX_DEVS; i++)
		if (rsh_svc_tel_get()->devs[i].live)
			rte_tel_data_add_array_int(t, (int)rsh_svc_tel_get()->devs[i].index);
	pthread_mutex_unlock(&rsh_svc_tel_get()->relay_mu);
	return 0;
}

/* /rshim/info,N: names, generation, nodes, state. */
static int
rsh_svc_tel_info(const char *cmd, const char *params, struct rte_tel_data *t)
{
	struct rsh_dev_info inf;
	struct rsh_svc_dev *d;
	int rc = -EINVAL;
	bool pushing;

	(void)cmd;
	pthread_mutex_lock(&rsh_svc_tel_get()->relay_mu);
	d = rsh_svc_tel_dev(params);
	if (d != NULL && d->live && rsh_dev_get_info(d->dev, &inf) == 0) {
		rte_tel_data_start_dict(t);
		rte_tel_data_add_dict_string(t, "name", d->name);
		rte_tel_data_add_dict_string(t, "device", d->devstr);
		rte_tel_data_add_dict_string(t, "driver", inf.driver);
		rte_tel_data_add_dict_string(t, "generation", rsh_gen_name(inf.gen));
		rte_tel_data_add_dict_string(t, "nodes", d->mnt);
		rte_tel_data_add_dict_string(t, "console", d->cons.pts);
		rte_tel_data_add_dict_string(t, "network", d->tap.fd >= 0 ? d->tap.name : "");
		pthread_mutex_lock(&d->mu);
		pushing = d->boot != NULL || d->boot_opening;
		pthread_mutex_unlock(&d->mu);
		rte_tel_data_add_dict_string(t, "state",
			__atomic_load_n(&d->gone, __ATOMIC_RELAXED) ? "gone" :
			pushing ? "pushing" : "ready");
		rte_tel_data_add_dict_string(t, "ownership", "owned by this service (flock)");
		/* misc requests running a device command (a SW_RESET, a log read) */
		rte_tel_data_add_dict_int(t, "control_busy",
					  (int)__atomic_load_n(&d->ctl_busy, __ATOMIC_RELAXED));
		rc = 0;
	}
	pthread_mutex_unlock(&rsh_svc_tel_get()->relay_mu);
	return rc;
}

/* Boot and MMIO counters. */
static void
rsh_svc_tel_boot(struct rte_tel_data *t, struct rsh_svc_dev *d)
{
	struct rsh_mmio_stats mm;
	struct rsh_boot_stats bs;

	rsh_dev_get_stats(d->dev, &mm);
	pthread_mutex_lock(&d->mu);
	bs = d->last_boot;
	if (d->boot != NULL)
		rsh_boot_get_stats(d->boot, &bs);
	rte_tel_data_add_dict_u64(t, "boot_bytes_total", d->boot_bytes);
	rte_tel_data_add_dict_u64(t, "boot_pushes", d->boot_pushes);
	rte_tel_data_add_dict_u64(t, "boot_errors", d->boot_errors);
	rte_tel_data_add_dict_u64(t, "misc_writes", d->misc_writes);
	rte_tel_data_add_dict_u64(t, "reg_reads", d->reg_reads);
	rte_tel_data_add_dict_u64(t, "reg_writes", d->reg_writes);
	pthread_mutex_unlock(&d->mu);
	rte_tel_data_add_dict_u64(t, "boot_bytes_pushed", bs.bytes_pushed);
	rte_tel_data_add_dict_u64(t, "boot_fifo_full_waits", bs.fifo_full_waits);
	rte_tel_data_add_dict_u64(t, "boot_stalls", bs.stalls);
	rte_tel_data_add_dict_u64(t, "mmio_reads", mm.reads);
	rte_tel_data_add_dict_u64(t, "mmio_writes", mm.writes);
}

/* TM FIFO frames and drops by reason, per channel. */
static void
rsh_svc_tel_fifo(struct rte_tel_data *t, struct rsh_svc_dev *d)
{
	static const char *const ch_name[RSH_TMFIFO_NCHAN] = { "console", "net" };
	struct rsh_tmfifo_chan_stats c;
	char key[64];

	for (int ch = 0; ch < RSH_TMFIFO_NCHAN; ch++) {
		if (rsh_tmfifo_get_stats(d->dev, ch, &c, NULL) < 0)
			continue;
#define RSH_SVC_TEL_U64(f) do { \
		snprintf(key, sizeof(key), "%s_" #f, ch_name[ch]); \
		rte_tel_data_add_dict_u64(t, key, c.f); \
	} while (0)
		RSH_SVC_TEL_U64(tx_msgs);
		RSH_SVC_TEL_U64(rx_msgs);
		RSH_SVC_TEL_U64(tx_bytes);
		RSH_SVC_TEL_U64(rx_bytes);
		RSH_SVC_TEL_U64(tx_drop_oversize);
		RSH_SVC_TEL_U64(tx_drop_reset);
		RSH_SVC_TEL_U64(rx_drop_oversize);
		RSH_SVC_TEL_U64(rx_drop_closed);
		RSH_SVC_TEL_U64(rx_drop_reset);
		RSH_SVC_TEL_U64(tx_drop_gone);
#undef RSH_SVC_TEL_U64
	}
	rte_tel_data_add_dict_u64(t, "console_dropped_unread", d->cons.dropped);
	rte_tel_data_add_dict_u64(t, "console_to_dpu", d->cons.ep.to_dpu);
	rte_tel_data_add_dict_u64(t, "console_raw_restored", d->cons.raw_restored);
	rte_tel_data_add_dict_u64(t, "console_echo_dropped", d->cons.echo_dropped);
	rte_tel_data_add_dict_u64(t, "console_replays", d->cons.replays);
	rte_tel_data_add_dict_u64(t, "tap_rx_frames", d->tap.rx_frames);
	rte_tel_data_add_dict_u64(t, "tap_tx_frames", d->tap.tx_frames);
	rte_tel_data_add_dict_u64(t, "tap_offload", d->tap.offload);
	rte_tel_data_add_dict_u64(t, "tap_reads", d->tap.reads);
	rte_tel_data_add_dict_u64(t, "tap_writes", d->tap.writes);
	rte_tel_data_add_dict_u64(t, "tap_drop_down", d->tap.tx_down);
	rte_tel_data_add_dict_u64(t, "tap_write_errors", d->tap.tx_errors);
	rte_tel_data_add_dict_int(t, "tap_write_last_errno", d->tap.tx_last_errno);
#define RSH_SVC_TEL_OL(f) rte_tel_data_add_dict_u64(t, "tap_" #f, d->tap.ol.st.f)
	RSH_SVC_TEL_OL(csum_done);
	RSH_SVC_TEL_OL(gso_frames);
	RSH_SVC_TEL_OL(gso_segments);
	RSH_SVC_TEL_OL(gro_in);
	RSH_SVC_TEL_OL(gro_out);
	RSH_SVC_TEL_OL(gro_merged);
	RSH_SVC_TEL_OL(drop_short);
	RSH_SVC_TEL_OL(drop_bad_csum);
	RSH_SVC_TEL_OL(drop_bad_gso);
	RSH_SVC_TEL_OL(drop_gso_type);
	RSH_SVC_TEL_OL(drop_nombuf);
#undef RSH_SVC_TEL_OL
}

/* /rshim/stats,N. */
static int
rsh_svc_tel_stats(const char *cmd, const char *params, struct rte_tel_data *t)
{
	struct rsh_svc_dev *d;
	int rc = -EINVAL;

	(void)cmd;
	pthread_mutex_lock(&rsh_svc_tel_get()->relay_mu);
	d = rsh_svc_tel_dev(params);
	if (d != NULL && d->live) {
		rte_tel_data_start_dict(t);
		rsh_svc_tel_boot(t, d);
		rsh_svc_tel_fifo(t, d);
		rte_tel_data_add_dict_int(t, "gone", __atomic_load_n(&d->gone, __ATOMIC_RELAXED));
		rte_tel_data_add_dict_int(t, "owned", 1);
		/* The relay thread serves every device: service-wide. */
		rte_tel_data_add_dict_u64(t, "relay_wakeups",
			__atomic_load_n(&rsh_svc_tel_get()->relay_wakeups, __ATOMIC_RELAXED));
		rte_tel_data_add_dict_u64(t, "relay_timeouts",
			__atomic_load_n(&rsh_svc_tel_get()->relay_timeouts, __ATOMIC_RELAXED));
		rte_tel_data_add_dict_u64(t, "relay_wake_fd",
			__atomic_load_n(&rsh_svc_tel_get()->relay_wake_fd, __ATOMIC_RELAXED));
		rte_tel_data_add_dict_u64(t, "relay_timeouts_idle",
			__atomic_load_n(&rsh_svc_tel_get()->relay_timeouts_idle, __ATOMIC_RELAXED));
		rte_tel_data_add_dict_u64(t, "relay_timeouts_retry",
			__atomic_load_n(&rsh_svc_tel_get()->relay_timeouts_retry, __ATOMIC_RELAXED));
		rc = 0;
	}
	pthread_mutex_unlock(&rsh_svc_tel_get()->relay_mu);
	return rc;
}

/* Register the three commands. */
int
rsh_svc_telemetry_register(struct rshd *s)
{
	/* The telemetry thread runs since EAL init: publish first. */
	__atomic_store_n(&rsh_svc_tel, s, __ATOMIC_RELEASE);
	if (rte_telemetry_register_cmd("/rshim/list", rsh_svc_tel_list,
				       "Served rshim devices (the N of /dev/rshimN)") < 0 ||
	    rte_telemetry_register_cmd("/rshim/info", rsh_svc_tel_info,
				       "Device, generation, nodes, state. Parameters: N") < 0 ||
	    rte_telemetry_register_cmd("/rshim/stats", rsh_svc_tel_stats,
				       "Boot, MMIO and TM FIFO counters. Parameters: N") < 0)
		return -EINVAL;
	return 0;
}
