#!/bin/bash
# Every way qkv train writes a run folder, and that none damages another run: a fresh run into a
# new or empty folder, into a folder holding a run (refused; --force replaces it without mixing
# rows, pictures or event files), --resume into the checkpoint's own folder (the default, and
# the --stop-at-step hint), into another run's folder (refused; --force), into a new folder (a
# branch), with another config (refused), from an earlier checkpoint of the run (refused;
# --force drops the later history); starts that fail (missing data file, unusable checkpoint)
# leave no folder; qkv plot and qkv attention outputs leave the run's files alone; a config.yaml
# that is not the run's own record is never replaced when it is the config given.
. "$(dirname "$0")/common.sh"
R=$SCRATCH/runs
TINY=(--set data.synthetic_train=300 --set data.synthetic_dev=40 --set model.d_model=16 --set model.d_ff=32
      --set model.n_heads=2 --set data.batch_tokens=300 --set train.threads=1 --set log.progress=off
      --set log.plot=false --set log.every_steps=1 --set train.epochs=2)
# train LOG ARGS...: qkv train, stderr and stdout into LOG; returns qkv's status.
train() {
    local log=$1
    shift
    "$QKV_BIN" train "$@" >"$log" 2>&1
}
ok() { # ok LOG ARGS...: must succeed
    train "$@" || { cat "$1" >&2; fail "qkv train ${*:2}"; }
}
refused() { # refused EXPECTED LOG ARGS...: must fail (no crash) and say EXPECTED
    local want=$1 log=$2 status=0
    shift 2
    train "$log" "$@" || status=$?
    [ "$status" -ne 0 ] && [ "$status" -lt 128 ] || { cat "$log" >&2; fail "not refused (status $status): qkv train $*"; }
    grep -qF -- "$want" "$log" || { cat "$log" >&2; fail "no '$want' from: qkv train $*"; }
}
sums() { (cd "$1" && find . -type f | sort | xargs md5sum); }
run_id() { sed -n '1s/^# qkv run \([0-9a-f]\{16\}\)[:,].*/\1/p' "$1/config.yaml"; }
ckpt_id() { "$PY" -c 'import sys, h5py; print(h5py.File(sys.argv[1], "r")["train/run_id"][()].decode())' "$1"; }
steps() { awk -F'\t' 'NR > 1 && $3 == "train" {print $1}' "$1/metrics.tsv" | tr '\n' ' '; }
Q=configs/quickstart.yaml
BSET=(--set train.seed=2 --set train.max_steps=10) # run B

# 1. A fresh run into a new folder: config.yaml names the run, its checkpoints carry the ID.
ok "$SCRATCH/a.log" $Q "${TINY[@]}" --set train.max_steps=6 --out "$R/A"
A_ID=$(run_id "$R/A")
[ -n "$A_ID" ] || { head -2 "$R/A/config.yaml"; fail "config.yaml does not start with the run's ID line"; }
[ "$(ckpt_id "$R/A/checkpoints/last.h5")" = "$A_ID" ] || fail "last.h5 does not carry the run's ID"
[ "$(ckpt_id "$R/A/checkpoints/best.h5")" = "$A_ID" ] || fail "best.h5 does not carry the run's ID"
"$QKV_BIN" config "$R/A/config.yaml" >/dev/null || fail "the run's config.yaml is not a config any more"
# ... and into an existing empty folder.
mkdir -p "$R/empty"
ok "$SCRATCH/e.log" $Q "${TINY[@]}" --set train.max_steps=2 --out "$R/empty"
[ "$(run_id "$R/empty")" != "$A_ID" ] || fail "two runs with one ID"
sums "$R/A" >"$SCRATCH/A.sums"

# 2. A fresh run into a folder holding a run, or a file a run would write: refused, nothing changed.
refused "already holds a run" "$SCRATCH/x.log" $Q "${TINY[@]}" --out "$R/A"
grep -qF -- "--force" "$SCRATCH/x.log" || fail "the refusal does not name --force"
grep -qF -- "--resume $R/A/checkpoints/last.h5" "$SCRATCH/x.log" || fail "the refusal does not name the run's last.h5"
mkdir -p "$R/user"
echo "my own notes" >"$R/user/config.yaml"
refused "already holds a run (config.yaml) with no checkpoint to continue" "$SCRATCH/x.log" $Q "${TINY[@]}" --out "$R/user"
grep -qF -- "--resume" "$SCRATCH/x.log" && fail "a folder without checkpoints/last.h5: the refusal suggests --resume"
[ "$(cat "$R/user/config.yaml")" = "my own notes" ] && [ "$(ls "$R/user")" = config.yaml ] || fail "the user's folder was changed"
diff "$SCRATCH/A.sums" <(sums "$R/A") || fail "a refused run changed A"

# 3. --stop-at-step, then the hint it prints: the run continues in its own folder.
ok "$SCRATCH/b.log" $Q "${TINY[@]}" "${BSET[@]}" --out "$R/B" --stop-at-step 4
B_ID=$(run_id "$R/B")
hint=$(sed -n 's/^stopped after step 4 as asked; continue with: //p' "$SCRATCH/b.log")
[ "$hint" = "$QKV_BIN train $R/B/config.yaml --resume $R/B/checkpoints/last.h5" ] || { cat "$SCRATCH/b.log"; fail "hint: '$hint'"; }
cp "$R/B/checkpoints/last.h5" "$SCRATCH/B4.h5"
# The reported case: the shipped config (seed 1) with B's checkpoint (seed 2), no --out: B's own
# folder, where the other config is refused; A (or runs/quickstart) is never touched.
refused "train.seed: 2 in the run, 1 given" "$SCRATCH/x.log" $Q "${TINY[@]}" --resume "$R/B/checkpoints/last.h5"
grep -qF -- "$R/B/config.yaml" "$SCRATCH/x.log" && grep -qF -- "--force" "$SCRATCH/x.log" || fail "refusal: $(cat "$SCRATCH/x.log")"
[ ! -e runs/quickstart ] || [ "$(cd runs/quickstart 2>/dev/null && find . -newer "$SCRATCH/B4.h5" | wc -l)" = 0 ] ||
    fail "runs/quickstart was written"
sums "$R/B" >"$SCRATCH/B.sums"
# B into A's folder: refused, naming both and --force.
refused "$R/A holds another run: run $A_ID" "$SCRATCH/x.log" $Q "${TINY[@]}" "${BSET[@]}" \
    --resume "$R/B/checkpoints/last.h5" --out "$R/A"
grep -qF "is of run $B_ID" "$SCRATCH/x.log" && grep -qF -- "--force" "$SCRATCH/x.log" || fail "refusal: $(cat "$SCRATCH/x.log")"
diff "$SCRATCH/A.sums" <(sums "$R/A") || fail "a refused resume changed A"
diff "$SCRATCH/B.sums" <(sums "$R/B") || fail "a refused resume changed B"
# The hint, run as printed (train.threads etc. as in B's config): B continues; rows not repeated.
# A change of execution-only keys (log.every_steps) is no other config.
(cd / && ${hint} --set log.every_steps=2) >"$SCRATCH/hint.log" 2>&1 || { cat "$SCRATCH/hint.log"; fail "the printed hint failed"; }
[ "$(run_id "$R/B")" = "$B_ID" ] && [ "$(ckpt_id "$R/B/checkpoints/last.h5")" = "$B_ID" ] || fail "B's ID changed"
[ "$(steps "$R/B")" = "1 2 3 4 6 8 10 " ] || fail "B's rows after resuming: $(steps "$R/B")"
diff "$SCRATCH/A.sums" <(sums "$R/A") || fail "resuming B changed A"

# 4. --force: A is replaced by a branch of B from step 4; none of A's rows or files remain.
ok "$SCRATCH/f.log" $Q "${TINY[@]}" "${BSET[@]}" --resume "$SCRATCH/B4.h5" --out "$R/A" --force
grep -q "^--force: removed the run files of $R/A (config.yaml, metrics.tsv, checkpoints/last.h5, checkpoints/best.h5)" \
    "$SCRATCH/f.log" || { cat "$SCRATCH/f.log"; fail "--force does not say what it removed"; }
A2=$(run_id "$R/A")
[ -n "$A2" ] && [ "$A2" != "$A_ID" ] && [ "$A2" != "$B_ID" ] || fail "the branch's ID: '$A2'"
head -1 "$R/A/config.yaml" | grep -qF "started from step 4 of run $B_ID ($SCRATCH/B4.h5)" || fail "config.yaml: $(head -1 "$R/A/config.yaml")"
[ "$(steps "$R/A")" = "5 6 7 8 9 10 " ] || fail "rows after --force: $(steps "$R/A")"
[ "$(grep -c '^step' "$R/A/metrics.tsv")" = 1 ] || fail "two headers in metrics.tsv"
[ "$(ckpt_id "$R/A/checkpoints/best.h5")" = "$A2" ] || fail "best.h5 is not the branch's"
# A fresh run with --force replaces a run the same way.
ok "$SCRATCH/f2.log" $Q "${TINY[@]}" --set train.max_steps=3 --out "$R/A" --force
[ "$(steps "$R/A")" = "1 2 3 " ] || fail "rows after a fresh --force: $(steps "$R/A")"
# --force removes the earlier run's event files (TensorBoard would show both runs' points as one)
# and its pictures, the confusion matrix of an image classifier too (taken for the new run's).
IMG=(configs/images_quick.yaml --set train.max_steps=2 --set train.threads=1 --set log.progress=off
     --set log.tensorboard=true)
ok "$SCRATCH/i.log" "${IMG[@]}" --out "$R/I"
[ "$(ls "$R/I" | grep -c '^events\.out\.tfevents\.')" = 1 ] || fail "the image run has no event file"
if command -v gnuplot >/dev/null; then
    [ -s "$R/I/plots/confusion.png" ] && [ -s "$R/I/plots/confusion.gp" ] || fail "the image run drew no confusion plot"
fi
ok "$SCRATCH/i2.log" "${IMG[@]}" --set log.plot=false --out "$R/I" --force
[ "$(ls "$R/I" | grep -c '^events\.out\.tfevents\.')" = 1 ] || { ls "$R/I"; fail "--force kept the earlier event file"; }
[ ! -e "$R/I/plots/confusion.png" ] && [ ! -e "$R/I/plots/confusion.gp" ] || fail "--force kept the earlier confusion plot"
grep -q "^--force: removed the run files of $R/I (.*, 1 event file)$" "$SCRATCH/i2.log" ||
    { cat "$SCRATCH/i2.log"; fail "--force does not say it removed the event file"; }

# 5. A branch into a new folder: its own ID, rows from the checkpoint's step on; B untouched.
sums "$R/B" >"$SCRATCH/B.sums"
ok "$SCRATCH/n.log" $Q "${TINY[@]}" "${BSET[@]}" --resume "$R/B/checkpoints/last.h5" --out "$R/B2" \
    --set train.max_steps=14
[ "$(run_id "$R/B2")" != "$B_ID" ] || fail "a branch took its parent's ID"
[ "$(steps "$R/B2" | cut -d' ' -f1)" = 11 ] || fail "branch rows: $(steps "$R/B2")"
diff "$SCRATCH/B.sums" <(sums "$R/B") || fail "branching changed B"
# A checkpoint outside any checkpoints/ folder needs --out.
refused "name it with --out RUN_DIR" "$SCRATCH/x.log" $Q "${TINY[@]}" "${BSET[@]}" --resume "$SCRATCH/B4.h5"

# 6. An earlier checkpoint of B into B: refused (B's history after step 4 would go); with --force
# the rows after step 4 and a best.h5 saved after it are removed, and B continues from step 4.
refused "would drop the run's history after step 4" "$SCRATCH/x.log" $Q "${TINY[@]}" "${BSET[@]}" \
    --resume "$SCRATCH/B4.h5" --out "$R/B"
diff "$SCRATCH/B.sums" <(sums "$R/B") || fail "a refused rewind changed B"
ok "$SCRATCH/w.log" $Q "${TINY[@]}" "${BSET[@]}" --resume "$SCRATCH/B4.h5" --out "$R/B" --force --stop-at-step 5
grep -qE "^--force: removed $R/B/checkpoints/best.h5 \(step ([5-9]|10)\)" "$SCRATCH/w.log" ||
    { cat "$SCRATCH/w.log"; fail "a best.h5 saved after step 4 was kept"; }
[ "$(steps "$R/B")" = "1 2 3 4 5 " ] && [ "$(run_id "$R/B")" = "$B_ID" ] || fail "rewound B: $(steps "$R/B")"

# 7. Starts that fail write nothing.
refused "data.train: /nonexistent/train.conllu: cannot open" "$SCRATCH/x.log" $Q "${TINY[@]}" --set data.source=files \
    --set data.train=/nonexistent/train.conllu --out "$R/nodata"
[ ! -e "$R/nodata" ] || fail "a missing training file left a run folder"
# The EWT config without its data: the message names the file, the variable and data/fetch-ud.sh.
mkdir -p "$SCRATCH/cfg"
cp configs/ud_ewt_pos.yaml "$SCRATCH/cfg/"
QKV_EWT_DIR= refused "QKV_EWT_DIR is not set: set QKV_EWT_DIR to the folder that holds en_ewt-ud-train.conllu" \
    "$SCRATCH/x.log" "$SCRATCH/cfg/ud_ewt_pos.yaml" --out "$R/ewt"
grep -qF "data/fetch-ud.sh UD_English-EWT DIR, then export QKV_EWT_DIR=DIR" "$SCRATCH/x.log" || fail "no fetch-ud.sh line"
grep -qF "data.train: $SCRATCH/data/ud_english_ewt/en_ewt-ud-train.conllu: cannot open" "$SCRATCH/x.log" || fail "no file named"
QKV_EWT_DIR=$SCRATCH/none refused "QKV_EWT_DIR is $SCRATCH/none: set QKV_EWT_DIR" "$SCRATCH/x.log" \
    "$SCRATCH/cfg/ud_ewt_pos.yaml" --out "$R/ewt"
[ ! -e "$R/ewt" ] || fail "a missing EWT folder left a run folder"
refused "data.dev" "$SCRATCH/x.log" $Q "${TINY[@]}" --set data.source=files \
    --set data.train="$PWD/tests/data/files/basic.conllu" --set data.dev=/nonexistent/dev.conllu --out "$R/nodev"
[ ! -e "$R/nodev" ] || fail "a missing dev file left a run folder"
refused "bad_fields.conllu:" "$SCRATCH/x.log" $Q "${TINY[@]}" --set data.source=files \
    --set data.train="$PWD/tests/data/files/bad_fields.conllu" --out "$R/baddata"
[ ! -e "$R/baddata" ] || fail "unreadable training data left a run folder"
refused "B4.h5" "$SCRATCH/x.log" $Q "${TINY[@]}" "${BSET[@]}" --set model.d_ff=48 --resume "$SCRATCH/B4.h5" \
    --out "$R/shape"
[ ! -e "$R/shape" ] || fail "a checkpoint of another model shape left a run folder"

# 8. qkv plot and qkv attention write images, never a run's files; the run stays resumable.
"$QKV_BIN" train $Q "${TINY[@]}" --set train.max_steps=3 --out "$R/P" --stop-at-step 2 >/dev/null 2>&1 || fail "train P"
sums "$R/P" >"$SCRATCH/P.sums"
if command -v gnuplot >/dev/null; then
    "$QKV_BIN" plot "$R/P" >/dev/null || fail "plot P"
    "$QKV_BIN" attention "$R/P/checkpoints/last.h5" --sentence "the dog" --out "$R/P/plots/attention.png" >/dev/null ||
        fail "attention"
else
    echo "not checked: plot and attention beside a run (no gnuplot on PATH; install-deps.sh installs it)"
fi
diff <(grep -v ' ./plots/' "$SCRATCH/P.sums") <(sums "$R/P" | grep -v ' ./plots/') || fail "plot or attention changed P's run files"
# resumed as data/make-english-model.sh does: the run's own config.yaml, --out its folder
P_ID=$(run_id "$R/P")
ok "$SCRATCH/p.log" "$R/P/config.yaml" --resume "$R/P/checkpoints/last.h5" --out "$R/P"
[ "$(run_id "$R/P")" = "$P_ID" ] && [ "$(steps "$R/P")" = "1 2 3 " ] || fail "P resumed from its config.yaml: $(steps "$R/P")"

# 8b. A config.yaml of the user's in a run's folder (its first line does not name the run) is
# never replaced by the run it configures: a resume there, or a fresh run with --force, is
# refused and names the file.
ok "$SCRATCH/u.log" $Q "${TINY[@]}" --set train.max_steps=3 --out "$R/U" --stop-at-step 2
sed -i '1c # my own copy of the config, with my notes' "$R/U/config.yaml"
cp "$R/U/config.yaml" "$SCRATCH/u.yaml"
sums "$R/U" >"$SCRATCH/U.sums"
refused "$R/U/config.yaml is the input config" "$SCRATCH/x.log" "$R/U/config.yaml" --resume "$R/U/checkpoints/last.h5"
refused "$R/U/config.yaml is the input config" "$SCRATCH/x.log" "$R/U/config.yaml" --out "$R/U" --force
diff "$SCRATCH/U.sums" <(sums "$R/U") || fail "a refused run changed U"

# 9. Resuming a run that is already complete does nothing (exit 0, no row, no file touched);
# a --resume checkpoint that does not exist is named as missing.
sums "$R/P" >"$SCRATCH/P2.sums"
ok "$SCRATCH/done.log" "$R/P/config.yaml" --resume "$R/P/checkpoints/last.h5"
grep -qF "the run is already complete (step 3 of 3)" "$SCRATCH/done.log" || { cat "$SCRATCH/done.log" >&2; fail "no 'already complete'"; }
diff "$SCRATCH/P2.sums" <(sums "$R/P") || fail "resuming a complete run changed its files"
# ... and prints no plot path, though the run has a plot (it drew nothing)
ok "$SCRATCH/q.log" $Q "${TINY[@]}" --set log.plot=true --set train.max_steps=2 --out "$R/Q"
if [ -s "$R/Q/plots/loss.png" ]; then
    ok "$SCRATCH/qdone.log" "$R/Q/config.yaml" --resume "$R/Q/checkpoints/last.h5"
    grep -q "loss plot" "$SCRATCH/qdone.log" && { cat "$SCRATCH/qdone.log" >&2; fail "a complete run's resume prints a plot path"; }
fi
refused "nowhere/last.h5: No such file or directory" "$SCRATCH/missing.log" $Q "${TINY[@]}" --resume "$R/nowhere/last.h5"
echo "run folders: ok"
