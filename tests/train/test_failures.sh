#!/bin/bash
# Failures that must not crash, hide or lie, end to end (one section per kind of fault).
. "$(dirname "$0")/common.sh"

# A checkpoint save that fails: a 300 KB file size limit stands in for a full disk (writes
# fail with EFBIG where a full disk gives ENOSPC). The run stops with the reason and exit
# status 1: no crash in HDF5's shutdown at exit (status 139 once), no temporary file left.
status=0
(
    trap '' XFSZ
    ulimit -f 300
    exec "$QKV_BIN" train configs/quickstart.yaml --out "$SCRATCH/full" --set train.max_steps=5 --set log.progress=off
) >"$SCRATCH/out" 2>"$SCRATCH/err" || status=$?
[ "$status" = 1 ] || { cat "$SCRATCH/err" >&2; fail "a run whose checkpoint save fails exited $status, expected 1"; }
grep -q "checkpoints/.*\.h5: not saved: cannot write .*: File too large" "$SCRATCH/err" || {
    cat "$SCRATCH/err" >&2
    fail "no clear error for the failed save"
}
[ -z "$(ls "$SCRATCH/full/checkpoints")" ] || fail "a failed save left files: $(ls "$SCRATCH/full/checkpoints")"
