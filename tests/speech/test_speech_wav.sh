#!/bin/bash
# qkv tag of a recording with a frame model (a tiny one trained on a generated corpus): a WAV
# written here by Python's wave module (1.5 s of tones and noise, 22,050 Hz, 16-bit) gets a
# header "# recording FILE: 1.500 s at 22050 Hz" and runs of labels of the model's phone set,
# contiguous from 0 to the end of the recording, whose expansion is the --per-frame output (one
# line per 10 ms frame); the same samples in two equal channels label the same. Errors, each
# naming the file with a non-zero exit: 44,100 Hz audio, a file that is not audio, an empty
# file, a WAV truncated in its samples or its header, a WAV of no sample, standard input, a
# recording longer than --max-seconds (one of exactly --max-seconds is tagged).
# Skips without libsndfile.
. "$QKV_SOURCE_DIR/tests/train/common.sh"
[ "${QKV_SNDFILE_BUILT:-0}" = 1 ] || { echo "skipped: this build reads no audio files (libsndfile1-dev)"; exit 77; }
S=data/ud_english_ewt_sample
speech_corpus $S/en_ewt-sample-dev.conllu.gz 4 en-us,en-gb-x-rp train.h5
speech_corpus $S/en_ewt-sample-train.conllu.gz 2 en-us,en-029 dev.h5
tiny_frames_config 4
"$QKV_BIN" train "$SCRATCH/tiny.yaml" --out "$SCRATCH/ph" >"$SCRATCH/ph.out" 2>"$SCRATCH/ph.log" ||
    { cat "$SCRATCH/ph.log" >&2; fail "qkv train"; }
ck=$SCRATCH/ph/checkpoints/best.h5

"$PY" - "$SCRATCH" <<'PY'
import math, random, struct, sys, wave
d = sys.argv[1]
rng = random.Random(3)
n = 33075  # 1.5 s at 22,050 Hz
x = [0.3 * math.sin(2 * math.pi * (300 if i < n // 3 else 1200) * i / 22050) if i < 2 * n // 3
     else 0.2 * rng.uniform(-1, 1) for i in range(n)]
pcm = [int(round(v * 32767)) for v in x]
def write(name, rate, channels, samples):
    w = wave.open(f"{d}/{name}", "wb")
    w.setnchannels(channels); w.setsampwidth(2); w.setframerate(rate)
    w.writeframes(b"".join(struct.pack("<h", s) for s in samples for _ in range(channels)))
    w.close()
write("rec.wav", 22050, 1, pcm)
write("stereo.wav", 22050, 2, pcm)
write("fast.wav", 44100, 1, pcm)
write("none.wav", 22050, 1, [])
write("one.wav", 22050, 1, pcm[:22050])
data = open(f"{d}/rec.wav", "rb").read()
open(f"{d}/cut.wav", "wb").write(data[:len(data) // 2])
open(f"{d}/head.wav", "wb").write(data[:30])
open(f"{d}/empty.wav", "wb").close()
open(f"{d}/text.wav", "w").write("1\tHello\thello\tINTJ\t_\t_\t0\troot\t_\t_\n")
PY

"$QKV_BIN" tag "$ck" "$SCRATCH/rec.wav" >"$SCRATCH/runs" 2>"$SCRATCH/tag.err" || { cat "$SCRATCH/tag.err" >&2; fail "qkv tag rec.wav"; }
"$QKV_BIN" tag "$ck" "$SCRATCH/rec.wav" --per-frame >"$SCRATCH/frames" || fail "qkv tag rec.wav --per-frame"
"$QKV_BIN" tag "$ck" "$SCRATCH/stereo.wav" >"$SCRATCH/stereo" || fail "qkv tag stereo.wav"
"$QKV_BIN" tag "$ck" "$SCRATCH/dev.h5" | grep -q "^# utterance 0, voice " || fail "a frame corpus is no longer tagged"
"$PY" - "$SCRATCH" "$ck" <<'PY' || fail "the labels of rec.wav"
import sys, h5py
d, ck = sys.argv[1], sys.argv[2]
lines = open(f"{d}/runs").read().split("\n")
assert lines[0] == f"# recording {d}/rec.wav: 1.500 s at 22050 Hz", lines[0]
assert lines[-2:] == ["", ""], lines[-3:]  # the runs end with a blank line
runs = [l.split("\t") for l in lines[1:-2]]
assert runs and all(len(r) == 3 for r in runs), runs[:3]
assert runs[0][0] == "0.000" and runs[-1][1] == "1.500", (runs[0], runs[-1])
assert all(runs[i][1] == runs[i + 1][0] for i in range(len(runs) - 1)), "runs not contiguous"
assert all(float(r[0]) < float(r[1]) for r in runs)
assert all(runs[i][2] != runs[i + 1][2] for i in range(len(runs) - 1)), "two runs of one label"
tags = set(bytes(h5py.File(ck)["vocab/tags"][()]).decode().split("\0"))
assert all(r[2] in tags for r in runs), [r[2] for r in runs if r[2] not in tags]
frames = [l.split("\t") for l in open(f"{d}/frames").read().split("\n")[1:-2]]
assert len(frames) == 1 + (33075 - 551) // 221, len(frames)  # 25 ms windows, 10 ms hop
assert all(f[0] == f"{t * 221 / 22050:.3f}" for t, f in enumerate(frames))
collapsed = [f[1] for i, f in enumerate(frames) if i == 0 or frames[i - 1][1] != f[1]]
assert collapsed == [r[2] for r in runs]
stereo = open(f"{d}/stereo").read().split("\n")
assert stereo[1:] == lines[1:], "two equal channels label otherwise than one"
PY

expect_error "$SCRATCH/fast.wav: 44100 Hz audio; the model reads 22050 Hz" "$QKV_BIN" tag "$ck" "$SCRATCH/fast.wav"
expect_error "$SCRATCH/text.wav: not an audio file libsndfile reads" "$QKV_BIN" tag "$ck" "$SCRATCH/text.wav"
expect_error "$SCRATCH/empty.wav: an empty file" "$QKV_BIN" tag "$ck" "$SCRATCH/empty.wav"
expect_error "$SCRATCH/cut.wav: truncated" "$QKV_BIN" tag "$ck" "$SCRATCH/cut.wav"
expect_error "$SCRATCH/head.wav: a truncated or damaged WAV file" "$QKV_BIN" tag "$ck" "$SCRATCH/head.wav"
expect_error "$SCRATCH/none.wav: an empty recording (no sample)" "$QKV_BIN" tag "$ck" "$SCRATCH/none.wav"
expect_error "$SCRATCH/missing.wav: cannot open" "$QKV_BIN" tag "$ck" "$SCRATCH/missing.wav"
expect_error "not standard input: give FILE" "$QKV_BIN" tag "$ck" - </dev/null
# the bound on a recording's length: one at the bound is tagged, one past it refused
"$QKV_BIN" tag "$ck" "$SCRATCH/one.wav" --max-seconds 1 | head -1 | grep -qF "one.wav: 1.000 s at 22050 Hz" ||
    fail "a recording of 1 s with --max-seconds 1"
expect_error "$SCRATCH/rec.wav: a recording of 1.5 s (33075 samples at 22050 Hz), longer than the 1 s a recording \
may have (it is tagged as one utterance; memory grows with its length; give a larger --max-seconds to tag it)" \
    "$QKV_BIN" tag "$ck" "$SCRATCH/rec.wav" --max-seconds 1
echo "qkv tag of a recording: ok"
