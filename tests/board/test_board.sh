# qkv board over a run that is still training: the rows of its metrics.tsv grow between two
# requests (the header's columns with their display names first), its loss plot is served byte
# for byte, a half-written line is left for later, a
# folder that is not a run is listed as skipped, a run deleted while shown is gone without harm,
# paths out of the folder (.., a symlink, encoded slashes, a run linked from outside) are 404,
# and SIGTERM ends the server with status 0.
. "$QKV_SOURCE_DIR/tests/board/common.sh"
RUNS=$SCRATCH/runs
mkdir -p "$RUNS/notes" "$SCRATCH/outside/plots" "$RUNS/half"
echo "not a run" >"$RUNS/notes/readme.txt"
printf 'step\tepoch\tsplit\tloss\taccuracy_upos\tlr\n' >"$SCRATCH/outside/metrics.tsv"
printf '\211PNG secret' >"$SCRATCH/outside/plots/secret.png"
ln -s "$SCRATCH/outside" "$RUNS/linked"
# a run being written: two whole rows, then half of the third
printf 'step\tepoch\tsplit\tloss\taccuracy_upos\tlr\n1\t1\ttrain\t2.5\tnan\t0.001\n2\t1\tdev\t2.0\t0.5\t0.001\n3\t1\ttr' \
    >"$RUNS/half/metrics.tsv"

start_board "$RUNS"
"$QKV_BIN" train tests/train/synthetic.yaml --out "$RUNS/live" --set train.epochs=6 --set log.every_steps=5 \
    --set log.progress=off >"$SCRATCH/train.log" 2>&1 &
TRAIN_PID=$!

"$PY" - "$URL" "$RUNS" "$SCRATCH" <<'PY' || fail "the checks of the board's answers"
import json, os, sys, urllib.error, urllib.request
sys.path.insert(0, "tests/board")
from waiting import wait_for
url, runs, tmp = sys.argv[1:]

def get(path):
    """(status, body bytes) of a GET."""
    try:
        with urllib.request.urlopen(url + path, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()

def api(path):
    status, body = get(path)
    assert status == 200, (path, status, body)
    return json.loads(body)

def rows(m):
    """The rows of a metrics answer (it holds one array per column)."""
    assert len(m["data"]) in (0, len(m.get("columns") or m["data"])) and all(len(c) == m["n"] for c in m["data"]), m
    return [list(r) for r in zip(*m["data"])]

status, page = get("/")
assert status == 200 and b"/api/runs" in page, "the page"

listing = api("/api/runs")
ids = {r["name"]: r["id"] for r in listing["runs"]}
assert "half" in ids and "linked" not in ids, listing
skipped = {os.path.basename(s["path"]): s["why"] for s in listing["skipped"]}
assert "notes" in skipped and "linked" in skipped, skipped

# the half-written line is left for later; once whole, it comes from the offset on
m = api("/api/metrics?run=" + ids["half"] + "&offset=0")
assert m["columns"][:3] == ["step", "epoch", "split"] and len(rows(m)) == 2, m
assert m["labels"] == ["step", "epoch", "split", "loss", "UPOS accuracy", "lr"], m  # display names
assert rows(m)[1] == [2, 1, "dev", 2.0, 0.5, 0.001] and rows(m)[0][4] is None, m
with open(os.path.join(runs, "half", "metrics.tsv"), "a") as f:
    f.write("ain\t1.5\tnan\t0.002\n")
m2 = api("/api/metrics?run=%s&offset=%d&ino=%d" % (ids["half"], m["offset"], m["ino"]))
assert [r[0] for r in rows(m2)] == [3] and not m2["reset"] and "columns" not in m2, m2

# the live run: its first rows, then more of them from the offset on
live = wait_for("the live run", lambda: next((r["id"] for r in api("/api/runs")["runs"] if r["name"] == "live"), None))
first = wait_for("a first row", lambda: (lambda m: m if m["columns"] and m["n"] else None)(
    api("/api/metrics?run=" + live + "&offset=0")))
steps = [r[0] for r in rows(first)]
more = wait_for("more rows", lambda: (lambda m: m if m["n"] else None)(
    api("/api/metrics?run=%s&offset=%d&ino=%d" % (live, first["offset"], first["ino"]))))
assert rows(more)[0][0] > steps[-1], (steps, rows(more)[0])

# its loss plot, once drawn, byte for byte
png = wait_for("plots/loss.png", lambda: next((r for r in api("/api/runs")["runs"] if r["name"] == "live"
                                               and any(p["name"] == "plots/loss.png" for p in r["pngs"])), None))
def same_png():
    status, body = get("/file?run=%s&name=plots/loss.png" % live)
    with open(os.path.join(runs, "live", "plots", "loss.png"), "rb") as f:
        return status == 200 and body[:4] == b"\x89PNG" and body == f.read()
wait_for("the loss plot served as on disk", same_png, 20)

# out of the folders: 404, whatever the spelling
os.symlink(os.path.join(tmp, "outside", "plots", "secret.png"), os.path.join(runs, "live", "plots", "out.png"))
for path in ["/file?run=%s&name=../../outside/plots/secret.png" % live,
             "/file?run=%s&name=plots/out.png" % live,
             "/file?run=%s&name=..%%2F..%%2Foutside%%2Fplots%%2Fsecret.png" % live,
             "/file?run=0%2F..%2F..%2Foutside&name=plots/secret.png",
             "/file?run=0/linked&name=plots/secret.png",
             "/api/metrics?run=0/linked", "/api/config?run=0/..", "/api/metrics?run=0/../runs/half",
             "/..%2F..%2Fetc%2Fpasswd", "/file/..%2Foutside%2Fplots%2Fsecret.png", "/nothing"]:
    status, body = get(path)
    assert status == 404 and b"secret" not in body, (path, status)
assert get("/file?run=%s&name=plots/out.png" % live)[0] == 404

# a run deleted while shown: the list goes on without it, its rows are 404
os.remove(os.path.join(runs, "half", "metrics.tsv"))
os.rmdir(os.path.join(runs, "half"))
assert "half" not in {r["name"] for r in api("/api/runs")["runs"]}
assert get("/api/metrics?run=" + ids["half"])[0] == 404
print("board: %d rows first, %d more; %d runs" % (len(steps), more["n"], len(api("/api/runs")["runs"])))
PY
wait "$TRAIN_PID" || fail "qkv train: $(tail -3 "$SCRATCH/train.log")"
TRAIN_PID=
stop_board TERM
