#!/bin/sh
# Downloads the WNUT 2017 emerging-entities corpus (Derczynski et al. 2017; the shared task's
# repository github.com/leondz/emerging_entities_17) into DIR: wnut17train.conll,
# emerging.dev.conll and emerging.test.annotated, FORM<TAB>TAG columns in BIO with six types.
#
# usage: data/fetch-wnut17.sh DIR
#   DIR  destination folder (created if missing); existing files of these names are replaced
# example: data/fetch-wnut17.sh ~/data/wnut17
#          export QKV_WNUT17_DIR=~/data/wnut17
#
# Needs curl or wget. Nothing lands in DIR unless all three files arrive. Exit status 0 on
# success, 1 on any failure (with a message saying what failed), 2 on a usage error.
# QKV_FETCH_WNUT17_URL, if set, replaces the base URL the file names are appended to (tests).
set -eu

die() { echo "fetch-wnut17.sh: $*" >&2; exit 1; }
usage() { awk 'NR >= 6 && !/^#/ { exit } NR >= 6 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }

if [ $# -ne 1 ]; then usage; fi
case "$1" in -h|--help|-*) usage ;; esac
dir=$1
base=${QKV_FETCH_WNUT17_URL:-https://raw.githubusercontent.com/leondz/emerging_entities_17/master}
files="wnut17train.conll emerging.dev.conll emerging.test.annotated"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetch-wnut17.XXXXXX") || die "cannot create a temporary folder"
trap 'rm -rf "$tmp"' EXIT INT TERM

for f in $files; do
    url="$base/$f"
    echo "fetch-wnut17.sh: downloading $url" >&2
    if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 3 --connect-timeout 30 -o "$tmp/$f" "$url" ||
            die "download of $f failed (curl exit $?): check your network"
    elif command -v wget >/dev/null 2>&1; then
        wget -q --tries=3 --timeout=30 -O "$tmp/$f" "$url" || die "download of $f failed (wget exit $?): check your network"
    else
        die "neither curl nor wget is installed (apt-get install curl)"
    fi
    # a column file: some line holds a TAB (an HTML error page does not)
    grep -q "$(printf '\t')" "$tmp/$f" || die "$f is not a FORM<TAB>TAG column file (no TAB in it)"
done

mkdir -p "$dir" || die "cannot create $dir"
for f in $files; do
    cp "$tmp/$f" "$dir/$f" || die "cannot copy $f into $dir"
    echo "$dir/$f"
done
echo "fetch-wnut17.sh: WNUT 2017 is in $dir; check it with: qkv stats $dir/wnut17train.conll" >&2
