# Shared by tests/serve/test_*.sh: skip (77) in a build without libmicrohttpd, start qkv serve
# on a free loopback port ($PORT, $URL) and stop it at the end.
. "$QKV_SOURCE_DIR/tests/train/common.sh"
if [ "${QKV_SERVE_BUILT:-0}" != 1 ]; then
    echo "SKIP: this build has no libmicrohttpd (apt-get install libmicrohttpd-dev): no qkv serve"
    exit 77
fi
. "$QKV_SOURCE_DIR/tests/serve/http.sh"
trap '[ -z "$HTTP_PID" ] || kill -KILL "$HTTP_PID" 2>/dev/null; rm -rf "$SCRATCH"' EXIT

start_server() { start_http serve "$@"; }
stop_server() { stop_http serve "$1"; }
