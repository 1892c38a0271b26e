#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rshim-pmd-app end to end on the emulator: a good push, and every kind of
# bad input (one clear line naming the file or device, non-zero exit,
# nothing pushed). Run as root, a booted=1 device gets a network namespace
# for its DPU end: this run's own names and locks (RSHIM_SIM_NETNS_PREFIX,
# RSHIM_SIM_LOCK_DIR), none left at the end.
#   test_app_input.sh APP MKBFB DEMO_BFB
set -u
app=$1 mkbfb=$2 demo=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../common/rsh_sim_names.sh"
rsh_sim_names ti "$tmp"
fails=0 passes=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; passes=$((passes + 1)); }

# run NAME EXPECTED_EXIT ARGS... ; leaves $out (stdout) and $err (stderr)
run() {
	local name=$1 want=$2; shift 2
	"$app" --quiet "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
	if [ "$rc" -ne "$want" ]; then
		fail "$name: exit $rc, expected $want; stderr: $err"
		return 1
	fi
	return 0
}

# expect_line NAME PATTERN...: stderr is one line containing every pattern
expect_line() {
	local name=$1; shift
	local lines
	lines=$(printf '%s\n' "$err" | grep -c .)
	if [ "$lines" -ne 1 ]; then
		fail "$name: expected one error line, got $lines: $err"
		return
	fi
	for p in "$@"; do
		if ! grep -qF -- "$p" <<<"$err"; then
			fail "$name: error line lacks '$p': $err"
			return
		fi
	done
	if grep -q "pushed" <<<"$out"; then
		fail "$name: something was pushed: $out"
		return
	fi
	pass "$name"
}

# A good push on each emulated generation shows the summary and the log.
for gen in bf1 bf2 bf3; do
	if run "push-$gen" 0 --device "sim:$gen" --push-boot "$demo"; then
		if grep -q "pushed 15" <<<"$out" && grep -q "DPU is ready" <<<"$out"; then
			pass "push-$gen"
		else
			fail "push-$gen: no summary or no 'DPU is ready': $out"
		fi
	fi
done

# EAL arguments before "--" are merged with the defaults (here: one lcore,
# so the poll loop runs on a control thread, and ordinary memory).
"$app" --no-huge --no-shconf -m 128 --no-pci -l 0 --log-level=lib.eal:error -- \
	--quiet --device sim:bf2 --push-boot "$demo" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
if [ $rc -eq 0 ] && grep -q "DPU is ready" "$tmp/out"; then
	pass eal-args
else
	fail "eal-args: exit $rc: $(cat "$tmp/err")"
fi

# Bad files.
run missing 3 --device sim:bf3 --push-boot "$tmp/nope.bfb" && expect_line missing "$tmp/nope.bfb" "nothing pushed"
: >"$tmp/empty.bfb"
run empty 3 --device sim:bf3 --push-boot "$tmp/empty.bfb" && expect_line empty "$tmp/empty.bfb" "empty"
mkdir "$tmp/dir.bfb"
run directory 3 --device sim:bf3 --push-boot "$tmp/dir.bfb" && expect_line directory "$tmp/dir.bfb" "directory"
head -c 100000 /dev/urandom >"$tmp/random.bin"
printf 'ELF!' | dd of="$tmp/random.bin" conv=notrunc status=none
run not-bfb 3 --device sim:bf3 --push-boot "$tmp/random.bin" && expect_line not-bfb "$tmp/random.bin" "not a BFB"
head -c 10 "$demo" >"$tmp/short.bfb"
run truncated-header 3 --device sim:bf3 --push-boot "$tmp/short.bfb" && expect_line truncated-header "$tmp/short.bfb" "nothing pushed"
cp "$demo" "$tmp/crc.bfb"
printf '\xff' | dd of="$tmp/crc.bfb" bs=1 seek=100 conv=notrunc status=none
run crc 3 --device sim:bf3 --push-boot "$tmp/crc.bfb" && expect_line crc "$tmp/crc.bfb" "CRC" "--force"
head -c 1000000 "$demo" >"$tmp/cut.bfb"
run truncated-image 3 --device sim:bf3 --push-boot "$tmp/cut.bfb" && expect_line truncated-image "$tmp/cut.bfb" "truncated"

# --force pushes the corrupt file; the emulated firmware reports the error.
if run crc-forced 7 --device sim:bf3 --push-boot "$tmp/crc.bfb" --force; then
	if grep -q "ERR\[" <<<"$out"; then pass crc-forced; else fail "crc-forced: no ERR line: $out"; fi
fi

# Bad devices and options.
run bad-gen 4 --device sim:bf9 --push-boot "$demo" && expect_line bad-gen "sim:bf9" "bf3"
run bad-opt 4 --device sim:bf3,drian=1M --push-boot "$demo" && expect_line bad-opt "drian" "valid: drain"
run bad-dev 4 --device nonsense --push-boot "$demo" && expect_line bad-dev "nonsense"
run bad-flag 2 --push-boot "$demo" --frobnicate && expect_line bad-flag "--frobnicate"
run no-mode 2 --device sim:bf3 && expect_line no-mode "nothing to do"
run bad-timeout 2 --push-boot "$demo" --timeout abc && expect_line bad-timeout "abc" "timeout"

# A stall longer than the timeout: exit 5, one line, BOOT_CONTROL restored.
if run timeout 5 --device "sim:bf3,drain=100M,stall=60s@1M" --timeout 0.3 --push-boot "$demo"; then
	grep -q "boot timeout" <<<"$err" && grep -q "BOOT_CONTROL restored" <<<"$err" \
		&& pass timeout || fail "timeout: $err"
fi
# Surprise removal: exit 6.
if run gone 6 --device "sim:bf2,gone@1M" --push-boot "$demo"; then
	grep -q "disappeared" <<<"$err" && pass gone || fail "gone: $err"
fi

# Ctrl-C mid-push, while the DPU stalls: exit 130, one line saying so,
# BOOT_CONTROL restored. The signal goes once a plain progress line shows
# the stream started (however long EAL and the reset delay take under load);
# the exit is waited for while the stall still holds the push (it is 600 s:
# a push the signal did not end is still in it when the wait gives up).
"$app" --device sim:bf3,drain=5M,stall=600s@1M --push-boot "$demo" >"$tmp/out" 2>"$tmp/err" </dev/null &
pid=$!
for _ in $(seq 300); do
	grep -q "pushed" "$tmp/err" && break
	sleep 0.1
done
kill -INT $pid
for _ in $(seq 600); do
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $pid 2>/dev/null; then
	kill -KILL $pid
	wait $pid
	rc="killed (still pushing 60 s after SIGINT)"
else
	wait $pid
	rc=$?
fi
if [ "$rc" = 130 ] && grep -q "cancelled" "$tmp/err" && grep -qE "BOOT_CONTROL restored|device was not changed" "$tmp/err"; then
	pass ctrl-c
else
	fail "ctrl-c: exit $rc: $(cat "$tmp/err")"
fi

# Listing and help.
run list 0 --list --sim && { grep -q "sim:bf3" <<<"$out" && grep -q "sim:bf1" <<<"$out" && pass list || fail "list: $out"; }
run help 0 --help && { grep -q "Exit codes" <<<"$out" && grep -q -- "--push-boot" <<<"$out" && pass help || fail help; }

# Plain (non-TTY) progress lines when not quiet.
"$app" --device sim:bf3,drain=20M --push-boot "$demo" --log-wait 2 >"$tmp/out" 2>"$tmp/err" </dev/null
if [ $? -eq 0 ] && grep -q "pushed .* MiB/s" "$tmp/err"; then pass progress-lines; else fail "progress-lines: $(cat "$tmp/err")"; fi

# --push-boot with --console: the console is shown while the boot streams,
# so what the DPU printed (its banner; the emulated DPU runs already and
# reads the stream itself) comes before the push summary on stdout.
timeout 120 "$app" --device sim:bf3,booted=1 --skip-reset --push-boot "$demo" \
	--console --log-wait 2 >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
con_at=$(grep -n "rshim-pmd emulated" "$tmp/out" | head -1 | cut -d: -f1)
sum_at=$(grep -n "pushed [0-9]* bytes in" "$tmp/out" | head -1 | cut -d: -f1)
if [ "$rc" -eq 0 ] && [ -n "$con_at" ] && [ -n "$sum_at" ] && [ "$con_at" -lt "$sum_at" ]; then
	pass push-console
else
	fail "push-console: exit $rc, console at line '${con_at}', summary at line '${sum_at}': $(cat "$tmp/out" "$tmp/err")"
fi

# The same on a terminal (script(1)): the progress bar's line is cleared
# before console text, and the open prompt line is not overwritten by it.
if command -v script >/dev/null 2>&1; then
	timeout 120 script -qec "sleep 2 | '$app' --device sim:bf3,booted=1,drain=50M --skip-reset --push-boot '$demo' --console --log-wait 1" \
		"$tmp/tty" >/dev/null 2>&1 </dev/null
	rc=$?
	# What the terminal shows: each line after its carriage returns and
	# erases (a bar cleared by \r ESC[K before the prompt is gone).
	shown=$(python3 -c '
import re, sys
for raw in open(sys.argv[1], "rb").read().decode(errors="replace").split("\n"):
    cells, col = [], 0
    for tok in re.findall(r"\r|\x1b\[K|[^\r\x1b]+|\x1b", raw):
        if tok == "\r":
            col = 0
        elif tok == "\x1b[K":
            del cells[col:]
        else:
            cells[col:col + len(tok)] = list(tok)
            col += len(tok)
    print("".join(cells))' "$tmp/tty")
	if [ "$rc" -eq 0 ] && grep -q $'\r\033\[K' "$tmp/tty" &&
	   grep -q "rshim-pmd emulated" "$tmp/tty" &&
	   grep -q "dpu# " <<<"$shown" && ! grep -a "dpu# " <<<"$shown" | grep -q "MiB/s"; then
		pass push-console-tty
	else
		fail "push-console-tty: exit $rc: $(cat -v "$tmp/tty" | head -12)"
	fi
else
	echo "skip: push-console-tty (no script(1))"
fi

# rshim-mkbfb lists the demo.
"$mkbfb" --list "$demo" >"$tmp/out" 2>&1 && grep -q "initramfs" "$tmp/out" && pass mkbfb-list || fail "mkbfb-list: $(cat "$tmp/out")"

# Nothing of this run is left: no namespace with its prefix, no emulator
# still holding one of its namespace locks.
left=$(rsh_sim_left)
if [ -z "$left" ]; then pass "nothing left behind"; else fail "left behind: $left"; fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
