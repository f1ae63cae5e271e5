#!/bin/bash
# The README's first command builds qkv, not its tests: a fresh build folder configured with no
# option has the qkv programs and no target of tests/ (no test_* program, no fuzz seed runner,
# no helper of the shell tests), and configured with -DBUILD_TESTING=ON (as tests/run.sh does)
# it has them. Configure only: nothing is compiled.
set -u
ROOT=${QKV_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v cmake >/dev/null 2>&1 || fail "cmake not found"
work=$(mktemp -d "${TMPDIR:-/tmp}/qkv-default-build.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT

# configure DIR [OPTION ...]: a fresh build folder DIR of the source tree; its targets (the
# build's help) into DIR.targets
configure() {
    dir=$1
    shift
    cmake -S "$ROOT" -B "$dir" "$@" >"$dir.log" 2>&1 || { cat "$dir.log" >&2; fail "cmake -S . -B $dir $*"; }
    cmake --build "$dir" --target help >"$dir.targets" 2>&1 || { cat "$dir.targets" >&2; fail "help of $dir"; }
}
# The targets of tests/CMakeLists.txt: <folder>_test_*, fuzz_seeds_*, api_*, the helpers.
TEST_TARGETS='(^|[ .])([a-z]+_test_[a-z0-9_]+|fuzz_seeds_[a-z_]+|api_[a-z_]+|unicode_table|store_sample'
TEST_TARGETS+='|bench_[a-z_]+)([: ]|$)'

configure "$work/plain"
grep -Eq '(^|[ .])qkv_cli([: ]|$)' "$work/plain.targets" || { cat "$work/plain.targets" >&2; fail "no qkv_cli target"; }
grep -Eq '(^|[ .])qkv_gradcheck([: ]|$)' "$work/plain.targets" || fail "no qkv_gradcheck target"
if grep -E "$TEST_TARGETS" "$work/plain.targets" >&2; then
    fail "a plain configure builds the test programs above (they belong to -DBUILD_TESTING=ON)"
fi
[ ! -e "$work/plain/tests" ] || fail "a plain configure generates tests/ ($work/plain/tests)"
grep -q '^BUILD_TESTING:BOOL=OFF$' "$work/plain/CMakeCache.txt" || fail "BUILD_TESTING is not OFF by default"

configure "$work/testing" -DBUILD_TESTING=ON
for t in lib_test_attention data_test_conllu api_test_null_args api_threads unicode_table; do
    grep -Eq "(^|[ .])$t([: ]|\$)" "$work/testing.targets" ||
        { cat "$work/testing.targets" >&2; fail "-DBUILD_TESTING=ON: no target $t"; }
done
n=$(grep -Ec "$TEST_TARGETS" "$work/testing.targets")
[ "$n" -ge 100 ] || fail "-DBUILD_TESTING=ON: $n test targets, expected 100 or more"
echo "ok: a plain configure has no test program; -DBUILD_TESTING=ON has $n test targets"
