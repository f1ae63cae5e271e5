#!/bin/sh
# Cuts the UD English-EWT sample shipped in data/ud_english_ewt_sample/ from the full treebank,
# so that it can be remade and checked.
#
# usage: data/make-ewt-sample.sh EWT_DIR [OUT_DIR]
#   EWT_DIR  folder holding en_ewt-ud-train.conllu, en_ewt-ud-dev.conllu and LICENSE.txt
#            (data/fetch-ud.sh UD_English-EWT DIR r2.15 downloads them)
#   OUT_DIR  where to write the sample (default: data/ud_english_ewt_sample beside this script)
#
# What it writes: every 4th sentence of each file, starting with the first (sentences 1, 5, 9,
# ...: 3,136 of train's 12,544 and 501 of dev's 2,001), with every comment line and every
# ID, FORM, UPOS, XPOS, HEAD and DEPREL kept as they are and the columns the tagger and the
# parser never read (LEMMA, FEATS, DEPS, MISC) replaced by "_"; gzip-compressed (gzip -9n: no name or
# time stamp, so the same input and gzip version give the same bytes) as
# en_ewt-sample-train.conllu.gz and en_ewt-sample-dev.conllu.gz, plus the treebank's
# LICENSE.txt. The sample's README.md records the source files this was run on.
# Exit status 0 on success, 1 on failure (with a message), 2 on a usage error.
set -eu

die() { echo "make-ewt-sample.sh: $*" >&2; exit 1; }
usage() { awk 'NR >= 5 && !/^#/ { exit } NR >= 5 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
case "$1" in -h|--help) usage ;; esac
src=$1
out=${2:-$(dirname "$0")/ud_english_ewt_sample}
for f in en_ewt-ud-train.conllu en_ewt-ud-dev.conllu LICENSE.txt; do
    [ -f "$src/$f" ] || die "no $src/$f (is $src a UD English-EWT folder?)"
done
mkdir -p "$out" || die "cannot create $out"

# One sentence = one paragraph (RS = ""); a word, multiword-token or empty-node line keeps
# fields 1, 2, 4, 5, 7 and 8; comment lines are kept whole.
cut_sample() { # in out.gz
    LC_ALL=C awk '
        BEGIN { RS = ""; FS = "\n" }
        (NR - 1) % 4 == 0 {
            for (i = 1; i <= NF; i++) {
                line = $i
                if (line !~ /^#/) {
                    if (split(line, f, "\t") != 10) {
                        printf "sentence %d: a line without 10 TAB-separated fields: %s\n", NR, line > "/dev/stderr"
                        exit 1
                    }
                    line = f[1] "\t" f[2] "\t_\t" f[4] "\t" f[5] "\t_\t" f[7] "\t" f[8] "\t_\t_"
                }
                print line
            }
            print ""
        }' "$1" >"$2.tmp" || { rm -f "$2.tmp"; die "cannot cut $1"; }
    gzip -9n <"$2.tmp" >"$2" || { rm -f "$2.tmp" "$2"; die "cannot compress $2"; }
    rm -f "$2.tmp"
    echo "$2"
}

cut_sample "$src/en_ewt-ud-train.conllu" "$out/en_ewt-sample-train.conllu.gz"
cut_sample "$src/en_ewt-ud-dev.conllu" "$out/en_ewt-sample-dev.conllu.gz"
rm -f "$out/LICENSE.txt" && cp "$src/LICENSE.txt" "$out/LICENSE.txt" && chmod 644 "$out/LICENSE.txt" || die "cannot copy LICENSE.txt"
echo "make-ewt-sample.sh: source sha256 (compare with $out/README.md):" >&2
(cd "$src" && sha256sum en_ewt-ud-train.conllu en_ewt-ud-dev.conllu) >&2
