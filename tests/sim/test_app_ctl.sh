#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rshim-pmd-app control options end to end on the emulator: --misc (the
# text format of NVIDIA's rshim), --misc-set, --reg (bounds, alignment, JSON),
# --log, --reset, --drop; bad input gives a line and exit 2.
#   test_app_ctl.sh APP DEMO_BFB
# Each check is its own app process on its own private emulated device:
# they run four at a time; a check whose output a later line reads is
# waited for first (wait_check). Run as root, a booted=1 device gets a
# network namespace for its DPU end: this run's own names and locks
# (RSHIM_SIM_NETNS_PREFIX, RSHIM_SIM_LOCK_DIR), none left at the end.
set -u
app=$1 demo=$2
tmp=$(mktemp -d)
. "$(dirname "$0")/../common/rsh_sim_names.sh"
rsh_sim_names tc "$tmp"
bg=
trap '[ -n "$bg" ] && kill "$bg" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0 passes=0 n=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; passes=$((passes + 1)); }

# check NAME EXPECTED_EXIT PATTERN_IN_OUTPUT ARGS...: in the background;
# its output in $tmp/c<N>.out/.err, its verdict in $tmp/c<N>.res.
check() {
	local name=$1 want=$2 pat=$3 i=$((n += 1)); shift 3
	local limit=4
	[ -n "$bg" ] && limit=5 # the console process of the shared case
	while [ "$(jobs -rp | wc -l)" -ge "$limit" ]; do wait -n; done
	(
		"$app" --quiet "$@" >"$tmp/c$i.out" 2>"$tmp/c$i.err" </dev/null
		rc=$?
		if [ "$rc" -ne "$want" ]; then
			echo "FAIL: $name: exit $rc, expected $want; stderr: $(cat "$tmp/c$i.err")"
		elif ! cat "$tmp/c$i.out" "$tmp/c$i.err" | grep -qF -- "$pat"; then
			echo "FAIL: $name: output lacks '$pat': $(cat "$tmp/c$i.out" "$tmp/c$i.err")"
		else
			echo "ok: $name"
		fi >"$tmp/c$i.res"
	) &
	pids+=($!)
	last=$i
}
pids=()

# wait_check: every check so far has finished; $tmp/out is the last one's.
wait_check() {
	wait "${pids[@]}"
	pids=()
	cp "$tmp/c$last.out" "$tmp/out"
}

check "misc bf3 level 0" 0 "DISPLAY_LEVEL   0 (0:basic, 1:advanced, 2:log)" --device sim:bf3 --misc
check "misc bf3 BF_MODE" 0 "SECURE_NIC_MODE 0 (0:no, 1:yes)" --device sim:bf3 --misc
check "misc bf2 OPN_STR via MEM_ACC" 0 "OPN_STR         MBF2M516A-CEEOT" --device sim:bf2 --misc
check "misc-set OPN_STR bf2 reads back" 0 "OPN_STR         MBF2H332A-AEEOT" --device sim:bf2 \
	--misc-set 'OPN_STR MBF2H332A-AEEOT' --misc
check "misc-set OPN_STR too long" 2 "at most 16 printable" --device sim:bf2 \
	--misc-set 'OPN_STR 0123456789ABCDEFG'
check "misc bf1 DEV_INFO" 0 "DEV_INFO        BlueField-1(Rev" --device sim:bf1 --misc
check "misc level 2 log" 0 "             Log Messages" --device sim:bf2 \
	--misc-set 'DISPLAY_LEVEL 2' --misc
check "misc level 1 (peer asked, 1 s at most)" 0 "VLAN_ID         " \
	--device sim:bf3,booted=1 --misc-set 'DISPLAY_LEVEL 1' --misc
check "peer keys round trip (TM FIFO control messages)" 0 "VLAN_ID         10 20 (rw)" \
	--device sim:bf3,booted=1,ctrl=reply \
	--misc-set 'VLAN_ID 10 20;PEER_MAC 02:11:22:33:44:55;PXE_ID 0xabc;DISPLAY_LEVEL 1' --misc
wait_check
grep -q "PEER_MAC        02:11:22:33:44:55 (rw)" "$tmp/out" && grep -q "PXE_ID          0x00000abc (rw)" "$tmp/out" \
	&& pass "peer MAC and PXE id came back" || fail "peer keys: $(cat "$tmp/out")"
# (That the read waits its second for a silent peer is a virtual-time
# unit test, ctl_own.)
check "silent peer (the default, as Linux and UEFI): zeros" 0 \
	"PEER_MAC        00:00:00:00:00:00 (rw)" --device sim:bf3,booted=1 --misc-set 'DISPLAY_LEVEL 1' --misc
check "misc BOOT_MODE set" 0 "BOOT_MODE       2 (0:rshim" --device sim:bf3 \
	--misc-set 'BOOT_MODE 2' --misc
check "misc unknown key" 2 "valid: DISPLAY_LEVEL" --device sim:bf3 --misc-set 'BOGUS 1'
check "misc bad value" 2 "expected 0 basic, 1 advanced or 2 log" --device sim:bf3 \
	--misc-set 'DISPLAY_LEVEL 7'
check "misc FORCE_CMD not dropped" 2 "drop mode only" --device sim:bf3 --misc-set 'FORCE_CMD 1'
check "reg by name" 0 "BOOT_CONTROL (BAR 0x000528) = 0x0000000000000001" --device sim:bf3 \
	--reg BOOT_CONTROL
check "reg bf-reg address bf2" 0 "0x00010528 (BAR 0x010528) = 0x" --device sim:bf2 --reg 0x00010528
check "reg write" 0 "<- 0x0000000000000002" --device sim:bf3 --reg 0x13000528=2
check "reg 32-bit read" 0 "= 0x" --device sim:bf3 --reg 0x13000524.32
check "reg outside BF3 window" 2 "outside the BlueField-3 rshim window" --device sim:bf3 \
	--reg 0x13800000
check "reg unaligned" 2 "not aligned" --device sim:bf3 --reg 0x13000524
check "reg 32-bit write" 0 "0x13000528" --device sim:bf3 \
	--reg 0x13000528.32=1
check "reg json" 0 '"name": "SCRATCHPAD1"' --device sim:bf3 --json --reg SCRATCHPAD1
wait_check
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["reg"]["value"]=="0x0000005089836482", d' "$tmp/out"; then
	pass "reg json: our keepalive in SCRATCHPAD1"
else
	fail "reg json: not JSON or no keepalive: $(cat "$tmp/out")"
fi
check "misc json" 0 '"DISPLAY_LEVEL": "0 (0:basic, 1:advanced, 2:log)"' --device sim:bf3 --json --misc
wait_check
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["misc"]["keys"]["DEV_INFO"].startswith("BlueField-3"), d; assert d["exit_code"] == 0' "$tmp/out"; then
	pass "misc json parses"
else
	fail "misc json: $(cat "$tmp/out")"
fi
check "misc-set json error" 2 '"errno": 22' --device sim:bf3 --json --misc-set 'NOPE 1'
check "one mode" 2 "" --device sim:bf3 --misc --console
check "log" 0 "log lines, 0 errors" --device sim:bf3,booted=1 --log --clear
check "reset" 0 "ARM reset done" --device sim:bf3 --reset
# Another driver (the emulated BMC) and secure NIC mode.
check "owner=bmc: busy" 4 "give --force to ask it to hand over" --device sim:bf3,owner=bmc --misc
check "owner=bmc, --force: handed over" 0 "SCRATCHPAD1 (BAR 0x000c40) = 0x0000005089836482" \
	--device sim:bf3,owner=bmc --force --reg SCRATCHPAD1
check "owner=bmc-old, --force: refused" 4 "did not answer the takeover request" \
	--device sim:bf3,owner=bmc-old --force --misc
check "lock: misc" 0 "SECURE_NIC_MODE 1 (0:no, 1:yes)" --device sim:bf3,lock=1 --misc
check "lock: LOCK word kept" 0 "= 0x4b434f4c00000000" --device sim:bf3,lock=1 --reg SCRATCHPAD1
check "crash record: the push exits 7" 7 "Exception(BL31): syndrome = 0x" \
	--device sim:bf3,crash=exception --push-boot "$demo"
# Two processes on one emulated device (shared memory): the second is
# refused, then takes the device over with --force; the first hands over.
shm=ctl$$
mkfifo "$tmp/a.in"
"$app" --device "sim:bf3,shared=$shm,booted=1" --console <"$tmp/a.in" >"$tmp/a.out" 2>&1 &
bg=$!
exec 4>"$tmp/a.in"
for _ in $(seq 1 300); do
	grep -q "dpu#" "$tmp/a.out" 2>/dev/null && break
	sleep 0.1
done
check "shared: second process refused" 4 "another rshim driver owns this BlueField" \
	--device "sim:bf3,shared=$shm" --misc
wait_check
check "shared: --force takes it over" 0 "= 0x0000005089836482" \
	--device "sim:bf3,shared=$shm" --force --reg SCRATCHPAD1
wait_check
for _ in $(seq 1 300); do
	grep -q "handed the device over" "$tmp/a.out" && break
	sleep 0.1
done
grep -q "handed the device over" "$tmp/a.out" && pass "shared: first process handed over" \
	|| fail "shared: first process: $(cat "$tmp/a.out")"
exec 4>&-
wait "$bg"
bg=

"$app" --quiet --device sim:bf3 --drop >"$tmp/out" 2>"$tmp/err" </dev/null &
pid=$!
for _ in $(seq 1 100); do
	grep -q "drop mode" "$tmp/out" && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "drop mode: released" "$tmp/out"; then
	pass "drop until Ctrl-C"
else
	fail "drop: exit $rc: $(cat "$tmp/out" "$tmp/err")"
fi

wait_check
# Nothing of this run is left: no namespace with its prefix, no emulator
# still holding one of its namespace locks.
left=$(rsh_sim_left)
if [ -z "$left" ]; then pass "nothing left behind"; else fail "left behind: $left"; fi
for r in "$tmp"/c*.res; do
	cat "$r"
	if grep -q "^ok: " "$r"; then passes=$((passes + 1)); else fails=$((fails + 1)); fi
done
[ "$(ls "$tmp"/c*.res | wc -l)" -eq "$n" ] || fail "only $(ls "$tmp"/c*.res | wc -l) of $n checks reported"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
