#!/bin/sh
# Builds qkv with its test programs (-DBUILD_TESTING=ON: a plain configure has none) and runs the
# whole test suite under ctest.
# Usage: tests/run.sh [--sanitize]   (from anywhere)
#   (none)      the release build, in build/
#   --sanitize  the AddressSanitizer + UndefinedBehaviorSanitizer build, in build-asan/, and the
#               same tests under the sanitizers (about twice the time of the release pass); CI
#               runs both passes.
# Tests that need a whole corpus run when its folder is set (QKV_EWT_DIR=/path/to/ud_english_ewt,
# QKV_WNUT17_DIR=/path/to/wnut17);
# otherwise ctest lists them as skipped, and the reason of each is printed after its summary.
set -eu
usage="usage: tests/run.sh [--sanitize]"
case "$#:${1-}" in
0:) sanitize=0 ;;
1:--sanitize) sanitize=1 ;;
1:-h | 1:--help)
    sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
*)
    echo "tests/run.sh: unknown arguments '$*' ($usage)" >&2
    exit 2 ;;
esac
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

# The pass: its build folder, build type and sanitizer flag, and the sanitizers' environment.
if [ $sanitize = 0 ]; then
    set -- build Release OFF "release build"
else
    set -- build-asan RelWithDebInfo ON "sanitizer build (ASan + UBSan)" \
        ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp"
fi
cmake -S . -B "$1" -DCMAKE_BUILD_TYPE="$2" -DQKV_SANITIZE="$3" -DBUILD_TESTING=ON >/dev/null
cmake --build "$1" -j "$jobs"
echo "== $4 =="
dir=$1
shift 4
run_ctest "$dir" "$@"
