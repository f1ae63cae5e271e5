# qkv board's page in headless Chromium: over a short run and a folder that is not a run, the
# page draws the loss, learning-rate and dev-score curves as SVG, lists the run and the skipped
# folder, and shows the run's loss plot. Skipped without Chromium (Debian: chromium).
. "$QKV_SOURCE_DIR/tests/board/common.sh"
command -v chromium >/dev/null || { echo "SKIP: no chromium (apt-get install chromium): the page is not rendered"; exit 77; }
mkdir -p "$SCRATCH/runs/empty"
quick_run "$SCRATCH/runs/short" --set train.epochs=3 --set log.every_steps=5
start_board "$SCRATCH/runs"
chrome() {
    chromium --headless --no-sandbox --disable-gpu --user-data-dir="$SCRATCH/chromium" --virtual-time-budget=5000 "$@" \
        "$URL/" 2>>"$SCRATCH/chromium.log"
}
chrome --dump-dom >"$SCRATCH/dom.html" || { tail -5 "$SCRATCH/chromium.log" >&2; fail "chromium --dump-dom"; }
"$PY" - "$SCRATCH/dom.html" <<'PY' || fail "the page as Chromium drew it"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
charts = re.search(r'<div id="charts">(.*?)</div><div id="config">', dom, re.S)
assert charts, "no charts"
titles = re.findall(r'<text[^>]*font-weight="bold"[^>]*>([^<]*)</text>', charts.group(1))
assert titles and titles[0].startswith("training loss") and "learning rate" in titles and "dev accuracy_upos" in titles, titles
for svg in re.findall(r"<svg.*?</svg>", charts.group(1), re.S):
    lines = re.findall(r'<polyline points="([^"]*)"', svg)
    assert lines and max(len(p.split()) for p in lines) >= 3, "a chart without a curve: " + svg[:200]
assert re.search(r'<input type="checkbox" data-id="0/short" checked', dom), "the run is not listed and chosen"
assert re.search(r"skipped [^<]*/empty: not a run", dom), "the skipped folder is not noted"
assert re.search(r'<img src="/file\?run=0%2Fshort&amp;name=plots%2Floss.png', dom), "the loss plot is not shown"
assert "config of short" in dom and "model.d_model" in dom, "the config is not shown"
PY
chrome --screenshot="$SCRATCH/board.png" --window-size=1280,900 >/dev/null || fail "chromium --screenshot"
[ "$(head -c 4 "$SCRATCH/board.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "the screenshot is no PNG"
# QKV_BOARD_SCREENSHOT=FILE keeps the screenshot (docs/guide/board.png is one, of two runs)
[ -z "${QKV_BOARD_SCREENSHOT:-}" ] || cp "$SCRATCH/board.png" "$QKV_BOARD_SCREENSHOT"
stop_board INT
