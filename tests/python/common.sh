# shellcheck shell=bash
# Shared by tests/python/test_*.sh: skips (exit 77, one line) without /usr/bin/python3, then
# tests/api/common.sh (strict mode, $SCRATCH, fail, make_segmenter, ...), an install of qkv into
# $P (cmake --install), and run_py: tests/python/check_qkv.py run by /usr/bin/python3 with the
# installed package (PYTHONPATH=$P/lib/python3/dist-packages), nothing found through QKV_MODEL,
# QKV_MODEL_DIR or QKV_LIBRARY, and under the sanitizers their runtimes preloaded (libqkv.so was
# built with them).
if [ ! -x /usr/bin/python3 ]; then
    echo "skipped: /usr/bin/python3 is not installed (apt-get install python3)"
    exit 77
fi
# shellcheck source=tests/api/common.sh
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
P=$SCRATCH/prefix
cmake --install "${QKV_BUILD_DIR:?}" --prefix "$P" >"$SCRATCH/install.log" 2>&1 ||
    { cat "$SCRATCH/install.log" >&2; fail "cmake --install"; }
PYDIR=$P/lib/python3/dist-packages
[ -f "$PYDIR/qkv/__init__.py" ] || fail "the qkv package is not installed in $PYDIR"
PRELOAD=
if [ "${QKV_SANITIZED:-0}" = 1 ]; then
    PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
fi

run_py() {
    env -u QKV_MODEL -u QKV_MODEL_DIR -u QKV_LIBRARY PYTHONPATH="$PYDIR" PYTHONDONTWRITEBYTECODE=1 \
        ${PRELOAD:+LD_PRELOAD="$PRELOAD"} ASAN_OPTIONS=detect_leaks=0 \
        /usr/bin/python3 "$QKV_SOURCE_DIR/tests/python/check_qkv.py" "$@"
}
