#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every fact the code relies on is cited from the tree itself
# (doc/hardware-notes.md, as "hardware-notes §N.M" or "§DN.M"). This finds
# tracked files that cite something outside the repository instead: the
# hardware reference notes or design notes a developer had beside the tree,
# or issue and pull-request numbers of the project's tracker.
#   check-citations.sh          list offending lines; exit 1 if any
#   check-citations.sh --fix    first rewrite the mechanical cases (the
#                               hardware reference files -> hardware-notes),
#                               then list what is left to fix by hand
# Exit status: 0 clean, 1 offending lines found, 2 bad usage.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
prog=check-citations.sh
fix=0
case ${1:-} in
--fix) fix=1 ;;
-h|--help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "$prog: unknown argument '$1'; use --fix or --help" >&2; exit 2 ;;
esac
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "$prog: $top is not a git checkout; run it in one" >&2
	exit 2
fi

# Citations of files outside the repository. Extended regexps, matched
# case-sensitively except the issue pattern.
patterns=(
	'reference/'                                  # reference/rshim-host-interface.md
	'rshim-host-interface(\.md)?'                 # the host-side notes, by name
	'dpu-side-tmfifo(\.md)?'                      # the DPU-side notes, by name
	'dpu-side §'                                  # "dpu-side §7"
	'(^|[^a-z])reference §'                       # "reference §2.2"
	'\b(DESIGN|STYLE)\.md\b'                      # design and style notes
	'(^|[^A-Za-z0-9_-])shared/'                   # the notes folder
	'/work/'                                      # absolute paths of a workplace
)
# Perl regexps: a pull request of our tracker ("PR #38"); one of a named
# public project ("rshim-user-space PR #110") is a public source.
ppatterns=(
	'(?<!rshim-user-space )(?<!rshim-user-space PRs #[0-9]{2} )\bPRs? ?#[0-9]+'
)
ipatterns=(
	'\bissue #?[0-9]+'                           # "issue 7", "issue #7"
	'\bissues #[0-9]+'                            # "issues #7, #8" (not "issues 128 KiB")
)
# This script and its test name the patterns; the hardware notes name their
# public sources (rshim-user-space history) in words, not numbers.
excludes=(':!usertools/check-citations.sh' ':!tests/usertools/test_check_citations.sh')

# Rewrite "reference/rshim-host-interface.md §3.2" -> "hardware-notes §3.2",
# "dpu-side-tmfifo.md §6.3-§6.6" -> "hardware-notes §D6.3-§D6.6".
rsh_fix() {
	local files
	mapfile -t files < <(git grep --untracked -lE 'rshim-host-interface|dpu-side-tmfifo|dpu-side §|reference §' -- \
		"${excludes[@]}" || true)
	[ ${#files[@]} -gt 0 ] || return 0
	perl -pi -e '
		my $f = qr{`?(?:[\w./-]*reference/|\breference\s+)?};
		my $run = qr{((?:[\s,;]*(?:and\s+)?§[0-9][0-9.]*(?:\s*(?:-|–|/)\s*§?[0-9][0-9.]*)?(?:\s+\([^()]*\))?(?:\s+(?:items?|steps?)\s+[0-9]+(?:\s+and\s+[0-9]+)?)?)+)};
		s{${f}dpu-side-tmfifo(?:\.md)?`?$run}{my $s = $1; $s =~ s/§([0-9])/§D$1/g; "hardware-notes" . $s}ge;
		s{${f}rshim-host-interface(?:\.md)?`?(\s*§)}{hardware-notes$1}g;
		s{${f}dpu-side-tmfifo(?:\.md)?`?}{doc/hardware-notes.md (DPU side)}g;
		s{${f}rshim-host-interface(?:\.md)?`?}{doc/hardware-notes.md}g;
		s{(^|[^a-z])reference (§)}{$1hardware-notes $2}g;
		s{\bdpu-side §([0-9])}{§D$1}g;
	' "${files[@]}"
	echo "$prog: rewrote citations in ${#files[@]} file(s); review with git diff"
}

[ $fix -eq 1 ] && rsh_fix

found=0
for p in "${patterns[@]}"; do
	if git grep --untracked -nE "$p" -- "${excludes[@]}"; then found=1; fi
done
for p in "${ppatterns[@]}"; do
	if git grep --untracked -nP "$p" -- "${excludes[@]}"; then found=1; fi
done
for p in "${ipatterns[@]}"; do
	if git grep --untracked -niE "$p" -- "${excludes[@]}"; then found=1; fi
done
# Every section cited (hardware-notes §N.M, a bare §N.M, or §DN.M) exists
# in doc/hardware-notes.md; "§2.5.4" may name a step of §2.5.
notes=doc/hardware-notes.md
if [ -f "$notes" ]; then
	missing=$(git grep --untracked -noE '§D?[0-9]+(\.[0-9]+)*' -- "${excludes[@]}" |
		perl -e '
			open(my $n, "<", $ARGV[0]) or die "$ARGV[0]: $!\n";
			my %head;
			while (<$n>) { $head{$1} = 1 if /^#{2,3} (D?[0-9]+(?:\.[0-9]+)?)\.? / }
			while (<STDIN>) {
				chomp;
				my ($loc, $ref) = /^(.*?:[0-9]+):§(.*)$/ or next;
				(my $sec = $ref) =~ s/^(D?[0-9]+\.[0-9]+)\.[0-9.]+$/$1/;
				print "$loc: §$ref is not a section of $ARGV[0]\n" unless $head{$sec};
			}' "$notes")
	if [ -n "$missing" ]; then
		echo "$missing"
		found=1
	fi
fi
if [ $found -eq 1 ]; then
	echo "$prog: the lines above cite files outside the repository or tracker" \
		"numbers, or name missing sections; cite doc/hardware-notes.md (hardware-notes §N.M, §DN.M) or" \
		"state the fact itself (--fix rewrites the mechanical cases)" >&2
	exit 1
fi
echo "$prog: no citations of files outside the repository"
