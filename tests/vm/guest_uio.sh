#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vm suite, guest side, no IOMMU at all: vfio-pci cannot take the
# function (the binder says what to do), uio_pci_generic and direct
# resource0 mapping (a devarg of the device string) push and run the console.
. "$(dirname "$0")/guest_lib.sh"
D=${BDF[0]}
[ -z "$(ls /sys/kernel/iommu_groups 2>/dev/null)" ] && pass "no IOMMU groups in this guest" ||
	fail "IOMMU groups exist: $(ls /sys/kernel/iommu_groups)"
one_line "rshim-devbind.py -b vfio-pci without an IOMMU: one line, the fix" 1 "no IOMMU group.*intel_iommu=on.*uio_pci_generic" 60 \
	"$PY" "$SRC/usertools/rshim-devbind.py" -b vfio-pci "$D"
expect "doctor: unbound, no IOMMU: driver layer" 22 "" 60 "$APP" --doctor --device "$D"
layer "doctor: no IOMMU group named at the driver layer" driver FAIL "not bound to a userspace driver; it has no IOMMU group, so vfio-pci cannot take it"
grep -q "fix: enable the IOMMU .* or: rshim-devbind.py -b uio_pci_generic $D" "$W/out" &&
	pass "doctor: the fix offers the IOMMU or uio_pci_generic" || fail "doctor: fix: $(cat "$W/out")"
expect "rshim-devbind.py -b uio_pci_generic" 0 "" 60 "$PY" "$SRC/usertools/rshim-devbind.py" -b uio_pci_generic "$D"
[ -e "/sys/bus/pci/devices/$D/uio" ] && pass "uio_pci_generic bound (pin A, INTx disable)" ||
	fail "uio not bound: $(ls /sys/bus/pci/devices/$D)"
expect "doctor: uio bound: every PCI layer ok" 27 "" 90 "$APP" --doctor --device "$D"
layer "doctor: uio iommu layer" iommu ok "uio_pci_generic: no IOMMU used"
layer "doctor: uio rshim layer" rshim ok "answers"
push_console uio "$D"
grep -q "using uio mapping" "$W/uio.out" && pass "uio: the UIO mapping was used" || fail "uio: mapping: $(grep -i mapping "$W/uio.out")"
"$PY" "$SRC/usertools/rshim-devbind.py" -u "$D" >/dev/null
# The mapping as a devarg of the device string (0000:00:04.0,mapping=direct);
# a misspelt one gets one line naming the valid keys.
one_line "a misspelt PCI devarg: one line, the valid keys" 4 "unknown PCI option 'maping'; valid: mapping, force-id" 60 \
	"$APP" --quiet --device "$D,maping=direct" --reg BOOT_CONTROL
push_console direct "$D,mapping=direct"
grep -q "direct resource0 mapping" "$W/direct.out" && pass "direct: resource0 was mapped" ||
	fail "direct: mapping: $(grep -i mapping "$W/direct.out")"
finish
