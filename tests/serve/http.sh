# shellcheck shell=bash
# Shared by tests/serve/common.sh and tests/board/common.sh: start a qkv HTTP command on a free
# loopback port and stop it. Needs tests/train/common.sh ($QKV_BIN, $SCRATCH, fail).
HTTP_PID=

# start_http CMD ARGS...: qkv CMD --port 0 ARGS in the background (stderr in $SCRATCH/CMD.log);
# waits for its "listening" line and sets $PORT and $URL.
start_http() {
    local cmd=$1
    shift
    "$QKV_BIN" "$cmd" --port 0 "$@" 2>"$SCRATCH/$cmd.log" &
    HTTP_PID=$!
    for _ in $(seq 200); do
        PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$SCRATCH/$cmd.log")
        [ -z "$PORT" ] || break
        kill -0 "$HTTP_PID" 2>/dev/null || { cat "$SCRATCH/$cmd.log" >&2; fail "qkv $cmd did not start"; }
        sleep 0.1
    done
    [ -n "$PORT" ] || fail "qkv $cmd printed no port"
    URL=http://127.0.0.1:$PORT
}

# stop_http CMD SIGNAL: the command must exit 0 on it.
stop_http() {
    kill -"$2" "$HTTP_PID"
    local status=0
    wait "$HTTP_PID" || status=$?
    HTTP_PID=
    [ "$status" -eq 0 ] || { cat "$SCRATCH/$1.log" >&2; fail "qkv $1 exited $status on SIG$2"; }
}
