#!/bin/bash
# data/fetch-ud.sh without network: a local archive shaped like a UD repository (through
# QKV_FETCH_UD_URL) is unpacked into DIR; bad names and a missing archive fail with a message.
set -u
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/UD_Test-Tiny-r2.15"
cp tests/data/files/basic.conllu "$tmp/src/UD_Test-Tiny-r2.15/xx_tiny-ud-train.conllu"
cp tests/data/files/multiword.conllu "$tmp/src/UD_Test-Tiny-r2.15/xx_tiny-ud-dev.conllu"
echo "license" >"$tmp/src/UD_Test-Tiny-r2.15/LICENSE.txt"
tar -czf "$tmp/tb.tar.gz" -C "$tmp/src" UD_Test-Tiny-r2.15

out=$(QKV_FETCH_UD_URL="file://$tmp/tb.tar.gz" data/fetch-ud.sh UD_Test-Tiny "$tmp/out" r2.15 2>"$tmp/err") ||
    { cat "$tmp/err"; fail "fetch exited $?"; }
cmp -s tests/data/files/basic.conllu "$tmp/out/xx_tiny-ud-train.conllu" || fail "train file not copied"
cmp -s tests/data/files/multiword.conllu "$tmp/out/xx_tiny-ud-dev.conllu" || fail "dev file not copied"
[ -f "$tmp/out/LICENSE.txt" ] || fail "LICENSE.txt not copied"
grep -qx "$tmp/out/xx_tiny-ud-train.conllu" <<<"$out" || fail "file list: $out"

data/fetch-ud.sh 'UD_x;rm' "$tmp/o2" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "is not a UD treebank name" "$tmp/err" || fail "bad name: rc $rc"
QKV_FETCH_UD_URL="file://$tmp/missing.tar.gz" data/fetch-ud.sh UD_Test-Tiny "$tmp/o3" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "download failed" "$tmp/err" || fail "missing archive: rc $rc"
[ ! -e "$tmp/o3" ] || fail "a failed download created the destination"
echo "not an archive" >"$tmp/bad.tar.gz"
QKV_FETCH_UD_URL="file://$tmp/bad.tar.gz" data/fetch-ud.sh UD_Test-Tiny "$tmp/o4" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "not a valid .tar.gz" "$tmp/err" || fail "bad archive: rc $rc"
data/fetch-ud.sh >/dev/null 2>&1; [ $? -eq 2 ] || fail "usage: expected exit 2"
echo ok
