#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Write a man page from a tool's --help with help2man, so that the page and
# the program cannot disagree. Option lists under headings such as
# "Modes:" or "Device:" become subsections of one OPTIONS section.
#   rsh-help2man.sh OUT SECTION VERSION NAME-LINE INCLUDE PROGRAM
set -eu
out=$1 section=$2 version=$3 name=$4 include=$5 prog=$6
tmp="$out.tmp"
help2man --no-info --section "$section" --version-string "$version" \
	--name "$name" --include "$include" --output "$tmp" "$prog"
if ! grep -q '^\.SH OPTIONS' "$tmp"; then
	# The first subsection or option paragraph after DESCRIPTION starts it.
	awk 'BEGIN { d = 0; done = 0 }
		/^\.SH DESCRIPTION/ { d = 1 }
		d && !done && (/^\.SS / || /^\.TP/) { print ".SH OPTIONS"; done = 1 }
		/^\.SH / && !/^\.SH DESCRIPTION/ { d = 0 }
		{ print }' "$tmp" > "$tmp.2"
	mv "$tmp.2" "$tmp"
fi
mv "$tmp" "$out"
