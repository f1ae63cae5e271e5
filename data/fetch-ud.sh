#!/bin/sh
# Downloads one Universal Dependencies treebank from its official GitHub repository
# (github.com/UniversalDependencies/<TREEBANK>) and puts its .conllu files, README and LICENSE
# into DIR.
#
# usage: data/fetch-ud.sh TREEBANK DIR [REF]
#   TREEBANK  repository name, e.g. UD_English-EWT, UD_French-GSD, UD_German-HDT
#   DIR       destination folder (created if missing); existing files are replaced
#   REF       a release tag such as r2.15, or a branch (default: master, the latest release)
# example: data/fetch-ud.sh UD_English-EWT ~/data/ud_english_ewt r2.15
#          export QKV_EWT_DIR=~/data/ud_english_ewt
#
# Needs curl or wget, and tar with gzip. Exit status 0 on success, 1 on any failure (with a
# message saying what failed), 2 on a usage error. QKV_FETCH_UD_URL, if set, replaces the
# download URL (for tests).
set -eu

die() { echo "fetch-ud.sh: $*" >&2; exit 1; }
usage() { awk 'NR >= 5 && !/^#/ { exit } NR >= 5 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }

if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
case "$1" in -h|--help) usage ;; esac
treebank=$1
dir=$2
ref=${3:-master}

# Names look like UD_<Language>-<Name>; anything else is refused before any download.
echo "$treebank" | grep -Eq '^UD_[A-Za-z_]+-[A-Za-z0-9]+$' ||
    die "'$treebank' is not a UD treebank name (expected e.g. UD_English-EWT)"
echo "$ref" | grep -Eq '^[A-Za-z0-9._/-]+$' || die "'$ref' is not a valid tag or branch name"

case "$ref" in
    r[0-9]*) kind=tags ;;
    *) kind=heads ;;
esac
url="https://github.com/UniversalDependencies/$treebank/archive/refs/$kind/$ref.tar.gz"
# For tests only: QKV_FETCH_UD_URL replaces the URL (e.g. a file:// archive).
url=${QKV_FETCH_UD_URL:-$url}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetch-ud.XXXXXX") || die "cannot create a temporary folder"
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "fetch-ud.sh: downloading $url" >&2
if command -v curl >/dev/null 2>&1; then
    curl -fL --retry 3 --connect-timeout 30 -o "$tmp/tb.tar.gz" "$url" ||
        die "download failed (curl exit $?): check the treebank name, the tag '$ref' and your network"
elif command -v wget >/dev/null 2>&1; then
    wget -q --tries=3 --timeout=30 -O "$tmp/tb.tar.gz" "$url" ||
        die "download failed (wget exit $?): check the treebank name, the tag '$ref' and your network"
else
    die "neither curl nor wget is installed (apt-get install curl)"
fi

mkdir "$tmp/x"
tar -xzf "$tmp/tb.tar.gz" -C "$tmp/x" || die "the download is not a valid .tar.gz archive"
found=$(find "$tmp/x" -maxdepth 2 -type f -name '*.conllu' | sort)
[ -n "$found" ] || die "no .conllu file at the top of $treebank ($ref); try a release tag such as r2.15"

mkdir -p "$dir" || die "cannot create $dir"
echo "$found" | while IFS= read -r f; do
    cp "$f" "$dir/" || die "cannot copy $(basename "$f") into $dir"
    echo "$dir/$(basename "$f")"
done
for f in README.md README.txt LICENSE.txt; do
    src=$(find "$tmp/x" -maxdepth 2 -type f -name "$f" | head -n 1)
    [ -z "$src" ] || cp "$src" "$dir/" || die "cannot copy $f into $dir"
done
echo "fetch-ud.sh: $treebank ($ref) is in $dir; check it with: qkv stats FILE" >&2
