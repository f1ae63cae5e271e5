# Shared by tests/board/test_*.sh: skip (77) in a build without libmicrohttpd, start qkv board
# on a free loopback port ($PORT, $URL) and stop it at the end.
. "$QKV_SOURCE_DIR/tests/train/common.sh"
if [ "${QKV_SERVE_BUILT:-0}" != 1 ]; then
    echo "SKIP: this build has no libmicrohttpd (apt-get install libmicrohttpd-dev): no qkv board"
    exit 77
fi
. "$QKV_SOURCE_DIR/tests/serve/http.sh"
TRAIN_PID=
trap '[ -z "$HTTP_PID" ] || kill -KILL "$HTTP_PID" 2>/dev/null; [ -z "$TRAIN_PID" ] || kill "$TRAIN_PID" 2>/dev/null;
      wait 2>/dev/null; rm -rf "$SCRATCH"' EXIT

start_board() { start_http board "$@"; }
stop_board() { stop_http board "$1"; }
