#!/bin/bash
# Runs the command blocks of the documentation that are marked runnable: a ```sh block right
# after a line
#   <!-- runnable -->          a few seconds on the shipped sample
#   <!-- runnable: long -->    longer (a whole training of the quick start)
# Each Markdown file's blocks run in order, each with bash -e -o pipefail, in a fresh work
# folder holding a copy of configs/ and data/ and build/qkv (QKV_BIN), so that a block runs as
# written from the project root and later blocks see what earlier ones wrote; install-deps.sh
# and cmake are no-ops there (the build under test stands for what they would do).
#   tests/docs/run_blocks.sh [--full] [MARKDOWN_FILE...]    # default: README.md and docs/**/*.md
# Without --full (as tests/docs/test_runnable.sh runs it in ctest), every `qkv train` gets
# --set train.max_steps=$QKV_DOCS_MAX_STEPS (default 20), so that the long blocks take seconds
# and the blocks after them have their run folders; with --full every block runs as written.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
full=0
if [ "${1:-}" = --full ]; then full=1; shift; fi
qkv=${QKV_BIN:-$root/build/qkv}
qkv=$(cd "$(dirname "$qkv")" && pwd)/$(basename "$qkv")
[ -x "$qkv" ] || { echo "run_blocks.sh: no qkv at $qkv (build first, or set QKV_BIN)" >&2; exit 1; }
if [ $# -eq 0 ]; then
    mapfile -t docs < <(find docs -name '*.md' | sort)
    set -- README.md "${docs[@]}"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# blocks FILE DIR: writes each runnable block of FILE as DIR/NNN.KIND.sh (KIND short or long);
# a marker not followed by a ```sh block is an error.
blocks() {
    awk -v dir="$2" -v file="$1" '
        function bad(msg) { printf "%s:%d: %s\n", file, NR, msg > "/dev/stderr"; err = 1; exit 1 }
        inblock && /^```/ { inblock = 0; close(out); next }
        inblock { print > out; next }
        want { if ($0 != "```sh") bad("a runnable marker must be followed by a ```sh block")
               inblock = 1; want = 0; n++; out = sprintf("%s/%03d.%s.sh", dir, n, kind); printf "" > out; next }
        $0 == "<!-- runnable -->" { want = 1; kind = "short"; line = NR; next }
        $0 == "<!-- runnable: long -->" { want = 1; kind = "long"; line = NR; next }
        /^<!-- runnable/ { bad("unknown marker (<!-- runnable --> or <!-- runnable: long -->)") }
        END { if (err) exit 1; if (want || inblock) bad("a runnable block is not closed") }' "$1"
}

# workdir DIR: the copy of the project a file's blocks run in.
workdir() {
    mkdir -p "$1/build" "$1/.stubs"
    cp -r "$root/configs" "$root/data" "$1/"
    if [ $full = 1 ]; then
        ln -s "$qkv" "$1/build/qkv"
    else
        # shellcheck disable=SC2016 # the wrapper's own "$@"
        printf '#!/bin/bash\nif [ "${1:-}" = train ]; then exec "%s" "$@" --set train.max_steps=%s; fi\nexec "%s" "$@"\n' \
            "$qkv" "${QKV_DOCS_MAX_STEPS:-20}" "$qkv" >"$1/build/qkv"
        chmod +x "$1/build/qkv"
    fi
    [ ! -e "$(dirname "$qkv")/qkv-gradcheck" ] || ln -s "$(dirname "$qkv")/qkv-gradcheck" "$1/build/qkv-gradcheck"
    printf '#!/bin/sh\nexit 0\n' >"$1/install-deps.sh"
    printf '#!/bin/sh\nexit 0\n' >"$1/.stubs/cmake"
    chmod +x "$1/install-deps.sh" "$1/.stubs/cmake"
}

status=0 total=0
for md in "$@"; do
    name=$(echo "$md" | tr / _)
    mkdir -p "$tmp/$name.blocks"
    blocks "$md" "$tmp/$name.blocks" || { status=1; continue; }
    [ -n "$(ls "$tmp/$name.blocks")" ] || continue
    work=$tmp/$name.work
    workdir "$work"
    for block in "$tmp/$name.blocks"/*.sh; do
        total=$((total + 1))
        start=$SECONDS
        if (cd "$work" && PATH=$work/.stubs:$PATH bash -e -o pipefail "$block") >"$block.log" 2>&1; then
            echo "ok   $md block $(basename "$block" .sh) ($((SECONDS - start)) s)"
        else
            echo "FAIL $md block $(basename "$block" .sh):" >&2
            sed 's/^/    $ /' "$block" >&2
            tail -20 "$block.log" >&2
            status=1
        fi
    done
done
[ $total -gt 0 ] || { echo "run_blocks.sh: no runnable block in $*" >&2; exit 1; }
exit $status
