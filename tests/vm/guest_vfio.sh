#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vm suite, guest side, emulated Intel IOMMU: discovery, binding,
# --doctor's failing layers, VFIO push/console/network, control, faults.
# Functions (host runner): 0 sim:bf3 with the DPU's Linux in namespace
# rshim-sim$PEER; 1 bf2 stalling (Ctrl-C, then its emulator is killed
# mid-push); 2 bf3 stalling, whose ARM the host resets mid-push.
. "$(dirname "$0")/guest_lib.sh"
D=${BDF[0]}
RD="--reset-delay 100 --no-progress"

# Nothing bound, vfio-pci not loaded yet.
expect "doctor: unbound function fails at the driver layer" 22 "" 60 "$APP" --doctor --device "$D"
layer "doctor: unbound, vfio-pci not loaded: both named" driver FAIL "not bound to a userspace driver; vfio-pci is not loaded"
grep -q "fix: modprobe vfio-pci && rshim-devbind.py -b vfio-pci $D" "$W/out" && pass "doctor: unbound fix line loads vfio-pci" ||
	fail "doctor: unbound fix: $(cat "$W/out")"
one_line "unbound, --mapping vfio: the bind command" 4 "not bound to any driver; run: rshim-devbind.py -b vfio-pci $D" 60 \
	"$APP" --quiet --device "$D" --mapping vfio --reg BOOT_CONTROL
modprobe pci-stub
echo pci-stub >/sys/bus/pci/devices/$D/driver_override
echo "$D" >/sys/bus/pci/drivers/pci-stub/bind
expect "doctor: wrong driver fails at the driver layer" 22 "" 60 "$APP" --doctor --device "$D"
layer "doctor: wrong driver named" driver FAIL "bound to pci-stub"
one_line "bound to pci-stub: one line, exit 4" 4 "bound to pci-stub; run: rshim-devbind.py -b vfio-pci $D" 60 \
	"$APP" --quiet --device "$D" --reg BOOT_CONTROL
echo >/sys/bus/pci/devices/$D/driver_override
echo "$D" >/sys/bus/pci/drivers/pci-stub/unbind
# vfio-pci not loaded: the bind names the module; --doctor names it.
[ -e /sys/module/vfio_pci ] && fail "vfio_pci loaded before the test" || pass "vfio_pci not loaded at boot"
expect "rshim-devbind.py -b vfio-pci loads the module and binds" 0 "" 60 \
	"$PY" "$SRC/usertools/rshim-devbind.py" -b vfio-pci "${BDF[@]}"
expect "dpdk-devbind.py refuses an rshim function (no rshim IDs in its table)" 1 "Unknown device: $D" 60 \
	dpdk-devbind.py -b vfio-pci "$D"
grp=$(basename "$(readlink /sys/bus/pci/devices/$D/iommu_group)")
[ "$(basename "$(readlink /sys/bus/pci/devices/$D/driver)")" = vfio-pci ] && [ -c "/dev/vfio/$grp" ] &&
	pass "bound to vfio-pci, /dev/vfio/$grp" || fail "not bound: $(ls -l /dev/vfio)"

# Discovery.
expect "--list: 3 functions" 0 "^$D +BlueField-3 +1 +vfio-pci +8 MiB +-1 +$grp +.*usable" 60 "$APP" --list
grep -Eq "^${BDF[1]} +BlueField-2 .*vfio-pci +1 MiB" "$W/out" && pass "--list: BF2 1 MiB" ||
	fail "--list: BF2: $(cat "$W/out")"
run 60 "$APP" --list --json
"$PY" - "$W/out" "$D" "$grp" <<'PYEOF' && pass "--list --json: generation, BAR, driver, IOMMU group" || fail "--list --json: $(cat "$W/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
d = {x["device"]: x for x in doc["devices"]}[sys.argv[2]]
assert len(doc["devices"]) == 3, doc
assert d["generation"] == "BlueField-3" and d["bar0_bytes"] == 8 << 20, d
assert d["kernel_driver"] == "vfio-pci" and d["iommu_group"] == int(sys.argv[3]), d
assert d["usable"] and d["backend"] == "pci", d
PYEOF
nr=$(lspci -Dn -d 1af4: | awk 'NR==1 {print $1}')
one_line "--device on a non-rshim function: one line, exit 4" 4 "$nr: not an rshim function" 60 \
	"$APP" --quiet --device "$nr" --reg BOOT_CONTROL

# VFIO: push, then console and network in one run.
mkfifo "$W/in"
"$APP" --device "$D" $RD --push-boot "$BFB" --console --net tap --ip 192.168.100.1/24 \
	<"$W/in" >"$W/app.out" 2>&1 &
app=$!
exec 3>"$W/in"
if wait_for 90 grep -q "DPU is ready" "$W/app.out"; then pass "VFIO push: DPU is ready"; else fail "VFIO push: $(cat "$W/app.out")"; fi
grep -q "MMIO per MiB" "$W/app.out" && pass "push summary" || fail "push summary missing"
if wait_for 30 ping -c 1 -W 1 192.168.100.2; then
	out=$(ping_every 20 -i 0.05 192.168.100.2) && pass "ping 20 to the DPU, every one answered" || fail "ping: $out"
else
	fail "tmfifo_net0: no answer from 192.168.100.2: $(ip addr show tmfifo_net0 2>&1)"
fi
head -c 262144 /dev/urandom >"$W/blob"
"$PY" "$SRC/tests/sim/tmfifo/tcp_xfer.py" send 192.168.100.2 5001 "$W/blob" &&
	wait_for 30 test -s "$SHARE/tcp.sha" &&
	[ "$(cut -d' ' -f1 "$SHARE/tcp.sha")" = "$(sha256sum "$W/blob" | cut -d' ' -f1)" ] &&
	pass "TCP 256 KiB to the DPU's namespace, SHA-256 matches" || fail "TCP: $(cat "$SHARE/tcp.sha" 2>&1)"
m=marker-$RANDOM$RANDOM
echo "echo $m" >&3
wait_for 20 sh -c "tr -d '\r' <'$W/app.out' | grep -q '^$m'" && pass "console round trip" ||
	fail "console: no $m in: $(tail -5 "$W/app.out")"
kill -TERM "$app"; reap "$app" 30; exec 3>&-
[ "$rc" -eq 0 ] && pass "app exits 0 on SIGTERM" || fail "app exit $rc: $(tail -5 "$W/app.out")"
ip link show tmfifo_net0 >/dev/null 2>&1 && fail "tmfifo_net0 left behind" || pass "tmfifo_net0 removed"

# --doctor on the booted, bound device: every layer ok.
expect "doctor: every layer ok on a bound, booted device" 0 "" 90 "$APP" --doctor --device "$D"
for l in pci link driver iommu rshim owner tmfifo tmfifo_net; do layer "doctor: $l ok" "$l" ok .; done
layer "doctor: link from the PCIe capability" link ok "32.0 GT/s x16"

# Control: misc, a register, the reset, in one run.
expect "--misc --reg --reset" 0 "BOOT_CONTROL \(BAR 0x000528\) = 0x0000000000000001" 60 \
	"$APP" --device "$D" --misc --reg BOOT_CONTROL --reset --reset-delay 100
grep -q "^BOOT_MODE" "$W/out" && grep -q "ARM reset done" "$W/out" && pass "misc keys and ARM reset" ||
	fail "misc/reset: $(cat "$W/out")"
expect "--reg 32-bit read" 0 "0x13000528 \(BAR 0x000528\) = 0x00000001" 60 "$APP" --device "$D" --reg 0x13000528.32

# Faults. A stall, then Ctrl-C: 130, BOOT_CONTROL back to 1.
"$APP" --device "${BDF[1]}" $RD --push-boot "$BFB" >"$W/stall.out" 2>&1 &
app=$!
pushing "$W/stall.out"
kill -INT "$app"; reap "$app" 30
[ "$rc" -eq 130 ] && pass "stall + Ctrl-C: exit 130" || fail "stall + Ctrl-C: exit $rc: $(tail -3 "$W/stall.out")"
expect "after Ctrl-C BOOT_CONTROL is restored" 0 "= 0x0000000000000001" 60 "$APP" --device "${BDF[1]}" --reg BOOT_CONTROL
# The ARM resets on its own mid-push (a stalled push; the host injects
# the reset): the push fails with exit 1 and says why, BOOT_CONTROL is
# restored, no "DPU is ready".
"$APP" --device "${BDF[2]}" $RD --push-boot "$BFB" --log-wait 5 >"$W/ar.out" 2>&1 &
app=$!
pushing "$W/ar.out"
host_ctl "armreset 2" && pass "ARM reset injected in emulator 2" || fail "no ARM reset injected"
reap "$app" 60
if [ "$rc" -eq 1 ] && grep -q "unreachable during the push (the ARM was reset?) at byte .*; BOOT_CONTROL restored to 1" "$W/ar.out" &&
   ! grep -q "DPU is ready" "$W/ar.out"; then
	pass "ARM reset mid-push: exit 1, the line says why"
else
	fail "ARM reset mid-push: exit $rc: $(tail -4 "$W/ar.out")"
fi
# The emulator process dies mid-push: all-ones, exit 6.
"$APP" --device "${BDF[1]}" $RD --push-boot "$BFB" >"$W/gone.out" 2>&1 &
app=$!
pushing "$W/gone.out"
host_ctl "kill 1" && pass "emulator 1 killed on the host" || fail "rshim-vm did not kill emulator 1"
reap "$app" 30
[ "$rc" -eq 6 ] && pass "emulator killed: exit 6 (device gone)" || fail "emulator killed: exit $rc: $(tail -3 "$W/gone.out")"
finish
