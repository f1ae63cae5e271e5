#!/bin/bash
# docs/reference/commands.md's generated sections are what tests/docs/gen_commands.sh writes
# from the current `qkv --help` and `qkv CMD --help` (the commands' option tables): the
# committed file is regenerated in a scratch copy and must not change.
. "${QKV_SOURCE_DIR:?}/tests/train/common.sh"
doc=docs/reference/commands.md
cp "$doc" "$SCRATCH/commands.md"
tests/docs/gen_commands.sh "$QKV_BIN" "$SCRATCH/commands.md" || fail "tests/docs/gen_commands.sh"
diff -u "$doc" "$SCRATCH/commands.md" >&2 ||
    fail "$doc is not the output of tests/docs/gen_commands.sh: run it (build/qkv) and commit the file"
# the check can fail: a stale option list is rewritten
grep -q '^  --budget TOKENS' "$doc" || fail "$doc has no line of 'qkv stats --help' (--budget)"
grep -v '^  --budget TOKENS' "$doc" >"$SCRATCH/stale.md"
tests/docs/gen_commands.sh "$QKV_BIN" "$SCRATCH/stale.md" || fail "tests/docs/gen_commands.sh on a stale copy"
cmp -s "$doc" "$SCRATCH/stale.md" || fail "gen_commands.sh does not restore a removed option line"
# every command of qkv --help has its section
"$QKV_BIN" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' >"$SCRATCH/commands"
[ "$(wc -l <"$SCRATCH/commands")" -ge 10 ] || fail "expected at least 10 commands in qkv --help"
while read -r cmd; do
    grep -qx "### qkv $cmd" "$doc" || fail "$doc has no section 'qkv $cmd'"
    grep -qF "(#qkv-$cmd)" "$doc" || fail "the table of $doc does not link to qkv $cmd"
done <"$SCRATCH/commands"
echo "ok: $doc holds the --help of $(wc -l <"$SCRATCH/commands") commands as qkv prints it"
