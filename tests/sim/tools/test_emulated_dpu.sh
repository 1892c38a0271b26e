#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The emulated DPU end to end through rshim-pmd-app: a deferred update
# pushed with --skip-reset is read by the running DPU's bootfifo reader;
# with Linux down nothing reads it (boot timeout, exit 5); a stream with
# only a kernel fails in BL1 as silicon would (exit 7).
# Usage: test_emulated_dpu.sh APP MKBFB DEMO.bfb
set -u
app=$1 mkbfb=$2 demo=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "PASS: $*"; }

# run NAME WANT_RC args...: output in $tmp/NAME
run() {
	local name=$1 want=$2 rc
	shift 2
	timeout 120 "$app" "$@" >"$tmp/$name" 2>&1
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name: exit $rc, want $want: $(tail -3 "$tmp/$name")"
		return 1
	fi
	return 0
}

if run deferred 0 --device sim:bf3,booted=1,peer=none --push-boot "$demo" \
	--skip-reset --log-wait 5; then
	if grep -q "Runtime upgrade finished" "$tmp/deferred" &&
	   ! grep -q "DPU is ready" "$tmp/deferred"; then
		pass deferred
	else
		fail "deferred: $(cat "$tmp/deferred")"
	fi
fi

if run linux-down 5 --device sim:bf3 --push-boot "$demo" --skip-reset \
	--timeout 1; then
	grep -q "boot timeout" "$tmp/linux-down" && pass linux-down ||
		fail "linux-down: $(cat "$tmp/linux-down")"
fi

"$mkbfb" --random image:64K:62 "$tmp/kernel-only.bfb" >/dev/null 2>&1 ||
	fail "rshim-mkbfb could not build a kernel-only stream"
if run kernel-only 7 --device sim:bf3 --push-boot "$tmp/kernel-only.bfb" \
	--log-wait 2; then
	grep -q "ERR\[BL1\]: bl2 not in the boot stream" "$tmp/kernel-only" &&
		pass kernel-only || fail "kernel-only: $(cat "$tmp/kernel-only")"
fi

[ "$fails" -eq 0 ]
