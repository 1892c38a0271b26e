#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rshim-pmd test suite: install dependencies, build, run every suite that
# can run on this machine, then the same tests built with AddressSanitizer
# and UBSan (on ordinary memory, so both memory modes are covered).
#   test.sh            everything
#   test.sh --quick    skip the sanitizer build
set -euo pipefail
cd "$(dirname "$0")/.."
./usertools/install-deps.sh
quick=0
[ "${1:-}" = "--quick" ] && quick=1

# Hugepages when we can (root); the tests pass with and without them.
if [ "$(id -u)" -eq 0 ] && [ -w /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages ]; then
	free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
	if [ "$free" -lt 128 ]; then
		echo 256 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages || true
	fi
fi

echo "test.sh: build (./build)"
./usertools/build.sh build
echo "test.sh: meson test (./build)"
meson test -C build --print-errorlogs --num-processes 2

if [ $quick -eq 0 ]; then
	echo "test.sh: sanitizer build (./build-asan, -Db_sanitize=address,undefined)"
	./usertools/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false
	export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:print_summary=1"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
	export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
	RSHIM_PMD_NO_HUGE=1 meson test -C build-asan --print-errorlogs --num-processes 2 \
		--no-suite hw --no-suite bench
fi
if [ $quick -eq 0 ] && command -v clang >/dev/null 2>&1; then
	# ThreadSanitizer: one thread owns a device's registers, everything else
	# is a command or a ring hand-off; this stage proves it. DPDK's rings are
	# inline: built with the C11 memory model TSan sees their hand-offs.
	# Suppressions (tests/tsan.supp) only name frames inside DPDK's compiled
	# libraries. Run: the unit suite and the sim tests that drive the
	# library end to end (boot-e2e, hw-on-sim). Not run: the app's
	# command-line suites (app-input, app-cli, app-doctor, app-pci,
	# bench-smoke: dozens of app start-ups each, over 3 minutes under
	# TSan; the same library threads run in boot-e2e and hw-on-sim),
	# console-tty (gives the app 10 s to reach raw mode; an instrumented
	# EAL start takes longer), sim_boot (checks the emulator's drain rate
	# against the wall clock, which instrumentation slows) and tmfifo-e2e
	# (root, network namespaces, iperf-size transfers).
	echo "test.sh: ThreadSanitizer build (./build-tsan, clang, -Db_sanitize=thread)"
	if [ ! -f build-tsan/build.ninja ]; then
		CC=clang meson setup build-tsan -Db_sanitize=thread -Db_lundef=false \
			-Dc_args=-DRTE_USE_C11_MEM_MODEL >/dev/null
	fi
	ninja -C build-tsan >/dev/null
	TSAN_OPTIONS="halt_on_error=1:exitcode=66:suppressions=$PWD/tests/tsan.supp" \
	RSHIM_PMD_NO_HUGE=1 meson test -C build-tsan --no-rebuild --print-errorlogs \
		--num-processes 2 --timeout-multiplier 4 \
		$(meson test -C build-tsan --list 2>/dev/null |
		sed -n 's/^rshim-pmd:unit \/ //p' | grep -vxE 'app-pci|sim_boot') \
		boot-e2e hw-on-sim
	# The service's threads (main, FUSE workers, relay, telemetry, poll
	# lcore) under TSan: the tests that make them meet — pushes ended by
	# SIGTERM or a removal, SIGHUP reloads during a push, misc writes,
	# four devices at once. Any report in the service's log fails a test.
	# Skipped (77 inside) where FUSE cannot be used.
	echo "test.sh: ThreadSanitizer: the service's threads"
	TSAN_OPTIONS="halt_on_error=0:exitcode=66:suppressions=$PWD/tests/tsan.supp" \
	RSHIM_PMD_NO_HUGE=1 RSHIM_PMD=$PWD/build-tsan/app/rshim-pmd/rshim-pmd \
	RSHIM_PMD_APP=$PWD/build-tsan/app/rshim-pmd-app/rshim-pmd-app \
	RSHIM_PMD_DEMO=$PWD/build-tsan/app/rshim-mkbfb/demo.bfb \
	RSHIM_MKBFB=$PWD/build-tsan/app/rshim-mkbfb/rshim-mkbfb \
	timeout 1200 python3 tests/service/test_service.py \
		ServiceTest.test_sighup_during_push ServiceTest.test_sighup_add_rename_block \
		ServiceTest.test_surprise_removal ServiceTest.test_boot_interrupt \
		ServiceTest.test_misc_read_write ServiceTest.test_four_devices_parallel \
		ServiceTest.test_sigterm_leaves_nothing ServiceTest.test_tap_offload || { rc=$?; [ $rc -eq 77 ] || exit $rc; }
fi
if [ $quick -eq 0 ] && command -v clang >/dev/null 2>&1; then
	echo "test.sh: fuzz targets (./build-fuzz, clang libFuzzer + ASan/UBSan)"
	if [ ! -f build-fuzz/build.ninja ]; then
		CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
			-Db_lundef=false >/dev/null
	fi
	ninja -C build-fuzz tests/fuzz/fuzz_bfb tests/fuzz/fuzz_log >/dev/null
	(cd build-fuzz && meson test --no-rebuild --print-errorlogs --suite fuzz)
fi
echo "test.sh: all suites passed"
