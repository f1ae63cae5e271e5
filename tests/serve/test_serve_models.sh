# qkv serve with several models: by name and by path, each under its name in /models, a
# hyphen-separated prefix naming a model, the first one the default; two models of one name and
# a model that does not open or an image model are errors before it listens.
. "$QKV_SOURCE_DIR/tests/serve/common.sh"
cp data/models/en.h5 "$SCRATCH/english-ewt.h5"
expect_error "are both the model 'en'" "$QKV_BIN" serve en data/models/en.h5 --port 0
expect_error "none.h5" "$QKV_BIN" serve "$SCRATCH/none.h5" --port 0
expect_error "no shipped model 'klingon'" "$QKV_BIN" serve klingon --port 0
# an image model: refused before it listens, saying what qkv serve serves
"$QKV_BIN" train configs/images_quick.yaml --out "$SCRATCH/img" --set train.max_steps=2 --set train.eval_every=0 \
    --set log.plot=false --set log.progress=off >"$SCRATCH/img.log" 2>&1 || { cat "$SCRATCH/img.log" >&2; fail "image model"; }
expect_error "qkv serve serves models of words" "$QKV_BIN" serve "$SCRATCH/img/checkpoints/last.h5" --port 0
start_server "$SCRATCH/english-ewt.h5" en
printf 'It rains. We stay home.\n' >"$SCRATCH/raw.txt"
"$QKV_BIN" tag "$SCRATCH/raw.txt" >"$SCRATCH/expected"
"$PY" - "$URL" "$SCRATCH" <<'PY' || fail "several models"
import json, sys, urllib.parse, urllib.request
url, tmp = sys.argv[1], sys.argv[2]
models = json.loads(urllib.request.urlopen(url + "/models").read())
assert models == {"models": {"english-ewt": ["tokenizer", "tagger", "parser"], "en": ["tokenizer", "tagger", "parser"]},
                  "default_model": "english-ewt"}, models
text, expected = open(tmp + "/raw.txt").read(), open(tmp + "/expected").read()
for name, want in ((None, "english-ewt"), ("en", "en"), ("english", "english-ewt"), ("english-ewt", "english-ewt")):
    params = {"tokenizer": "", "tagger": "", "parser": "", "data": text}
    if name:
        params["model"] = name
    r = json.loads(urllib.request.urlopen(url + "/process", urllib.parse.urlencode(params).encode()).read())
    assert r["model"] == want and r["result"] == expected, (name, r["model"])
PY
stop_server INT
echo "ok"
