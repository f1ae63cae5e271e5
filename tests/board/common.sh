# Shared by tests/board/test_*.sh: skip (77) in a build without libmicrohttpd, start qkv board
# on a free loopback port ($PORT, $URL) and stop it at the end.
. "$QKV_SOURCE_DIR/tests/train/common.sh"
if [ "${QKV_SERVE_BUILT:-0}" != 1 ]; then
    echo "SKIP: this build has no libmicrohttpd (apt-get install libmicrohttpd-dev): no qkv board"
    exit 77
fi
BOARD_PID=
TRAIN_PID=
trap '[ -z "$BOARD_PID" ] || kill -KILL "$BOARD_PID" 2>/dev/null; [ -z "$TRAIN_PID" ] || kill "$TRAIN_PID" 2>/dev/null;
      wait 2>/dev/null; rm -rf "$SCRATCH"' EXIT

# start_board ARGS...: qkv board --port 0 ARGS in the background; waits for its "listening" line.
start_board() {
    "$QKV_BIN" board --port 0 "$@" 2>"$SCRATCH/board.log" &
    BOARD_PID=$!
    for _ in $(seq 200); do
        PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$SCRATCH/board.log")
        [ -z "$PORT" ] || break
        kill -0 "$BOARD_PID" 2>/dev/null || { cat "$SCRATCH/board.log" >&2; fail "qkv board did not start"; }
        sleep 0.1
    done
    [ -n "$PORT" ] || fail "qkv board printed no port"
    URL=http://127.0.0.1:$PORT
}

# stop_board SIGNAL: the server must exit 0 on it.
stop_board() {
    kill -"$1" "$BOARD_PID"
    local status=0
    wait "$BOARD_PID" || status=$?
    BOARD_PID=
    [ "$status" -eq 0 ] || { cat "$SCRATCH/board.log" >&2; fail "qkv board exited $status on SIG$1"; }
}
