#!/bin/bash
# qkv serve against qkv tag, same model (the shipped English one), same text, same threads (2):
#   1. qkv tag on one file of the EWT sample's sentences, two to a paragraph (the reference);
#   2. qkv serve with 8 clients sending those paragraphs, one a request (tests/bench/serve_load.py);
#   3. qkv tag started once per paragraph (what a script without a server does);
#   4. one-sentence requests from one client: the latency an idle server gives;
#   5. 64 clients for 90 s: the server's resident memory after 60 s and at the end.
# Prints words/s of each and their ratios to the reference. Run it alone on the machine, from the
# source tree's root:  tests/bench/serve_vs_tag.sh [QKV]   (default build/qkv)
set -eu
QKV=${1:-build/qkv}
PY=/usr/bin/python3
LOAD=tests/bench/serve_load.py
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# the paragraphs: the sample's "# text" lines two at a time, a blank line after each
zcat data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz | sed -n 's/^# text = //p' |
    awk '{ printf "%s%s", $0, NR % 2 ? " " : "\n\n" } END { if (NR % 2) print "\n" }' >"$tmp/pars.txt"
for _ in 1 2 3 4 5 6 7 8; do cat "$tmp/pars.txt"; done >"$tmp/big.txt"
n_pars=$(grep -c . "$tmp/pars.txt")
words() { grep -c -P '^\d+\t' "$1"; }
now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; } # calc EXPRESSION: awk's arithmetic

start=$(now)
"$QKV" tag --threads 2 "$tmp/big.txt" >"$tmp/big.conllu"
ref=$(calc "$(words "$tmp/big.conllu") / ($(now) - $start)")
printf '1. qkv tag, one file of %d paragraphs: %.0f words/s\n' "$((8 * n_pars))" "$ref"

"$QKV" serve --port 0 --threads 2 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 100); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/serve.log")
    [ -z "$port" ] || break
    sleep 0.2
done
url=http://127.0.0.1:$port
"$PY" "$LOAD" "$url" --clients 8 --seconds 20 --sentences 2 | tee "$tmp/load8"
served=$(awk 'NR == 2 { print $4 }' "$tmp/load8")
printf '2. qkv serve, 8 clients, 2 sentences a request: %.0f words/s = %.2f of qkv tag on one file\n' \
    "$served" "$(calc "$served / $ref")"

awk 'BEGIN { RS = "" } NR <= 40 { f = sprintf("%s/par%02d.txt", dir, NR); print > f; close(f) }' dir="$tmp" "$tmp/pars.txt"
start=$(now)
for f in "$tmp"/par*.txt; do "$QKV" tag --threads 2 "$f"; done >"$tmp/each.conllu"
each=$(calc "$(words "$tmp/each.conllu") / ($(now) - $start)")
printf '3. qkv tag started once per paragraph (40): %.0f words/s = %.2f of qkv tag on one file\n' \
    "$each" "$(calc "$each / $ref")"

echo "4. one client, one sentence a request:"
"$PY" "$LOAD" "$url" --clients 1 --seconds 20 --sentences 1

echo "5. 64 clients, 2 sentences a request, 90 s:"
"$PY" "$LOAD" "$url" --clients 64 --seconds 90 --sentences 2 >"$tmp/load64" &
load=$!
sleep 60
rss60=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
wait "$load"
cat "$tmp/load64"
rss90=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
printf '   server resident memory: %d MB after 60 s, %d MB at the end (peak %d MB): %+.1f%%\n' \
    $((rss60 / 1024)) $((rss90 / 1024)) $((hwm / 1024)) "$(calc "100 * ($rss90 - $rss60) / $rss60")"
kill -TERM "$pid"
wait "$pid" || true
pid=
