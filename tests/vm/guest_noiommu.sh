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
finish
