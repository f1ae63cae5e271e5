#!/bin/bash
# The runnable command blocks of README.md and docs/ (marked <!-- runnable --> or
# <!-- runnable: long --> before a ```sh block) run as written on the shipped sample, in a
# scratch copy of configs/ and data/ (tests/docs/run_blocks.sh), with every `qkv train` cut to
# 20 steps so that the whole takes seconds; `tests/docs/run_blocks.sh --full` runs them uncut.
. "${QKV_SOURCE_DIR:?}/tests/train/common.sh"
# the runner can fail: a block with a wrong option, and a marker without its block
# shellcheck disable=SC2016 # a Markdown fence, not an expansion
printf '<!-- runnable -->\n```sh\n./build/qkv stats data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz --no-such-option\n```\n' \
    >"$SCRATCH/bad.md"
tests/docs/run_blocks.sh "$SCRATCH/bad.md" >"$SCRATCH/bad.log" 2>&1 && fail "run_blocks.sh accepts a failing block"
grep -q "FAIL .*bad.md block 001.short" "$SCRATCH/bad.log" || { cat "$SCRATCH/bad.log" >&2; fail "no FAIL line for the failing block"; }
printf '<!-- runnable -->\nno block\n' >"$SCRATCH/lone.md"
tests/docs/run_blocks.sh "$SCRATCH/lone.md" >"$SCRATCH/lone.log" 2>&1 && fail "run_blocks.sh accepts a marker without a block"
grep -q "lone.md:2: a runnable marker must be followed" "$SCRATCH/lone.log" || { cat "$SCRATCH/lone.log" >&2; fail "no error for a lone marker"; }

git_status() { git status --porcelain --untracked-files=all 2>/dev/null || true; }
before=$(git_status)
tests/docs/run_blocks.sh >"$SCRATCH/run.log" 2>&1 || { cat "$SCRATCH/run.log" >&2; fail "a runnable block of the documentation fails"; }
cat "$SCRATCH/run.log"
[ "$(grep -c '^ok .*short' "$SCRATCH/run.log")" -ge 3 ] || fail "expected at least 3 short runnable blocks"
[ "$(git_status)" = "$before" ] || fail "the runnable blocks wrote into the source tree"
echo "ok: $(grep -c '^ok ' "$SCRATCH/run.log") runnable blocks of the documentation run"
