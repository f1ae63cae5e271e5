#!/bin/sh
# Fuzzes the corpus reader with libFuzzer for a number of seconds (default 60): configures a
# clang build with -fsanitize=fuzzer,address,undefined in build-fuzz/, builds fuzz_conllu and
# runs it from the seed corpus tests/data/fuzz_seeds/ (new inputs go to a temporary folder, so
# the seeds stay as committed). Exit status 0: no crash, no leak, no broken property.
# usage: tests/data/fuzz.sh [SECONDS]     (from anywhere; needs clang, e.g. clang-14)
set -eu
cd "$(dirname "$0")/../.."
seconds=${1:-60}
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
cc=${CC:-}
if [ -z "$cc" ]; then
    for c in clang clang-14 clang-15 clang-16; do
        if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
    done
fi
[ -n "$cc" ] || { echo "fuzz.sh: clang not found (apt-get install clang)" >&2; exit 1; }
CC=$cc cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DQKV_FUZZ=ON >/dev/null
cmake --build build-fuzz --target fuzz_conllu -j "$(nproc 2>/dev/null || echo 2)"
work=$(mktemp -d "${TMPDIR:-/tmp}/qkv-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
ASAN_OPTIONS=detect_leaks=1 ./build-fuzz/tests/fuzz_conllu -max_total_time="$seconds" -max_len=4096 \
    -timeout=10 -print_final_stats=1 -artifact_prefix=build-fuzz/ "$work" tests/data/fuzz_seeds
