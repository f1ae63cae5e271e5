#!/bin/bash
# Every repository path that a comment in the sources or a Markdown document names exists.
# Usage: tests/repo/test_paths.sh [ROOT]  (ROOT: the repository; default: this script's).
#
# Read: the comments of lib/ data/ models/ api/ train/ include/ python/ tests/ configs/
# examples/ (/* */ and // in .c and .h files, # in shell, YAML, CMake and gnuplot files), the
# whole text of Python files (docstrings and comments) and of every .md file.
# A repository path is a word that begins with a top-level folder of the repository and a '/'
# (after a space, quote, bracket or the start of the line, not after another path component or
# a $VARIABLE/), made of letters, digits and _ . / - + * { } , characters, that ends in '/' or
# whose last component has an extension (a '.' then letters or digits): `lib/tensor.h`,
# `tests/lib/`; and an upper-case Markdown name alone (README.md) is a top-level document.
# Run outputs (runs/, checkpoints/...) and build trees (build/) do not begin
# with a top-level source folder and are not checked. {a,b} groups are expanded (the path
# exists for each alternative) and a path with * must match at least one file.
# Each missing path is printed as FILE:LINE: PATH; the test fails when there is one.
set -u
ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
TOP='lib|data|models|api|train|include|python|tests|configs|examples|docs'

sources() {
    find lib data models api train include python tests configs examples \
        -type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.yaml' -o -name '*.yml' \
        -o -name 'CMakeLists.txt' -o -name '*.cmake' -o -name '*.gp' -o -name '*.md' \) 2>/dev/null
    find . -maxdepth 1 -type f \( -name '*.md' -o -name 'CMakeLists.txt' -o -name '*.sh' \)
    [ -d docs ] && find docs -type f -name '*.md'
}

# Prints FILE<TAB>LINE<TAB>TEXT for the comment text (all of it in .md and .py) of each line.
comments() {
    awk '
    FNR == 1 {
        mode = FILENAME ~ /\.[ch]$/ ? "c" : FILENAME ~ /\.(md|py)$/ ? "all" : "hash"
        in_block = 0
    }
    mode == "all" { print FILENAME "\t" FNR "\t" $0; next }
    mode == "hash" {
        if (match($0, /(^|[ \t])#/)) print FILENAME "\t" FNR "\t" substr($0, RSTART)
        next
    }
    {   # C: a small scanner for /* */, // and the string and character literals to skip.
        out = ""; n = length($0); i = 1; quote = ""
        while (i <= n) {
            c = substr($0, i, 1); two = substr($0, i, 2)
            if (in_block) {
                if (two == "*/") { in_block = 0; i += 2; out = out " "; continue }
                out = out c; i++; continue
            }
            if (quote != "") {
                if (c == "\\") { i += 2; continue }
                if (c == quote) quote = ""
                i++; continue
            }
            if (two == "/*") { in_block = 1; i += 2; continue }
            if (two == "//") { out = out " " substr($0, i + 2); break }
            if (c == "\"" || c == "'\''") quote = c
            i++
        }
        if (out != "") print FILENAME "\t" FNR "\t" out
    }' "$@"
}

# Prints FILE:LINE<TAB>PATH for every repository path in the comment text.
paths() {
    awk -F'\t' -v top="$TOP" '
    {
        text = $3; where = $1 ":" $2
        re = "(^|[^A-Za-z0-9_./~$-])(" top ")/[A-Za-z0-9_./{},*+-]*"
        while (match(text, re)) {
            p = substr(text, RSTART, RLENGTH); text = substr(text, RSTART + RLENGTH)
            if (p !~ "^(" top ")/") p = substr(p, 2)
            sub(/[.,]+$/, "", p) # sentence punctuation after the path
            if (gsub(/{/, "{", p) < gsub(/}/, "}", p)) sub(/}[.,]*$/, "", p) # "(see {lib/tensor.h})"
            last = p; sub(/.*\//, "", last)
            if (p ~ /\/$/ || last ~ /\.[A-Za-z0-9]+$/ || last ~ /\.[A-Za-z0-9]*{[A-Za-z0-9,]+}$/) print where "\t" p
        }
        text = $3 # a top-level document named alone (README.md)
        while (match(text, /(^|[^A-Za-z0-9_.\/-])[A-Z][A-Z_-]*\.md/)) {
            p = substr(text, RSTART, RLENGTH); text = substr(text, RSTART + RLENGTH)
            if (p !~ /^[A-Z]/) p = substr(p, 2)
            if (text !~ /^[A-Za-z0-9_]/) print where "\t" p
        }
    }'
}

# Expands the first {a,b,...} group of $1 (recursively); prints one path a line.
expand() {
    local p=$1
    if [[ $p =~ ^([^{]*)\{([^}]*)\}(.*)$ ]]; then
        local head=${BASH_REMATCH[1]} alts=${BASH_REMATCH[2]} tail=${BASH_REMATCH[3]} a
        IFS=, read -r -a list <<<"$alts"
        for a in "${list[@]}"; do expand "$head$a$tail"; done
    else
        printf '%s\n' "$p"
    fi
}

mapfile -t files < <(sources | sed 's|^\./||' | sort -u)
missing=0 checked=0
while IFS=$'\t' read -r where p; do
    while read -r one; do
        checked=$((checked + 1))
        if [[ $one == *'*'* ]]; then
            compgen -G "$one" >/dev/null && continue
        elif [ -e "$one" ]; then
            continue
        fi
        echo "$where: $one does not exist"
        missing=$((missing + 1))
    done < <(expand "$p")
done < <(comments "${files[@]}" | paths)
echo "$checked repository paths named in comments and documents, $missing missing"
[ "$checked" -gt 0 ] && [ "$missing" -eq 0 ]
