#!/bin/bash
# The man pages the build writes with help2man (train/man/gen_man.sh) say what --help says:
# build/man holds qkv.1 and one qkv-CMD.1 for each command `qkv --help` lists and no other page;
# each renders without a groff warning, names its command with its one-line description, and
# holds every option its `qkv CMD --help` lists; qkv.1 lists every command as an item of its
# own and refers to every command's page; the README's `man -l build/man/...` names a page
# the build writes.
# Skipped when the build found no help2man (it then writes no pages).
. "${QKV_SOURCE_DIR:?}/tests/train/common.sh"
if [ "${QKV_MAN_BUILT:-0}" != 1 ]; then
    echo "skip: this build found no help2man, so it wrote no man pages (apt-get install help2man)"
    exit 77
fi
command -v groff >/dev/null || fail "groff is not installed (help2man's dependencies install it)"
man_dir=${QKV_BUILD_DIR:?}/man

# The text of a page's source with groff's escapes of '-' and fonts removed.
page_text() {
    sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$1"
}

# check_page PAGE DESCRIPTION CMD...: PAGE against `qkv CMD... --help`.
check_page() {
    local page=$1 desc=$2 opt
    shift 2
    [ -f "$page" ] || fail "$page was not written"
    groff -man -Tutf8 -ww -z "$page" 2>"$SCRATCH/groff.err" || fail "groff cannot render $page"
    [ ! -s "$SCRATCH/groff.err" ] || { cat "$SCRATCH/groff.err" >&2; fail "groff warns about $page"; }
    page_text "$page" >"$SCRATCH/page.txt"
    grep -qxF "$(basename "$page" .1) - $desc" "$SCRATCH/page.txt" ||
        fail "$page: its NAME is not '$(basename "$page" .1) - $desc'"
    grep -qx '\.SH SYNOPSIS' "$SCRATCH/page.txt" || fail "$page has no SYNOPSIS"
    "$QKV_BIN" "$@" --help >"$SCRATCH/help.txt"
    grep -oE '^ +--[a-z][a-z0-9-]*' "$SCRATCH/help.txt" | tr -d ' ' | sort -u >"$SCRATCH/options"
    while read -r opt; do
        grep -qF -- "$opt" "$SCRATCH/page.txt" || fail "$page lacks $opt, which '$* --help' lists"
    done <"$SCRATCH/options"
    wc -l <"$SCRATCH/options"
}

"$QKV_BIN" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print }' >"$SCRATCH/commands"
[ "$(wc -l <"$SCRATCH/commands")" -ge 10 ] || fail "expected at least 10 commands in qkv --help"
summary=$("$QKV_BIN" --help | sed -n 's/^qkv \(.*\)\.$/\1/p' | head -1)
check_page "$man_dir/qkv.1" "$summary" >/dev/null
# qkv.1 lists every command as an item of its own (.TP, the name, the description): help2man
# makes an item of a line only where two spaces part the name from its description.
page_text "$man_dir/qkv.1" | awk 'line == 2 { print name " " $0; line = 0; next }
    line == 1 { name = $0; line = 2; next }
    $0 == ".TP" { line = 1 }' >"$SCRATCH/items"
awk '{ $1 = $1; print }' "$SCRATCH/commands" | diff - "$SCRATCH/items" >&2 ||
    fail "qkv.1 does not list each command of qkv --help as an item of its own"
options=0
echo qkv.1 >"$SCRATCH/expected"
while read -r cmd desc; do
    n=$(check_page "$man_dir/qkv-$cmd.1" "$desc" "$cmd")
    options=$((options + n))
    grep -qF ".BR qkv-$cmd (1)" "$man_dir/qkv.1" || fail "qkv.1 does not refer to qkv-$cmd(1)"
    echo "qkv-$cmd.1" >>"$SCRATCH/expected"
done <"$SCRATCH/commands"
[ "$options" -ge 40 ] || fail "only $options options found in the commands' --help"
(cd "$man_dir" && ls -- *.1) | sort >"$SCRATCH/pages"
sort -o "$SCRATCH/expected" "$SCRATCH/expected"
diff "$SCRATCH/expected" "$SCRATCH/pages" >&2 || fail "$man_dir does not hold exactly the pages of qkv --help"
# the README tells how to read a page before installing: man -l on a page the build writes
readme_page=$(grep -o 'man -l build/man/[a-z0-9-]*\.1' README.md | head -1)
[ -n "$readme_page" ] || fail "README.md does not say how to read a page of build/man (man -l)"
[ -f "$man_dir/$(basename "$readme_page")" ] || fail "README.md: '$readme_page': the build writes no such page"
if command -v man >/dev/null; then
    man -l "$man_dir/qkv-train.1" 2>/dev/null | grep -q -- '--resume' || fail "man -l qkv-train.1"
fi
echo "ok: $(wc -l <"$SCRATCH/pages") man pages, $options options of the commands' --help in them"
