# Shared by the tests/train/test_*.sh scripts: strict mode, a scratch folder, helpers.
set -eu
: "${QKV_BIN:?QKV_BIN must name the qkv binary (ctest sets it)}"
: "${QKV_SOURCE_DIR:?}"
cd "$QKV_SOURCE_DIR"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
PY=/usr/bin/python3

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_error EXPECTED_SUBSTRING COMMAND...: the command must fail (exit != 0, no crash) and
# print the expected text on stderr.
expect_error() {
    local expected=$1
    shift
    local status=0
    "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || status=$?
    [ "$status" -ne 0 ] || fail "expected failure of: $*"
    [ "$status" -lt 128 ] || fail "crashed (status $status): $*"
    grep -qF -- "$expected" "$SCRATCH/err" || {
        cat "$SCRATCH/err" >&2
        fail "expected '$expected' from: $*"
    }
}

# A short quick-start run into $1 (extra arguments are passed to qkv train).
quick_run() {
    local dir=$1
    shift
    "$QKV_BIN" train tests/train/synthetic.yaml --out "$dir" --set log.progress=off "$@" >"$dir.log" 2>&1 ||
        { cat "$dir.log" >&2; fail "qkv train $*"; }
}

# make_segmenter: writes $SCRATCH/train.conllu and $SCRATCH/dev.conllu, a small CoNLL-U corpus
# with # text, SpaceAfter=No, multiword tokens and paragraphs (the EWT sample in data/ has no
# MISC column, so no SpaceAfter), and trains a segmenter on it for a few steps
# (configs/ud_ewt_tokenize.yaml) into the run folder $1 (default $SCRATCH/seg; its model:
# checkpoints/last.h5). Further arguments go to qkv train.
make_segmenter() {
    local dir=${1:-$SCRATCH/seg}
    [ $# -eq 0 ] || shift
    "$PY" - "$SCRATCH" <<'PY'
import random, sys
SENTS = [
    [("I", "PRON", 1), (("don't", [("do", "AUX"), ("n't", "PART")]), None, 1), ("know", "VERB", 0), (",", "PUNCT", 1),
     ("she", "PRON", 1), ("said", "VERB", 0), (".", "PUNCT", 1)],
    [("It", "PRON", 1), ("costs", "VERB", 1), ("$", "SYM", 0), ("1,234.50", "NUM", 0), ("!", "PUNCT", 1)],
    [(("Cannot", [("Can", "AUX"), ("not", "PART")]), None, 1), ("say", "VERB", 0), (".", "PUNCT", 1)],
    [("The", "DET", 1), ("cat", "NOUN", 1), ("sat", "VERB", 0), (".", "PUNCT", 1)],
]
def write(path, n_par, seed):
    rng = random.Random(seed)
    out = []
    for p in range(n_par):
        for k in range(rng.randint(1, 3)):
            toks = rng.choice(SENTS)
            text, lines, i = "", [], 0
            for j, (form, upos, space) in enumerate(toks):
                last = j + 1 == len(toks)
                misc = "_" if space or last else "SpaceAfter=No"
                if isinstance(form, tuple):
                    surface, words = form
                    lines.append(f"{i + 1}-{i + len(words)}\t{surface}\t_\t_\t_\t_\t_\t_\t_\t{misc}")
                    for w, u in words:
                        i += 1
                        lines.append(f"{i}\t{w}\t_\t{u}\t_\t_\t_\t_\t_\t_")
                else:
                    surface = form
                    i += 1
                    lines.append(f"{i}\t{form}\t_\t{upos}\t_\t_\t_\t_\t_\t{misc}")
                text += surface + ("" if last or not space else " ")
            head = (["# newpar"] if k == 0 else []) + [f"# text = {text}"]
            out.append("\n".join(head + lines) + "\n")
    open(path, "w").write("\n".join(out) + "\n")
write(sys.argv[1] + "/train.conllu", 300, 1)
write(sys.argv[1] + "/dev.conllu", 40, 2)
PY
    "$QKV_BIN" train configs/ud_ewt_tokenize.yaml --out "$dir" --set log.progress=off \
        --set data.train="$SCRATCH/train.conllu" --set data.dev="$SCRATCH/dev.conllu" \
        --set train.max_steps=12 --set train.threads=1 --set data.batch_tokens=1500 --set log.plot=false "$@" \
        >"$dir.log" 2>&1 || { cat "$dir.log" >&2; fail "training the segmenter"; }
}

# A small parser (configs/ud_ewt_parse.yaml and ud_ewt_joint.yaml): one BiLSTM layer, small arc
# and label scorers, small batches, no progress bar or plot.
PARSE_SMALL=(--set data.batch_tokens=400 --set model.lstm_hidden=32 --set model.arc_dim=32 --set model.label_dim=16
             --set model.n_layers=1 --set log.progress=off --set log.plot=false)

# check_trees CONLLU: fails unless every sentence of CONLLU is a tree (every HEAD a word of the
# sentence or 0, no word its own head, no cycle) with exactly one root.
check_trees() {
    awk -F'\t' '
        function check(   i, k, steps, roots) {
            roots = 0
            for (i = 1; i <= n; i++) {
                if (head[i] !~ /^[0-9]+$/ || head[i] > n || head[i] == i) { print "bad head " head[i] " at line " line[i]; bad = 1 }
                roots += head[i] == 0
                for (k = i; k != 0 && steps < n + 1; steps++) k = head[k]
                if (k != 0) { print "cycle through line " line[i]; bad = 1 }
                steps = 0
            }
            if (n && roots != 1) { print roots " roots in the sentence ending at line " NR; bad = 1 }
            n = 0
        }
        /^$/ { check(); next }
        $1 ~ /^[0-9]+$/ { n++; head[n] = $7; line[n] = NR }
        END { check(); exit bad }' "$1" || fail "qkv tag wrote a sentence that is no tree"
}

# speech_corpus CONLLU N VOICES NAME [ARGS...]: `qkv speech` of the first N sentences of CONLLU
# in each of VOICES (comma-separated) into $SCRATCH/NAME (ARGS: more of its options).
speech_corpus() {
    "$QKV_BIN" speech "$1" --max-sentences "$2" --voices "$3" --out "$SCRATCH/$4" "${@:5}" 2>/dev/null ||
        fail "qkv speech $4"
}

# tiny_frames_config MAX_STEPS: $SCRATCH/tiny.yaml, a tiny phoneme frame model (held-out voice
# en-029) trained MAX_STEPS steps on $SCRATCH/train.h5, scored on $SCRATCH/dev.h5.
tiny_frames_config() {
    cat >"$SCRATCH/tiny.yaml" <<YAML
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32, attn_window: 8}
data: {task: frames, frame_labels: phoneme, held_out_voice: en-029, train: train.h5, dev: dev.h5, batch_tokens: 3000}
train: {seed: 1, max_steps: $1, word_dropout: 0}
optim: {lr: 3e-3, warmup_steps: 2}
log: {every_steps: 4, progress: off}
YAML
}

# require_mpi: skips the test (exit 77, one line why) without an MPI build and mpirun, or under
# the sanitizers; else sets MPIRUN, the 2-rank mpirun command line.
require_mpi() {
    if [ "${QKV_MPI_BUILT:-0}" != 1 ] || ! command -v mpirun >/dev/null; then
        echo "skipped: qkv was built without MPI (or mpirun is missing): apt-get install openmpi-bin libopenmpi-dev"
        exit 77
    fi
    if [ "${QKV_SANITIZED:-0}" = 1 ]; then
        echo "skipped: not under the sanitizers (Open MPI's own allocations stay live at exit)"
        exit 77
    fi
    MPIRUN=(mpirun -np 2 --oversubscribe -x OMP_NUM_THREADS=1)
    [ "$(id -u)" -ne 0 ] || MPIRUN+=(--allow-run-as-root)
}

# The interrupt tests' long synthetic run (stopped by a signal) and what they read of it: the
# train rows of RUN/metrics.tsv, and the step a checkpoint holds.
LONG_RUN=(--set train.threads=1 --set train.max_steps=100000 --set train.epochs=1000 --set data.synthetic_train=800
          --set data.synthetic_dev=100 --set model.d_model=32 --set model.d_ff=64 --set data.batch_tokens=400
          --set log.every_steps=1 --set log.plot=false --set log.progress=off --set train.eval_every=0)
train_rows() { awk -F'\t' '$3 == "train"' "$1/metrics.tsv" 2>/dev/null | wc -l; }
ckpt_step() { "$PY" -c "import h5py, sys; print(int(h5py.File(sys.argv[1], 'r')['train/step'][()]))" "$1"; }
