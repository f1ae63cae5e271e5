#!/bin/bash
# data/make-ewt-sample.sh on a made-up treebank folder: every 4th sentence from the first,
# comments kept, ID FORM UPOS XPOS HEAD DEPREL kept and the other columns "_", gzip-compressed, LICENSE.txt
# copied; a folder without the files and a bad line fail with a message. (The real sample is
# remade from the whole EWT in test_ewt_commands.sh.)
set -u
fail() { echo "FAIL: $*"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/ewt"
# 9 sentences s1..s9 (one word each, s5 with a multiword token and an empty node)
for i in 1 2 3 4 5 6 7 8 9; do
    printf '# sent_id = s%d\n' "$i"
    if [ "$i" = 5 ]; then
        printf '1-2\tdon'"'"'t\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n'
        printf '1\tdo\tdo\tAUX\tVBP\tMood=Ind\t0\troot\t0:root\t_\n'
        printf '1.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t0:root\t_\n'
        printf '2\tn'"'"'t\tnot\tPART\tRB\tPolarity=Neg\t1\tadvmod\t1:advmod\t_\n'
    else
        printf '1\tw%d\tlemma%d\tNOUN\tNN\tNumber=Sing\t0\troot\t0:root\tSpaceAfter=No\n' "$i" "$i"
    fi
    printf '\n'
done >"$T/ewt/en_ewt-ud-train.conllu"
head -n 6 "$T/ewt/en_ewt-ud-train.conllu" >"$T/ewt/en_ewt-ud-dev.conllu" # s1, s2
echo "license text" >"$T/ewt/LICENSE.txt"

data/make-ewt-sample.sh "$T/ewt" "$T/out" >"$T/list" 2>"$T/err" || { cat "$T/err"; fail "exited $?"; }
cat >"$T/expected" <<'END'
# sent_id = s1
1	w1	_	NOUN	NN	_	0	root	_	_

# sent_id = s5
1-2	don't	_	_	_	_	_	_	_	_
1	do	_	AUX	VBP	_	0	root	_	_
1.1	go	_	VERB	VB	_	_	_	_	_
2	n't	_	PART	RB	_	1	advmod	_	_

# sent_id = s9
1	w9	_	NOUN	NN	_	0	root	_	_

END
cmp -s "$T/expected" <(gzip -dc "$T/out/en_ewt-sample-train.conllu.gz") ||
    { gzip -dc "$T/out/en_ewt-sample-train.conllu.gz"; fail "train sample"; }
cmp -s <(head -n 3 "$T/expected") <(gzip -dc "$T/out/en_ewt-sample-dev.conllu.gz") || fail "dev sample"
cmp -s "$T/ewt/LICENSE.txt" "$T/out/LICENSE.txt" || fail "LICENSE.txt not copied"
grep -qx "$T/out/en_ewt-sample-train.conllu.gz" "$T/list" || fail "file list: $(cat "$T/list")"
# the same input gives the same bytes
data/make-ewt-sample.sh "$T/ewt" "$T/again" >/dev/null 2>&1 || fail "second run"
cmp -s "$T/out/en_ewt-sample-train.conllu.gz" "$T/again/en_ewt-sample-train.conllu.gz" || fail "not deterministic"
"$QKV_BIN" stats "$T/out/en_ewt-sample-train.conllu.gz" >/dev/null || fail "qkv stats cannot read the sample"

data/make-ewt-sample.sh "$T/none" "$T/o2" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "no $T/none/en_ewt-ud-train.conllu" "$T/err" || fail "missing folder: rc $rc"
printf '1\tw\t_\tX\n\n' >"$T/ewt/en_ewt-ud-dev.conllu"
data/make-ewt-sample.sh "$T/ewt" "$T/o3" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "without 10 TAB-separated fields" "$T/err" || { cat "$T/err"; fail "bad line: rc $rc"; }
data/make-ewt-sample.sh >/dev/null 2>&1; [ $? -eq 2 ] || fail "usage: expected exit 2"
echo ok
