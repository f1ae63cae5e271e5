# Shared by the tests/train/test_*.sh scripts: strict mode, a scratch folder, helpers.
set -eu
: "${QKV_BIN:?QKV_BIN must name the qkv binary (ctest sets it)}"
: "${QKV_SOURCE_DIR:?}"
cd "$QKV_SOURCE_DIR"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
PY=/usr/bin/python3

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_error EXPECTED_SUBSTRING COMMAND...: the command must fail (exit != 0, no crash) and
# print the expected text on stderr.
expect_error() {
    local expected=$1
    shift
    local status=0
    "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || status=$?
    [ "$status" -ne 0 ] || fail "expected failure of: $*"
    [ "$status" -lt 128 ] || fail "crashed (status $status): $*"
    grep -qF -- "$expected" "$SCRATCH/err" || {
        cat "$SCRATCH/err" >&2
        fail "expected '$expected' from: $*"
    }
}

# A short quick-start run into $1 (extra arguments are passed to qkv train).
quick_run() {
    local dir=$1
    shift
    "$QKV_BIN" train tests/train/synthetic.yaml --out "$dir" --set log.progress=off "$@" >"$dir.log" 2>&1 ||
        { cat "$dir.log" >&2; fail "qkv train $*"; }
}
