/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the scratch-log reader (reference
 * hardware-notes §5.6) over a device whose scratch buffer holds
 * arbitrary words. The text comes from the device, so whatever it holds
 * the decoder must stay in bounds and hand back terminated, printable lines.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsh_dev_priv.h"

/* The fuzzed device: SEMAPHORE0 free, CTL index and the buffer words. */
struct rsh_fz_dev {
	struct rsh_backend be;
	struct rsh_regmap map;
	uint64_t ctl;
	uint64_t words[RSH_SCRATCH_BUF_WORDS];
	unsigned int pos;
};

static struct rsh_fz_dev rsh_fz;

static uint64_t
rsh_fz_rd(struct rsh_backend *be, uint32_t off)
{
	(void)be;
	if (off == rsh_fz.map.off[RSH_SCRATCH_BUF_CTL])
		return rsh_fz.ctl;
	if (off == rsh_fz.map.off[RSH_SCRATCH_BUF_DAT])
		return rsh_fz.words[rsh_fz.pos++ % RSH_SCRATCH_BUF_WORDS];
	return 0; /* SEMAPHORE0: free */
}

static void
rsh_fz_wr(struct rsh_backend *be, uint32_t off, uint64_t v)
{
	(void)be;
	if (off == rsh_fz.map.off[RSH_SCRATCH_BUF_CTL])
		rsh_fz.pos = 0, rsh_fz.ctl = v;
}

static const struct rsh_backend_ops rsh_fz_ops = {
	.read64 = rsh_fz_rd,
	.write64 = rsh_fz_wr,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* One input: 1 byte of index, then up to 128 words. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct rsh_log_rec recs[RSH_SCRATCH_BUF_WORDS];
	struct rsh_dev dev;
	int n;

	if (len < 1)
		return 0;
	memset(&rsh_fz, 0, sizeof(rsh_fz));
	rsh_fz.be.ops = &rsh_fz_ops;
	rsh_regmap_init(&rsh_fz.map, (data[0] & 0x80) ? RSH_GEN_BF3 : RSH_GEN_BF2);
	rsh_fz.ctl = data[0] & 0x7F;
	memcpy(rsh_fz.words, data + 1,
	       len - 1 < sizeof(rsh_fz.words) ? len - 1 : sizeof(rsh_fz.words));
	memset(&dev, 0, sizeof(dev));
	snprintf(dev.name, sizeof(dev.name), "fuzz");
	dev.be = &rsh_fz.be;
	dev.map = rsh_fz.map;
	n = rsh_log_read(&dev, false, recs, RSH_SCRATCH_BUF_WORDS);
	if (n < 0 || n > (int)(rsh_fz.ctl & 0x7F))
		abort();
	for (int i = 0; i < n; i++) {
		size_t l = strnlen(recs[i].text, sizeof(recs[i].text));

		if (l == sizeof(recs[i].text))
			abort();
		for (size_t k = 0; k < l; k++)
			if (!isprint((unsigned char)recs[i].text[k]))
				abort();
	}
	return 0;
}
