#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rshim-hugepages against a fake sysfs tree and a fake mount table.
set -euo pipefail
tool=${RSHIM_HUGEPAGES:?set RSHIM_HUGEPAGES to the script}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
pd=$root/kernel/mm/hugepages/hugepages-2048kB
mkdir -p "$pd"
echo 0 > "$pd/nr_hugepages"
echo 0 > "$pd/free_hugepages"
echo "proc /proc proc rw 0 0" > "$root/no-huge"
echo "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0" > "$root/huge-2m"
echo "hugetlbfs /mnt/h1g hugetlbfs rw,relatime,pagesize=1024M 0 0" > "$root/huge-1g"
fails=0

# expect NAME RC PATTERN -- ARGS...: run, check the exit code and output.
expect() {
	local name=$1 rc=$2 pat=$3 out got
	shift 4
	set +e
	out=$("$tool" "$@" 2>&1)
	got=$?
	set -e
	if [ "$got" -ne "$rc" ] || ! grep -qE -- "$pat" <<<"$out"; then
		echo "FAIL $name: rc $got (want $rc), output:"
		echo "$out"
		fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}
fake=(--sysfs-root "$root")

expect help 0 'Usage: rshim-hugepages .*SIZE' -- --help
expect help-options 0 '^  -n, --dry-run' -- -h
expect version 0 '^rshim-hugepages \(rshim-pmd\) ' -- --version
expect bad-size 2 'x12: not a size' -- "${fake[@]}" x12
expect zero-size 2 'must be above 0' -- "${fake[@]}" 0M
expect bad-option 2 'bad arguments' -- --bogus
expect bad-pagesize 2 '--pagesize 4M: use 2M or 1G' -- -p 4M 1G
expect no-1g-pages 1 '1G pages are not supported here' -- "${fake[@]}" -p 1G 1G

# Dry run: what would be written and mounted; nothing changes.
expect dry-run 0 "would write 256 to $pd/nr_hugepages" -- \
	"${fake[@]}" --mounts "$root/no-huge" --dry-run 512M
expect dry-run-mount 0 'would run: mount -t hugetlbfs -o pagesize=2M nodev /mnt/x' -- \
	"${fake[@]}" --mounts "$root/no-huge" -n -m /mnt/x 512M
[ "$(cat "$pd/nr_hugepages")" = 0 ] || { echo "FAIL dry run wrote"; fails=$((fails + 1)); }

# Reserve for real in the fake tree; rounded up to whole pages.
expect reserve 0 '3 pages of 2M reserved' -- "${fake[@]}" --mounts "$root/huge-2m" 5M
[ "$(cat "$pd/nr_hugepages")" = 3 ] || { echo "FAIL nr_hugepages not 3"; fails=$((fails + 1)); }
# A mounted 2M hugetlbfs means no mount; a 1G one does not count for 2M.
out=$("$tool" "${fake[@]}" --mounts "$root/huge-2m" 4M 2>&1)
if grep -q mount <<<"$out"; then echo "FAIL mounted again: $out"; fails=$((fails + 1)); fi
expect other-pagesize-mount 0 'would run: mount -t hugetlbfs' -- \
	"${fake[@]}" --mounts "$root/huge-1g" 8M
# Never shrinks a larger reservation.
expect no-shrink 0 'already reserved' -- "${fake[@]}" --mounts "$root/huge-2m" 2M
[ "$(cat "$pd/nr_hugepages")" = 4 ] || { echo "FAIL shrunk: $(cat "$pd/nr_hugepages")"; fails=$((fails + 1)); }
expect show 0 '2048K +reserved 4' -- "${fake[@]}" --mounts "$root/huge-2m" --show

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
