/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the scratch-log decoder (hardware-notes §5.6) over
 * arbitrary words, as SCRATCH_BUF_DAT would return them. The text comes
 * from the device, so whatever it holds the decoder must stay in bounds
 * and hand back terminated, printable lines; crash records are errors.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsh_scratchlog_decode.h"
#include "rsh_regs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* One input: 1 byte of line budget, then up to 128 words. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct rsh_scratchlog_rec recs[2 * RSH_SCRATCH_BUF_WORDS];
	uint64_t words[RSH_SCRATCH_BUF_WORDS] = { 0 };
	unsigned int nw, max, n;
	char text[8192];

	if (len < 1)
		return 0;
	max = data[0] % (2 * RSH_SCRATCH_BUF_WORDS + 1);
	nw = (unsigned int)((len - 1) / 8 < RSH_SCRATCH_BUF_WORDS ? (len - 1) / 8 :
			    RSH_SCRATCH_BUF_WORDS);
	memcpy(words, data + 1, nw * 8);
	n = rsh_scratchlog_decode_words(words, nw, recs, max);
	if (n > max || n > 2 * nw)
		abort();
	for (unsigned int i = 0; i < n; i++) {
		size_t l = strnlen(recs[i].text, sizeof(recs[i].text));

		if (l == sizeof(recs[i].text))
			abort();
		for (size_t k = 0; k < l; k++)
			if (!isprint((unsigned char)recs[i].text[k]))
				abort();
		if ((recs[i].type == RSH_SCRATCHLOG_TYPE_PANIC ||
		     recs[i].type == RSH_SCRATCHLOG_TYPE_EXCEPTION) &&
		    recs[i].level != RSH_SCRATCHLOG_LEVEL_ERR)
			abort();
	}
	if (rsh_scratchlog_to_text(recs, n, text, sizeof(text)) >= sizeof(text))
		abort();
	return 0;
}
