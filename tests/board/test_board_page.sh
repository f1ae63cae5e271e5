# qkv board's page in headless Chromium, driven through its DevTools protocol (tests/board/cdp.py):
# opened before a run starts training, it lists the run and chooses it, its curves gain points
# while the run logs rows (the page updates itself, no reload) and its attention picture appears
# after the first epoch. Once it has ended, a screenshot of the page with that run alone chosen
# is saved (docs/guide/board.png is one). Then over the finished run, a parser's
# metrics.tsv of 25 epochs written here and a folder that is not a run: a chart per dev score
# titled with its display name in percent (UPOS accuracy, LAS, UAS), the 25 epochs labelled at
# 5, 10, 15 and 20, the skipped folder noted, the configs shown. Skipped without Chromium
# (Debian: chromium).
. "$QKV_SOURCE_DIR/tests/board/common.sh"
command -v chromium >/dev/null || { echo "SKIP: no chromium (apt-get install chromium): the page is not rendered"; exit 77; }
mkdir -p "$SCRATCH/runs/empty" "$SCRATCH/runs/epochs25"
{ printf 'step\tepoch\tsplit\tloss\tlas\tlr\ttokens_per_sec\telapsed_s\tuas\n'
  for e in $(seq 1 25); do
      for k in 1 2 3 4; do printf '%d\t%d\ttrain\t%s\tnan\t0.001\t1000\t1\tnan\n' $((4 * e + k - 4)) $e "1.$((30 - e))"; done
      printf '%d\t%d\tdev\t1.2\t0.%d\t0.001\t1000\t1\t0.%d\n' $((4 * e)) $e $((50 + e)) $((60 + e))
  done; } >"$SCRATCH/runs/epochs25/metrics.tsv"
printf 'model:\n  output: biaffine\n' >"$SCRATCH/runs/epochs25/config.yaml"
start_board "$SCRATCH/runs"
"$PY" - "$URL" "$SCRATCH" "$QKV_BIN" <<'PY' || fail "the page in Chromium"
import functools, re, subprocess, sys, time
sys.path.insert(0, "tests/board")
from cdp import Browser
import waiting
url, tmp, qkv = sys.argv[1:]
wait_for = functools.partial(waiting.wait_for, seconds=120)

# the points of the training loss chart's curves, as drawn
POINTS = """[...(document.querySelector('#charts svg') || document.createElement('p')).querySelectorAll('polyline')]
            .reduce((n, p) => n + p.getAttribute('points').split(' ').length, 0)"""
LIVE = "document.querySelector('input[data-id=\"0/live\"]')"
with Browser(f"{tmp}/chromium") as b:
    b.call("Emulation.setDeviceMetricsOverride", width=1280, height=1000, deviceScaleFactor=1, mobile=False)
    b.navigate(url + "/")
    before = wait_for("the 25 epochs drawn", lambda: b.eval(POINTS))
    train = subprocess.Popen([qkv, "train", "tests/train/synthetic.yaml", "--out", f"{tmp}/runs/live", "--set",
                              "train.epochs=3", "--set", "log.every_steps=5", "--set", "log.progress=off"],
                             stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/train.log", "wb"))
    assert wait_for("the live run listed and chosen", lambda: b.eval(LIVE + " && " + LIVE + ".checked"))
    first = wait_for("the live run's first points", lambda: (lambda n: n if n > before else 0)(b.eval(POINTS)))
    assert train.poll() is None, "the run ended before the page drew it"
    more = wait_for("more points", lambda: (lambda n: n if n > first else 0)(b.eval(POINTS)))
    picture = """[...document.querySelectorAll('#pics img')].some(i => i.alt === 'plots/attention.png'
                 && i.complete && i.naturalWidth > 0)"""
    wait_for("the attention picture", lambda: b.eval(picture))
    assert train.wait() == 0, open(f"{tmp}/train.log").read()
    rows = len(open(f"{tmp}/runs/live/metrics.tsv").readlines()) - 1
    wait_for("every row of the run", lambda: b.eval("S.data['0/live'] ? S.data['0/live'].n : 0") == rows)
    # the screenshot of the run alone, the other one unchosen on the page
    b.eval("document.querySelector('input[data-id=\"0/epochs25\"]').click()")
    wait_for("the 25 epochs put aside", lambda: "dev LAS" not in b.eval("document.getElementById('charts').innerHTML"))
    time.sleep(1)
    with open(f"{tmp}/board.png", "wb") as f:
        f.write(b.screenshot())
    b.eval("document.querySelector('input[data-id=\"0/epochs25\"]').click()")
    dom = wait_for("the charts of both runs", lambda: (lambda h: h if "dev LAS" in h else None)(
        b.eval("document.documentElement.outerHTML")))
print(f"points: {before} before the run, {first} at its first rows, {more} later; {rows} rows in all")
charts = re.search(r'<div id="charts">(.*?)</div><div id="config">', dom, re.S).group(1)
titles = re.findall(r'<text[^>]*font-weight="bold"[^>]*>([^<]*)</text>', charts)
assert titles[0].startswith("training loss") and "learning rate" in titles, titles
assert {"dev UPOS accuracy (%)", "dev LAS (%)", "dev UAS (%)"} <= set(titles), titles
assert not [t for t in titles if "_" in t or t in ("dev las", "dev uas")], titles
for svg in re.findall(r"<svg.*?</svg>", charts, re.S):
    lines = re.findall(r'<polyline points="([^"]*)"', svg)
    assert lines and max(len(p.split()) for p in lines) >= 3, "a chart without a curve: " + svg[:200]
labels = re.findall(r">(epoch \d+)</text>", re.search(r"<svg.*?</svg>", charts, re.S).group(0))
assert labels == ["epoch 5", "epoch 10", "epoch 15", "epoch 20"], labels
las = re.search(r'dev LAS \(%\)</text>.*?</svg>', charts, re.S).group(0)
assert re.search(r'<text[^>]*>(70|75)</text>', las), "LAS not in percent"
assert re.search(r'<input type="checkbox" data-id="0/live" checked', dom), "the run is not listed and chosen"
assert re.search(r"skipped [^<]*/empty: not a run", dom), "the skipped folder is not noted"
assert re.search(r'<img src="/file\?run=0%2Flive&amp;name=plots%2Floss.png', dom), "the loss plot is not shown"
assert "config of live" in dom and "model.d_model" in dom and "model.output" in dom, "the configs are not shown"
PY
[ "$(head -c 4 "$SCRATCH/board.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "the screenshot is no PNG"
# QKV_BOARD_SCREENSHOT=FILE keeps the screenshot
[ -z "${QKV_BOARD_SCREENSHOT:-}" ] || cp "$SCRATCH/board.png" "$QKV_BOARD_SCREENSHOT"
stop_board INT
