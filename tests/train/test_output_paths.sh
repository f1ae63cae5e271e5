#!/bin/bash
# Every file a command writes passes one rule (train/cli/output_file.h: qkv_output_check): never
# over one of the command's inputs, whatever the name (the same file, a symbolic link, a hard
# link), --force or not; over an existing file (or a name taken by a dangling symbolic link)
# only with --force. The test is a table: one row per writer (each output option, the
# gnuplot script or Graphviz file beside each image, a run folder's files, tag's standard
# output); each row is tried against each of its inputs and each way of reaching it, and every
# refusal must leave the inputs and the existing file as they were. A run folder's config.yaml is
# never the config file given either.
. "${QKV_SOURCE_DIR:?}/tests/train/common.sh"

quick_run "$SCRATCH/run" --set train.max_steps=4 --set train.eval_every=2
ck=$SCRATCH/model.h5
cp "$SCRATCH/run/checkpoints/last.h5" "$ck"
dev=$SCRATCH/dev.conllu
"$QKV_BIN" synth --sentences 20 --seed 3 >"$dev"
metrics=$SCRATCH/run/metrics.tsv
have_gnuplot=0
command -v gnuplot >/dev/null && have_gnuplot=1

# name | output extension | companion extension ("-": none) | inputs | works on this model (1/0) | arguments, OUT for the path
ROWS=(
    "eval --logits|.h5|-|$ck $dev|1|eval $ck $dev --logits OUT"
    "eval --confusion|.png|.gp|$ck $dev|$have_gnuplot|eval $ck $dev --confusion OUT"
    "attention --out|.png|.gp|$ck|$have_gnuplot|attention $ck --sentence the_dog --out OUT"
    "positions --out|.png|.gp|$ck|$have_gnuplot|positions $ck --out OUT"
    "plot --out|.png|.gp|$metrics|$have_gnuplot|plot $SCRATCH/run --out OUT"
    "parse-draw --out|.svg|.dot|$ck|0|parse-draw $ck --sentence the_dog --out OUT"
    "export --out|.h5|-|$ck|1|export $ck --out OUT"
)
if [ "${QKV_SPEECH_BUILT:-0}" = 1 ]; then
    ROWS+=("speech --out|.h5|-|$dev|0|speech $dev --out OUT")
fi
# every command that writes a file has a row (or is tried below: tag, train)
for cmd in $("$QKV_BIN" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
    "$QKV_BIN" "$cmd" --help | grep -qE -- '--(out|logits|confusion) ' || continue
    printf '%s\n' "${ROWS[@]}" | grep -q "^$cmd " || [ "$cmd" = train ] ||
        { [ "$cmd" = speech ] && [ "${QKV_SPEECH_BUILT:-0}" != 1 ]; } || fail "no row for the writer qkv $cmd"
done

sums() { for f in "$@"; do cksum <"$f"; done; }

# refused ROW_NAME WHAT ARGS...: the command must fail, leave the inputs as they were, and say why
refused() {
    local name=$1 what=$2
    shift 2
    local status=0
    "$QKV_BIN" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || status=$?
    [ "$status" -ne 0 ] && [ "$status" -lt 128 ] || { cat "$SCRATCH/err" >&2; fail "$name: $what: exit $status"; }
    grep -qE "is the input|already exists" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "$name: $what: no reason"; }
}

# run ROW OUT [--force]: the row's arguments with OUT
args_of() {
    local row=$1 out=$2
    local cmdline=${row##*|}
    # shellcheck disable=SC2086
    set -- ${cmdline//OUT/$out}
    printf '%s\n' "${@//the_dog/the dog}"
}

checked=0
for row in "${ROWS[@]}"; do
    IFS='|' read -r name ext comp inputs works _ <<<"$row"
    before=$(sums $inputs)
    d=$SCRATCH/case
    for input in $inputs; do
        for via in symlink hardlink companion-symlink companion-hardlink; do
            rm -rf "$d" && mkdir "$d"
            out=$d/out$ext
            case $via in
            symlink) ln -s "$input" "$out" ;;
            hardlink) ln "$input" "$out" ;;
            companion-*)
                [ "$comp" != - ] || continue
                if [ "$via" = companion-symlink ]; then ln -s "$input" "$d/out$comp"; else ln "$input" "$d/out$comp"; fi ;;
            esac
            mapfile -t a < <(args_of "$row" "$out")
            refused "$name" "$via to the input $input (--force)" "${a[@]}" --force
            checked=$((checked + 1))
        done
        # the input itself as the output, when its name fits the option
        if [ "${input##*.}" = "${ext#.}" ]; then
            mapfile -t a < <(args_of "$row" "$input")
            refused "$name" "the input $input itself (--force)" "${a[@]}" --force
            checked=$((checked + 1))
        fi
    done
    [ "$(sums $inputs)" = "$before" ] || fail "$name: an input was changed"
    # existing files without --force: the output, its companion, a dangling symbolic link
    for what in output companion dangling; do
        rm -rf "$d" && mkdir "$d"
        out=$d/out$ext
        case $what in
        output) echo keep >"$out"; kept=$out ;;
        companion) [ "$comp" != - ] || continue; echo keep >"$d/out$comp"; kept=$d/out$comp ;;
        dangling) ln -s "$d/nowhere" "$out"; kept= ;;
        esac
        mapfile -t a < <(args_of "$row" "$out")
        refused "$name" "an existing $what without --force" "${a[@]}"
        if [ -n "$kept" ]; then [ "$(cat "$kept")" = keep ] || fail "$name: the existing $what was changed"; fi
        [ -e "$d/nowhere" ] && fail "$name: wrote through a dangling symbolic link"
        checked=$((checked + 1))
    done
    # and it does write a new file, and replaces an unrelated one with --force
    if [ "$works" = 1 ]; then
        rm -rf "$d" && mkdir "$d"
        mapfile -t a < <(args_of "$row" "$d/out$ext")
        "$QKV_BIN" "${a[@]}" >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "$name to a new file"; }
        [ -s "$d/out$ext" ] || fail "$name wrote nothing"
        "$QKV_BIN" "${a[@]}" --force >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "$name --force"; }
    fi
done

# tag: standard output onto its input, directly or through a link
for via in same symlink hardlink; do
    rm -rf "$d" && mkdir "$d"
    cp "$dev" "$d/in.conllu"
    target=$d/in.conllu
    [ $via = symlink ] && ln -s "$d/in.conllu" "$d/link" && target=$d/link
    [ $via = hardlink ] && ln "$d/in.conllu" "$d/link" && target=$d/link
    status=0
    "$QKV_BIN" tag "$ck" "$d/in.conllu" >>"$target" 2>"$SCRATCH/err" || status=$?
    [ "$status" -ne 0 ] && grep -q "standard output is the same file as the input" "$SCRATCH/err" ||
        fail "tag: standard output onto its input ($via): exit $status"
    cmp -s "$d/in.conllu" "$dev" || fail "tag wrote onto its input ($via)"
    checked=$((checked + 1))
done

# train: no file of the run folder is one of the run's data files, even with --force
for file in metrics.tsv config.yaml checkpoints/last.h5; do
    for via in symlink hardlink; do
        rm -rf "$d" && mkdir -p "$d/r/checkpoints"
        cp "$dev" "$d/train.conllu"
        if [ $via = symlink ]; then ln -s "$d/train.conllu" "$d/r/$file"; else ln "$d/train.conllu" "$d/r/$file"; fi
        refused "train --out" "$file as a $via to data.train (--force)" train configs/quickstart.yaml --out "$d/r" \
            --force --set data.train="$d/train.conllu" --set data.dev="$dev" --set train.max_steps=1 \
            --set log.progress=off
        cmp -s "$d/train.conllu" "$dev" || fail "train wrote over its data.train through $file ($via)"
        checked=$((checked + 1))
    done
done
# train: the run's config.yaml is never the config file given (the same name, a symbolic or a
# hard link to it), --force or not; the user's file stays as it was and nothing is written
for via in same symlink hardlink; do
    for force in "" --force; do
        rm -rf "$d" && mkdir -p "$d/r"
        mine=$d/r/config.yaml
        [ $via = same ] || mine=$d/mine.yaml
        { echo "# my notes, kept"; cat tests/train/synthetic.yaml; } >"$mine"
        cp "$mine" "$d/copy"
        [ $via = symlink ] && ln -s "$mine" "$d/r/config.yaml"
        [ $via = hardlink ] && ln "$mine" "$d/r/config.yaml"
        status=0
        "$QKV_BIN" train "$mine" --out "$d/r" $force --set train.max_steps=1 --set log.progress=off \
            >"$SCRATCH/out" 2>"$SCRATCH/err" || status=$?
        [ "$status" -ne 0 ] && [ "$status" -lt 128 ] ||
            { cat "$SCRATCH/err" >&2; fail "train: config.yaml as its own input ($via $force): exit $status"; }
        grep -qF "$d/r/config.yaml is the input config" "$SCRATCH/err" && grep -qF "give another --out" "$SCRATCH/err" ||
            { cat "$SCRATCH/err" >&2; fail "train: config.yaml as its own input ($via $force): no reason"; }
        cmp -s "$mine" "$d/copy" || fail "train replaced its input config ($via $force)"
        [ ! -e "$d/r/checkpoints" ] || fail "train wrote into the run folder of its input config ($via $force)"
        checked=$((checked + 1))
    done
done
echo "ok: $checked refusals over ${#ROWS[@]} writers, tag and train"
