#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rshim-pmd test suite: install dependencies, build, and run every stage
# that guards correctness (doc/testing.md has the tiers and their times):
#   test.sh            the full tier: plain build (unit, sim, service,
#                      usertools, install, deb), ASan/UBSan, ThreadSanitizer,
#                      the fuzz targets, and the vm suite (a guest kernel)
#   test.sh --quick    one plain build: unit, sim, service, usertools
#   test.sh --long     the full tier plus the long suite (big transfers,
#                      long pushes, the whole dpkg-buildpackage)
# Every stage runs even when an earlier one failed (a stage whose build
# failed is reported as skipped); the script ends with one line per stage,
# naming the tests that skipped themselves inside it, and exits 1 when any
# stage failed. The sanitizer stages run meson's test setups "asan" and
# "tsan" (tests/meson.build), which any meson test run can use too.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
tier=full
case "${1:-}" in
"") ;;
--quick) tier=quick ;;
--long) tier=long ;;
-h | --help)
	sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'
	exit 0 ;;
*)
	echo "test.sh: unknown option $1 (--quick, --long or none)" >&2
	exit 2 ;;
esac

t_start=$(date +%s)
declare -a st_name st_res st_time
skip_why= skip_note=
# stage NAME COMMAND...: run, time and record one stage (never stops).
# The result names the tests skipped inside it (skip_note, from mtest).
stage() {
	local name=$1 s rc res
	shift
	echo "=== test.sh: $name"
	s=$(date +%s)
	skip_note=
	"$@"
	rc=$?
	case $rc in
	0) res="passed${skip_note:+ ($skip_note)}" ;;
	77) res="skipped (${skip_why:-see its output})" ;;
	*) res="FAILED (exit $rc${skip_note:+; $skip_note})" ;;
	esac
	skip_why= skip_note=
	st_name+=("$name")
	st_res+=("$res")
	st_time+=($(($(date +%s) - s)))
	echo "=== test.sh: $name: $res in ${st_time[-1]} s"
	return $rc
}
# skip NAME WHY: record a stage that could not run.
skip() {
	st_name+=("$1")
	st_res+=("skipped ($2)")
	st_time+=(0)
	echo "=== test.sh: $1: skipped ($2)"
}

stage deps ./usertools/install-deps.sh

# The vm suite's guest kernel and its noiommu vfio.ko, fetched and built
# (once, cached) while the tree compiles.
vm_prep_log=$top/build-vm-prep.log
if [ $tier != quick ]; then
	( ./usertools/rshim-vm --prepare && ./usertools/rshim-vm --build-noiommu ) \
		>"$vm_prep_log" 2>&1 &
	vm_prep=$!
fi

# Hugepages when we can (root); the tests pass with and without them.
if [ "$(id -u)" -eq 0 ] && [ -w /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages ]; then
	free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
	if [ "$free" -lt 128 ]; then
		echo 256 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages || true
	fi
fi

# skipped_note LOG: "N skipped: NAME: REASON; ..." for the tests of a
# meson test log (testlog*.json) that skipped themselves (exit 77), the
# reason from their first "SKIP:"/"skipped:" line; nothing if none did.
skipped_note() {
	[ -f "$1" ] || return 0
	python3 -c '
import json, re, sys
out = []
for line in open(sys.argv[1]):
    try:
        t = json.loads(line)
    except ValueError:
        continue
    if t.get("result") != "SKIP":
        continue
    why = "see its log"
    for ln in (t.get("stdout") or "").splitlines() + (t.get("stderr") or "").splitlines():
        m = re.match(r"\s*(?:SKIP|skipped)\s*:\s*(\S.*)", ln, re.I)
        if m:
            why = m.group(1).strip()
            break
    out.append("%s: %s" % (t["name"].split(" / ")[-1], why[:60]))
if out:
    print("%d skipped: %s" % (len(out), "; ".join(out)))
' "$1"
}
# mtest DIR [--setup NAME] ARGS...: meson test, three at a time; sets
# skip_note from the run's log (testlog-NAME.json under a setup).
mtest() {
	local dir=$1 log=testlog rc
	shift
	[ "${1:-}" = --setup ] && log=testlog-$2
	log=$dir/meson-logs/$log.json
	rm -f "$log"
	meson test -C "$dir" --print-errorlogs --num-processes 3 "$@"
	rc=$?
	skip_note=$(skipped_note "$log")
	return $rc
}
# The plain build is configured for /usr as Debian's packaging does, so the
# deb test packages this very build instead of compiling it again.
plain_suites=(--suite unit --suite sim --suite service --suite usertools)
[ $tier = quick ] || plain_suites+=(--suite install --suite deb)
[ $tier = long ] && plain_suites+=(--suite long)
if stage build ./usertools/build.sh build --prefix=/usr; then
	stage tests mtest build --no-rebuild "${plain_suites[@]}"
else
	skip tests "the build failed"
fi

# The vm suite; 77 when every case skipped (no guest can start here),
# with the first case's reason.
vm_suite() {
	local rc log=build/meson-logs/testlog.txt ran skipped
	mtest build --no-rebuild --suite vm
	rc=$?
	ran=$(grep -cE '^ *[0-9]+/[0-9]+ +rshim-pmd:vm' "$log")
	skipped=$(grep -E '^ *[0-9]+/[0-9]+ +rshim-pmd:vm' "$log" | grep -c ' SKIP ')
	if [ $rc -eq 0 ] && [ "$ran" -gt 0 ] && [ "$skipped" -eq "$ran" ]; then
		skip_why=$(grep -m1 -o 'skipped: .*' "$log" | cut -c10- | cut -c1-60)
		return 77
	fi
	return $rc
}

if [ $tier != quick ]; then
	# ASan/UBSan (clang, which also builds the libFuzzer targets): the
	# same suites, on ordinary (non-hugepage) memory, so both memory
	# modes are covered (test setup "asan": options, suppressions, memory).
	if ! command -v clang >/dev/null 2>&1; then
		skip asan-build "clang missing (apt-get install clang)"
	elif stage asan-build env CC=clang ./usertools/build.sh build-asan \
		-Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=true; then
		stage asan-tests mtest build-asan --setup asan --no-rebuild \
			--suite unit --suite sim --suite service --suite usertools
		stage fuzz mtest build-asan --no-rebuild --suite fuzz
	else
		skip asan-tests "the ASan build failed"
		skip fuzz "the ASan build failed"
	fi
	# ThreadSanitizer: one thread owns a device's registers, everything
	# else is a command or a ring hand-off; this stage proves it. DPDK's
	# rings are inline: built with the C11 memory model TSan sees their
	# hand-offs. Suppressions (tests/tsan.supp) only name frames inside
	# DPDK's compiled libraries (test setup "tsan": options, suppressions,
	# ordinary memory, timeouts x4). Run: the unit suite, the sim tests that
	# drive the library end to end, and the service's thread tests (suite
	# tsan: its threads — main, FUSE workers, relay, telemetry, poll lcore
	# — meeting in pushes ended by SIGTERM or a removal, SIGHUP reloads
	# during a push, misc writes, four devices at once).
	if ! command -v clang >/dev/null 2>&1; then
		skip tsan-build "clang missing (apt-get install clang)"
	elif stage tsan-build env CC=clang ./usertools/build.sh build-tsan \
		-Db_sanitize=thread -Db_lundef=false -Dc_args=-DRTE_USE_C11_MEM_MODEL; then
		stage tsan-tests mtest build-tsan --setup tsan --no-rebuild \
			--suite unit --suite tsan
	else
		skip tsan-tests "the TSan build failed"
	fi
	# The real PCI path in a guest kernel (usertools/rshim-vm).
	wait "$vm_prep" 2>/dev/null
	# (the list in full first: grep -q would stop reading early, and the
	# listing's SIGPIPE fail the pipeline)
	if [ -f build/build.ninja ] && grep -q ':vm /' <<<"$(meson test -C build --list 2>/dev/null)"; then
		stage vm vm_suite
	else
		skip vm "the plain build has no vm suite"
	fi
fi

echo
echo "test.sh: $tier tier, $(($(date +%s) - t_start)) s in all"
failed=0
for i in "${!st_name[@]}"; do
	printf 'test.sh: %-11s %-50s %4d s\n' "${st_name[$i]}" "${st_res[$i]}" "${st_time[$i]}"
	case ${st_res[$i]} in FAILED*) failed=1 ;; esac
done
exit $failed
