#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vm suite, guest side: the service (rshim-pmd, FUSE nodes) on two PCI
# functions bound to vfio-pci: boot node, misc, console through picocom,
# NVIDIA's bfb-install (when RSHIM_PMD_BFB_INSTALL names it), and the
# second function's emulator killed: marked gone, no hang.
. "$(dirname "$0")/guest_lib.sh"
"$PY" "$SRC/usertools/rshim-devbind.py" -b vfio-pci "${BDF[@]}" >/dev/null &&
	pass "both functions bound to vfio-pci" || fail "bind"
# Per-run node and lock directories and DPDK prefix; /dev for bfb-install.
N=$((40 + PEER % 50))
devdir=$W/dev
[ -n "${RSHIM_PMD_BFB_INSTALL:-}" ] && devdir=/dev
mkdir -p "$devdir" "$W/run"
"$SVC" -f -n -C /dev/null --dev-dir "$devdir" --run-dir "$W/run" -i "$N" \
	--file-prefix "rshim-vm-$PEER" -d "${BDF[0]}" -d "${BDF[1]}" >"$W/svc.out" 2>&1 &
svc=$!
wait_for 90 sh -c "[ \$(grep -c ' serving ' '$W/svc.out') -ge 2 ]" &&
	pass "service serves both PCI functions" || fail "service start: $(cat "$W/svc.out")"
n0=$devdir/rshim$N n1=$devdir/rshim$((N + 1))
[ -e "$n0/boot" ] && [ -e "$n0/misc" ] && [ -e "$n0/rshim" ] && [ -e "$n0/console" ] &&
	pass "rshim$N/{boot,console,misc,rshim}" || fail "nodes: $(ls -l "$n0" 2>&1)"
grep -Eq "^DEV_NAME +pcie-${BDF[0]}" "$n0/misc" && pass "misc DEV_NAME pcie-${BDF[0]}" ||
	fail "misc: $(cat "$n0/misc" 2>&1)"
grep -q "^DEV_INFO *BlueField-3" "$n0/misc" && pass "misc DEV_INFO BlueField-3" || fail "DEV_INFO: $(grep DEV_INFO "$n0/misc")"
echo "DISPLAY_LEVEL 2" >"$n0/misc"
if timeout 60 sh -c "cat '$BFB' >'$n0/boot'"; then pass "cat tiny.bfb > boot"; else fail "boot write: exit $?"; fi
wait_for 30 grep -q "DPU is ready" "$n0/misc" && pass "misc log: DPU is ready" ||
	fail "misc after boot: $(cat "$n0/misc")"
grep -q "boot push done" "$W/svc.out" && pass "service logged the push" || fail "no push in the log"
# Console: a terminal program on the node, as a user would.
m=svc-$RANDOM$RANDOM
(sleep 2; printf "echo $m\r"; sleep 3; printf '\001\030') |
	timeout 40 script -qfc "picocom -q -b 115200 --omap crlf $n0/console" "$W/pico.out" >/dev/null
grep -q "$m" "$W/pico.out" && pass "console through picocom" ||
	fail "picocom: $(tail -c 300 "$W/pico.out")"
# NVIDIA's bfb-install, unchanged, against /dev/rshimN.
if [ -n "${RSHIM_PMD_BFB_INSTALL:-}" ]; then
	PATH=$(dirname "$RSHIM_PMD_BFB_INSTALL"):$PATH timeout 120 \
		"$RSHIM_PMD_BFB_INSTALL" -r "rshim$N" -b "$BFB" >"$W/bfbi.out" 2>&1 &&
		grep -q "DPU is ready" "$W/bfbi.out" && pass "bfb-install -r rshim$N" ||
		fail "bfb-install: $(tail -5 "$W/bfbi.out")"
else
	echo "skip: bfb-install (set RSHIM_PMD_BFB_INSTALL=/path/to/bfb-install)"
fi
# The second function's emulator dies: the service marks it gone, keeps
# serving the first, and stops cleanly.
host_ctl "kill 1" && pass "emulator 1 killed on the host" || fail "emulator 1 not killed"
cat "$n1/misc" >/dev/null 2>&1
wait_for 30 grep -q "marked gone" "$W/svc.out" && pass "service marks rshim$((N + 1)) gone" ||
	fail "not marked gone: $(tail -5 "$W/svc.out")"
timeout 10 cat "$n1/misc" >/dev/null 2>"$W/gone.err"; rc=$?
[ "$rc" -ne 124 ] && pass "gone node answers (exit $rc: $(head -c 80 "$W/gone.err"))" || fail "misc of a gone device hangs"
timeout 10 grep -q "^DEV_INFO *BlueField-3" "$n0/misc" && pass "rshim$N still served" || fail "rshim$N after the removal"
kill -TERM "$svc"
wait_for 30 sh -c "! kill -0 $svc" && wait "$svc"; rc=$?
[ "$rc" -eq 0 ] && pass "service stops on SIGTERM, exit 0" || fail "service exit $rc: $(tail -5 "$W/svc.out")"
grep -q " $devdir/rshim$N " /proc/mounts && fail "FUSE mount left" || pass "nodes unmounted"
finish
