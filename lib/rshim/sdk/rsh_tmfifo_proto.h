/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TM FIFO wire format: layout and encode/decode inlines only.
 *
 * Facts: hardware-notes §4.2 (word byte order), §4.3
 * (header, checksum), §4.4 (limits), §4.7 (control messages) and
 * hardware-notes §D2 (the ARM side's view of the same words).
 *
 * Every message is one 8-byte header word, then `len` payload bytes packed
 * little-endian 8 per word, zero-padded to the next word. A header with
 * len == 0 carries no payload: for types 1/3 (and 0) it is a no-op/sync
 * word, for types 0xFB-0xFF a control message.
 */
#ifndef RSH_TMFIFO_PROTO_H
#define RSH_TMFIFO_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Header type byte, §4.3. */
#define RSH_TMFIFO_TYPE_PAD 0x00      /* all-zero no-op word (ARM Tx timeout) */
#define RSH_TMFIFO_TYPE_NET 0x01      /* VIRTIO_ID_NET: one Ethernet frame */
#define RSH_TMFIFO_TYPE_CONSOLE 0x03  /* VIRTIO_ID_CONSOLE: byte stream */
#define RSH_TMFIFO_TYPE_VLAN_ID 0xFB  /* bytes 3-6: two BE16 VLAN ids */
#define RSH_TMFIFO_TYPE_PXE_ID 0xFC   /* bytes 3-6: BE32 id; last reply */
#define RSH_TMFIFO_TYPE_CTRL_REQ 0xFD /* host asks the peer for its values */
#define RSH_TMFIFO_TYPE_MAC_1 0xFE    /* bytes 3-5: MAC[0..2] */
#define RSH_TMFIFO_TYPE_MAC_2 0xFF    /* bytes 3-5: MAC[3..5] */
#define RSH_TMFIFO_TYPE_CTRL_FIRST RSH_TMFIFO_TYPE_VLAN_ID

/* Length limits, §4.4 and hardware-notes §D2.5. */
#define RSH_TMFIFO_HOST_NET_MAX 1536u /* host Rx/Tx net payload (ETH_PKT_SIZE) */
#define RSH_TMFIFO_ARM_NET_MAX 1518u  /* ARM Rx drop threshold, MTU + 18 */
#define RSH_TMFIFO_LEN_MAX 0xFFFFu    /* 16-bit field */

/* Zero-length net header with checksum: the §4.10 sync word. */
#define RSH_TMFIFO_SYNC_WORD 0xFF00000000000001ull

/* Header byte layout (byte 0 = least-significant byte of the word). */
struct rsh_tmfifo_hdr_bytes {
	uint8_t type;
	uint8_t len_be[2];  /* big-endian payload length */
	uint8_t data[4];    /* type-specific (control values), else 0 */
	uint8_t csum;       /* 8 bytes sum to 0 mod 256; 0 = unchecked */
};
_Static_assert(sizeof(struct rsh_tmfifo_hdr_bytes) == 8, "one FIFO word");
_Static_assert(offsetof(struct rsh_tmfifo_hdr_bytes, csum) == 7, "byte 7");

/* Words a message of len payload bytes occupies, header included. */
static inline unsigned int
rsh_tmfifo_msg_words(unsigned int len)
{
	return 1u + (len + 7u) / 8u;
}

/* Sum of the 8 bytes of a word, mod 256. */
static inline uint8_t
rsh_tmfifo_byte_sum(uint64_t w)
{
	uint8_t s = 0;
	unsigned int i;

	for (i = 0; i < 8; i++)
		s = (uint8_t)(s + (uint8_t)(w >> (8 * i)));
	return s;
}

/* Header type byte. */
static inline uint8_t
rsh_tmfifo_hdr_type(uint64_t w)
{
	return (uint8_t)w;
}

/* Header payload length (big-endian bytes 1-2), §4.3. */
static inline uint16_t
rsh_tmfifo_hdr_len(uint64_t w)
{
	return (uint16_t)(((w >> 8) & 0xFF) << 8 | ((w >> 16) & 0xFF));
}

/* Type-specific byte i (0..3 = header bytes 3..6). */
static inline uint8_t
rsh_tmfifo_hdr_data(uint64_t w, unsigned int i)
{
	return (uint8_t)(w >> (8 * (3 + i)));
}

/* Receiver rule, §4.3: checksum byte 0 is accepted unchecked. */
static inline bool
rsh_tmfifo_hdr_csum_ok(uint64_t w)
{
	return (w >> 56) == 0 || rsh_tmfifo_byte_sum(w) == 0;
}

/* Build a header word with the checksum byte set, §4.3. data may be NULL. */
static inline uint64_t
rsh_tmfifo_hdr_encode(uint8_t type, uint16_t len, const uint8_t data[4])
{
	uint64_t w = (uint64_t)type | (uint64_t)(len >> 8) << 8 |
		     (uint64_t)(len & 0xFF) << 16;
	unsigned int i;

	for (i = 0; data != NULL && i < 4; i++)
		w |= (uint64_t)data[i] << (8 * (3 + i));
	return w | (uint64_t)(uint8_t)(0u - rsh_tmfifo_byte_sum(w)) << 56;
}

/* MAC_1 (bytes 0-2) or MAC_2 (bytes 3-5) control word for a MAC. */
static inline uint64_t
rsh_tmfifo_ctrl_mac(uint8_t type, const uint8_t mac[6])
{
	const uint8_t *p = mac + (type == RSH_TMFIFO_TYPE_MAC_2 ? 3 : 0);
	uint8_t d[4] = { p[0], p[1], p[2], 0 };

	return rsh_tmfifo_hdr_encode(type, 0, d);
}

/* VLAN_ID control word: two big-endian 16-bit ids. */
static inline uint64_t
rsh_tmfifo_ctrl_vlan(uint16_t v0, uint16_t v1)
{
	uint8_t d[4] = { (uint8_t)(v0 >> 8), (uint8_t)v0,
			 (uint8_t)(v1 >> 8), (uint8_t)v1 };

	return rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_VLAN_ID, 0, d);
}

/* PXE_ID control word: one big-endian 32-bit id. */
static inline uint64_t
rsh_tmfifo_ctrl_pxe(uint32_t id)
{
	uint8_t d[4] = { (uint8_t)(id >> 24), (uint8_t)(id >> 16),
			 (uint8_t)(id >> 8), (uint8_t)id };

	return rsh_tmfifo_hdr_encode(RSH_TMFIFO_TYPE_PXE_ID, 0, d);
}

/* Big-endian 16-bit value from data bytes i, i+1. */
static inline uint16_t
rsh_tmfifo_hdr_be16(uint64_t w, unsigned int i)
{
	return (uint16_t)(rsh_tmfifo_hdr_data(w, i) << 8 | rsh_tmfifo_hdr_data(w, i + 1));
}

/* Big-endian 32-bit value from data bytes 0-3. */
static inline uint32_t
rsh_tmfifo_hdr_be32(uint64_t w)
{
	return (uint32_t)rsh_tmfifo_hdr_be16(w, 0) << 16 | rsh_tmfifo_hdr_be16(w, 2);
}

/*
 * Pack len bytes into ceil(len/8) little-endian words, zero padding the
 * last, §4.2.
 */
static inline void
rsh_tmfifo_pack(uint64_t *w, const void *src, size_t len)
{
	size_t nw = (len + 7) / 8;

	if (nw == 0)
		return;
	w[nw - 1] = 0;
	memcpy(w, src, len);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	for (size_t i = 0; i < nw; i++)
		w[i] = __builtin_bswap64(w[i]);
#endif
}

/* Unpack len bytes from little-endian words (padding discarded), §4.2. */
static inline void
rsh_tmfifo_unpack(void *dst, const uint64_t *w, size_t len)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	uint8_t *d = dst;

	for (size_t i = 0; i < len; i++)
		d[i] = (uint8_t)(w[i / 8] >> (8 * (i % 8)));
#else
	memcpy(dst, w, len);
#endif
}

#endif /* RSH_TMFIFO_PROTO_H */
