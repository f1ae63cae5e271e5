#!/bin/sh
# Builds qkv twice (release, and AddressSanitizer + UndefinedBehaviorSanitizer), each with its
# test programs (-DBUILD_TESTING=ON: a plain configure has none), and runs the whole test suite
# under ctest in both. Usage: tests/run.sh  (from anywhere)
# Tests that need a whole corpus run when its folder is set (QKV_EWT_DIR=/path/to/ud_english_ewt,
# QKV_WNUT17_DIR=/path/to/wnut17);
# otherwise ctest lists them as skipped, and the reason of each is printed after its summary.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

# The "skipped: REASON" line each skipped test printed, from ctest's log of the last run.
skip_reasons() {
    awk '/^[0-9]+\/[0-9]+ Test: / { name = $3 }
         /^skipped: / { sub(/^skipped: /, ""); print "skipped " name ": " $0 }' "$1/Testing/Temporary/LastTest.log"
}
# ctest in build folder $1 (extra arguments: environment), then the skip reasons.
run_ctest() {
    dir=$1
    shift
    status=0
    env "$@" ctest --test-dir "$dir" --output-on-failure -j "$jobs" || status=$?
    skip_reasons "$dir"
    return $status
}

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null
cmake --build build -j "$jobs"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQKV_SANITIZE=ON -DBUILD_TESTING=ON >/dev/null
cmake --build build-asan -j "$jobs"
echo "== release build =="
run_ctest build
echo "== sanitizer build (ASan + UBSan) =="
run_ctest build-asan ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp"
