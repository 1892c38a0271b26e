/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The emulated BlueField rshim function ("sim:bf1|bf2|bf3"): what tests
 * may look at from outside the backend. The device itself is opened
 * through the backend driver named "sim" (rsh_backend_find("sim")->probe
 * or rsh_dev_open("sim:bf3,...")).
 *
 * Threads: the counters are written only by the thread doing the MMIO
 * (single writer, relaxed atomic stores) and may be read from any thread
 * with rsh_sim_stats_get() (relaxed atomic loads).
 */
#ifndef RSH_SIM_H
#define RSH_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rsh_backend;

/*
 * Boot progress codes the emulator's boot-ROM model writes into
 * SCRATCHPAD3 bits 7:0. Emulator-defined: the hardware notes name the field
 * (§1.5) but not its values.
 */
#define RSH_SIM_PROG_POR 0x00     /**< power-on, nothing started */
#define RSH_SIM_PROG_ROM 0x01     /**< reset with BOOT_CONTROL=0: waiting
				    *   for the boot stream */
#define RSH_SIM_PROG_LOADING 0x02 /**< first valid BFB header seen */
#define RSH_SIM_PROG_READY 0x03   /**< last image verified: "DPU is ready" */
#define RSH_SIM_PROG_EMMC 0x04    /**< reset with BOOT_CONTROL!=0: booted
				    *   from eMMC, FIFO not read */
#define RSH_SIM_PROG_ERROR 0xEE   /**< broken stream (magic/major/CRC) */

/* Trailing bytes (after the last image) kept for rsh_sim_bootfifo_read. */
#define RSH_SIM_BOOTFIFO_KEEP (64u * 1024u)

/** Counters of one emulated device (boot counters restart at each reset). */
struct rsh_sim_stats {
	uint64_t consumed_bytes; /**< read by the boot-ROM model since reset */
	uint64_t hash;           /**< rsh_sim_hash_words over those words */
	uint64_t boot_overflows; /**< host words dropped: boot FIFO full */
	uint64_t boot_empty_ns;  /**< time the boot FIFO stood empty while the
				   *   DPU could have taken more, until the
				   *   host's next write (the host's lateness) */
	uint64_t boot_first_ns;  /**< device clock (ns) when the boot ROM began
				   *   taking the first word since the reset */
	uint64_t boot_last_ns;   /**< ... and when it took the latest one: the
				   *   stream's length as the DPU saw it */
	uint64_t htt_overflows;  /**< host words dropped: HOST_TO_TILE full */
	uint64_t tth_empty_reads;/**< host reads of an empty TILE_TO_HOST */
	uint64_t bad_accesses;   /**< outside the BAR or unaligned */
	uint64_t reset_reads;    /**< reads answered 0xBAD00ACCE55 (reset) */
	uint64_t ignored_writes; /**< writes during reset or after "gone" */
	uint64_t images_ok;      /**< images whose CRC matched */
	uint64_t images_bad;     /**< images with a CRC mismatch */
	uint64_t trailing_bytes; /**< consumed after the last image */
	uint64_t error_bytes;    /**< consumed after a stream error */
	uint64_t resets;         /**< accepted reset keys */
	uint64_t wdog_writes;    /**< writes to ARM_WDG_CONTROL_WCS */
	uint64_t wdog_last;      /**< last value written there */
	uint64_t boot_control;   /**< last BOOT_CONTROL written by the host */
	uint64_t log_records;    /**< scratch-log records written */
	uint64_t log_dropped;    /**< records that did not fit */
	uint64_t stalls;         /**< stall= faults fired */
	uint8_t progress;        /**< RSH_SIM_PROG_* */
	bool booted;             /**< "DPU is ready" since the last reset */
	bool stream_error;       /**< bad magic / major / CRC seen */
	bool gone;               /**< gone@ fired: all-ones from now on */
	/* Events (rsh_sim_event.c). */
	uint64_t arm_resets;     /**< ARM resets without the key (armreset@,
				   *   DPU reset, injected) */
	uint64_t tm_bytes;       /**< bytes through the TM FIFO data regs */
	uint64_t bmc_keepalives; /**< keepalives the other driver wrote */
	uint64_t bmc_acks;       /**< OSP_ACK it wrote */
	uint64_t bmc_requests;   /**< OSP_REQ it wrote */
	uint64_t sp1_blocked;    /**< host writes to SCRATCHPAD1 while locked */
	uint64_t rst_requests;   /**< SCRATCHPAD6 reset requests raised */
	uint64_t rst_done;       /**< resets carried out after START_ACK */
	uint64_t crash_records;  /**< PANIC/EXCEPTION records written */
	uint64_t bootfifo_bytes; /**< read by the running DPU's bootfifo reader */
	uint64_t host_boot_words;/**< words the host wrote to BOOT_FIFO_DATA
				   *   (kept, dropped or ignored): who drove
				   *   the boot FIFO, for ownership checks */
	uint64_t host_count_reads;/**< host reads of BOOT_FIFO_COUNT: a
				   *   push's status polling */
	uint64_t upgrades;       /**< deferred updates it read completely */
	uint8_t bmc_mode;        /**< other driver now: 0 none, 1 bmc,
				   *   2 bmc-old, 3 bmc-request */
	bool locked;             /**< secure NIC mode */
	/* livefish=1 (the config-space gateway, hardware-notes §L1-§L6) */
	uint64_t lf_cfg_reads;   /**< config-space reads */
	uint64_t lf_cfg_writes;  /**< config-space writes */
	uint64_t lf_gw_ops;      /**< rshim accesses the gateways made */
	uint64_t lf_violations;  /**< gateway protocol broken (a widget read
				   *   while pending, a trigger without the
				   *   lock, a 4-byte access of a FIFO...) */
	uint64_t lf_early;       /**< BF3: gateway touched in the 10 s after
				   *   RESET_CONTROL */
	uint64_t lf_bar_refused; /**< BAR accesses of a livefish function */
};

/** Events a test can make happen (rsh_sim_inject). */
enum rsh_sim_event {
	RSH_SIM_EV_ARM_RESET,   /**< the ARM resets (no reset key) */
	RSH_SIM_EV_GONE,        /**< surprise removal */
	RSH_SIM_EV_PANIC,       /**< BL31 PANIC record in the scratch log */
	RSH_SIM_EV_EXCEPTION,   /**< BL31 EXCEPTION (SError) record */
	RSH_SIM_EV_RST_REQUEST, /**< NIC FW reset request on SCRATCHPAD6;
				  *   arg = rst_type (1 DPU, 2 NIC) |
				  *   rst_downtime (10 ms units) << 8 */
	RSH_SIM_EV_RST_ABORT,   /**< NIC FW aborts the reset */
	RSH_SIM_EV_OWNER,       /**< other driver: arg 0 none, 1 bmc,
				  *   2 bmc-old, 3 bmc-request */
	RSH_SIM_EV_LOCK,        /**< secure NIC mode: arg 1 on, 0 off */
	RSH_SIM_EV_RETURN,      /**< a gone device is plugged back in:
				 *   powered on fresh, registers reset */
	RSH_SIM_EV_COUNT,
};

/**
 * Make something happen to an emulated device, from any thread. It
 * takes effect at the device's next register access (the emulator runs
 * only then), in the thread doing that access.
 * @return 0, or -EINVAL for a non-sim backend, an unknown event or a bad
 *         argument.
 */
int rsh_sim_inject(struct rsh_backend *be, enum rsh_sim_event ev,
		   uint32_t arg);

/**
 * Stall (or unstall) the emulated MEM_ACC widget: while stalled, a
 * MEM_ACC_CTL send never completes and MEM_ACC_RSP_CNT stays put, so the
 * driver's bounded poll must give up.
 * @return 0, or -EINVAL for a non-sim backend.
 */
int rsh_sim_memacc_stall(struct rsh_backend *be, bool stall);

/**
 * Copy the counters of an emulated device.
 * @return 0, or -EINVAL when be is NULL or not a "sim" backend.
 */
int rsh_sim_stats_get(const struct rsh_backend *be, struct rsh_sim_stats *st);

/** The MMIO cost model's counters (cost=1, rd_ns=, wr_ns=). */
struct rsh_sim_cost_stats {
	bool enabled;             /**< the model charges MMIO time */
	uint64_t rd_ns, wr_ns;    /**< cost of one read / one posted write */
	uint64_t charged_ns;      /**< MMIO time charged since probe */
	uint64_t emu_ns;          /**< real time spent inside the emulator's
				    *   register ops (emulator CPU, not host) */
	uint64_t bf1_drain_reads; /**< reads the BF1 posted-write drain rule
				    *   adds to those issued (sim:bf1 only) */
};

/**
 * Copy the cost model's counters (any thread; relaxed loads).
 * @return 0, or -EINVAL when be is NULL or not a "sim" backend.
 */
int rsh_sim_cost_get(const struct rsh_backend *be, struct rsh_sim_cost_stats *st);

/**
 * Copy the kept trailing bytes (the first RSH_SIM_BOOTFIFO_KEEP bytes
 * consumed after the last image, as Linux's mlxbf-bootctl "bootfifo" file
 * would hand them to the installer, hardware-notes §D6.5) from their
 * start. A reset empties the buffer.
 * @return bytes copied (0 when be is not a sim backend or nothing is kept).
 */
size_t rsh_sim_bootfifo_read(const struct rsh_backend *be, void *buf,
			     size_t len);

/**
 * Counters of the emulated DPU's ARM side (the mlxbf-tmfifo model), all
 * 64-bit. "rx" = host to ARM (HOST_TO_TILE), "tx" = ARM to host.
 */
struct rsh_sim_arm_stats {
	uint64_t up;             /**< 1 while the ARM side runs (link up) */
	uint64_t starts;         /**< times it came up (banner, link up) */
	uint64_t peer_index;     /**< N of rshim-sim<N>; UINT64_MAX = none yet */
	uint64_t peer_netns;     /**< 1: kernel stack in a namespace */
	uint64_t peer_shell;     /**< 1: shell on a pseudo-terminal */
	uint64_t rx_msgs;        /**< data messages (len > 0) parsed */
	uint64_t rx_net_frames;  /**< frames given to the peer's TAP */
	uint64_t rx_net_bytes;
	uint64_t rx_con_bytes;   /**< console bytes given to the PTY */
	uint64_t rx_sync_words;  /**< zero-length headers skipped */
	uint64_t rx_ctrl_msgs;   /**< control messages 0xFB-0xFF seen */
	uint64_t rx_drop_oversize; /**< net frames > 1518 bytes drained */
	uint64_t rx_drop_peer;   /**< frames the peer refused (not EAGAIN) */
	uint64_t rx_backpressure;/**< polls that left words in HOST_TO_TILE */
	uint64_t tx_msgs;        /**< data messages sent (faults included) */
	uint64_t tx_net_frames;  /**< frames read from the TAP and sent */
	uint64_t tx_net_bytes;
	uint64_t tx_con_msgs;
	uint64_t tx_con_bytes;
	uint64_t tx_ctrl_msgs;   /**< control replies sent (CTRL_REQ) */
	uint64_t tx_drop_con_ring; /**< console bytes dropped: 32 KiB ring full */
	uint64_t tx_drop_net;    /**< frames from the TAP too long to send */
	uint64_t fault_corrupt;  /**< corrupt@ headers sent */
	uint64_t fault_oversize; /**< oversize@ frames sent */
	uint64_t fault_stalls;   /**< armstall= stalls started */
	uint64_t peer_syscalls;  /**< TAP/PTY reads and writes issued */
	uint64_t tx_timeouts;    /**< net frames dropped after 2 s without
				   *   TILE_TO_HOST space (Linux >= 6.8) */
	uint64_t tx_pad_words;   /**< zero words written after such a drop */
	uint64_t rx_uefi_con_bytes; /**< console bytes UEFI kept (1 KiB ring) */
	uint64_t rx_uefi_con_full;  /**< polls UEFI left console input in
				      *   HOST_TO_TILE: its ring was full */
};

/**
 * Copy the ARM-side counters of an emulated device (relaxed loads; any
 * thread). All zero (peer_index UINT64_MAX) before the ARM first comes up.
 * @return 0, or -EINVAL when be is NULL or not a "sim" backend.
 */
int rsh_sim_arm_stats_get(const struct rsh_backend *be,
			  struct rsh_sim_arm_stats *st);

/**
 * Print the emulator's device-string options (one line each: syntax,
 * meaning, default) for --help. Same table as the parser.
 */
void rsh_sim_help(FILE *f);

/**
 * Print the option list as the Markdown table doc/emulator.md carries
 * between its "sim-options" markers (a test compares the two).
 */
void rsh_sim_doc(FILE *f);

/* Start value of the boot-stream hash. */
#define RSH_SIM_HASH_INIT 0xCBF29CE484222325ull

/*
 * Running hash of consumed 64-bit words (FNV-style multiply, rotated so
 * that reordering changes the result). Tests hash a file padded to 8
 * bytes with this to compare with rsh_sim_stats.hash.
 */
static inline uint64_t
rsh_sim_hash_words(uint64_t h, const uint64_t *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h = (h ^ w[i]) * 0x100000001B3ull;
		h = (h << 29) | (h >> 35);
	}
	return h;
}

#endif /* RSH_SIM_H */
