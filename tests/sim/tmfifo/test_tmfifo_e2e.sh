#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# TM FIFO console and network end to end: rshim-pmd-app --console --net tap
# against the emulated DPU (sim:bf2, sim:bf3), whose ARM side runs a real
# Linux stack in a namespace of its own (192.168.100.2) and a shell on a PTY.
#   test_tmfifo_e2e.sh APP BFB TCP_XFER_PY [MIB]
# MIB: the size of each TCP transfer (4; the long suite moves 64).
# Hermetic: the host end (the app, its tmfifo_net0, 192.168.100.1) runs in
# a network namespace of this run, and the emulated DPUs' namespaces carry
# this run's prefix, so a real rshim-pmd and its tmfifo_net0 on the host,
# or another copy of the suite, do not meet it.
# Needs root (TAP, namespaces): otherwise exit 77 (skipped), never a pass.
set -u
app=$1 demo=$2 xfer=$3 mib=${4:-4}
fails=0 passes=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; passes=$((passes + 1)); }
skip() { echo "SKIP: $*"; exit 77; }
. "$(dirname "$0")/../../common/rsh_ping.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (TAP device, network namespaces)"
for c in ip ping python3 sha256sum setpriv; do
	command -v "$c" >/dev/null || skip "needs $c"
done
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
command -v nsenter >/dev/null || skip "needs nsenter (util-linux)"
# The host end's namespace, then this script again inside it.
if [ -z "${RSH_E2E_NS:-}" ]; then
	export RSH_E2E_NS=rsh-e2e-$$
	ip netns add "$RSH_E2E_NS" 2>/dev/null || skip "network namespaces not permitted here"
	ip -n "$RSH_E2E_NS" link set lo up
	nsenter --net="/run/netns/$RSH_E2E_NS" "$0" "$@"
	rc=$?
	ip netns del "$RSH_E2E_NS"
	exit $rc
fi
export RSHIM_SIM_NETNS_PREFIX=${RSH_E2E_NS}-d
dpu_ns=${RSHIM_SIM_NETNS_PREFIX}0
tmp=$(mktemp -d)
export RSHIM_SIM_LOCK_DIR=$tmp/sim-locks
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	exec 3>&- 2>/dev/null
	ip link del tmfifo_net0 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
head -c "${mib}M" /dev/urandom >"$tmp/big"
big_sha=$(sha256sum "$tmp/big" | cut -d' ' -f1)

# start_app DEVSTR ARGS...: the app in the background, console input from
# the FIFO $tmp/in (held open on fd 3), output in $tmp/out, $tmp/err.
start_app() {
	local dev=$1; shift
	rm -f "$tmp/in" "$tmp/ofifo"; mkfifo "$tmp/in" "$tmp/ofifo"
	"$app" --device "$dev" --net tap --ip 192.168.100.1/24 "$@" \
		<"$tmp/in" >"$tmp/ofifo" 2>"$tmp/err" &
	pid=$!
	# stdout through a pipe whose reader ($rpid) a test may stop
	cat "$tmp/ofifo" >"$tmp/out" &
	rpid=$!
	exec 3>"$tmp/in"
	for _ in $(seq 100); do
		if ip link show tmfifo_net0 2>/dev/null | grep -q UP &&
		   ping -c 1 -W 1 192.168.100.2 >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	fail "$dev: tmfifo_net0 never answered ping: $(tail -3 "$tmp/err")"
	return 1
}

# stop_app NAME: SIGTERM, exit 0, nothing left behind.
stop_app() {
	local rc
	exec 3>&-
	kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
	wait "$rpid"
	[ "$rc" -eq 0 ] || fail "$1: exit $rc after SIGTERM: $(tail -3 "$tmp/err")"
	left_behind "$1"
}

# left_behind NAME: no TAP, no namespace left.
left_behind() {
	sleep 0.2
	if ip link show tmfifo_net0 >/dev/null 2>&1; then fail "$1: tmfifo_net0 left behind"
	elif ls /run/netns 2>/dev/null | grep -q "^$RSHIM_SIM_NETNS_PREFIX"; then fail "$1: namespace left: $(ls /run/netns)"
	else pass "$1: nothing left behind"; fi
}

# console NAME CMD PATTERN: type CMD, wait for an output line matching
# PATTERN (an ERE; the shell's prompt may precede it).
console() {
	echo "$2" >&3
	for _ in $(seq 50); do
		tr -d '\r' <"$tmp/out" | grep -Eq -- "(^|# )$3\$" && { pass "$1"; return 0; }
		sleep 0.1
	done
	fail "$1: no '$3' on the console: $(tr -d '\r' <"$tmp/out" | tail -5)"
}

# tcp NAME DIR: $mib MiB with matching SHA-256, DIR = up (host→DPU) or down.
tcp() {
	local got
	if [ "$2" = up ]; then
		ip netns exec "$dpu_ns" python3 "$xfer" recv 5001 >"$tmp/sha" &
		local srv=$!
		python3 "$xfer" send 192.168.100.2 5001 "$tmp/big"
	else
		python3 "$xfer" recv 5002 >"$tmp/sha" &
		local srv=$!
		ip netns exec "$dpu_ns" python3 "$xfer" send 192.168.100.1 5002 "$tmp/big"
	fi
	wait "$srv"
	got=$(cut -d' ' -f1 "$tmp/sha")
	[ "$got" = "$big_sha" ] && pass "$1" || fail "$1: sha256 $got != $big_sha ($(cat "$tmp/sha"))"
}

# stat_ge NAME FIELD MIN: the exit stats line has FIELD >= MIN.
stat_ge() {
	local v
	v=$(grep -o "$2=[0-9]*" "$tmp/err" | head -1 | cut -d= -f2)
	[ -n "$v" ] && [ "$v" -ge "$3" ] && pass "$1 ($2=$v)" || fail "$1: $2=${v:-none}, want >= $3"
}

for gen in bf2 bf3; do
	# Push, then console and network in the same command.
	start_app "sim:$gen" --push-boot "$demo" --console --log-wait 5 || continue
	grep -q "DPU is ready" "$tmp/out" && pass "$gen: push-boot before the channels" ||
		fail "$gen: no boot log before the channels"
	out=$(ping_every 200 -i 0.01 192.168.100.2) && pass "$gen: ping 200, every one answered" ||
		fail "$gen: ping: $out"
	m=marker-$RANDOM$RANDOM
	console "$gen: console marker $m" "echo $m" "$m"
	tcp "$gen: $mib MiB host to DPU" up
	tcp "$gen: $mib MiB DPU to host" down
	# Both channels at once: console numbers in order while TCP runs.
	echo "seq 100000 100999 | tr '\n' ' '; echo; echo seq-done" >&3 &
	tcp "$gen: TCP during console output" up
	console "$gen: console during TCP" "" "seq-done"
	want=$(seq 100000 100999 | tr '\n' ' ')
	tr -d '\r' <"$tmp/out" | grep -qF -- "$want" && pass "$gen: console bytes intact" ||
		fail "$gen: console output corrupted"
	stop_app "$gen: combined run"
	# The transfers went as 64 KiB TAP reads cut in user space and as merged
	# writes (TSO/GRO, --net-offload on by default), none dropped.
	stat_ge "$gen: TSO super-frames cut" gso_frames 1
	stat_ge "$gen: DPU frames merged" gro_out 1
	grep -q "stats tmfifo_net0: offload=on .*drop_short=0 drop_bad_csum=0 drop_bad_gso=0 drop_gso_type=0 drop_nombuf=0" "$tmp/err" &&
		pass "$gen: no offload drops" || fail "$gen: offload drops: $(grep 'stats tmfifo_net0' "$tmp/err")"
done

# --net-offload off: plain frames, the same data.
if start_app "sim:bf3,booted=1" --net-offload off; then
	tcp "offload off: $mib MiB host to DPU" up
	tcp "offload off: $mib MiB DPU to host" down
	stop_app "offload off"
	grep -q "stats tmfifo_net0: offload=off .*gso_frames=0 .*gro_out=0 " "$tmp/err" &&
		pass "offload off: no segmentation or merging" ||
		fail "offload off: $(grep 'stats tmfifo_net0' "$tmp/err")"
fi

# Faults: a corrupt header and an oversized frame from the ARM are counted,
# later pings still succeed.
if start_app "sim:bf2,booted=1,corrupt@3,oversize@6" --console; then
	console "faults: console still works" "echo after-fault" "after-fault"
	# The faults hit the ARM's 3rd and 6th messages, and which messages
	# those are (a prompt, an ARP or IPv6 frame, an echo reply) depends on
	# timing: a corrupt header may take one of these replies. Six replies
	# are six more ARM messages, so both faults are behind us; the pings
	# after them must all come back.
	ping -c 6 -i 0.02 -w 60 -q 192.168.100.2 >/dev/null 2>&1
	out=$(ping_every 20 -i 0.02 192.168.100.2) && pass "faults: ping after faults" ||
		fail "faults: ping: $out"
	stop_app "faults"
	stat_ge "faults: corrupt header counted" rx_drop_unknown 1
	grep "stats net" "$tmp/err" >"$tmp/net"
	grep -q "rx_drop_oversize=[1-9]" "$tmp/net" && pass "faults: oversize frame counted" ||
		fail "faults: oversize not counted: $(cat "$tmp/net")"
fi

# A stalled consumer loses nothing: the ARM stalls 300 ms during a TCP
# transfer; then the reader of the app's stdout stops for 2 s while the
# shell prints 28 KB: the host holds it and every line arrives in order.
# (28 KB stays under the ARM's 32 KiB console buffer: mlxbf-tmfifo, and
# the emulator with it, drops console output beyond that on the DPU side,
# hardware-notes §D3.7, whatever the host does.)
if start_app "sim:bf3,booted=1,armstall=300ms@200" --console; then
	tcp "stall: TCP across an ARM stall" up
	kill -STOP "$rpid"
	echo "seq 200000 203999; echo stall-done" >&3
	sleep 1 # the stall: the shell prints while nobody reads
	kill -CONT "$rpid"
	console "stall: console output complete" "" "stall-done"
	tr -d '\r' <"$tmp/out" | grep -Eo '(^|# )20[0-3][0-9]{3}$' | grep -o '2[0-9]*' >"$tmp/lines"
	seq 200000 203999 | cmp -s - "$tmp/lines" && pass "stall: all 4000 lines, in order" ||
		fail "stall: $(wc -l <"$tmp/lines") of 4000 lines, or out of order"
	stop_app "stall"
fi

# Console in pipe mode alone, exiting on its own after stdin ends.
r=marker-$RANDOM
out=$(echo "echo $r" | timeout 30 "$app" --quiet --device sim:bf2,booted=1 --console --linger 1.5 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] && tr -d '\r' <<<"$out" | grep -Eq "(^|# )$r\$" && pass "pipe mode: $r read back" ||
	fail "pipe mode: exit $rc, output: $out $(cat "$tmp/err")"

# --net ethdev: the DPU pings the DPDK port's responder.
"$app" --quiet --device sim:bf3,booted=1 --net ethdev --ip 192.168.100.1/24 </dev/null >"$tmp/out" 2>"$tmp/err" &
pid=$!
ok=
for _ in $(seq 50); do
	ip netns exec "$dpu_ns" ping -c 1 -W 1 192.168.100.1 >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.2
done
[ -n "$ok" ] && out=$(ping_in="ip netns exec $dpu_ns" ping_every 20 -i 0.02 192.168.100.1) &&
	pass "ethdev: DPU pings the DPDK port" ||
	fail "ethdev: ${out:-no answer}: $(tail -3 "$tmp/err")"
kill -TERM "$pid"; wait "$pid"; pid=
left_behind "ethdev"

# Bad input: one line, non-zero exit, nothing left behind.
bad() {
	local name=$1 want=$2 pat=$3; shift 3
	timeout 20 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	local rc=$? lines
	lines=$(grep -c . "$tmp/err")
	if [ $rc -ne "$want" ] || [ "$lines" -ne 1 ] || ! grep -q -- "$pat" "$tmp/err"; then
		fail "$name: exit $rc (want $want), $lines lines: $(cat "$tmp/err")"
	else
		pass "$name: $(cat "$tmp/err")"
	fi
}
bad "unknown --net mode" 2 "bad value 'bogus' for --net" "$app" --device sim:bf3 --net bogus
left_behind "unknown --net mode"
bad "TAP without permission" 9 "CAP_NET_ADMIN" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$app" --device sim:bf3 --net tap
left_behind "TAP without permission"
ip tuntap add dev tmfifo_net0 mode tap
bad "tmfifo_net0 exists" 9 "already exists" "$app" --device sim:bf3 --net tap
ip tuntap del dev tmfifo_net0 mode tap
left_behind "tmfifo_net0 exists"
bad "--console, stdin closed" 2 "standard input is closed" \
	sh -c 'exec "$0" --device sim:bf3,booted=1 --console <&-' "$app"
left_behind "--console, stdin closed"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
