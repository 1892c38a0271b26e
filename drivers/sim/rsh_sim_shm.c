/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shared=NAME: the emulated device's register file in POSIX shared memory
 * (/dev/shm/rshim-sim-NAME), so that several processes opening the same
 * name meet on the same registers as several drivers do on one rshim
 * (the host's PCIe driver and a BMC's USB one, hardware-notes §6). The
 * first opener powers the registers on; later ones attach as they are;
 * the last one to close removes the segment.
 *
 * Shared: every register that is storage (SCRATCHPAD1-6, BOOT_CONTROL,
 * SEMAPHORE0, BREADCRUMB1, RESET_CONTROL's upper bits, ...). Per process:
 * the FIFOs, the boot ROM, the scratch log and the ARM side (each process
 * models its own view of them; ownership needs only the registers).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#define RSH_LOGTYPE rsh_logtype_sim
#include "rsh_log.h"
#include "rsh_sim_priv.h"

#define RSH_SIM_SHM_MAGIC 0x52534853494D3031ull /* "RSHSIM01" */
#define RSH_SIM_SHM_HDR 4096u

/* Header page in front of the register file. */
struct rsh_sim_shm_hdr {
	uint64_t magic;     /* written last by the creator (release) */
	uint32_t gen;
	uint32_t users;     /* atomic */
	uint32_t bar_size;
};

/* Map an open segment of bar_size registers plus the header. */
static void *
rsh_sim_shm_map(int fd, uint32_t bar_size)
{
	void *p = mmap(NULL, RSH_SIM_SHM_HDR + (size_t)bar_size,
		       PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Create the segment; 1 when we did, 0 when it exists, -errno. */
static int
rsh_sim_shm_create(struct rsh_sim *sim, const char *path, int *fd)
{
	*fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (*fd >= 0) {
		if (ftruncate(*fd, RSH_SIM_SHM_HDR + (off_t)sim->bar_size) != 0) {
			int err = errno;

			close(*fd);
			shm_unlink(path);
			return -err;
		}
		return 1;
	}
	if (errno != EEXIST)
		return -errno;
	*fd = shm_open(path, O_RDWR | O_CLOEXEC, 0);
	return *fd >= 0 ? 0 : -errno;
}

/* Check an existing segment: same generation, creator done. */
static int
rsh_sim_shm_check(struct rsh_sim *sim, struct rsh_sim_shm_hdr *h)
{
	unsigned int i;

	for (i = 0; i < 1000 && __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) !=
			RSH_SIM_SHM_MAGIC; i++)
		usleep(1000); /* the creator is initialising it */
	if (h->magic != RSH_SIM_SHM_MAGIC) {
		rsh_err_set("%s: shared state /rshim-sim-%s is not an emulated device (remove /dev/shm/rshim-sim-%s)",
			    sim->be.name, sim->cfg.shared, sim->cfg.shared);
		return -EINVAL;
	}
	if (h->gen != (uint32_t)sim->cfg.gen || h->bar_size != sim->bar_size) {
		rsh_err_set("%s: shared state %s belongs to a BlueField-%u, not a %s",
			    sim->be.name, sim->cfg.shared, h->gen,
			    rsh_gen_name(sim->cfg.gen));
		return -EINVAL;
	}
	return 0;
}

/* The register storage: private, or the shared segment. *fresh = the
 * registers need their power-on values. */
int
rsh_sim_mem_attach(struct rsh_sim *sim, bool *fresh)
{
	struct rsh_sim_shm_hdr *h;
	char path[64];
	int fd, rc;
	void *p;

	*fresh = true;
	if (sim->cfg.shared[0] == '\0') {
		sim->mem = calloc(sim->bar_size / 8, sizeof(uint64_t));
		return sim->mem != NULL ? 0 : -ENOMEM;
	}
	snprintf(path, sizeof(path), "/rshim-sim-%s", sim->cfg.shared);
	rc = rsh_sim_shm_create(sim, path, &fd);
	if (rc < 0)
		return rc;
	p = rsh_sim_shm_map(fd, sim->bar_size);
	close(fd);
	if (p == NULL)
		return -errno;
	h = p;
	if (rc == 0 && rsh_sim_shm_check(sim, h) < 0) {
		munmap(p, RSH_SIM_SHM_HDR + (size_t)sim->bar_size);
		return -EINVAL;
	}
	if (rc == 1) {
		h->gen = (uint32_t)sim->cfg.gen;
		h->bar_size = sim->bar_size;
	}
	__atomic_fetch_add(&h->users, 1, __ATOMIC_ACQ_REL);
	sim->shm = p;
	sim->mem = (uint64_t *)((uint8_t *)p + RSH_SIM_SHM_HDR);
	*fresh = rc == 1;
	return 0;
}

/* The creator has written the power-on values: others may attach. */
void
rsh_sim_mem_ready(struct rsh_sim *sim)
{
	struct rsh_sim_shm_hdr *h = sim->shm;

	if (h != NULL)
		__atomic_store_n(&h->magic, RSH_SIM_SHM_MAGIC, __ATOMIC_RELEASE);
}

/* Drop the storage; the last user of a shared segment removes it. */
void
rsh_sim_mem_detach(struct rsh_sim *sim)
{
	struct rsh_sim_shm_hdr *h = sim->shm;
	char path[64];

	if (h == NULL) {
		free(sim->mem);
		sim->mem = NULL;
		return;
	}
	if (__atomic_sub_fetch(&h->users, 1, __ATOMIC_ACQ_REL) == 0) {
		snprintf(path, sizeof(path), "/rshim-sim-%s", sim->cfg.shared);
		shm_unlink(path);
	}
	munmap(h, RSH_SIM_SHM_HDR + (size_t)sim->bar_size);
	sim->shm = NULL;
	sim->mem = NULL;
}
