#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# usertools/check-citations.sh: the tree cites nothing outside itself, and
# the checker itself finds and fixes what it should (in a scratch repository).
#   test_check_citations.sh SOURCE_DIR
set -euo pipefail
src=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP: $src is not a git checkout"
	exit 77
fi
# 1. The tree itself.
if ! out=$("$src/usertools/check-citations.sh" 2>&1); then
	echo "$out"
	fail "the tree cites files outside the repository (run usertools/check-citations.sh --fix)"
fi

# 2. The checker on a scratch repository with known offenders.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/usertools" "$tmp/doc" "$tmp/lib"
cp "$src/usertools/check-citations.sh" "$tmp/usertools/"
cp "$src/doc/hardware-notes.md" "$tmp/doc/"
cat > "$tmp/lib/a.c" <<'EOC'
/* Facts: reference/rshim-host-interface.md §3.2 and §3.3. */
/* Format: reference/dpu-side-tmfifo.md §6.3-§6.6 (header, CRC). */
/* BFB ids (`dpu-side-tmfifo.md` §6.4), bind (reference §2.2). */
EOC
cat > "$tmp/lib/b.c" <<'EOC'
/* The layering of DESIGN.md; the errors of issue 4; see PR #38. */
/* Public: rshim-user-space PR #110. */
/* A section that does not exist: hardware-notes §4.12, §D9. */
/* Fine: hardware-notes §1.3, §D6.5, §2.5.4 (a step), the reference daemon. */
EOC
git -C "$tmp" init -q
git -C "$tmp" add -A
set +e
out=$("$tmp/usertools/check-citations.sh" 2>&1)
rc=$?
set -e
[ $rc -eq 1 ] || fail "offenders not reported (exit $rc)"
for want in 'lib/a.c:1:' 'lib/a.c:2:' 'lib/a.c:3:' 'DESIGN.md' 'issue 4' 'PR #38' \
	'§4.12 is not a section' '§D9 is not a section'; do
	grep -qF -- "$want" <<<"$out" || fail "not reported: $want"
done
if grep -q '§2.5.4 is not\|§1.3 is not\|§D6.5 is not' <<<"$out"; then
	fail "a valid section reported: $out"
fi
if grep -qE 'lib/b.c:(2|4):' <<<"$out"; then fail "a clean line reported: $out"; fi

set +e
out=$("$tmp/usertools/check-citations.sh" --fix 2>&1)
set -e
a=$(cat "$tmp/lib/a.c")
for want in 'Facts: hardware-notes §3.2 and §3.3.' \
	'Format: hardware-notes §D6.3-§D6.6 (header, CRC).' \
	'BFB ids (hardware-notes §D6.4), bind (hardware-notes §2.2).'; do
	grep -qF -- "$want" <<<"$a" || fail "--fix did not give: $want (got: $a)"
done
grep -q 'lib/a.c' <<<"$out" && fail "lib/a.c still reported after --fix: $out"
grep -q 'DESIGN.md' <<<"$out" || fail "--fix hid what it cannot fix"
set +e
"$tmp/usertools/check-citations.sh" --bogus >/dev/null 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "bad argument exit $rc (want 2)"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
