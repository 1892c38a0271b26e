#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rshim-mkbfb end to end: build with --image/--random/--append, --list it,
# check ids, corrupt a data byte and expect exit 1 with a CRC message,
# and exit 2 on bad arguments.
set -eu
MK=${1:?usage: test_mkbfb.sh PATH/TO/rshim-mkbfb}
T=$(mktemp -d /tmp/rsh-mkbfb-test-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

printf 'hello bl2' > "$T/bl2.bin"
printf '# bf.cfg\nHOSTNAME=dpu-test\n' > "$T/bf.cfg"
"$MK" --image bl2:"$T/bl2.bin" --random 3:1000:7 --random bl33:64K \
	--image 62:"$T/bl2.bin" --random initramfs:1M:9 \
	--append "$T/bf.cfg" "$T/a.bfb" || fail "build exited $?"

"$MK" --list "$T/a.bfb" > "$T/list" || fail "--list of a good BFB failed"
cat "$T/list"
ids=$(awk '$1 ~ /^[0-9]+$/ { printf "%s,", $3 }' "$T/list")
[ "$ids" = "1,3,5,62,63," ] || fail "listed ids '$ids'"
names=$(awk '$1 ~ /^[0-9]+$/ { printf "%s,", $4 }' "$T/list")
[ "$names" = "bl2,bl31,bl33,image,initramfs," ] || fail "listed names '$names'"
grep -q "^trailing bytes: $(wc -c < "$T/bf.cfg") " "$T/list" ||
	fail "trailing byte count"
# The appended file is the tail of the output, byte for byte.
n=$(wc -c < "$T/bf.cfg")
tail -c "$n" "$T/a.bfb" | cmp -s - "$T/bf.cfg" || fail "append not at the end"

# Determinism: the same seeds give the same bytes.
"$MK" --image bl2:"$T/bl2.bin" --random 3:1000:7 --random bl33:64K \
	--image 62:"$T/bl2.bin" --random initramfs:1M:9 \
	--append "$T/bf.cfg" "$T/b.bfb"
cmp -s "$T/a.bfb" "$T/b.bfb" || fail "output not deterministic"

# Flip one data byte of the bl33 image (third image, offset 2 headers +
# bl2 16 bytes + bl31 1000 bytes in).
cp "$T/a.bfb" "$T/bad.bfb"
off=$((24 + 16 + 24 + 1000 + 24 + 100))
printf '\377' | dd of="$T/bad.bfb" bs=1 seek=$off conv=notrunc 2>/dev/null
set +e
"$MK" --list "$T/bad.bfb" > /dev/null 2> "$T/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "--list of a corrupt BFB exited $rc, want 1"
grep -q "CRC" "$T/err" || fail "no CRC in: $(cat "$T/err")"
cat "$T/err"

# Bad arguments exit 2 with one line.
for args in "--random nosuch:1K $T/x" "--random bl2:12Q $T/x" "--bogus" \
	"--image bl2 $T/x" "" "--random bl2-v16:1K $T/x" "--random bl2:1.1K $T/x" \
	"--random bl2:nan $T/x" "--random bl2:4G $T/x" "--random bl2:1K:-1 $T/x"; do
	set +e
	# shellcheck disable=SC2086
	"$MK" $args > /dev/null 2> "$T/err"
	rc=$?
	set -e
	[ $rc -eq 2 ] || fail "'$args' exited $rc, want 2"
	[ "$(wc -l < "$T/err")" -eq 1 ] || fail "'$args' not one line"
done
"$MK" --help | grep -q -- "--append" || fail "--help"

# Per-image versions (NAME-vN): current and next versions in --list.
"$MK" --random bl2-v1:1K --random bl31:2K --random image-v2:1.5K \
	--random initramfs:100 "$T/v.bfb" || fail "versions build exited $?"
"$MK" --list "$T/v.bfb" > "$T/list" || fail "--list of versions"
vers=$(awk '$1 ~ /^[0-9]+$/ { printf "%s/%s,", $5, $6 }' "$T/list")
[ "$vers" = "1/0,0/2,2/0,0/0," ] || fail "versions cur/next '$vers'"
lens=$(awk '$1 ~ /^[0-9]+$/ { printf "%s,", $7 }' "$T/list")
[ "$lens" = "1024,2048,1536,100," ] || fail "lengths '$lens'"

# A concatenation of two BFBs plus a bf.cfg is valid (as mlx-mkbfb -c);
# the repeated id+version pairs are warned about, on stderr.
cat "$T/v.bfb" "$T/v.bfb" "$T/bf.cfg" > "$T/cat.bfb"
"$MK" --list "$T/cat.bfb" > "$T/list" 2> "$T/err" || fail "concatenation refused: $(cat "$T/err")"
grep -q "concatenation of 2 BFBs" "$T/list" || fail "no concatenation line"
[ "$(awk '$1 ~ /^[0-9]+$/' "$T/list" | wc -l)" -eq 8 ] || fail "8 images expected"
grep -q "warning: image 4 (id 1 'bl2') .* repeats id 1 version 1 of image 0" "$T/err" ||
	fail "no repeat warning: $(cat "$T/err")"
"$MK" --list "$T/v.bfb" 2> "$T/err" > /dev/null
[ ! -s "$T/err" ] || fail "warning on a single BFB: $(cat "$T/err")"
echo "PASS"
