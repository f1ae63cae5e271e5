#!/bin/bash
# Installing qkv: `cmake --install` into a temporary prefix puts there the shared
# library, the static one (libqkv.a, with which the example links and runs without libqkv.so),
# include/qkv/qkv.h, the pkg-config file qkv.pc, the programs and their man pages; the example of
# docs/guide/library.md, examples/tag_sentences.c, compiled with cc and `pkg-config --cflags --libs qkv` against the
# installed copy, tags 1,000 sentences with an exported model exactly as `qkv tag` does; the
# shipped model (data/models/en.h5) is installed and the installed qkv tag finds it by itself.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
for tool in cmake cc pkg-config; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (install-deps.sh installs it)"
done
P=$SCRATCH/prefix
QKV_SANITIZED_FLAGS=()
[ "${QKV_SANITIZED:-0}" = 1 ] && QKV_SANITIZED_FLAGS=("-fsanitize=address,undefined")
cmake --install "${QKV_BUILD_DIR:?}" --prefix "$P" >"$SCRATCH/install.log" 2>&1 ||
    { cat "$SCRATCH/install.log" >&2; fail "cmake --install"; }
pc=$(find "$P" -name qkv.pc)
[ -n "$pc" ] || fail "no qkv.pc installed under $P"
for f in "$P/include/qkv/qkv.h" "$P/bin/qkv" "$P/bin/qkv-gradcheck"; do
    [ -f "$f" ] || fail "$f is not installed"
done
libdir=$(dirname "$(dirname "$pc")")
ls "$libdir"/libqkv.so* >/dev/null 2>&1 || fail "no libqkv.so in $libdir"
# exactly the public API is exported: the functions qkv.h declares
if command -v nm >/dev/null; then
    nm -D --defined-only "$libdir/libqkv.so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u \
        >"$SCRATCH/exported"
    grep -oE '\bqkv_[a-z_]+\(' "$P/include/qkv/qkv.h" | tr -d '(' | sort -u >"$SCRATCH/declared"
    [ "$(wc -l <"$SCRATCH/declared")" -ge 9 ] || fail "too few functions found in qkv.h"
    other=$(comm -23 "$SCRATCH/exported" "$SCRATCH/declared")
    [ -z "$other" ] || fail "libqkv.so exports more than qkv.h: $other"
    missing=$(comm -13 "$SCRATCH/exported" "$SCRATCH/declared")
    [ -z "$missing" ] || fail "libqkv.so does not export what qkv.h declares: $missing (api/libqkv.map)"
fi
"$P/bin/qkv" --version >/dev/null || fail "the installed qkv does not run"
# the shipped model: installed, and found by the installed qkv beside itself (../share/qkv/models)
cmp -s "$QKV_SOURCE_DIR/data/models/en.h5" "$P/share/qkv/models/en.h5" || fail "data/models/en.h5 is not installed"
cmp -s "$QKV_SOURCE_DIR/data/models/LICENSE" "$P/share/qkv/models/LICENSE" ||
    fail "the model's licence (data/models/LICENSE) is not installed beside it"
for f in LICENSE NOTICE; do
    [ -n "$(find "$P/share/doc" -name "$f" 2>/dev/null)" ] || fail "$f is not installed under share/doc"
done
echo "The end." | env -u QKV_MODEL -u QKV_MODEL_DIR "$P/bin/qkv" tag 2>"$SCRATCH/tag.err" >"$SCRATCH/tag.out" ||
    { cat "$SCRATCH/tag.err" >&2; fail "the installed qkv tag without a model"; }
grep -qP '^1\tThe\t' "$SCRATCH/tag.out" || fail "the installed qkv tag without a model wrote no word"
# a program elsewhere linked with the installed library opens the shipped model by name: the
# library finds the share/qkv/models of the prefix it was installed into (it looked only in the
# configured prefix, /usr/local/share, once)
cat >"$SCRATCH/named.c" <<'C'
#include <stdio.h>
#include <qkv/qkv.h>
int main(void)
{
    char *error = NULL;
    qkv_model *m = qkv_model_open_named("en", &error);
    if (!m) {
        fprintf(stderr, "named: %s\n", error);
        return 1;
    }
    qkv_model_free(m);
    return 0;
}
C
PKG_CONFIG_PATH=$libdir/pkgconfig cc -std=c11 "${QKV_SANITIZED_FLAGS[@]}" "$SCRATCH/named.c" \
    $(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs qkv) -o "$SCRATCH/named" 2>"$SCRATCH/cc.log" ||
    { cat "$SCRATCH/cc.log" >&2; fail "compiling a program that opens the model by name"; }
(cd / && env -u QKV_MODEL -u QKV_MODEL_DIR LD_LIBRARY_PATH="$libdir" "$SCRATCH/named") 2>"$SCRATCH/named.err" ||
    { cat "$SCRATCH/named.err" >&2; fail "qkv_model_open_named(\"en\") from the library installed into $P"; }
# the man pages (when the build wrote them: with help2man) land in share/man/man1, found by man
if [ "${QKV_MAN_BUILT:-0}" = 1 ]; then
    pages=$(cd "$QKV_BUILD_DIR/man" && ls -- *.1)
    [ "$(echo "$pages" | wc -l)" -ge 2 ] || fail "the build wrote fewer than 2 man pages"
    for page in $pages; do
        cmp -s "$QKV_BUILD_DIR/man/$page" "$P/share/man/man1/$page" || fail "man page $page is not installed"
    done
    if command -v man >/dev/null; then
        [ "$(man -M "$P/share/man" -w qkv-train)" = "$P/share/man/man1/qkv-train.1" ] ||
            fail "man -M PREFIX/share/man does not find qkv-train"
        # and by `man qkv` itself once PREFIX/bin is on the PATH
        [ "$(env -u MANPATH PATH="$P/bin:$PATH" man -w qkv)" = "$P/share/man/man1/qkv.1" ] ||
            fail "man qkv does not find PREFIX/share/man/man1/qkv.1 with PREFIX/bin on the PATH"
    fi
fi
export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --modversion qkv)" = "$("$P/bin/qkv" --version | cut -d' ' -f2)" ] || fail "qkv.pc's version"
flags=()
[ "${QKV_SANITIZED:-0}" = 1 ] && flags=("-fsanitize=address,undefined") # libqkv.so was built so
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "${flags[@]}" "$QKV_SOURCE_DIR/examples/tag_sentences.c" \
    $(pkg-config --cflags --libs qkv) -o "$SCRATCH/tag_sentences" 2>"$SCRATCH/cc.log" ||
    { cat "$SCRATCH/cc.log" >&2; fail "compiling examples/tag_sentences.c with pkg-config"; }
make_model
LD_LIBRARY_PATH=$libdir "$SCRATCH/tag_sentences" "$SCRATCH/model.h5" <"$SCRATCH/sentences.txt" \
    >"$SCRATCH/example.tsv" 2>"$SCRATCH/example.err" || { cat "$SCRATCH/example.err" >&2; fail "tag_sentences"; }
cmp -s "$SCRATCH/example.tsv" "$SCRATCH/expected.tsv" ||
    { diff "$SCRATCH/example.tsv" "$SCRATCH/expected.tsv" | head >&2; fail "tag_sentences and qkv tag disagree"; }
# the static library: the same example linked with libqkv.a (pkg-config --static for what it
# needs) runs without libqkv.so and tags the same
[ -f "$libdir/libqkv.a" ] || fail "no libqkv.a in $libdir"
nm "$libdir/libqkv.a" 2>/dev/null | grep -q ' T qkv_model_tag$' || fail "libqkv.a has no qkv_model_tag"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "${flags[@]}" "$QKV_SOURCE_DIR/examples/tag_sentences.c" $(pkg-config --cflags qkv) \
    "$libdir/libqkv.a" $(pkg-config --static --libs qkv | sed 's/-lqkv\b//') -o "$SCRATCH/tag_static" \
    2>"$SCRATCH/cc.log" || { cat "$SCRATCH/cc.log" >&2; fail "linking examples/tag_sentences.c with libqkv.a"; }
ldd "$SCRATCH/tag_static" | grep -q 'libqkv\.so' && fail "the static build still needs libqkv.so"
"$SCRATCH/tag_static" "$SCRATCH/model.h5" <"$SCRATCH/sentences.txt" >"$SCRATCH/static.tsv" 2>"$SCRATCH/static.err" ||
    { cat "$SCRATCH/static.err" >&2; fail "tag_sentences linked statically"; }
cmp -s "$SCRATCH/static.tsv" "$SCRATCH/expected.tsv" || fail "tag_sentences with libqkv.a and qkv tag disagree"
# an error is the library's message, from the program
status=0
LD_LIBRARY_PATH=$libdir "$SCRATCH/tag_sentences" "$SCRATCH/nothing.h5" </dev/null 2>"$SCRATCH/err" || status=$?
[ "$status" = 1 ] || fail "tag_sentences on a missing model file: exit $status, not 1"
grep -q "^tag_sentences: .*nothing.h5" "$SCRATCH/err" || fail "the error of a missing model file does not name it"
echo "ok: installed into $P; examples/tag_sentences.c built with pkg-config tags as qkv tag does"
