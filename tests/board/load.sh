#!/bin/sh
# The load measurement of qkv board (not a ctest test): 20 runs of 10,000 logged steps each
# (metrics.tsv written by Python in the layout of qkv train, a dev row every 500 steps, and a
# copy of a PNG), then the time of the page's first load (the run list and the 20 metrics
# requests, 6 at a time as a browser sends them) and the server's resident memory after it.
# Usage: tests/board/load.sh [QKV_BIN]   (default build/qkv)
set -eu
QKV=${1:-build/qkv}
TMP=$(mktemp -d)
trap 'kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT
python3 - "$TMP/runs" <<'PY'
import math, os, sys
root = sys.argv[1]
for r in range(20):
    d = os.path.join(root, "run%02d" % r)
    os.makedirs(os.path.join(d, "plots"))
    with open(os.path.join(d, "config.yaml"), "w") as f:
        f.write("model:\n  d_model: %d\noptim:\n  lr: %g\n" % (64 * (1 + r % 3), 1e-3 * (1 + r)))
    with open(os.path.join(d, "metrics.tsv"), "w") as f:
        f.write("step\tepoch\tsplit\tloss\taccuracy_upos\tlr\ttokens_per_sec\telapsed_s\n")
        for s in range(1, 10001):
            f.write("%d\t%d\ttrain\t%.9g\tnan\t%.6g\t18000.0\t%.2f\n" % (s, 1 + s // 1000, 3 * math.exp(-s / 2000) + 0.1, 1e-3, s * 0.05))
            if s % 500 == 0:
                f.write("%d\t%d\tdev\t%.9g\t%.6f\t%.6g\t19000.0\t%.2f\n" % (s, 1 + s // 1000, 3 * math.exp(-s / 2000) + 0.2, 1 - math.exp(-s / 3000), 1e-3, s * 0.05))
    with open(os.path.join(d, "plots", "loss.png"), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + bytes(40000))
PY
"$QKV" board "$TMP/runs" --port 0 2>"$TMP/log" &
PID=$!
sleep 0.5
PORT=$(sed -n 's|.*127.0.0.1:\([0-9]*\)/.*|\1|p' "$TMP/log")
python3 - "http://127.0.0.1:$PORT" <<'PY'
import concurrent.futures, json, sys, time, urllib.request
url = sys.argv[1]
get = lambda p: urllib.request.urlopen(url + p).read()
t = time.time()
get("/")
runs = json.loads(get("/api/runs"))["runs"]
with concurrent.futures.ThreadPoolExecutor(6) as ex:
    bodies = list(ex.map(lambda r: get("/api/metrics?run=%s&offset=0" % r["id"]), runs))
rows = sum(json.loads(b)["n"] for b in bodies)
print("first load: %d runs, %d rows, %.1f MB of JSON in %.3f s" % (len(runs), rows, sum(map(len, bodies)) / 1e6, time.time() - t))
t = time.time()
get("/api/runs")
print("a poll of the run list: %.3f s" % (time.time() - t))
PY
echo "server resident memory: $(awk '/VmHWM/ {print $2, $3}' /proc/$PID/status) at most, $(awk '/VmRSS/ {print $2, $3}' /proc/$PID/status) now"
if command -v chromium >/dev/null; then
    /usr/bin/time -f "chromium --headless --dump-dom: %e s" chromium --headless --no-sandbox --disable-gpu \
        --virtual-time-budget=1000 --dump-dom "http://127.0.0.1:$PORT/" 2>"$TMP/chromium.err" >"$TMP/dom.html" || true
    tail -1 "$TMP/chromium.err"
    echo "charts in the page: $(grep -o '<polyline' "$TMP/dom.html" | wc -l) lines"
fi
kill -TERM "$PID"
wait "$PID"
