/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * TM FIFO console and network channels (public; included by rsh.h).
 *
 * The poll lcore owns the TM FIFO pair and multiplexes two channels on it
 * (hardware-notes §4.4): the console (a byte stream)
 * and the tmfifo network (Ethernet frames). Users talk to the poll lcore
 * only through rte_rings of rte_mbuf pointers, one per direction per
 * channel, single-producer/single-consumer: exactly one user thread may
 * write a channel and one may read it. rsh_tmfifo_rings() hands a
 * channel's rings to rte_eth_from_rings() for a DPDK ethdev.
 *
 * Nothing is dropped silently: every drop is counted with its reason in
 * struct rsh_tmfifo_chan_stats. When a receive ring is full the poll lcore
 * stops popping the hardware FIFO (back-pressure, §4.10).
 */
#ifndef RSH_TMFIFO_API_H
#define RSH_TMFIFO_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rsh_dev;
struct rte_mbuf;
struct rte_ring;
struct rte_mempool;

/** Channels multiplexed on the TM FIFO. */
enum rsh_tmfifo_chan {
	RSH_TMFIFO_CONSOLE = 0,
	RSH_TMFIFO_NET = 1,
	RSH_TMFIFO_NCHAN = 2,
};

/** Largest console payload carried in one message (253-word credit). */
#define RSH_TMFIFO_CONSOLE_MSG_MAX 2016u
/** Largest network frame the host sends or accepts (§4.4). */
#define RSH_TMFIFO_NET_FRAME_MAX 1536u

/** Attach options. */
struct rsh_tmfifo_opts {
	bool console;            /**< open the console channel */
	bool net;                /**< open the network channel */
	unsigned int ring_size;  /**< per ring, power of two (default 1024) */
	unsigned int pool_size;  /**< mbufs per pool (default 4095) */
	int socket_id;           /**< NUMA socket, SOCKET_ID_ANY default */
	bool no_sync;            /**< skip the §4.10 sync fill (tests) */
};

/** Per-channel counters (copied out; written by the poll lcore unless
 *  marked "user"). */
struct rsh_tmfifo_chan_stats {
	uint64_t tx_msgs;        /**< messages written to the FIFO */
	uint64_t tx_bytes;       /**< payload bytes written */
	uint64_t rx_msgs;        /**< messages received whole */
	uint64_t rx_bytes;       /**< payload bytes delivered to the ring */
	uint64_t rx_mbufs;       /**< mbufs enqueued to the rx ring */
	/* drops, by reason */
	uint64_t tx_drop_oversize; /**< frame/chunk longer than the maximum */
	uint64_t tx_drop_empty;    /**< zero-length mbuf (would be a no-op) */
	uint64_t tx_drop_reset;    /**< in flight when a boot push reset the link */
	uint64_t rx_drop_oversize; /**< net frame > 1536 bytes, drained */
	uint64_t rx_drop_closed;   /**< channel not open: drained */
	uint64_t rx_drop_reset;    /**< partial message discarded at a boot push */
	uint64_t rx_drop_bytes;    /**< payload bytes of all rx drops */
	/* waits (no data lost) */
	uint64_t rx_ring_full;     /**< delivery waited for ring space */
	uint64_t rx_nombuf;        /**< delivery waited for a free mbuf */
	uint64_t user_nombuf;      /**< user: write found the pool empty */
	uint64_t rx_drop_boot;     /**< net frame received while a boot push
				     *   streams (the console is delivered) */
	uint64_t tx_drop_timeout;  /**< message stuck mid-way for 2 s: its
				     *   rest was sent as zero words */
	uint64_t rx_wakeups;       /**< eventfd signals to the user */
	uint64_t tx_drop_gone;     /**< queued while the device was gone (all-ones):
				     *   never sent, dropped (see rsh_tmfifo_resync()) */
};

/** Device-wide TM FIFO counters. */
struct rsh_tmfifo_stats {
	uint64_t tx_words;        /**< words written to HOST_TO_TILE */
	uint64_t tx_bursts;       /**< write_fifo calls */
	uint64_t tx_full;         /**< passes with data but no credit */
	uint64_t tx_sync_words;   /**< §4.10 sync words sent */
	uint64_t tx_ctrl;         /**< control messages sent */
	uint64_t rx_words;        /**< words popped from TILE_TO_HOST */
	uint64_t rx_bursts;       /**< read_fifo calls */
	uint64_t rx_noop;         /**< zero-length data headers skipped */
	uint64_t rx_ctrl;         /**< control messages accepted */
	uint64_t rx_ctrl_bad_csum;/**< control messages with a bad checksum */
	uint64_t rx_ctrl_unknown; /**< len 0 with an unknown type, skipped */
	uint64_t rx_drop_unknown; /**< unknown type with len > 0, drained */
	uint64_t rx_drop_unknown_bytes;
	uint64_t sts_bad;         /**< STS reads returning a bad pattern */
	uint64_t resets;          /**< state resets after a boot push */
	uint64_t wake_errors;     /**< eventfd writes that failed */
	uint64_t arm_resets;      /**< unreachable window then recovery: the
				    *   ARM was reset; state discarded, resynced */
	uint64_t returns;         /**< rsh_tmfifo_resync() after the device was
				    *   back: state discarded, resynced */
};

/** Values reported by the peer in control messages (§4.7). */
struct rsh_tmfifo_peer {
	uint8_t mac[6];        /**< MAC_1 + MAC_2 */
	uint16_t vlan[2];      /**< VLAN_ID */
	uint32_t pxe_id;       /**< PXE_ID */
	uint32_t have;         /**< RSH_TMFIFO_PEER_HAVE_* bits received */
	uint32_t replies;      /**< complete replies (PXE_ID, the last) */
};
#define RSH_TMFIFO_PEER_HAVE_MAC1 0x1u
#define RSH_TMFIFO_PEER_HAVE_MAC2 0x2u
#define RSH_TMFIFO_PEER_HAVE_VLAN 0x4u
#define RSH_TMFIFO_PEER_HAVE_PXE 0x8u

/** Fill defaults: both channels, 1024-entry rings, 4095-mbuf pools. */
void rsh_tmfifo_opts_default(struct rsh_tmfifo_opts *o);

/**
 * Create the channels of a device: rings, mbuf pools, then the §4.10 sync
 * fill of the HOST_TO_TILE FIFO. Any thread, also while the device's
 * poller runs: the poll lcore writes the sync words and starts serving the
 * channels between two passes (a command; nothing else stops).
 * @return 0; -EINVAL bad options (ring size not a power of two, no
 *   channel); -EEXIST already attached; during a boot push the console
 *   shows the boot at once and the sync fill waits for the push to end;
 *   -ENOMEM ring or pool creation failed; -ENODEV/-EIO the STS read
 *   returned a bad pattern (device gone / in reset).
 */
int rsh_tmfifo_attach(struct rsh_dev *dev, const struct rsh_tmfifo_opts *o);

/**
 * Free the channels (queued mbufs too). Also while the poller runs: the
 * poll lcore lets go of them first (a command). The channel users must
 * have stopped using them.
 */
void rsh_tmfifo_detach(struct rsh_dev *dev);

/** True when channels are attached. */
bool rsh_tmfifo_attached(const struct rsh_dev *dev);

/**
 * Health of the TM FIFO path: 0, or -ENODEV once its status registers
 * read all-ones for a second (device removed or powered off; the users'
 * wake-up descriptors are signalled then). -ENOENT when not attached.
 * Any thread; sets rsh_last_error() on -ENODEV.
 */
int rsh_tmfifo_status(struct rsh_dev *dev);

/**
 * The device answers again after it was gone (a hot return, a link that
 * came back): a command on the poll lcore drops what users queued that
 * could not be sent (counted as tx_drop_gone), discards the partial
 * message state both ways, clears the gone state and sends the sync words
 * (§4.10; after the push when one runs), so both channels run again. Also
 * right when rsh_tmfifo_status() never said gone (a short outage). While
 * gone, whatever users queue is dropped and counted the same way. Any
 * thread.
 * @return 0; -ENOENT not attached; -ENODEV/-EIO the TM FIFO status still
 *   reads all-ones / a "not reachable" pattern (try again later).
 */
int rsh_tmfifo_resync(struct rsh_dev *dev);

/**
 * The channel's wake-up descriptor (an eventfd, non-blocking): readable
 * once the poll lcore queued data for the user after rsh_tmfifo_rx_arm().
 * Wait on it with poll/ppoll/epoll beside other descriptors; read(2) it
 * to clear it. Valid until rsh_tmfifo_detach().
 * @return the descriptor, or -1 when the channel is not open.
 */
int rsh_tmfifo_rx_fd(struct rsh_dev *dev, enum rsh_tmfifo_chan ch);

/**
 * Before sleeping on rsh_tmfifo_rx_fd(): ask to be woken by the next data
 * for the channel. The user thread of the channel only.
 * @return true when data is already queued (do not sleep), else false.
 */
bool rsh_tmfifo_rx_arm(struct rsh_dev *dev, enum rsh_tmfifo_chan ch);

/**
 * Queue console bytes for the DPU (copied into mbufs of at most
 * RSH_TMFIFO_CONSOLE_MSG_MAX bytes). One writer thread.
 * @return bytes accepted (short when the ring or the pool is full;
 *   0 when the console channel is not open).
 */
size_t rsh_tmfifo_console_write(struct rsh_dev *dev, const void *buf,
				size_t len);

/**
 * Take console bytes received from the DPU. One reader thread.
 * @return bytes copied (0 when none are waiting).
 */
size_t rsh_tmfifo_console_read(struct rsh_dev *dev, void *buf, size_t len);

/**
 * Queue Ethernet frames (no FCS, at most RSH_TMFIFO_NET_FRAME_MAX bytes;
 * multi-segment mbufs allowed). Ownership of the accepted mbufs passes to
 * the driver. One writer thread.
 * @return frames accepted (the first n; the caller keeps the rest).
 */
uint16_t rsh_tmfifo_net_tx_burst(struct rsh_dev *dev, struct rte_mbuf **pkts,
				 uint16_t n);

/**
 * Take received frames (one single-segment mbuf each; the caller frees).
 * One reader thread. @return frames returned.
 */
uint16_t rsh_tmfifo_net_rx_burst(struct rsh_dev *dev, struct rte_mbuf **pkts,
				 uint16_t n);

/**
 * The rings of a channel, for rte_eth_from_rings(): *rx carries mbufs from
 * the DPU (poll lcore produces), *tx to the DPU (poll lcore consumes).
 * @return 0; -ENOENT channel not open; -EINVAL bad channel.
 */
int rsh_tmfifo_rings(struct rsh_dev *dev, enum rsh_tmfifo_chan ch,
		     struct rte_ring **rx, struct rte_ring **tx);

/** Pool users allocate transmit mbufs from (NULL when not attached). */
struct rte_mempool *rsh_tmfifo_pool(struct rsh_dev *dev);

/** Control messages the host sends the DPU (§4.7). */
enum rsh_tmfifo_ctrl_type {
	RSH_TMFIFO_CTRL_REQ,  /**< CTRL_REQ: ask the peer to report its MAC,
				*   VLAN and PXE values */
	RSH_TMFIFO_CTRL_MAC,  /**< MAC_1 + MAC_2: the peer's MAC (mac) */
	RSH_TMFIFO_CTRL_VLAN, /**< VLAN_ID: two VLAN ids (vlan) */
	RSH_TMFIFO_CTRL_PXE,  /**< PXE_ID (pxe_id) */
};

/** One control message: its type and the value that type carries. */
struct rsh_tmfifo_ctrl {
	enum rsh_tmfifo_ctrl_type type;
	union {
		uint8_t mac[6];
		uint16_t vlan[2];
		uint32_t pxe_id;
	};
};

/**
 * Queue one control message, sent at the next message boundary before
 * any data.
 * @return 0; -ENOENT not attached; -EAGAIN control queue full; -EINVAL
 *   unknown type.
 */
int rsh_tmfifo_ctrl_send(struct rsh_dev *dev, const struct rsh_tmfifo_ctrl *msg);

/**
 * The peer's reported values (a consistent snapshot).
 * @return 0; -ENOENT not attached.
 */
int rsh_tmfifo_peer_get(struct rsh_dev *dev, struct rsh_tmfifo_peer *out);

/**
 * Send CTRL_REQ and wait for the reply to complete (PXE_ID arrives last;
 * NVIDIA's daemon waits 1 s, hardware-notes §4.7). The poller must be running.
 * @return 0; -ENOENT not attached; -EAGAIN queue full; -ETIMEDOUT no
 *   complete reply within timeout_ms.
 */
int rsh_tmfifo_ctrl_query(struct rsh_dev *dev, unsigned int timeout_ms,
			  struct rsh_tmfifo_peer *out);

/**
 * Copy counters (either pointer may be NULL).
 * @return 0; -ENOENT not attached; -EINVAL bad channel.
 */
int rsh_tmfifo_get_stats(struct rsh_dev *dev, enum rsh_tmfifo_chan ch,
			 struct rsh_tmfifo_chan_stats *cst,
			 struct rsh_tmfifo_stats *dst);

#ifdef __cplusplus
}
#endif

#endif /* RSH_TMFIFO_API_H */
