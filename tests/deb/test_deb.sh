#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages: build them from a copy of the tree with the one
# documented command (dpkg-buildpackage -b -us -uc), check what each holds,
# unpack them into a temporary root and smoke-test the unpacked tools on
# the emulator (list, build a BFB, push it). Skipped (77) where
# dpkg-buildpackage or debhelper is missing.
#   test_deb.sh SOURCE_DIR [BUILD_DIR]
# With BUILD_DIR (a build of the tree configured for /usr, as test.sh's
# is), the packages are made from that build (debian/rules'
# RSH_DEB_BUILDDIR) instead of a second compile; without it, or when the
# build has another prefix, dpkg-buildpackage builds from scratch.
set -euo pipefail
src=$1
prebuilt=${2:-}
for t in dpkg-buildpackage dh dpkg-deb; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "SKIP: $t not installed (apt-get install dpkg-dev debhelper)"
		exit 77
	fi
done
if [ "${RSH_SANITIZE:-none}" != none ]; then
	echo "SKIP: sanitizer build; the package is built without sanitizers"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A clean copy of the sources (no build directories), as a checkout has.
mkdir "$tmp/src"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -co --exclude-standard -z |
		xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$tmp/src"
else
	tar -C "$src" --exclude='./build*' --exclude='./obj-*' -cf - . | tar -xf - -C "$tmp/src"
fi
if [ -n "$prebuilt" ]; then
	prefix=$(meson introspect "$prebuilt" --buildoptions |
		python3 -c 'import json,sys; print({o["name"]: o["value"] for o in json.load(sys.stdin)}["prefix"])')
	if [ "$prefix" = /usr ]; then
		export RSH_DEB_BUILDDIR=$(cd "$prebuilt" && pwd)
		echo "packaging the build in $RSH_DEB_BUILDDIR (no second compile)"
	else
		echo "note: $prebuilt is configured for $prefix, not /usr: building the package from scratch"
	fi
fi
start=$(date +%s)
if ! (cd "$tmp/src" && DEB_BUILD_OPTIONS="parallel=2 nocheck noddebs noopt" \
	dpkg-buildpackage -b -us -uc >"$tmp/build.log" 2>&1); then
	tail -40 "$tmp/build.log"
	echo "FAIL: dpkg-buildpackage -b -us -uc"
	exit 1
fi
echo "dpkg-buildpackage: $(($(date +%s) - start)) s"
arch=$(dpkg --print-architecture)
ver=$(dpkg-parsechangelog -l "$tmp/src/debian/changelog" -S Version)

# Each package holds its part.
declare -A want=(
	[rshim-pmd]="usr/bin/rshim-pmd-app usr/bin/rshim-pmd-telemetry usr/bin/rshim-mkbfb usr/bin/rshim-devbind usr/bin/rshim-hugepages usr/sbin/rshim-pmd lib/systemd/system/rshim-pmd.service etc/rshim-pmd.conf usr/share/man/man1/rshim-pmd-app.1.gz usr/share/man/man8/rshim-devbind.8.gz"
	[librshim-pmd1]="usr/lib/*/librshim-pmd.so.1"
	[librshim-pmd-dev]="usr/include/rshim-pmd/rsh.h usr/lib/*/librshim-pmd.a usr/lib/*/pkgconfig/rshim-pmd.pc"
)
root=$tmp/root
for p in "${!want[@]}"; do
	deb=$tmp/${p}_${ver}_${arch}.deb
	if [ ! -f "$deb" ]; then fail "$deb not built"; continue; fi
	dpkg-deb -x "$deb" "$root"
	for f in ${want[$p]}; do
		# shellcheck disable=SC2086
		ls -d "$root"/$f >/dev/null 2>&1 || fail "$p lacks /$f"
	done
	echo "$p $(dpkg-deb -f "$deb" Version): $(dpkg-deb -c "$deb" | wc -l) entries"
done
deps=$(dpkg-deb -f "$tmp/rshim-pmd_${ver}_${arch}.deb" Depends)
grep -q 'librte-eal' <<<"$deps" || fail "rshim-pmd Depends lacks DPDK: $deps"
if [ -n "$(find "$root" -name 'rsh_regs.h' -o -name '*_priv.h')" ]; then
	fail "a private header is packaged"
fi

# Smoke test of the unpacked tools on the emulator.
export LD_LIBRARY_PATH=$(dirname "$(ls "$root"/usr/lib/*/librshim-pmd.so.1)")
bin=$root/usr/bin
out=$("$bin/rshim-pmd-app" --list --sim 2>&1) || fail "rshim-pmd-app --list --sim: $out"
grep -q 'sim:bf3' <<<"$out" || fail "--list --sim names no sim:bf3: $out"
"$bin/rshim-mkbfb" --random bl2:64K:1 --random bl31:64K:3 --random bl33:64K:5 \
	--random image:1M:62 "$tmp/demo.bfb" >/dev/null ||
	fail "rshim-mkbfb"
out=$("$bin/rshim-pmd-app" --device sim:bf3 --push-boot "$tmp/demo.bfb" --no-progress \
	--reset-delay 0 --log-wait 30 2>&1) || fail "push to sim:bf3 exit $?: $out"
grep -q 'DPU is ready' <<<"$out" || fail "push to sim:bf3: no 'DPU is ready': $out"
"$bin/rshim-devbind" --help | grep -q -- '--persist' || fail "rshim-devbind --help"
"$bin/rshim-hugepages" --version | grep -qF "$ver" || fail "rshim-hugepages --version"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
