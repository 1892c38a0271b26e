#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vm suite, guest side: NVIDIA's own rshim daemon (rshim-user-space built
# from $RSHIM_US_DIR by tests/vm/build_nvidia.py: $NVIDIA_RSHIM) against the emulated BlueField served by
# rshim-sim-pci, through the guest kernel's vfio-pci and CUSE, as a user
# runs it. Functions: 0 a BF3 with a DPU network, 1 a BF2, 2 the BF3 of
# function 0 seen a second time (shared= registers: two drivers on one
# rshim, as the host's PCIe driver and a BMC's USB one are on silicon).
#   1. its /dev/rshimN nodes, misc keys, a boot to "DPU is ready" in its
#      misc log on BF3 and BF2, its console, its tmfifo_net0 to the DPU;
#   2. ownership against rshim-pmd on functions 0/2: each sees the other's
#      keepalive, FORCE hands the device over both ways, and the driver
#      that does not own the device never touches its FIFOs (counted by
#      the dropped side's emulator).
. "$(dirname "$0")/guest_lib.sh"
NV=$NVIDIA_RSHIM
modprobe vfio-pci && modprobe cuse && pass "vfio-pci and cuse loaded" ||
	fail "modprobe vfio-pci cuse"

# nv_start IDX BDF [ARGS]: NVIDIA's daemon for one function, in the
# foreground (-f), its log unbuffered in $W/nvIDX.out; pid in nv_pid[IDX].
# In a session of its own: 3 s after SIGTERM it SIGKILLs its whole process
# group (kill(0, ...)), which would take this script with it.
declare -a nv_pid
nv_start() {
	local i=$1 d=$2; shift 2
	setsid stdbuf -oL -eL "$NV" -f -l 3 -d "pcie-$d" -i "$i" "$@" >"$W/nv$i.out" 2>&1 &
	nv_pid[$i]=$!
}

# counters N: the FIFO counters of emulator N now (SIGUSR1 through
# rshim-vm; the line lands in its log beside $RSHIM_VM_CTL).
counters() {
	local log n
	log=$(dirname "$RSHIM_VM_CTL")/sim$1.log
	n=$(grep -c "counters: device" "$log" 2>/dev/null)
	host_ctl "usr1 $1" >/dev/null
	wait_for 10 sh -c "[ \$(grep -c 'counters: device' '$log') -gt ${n:-0} ]"
	grep "counters: device" "$log" | tail -1 | grep -Eo "(host_boot_words|tm_bytes|tth_empty_reads)=[0-9]+" | tr '\n' ' '
}

# 1. NVIDIA's daemon on a BF3 and a BF2: it binds vfio-pci itself.
nv_start 0 "${BDF[0]}"
nv_start 1 "${BDF[1]}"
for i in 0 1; do
	wait_for 60 test -e "/dev/rshim$i/misc" &&
		pass "rshim$i: /dev/rshim$i/{boot,console,misc,rshim}: $(ls /dev/rshim$i | tr '\n' ' ')" ||
		fail "rshim$i: no nodes: $(tail -5 "$W/nv$i.out")"
	[ "$(basename "$(readlink "/sys/bus/pci/devices/${BDF[$i]}/driver")")" = vfio-pci ] &&
		grep -q "(vfio)" "$W/nv$i.out" && pass "rshim$i: NVIDIA's daemon maps BAR0 through vfio-pci" ||
		fail "rshim$i: mapping: $(grep -i probing "$W/nv$i.out")"
done
misc0=$(cat /dev/rshim0/misc) misc1=$(cat /dev/rshim1/misc)
grep -q "^DEV_NAME *pcie-${BDF[0]}$" <<<"$misc0" && grep -q "^DEV_INFO *BlueField-3(Rev 1)$" <<<"$misc0" &&
	grep -q "^DEV_INFO *BlueField-2(Rev 1)$" <<<"$misc1" && pass "misc: DEV_NAME, DEV_INFO of BF3 and BF2" ||
	fail "misc: $misc0 $misc1"
grep -q "^OPN_STR *MBF2M516A-CEEOT$" <<<"$misc1" && pass "misc: BF2 OPN_STR read through MEM_ACC" ||
	fail "BF2 OPN_STR: $(grep OPN <<<"$misc1")"
grep -q "^BF_MODE *Unknown$" <<<"$misc0" && pass "misc: BF3 BF_MODE (SCRATCHPAD2 5:4 before boot)" ||
	fail "BF_MODE: $(grep BF_MODE <<<"$misc0")"
echo "BOOT_TIMEOUT 120" >/dev/rshim1/misc && grep -q "^BOOT_TIMEOUT *120 " /dev/rshim1/misc &&
	pass "misc: BOOT_TIMEOUT written and read back" || fail "BOOT_TIMEOUT: $(grep BOOT_TIMEOUT /dev/rshim1/misc)"
for i in 0 1; do
	echo "DISPLAY_LEVEL 2" >"/dev/rshim$i/misc"
	if timeout 120 sh -c "cat '$BFB' >/dev/rshim$i/boot"; then
		pass "rshim$i: cat tiny.bfb > /dev/rshim$i/boot"
	else
		fail "rshim$i: boot write: exit $?"
	fi
	wait_for 60 grep -q "DPU is ready" "/dev/rshim$i/misc" && pass "rshim$i: misc log: DPU is ready" ||
		fail "rshim$i: misc after the push: $(cat "/dev/rshim$i/misc")"
done
# Its console: read and write the node (its TTY ioctls cover TCGETS and
# TCSETS only, which picocom's TCGETS2 does not reach; see doc/vm.md).
m=nv-$RANDOM$RANDOM
exec 4<>/dev/rshim0/console
timeout 30 cat <&4 >"$W/cons.out" &
cat_pid=$!
sleep 1
printf 'echo %s\r' "$m" >&4
wait_for 20 sh -c "tr -d '\r' <'$W/cons.out' | grep -aq '^$m'" && pass "console: a line typed comes back" ||
	fail "console: no $m in: $(tail -c 200 "$W/cons.out")"
kill "$cat_pid"; wait "$cat_pid"
exec 4>&-
ip addr add 192.168.100.1/24 dev tmfifo_net0 && ip link set tmfifo_net0 up
if wait_for 30 ping -c 1 -W 1 192.168.100.2; then
	out=$(ping_every 20 -i 0.05 192.168.100.2) && pass "tmfifo_net0: ping 20 to the DPU, every one answered" || fail "ping: $out"
else
	fail "tmfifo_net0: no answer from 192.168.100.2: $(ip addr show tmfifo_net0 2>&1)"
fi
for i in 0 1; do
	kill -TERM "${nv_pid[$i]}"; reap "${nv_pid[$i]}" 30
	[ ! -e "/dev/rshim$i/misc" ] && pass "rshim$i: NVIDIA's daemon stops on SIGTERM, nodes gone" ||
		fail "rshim$i: after SIGTERM: rc $rc, $(ls /dev/rshim$i 2>&1)"
done

# 2. Ownership: rshim-pmd on function 2, NVIDIA's daemon on function 0,
# one emulated device behind both.
"$PY" "$SRC/usertools/rshim-devbind.py" -b vfio-pci "${BDF[2]}" >/dev/null
N=$((40 + PEER % 50))
pmd=$W/dev/rshim$N nvm=/dev/rshim0/misc
mkdir -p "$W/dev" "$W/run"
"$SVC" -f -n -C /dev/null --dev-dir "$W/dev" --run-dir "$W/run" -i "$N" \
	--file-prefix "rshim-vm-$PEER" -d "${BDF[2]}" >"$W/svc.out" 2>&1 &
svc=$!
wait_for 90 grep -q " serving " "$W/svc.out" && pass "rshim-pmd serves function 2" ||
	fail "service start: $(cat "$W/svc.out")"
nv_start 0 "${BDF[0]}"
reap "${nv_pid[0]}" 30
grep -q "another backend already attached" "$W/nv0.out" && [ ! -e "$nvm" ] &&
	pass "NVIDIA's daemon sees rshim-pmd's keepalive and stays off (exit $rc)" ||
	fail "NVIDIA's daemon over rshim-pmd: $(cat "$W/nv0.out")"
nv_start 0 "${BDF[0]}" -F
wait_for 40 grep -q "regained ownership" "$W/nv0.out" &&
	pass "NVIDIA's daemon with -F takes the device over (OSP_REQ)" ||
	fail "NVIDIA -F: $(tail -5 "$W/nv0.out")"
wait_for 20 grep -q "^DROP_MODE *1 " "$pmd/misc" && grep -q "handed the device over" "$W/svc.out" &&
	pass "rshim-pmd acknowledged and is in drop mode" || fail "rshim-pmd: $(tail -3 "$W/svc.out")"
before=$(counters 2)
echo "DISPLAY_LEVEL 2" >"$nvm"
timeout 60 sh -c "cat '$BFB' >/dev/rshim0/boot" && wait_for 30 grep -q "DPU is ready" "$nvm" &&
	pass "NVIDIA's daemon boots the device it took over" || fail "NVIDIA boot: $(tail -5 "$nvm")"
one_line "rshim-pmd's boot node while dropped: refused, as NVIDIA's" 2 "Invalid argument" 20 \
	sh -c "cat '$BFB' >'$pmd/boot'"
after=$(counters 2)
[ -n "$before" ] && [ "$before" = "$after" ] &&
	pass "rshim-pmd, dropped, touched no FIFO while NVIDIA's daemon pushed ($after)" ||
	fail "dropped rshim-pmd drove a FIFO: before '$before', after '$after'"
echo "FORCE_CMD 1" >"$pmd/misc" && pass "rshim-pmd: misc FORCE_CMD 1" || fail "FORCE_CMD 1"
wait_for 30 grep -q "^DROP_MODE *1 " "$nvm" && grep -q "passed to the requester" "$W/nv0.out" &&
	pass "NVIDIA's daemon acknowledged rshim-pmd's request and dropped" ||
	fail "NVIDIA after FORCE_CMD: $(tail -5 "$W/nv0.out")"
grep -q "^DROP_MODE *0 " "$pmd/misc" && pass "rshim-pmd owns the device again" ||
	fail "rshim-pmd: $(grep DROP "$pmd/misc")"
before=$(counters 0)
echo "DISPLAY_LEVEL 2" >"$pmd/misc"
timeout 60 sh -c "cat '$BFB' >'$pmd/boot'" && wait_for 30 grep -q "DPU is ready" "$pmd/misc" &&
	pass "rshim-pmd boots the device it took back" || fail "rshim-pmd boot: $(tail -5 "$pmd/misc")"
after=$(counters 0)
[ -n "$before" ] && [ "$before" = "$after" ] &&
	pass "NVIDIA's daemon, dropped, touched no FIFO while rshim-pmd pushed ($after)" ||
	fail "dropped NVIDIA daemon drove a FIFO: before '$before', after '$after'"
kill -TERM "${nv_pid[0]}" "$svc"
reap "$svc" 30
[ "$rc" -eq 0 ] && pass "rshim-pmd stops on SIGTERM, exit 0" || fail "rshim-pmd exit $rc"
reap "${nv_pid[0]}" 30
finish
