#!/bin/bash
# Fingerprints of short training runs of every shipped config (and every positional kind and
# encoder), for refactors that must not change a single bit: for each run, the SHA-256 of the
# losses in metrics.tsv and of every /params dataset of checkpoints/last.h5 (h5py).
# Usage: tests/regress/fingerprint.sh [QKV_BIN] > fingerprints.txt ; diff two such files.
# Runs on the shipped EWT sample (every EWT config's data.train/dev are pointed at it) and on
# small `qkv synth` corpora (the segmenter and NER configs run when QKV_EWT_DIR and
# QKV_WNUT17_DIR are set); one thread, 12 steps, no dev evaluation. About 2 minutes.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
QKV=${1:-$ROOT/build/qkv}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
S=$ROOT/data/ud_english_ewt_sample
EWT=(--set data.train="$S/en_ewt-sample-train.conllu.gz" --set data.dev="$S/en_ewt-sample-dev.conllu.gz")
"$QKV" synth --task ends --sentences 300 --seed 1 --min-len 8 --max-len 20 >"$WORK/ends.conllu"
"$QKV" synth --task reach --sentences 300 --seed 1 >"$WORK/reach.conllu"
SYN_ENDS=(--set data.train="$WORK/ends.conllu" --set data.dev="$WORK/ends.conllu")
SYN_REACH=(--set data.train="$WORK/reach.conllu" --set data.dev="$WORK/reach.conllu")

n=0
run() { # run NAME CONFIG [--set ...]
    name=$1 config=$2
    shift 2
    n=$((n + 1))
    out=$WORK/run$n
    "$QKV" train "$ROOT/$config" "$@" --set train.max_steps=12 --set train.threads=1 --set train.eval_every=0 \
        --set log.every_steps=1 --set log.plot=false --out "$out" >"$out.log" 2>&1 || {
        echo "$name: FAILED"; tail -3 "$out.log"; return 0; }
    losses=$(awk -F'\t' '$3 == "train" { print $1, $4 }' "$out/metrics.tsv" | sha256sum | cut -c1-16)
    params=$(/usr/bin/python3 - "$out/checkpoints/last.h5" <<'PY'
import hashlib, sys, h5py
h = hashlib.sha256()
with h5py.File(sys.argv[1], "r") as f:
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            h.update(name.encode()); h.update(obj[()].tobytes())
    f["params"].visititems(visit)
print(h.hexdigest()[:16])
PY
)
    echo "$name losses=$losses params=$params"
}

run quickstart configs/quickstart.yaml
for kind in none learned rope alibi floater; do
    run "quickstart_$kind" configs/quickstart.yaml --set model.positional=$kind
done
run quickstart_crf configs/quickstart.yaml --set model.output=crf
run ud_ewt_pos configs/ud_ewt_pos.yaml "${EWT[@]}"
# Every column (four heads): the sample has no FEATS or LEMMA, so the EWT excerpt that has them.
C=$ROOT/tests/data/files/ewt_columns
run ud_ewt_full configs/ud_ewt_full.yaml --set data.train="$C/en_ewt-columns-train.conllu.gz" \
    --set data.dev="$C/en_ewt-columns-dev.conllu.gz"
# The segmenter needs SpaceAfter, which the sample's blanked MISC column lacks: whole EWT only.
if [ -n "${QKV_EWT_DIR:-}" ]; then run ud_ewt_tokenize configs/ud_ewt_tokenize.yaml; fi
run pe_ewt configs/experiments/pe_ewt.yaml "${EWT[@]}"
run pe_synth configs/experiments/pe_synth.yaml
run pe_ends configs/experiments/pe_ends.yaml "${SYN_ENDS[@]}"
run enc_ewt configs/experiments/encoders/ewt.yaml "${EWT[@]}"
run enc_ewt_bilstm configs/experiments/encoders/ewt.yaml "${EWT[@]}" --set model.encoder=bilstm --set model.lstm_hidden=48
run enc_ewt_cnn configs/experiments/encoders/ewt.yaml "${EWT[@]}" --set model.encoder=cnn --set model.n_layers=2
run enc_reach configs/experiments/encoders/reach.yaml "${SYN_REACH[@]}"
if [ -n "${QKV_WNUT17_DIR:-}" ]; then run wnut17_ner configs/wnut17_ner.yaml; fi
