#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vm suite, guest side, no vIOMMU, vfio in unsafe noiommu mode (the
# out-of-tree vfio.ko with CONFIG_VFIO_NOIOMMU that rshim-vm built):
# vfio-pci binds, /dev/vfio/noiommu-N, push and console through VFIO.
. "$(dirname "$0")/guest_lib.sh"
D=${BDF[0]}
grep -q Y /sys/module/vfio/parameters/enable_unsafe_noiommu_mode 2>/dev/null &&
	pass "vfio loaded in noiommu mode" || fail "vfio noiommu: $(cat /sys/module/vfio/parameters/enable_unsafe_noiommu_mode 2>&1)"
expect "rshim-devbind.py -b vfio-pci" 0 "" 60 "$PY" "$SRC/usertools/rshim-devbind.py" -b vfio-pci "$D"
grp=$(basename "$(readlink /sys/bus/pci/devices/$D/iommu_group)")
[ -c "/dev/vfio/noiommu-$grp" ] && pass "/dev/vfio/noiommu-$grp" || fail "no noiommu node: $(ls /dev/vfio)"
expect "doctor: noiommu accepted" 27 "" 90 "$APP" --doctor --device "$D"
layer "doctor: driver ok" driver ok "vfio-pci"
layer "doctor: iommu ok" iommu ok .
layer "doctor: rshim ok" rshim ok "answers"
push_console noiommu "$D"
grep -q "VFIO noiommu mode" "$W/noiommu.out" && pass "the noiommu notice is said" ||
	fail "no noiommu notice: $(grep -i iommu "$W/noiommu.out")"
# The NIC firmware asks for a reset while the app runs: no INTx reaches a
# TCG guest, so the request is answered from the SCRATCHPAD6 poll.
rm -f "$W/in"; mkfifo "$W/in"
"$APP" --device "$D" --console <"$W/in" >"$W/rst.out" 2>&1 &
app=$!
exec 3>"$W/in"
sleep 3
host_ctl "rstreq 0" && pass "NIC reset request raised in emulator 0" || fail "no reset request raised"
wait_for 20 grep -q "NIC firmware reset (type 2): pausing the device" "$W/rst.out" &&
	pass "reset request answered without an interrupt" || fail "reset request: $(tail -4 "$W/rst.out")"
grep -q "no interrupt came with the NIC firmware's reset request" "$W/rst.out" &&
	pass "the no-INTx fallback is said" || fail "no fallback line: $(tail -4 "$W/rst.out")"
sleep 5
kill -TERM "$app"; reap "$app" 30; exec 3>&-
[ "$rc" -eq 0 ] && pass "app exit 0 after the NIC reset" || fail "app exit $rc after the reset"
finish
