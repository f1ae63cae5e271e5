#!/bin/sh
# Writes the man pages of qkv into OUT_DIR with help2man: qkv.1 from `qkv --help` and
# qkv-CMD.1 from `qkv CMD --help` for every command `qkv --help` lists (so the pages come from
# the same command and option tables as --help), each with a SEE ALSO section.
#   gen_man.sh QKV_BIN OUT_DIR
# (`gen_man.sh --help-of QKV_BIN [CMD] ARGS...` is the program help2man runs for one page: the
# help with its usage lines joined and spelled "Usage:", which help2man reads as the SYNOPSIS.)
set -eu
if [ "$1" = --help-of ]; then
    qkv=$2
    shift 2
    "$qkv" "$@" | awk 'NR == 1 { sub(/^usage:/, "Usage:"); line = $0; joining = 1; next }
        joining && /^[ \t]+[^ \t]/ { sub(/^[ \t]+/, " "); line = line $0; next }
        joining { print line; joining = 0 }
        { print }
        END { if (joining) print line }'
    exit 0
fi
qkv=$1
out=$2
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
version=$("$qkv" --version | cut -d' ' -f2)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
rm -f "$out"/*.1   # a page of a command that is gone does not stay
# the commands and their one-line descriptions, as `qkv --help` lists them
"$qkv" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print }' >"$tmp/commands"
[ -s "$tmp/commands" ] || { echo "gen_man.sh: no commands in '$qkv --help'" >&2; exit 1; }

# page NAME DESCRIPTION INCLUDE [CMD]: help2man on a wrapper named NAME (the page's name)
page() {
    name=$1 desc=$2 include=$3
    shift 3
    printf '#!/bin/sh\nexec sh "%s" --help-of "%s" %s "$@"\n' "$self" "$qkv" "$*" >"$tmp/$name"
    chmod +x "$tmp/$name"
    "${HELP2MAN:-help2man}" --no-info --version-string="$version" --name="$desc" --section=1 \
        --source="qkv $version" --manual="qkv manual" --include="$include" \
        --output="$out/$name.1" "$tmp/$name"
}

{
    printf '[SEE ALSO]\n'
    awk '{ printf "%s.BR qkv-%s (1)", (NR > 1 ? ",\n" : ""), $1 } END { print "" }' "$tmp/commands"
} >"$tmp/qkv.h2m"
summary=$("$qkv" --help | awk 'NR > 1 && /^qkv / { sub(/^qkv /, ""); sub(/\.$/, ""); print; exit }')
page qkv "$summary" "$tmp/qkv.h2m"

printf '[SEE ALSO]\n.BR qkv (1)\n' >"$tmp/cmd.h2m"
while read -r cmd desc; do
    page "qkv-$cmd" "$desc" "$tmp/cmd.h2m" "$cmd"
done <"$tmp/commands"
