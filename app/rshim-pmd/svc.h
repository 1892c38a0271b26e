/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rshim-pmd, the service: every rshim function of the host served from one
 * poll lcore as /dev/rshimN/{boot,console,misc,rshim}, with tmfifo_netN.
 *
 * Threads:
 *  - main: options, config, SIGHUP/SIGTERM, device table, health checks;
 *  - one FUSE session thread group per device (the nodes);
 *  - one relay thread: console PTYs and TAPs of every device;
 *  - the poll lcore (inside the library): the hardware.
 * The device table (struct rshd) is changed by main only, holding
 * relay_mu (the relay thread and telemetry read it under that lock).
 * Devices join and leave the running poll loop (rsh_poller_add/remove).
 */
#ifndef RSH_SVC_H
#define RSH_SVC_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <rte_log.h>

#include "rsh.h"
#include "rsh_mono.h"
#include "rsh_pump.h"
#include "rsh_tap.h"

#define RSH_SVC_MAX_DEVS 16
#define RSH_SVC_MAX_CONF 64
#define RSH_SVC_CONS_BUF (64u * 1024u)
/* A device owned elsewhere at open: a takeover try every this many
 * health checks (one a second; a try watches SCRATCHPAD1 up to 1 s). */
#define RSH_SVC_TAKE_EVERY 3u
#ifndef RSH_SVC_SYSCONFDIR
#define RSH_SVC_SYSCONFDIR "/etc"
#endif
/* The configuration, and NVIDIA's file read when it is absent. */
#define RSH_SVC_CONF_DEFAULT RSH_SVC_SYSCONFDIR "/rshim-pmd.conf"
#define RSH_SVC_CONF_NVIDIA "/etc/rshim.conf"
/* Content of a configuration line, comments not counted (any length). */
#define RSH_SVC_CONF_LINE_MAX 1024u

/* Exit codes (documented in rshim-pmd.8). */
enum rsh_svc_exit {
	RSH_SVC_EXIT_OK = 0,
	RSH_SVC_EXIT_FAIL = 1,     /* runtime failure (FUSE, EAL, no device) */
	RSH_SVC_EXIT_USAGE = 2,    /* bad option or configuration line */
	RSH_SVC_EXIT_BUSY = 3,     /* a device is held by another process */
};

/* Configuration (rshim-pmd.conf + options). Main thread. */
struct rsh_svc_conf {
	struct {
		char dev[RSH_DEV_NAME_MAX];
		int index;                 /* rshimN, -1 for "none" lines */
	} map[RSH_SVC_MAX_CONF];
	unsigned int n_map;
	unsigned int boot_timeout_s;       /* BOOT_TIMEOUT (300) */
	int reset_delay_s;                 /* PCIE_RESET_DELAY, -1 default */
	int drop_mode;                     /* DROP_MODE, -1 unset */
	bool force_mode;                   /* FORCE_MODE / -F */
	int display_level;                 /* DISPLAY_LEVEL (0) */
	bool has_vfio, has_uio;            /* PCIE_HAS_VFIO / PCIE_HAS_UIO */
	unsigned int intr_poll_ms;         /* PCIE_INTR_POLL_INTERVAL (10) */
	char group[32];                    /* NODE_GROUP: lab users' group */
	unsigned int rescan_s;             /* RESCAN_INTERVAL (0 = SIGHUP only) */
	bool net_offload;                  /* NET_OFFLOAD (1): TSO/GRO on tmfifo_netN */
	bool rt_boost;                     /* POLL_RT_BOOST (1): raised while a push streams */
	unsigned int rt_cap_pct;           /* POLL_RT_CAP (90): its CPU cap, % of a core */
	unsigned int usb_timeout_s;        /* USB_TIMEOUT (40): shown in misc */
	unsigned int usb_reset_delay_s;    /* USB_RESET_DELAY (1): -c -p only */
};

/* Console end of a device: a PTY whose slave is /dev/rshimN/console
 * (console.c). Relay thread, except users/ino/opens (mu). */
struct rsh_svc_cons {
	int master;                /* -1 when none; packet mode (TIOCPKT) */
	int slave;                 /* kept open: the line's flags are checked on it */
	int ino;                   /* inotify: client opens and closes of pts */
	char pts[32];              /* /dev/pts/N */
	pthread_mutex_t mu;        /* guards users, excl, opens, ino reads, grace */
	bool mu_inited;
	unsigned int users;        /* clients with pts open */
	bool excl;                 /* TIOCEXCL set on the line (users > 0) */
	uint64_t opens;
	uint64_t grace_until;      /* ns: a flush until then is the opener's */
	uint64_t grace;            /* relay's copy of grace_until */
	uint64_t seen_opens;       /* relay: opens its replay state is for */
	uint8_t buf[RSH_SVC_CONS_BUF]; /* DPU → PTY bytes not yet shown */
	size_t head, len;
	uint8_t replay[RSH_SVC_CONS_BUF]; /* shown since the open (grace) */
	size_t replay_len, replay_pos;
	struct rsh_pump_ep ep;     /* the PTY as the pump's endpoint: PTY → DPU
				    * bytes not taken yet, to_dpu/from_dpu */
	bool unsafe;               /* DPU output shown since the last read */
	uint64_t dropped;          /* relay thread writes */
	uint64_t raw_restored, echo_dropped, replays;
};

/* Where the console link points while it cannot be opened. */
#define RSH_SVC_CONS_IN_USE ".in-use"
#define RSH_SVC_CONS_LOCKED ".secure-nic-mode"

/*
 * One served device. Fields are written by main unless marked. A slot is
 * claimed and freed (used) and published (live) under relay_mu; the relay
 * thread and telemetry touch only live slots, under relay_mu, so main
 * opens and tears a device down outside the lock.
 */
struct rsh_svc_dev {
	struct rshd *svc;
	bool used;                 /* slot claimed (relay_mu to write) */
	bool live;                 /* served: relay and telemetry see it (relay_mu) */
	char devstr[RSH_DEV_NAME_MAX];
	unsigned int index;        /* N of rshimN / tmfifo_netN */
	char name[16];             /* "rshimN" */
	char mnt[PATH_MAX];        /* DIR/rshimN */
	struct rsh_dev *dev;
	uint8_t revision;
	int lock_fd;
	bool gone;                 /* all-ones: nodes answer ENODEV (atomic) */
	bool in_poller;
	bool own_wait;             /* another driver owned it at open: dropped
				    * until it lets go (health check) */
	bool attach_pending;       /* TM FIFO not attached yet (dropped or
				    * secure NIC mode at open) */
	unsigned int own_tries;    /* health checks while own_wait */
	char link[128];            /* PCIe link as last logged (link.c) */
	/* nodes (FUSE threads) */
	struct rsh_svc_fuse *fuse;
	pthread_mutex_t mu;        /* guards the fields below (never held
				    * across a device wait) */
	struct rsh_boot *boot;     /* the one boot writer's push, or NULL */
	bool boot_opening;         /* the slot's open sequence runs */
	bool boot_closing;         /* the slot's push is ending (tail, BOOT_CONTROL) */
	bool boot_ending;          /* no new write may take the push */
	bool boot_wrote;           /* the slot's open wrote data */
	uint64_t boot_gen;         /* generation (FUSE fh) of the slot's open */
	uint64_t boot_released;    /* generation of the last boot release the
				    * session loop read (its reader thread) */
	uint64_t boot_next_gen;
	unsigned int boot_users;   /* writes in flight on boot */
	uint64_t boot_cancels;     /* rsh_svc_boot_cancel() calls */
	pthread_cond_t boot_cv;    /* with mu: users, slot and cancels changed */
	int boot_cancel;           /* the push's cancel flag (atomic) */
	int boot_stopped;          /* 1: cancelled because the service stops
				    * (atomic): the writer gets EIO, not EINTR */
	uid_t boot_uid;
	pid_t boot_pid;
	uint64_t boot_bytes;       /* total pushed through the node */
	uint64_t boot_pushes, boot_errors;
	struct rsh_boot_stats last_boot;
	int display_level;
	unsigned int boot_timeout_s;
	bool clear_on_read;
	bool boot_reset_skip;
	uint64_t misc_writes, reg_reads, reg_writes;
	unsigned int ctl_busy;     /* misc reads/writes running a device command
				    * (atomic): the health check waits its turn */
	int ctl_cancel;            /* set when the nodes stop: a SW_RESET's
				    * reset delay ends (atomic) */
	/* relay thread */
	struct rsh_svc_cons cons;
	struct rsh_tap tap;        /* tmfifo_netN (app/common/rsh_tap.h) */
	struct rsh_pump_ep tap_ep; /* the TAP as the pump's endpoint */
};

/* The service. */
struct rshd {
	const char *prog;
	const char *conf_path;     /* -C FILE, else rsh_svc_conf_pick() */
	bool conf_required;        /* -C given: the file must exist */
	const char *dev_dir;       /* /dev */
	const char *run_dir;       /* /run/rshim-pmd */
	const char *file_prefix;   /* DPDK file prefix (telemetry socket) */
	FILE *log_stream;          /* syslog stream when daemonised */
	bool foreground, no_net, force, verbose;
	int log_level;             /* -l, NVIDIA's 0-4 scale */
#define RSH_SVC_MAX_LOG_TYPES 8
	const char *log_types[RSH_SVC_MAX_LOG_TYPES]; /* --log-type T:L */
	unsigned int n_log_types;
	int first_index;           /* -i */
	const char *only_dev[RSH_SVC_MAX_DEVS]; /* -d / --sim */
	unsigned int n_only;
	bool sim_only;             /* --sim given: no PCI scan */
	bool allow_list;           /* -d given: serve those only (as rshim -d) */
	gid_t group_gid;           /* node group, (gid_t)-1 root only */
	struct rsh_svc_conf conf;     /* main thread only */
	int reset_delay_s;            /* conf's PCIE_RESET_DELAY for FUSE threads (atomic) */
	struct rsh_svc_dev devs[RSH_SVC_MAX_DEVS];
	struct {
		char dev[RSH_DEV_NAME_MAX];
		int index;
	} hist[RSH_SVC_MAX_CONF];     /* indexes devices had this run (main) */
	unsigned int n_hist;
	struct rsh_poller *poller;
	struct rsh_poll_opts poll;
	struct rsh_open_opts open;
	/* PCIE_HAS_VFIO/PCIE_HAS_UIO as the PCI backend's mapping= devarg
	 * (NULL: VFIO, then UIO, then direct) */
	const char *pci_mapping;
	const char *pci_mapping_from;	/* the configuration lines that give it */
	/* relay thread */
	pthread_t relay;
	bool relay_started;
	int relay_run;             /* 1 run, 0 stop (atomic) */
	struct rsh_pump pump;      /* its loop; endpoints added and removed
				    * under relay_mu (wake_fd: -1 none) */
	uint64_t relay_wakeups;    /* ppoll returns (atomic) */
	uint64_t relay_timeouts;   /* of which timeouts (atomic) */
	/* The wake-ups by reason (atomic): a descriptor was ready, the
	 * housekeeping timeout of an idle relay, the short retry timeout
	 * while bytes wait for room in a channel. */
	uint64_t relay_wake_fd;
	uint64_t relay_timeouts_idle;
	uint64_t relay_timeouts_retry;
	pthread_mutex_t relay_mu;  /* held by the relay thread per pass; main
				    * takes it to change the table */
};

extern int rsh_svc_logtype;
/* Every line names the device (or "-" for the service). */
#define RSH_SVC_LOG(level, devname, fmt, ...) \
	rte_log(RTE_LOG_##level, rsh_svc_logtype, "rshim-pmd: %s: " fmt "\n", \
		(devname), ##__VA_ARGS__)

/* One error line on stderr: "rshim-pmd: <msg>". */
void rsh_svc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Audit line: device, caller uid/pid, action, outcome (always logged). */
void rsh_svc_audit(const struct rsh_svc_dev *d, uid_t uid, pid_t pid,
		   const char *action, int rc);

/* config.c */
void rsh_svc_conf_default(struct rsh_svc_conf *c);
/* A -d or rshimN device name (pcie-BDF, pcie-lf-BDF, BDF, sim:...) as the
 * device string rsh_dev_open takes. */
const char *rsh_svc_devname(const char *v);
/* s (len bytes) for a log line: bytes outside printable ASCII, '\\' and
 * '"' as \xNN; out always terminated. */
void rsh_svc_escape(const char *s, size_t len, char *out, size_t size);
/* Parse a file; a bad line → one error naming file:line, -EINVAL. A
 * missing file is not an error when !required. */
int rsh_svc_conf_load(const char *path, bool required, struct rsh_svc_conf *c);
/* The file read when none is named (*nvidia: NVIDIA's /etc/rshim.conf,
 * rshim-pmd.conf being absent). */
const char *rsh_svc_conf_pick(bool *nvidia);
/* Index configured for a device string: >= 0, -1 blocked, -2 none. */
int rsh_svc_conf_index(const struct rsh_svc_conf *c, const char *dev);

/* devices.c */
/* The device is in drop mode (DROP_MODE 1, or another driver owns it). */
bool rsh_svc_dev_dropped(struct rsh_svc_dev *d);
int rsh_svc_run_dir_check(struct rshd *s);
int rsh_svc_lock_dev(struct rshd *s, const char *devstr, int *fd);
void rsh_svc_unlock_dev(struct rshd *s, const char *devstr, int fd);
int rsh_svc_sync_devices(struct rshd *s);
void rsh_svc_check_health(struct rshd *s);
void rsh_svc_stop_all(struct rshd *s);
struct rsh_svc_dev *rsh_svc_dev_by_index(struct rshd *s, unsigned int idx);

/* fuse_loop.c: the mount point and the threads of a FUSE session. */
#define RSH_SVC_FUSE_THREADS 8
struct fuse_session;
/* A request just read from the connection, in the kernel's order, before
 * any worker runs it (req: its bytes, fuse_in_header first). */
typedef void (*rsh_svc_loop_seen_fn)(void *arg, const void *req, size_t len);
struct rsh_svc_loop {
	struct fuse_session *se;
	int fd;                    /* the connection (/dev/fuse, non-blocking) */
	int stop_fd;               /* eventfd: readable once the workers must go */
	rsh_svc_loop_seen_fn seen; /* or NULL */
	void *seen_arg;
	pthread_mutex_t recv_mu;   /* a read from the connection and its seen
				    * call happen as one step */
	pthread_mutex_t mu;        /* guards the fields below */
	pthread_t threads[RSH_SVC_FUSE_THREADS];
	unsigned int n, idle;
	bool stopping;
};
int rsh_svc_mnt_make(struct rsh_svc_dev *d, int *fuse_fd, bool *created);
void rsh_svc_mnt_drop(struct rsh_svc_dev *d);
int rsh_svc_loop_start(struct rsh_svc_loop *l, struct fuse_session *se, int fd,
		       rsh_svc_loop_seen_fn seen, void *seen_arg);
void rsh_svc_loop_stop(struct rsh_svc_loop *l);

/* nodes.c: the FUSE directory of a device. */
int rsh_svc_nodes_start(struct rshd *s, struct rsh_svc_dev *d);
void rsh_svc_nodes_stop(struct rsh_svc_dev *d);

/* node_boot.c / node_misc.c / nodes.c (the rshim node) (FUSE threads). */
int rsh_svc_boot_open(struct rshd *s, struct rsh_svc_dev *d, uid_t uid,
		      pid_t pid, uint64_t *gen);
int rsh_svc_boot_write(struct rsh_svc_dev *d, uint64_t gen, const void *buf,
		       size_t len);
int rsh_svc_boot_flush(struct rsh_svc_dev *d, uint64_t gen);
void rsh_svc_boot_release(struct rsh_svc_dev *d, uint64_t gen);
/* The session loop read a boot release (before later requests run). */
void rsh_svc_boot_release_seen(struct rsh_svc_dev *d, uint64_t gen);
void rsh_svc_boot_stop(struct rsh_svc_dev *d);
void rsh_svc_boot_cancel(struct rsh_svc_dev *d);
/* The service stops: cancel as above, the writer's error is EIO. */
void rsh_svc_boot_shutdown(struct rsh_svc_dev *d);
int rsh_svc_misc_render(struct rsh_svc_dev *d, char *buf, size_t size);
void rsh_svc_misc_init(struct rsh_svc_dev *d);
int rsh_svc_misc_write(struct rshd *s, struct rsh_svc_dev *d,
		       const char *buf, size_t len, uid_t uid, pid_t pid);
int rsh_svc_reg_ioctl(struct rsh_svc_dev *d, unsigned int cmd, void *data,
		      size_t in_size, uid_t uid, pid_t pid);
/* Size of the ioctl payload of cmd, 0 when it is not a register ioctl. */
size_t rsh_svc_reg_ioctl_size(unsigned int cmd);

/* console.c: the console PTY (relay thread; target: FUSE threads). */
int rsh_svc_cons_open(struct rshd *s, struct rsh_svc_dev *d);
void rsh_svc_cons_close(struct rsh_svc_dev *d);
void rsh_svc_cons_target(struct rsh_svc_dev *d, char *out, size_t len);

/* relay.c: the relay thread, TAPs. */
int rsh_svc_tap_open(struct rsh_svc_dev *d);
void rsh_svc_tap_set_up(struct rsh_svc_dev *d, bool up);
void rsh_svc_tap_close(struct rsh_svc_dev *d);
int rsh_svc_relay_init(struct rshd *s);
/* A device published (live) or hidden: its endpoints join or leave the
 * relay's pump (relay_mu held). */
void rsh_svc_relay_attach(struct rshd *s, struct rsh_svc_dev *d, bool live);
int rsh_svc_relay_start(struct rshd *s);
void rsh_svc_relay_stop(struct rshd *s);
void rsh_svc_relay_kick(struct rshd *s);

/* cmdmode.c: `rshim-pmd -c ...`, NVIDIA's command mode; the exit code. */
int rsh_svc_cmdmode(struct rshd *s, int argc, char **argv);

/* link.c: the PCIe link, logged at open and when it changes. */
void rsh_svc_link_check(struct rshd *s, struct rsh_svc_dev *d);

/* telemetry.c */
int rsh_svc_telemetry_register(struct rshd *s);

#endif /* RSH_SVC_H */
