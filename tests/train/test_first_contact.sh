#!/bin/bash
# What a new user meets first: a warmup longer than the whole run is a warning naming both
# numbers (once, and none when it fits); `qkv tag` of plain text without --format text says so,
# and raw text that is plainly a CoNLL-U or a column file is refused with its line.
. "$(dirname "$0")/common.sh"
TINY=(--set data.synthetic_train=200 --set data.synthetic_dev=20 --set model.d_model=16 --set model.d_ff=32
      --set model.n_heads=2 --set data.batch_tokens=300 --set log.plot=false)

# A warmup of 50 steps in a run of 10 steps is cut short.
quick_run "$SCRATCH/short" "${TINY[@]}" --set train.max_steps=10 --set optim.warmup_steps=50
grep -F "warning: optim.warmup_steps is 50 but the whole run has 10 steps: the warmup is cut to 9 steps" \
    "$SCRATCH/short.log" >/dev/null || { cat "$SCRATCH/short.log"; fail "no warmup warning naming 50 and 10"; }
[ "$(grep -c warmup_steps "$SCRATCH/short.log")" = 1 ] || fail "the warmup warning is not given once"
quick_run "$SCRATCH/fits" "${TINY[@]}" --set train.max_steps=10 --set optim.warmup_steps=9
grep -q warmup "$SCRATCH/fits.log" && { cat "$SCRATCH/fits.log"; fail "a warning for a warmup that fits"; }

# qkv tag on plain text without --format text: the hint names the line and --format text.
ckpt=$SCRATCH/fits/checkpoints/last.h5
printf 'The dog barks .\nA cat sleeps .\n' >"$SCRATCH/plain.txt"
expect_error "$SCRATCH/plain.txt:1: this looks like plain text (no TAB-separated fields): use --format text" \
    "$QKV_BIN" tag "$ckpt" "$SCRATCH/plain.txt"
printf '# a comment\n\nThe dog barks .\n' >"$SCRATCH/plain2.txt"
expect_error "plain2.txt:1: this looks like plain text" "$QKV_BIN" tag "$ckpt" "$SCRATCH/plain2.txt"
# ... and not for a CoNLL-U file with one bad line after good ones: the reader's own message.
printf '1\tThe\t_\tDET\t_\t_\t_\t_\t_\t_\nno tab here\n' >"$SCRATCH/bad.conllu"
expect_error "bad.conllu:2: expected 10 TAB-separated fields, found 1" "$QKV_BIN" tag "$ckpt" "$SCRATCH/bad.conllu"
grep -q "plain text" "$SCRATCH/err" && fail "plain-text hint for a CoNLL-U file"
"$QKV_BIN" tag "$ckpt" "$SCRATCH/plain.txt" --format text >/dev/null || fail "tag --format text"
printf 'Hello there\n\n@paul\tO\nEmpire\tB-location\nState\tI-location\n\nok\tO\n' >"$SCRATCH/cols.conll"
gzip -c "$SCRATCH/cols.conll" >"$SCRATCH/cols.conll.gz"
# qkv tag with no model reads raw text: a CoNLL-U file given to it is refused with its first
# word line, not tagged as prose (it exited 0), plain or gzip; raw text with a TAB still tags
if [ -f data/models/en.h5 ]; then
    gold=data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz
    gzip -dc "$gold" >"$SCRATCH/dev.conllu"
    first=$(grep -nP '^\d+\t' "$SCRATCH/dev.conllu" | head -1 | cut -d: -f1)
    for f in "$SCRATCH/dev.conllu" "$gold"; do
        expect_error "$f:$first: this is a CoNLL-U word line" env -u QKV_MODEL "$QKV_BIN" tag "$f"
    done
    printf 'A line\twith a TAB .\n' | env -u QKV_MODEL "$QKV_BIN" tag - >"$SCRATCH/tab.conllu" ||
        fail "raw text with a TAB"
    # a column file (a word and its tag a line, TAB-separated; WNUT 2017's layout) likewise, plain,
    # gzip or on standard input, with the first line of the run of such lines
    for f in "$SCRATCH/cols.conll" "$SCRATCH/cols.conll.gz"; do
        expect_error "$f:3: these lines are 2 TAB-separated fields without spaces (a column file" \
            env -u QKV_MODEL "$QKV_BIN" tag "$f"
    done
    expect_error "<stdin>:3: these lines are 2 TAB-separated fields" env -u QKV_MODEL "$QKV_BIN" tag - <"$SCRATCH/cols.conll"
fi
# --format text with a model (a sentence a line, no segmenter) refuses both formats the same way
expect_error "cols.conll:3: these lines are 2 TAB-separated fields" "$QKV_BIN" tag "$ckpt" "$SCRATCH/cols.conll" --format text
printf '1\tThe\t_\tDET\t_\t_\t_\t_\t_\t_\n' >"$SCRATCH/one.conllu"
expect_error "one.conllu:1: this is a CoNLL-U word line" "$QKV_BIN" tag "$ckpt" "$SCRATCH/one.conllu" --format text
echo "first contact: ok"
