#!/bin/bash
# data/fetch-wnut17.sh without network: local files (through QKV_FETCH_WNUT17_URL) are copied into
# DIR; a missing file or a file that is no column file fails with a message and leaves DIR absent.
set -u
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
for f in wnut17train.conll emerging.dev.conll emerging.test.annotated; do
    cp tests/data/files/wnut_like.conll "$tmp/src/$f"
done
out=$(QKV_FETCH_WNUT17_URL="file://$tmp/src" data/fetch-wnut17.sh "$tmp/out" 2>"$tmp/err") ||
    { cat "$tmp/err"; fail "fetch exited $?"; }
for f in wnut17train.conll emerging.dev.conll emerging.test.annotated; do
    cmp -s tests/data/files/wnut_like.conll "$tmp/out/$f" || fail "$f not copied"
    grep -qx "$tmp/out/$f" <<<"$out" || fail "file list: $out"
done

rm "$tmp/src/emerging.dev.conll"
QKV_FETCH_WNUT17_URL="file://$tmp/src" data/fetch-wnut17.sh "$tmp/o2" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "download of emerging.dev.conll failed" "$tmp/err" || { cat "$tmp/err"; fail "missing file: rc $rc"; }
[ ! -e "$tmp/o2" ] || fail "a failed download created the destination"
echo "<html>404</html>" >"$tmp/src/emerging.dev.conll"
QKV_FETCH_WNUT17_URL="file://$tmp/src" data/fetch-wnut17.sh "$tmp/o3" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "emerging.dev.conll is not a FORM<TAB>TAG column file" "$tmp/err" || fail "not columns: rc $rc"
[ ! -e "$tmp/o3" ] || fail "a bad download created the destination"
data/fetch-wnut17.sh >/dev/null 2>&1; [ $? -eq 2 ] || fail "no DIR: expected exit 2"
data/fetch-wnut17.sh a b >/dev/null 2>&1; [ $? -eq 2 ] || fail "two arguments: expected exit 2"
data/fetch-wnut17.sh --help 2>&1 | grep -q "usage: data/fetch-wnut17.sh DIR" || fail "--help"
echo ok
