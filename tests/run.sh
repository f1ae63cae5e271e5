#!/bin/sh
# Builds qkv twice (release, and AddressSanitizer + UndefinedBehaviorSanitizer) and runs the
# whole test suite under ctest in both. Usage: tests/run.sh  (from anywhere)
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQKV_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$jobs"
echo "== release build =="
ctest --test-dir build --output-on-failure -j "$jobs"
echo "== sanitizer build (ASan + UBSan) =="
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" ctest --test-dir build-asan --output-on-failure -j "$jobs"
