#!/bin/sh
# Fuzzes the readers of outside input with libFuzzer, SECONDS (default 60) for each target, one
# target after the other: configures a clang build with -fsanitize=fuzzer,address,undefined in
# build-fuzz/, builds fuzz_<target> and runs it from its seeds tests/data/fuzz_seeds/<target>/
# (new inputs go to a temporary folder, so the seeds stay as committed). The targets are the
# seed folders: conllu, idx, gzip, text, frames, checkpoint, config, http_form, audio (the last
# only in a build with libsndfile); tests/data/fuzz_<target>.c says what each checks.
# Each target's output goes to build-fuzz/fuzz-<target>.log (a regular file, so that the
# targets can check that the readers print nothing), an input that breaks something to
# build-fuzz/<target>-crash-* (or -leak-*, -oom-*, -timeout-*; replay it with
# ./build-fuzz/tests/fuzz_<target> FILE). Exit status 0: no target found anything.
# usage: tests/data/fuzz.sh [SECONDS [TARGET ...]]   (from anywhere; needs clang, e.g. clang-14)
#   FUZZ_JOBS: parallel jobs of the build (default: the number of processors)
#   FUZZ_SEED: libFuzzer's random seed (default 0: a new one each run); CI fixes it, so that a
#              run there can be repeated input for input
set -eu
cd "$(dirname "$0")/../.."
seconds=${1:-60}
case "${FUZZ_SEED:-0}" in *[!0-9]*) echo "fuzz.sh: FUZZ_SEED must be a whole number" >&2; exit 2 ;; esac
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
[ $# -gt 0 ] && shift
targets=${*:-$(cd tests/data/fuzz_seeds && ls -d -- */ | tr -d /)}
for t in $targets; do
    [ -d "tests/data/fuzz_seeds/$t" ] ||
        { echo "fuzz.sh: no target '$t' (no folder tests/data/fuzz_seeds/$t)" >&2; exit 2; }
done
cc=${CC:-}
if [ -z "$cc" ]; then
    for c in clang clang-14 clang-15 clang-16; do
        if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
    done
fi
[ -n "$cc" ] || { echo "fuzz.sh: clang not found (apt-get install clang)" >&2; exit 1; }
# -O1 with assertions: libFuzzer's advice; MPI and oneDNN are no readers.
CC=$cc cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DQKV_FUZZ=ON -DBUILD_TESTING=ON -DQKV_MPI=OFF \
    -DQKV_ONEDNN=OFF >/dev/null
# New inputs and the targets' files in memory when it can (a run of the HDF5 targets writes and
# syncs a file).
tmp=${TMPDIR:-/tmp}
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
work=$(mktemp -d "$tmp/qkv-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
# One thread: the targets run models; the inputs' own files go to the temporary folder.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 TMPDIR="$work"
export ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp"
cmake --build build-fuzz --target help >"$work/targets"
found=""
for t in $targets; do
    if ! grep -q "fuzz_$t\$" "$work/targets"; then
        echo "fuzz.sh: $t: not in this build (audio needs libsndfile), skipped"
        continue
    fi
    cmake --build build-fuzz --target "fuzz_$t" -j "${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}" >/dev/null
    mkdir -p "$work/$t"
    max_len=""
    [ "$t" = gzip ] && max_len=-max_len=70000 # past the reader's 64 KiB input buffer
    log=build-fuzz/fuzz-$t.log
    status=0
    # shellcheck disable=SC2086
    ./build-fuzz/tests/fuzz_$t -max_total_time="$seconds" -timeout=10 -print_final_stats=1 -seed="${FUZZ_SEED:-0}" $max_len \
        -artifact_prefix="build-fuzz/$t-" "$work/$t" "tests/data/fuzz_seeds/$t" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    if [ "$status" -eq 0 ]; then
        echo "fuzz.sh: $t: ${runs:-?} inputs in ${seconds} s, nothing found"
    else
        echo "fuzz.sh: $t: FOUND something (exit $status), the end of $log:"
        tail -40 "$log"
        found="$found $t"
    fi
done
[ -z "$found" ] || { echo "fuzz.sh: found something in:$found" >&2; exit 1; }
