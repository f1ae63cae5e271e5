#!/bin/bash
# The commands of the README and the guides, run from the project root, write nothing into it:
# every --out, --confusion and --logits of a qkv command in a ```sh block names a file under a
# folder (runs/... ), and no qkv attention, positions or parse-draw there goes without --out
# (their default is a file in the current folder: attention.png, positions.png, tree.svg).
set -u
ROOT=${QKV_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
bad=0
for doc in README.md docs/guide/*.md; do
    # the commands of the sh blocks, continuation lines joined, as FILE:LINE: COMMAND
    awk -v f="$doc" '/^```sh/ { on = 1; next } /^```/ { on = 0; next }
        on { if (cont) { cmd = cmd " " $0 } else { cmd = $0; line = FNR }
             cont = sub(/\\$/, "", cmd); if (!cont) print f ":" line ": " cmd }' "$doc" |
        grep -E 'qkv (plot|attention|positions|parse-draw|eval|export|speech) ' >"${TMPDIR:-/tmp}/cmds.$$"
    while IFS= read -r c; do
        for opt in --out --confusion --logits; do
            value=$(sed -nE "s/.* $opt ([^ ]+).*/\\1/p" <<<"$c")
            if [ -n "$value" ] && [[ $value != */* ]]; then
                echo "$c: $opt $value writes into the project root" >&2
                bad=1
            fi
        done
        if [[ $c =~ qkv\ (attention|positions|parse-draw)\  ]] && [[ $c != *" --out "* ]]; then
            echo "$c: writes its default file into the project root (give --out)" >&2
            bad=1
        fi
    done <"${TMPDIR:-/tmp}/cmds.$$"
    rm -f "${TMPDIR:-/tmp}/cmds.$$"
done
[ "$bad" = 0 ] || { echo "FAIL: guide commands that write into the project root" >&2; exit 1; }
echo "ok: no command of the README or the guides writes into the project root"
