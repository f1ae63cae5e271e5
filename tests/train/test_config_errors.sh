#!/bin/bash
# Config errors of qkv's own schema: each gives file:line:col and what is wrong, before any
# work starts; and configs/README.md is the current `qkv config --doc`.
. "$(dirname "$0")/common.sh"
cfg=$SCRATCH/c.yaml
check() { # check EXPECTED YAML
    printf '%s\n' "$2" >"$cfg"
    expect_error "$1" "$QKV_BIN" train "$cfg" --out "$SCRATCH/run"
    [ ! -e "$SCRATCH/run" ] || fail "a run folder was created for a bad config"
}
check "c.yaml:2:3: unknown key 'd_modle' in section 'model', did you mean 'd_model'?" $'model:\n  d_modle: 64'
check "c.yaml:2:3: key 'lr' belongs in section 'optim'" $'train:\n  lr: 0.1'
check "c.yaml:3:3: duplicate key 'd_model'" $'model:\n  d_model: 64\n  d_model: 32'
check "c.yaml:2:12: expected an integer for d_model, got 'big'" $'model:\n  d_model: big'
check "c.yaml:2:12: d_model must be between 1 and 4096, got 0" $'model:\n  d_model: 0'
check "c.yaml:1:1: unknown section 'modle'" $'modle:\n  d_model: 64'
check "c.yaml:2:15: positional must be one of" $'model:\n  positional: rotary'
check "n_heads = 3 does not divide model.d_model = 64" $'model:\n  d_model: 64\n  n_heads: 3'
check "c.yaml:2:9: tags names 'upos' twice" $'data:\n  tags: [upos, xpos, upos]'
check "c.yaml:2:9: tags must be one of 'upos', 'xpos', 'feats', 'lemma', 'deprel', got 'deps'" $'data:\n  tags: [upos, deps]'
check "c.yaml:2:9: tags must be one of 'upos', 'xpos', 'feats', 'lemma', 'deprel', got 'lemmas', did you mean 'lemma'?" $'data:\n  tags: lemmas'
check "model.head_weights has 3 weights, data.tags 2 columns" $'data:\n  tags: [upos, xpos]\nmodel:\n  head_weights: [1, 1, 2]'
check "model.head_weights must be numbers >= 0" $'data:\n  tags: [upos, xpos]\nmodel:\n  head_weights: [1, heavy]'
check "train.select_columns names lemma, which data.tags does not list" $'data:\n  tags: [upos, xpos]\ntrain:\n  select_columns: [lemma]'
check "c.yaml: model.positional = rope needs an even d_head = model.d_model / model.n_heads, got 60 / 4 = 15 (it rotates pairs of columns)" $'model:\n  d_model: 60\n  n_heads: 4\n  positional: rope'
check "c.yaml: model.positional = alibi needs model.attn_normalize = softmax, got relu" $'model:\n  positional: alibi\n  attn_normalize: relu'
check "c.yaml: model.input = frames needs data.task = frames, got tag" $'model:\n  input: frames'
check "c.yaml:2:15: positional must be one of 'none', 'sinusoidal', 'learned', 'rope', 'alibi', 'floater', 'rel2d', 'quadratic2d', 'rope2d', 'sinusoidal2d', 'learned2d', got 'xpos'" $'model:\n  positional: xpos'
check "c.yaml:2:12: encoder must be one of 'transformer', 'bilstm', 'cnn', 'cnn2d', got 'gru'" $'model:\n  encoder: gru'
check "c.yaml: model.positional does not apply to model.encoder: bilstm (it is read by transformer only)" $'model:\n  encoder: bilstm\n  positional: rope'
check "c.yaml: model.attn_rel_clip does not apply to model.encoder: cnn (it is read by transformer only)" $'model:\n  encoder: cnn\n  attn_rel_clip: 4'
# keys of a head kind (model.output) and of a task (data.task), as the encoders' keys
check "c.yaml: model.arc_dim does not apply to model.output: crf (it is read by biaffine only)" $'model:\n  output: crf\n  arc_dim: 100'
check "c.yaml: model.crf_constrained does not apply to model.output: softmax (it is read by crf only)" $'model:\n  crf_constrained: true'
check "c.yaml: model.stem_layers does not apply to model.input: words (it is read by conv_patches only)" $'model:\n  stem_layers: 3'
check "c.yaml: data.frame_stack does not apply to data.task: tag (it is read by frames only)" $'data:\n  frame_stack: 3'
check "c.yaml: data.lexicon_min_count does not apply to data.task: frames (it is read by segment only)" \
    $'data:\n  task: frames\n  lexicon_min_count: 3'
check "c.yaml: data.task = images and model.input = words: the images task reads an image input" $'data:\n  task: images\n  source: synthetic'
check "c.yaml: data.task = segment and model.input = patches: the images task reads an image input" \
    $'data:\n  task: segment\n  source: synthetic\nmodel:\n  input: patches\n  output: class'
check "c.yaml: model.positional = rope2d needs d_head = model.d_model / model.n_heads a multiple of 4, got 24 / 4 = 6" \
    $'model:\n  d_model: 24\n  n_heads: 4\n  positional: rope2d'
check "c.yaml: model.attn_window_2d needs model.attn_normalize = softmax" $'model:\n  attn_window_2d: 2\n  attn_normalize: relu'
check "c.yaml: model.positional = rel2d and model.attn_rel_clip: one learned score bias per layer at most" \
    $'model:\n  positional: rel2d\n  attn_rel_clip: 2'
# the 2-D parts on words (no grid): named when the model is made, before any work
check "model.positional = quadratic2d needs a 2-D grid of tokens (an image input); this model's input has none" \
    $'model:\n  positional: quadratic2d\ndata:\n  source: synthetic\n  synthetic_train: 20\n  synthetic_dev: 5'
check "model.attn_window_2d = 1 needs a 2-D grid of tokens" \
    $'model:\n  attn_window_2d: 1\ndata:\n  source: synthetic\n  synthetic_train: 20\n  synthetic_dev: 5'
check "model.encoder = cnn2d needs a 2-D grid of tokens" \
    $'model:\n  encoder: cnn2d\ndata:\n  source: synthetic\n  synthetic_train: 20\n  synthetic_dev: 5'
check "c.yaml: data.tag_scheme = iob1 cannot train with model.crf_constrained: its constraints are BIO's or BIOES's" \
    $'model:\n  output: crf\n  crf_constrained: true\ndata:\n  train: t.conll\n  tag_scheme: iob1'
# label smoothing: a float in [0, 1), not with a CRF (its loss is over tag sequences)
check "c.yaml:2:20: label_smoothing must be between 0 and 0.99, got 1" $'train:\n  label_smoothing: 1'
check "c.yaml: train.label_smoothing = 0.1 does not apply to model.output = crf" \
    $'train:\n  label_smoothing: 0.1\nmodel:\n  output: crf\ndata:\n  source: synthetic'
expect_error "--set train.epochs=0: epochs must be" "$QKV_BIN" train tests/train/synthetic.yaml --set train.epochs=0
expect_error "missing.yaml: cannot open" "$QKV_BIN" train "$SCRATCH/missing.yaml"
# a data file that does not exist: named, before training starts
printf 'data:\n  train: nowhere.conllu\n' >"$cfg"
expect_error "nowhere.conllu" "$QKV_BIN" train "$cfg" --out "$SCRATCH/run2"
# --set switching the head kind away: the file's biaffine key is noted and reset, not an error
printf 'model:\n  output: biaffine\n  arc_dim: 100\ndata:\n  tags: deprel\n  source: synthetic\n' >"$cfg"
"$QKV_BIN" config "$cfg" --set model.output=softmax >"$SCRATCH/switch.yaml" 2>"$SCRATCH/switch.err" ||
    fail "switching model.output away from a file's biaffine keys failed: $(cat "$SCRATCH/switch.err")"
grep -q "note: .*--set model.output=softmax: ignoring model.arc_dim from the file" "$SCRATCH/switch.err" ||
    fail "no note for the ignored model.arc_dim: $(cat "$SCRATCH/switch.err")"
grep -qx "  arc_dim: 256" "$SCRATCH/switch.yaml" || fail "the ignored model.arc_dim does not resolve to its default"
expect_error "train.label_smoothing = 0.2 does not apply to model.output = crf" "$QKV_BIN" train tests/train/synthetic.yaml \
    --set train.label_smoothing=0.2 --set model.output=crf --out "$SCRATCH/run3"
[ ! -e "$SCRATCH/run3" ] || fail "a run folder was created for label smoothing with a CRF"
diff <("$QKV_BIN" config --doc) <(sed -n '/^| section |/,$p' configs/README.md) ||
    fail "configs/README.md is not the output of 'qkv config --doc': regenerate its table"
echo "config errors: ok"
