/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scratch-log record decoder (hardware-notes §5.6), free of device
 * access so that it can be tested with golden words and fuzzed.
 */
#ifndef RSH_SCRATCHLOG_DECODE_H
#define RSH_SCRATCHLOG_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "rsh.h"

/* Header fields, §5.6. MSG and crash records overlap in bits 31:0. */
#define RSH_SCRATCHLOG_HDR__LEVEL(h) ((unsigned int)((h) & 0xFF))
#define RSH_SCRATCHLOG_HDR__HAS_ARG(h) ((unsigned int)(((h) >> 8) & 0xFF))
#define RSH_SCRATCHLOG_HDR__ARG(h) ((uint32_t)((h) >> 16))
#define RSH_SCRATCHLOG_HDR__PC(h) ((uint32_t)(h))  /* PANIC: PC; EXCEPTION: ESR */
#define RSH_SCRATCHLOG_HDR__LEN(h) ((unsigned int)(((h) >> 48) & 0x7F))
#define RSH_SCRATCHLOG_HDR__TYPE(h) ((unsigned int)(((h) >> 56) & 0xF))
#define RSH_SCRATCHLOG_HDR__MODULE(h) ((unsigned int)((h) >> 60))
#define RSH_SCRATCHLOG_TYPE_PANIC 1u
#define RSH_SCRATCHLOG_TYPE_EXCEPTION 2u
#define RSH_SCRATCHLOG_TYPE_MSG 4u
#define RSH_SCRATCHLOG_LEVEL_ERR 2u

/* Build a header word (tests and the emulator's golden records). */
static inline uint64_t
rsh_scratchlog_hdr(unsigned int module, unsigned int type, unsigned int len,
		   uint32_t low32, unsigned int has_arg_level)
{
	return (uint64_t)module << 60 | (uint64_t)type << 56 |
	       (uint64_t)(len & 0x7F) << 48 | low32 | has_arg_level;
}

/*
 * Decode the records held in words[0..n) (the words SCRATCH_BUF_DAT
 * returned, in order). A MSG record gives one line; a PANIC or EXCEPTION
 * record gives a header line and one line per register pair, all at level
 * ERR. Returns the number of lines (at most max are filled).
 */
unsigned int rsh_scratchlog_decode_words(const uint64_t *words, unsigned int n,
					 struct rsh_scratchlog_rec *recs, unsigned int max);

/*
 * Name of the AArch64 system register whose MRS encoding sits in bits 20:5
 * of an opcode word ("esr_el3"; "s3_1_c15_c2_0" style when not in the
 * table). Returns buf.
 */
const char *rsh_scratchlog_sysreg_name(uint64_t opcode, char *buf, size_t len);

/* The records as text, one "\n"-terminated line each. Returns the length
 * written (truncated at len - 1). */
size_t rsh_scratchlog_to_text(const struct rsh_scratchlog_rec *recs, unsigned int n,
			      char *buf, size_t len);

#endif /* RSH_SCRATCHLOG_DECODE_H */
