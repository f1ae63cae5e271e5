#!/bin/bash
# The C functions longer than LIMIT lines (default 80), longest first, by the line and end
# fields of Universal Ctags: "LINES FILE:LINE NAME". Usage: tests/regress/long_functions.sh
# [LIMIT] [DIR...] (default: train api), from the repository's root.
set -eu
limit=${1:-80}
[ $# -gt 0 ] && shift
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(train api)
find "${dirs[@]}" -name '*.c' | sort | xargs ctags --fields=+ne --c-kinds=f -o - |
    awk -v L="$limit" -F'\t' '{
        line = ""; end = ""
        for (i = 4; i <= NF; i++) {
            if ($i ~ /^line:/) line = substr($i, 6)
            if ($i ~ /^end:/) end = substr($i, 5)
        }
        n = end - line + 1
        if (n > L) printf "%4d %s:%s %s\n", n, $2, line, $1
    }' | sort -rn
