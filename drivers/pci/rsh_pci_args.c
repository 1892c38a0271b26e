/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device strings of the PCI backend: a PCI address followed by DPDK
 * devargs ("key=value,key=value", parsed by rte_kvargs), e.g.
 * "0000:03:00.2,mapping=vfio,force-id=1". ONE table below describes
 * every option; the parser walks it and names its keys in errors. The
 * device's host key (locks) is the canonical address without devargs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_kvargs.h>

#define RSH_LOGTYPE rsh_logtype_vfio
#include "rsh_log.h"
#include "rsh_parse.h"
#include "rsh_pci_priv.h"

#define RSH_PCI_DEVSTR_MAX 256

/* One option: key, value syntax, meaning, setter. */
struct rsh_pci_opt {
	const char *key;
	const char *syntax;
	const char *help;
	int (*set)(struct rsh_pci_args *a, const char *val);
};

/* mapping=vfio|uio|direct */
static int
rsh_pci_opt_mapping(struct rsh_pci_args *a, const char *v)
{
	static const char *const names[RSH_PCI_MAP_COUNT] = {
		[RSH_PCI_MAP_VFIO] = "vfio",
		[RSH_PCI_MAP_UIO] = "uio",
		[RSH_PCI_MAP_DIRECT] = "direct",
	};
	int i;

	for (i = 0; i < RSH_PCI_MAP_COUNT; i++)
		if (strcmp(v, names[i]) == 0) {
			a->mapping = i;
			return 0;
		}
	return -EINVAL;
}

/* force-id=<bool> */
static int
rsh_pci_opt_force_id(struct rsh_pci_args *a, const char *v)
{
	return rsh_parse_bool(v, &a->force_id);
}

/* THE option table. */
static const struct rsh_pci_opt rsh_pci_opts[] = {
	{ "mapping", "vfio|uio|direct",
	  "how BAR0 is mapped (default: VFIO, then UIO, then direct)",
	  rsh_pci_opt_mapping },
	{ "force-id", "<bool>",
	  "accept a function whose vendor/device IDs are not an rshim function's",
	  rsh_pci_opt_force_id },
};

#define RSH_PCI_N_OPTS RTE_DIM(rsh_pci_opts)

/* "mapping, force-id" */
static void
rsh_pci_args_keys(char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < RSH_PCI_N_OPTS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i > 0 ? ", " : "", rsh_pci_opts[i].key);
}

/* The table row of a key, NULL when there is none. */
static const struct rsh_pci_opt *
rsh_pci_opt_find(const char *key, size_t klen)
{
	unsigned int i;

	for (i = 0; i < RSH_PCI_N_OPTS; i++)
		if (strlen(rsh_pci_opts[i].key) == klen &&
		    strncmp(rsh_pci_opts[i].key, key, klen) == 0)
			return &rsh_pci_opts[i];
	return NULL;
}

/* Every token is a known key with a value (rte_kvargs would only say
 * "invalid"; the user gets the key and the valid ones). */
static int
rsh_pci_args_precheck(const char *devstr, const char *opts)
{
	const char *tok = opts;
	char keys[64];

	while (tok != NULL && *tok != '\0') {
		const char *next = strchr(tok, ',');
		size_t klen = strcspn(tok, "=,");
		const struct rsh_pci_opt *o = rsh_pci_opt_find(tok, klen);

		if (o == NULL) {
			rsh_pci_args_keys(keys, sizeof(keys));
			rsh_err_set("%s: unknown PCI option '%.*s'; valid: %s",
				    devstr, (int)klen, tok, keys);
			return -EINVAL;
		}
		if (tok[klen] != '=' || tok[klen + 1] == ',' ||
		    tok[klen + 1] == '\0') {
			rsh_err_set("%s: PCI option '%s' needs a value: %s=%s",
				    devstr, o->key, o->key, o->syntax);
			return -EINVAL;
		}
		tok = next != NULL ? next + 1 : NULL;
	}
	return 0;
}

/* Context of one rte_kvargs_process() call. */
struct rsh_pci_kv_ctx {
	const char *devstr;
	const struct rsh_pci_opt *o;
	struct rsh_pci_args *args;
};

/* rte_kvargs handler: apply one value through the table's setter. */
static int
rsh_pci_kv_apply(const char *key, const char *val, void *opaque)
{
	struct rsh_pci_kv_ctx *c = opaque;

	RTE_SET_USED(key);
	if (val != NULL && c->o->set(c->args, val) == 0)
		return 0;
	rsh_err_set("%s: bad value '%s' for PCI option %s (expected %s=%s: %s)",
		    c->devstr, val != NULL ? val : "", c->o->key, c->o->key,
		    c->o->syntax, c->o->help);
	return -1;
}

/* Run every option of the table over the parsed list. */
static int
rsh_pci_args_apply(const char *devstr, struct rte_kvargs *kv,
		   struct rsh_pci_args *args)
{
	struct rsh_pci_kv_ctx c = { .devstr = devstr, .args = args };
	unsigned int i;

	for (i = 0; i < RSH_PCI_N_OPTS; i++) {
		c.o = &rsh_pci_opts[i];
		if (rte_kvargs_count(kv, c.o->key) > 1) {
			rsh_err_set("%s: PCI option '%s' given twice", devstr,
				    c.o->key);
			return -EINVAL;
		}
		if (rte_kvargs_process(kv, c.o->key, rsh_pci_kv_apply, &c) < 0)
			return -EINVAL;
	}
	return 0;
}

/* The devargs after the address (opts: "" for none). */
static int
rsh_pci_args_opts(const char *devstr, const char *opts,
		  struct rsh_pci_args *args)
{
	const char *keys[RSH_PCI_N_OPTS + 1];
	struct rte_kvargs *kv;
	unsigned int i;
	int rc;

	rc = rsh_pci_args_precheck(devstr, opts);
	if (rc < 0 || *opts == '\0')
		return rc;
	/* rte_kvargs' valid keys: the table's, NULL-terminated. */
	for (i = 0; i < RSH_PCI_N_OPTS; i++)
		keys[i] = rsh_pci_opts[i].key;
	keys[i] = NULL;
	kv = rte_kvargs_parse(opts, keys);
	if (kv == NULL) {
		rsh_err_set("%s: cannot parse the PCI options '%s' (key=value,...)",
			    devstr, opts);
		return -EINVAL;
	}
	rc = rsh_pci_args_apply(devstr, kv, args);
	rte_kvargs_free(kv);
	return rc;
}

int
rsh_pci_devstr_addr(const char *devstr, char bdf[RSH_PCI_BDF_LEN])
{
	char addr[RSH_PCI_DEVSTR_MAX];
	size_t alen;

	if (devstr == NULL)
		return -EINVAL;
	alen = strcspn(devstr, ",");
	if (alen >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, devstr, alen);
	addr[alen] = '\0';
	return rsh_pci_addr_parse(addr, bdf);
}

int
rsh_pci_args_parse(const char *devstr, struct rsh_pci_args *args)
{
	const char *comma = devstr != NULL ? strchr(devstr, ',') : NULL;

	args->mapping = -1;
	args->force_id = false;
	return rsh_pci_args_opts(devstr, comma != NULL ? comma + 1 : "", args);
}
