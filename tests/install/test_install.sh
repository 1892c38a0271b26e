#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# meson install --destdir into a temporary tree, then: the tree holds the
# library (shared and static), the public headers and nothing private, the
# pkg-config file, the tools and their man pages, LICENSE; the examples build
# against the installed .pc (shared and static) and run on the emulator.
#   test_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
if [ "${RSH_SANITIZE:-none}" != none ]; then
	echo "SKIP: sanitizer build; the example links the plain installed library"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print({o["name"]: o["value"] for o in json.load(sys.stdin)}["prefix"])')
root=$dest$prefix
pc=$(find "$root" -name rshim-pmd.pc)
[ -n "$pc" ] || { echo "FAIL: no rshim-pmd.pc installed"; exit 1; }
libdir=$(dirname "$(dirname "$pc")")

echo "install tree:"
(cd "$dest" && find . -type f -o -type l | sort | sed 's/^/  /')

# Library, shared and static.
for f in librshim-pmd.so librshim-pmd.a; do
	[ -e "$libdir/$f" ] || fail "$libdir/$f missing"
done
# The shared library exports the public API and nothing of the internals.
dyn=$(nm -D --defined-only "$libdir/librshim-pmd.so" 2>/dev/null | awk '{print $3}' | sed 's/@.*//')
for s in rsh_dev_open rsh_dev_get_info rsh_boot_open rsh_tmfifo_attach rsh_tmfifo_ctrl_send \
	rsh_scratchlog_read rsh_bfb_walk rsh_gen_name; do
	grep -qx "$s" <<<"$dyn" || fail "librshim-pmd.so does not export $s"
done
leaked=$(grep -E '^rsh_(reg_table|regmap_init|reg_decode|sim_|pci_|backend_|parse_|fmt_|json_|bfb_(write|crc32|size|id_from_name)$)' <<<"$dyn" | tr '\n' ' ' || true)
[ -z "$leaked" ] || fail "librshim-pmd.so exports internals: $leaked"
# Public headers: exactly the public include directory of the tree (the
# only one app/ and examples/ see); no register table, backend SDK, internal
# utility or *_priv.h.
inc=$root/include/rshim-pmd
got=$(cd "$inc" && ls | sort | tr '\n' ' ')
public=$(cd "$src/include" && ls | sort | tr '\n' ' ')
for h in $public; do
	[ -f "$inc/$h" ] || fail "public header $h not installed"
done
for h in $got; do
	grep -qw -- "$h" <<<"$public" || fail "header $h installed but not public"
done
priv=$(find "$dest" -name 'rsh_regs.h' -o -name 'rsh_backend.h' -o -name 'rsh_parse.h' -o -name '*_priv.h')
if [ -n "$priv" ]; then
	fail "a private header is installed"
fi
# Each public header compiles on its own.
for h in $got; do
	echo "#include <$h>" | cc -fsyntax-only -Wall -Wextra -Werror -I"$inc" -x c - ||
		fail "$h is not self-contained"
done
# Tools, man pages, LICENSE.
for t in rshim-pmd-app rshim-mkbfb rshim-devbind rshim-devbind.py rshim-hugepages; do
	[ -x "$root/bin/$t" ] || fail "tool $t not installed"
done
if [ "${RSH_MAN:-1}" = 1 ]; then
	for m in man1/rshim-pmd-app.1 man1/rshim-mkbfb.1 man8/rshim-devbind.8 man8/rshim-hugepages.8; do
		f=$root/share/man/$m
		if [ ! -f "$f" ]; then fail "man page $m missing"; continue; fi
		grep -q '^\.SH OPTIONS' "$f" || fail "$m has no OPTIONS section"
	done
	# The app's page lists every long option its --help names.
	"$root/bin/rshim-pmd-app" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u > "$tmp/opts"
	sed 's/\\-/-/g' "$root/share/man/man1/rshim-pmd-app.1" | grep -oE -- '--[a-z][a-z0-9-]+' |
		sort -u > "$tmp/mopts"
	missing=$(comm -23 "$tmp/opts" "$tmp/mopts" | tr '\n' ' ')
	[ -z "$missing" ] || fail "rshim-pmd-app.1 lacks: $missing"
else
	echo "note: built without help2man (-Dman=disabled): man pages not checked"
fi
grep -q 'BSD 3-Clause' "$root/share/doc/rshim-pmd/LICENSE" || fail "LICENSE not installed"
version=$(meson introspect "$build" --projectinfo |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
grep -qF " $version" <<<"$("$root/bin/rshim-hugepages" --version)" ||
	fail "rshim-hugepages --version is not the project version $version"

# The example, built from the installed sources against the installed .pc
# (relocated: the .pc names the final prefix, the tree is under destdir).
mkdir -p "$tmp/pc" "$tmp/ex"
sed "s|^prefix=.*|prefix=$root|" "$pc" > "$tmp/pc/rshim-pmd.pc"
cp "$root/share/doc/rshim-pmd/examples/rshim-info/"* "$tmp/ex/"
export PKG_CONFIG_PATH=$tmp/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
make -s -C "$tmp/ex" all static CFLAGS="-O1 -Wall -Wextra -Werror" || fail "example build"
needed() { readelf -d "$1" 2>/dev/null | grep NEEDED || true; }
if grep -q librshim-pmd <<<"$(needed "$tmp/ex/rshim-info-static")"; then
	fail "the static example loads librshim-pmd.so"
fi
grep -q librshim-pmd <<<"$(needed "$tmp/ex/rshim-info")" ||
	fail "the shared example does not use librshim-pmd.so"
eal=(-l0 --no-huge -m 128 --no-pci --no-shconf --no-telemetry --log-level=lib.eal:error)
for ex in rshim-info rshim-info-static; do
	[ -x "$tmp/ex/$ex" ] || continue
	for gen in 1 2 3; do
		out=$(LD_LIBRARY_PATH=$libdir "$tmp/ex/$ex" "${eal[@]}" --file-prefix "rsh-inst-$$" \
			-- "sim:bf$gen" 2>&1) || fail "$ex sim:bf$gen exit $?: $out"
		grep -q "model: *BlueField-$gen" <<<"$out" || fail "$ex sim:bf$gen: $out"
		grep -q '^BOOT_CONTROL ' <<<"$out" || fail "$ex sim:bf$gen: no register: $out"
		# Extended statistics through the installed API: the core's MMIO
		# read count saw the register reads above; the emulator adds its own.
		reads=$(awk '$1 == "mmio_reads" {print $2}' <<<"$out")
		[ "${reads:-0}" -ge 4 ] || fail "$ex sim:bf$gen: no mmio_reads xstat: $out"
		grep -q '^  sim_' <<<"$out" || fail "$ex sim:bf$gen: no emulator xstats: $out"
	done
	set +e
	out=$(LD_LIBRARY_PATH=$libdir "$tmp/ex/$ex" "${eal[@]}" -- sim:bf9 2>&1)
	rc=$?
	set -e
	[ $rc -eq 3 ] || fail "$ex sim:bf9 exit $rc (want 3): $out"
done
# The installed app runs on the emulator.
out=$("$root/bin/rshim-pmd-app" --list --sim 2>&1) || fail "installed app --list --sim: $out"
grep -q 'sim:bf3' <<<"$out" || fail "installed app --list --sim: $out"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
