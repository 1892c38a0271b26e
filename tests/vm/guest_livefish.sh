#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vm suite, guest side, livefish recovery (no NIC firmware): three
# functions with the livefish IDs of BF1/BF2/BF3, no BAR, the gateway
# window at 0x58/0x5C in a vendor-specific capability. Discovery and the
# doctor, then the real config paths: the VFIO config region (vfio-pci,
# emulated IOMMU), sysfs config under uio_pci_generic and with no driver
# (direct); a push on each generation, the service with DROP_MODE 0 and a
# push through its boot node (or NVIDIA's bfb-install).
. "$(dirname "$0")/guest_lib.sh"
ids=(0211 0214 021c)
for i in 0 1 2; do
	lspci -n -s "${BDF[$i]}" | grep -q "15b3:${ids[$i]}" && pass "lspci: ${BDF[$i]} is 15b3:${ids[$i]}" ||
		fail "lspci: $(lspci -n -s "${BDF[$i]}")"
done
lspci -vv -s "${BDF[1]}" >"$W/lspci.out" 2>&1
grep -q "Capabilities: \[48\] Vendor Specific Information" "$W/lspci.out" && pass "lspci: vendor-specific capability at 0x48" ||
	fail "lspci -vv: $(cat "$W/lspci.out")"
grep -q "Region 0" "$W/lspci.out" && fail "a livefish function with a BAR: $(grep Region "$W/lspci.out")" ||
	pass "lspci: no BAR"
expect "--list: three livefish functions" 0 "^${BDF[2]} +BlueField-3 .*livefish" 60 "$APP" --list
grep -Eq "^${BDF[0]} +livefish \(no NIC firmware\): boot push" "$W/out" && pass "--list: the recovery line" ||
	fail "--list: $(cat "$W/out")"
expect "doctor: livefish, then the driver layer" 22 "" 60 "$APP" --doctor --device "${BDF[1]}"
layer "doctor: pci layer names livefish" pci warn "livefish mode .* config-space gateway"
bind vfio-pci "${BDF[0]}"; bind vfio-pci "${BDF[1]}"; bind uio_pci_generic "${BDF[2]}"
[ "$(basename "$(readlink "/sys/bus/pci/devices/${BDF[0]}/driver")")" = vfio-pci ] &&
	[ -e "/sys/bus/pci/devices/${BDF[2]}/uio" ] && pass "BF1/BF2 on vfio-pci, BF3 on uio_pci_generic" ||
	fail "bind: $(ls -l /sys/bus/pci/devices/${BDF[0]}/driver /sys/bus/pci/devices/${BDF[2]}/driver)"
# The VFIO config region: a register written and read back through the
# window (vfio-pci passes vendor-capability bytes through).
expect "vfio: SCRATCHPAD2 written through the VFIO config region" 0 "" 60 \
	"$APP" --quiet --device "${BDF[1]}" --reg SCRATCHPAD2=0x1234
expect "vfio: SCRATCHPAD2 read back" 0 "SCRATCHPAD2 .* = 0x0*1234" 60 \
	"$APP" --quiet --device "${BDF[1]}" --reg SCRATCHPAD2
# Each config cycle is a trap here (~0.25 ms under TCG): a 14 KiB BFB; an
# idle TM FIFO poll is 18-62 cycles, so the console through the gateway
# is tested in-process (sim suite, livefish) and not here.
RD="--reset-delay 100 --no-progress"
expect "vfio: push BF1 (TRIO gateway)" 0 "DPU is ready" 120 "$APP" --device "${BDF[0]}" $RD --push-boot "$BFB"
expect "vfio: push BF2 (CR window)" 0 "DPU is ready" 120 "$APP" --device "${BDF[1]}" $RD --push-boot "$BFB"
expect "uio (sysfs config): push BF3 (MSN gateway)" 0 "DPU is ready" 120 \
	"$APP" --device "${BDF[2]}" $RD --push-boot "$BFB"
grep -q "uio mapping" "$W/out" && pass "uio: the UIO mapping was used" || true
"$PY" "$SRC/usertools/rshim-devbind.py" -u "${BDF[2]}" >/dev/null
expect "direct (sysfs config, no driver): push BF3" 0 "DPU is ready" 120 \
	"$APP" --device "${BDF[2]}" --mapping direct $RD --push-boot "$BFB"
# The service: DROP_MODE 0 activates the livefish function (the one the
# app pushed above); a push through its boot node, or NVIDIA's
# bfb-install when RSHIM_PMD_BFB_INSTALL names it (then nodes in /dev).
N=$((40 + PEER % 50))
devdir=$W/dev
[ -n "${RSHIM_PMD_BFB_INSTALL:-}" ] && devdir=/dev
mkdir -p "$devdir" "$W/run"
echo "DROP_MODE 0" >"$W/rshim.conf"
"$SVC" -f -n -C "$W/rshim.conf" --dev-dir "$devdir" --run-dir "$W/run" -i "$N" \
	--file-prefix "rshim-vm-lf-$PEER" -d "${BDF[1]}" >"$W/svc.out" 2>&1 &
svc=$!
wait_for 90 grep -q ' serving ' "$W/svc.out" && pass "service serves the livefish BF2 (DROP_MODE 0)" ||
	fail "service: $(cat "$W/svc.out")"
n0=$devdir/rshim$N
grep -Eq "^DEV_NAME +pcie-lf-${BDF[1]}\$" "$n0/misc" && pass "service: misc DEV_NAME pcie-lf-${BDF[1]}" ||
	fail "misc: $(cat "$n0/misc")"
if [ -n "${RSHIM_PMD_BFB_INSTALL:-}" ]; then
	PATH=$(dirname "$RSHIM_PMD_BFB_INSTALL"):$PATH timeout 120 \
		"$RSHIM_PMD_BFB_INSTALL" -r "rshim$N" -b "$BFB" >"$W/bfbi.out" 2>&1 &&
		grep -q "DPU is ready" "$W/bfbi.out" && pass "service: bfb-install -r rshim$N" ||
		fail "bfb-install: $(tail -5 "$W/bfbi.out")"
else
	echo "DISPLAY_LEVEL 2" >"$n0/misc"
	if timeout 90 sh -c "cat '$BFB' >'$n0/boot'"; then pass "service: cat tiny.bfb > boot"; else fail "boot write: exit $?"; fi
	wait_for 30 grep -q "DPU is ready" "$n0/misc" && pass "service: misc log DPU is ready" ||
		fail "misc after boot: $(cat "$n0/misc")"
fi
kill -TERM "$svc"
wait_for 30 sh -c "! kill -0 $svc" && wait "$svc"; rc=$?
[ "$rc" -eq 0 ] && pass "service stops, exit 0" || fail "service exit $rc: $(tail -5 "$W/svc.out")"
finish
