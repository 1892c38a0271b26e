/* SPDX-License-Identifier: BSD-3-Clause */
/* Device strings with devargs (rsh_devstr.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rsh_devstr.h"
#include "rsh_parse.h"

/* The value of key in the devargs after devstr's address ("" when the
 * key has no value), its length in *vlen; NULL when the key is absent. */
static const char *
rsh_devstr_find(const char *devstr, const char *key, size_t *vlen)
{
	const char *tok = strchr(devstr, ',');
	size_t klen = strlen(key);

	while (tok != NULL) {
		tok++;
		if (strncmp(tok, key, klen) == 0 &&
		    (tok[klen] == '=' || tok[klen] == ',' || tok[klen] == '\0')) {
			tok += klen + (tok[klen] == '=');
			*vlen = strcspn(tok, ",");
			return tok;
		}
		tok = strchr(tok, ',');
	}
	return NULL;
}

/* Whether the string's key=val agrees with want, a mapping name or "1"
 * for a boolean (true: append nothing). */
static bool
rsh_devstr_agrees(const char *val, size_t vlen, const char *want)
{
	char v[RSH_DEVSTR_MAX];
	bool b;

	/* No value or one that does not parse: the backend names the
	 * valid ones. */
	if (vlen == 0)
		return true;
	snprintf(v, sizeof(v), "%.*s", (int)vlen, val);
	if (strcmp(want, "1") != 0)
		return strcmp(v, want) == 0 || (strcmp(v, "vfio") != 0 &&
			strcmp(v, "uio") != 0 && strcmp(v, "direct") != 0);
	return rsh_parse_bool(v, &b) < 0 || b;
}

/* Check one program option against the string; 1: the string has it. */
static int
rsh_devstr_key(const char *devstr, const char *key, const char *want,
	       const char *from, char *err, size_t errlen)
{
	const char *val;
	size_t vlen;

	if (want == NULL)
		return 0;
	val = rsh_devstr_find(devstr, key, &vlen);
	if (val == NULL)
		return 0;
	if (rsh_devstr_agrees(val, vlen, want))
		return 1;
	snprintf(err, errlen, "%s: %s gives %s=%s but the device string has %s=%.*s; give one of them",
		 devstr, from != NULL ? from : "the program's option", key, want,
		 key, (int)vlen, val);
	return -EINVAL;
}

int
rsh_devstr_pci(char *buf, size_t len, const char *devstr,
	       const struct rsh_devstr_pci_opts *o, char *err, size_t errlen)
{
	bool pci = strncmp(devstr, "sim:", 4) != 0;
	const char *mapping = pci ? o->mapping : NULL;
	int has_map, has_force, n;

	has_map = rsh_devstr_key(devstr, "mapping", mapping, o->mapping_from,
				 err, errlen);
	if (has_map < 0)
		return has_map;
	has_force = rsh_devstr_key(devstr, "force-id",
				   pci && o->force_id ? "1" : NULL,
				   o->force_id_from, err, errlen);
	if (has_force < 0)
		return has_force;
	n = snprintf(buf, len, "%s%s%s%s", devstr,
		     mapping != NULL && !has_map ? ",mapping=" : "",
		     mapping != NULL && !has_map ? mapping : "",
		     pci && o->force_id && !has_force ? ",force-id=1" : "");
	if (n >= 0 && (size_t)n < len)
		return 0;
	snprintf(err, errlen, "%.40s%s: device string too long with its options (at most %zu characters); give a PCI address such as 0000:03:00.2 with at most the options mapping= and force-id=",
		 devstr, strlen(devstr) > 40 ? "..." : "", len - 1);
	return -ENAMETOOLONG;
}
