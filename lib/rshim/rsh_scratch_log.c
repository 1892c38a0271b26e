/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rshim scratch log (boot/firmware log): read under SEMAPHORE0 and
 * decode, reference rshim-host-interface.md §5.6.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "rsh_dev_priv.h"
#include "rsh_log.h"
#include "rsh_log_decode.h"
#include "rsh_own.h"

#define RSH_LOG_SEM_TIMEOUT_MS 3000u

/* Take SEMAPHORE0: a read of 0 means acquired (§5.6 step 1), 3 s deadline. */
static int
rsh_log_sem_take(struct rsh_dev *dev)
{
	uint64_t deadline = rte_get_timer_cycles() +
			    RSH_LOG_SEM_TIMEOUT_MS * rte_get_timer_hz() / 1000;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 1000000 };

	for (;;) {
		uint64_t v = rsh_dev_rd(dev, RSH_SEMAPHORE0);

		if (v == 0)
			return 0;
		if (rsh_reg_val_is_bad(v)) {
			rsh_err_set("%s: SEMAPHORE0 reads 0x%" PRIx64 ": the rshim is not reachable",
				    dev->name, v);
			return rsh_dev_val_err(v);
		}
		if (rte_get_timer_cycles() > deadline) {
			rsh_err_set("%s: the scratch-log semaphore stayed taken for 3 s (another rshim driver reading the log?)",
				    dev->name);
			return -ETIMEDOUT;
		}
		nanosleep(&ts, NULL);
	}
}

/*
 * Read the words of every record up to the index (§5.6 steps 2-5): a
 * header, then its len words; a record that would pass the index is the
 * wrap-around and ends the read. Returns the number of words read.
 */
static int
rsh_log_read_words(struct rsh_dev *dev, bool clear, uint64_t *words)
{
	uint64_t v = rsh_dev_rd(dev, RSH_SCRATCH_BUF_CTL);
	unsigned int idx, i = 0;

	if (rsh_reg_val_is_bad(v))
		return rsh_dev_val_err(v);
	idx = v & RSH_SCRATCH_BUF_CTL__IDX_MASK;
	if (idx <= 1)
		return 0;
	rsh_dev_wr(dev, RSH_SCRATCH_BUF_CTL, 0);
	while (i < idx) {
		uint64_t hdr = rsh_dev_rd(dev, RSH_SCRATCH_BUF_DAT);
		unsigned int len = RSH_LOG_HDR__LEN(hdr), k;

		if (i + 1 + len > idx)
			break;
		words[i] = hdr;
		for (k = 0; k < len; k++)
			words[i + 1 + k] = rsh_dev_rd(dev, RSH_SCRATCH_BUF_DAT);
		i += 1 + len;
	}
	rsh_dev_wr(dev, RSH_SCRATCH_BUF_CTL, clear ? 0 : idx);
	return (int)i;
}

/* Read the words under SEMAPHORE0 (the caller owns the registers). */
int
rsh_log_read_raw(struct rsh_dev *dev, bool clear_on_read,
		 uint64_t words[RSH_SCRATCH_BUF_WORDS])
{
	int rc = rsh_log_sem_take(dev);

	if (rc < 0)
		return rc;
	rc = rsh_log_read_words(dev, clear_on_read, words);
	rsh_dev_wr(dev, RSH_SEMAPHORE0, 0);
	return rc;
}

/* Read and decode the scratch log under SEMAPHORE0. */
int
rsh_log_read(struct rsh_dev *dev, bool clear_on_read, struct rsh_log_rec *recs,
	     unsigned int max)
{
	uint64_t words[RSH_SCRATCH_BUF_WORDS];
	int rc;

	pthread_mutex_lock(&dev->ctl_lock);
	if (__atomic_load_n(&dev->boot, __ATOMIC_ACQUIRE) != NULL) {
		pthread_mutex_unlock(&dev->ctl_lock);
		rsh_err_set("%s: a boot push owns the device; read the log after it", dev->name);
		return -EBUSY;
	}
	rc = rsh_own_access_ok(dev);
	if (rc == 0)
		rc = rsh_log_read_raw(dev, clear_on_read, words);
	pthread_mutex_unlock(&dev->ctl_lock);
	if (rc < 0)
		return rc;
	return (int)rsh_log_decode_words(words, (unsigned int)rc, recs, max);
}
