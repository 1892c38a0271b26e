#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Write the shared library's version script: the rsh_ functions the public
# headers declare are global, everything else (register table, backends,
# emulator internals) is local.
#   rsh-symbols.sh OUT HEADER...
set -eu
out=$1
shift
{
	echo "RSHIM_PMD_1 {"
	echo "	global:"
	sed -e 's|/\*.*\*/||g' "$@" | grep -oE '\brsh_[a-z0-9_]+[[:space:]]*\(' |
		sed -E 's/[[:space:]]*\($//' | sort -u | sed 's/^/		/; s/$/;/'
	echo "	local: *;"
	echo "};"
} > "$out.tmp"
mv "$out.tmp" "$out"
