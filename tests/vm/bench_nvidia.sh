#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Guest side of tests/vm/bench_nvidia.py: NVIDIA's rshim daemon and
# rshim-pmd, alternating, on the same three emulated BlueField-3s
# (function 0: drain unlimited and a DPU network; 1: 200 KB/s; 2: 50 KB/s),
# through vfio-pci. Per round and daemon: one `cat x.bfb > boot` per
# function, with the emulator's counters (SIGUSR1) and the daemon's CPU
# time and context switches around it; then, with the console open and
# tmfifo_net0 up, the daemon's idle CPU, a ping to the DPU and the DPU's
# first packet after idle (sent by the host runner from the DPU's
# namespace). Before the pushes, the cost of one write() on the boot node
# (function 1). Prints "WTRIP", "PUSH", "IDLE", "PING", "FIRST" lines for
# the runner.
. "$(dirname "$0")/guest_lib.sh"
NV=$NVIDIA_RSHIM
RTT=$RSH_MMIO_RTT
ROUNDS=${ROUNDS:-3}
CTLDIR=$(dirname "$RSHIM_VM_CTL")
modprobe vfio-pci && modprobe cuse || { echo "FAIL: modprobe"; exit 1; }
# The trap cost, before any driver holds function 0 (resource0 mmap;
# BF3: BOOT_CONTROL, SCRATCHPAD2, BOOT_FIFO_DATA, RESET_CONTROL).
for _ in 1 2 3; do
	"$RTT" "${BDF[0]}" 0x528 0xC48 20000 0x2000 0x500 0x528
done
"$PY" "$SRC/usertools/rshim-devbind.py" -b vfio-pci "${BDF[@]}" >/dev/null || echo "FAIL: bind"

# snap N: emulator N's proxy and device counters now, on one line.
snap() {
	local log=$CTLDIR/sim$1.log n
	n=$(grep -c "counters: device" "$log" 2>/dev/null)
	host_ctl "usr1 $1" >/dev/null
	wait_for 10 sh -c "[ \$(grep -c 'counters: device' '$log') -gt ${n:-0} ]"
	grep -E "counters: (msgs|device)" "$log" | tail -2 |
		grep -Eo "(mmio_reads|mmio_writes|consumed_bytes|boot_first_ns|boot_last_ns|host_boot_words|push_open_ns|push_ns|push_reads|push_count_reads|push_writes)=[0-9]+" |
		tr '\n' ' '
}

# pstat PID: CPU ticks (all threads) and context switches (all threads).
pstat() {
	local t=0 v=0 n=0 f
	read -r -a f <"/proc/$1/stat"
	t=$((f[13] + f[14]))
	for s in /proc/"$1"/task/*/status; do
		v=$((v + $(awk '/^voluntary_ctxt_switches/ {print $2}' "$s")))
		n=$((n + $(awk '/^nonvoluntary_ctxt_switches/ {print $2}' "$s")))
	done
	echo "ticks=$t vcsw=$v nvcsw=$n"
}

start_daemon() {
	idx=()
	case $1 in
	nvidia)
		# its own session: 3 s after SIGTERM it SIGKILLs its process group
		setsid "$NV" -f -l 1 >"$W/daemon.out" 2>&1 &
		pid=$!
		dir=/dev ;;
	pmd)
		mkdir -p "$W/dev" "$W/run"
		"$SVC" -f -C /dev/null -l 1 --dev-dir "$W/dev" --run-dir "$W/run" -i 0 \
			--file-prefix "rshim-bench-$PEER" -d "${BDF[0]}" -d "${BDF[1]}" -d "${BDF[2]}" \
			>"$W/daemon.out" 2>&1 &
		pid=$!
		dir=$W/dev ;;
	esac
	for i in 0 1 2; do
		wait_for 90 test -e "$dir/rshim$i/misc" || echo "FAIL: $1: no $dir/rshim$i: $(tail -3 "$W/daemon.out")"
	done
	sleep 2
	# which rshimK and tmfifo_netK serve which function (NVIDIA's daemon
	# numbers them in its own probe order)
	for i in 0 1 2; do
		for k in 0 1 2; do
			grep -q "DEV_NAME *pcie-${BDF[$i]}" "$dir/rshim$k/misc" && idx[$i]=$k
		done
		[ -n "${idx[$i]:-}" ] || echo "FAIL: $1: no rshimK for ${BDF[$i]}"
	done
	wait_for 30 ip link show "tmfifo_net${idx[0]}" || echo "FAIL: $1: no tmfifo_net${idx[0]}"
}

# wtrip NODE: ns per 8-byte write() on a boot node (200 of them, in one
# open; the FIFO takes them all): the kernel's round trip to the daemon,
# its hand-off, one BOOT_FIFO_COUNT read and one word.
wtrip() {
	"$PY" -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY)
os.write(fd, bytes(8))
t = time.monotonic()
for _ in range(200):
    os.write(fd, bytes(8))
print("ns=%d" % ((time.monotonic() - t) / 200 * 1e9))
os.close(fd)' "$1"
}

declare -a idx
for r in $(seq "$ROUNDS"); do
	for d in nvidia pmd; do
		start_daemon "$d"
		echo "WTRIP daemon=$d round=$r $(wtrip "$dir/rshim${idx[1]}/boot")"
		for i in 0 1 2; do
			node=$dir/rshim${idx[$i]}
			echo "DISPLAY_LEVEL 2" >"$node/misc"
			b=$(snap "$i") p0=$(pstat "$pid")
			TIMEFORMAT="wall=%3R user=%3U sys=%3S"
			c=$( { time timeout 300 sh -c "cat '$BFB' >'$node/boot'" ; } 2>&1 ) || echo "FAIL: $d: push $i"
			p1=$(pstat "$pid") a=$(snap "$i")
			wait_for 60 grep -q "DPU is ready" "$node/misc" || echo "FAIL: $d: rshim$i not ready"
			echo "PUSH daemon=$d round=$r fn=$i $c | $p0 | $p1 | $b | $a"
		done
		# Console open and tmfifo_net0 up: the daemon's idle CPU over 10 s.
		timeout 60 cat "$dir/rshim${idx[0]}/console" >/dev/null &
		cons=$!
		net=tmfifo_net${idx[0]}
		ip addr add 192.168.100.1/24 dev "$net" 2>/dev/null
		ip link set "$net" up
		wait_for 30 ping -c 1 -W 1 192.168.100.2 || echo "FAIL: $d: no ping"
		sleep 2
		b=$(snap 0) p0=$(pstat "$pid") t0=$(date +%s.%N)
		sleep 10
		p1=$(pstat "$pid") t1=$(date +%s.%N) a=$(snap 0)
		echo "IDLE daemon=$d round=$r secs=$(echo "$t1 - $t0" | bc) | $p0 | $p1 | $b | $a"
		echo "PING daemon=$d round=$r $(ping -c 40 -i 0.1 -q 192.168.100.2 | tail -1)"
		# The DPU speaks first after 5 s of quiet: the host pings from its
		# namespace and records the round trip.
		echo "$d $r" >"$SHARE/first.req"
		wait_for 60 test -e "$SHARE/first.done" && echo "FIRST daemon=$d round=$r $(cat "$SHARE/first.done")" ||
			echo "FAIL: $d: no first-packet answer"
		rm -f "$SHARE/first.done"
		kill "$cons" 2>/dev/null; wait "$cons" 2>/dev/null
		kill -TERM "$pid"; reap "$pid" 40
		wait_for 20 sh -c "! ip link show $net" || echo "FAIL: $d: $net left"
	done
done
echo "bench done"
