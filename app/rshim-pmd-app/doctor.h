/* SPDX-License-Identifier: BSD-3-Clause */
/* rshim-pmd-app --doctor: the layers and their shared state. */
#ifndef RSH_APP_DOCTOR_H
#define RSH_APP_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app.h"

#define RSH_DOC_MAX_FNS 16

/* Exit codes of the layers, in walking order (documented in --help). */
enum rsh_doc_code {
	RSH_DOC_PCI = 20,      /* no DPU function / no rshim function */
	RSH_DOC_LINK = 21,     /* PCIe link trained below its capability */
	RSH_DOC_DRIVER = 22,   /* rshim function not bound to vfio-pci/uio */
	RSH_DOC_IOMMU = 23,    /* no IOMMU group / VFIO unusable */
	RSH_DOC_HUGE = 24,     /* hugepages (a warning only) */
	RSH_DOC_REACH = 25,    /* rshim registers not reachable */
	RSH_DOC_OWNER = 26,    /* another driver owns the rshim */
	RSH_DOC_FIFO = 27,     /* TM FIFO console does not answer */
	RSH_DOC_NET = 28,      /* no answer on the tmfifo network */
};

/* A layer's verdict. */
enum rsh_doc_status { RSH_DOC_OK, RSH_DOC_WARN, RSH_DOC_FAIL, RSH_DOC_SKIP };

/* One DPU PCI function found under <root>/bus/pci/devices. */
struct rsh_doc_fn {
	char bdf[16];
	uint16_t device;
	const char *kind;      /* "rshim", "NIC PF", "livefish" */
};

/* State shared by the layers (main thread). */
struct rsh_doc {
	struct rsh_app *app;
	const char *root;      /* stands for /sys */
	bool sim;              /* an emulated device: no PCI layers */
	char target[RSH_DEV_NAME_MAX]; /* the rshim function checked */
	char kdrv[32];         /* its kernel driver, "" when unbound */
	struct rsh_doc_fn fns[RSH_DOC_MAX_FNS];
	unsigned int n_fns;
	/* The layer being reported. */
	enum rsh_doc_status st;
	char detail[256];
	char fix[320];
	/* Device layers. */
	struct rsh_dev *dev;
	struct rsh_poller *poller;
	bool eal_up;
	bool busy;             /* the open said -EBUSY */
	char busy_msg[192];    /* and why */
	int fifo_rc;           /* rsh_tmfifo_attach() result */
};

/* Set the current layer's verdict (printf-style detail). */
void rsh_doc_set(struct rsh_doc *d, enum rsh_doc_status st, const char *fix,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Device layers (doctor_dev.c): each sets the verdict. */
void rsh_doc_reach(struct rsh_doc *d, int eal_argc, char **eal_argv);
void rsh_doc_owner(struct rsh_doc *d);
void rsh_doc_fifo(struct rsh_doc *d);
void rsh_doc_net(struct rsh_doc *d);
void rsh_doc_dev_close(struct rsh_doc *d);

#endif /* RSH_APP_DOCTOR_H */
