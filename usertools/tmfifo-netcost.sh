#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Host cost per frame of rshim-pmd-app --net tap: system calls per frame
# and CPU seconds per Gbit while one iperf3 TCP stream goes host -> DPU
# through tmfifo_net<N> of an emulated BlueField-3 (doc/benchmarks.md,
# "Host cost per frame"). Needs root, perf, iperf3 and nsenter.
#   tmfifo-netcost.sh APP [SECONDS] [PEER_INDEX] [OFFLOAD] [DIR]
# OFFLOAD: on (default) or off, the app's --net-offload; DIR: up (host ->
# DPU, default) or down (DPU -> host, iperf3 -R).
# The app runs in namespace netcost-host (entered with nsenter, so the
# emulator's rshim-sim<N> bind mount stays visible); both are removed at
# the end. Prints one line: Mbit/s, frames, syscalls/frame, CPU s/Gbit.
# Exit status: 0 measured, 1 the run failed, 2 bad usage.
set -u
app=${1:-}; sec=${2:-8}; idx=${3:-6}; offload=${4:-on}; dir=${5:-up}
prog=tmfifo-netcost.sh
if [ -z "$app" ] || [ ! -x "$app" ]; then
	echo "$prog: give the rshim-pmd-app binary as the first argument (e.g. build/app/rshim-pmd-app/rshim-pmd-app)" >&2
	exit 2
fi
case "$offload/$dir" in
on/up|on/down|off/up|off/down) ;;
*) echo "$prog: OFFLOAD is on or off, DIR is up or down (got '$offload' '$dir')" >&2; exit 2 ;;
esac
rev=; [ "$dir" = down ] && rev=-R
for t in perf iperf3 nsenter; do
	command -v "$t" >/dev/null || { echo "$prog: $t not found; install it" >&2; exit 2; }
done
ns=netcost-host
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns" || { echo "$prog: cannot create namespace $ns (root?)" >&2; exit 1; }
ip -n "$ns" link set lo up
nsenter --net=/run/netns/$ns "$app" --device "sim:bf3,booted=1,peer=$idx" \
	--net tap --net-offload "$offload" --ip 192.168.100.1/24 </dev/null >/dev/null 2>"$tmp/err" &
pid=$!
for _ in $(seq 60); do
	nsenter --net=/run/netns/$ns ping -c1 -W1 192.168.100.2 >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.5
done
ip netns exec "rshim-sim$idx" iperf3 -s -1 -D || { echo "$prog: no DPU peer: $(tail -1 "$tmp/err")" >&2; exit 1; }
sleep 0.5
cpu0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
perf stat -e raw_syscalls:sys_enter -p "$pid" -x, -o "$tmp/perf" -- sleep $((sec + 1)) &
ppid=$!
nsenter --net=/run/netns/$ns iperf3 -c 192.168.100.2 -t "$sec" $rev -f m >"$tmp/iperf" 2>&1
wait "$ppid"
cpu1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
kill -TERM "$pid"; wait "$pid"; pid=
mbit=$(awk '/receiver/ { for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1) }' "$tmp/iperf")
calls=$(awk -F, '/raw_syscalls/ { print $1 }' "$tmp/perf")
frames=$(sed -n 's/.*to_dpu=\([0-9]*\) from_dpu=\([0-9]*\).*/\1 \2/p' "$tmp/err" | awk '{ print $1 + $2 }')
if [ -z "$mbit" ] || [ -z "$calls" ] || [ -z "$frames" ] || [ "$frames" -eq 0 ]; then
	echo "$prog: run failed: $(tail -1 "$tmp/iperf")" >&2
	exit 1
fi
awk -v m="$mbit" -v f="$frames" -v c="$calls" -v t=$((cpu1 - cpu0)) -v s="$sec" \
	-v o="$offload" -v d="$dir" -v hz="$(getconf CLK_TCK)" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
	'BEGIN { printf "offload=%s dir=%s mbit_s=%s frames=%d syscalls_per_frame=%.2f cpu_s_per_gbit=%.2f load=%s\n", o, d, m, f, c / f, t / hz / (m * s / 1000), l }'
