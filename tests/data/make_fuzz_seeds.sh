#!/bin/bash
# Makes the binary seeds of the fuzz targets (tests/data/fuzz.sh), small valid files of each
# kind, into tests/data/fuzz_seeds/<target>/: IDX images and labels (idx), gzip streams (gzip),
# WAV recordings (audio), speech frame corpora (frames, by qkv speech), and tiny model files
# (checkpoint: a tagger's training checkpoint and exports in float32 and float16, a parser, a
# frame model, an image model, a tagger with its segmenter). The HDF5 files are seeds as lists
# of their items (NAME.items, tests/data/fuzz_items.py; tests/data/fuzz_store.h says why), and
# one of each target as the file itself: frames/two_voices.h5 and checkpoint/bundle.h5, which
# the text target also uses as its model. The text seeds of the other targets are committed as
# they are. Needs the qkv command of a speech build (QKV_BIN, default build/qkv) and
# /usr/bin/python3. usage: tests/data/make_fuzz_seeds.sh   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/../.."
QKV_BIN=${QKV_BIN:-$PWD/build/qkv}
PY=/usr/bin/python3
SEEDS=$PWD/tests/data/fuzz_seeds
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/qkv-seeds.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
fail() { echo "make_fuzz_seeds.sh: $*" >&2; exit 1; }
mkdir -p "$SEEDS"/{idx,gzip,audio,frames,checkpoint}

# IDX: images of 3 and 4 dimensions, their labels (data/idx.h); gzip: one member, two, an
# empty one; WAV: 16-bit mono and 8-bit stereo at 22050 Hz, 32-bit float, 16-bit at 16 kHz.
"$PY" - "$SEEDS" <<'PY'
import gzip, math, struct, sys, wave
seeds = sys.argv[1]
def idx(name, dims, values):
    with open(f"{seeds}/idx/{name}", "wb") as f:
        f.write(bytes([0, 0, 8, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + bytes(values))
idx("images3.idx", [3, 4, 4], [(i * 37) % 256 for i in range(48)])
idx("images4.idx", [2, 2, 3, 3], [(i * 11) % 256 for i in range(36)])
idx("labels.idx", [3], [0, 9, 4])
idx("one_pixel.idx", [1, 1, 1], [255])
text = b"# text = The cat sat.\n1\tThe\t_\tDET\n2\tcat\t_\tNOUN\n3\tsat\t_\tVERB\n4\t.\t_\tPUNCT\n\n"
for name, data in [("one.gz", gzip.compress(text, mtime=0)),
                   ("two.gz", gzip.compress(text[:30], mtime=0) + gzip.compress(text[30:], mtime=0)),
                   ("empty.gz", gzip.compress(b"", mtime=0)), ("plain.txt", text)]:
    open(f"{seeds}/gzip/{name}", "wb").write(data)
def tone(n, rate, amp):
    return [amp * math.sin(2 * math.pi * 440 * i / rate) for i in range(n)]
def pcm(name, rate, width, channels, samples):
    with wave.open(f"{seeds}/audio/{name}", "wb") as w:
        w.setnchannels(channels), w.setsampwidth(width), w.setframerate(rate)
        if width == 1:
            w.writeframes(bytes(int(128 + 127 * s) for s in samples for _ in range(channels)))
        else:
            w.writeframes(b"".join(struct.pack("<h", int(32767 * s)) for s in samples for _ in range(channels)))
pcm("mono16.wav", 22050, 2, 1, tone(1200, 22050, 0.5))
pcm("stereo8.wav", 22050, 1, 2, tone(800, 22050, 0.3))
pcm("rate16k.wav", 16000, 2, 1, tone(400, 16000, 0.5))
data = b"".join(struct.pack("<f", s) for s in tone(900, 22050, 0.8))
fmt = struct.pack("<HHIIHH", 3, 1, 22050, 22050 * 4, 4, 32)  # IEEE float, mono
open(f"{seeds}/audio/float32.wav", "wb").write(
    b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data)) + b"WAVE" + b"fmt " + struct.pack("<I", len(fmt))
    + fmt + b"data" + struct.pack("<I", len(data)) + data)
PY

# Frame corpora: two short sentences in two voices, one in one voice, both as one utterance
# with noise.
printf '%s\n' '# text = a cat' '1	a	_	DET	_	_	_	_	_	_' '2	cat	_	NOUN	_	_	_	_	_	_' '' \
    '# text = go' '1	go	_	VERB	_	_	_	_	_	_' '' >"$SCRATCH/two.conllu"
"$QKV_BIN" speech "$SCRATCH/two.conllu" --voices en-us,en-029 --rates 200 --pitches 50 --out "$SCRATCH/frames.h5" \
    2>/dev/null || fail "qkv speech (a build with eSpeak NG and FFTW is needed)"
cp "$SCRATCH/frames.h5" "$SEEDS/frames/two_voices.h5"
"$PY" tests/data/fuzz_items.py "$SCRATCH/frames.h5" "$SEEDS/frames/two_voices.items"
"$QKV_BIN" speech "$SCRATCH/two.conllu" --voices en-gb --max-sentences 1 --out "$SCRATCH/one.h5" \
    2>/dev/null || fail "qkv speech one.h5"
"$PY" tests/data/fuzz_items.py "$SCRATCH/one.h5" "$SEEDS/frames/one.items"
"$QKV_BIN" speech "$SCRATCH/two.conllu" --voices en-us --sentences-per-utterance 2 --snr 10 \
    --out "$SCRATCH/joined.h5" 2>/dev/null || fail "qkv speech joined.h5"
"$PY" tests/data/fuzz_items.py "$SCRATCH/joined.h5" "$SEEDS/frames/joined.items"

# Tiny models: a synthetic tagger, a parser, a segmenter bundled with the tagger, a frame model
# and an image model, each trained a few steps.
TINY=(--set model.d_model=8 --set model.n_heads=2 --set model.n_layers=1 --set model.d_ff=16 --set log.progress=off
      --set log.plot=false --set train.threads=1)
train() { # NAME CONFIG ARGS...: a run folder $SCRATCH/NAME
    local name=$1 config=$2
    shift 2
    "$QKV_BIN" train "$config" --out "$SCRATCH/$name" "$@" >"$SCRATCH/$name.log" 2>&1 ||
        { cat "$SCRATCH/$name.log" >&2; fail "qkv train $name"; }
}
items() { # FILE.h5 NAME: the items of FILE.h5 as the seed NAME.items (tests/data/fuzz_store.h)
    "$PY" tests/data/fuzz_items.py "$1" "$SEEDS/checkpoint/$2.items"
}
export_model() { # RUN NAME ARGS...: the export of RUN's last checkpoint as a seed
    local run=$1 name=$2
    shift 2
    "$QKV_BIN" export "$SCRATCH/$run/checkpoints/last.h5" --out "$SCRATCH/export-$name.h5" "$@" >/dev/null ||
        fail "qkv export $name"
    items "$SCRATCH/export-$name.h5" "$name"
}
train tagger tests/train/synthetic.yaml "${TINY[@]}" --set data.synthetic_train=40 --set data.synthetic_dev=10 --set data.prefix_len=0 --set data.suffix_len=0 \
    --set train.max_steps=2
items "$SCRATCH/tagger/checkpoints/last.h5" tagger_checkpoint
export_model tagger tagger
export_model tagger tagger_float16 --float16
train parser configs/ud_ewt_parse.yaml --set data.train=data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz \
    --set data.dev=data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz --set model.d_model=8 --set model.lstm_hidden=8 --set model.arc_dim=8 \
    --set model.label_dim=8 --set model.n_layers=1 --set data.batch_tokens=400 --set train.max_steps=2 \
    --set log.progress=off --set log.plot=false --set train.threads=1 --set data.word_min_count=50 \
    --set data.prefix_len=0 --set data.suffix_len=0
export_model parser parser
printf '%s\n' '# newpar' "# text = I don't know." '1	I	_	PRON	_	_	_	_	_	_' '2-3	don'"'"'t	_	_	_	_	_	_	_	_' \
    '2	do	_	AUX	_	_	_	_	_	_' '3	n'"'"'t	_	PART	_	_	_	_	_	_' '4	know	_	VERB	_	_	_	_	_	SpaceAfter=No' \
    '5	.	_	PUNCT	_	_	_	_	_	_' '' '# text = Go!' '1	Go	_	VERB	_	_	_	_	_	SpaceAfter=No' \
    '2	!	_	PUNCT	_	_	_	_	_	_' '' >"$SCRATCH/seg.conllu"
train seg configs/ud_ewt_tokenize.yaml "${TINY[@]}" --set data.train="$SCRATCH/seg.conllu" \
    --set data.dev="$SCRATCH/seg.conllu" --set train.max_steps=2 --set model.attn_window=2 --set model.attn_rel_clip=2
"$QKV_BIN" export "$SCRATCH/tagger/checkpoints/last.h5" --tokenizer "$SCRATCH/seg/checkpoints/last.h5" \
    --out "$SEEDS/checkpoint/bundle.h5" --force >/dev/null || fail "qkv export bundle.h5"
items "$SEEDS/checkpoint/bundle.h5" bundle
cp "$SCRATCH/frames.h5" "$SCRATCH/train.h5"
train frames configs/speech/phoneme.yaml "${TINY[@]}" --set data.train="$SCRATCH/train.h5" \
    --set data.dev="$SCRATCH/train.h5" --set data.held_out_voice=en-029 --set train.max_steps=2
export_model frames frames
train images configs/images_quick.yaml "${TINY[@]}" --set model.patch_size=14 --set train.max_steps=2 \
    --set data.valid_fraction=0.01
export_model images images
ls -l "$SEEDS"/{idx,gzip,audio,frames,checkpoint}
