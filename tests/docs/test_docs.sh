#!/bin/bash
# Every figure with a percent sign or a ratio (95.19%, 1.27x, 2 × 1) in README.md and the guides
# (docs/guide/*.md) appears, spelled the same, in some results file (docs/results/*.md), which
# holds the command, commit, date and machine it was measured with. A figure that is not there
# is a claim without its measurement.
set -u
cd "${QKV_SOURCE_DIR:-$(dirname "$0")/../..}" || exit 1

# The figures of a Markdown file, one a line: a number (digits, '.', ',', a range with '-' or
# an en dash) followed by '%', 'x' (not part of a word) or '×'.
figures() {
    perl -CSD -ne 'while (/(?<![\w.,])(\d[\d.,]*(?:[-\x{2013}]\d[\d.,]*)?)(%|x(?![\w])|\x{00d7})/g) {
        my $f = "$1$2"; $f =~ s/[.,]+(?=[%x\x{00d7}]$)//; print "$f\n" }' "$1"
}

# Prints "FILE: FIGURE" for each figure of FILE that no results file holds; fails if any.
check() {
    local file=$1 status=0 fig
    while IFS= read -r fig; do
        grep -qrF --include='*.md' -- "$fig" docs/results/ || { echo "$file: $fig"; status=1; }
    done < <(figures "$file")
    return $status
}

# The check must be able to fail: a figure measured nowhere is reported.
tmp=$(mktemp) && trap 'rm -f "$tmp"' EXIT
printf 'It reaches 12.3456%% and 9.8765x.\n' >"$tmp"
out=$(check "$tmp") && { echo "FAIL: the check accepts figures no results file holds"; exit 1; }
[ "$(echo "$out" | wc -l)" -eq 2 ] || { echo "FAIL: expected two unmatched figures, got: $out"; exit 1; }
[ "$(figures README.md | wc -l)" -gt 0 ] || { echo "FAIL: no figure found in README.md"; exit 1; }

status=0
for f in README.md docs/guide/*.md; do
    check "$f" || status=1
done
[ $status -eq 0 ] || echo "FAIL: the figures above appear in no docs/results/*.md file"
exit $status
