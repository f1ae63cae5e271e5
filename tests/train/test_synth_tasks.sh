#!/bin/bash
# qkv synth --task ends|reach (data/synth_tasks.h) from the command line: the ends tags of a
# sentence of 8 words, the reach distances cycling 1..max with one key and one tagged probe per
# sentence, defaults, a corpus qkv reads (stats, train), and usage errors for options of
# another task or lengths the task cannot fill (exit 2, nothing on stdout).
. "$(dirname "$0")/common.sh"

"$QKV_BIN" synth --task ends --sentences 3 --min-len 8 --max-len 8 >"$SCRATCH/ends.conllu" || fail "synth --task ends"
[ "$(grep -c '^# sent_id = ends-' "$SCRATCH/ends.conllu")" = 3 ] || fail "ends: 3 sentences"
tags=$(awk -F'\t' 'NF == 10 { printf "%s ", $4 } /^$/ { print "" }' "$SCRATCH/ends.conllu" | sort -u)
[ "$tags" = "S1 S2 S3 S4 E4 E3 E2 E1 " ] || fail "ends tags of 8-word sentences: '$tags'"
"$QKV_BIN" synth --task ends --sentences 200 >"$SCRATCH/ends-default.conllu" || fail "synth --task ends (defaults)"
lens=$(awk -F'\t' 'NF == 10 { n++ } /^$/ { print n; n = 0 }' "$SCRATCH/ends-default.conllu" | sort -n | sed -n '1p;$p' | tr '\n' ' ')
[ "$lens" = "8 20 " ] || fail "ends default lengths 8..20, got $lens"

"$QKV_BIN" synth --task reach --sentences 24 --seed 3 --max-distance 8 --min-len 10 --max-len 12 \
    >"$SCRATCH/reach.conllu" || fail "synth --task reach"
dists=$(sed -n 's/^# distance = //p' "$SCRATCH/reach.conllu" | tr '\n' ' ')
[ "$dists" = "1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8 " ] || fail "reach distances: $dists"
# per sentence: the key and the probe are the distance apart, the probe tagged by the key's class
awk -F'\t' '/^# distance/ { d = $0; sub(/.* = /, "", d) }
    NF == 10 && $2 ~ /^K/ { k = $1; cls = substr("ABCD", substr($2, 2) + 0, 1) }
    NF == 10 && $2 == "q" { q = $1; tag = $4 }
    NF == 10 && $4 != "_" { tagged++ }
    /^$/ { if (k - q != d && q - k != d || tag != cls || tagged != 1) bad++; tagged = 0 }
    END { exit bad > 0 }' "$SCRATCH/reach.conllu" || fail "reach: key, probe and distance disagree"
"$QKV_BIN" stats "$SCRATCH/reach.conllu" | grep -q "^sentences: 24$" || fail "stats reads the reach corpus"
"$QKV_BIN" synth --task reach --sentences 40 >"$SCRATCH/reach-default.conllu" || fail "synth --task reach (defaults)"
[ "$(sed -n 's/^# distance = //p' "$SCRATCH/reach-default.conllu" | sort -n | sed -n '1p;$p' | tr '\n' ' ')" = "1 32 " ] ||
    fail "reach default distances 1..32"
# a tagger trains on it: only the probes are scored (24 of them in dev)
"$QKV_BIN" synth --task reach --sentences 200 --seed 4 --max-distance 8 --min-len 10 --max-len 12 >"$SCRATCH/reach-train.conllu"
"$QKV_BIN" train tests/train/synthetic.yaml --set data.source=files --set data.train="$SCRATCH/reach-train.conllu" \
    --set data.dev="$SCRATCH/reach.conllu" --set train.max_steps=2 --set model.d_model=16 --set model.d_ff=16 \
    --set log.progress=off --set log.plot=false --out "$SCRATCH/run" >"$SCRATCH/train.out" 2>&1 ||
    { cat "$SCRATCH/train.out"; fail "train on the reach corpus"; }
grep -q "of 24 words)" "$SCRATCH/train.out" || { cat "$SCRATCH/train.out"; fail "dev scores the 24 probes only"; }

usage_error() { # usage_error EXPECTED ARGS...
    local want=$1 status=0
    shift
    "$QKV_BIN" synth "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || status=$?
    [ "$status" = 2 ] || { cat "$SCRATCH/err" >&2; fail "qkv synth $*: exit $status, expected 2"; }
    grep -qF -- "qkv synth: $want" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "qkv synth $*: no '$want'"; }
    [ ! -s "$SCRATCH/out" ] || fail "qkv synth $*: wrote to stdout"
}
usage_error "--min-len, --max-len, --min-distance and --max-distance apply to --task ends and reach only" --min-len 10
usage_error "--min-distance and --max-distance apply to --task reach only" --task ends --max-distance 4
usage_error "synthetic task ends: min_len must be at least 8" --task ends --min-len 5
usage_error "synthetic task ends: max_len must be between min_len 10 and 100000, got 9" --task ends --min-len 10 --max-len 9
usage_error "synthetic task reach: max_dist 12 must be below min_len 10" --task reach --min-len 10 --max-distance 12
usage_error "--task is grammar, ends or reach, not 'position'" --task position
echo "synth tasks: ok"
