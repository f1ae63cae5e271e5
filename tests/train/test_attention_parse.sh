#!/bin/bash
# qkv attention on a parser (model.output biaffine over a small Transformer, trained a few
# steps on the shipped EWT sample): the encoder's heads, then one more panel of the arc
# probabilities: n rows (dependents) of n + 1 columns (ROOT, then the words), each row summing
# to 1, its tics ROOT and the words; the queries labelled with DEPRELs. A tagger has no such panel.
. "$(dirname "$0")/common.sh"
command -v gnuplot >/dev/null || fail "gnuplot is not installed (apt-get install gnuplot-nox)"
S=data/ud_english_ewt_sample
R=$SCRATCH/parser
"$QKV_BIN" train configs/ud_ewt_parse.yaml --set data.train=$S/en_ewt-sample-train.conllu.gz \
    --set data.dev=$S/en_ewt-sample-dev.conllu.gz --set train.max_steps=6 --set train.eval_every=6 \
    --set data.batch_tokens=400 --set model.encoder=transformer --set model.d_model=32 --set model.n_heads=2 \
    --set model.d_ff=32 --set model.arc_dim=16 --set model.label_dim=8 --set model.n_layers=1 \
    --set log.progress=off --set log.plot=false --out "$R" >"$R.log" 2>&1 || { cat "$R.log" >&2; fail "qkv train"; }
ck=$R/checkpoints/last.h5
out=$("$QKV_BIN" attention "$ck" --sentence "The old man the boats ." --out "$SCRATCH/p.png") ||
    fail "qkv attention on a parser"
[ "$out" = "$SCRATCH/p.png" ] || fail "printed '$out'"
[ "$(head -c 8 "$SCRATCH/p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "p.png is not a PNG"
$PY - "$SCRATCH/p.gp" <<'PY' || fail "p.gp: the arc panel"
import re, sys
text = open(sys.argv[1]).read()
assert len(re.findall(r"^\$head\d << EOD", text, re.M)) == 2
body = re.search(r"^\$arcs << EOD\n(.*?)^EOD", text, re.S | re.M).group(1)
rows = [list(map(float, l.split())) for l in body.splitlines()]
assert len(rows) == 6 and all(len(r) == 7 for r in rows), [len(r) for r in rows]
assert all(abs(sum(r) - 1) < 1e-4 and min(r) > 0 for r in rows), [sum(r) for r in rows]
assert re.search(r'^set xtics \("ROOT" 0, "The" 1, "old" 2, "man" 3, "the" 4, "boats" 5, "\." 6\)$', text, re.M)
assert "plot $arcs matrix" in text
PY
# the queries' labels are DEPRELs of the training file
labels=$(grep '^set ytics (' "$SCRATCH/p.gp" | head -1 | grep -o '"[^"]*"' | awk '{print $2}' | tr -d '"')
deprels=$(zcat $S/en_ewt-sample-train.conllu.gz | awk -F'\t' 'NF == 10 {print $8}' | sort -u)
for l in $labels; do grep -qx -- "$l" <<<"$deprels" || fail "query label '$l' is not a DEPREL"; done
[ -n "$labels" ] || fail "no query labels"
# --head 1: one head and the arcs
"$QKV_BIN" attention "$ck" --sentence "a b" --head 1 --out "$SCRATCH/h.png" >/dev/null || fail "--head 1"
[ "$(grep -c '^\$head1 << EOD' "$SCRATCH/h.gp")" = 1 ] && [ "$(grep -c '^\$arcs << EOD' "$SCRATCH/h.gp")" = 1 ] ||
    fail "--head 1: not head 1 and the arcs"
# a tagger: no arc panel
quick_run "$SCRATCH/tagger" --set train.max_steps=2
"$QKV_BIN" attention "$SCRATCH/tagger/checkpoints/last.h5" --sentence "a b" --out "$SCRATCH/t.png" >/dev/null ||
    fail "qkv attention on a tagger"
grep -q '^\$arcs' "$SCRATCH/t.gp" && fail "a tagger's picture has an arc panel"
echo "qkv attention on a parser: the heads and the arc probabilities"
