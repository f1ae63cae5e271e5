# Shared by tests/serve/test_*.sh: skip (77) in a build without libmicrohttpd, start qkv serve
# on a free loopback port ($PORT, $URL) and stop it at the end.
. "$QKV_SOURCE_DIR/tests/train/common.sh"
if [ "${QKV_SERVE_BUILT:-0}" != 1 ]; then
    echo "SKIP: this build has no libmicrohttpd (apt-get install libmicrohttpd-dev): no qkv serve"
    exit 77
fi
SERVER_PID=
trap '[ -z "$SERVER_PID" ] || kill -KILL "$SERVER_PID" 2>/dev/null; rm -rf "$SCRATCH"' EXIT

# start_server ARGS...: qkv serve --port 0 ARGS in the background; waits for its "listening" line.
start_server() {
    "$QKV_BIN" serve --port 0 "$@" 2>"$SCRATCH/server.log" &
    SERVER_PID=$!
    for _ in $(seq 200); do
        PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$SCRATCH/server.log")
        [ -z "$PORT" ] || break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SCRATCH/server.log" >&2; fail "qkv serve did not start"; }
        sleep 0.1
    done
    [ -n "$PORT" ] || fail "qkv serve printed no port"
    URL=http://127.0.0.1:$PORT
}

# stop_server SIGNAL: the server must exit 0 on it.
stop_server() {
    kill -"$1" "$SERVER_PID"
    local status=0
    wait "$SERVER_PID" || status=$?
    SERVER_PID=
    [ "$status" -eq 0 ] || { cat "$SCRATCH/server.log" >&2; fail "qkv serve exited $status on SIG$1"; }
}
