# qkv serve: UDPipe's REST API answers with the bytes qkv tag writes (raw text, CoNLL-U,
# horizontal and vertical input; curl and Python's urllib, urlencoded and multipart bodies),
# every bad request gets a 4xx with a JSON message and the server answers on after it,
# requests run side by side, /metrics counts them, and SIGTERM ends it with status 0.
. "$QKV_SOURCE_DIR/tests/serve/common.sh"
start_server --threads 2 --max-body 1100000 --max-words 100

# raw text: curl's multipart form, every step; the result is qkv tag's output byte for byte
printf 'I don'"'"'t know where Mr. Smith went. She said no!\n\nAnother paragraph, with "quotes".\n' >"$SCRATCH/raw.txt"
"$QKV_BIN" tag "$SCRATCH/raw.txt" >"$SCRATCH/raw.expected"
curl -sS -f -F tokenizer= -F tagger= -F parser= -F data="<$SCRATCH/raw.txt" "$URL/process" >"$SCRATCH/raw.json" ||
    fail "curl /process"
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["model"] == "en", r; sys.stdout.write(r["result"])' \
    "$SCRATCH/raw.json" >"$SCRATCH/raw.got" || fail "the answer is not the JSON of UDPipe's API"
cmp "$SCRATCH/raw.expected" "$SCRATCH/raw.got" || fail "raw text: the result differs from qkv tag"

# CoNLL-U in (the sample's first sentences, comments and gold columns), as qkv tag MODEL FILE
zcat data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz | awk '{ print } /^$/ && ++n == 12 { exit }' \
    >"$SCRATCH/in.conllu"
"$QKV_BIN" tag data/models/en.h5 "$SCRATCH/in.conllu" >"$SCRATCH/conllu.expected"
# horizontal and vertical input: the same words as CoNLL-U of ID and FORM only
awk -F'\t' '/^[0-9]+\t/ { printf "%s\t%s\t_\t_\t_\t_\t_\t_\t_\t_\n", $1, $2 } /^$/ { print }' "$SCRATCH/in.conllu" \
    >"$SCRATCH/words.conllu"
"$QKV_BIN" tag data/models/en.h5 "$SCRATCH/words.conllu" >"$SCRATCH/words.expected"

"$PY" - "$URL" "$SCRATCH" <<'PY' || fail "the Python client's checks"
import email.mime.multipart, email.mime.nonmultipart, email.policy, json, sys, threading
import urllib.error, urllib.parse, urllib.request
url, tmp = sys.argv[1], sys.argv[2]

def post(path, params, multipart=False):
    """(status, parsed JSON) of a POST, urlencoded or multipart as UDPipe's client sends it."""
    if multipart:
        msg = email.mime.multipart.MIMEMultipart("form-data", policy=email.policy.HTTP)
        for name, value in params.items():
            part = email.mime.nonmultipart.MIMENonMultipart("text", "plain")
            part.add_header("Content-Disposition", 'form-data; name="%s"' % name)
            part.add_header("Content-Transfer-Encoding", "8bit")
            part.set_payload(value, charset="utf-8")
            msg.attach(part)
        data = msg.as_bytes().split(b"\r\n\r\n", 1)[1]
        headers = {"Content-Type": msg["Content-Type"]}
    else:
        data, headers = urllib.parse.urlencode(params).encode(), {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url + path, data=data, headers=headers)) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())

models = json.loads(urllib.request.urlopen(url + "/models").read())
assert models == {"models": {"en": ["tokenizer", "tagger", "parser"]}, "default_model": "en"}, models

conllu = open(tmp + "/in.conllu", encoding="utf-8").read()
expected = open(tmp + "/conllu.expected", encoding="utf-8").read()
words = open(tmp + "/words.expected", encoding="utf-8").read()
st, r = post("/process", {"model": "en", "tagger": "", "parser": "", "data": conllu})
assert st == 200 and r["result"] == expected, ("urlencoded CoNLL-U", st)
st, r = post("/process", {"input": "conllu", "tagger": "", "parser": "", "data": conllu}, multipart=True)
assert st == 200 and r["result"] == expected, "multipart CoNLL-U"
# no step asked for: the input as it is
st, r = post("/process", {"data": conllu})
assert st == 200 and r["result"] == conllu, "CoNLL-U without tagger or parser"

sents = [[l.split("\t")[1] for l in s.split("\n") if l.split("\t")[0].isdigit()] for s in conllu.strip().split("\n\n")]
horizontal = "\n".join(" ".join(s) for s in sents) + "\n"
vertical = "".join("".join(w + "\n" for w in s) + "\n" for s in sents)
for name, text in (("horizontal", horizontal), ("vertical", vertical)):
    st, r = post("/process", {"input": name, "tagger": "", "parser": "", "data": text}, multipart=True)
    assert st == 200 and r["result"] == words, (name, st)
# GET with the parameters in the query
q = urllib.parse.urlencode({"input": "horizontal", "tagger": "", "parser": "", "data": horizontal})
r = json.loads(urllib.request.urlopen(url + "/process?" + q).read())
assert r["result"] == words, "GET /process"
# the tagger alone fills LEMMA, UPOS, XPOS and FEATS and leaves HEAD and DEPREL as given
st, r = post("/process", {"tagger": "", "data": conllu})
for got, want, given in zip(r["result"].split("\n"), expected.split("\n"), conllu.split("\n")):
    if got[:1].isdigit():
        g, w, i = got.split("\t"), want.split("\t"), given.split("\t")
        assert g[2:6] == w[2:6] and g[6:8] == i[6:8], (got, want, given)

# requests side by side give what one alone gives
results = [None] * 6
def run(k):
    results[k] = post("/process", {"input": "horizontal", "tagger": "", "parser": "", "data": horizontal})
threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
for t in threads: t.start()
for t in threads: t.join()
assert all(st == 200 and r["result"] == words for st, r in results), "parallel requests"
PY

# bad requests: each a 4xx with {"error": ...}; the server answers /health after each
bad() { # bad STATUS CURL_ARGS...
    local want=$1
    shift
    local got
    got=$(curl -sS -o "$SCRATCH/bad.json" -w '%{http_code}' "$@") || fail "curl $*"
    [ "$got" = "$want" ] || { cat "$SCRATCH/bad.json" >&2; fail "expected $want, got $got from: $*"; }
    "$PY" -c 'import json, sys; e = json.load(open(sys.argv[1]))["error"]; assert e, e' "$SCRATCH/bad.json" ||
        fail "no JSON error from: $*"
    [ "$(curl -sS -o /dev/null -w '%{http_code}' "$URL/health")" = 200 ] || fail "no /health after: $*"
}
bad 400 --data-raw 'tokenizer=&data=caf%E9' "$URL/process"                   # invalid UTF-8
bad 400 --data-raw 'tokenizer=&data=a%00b' "$URL/process"                    # a NUL byte
bad 400 "$URL/process?data=a%C3"                                             # invalid UTF-8 in the query
bad 400 --data-raw 'model=klingon&data=a' "$URL/process"                     # unknown model
bad 400 --data-raw 'input=xml&data=a' "$URL/process"                         # unknown input
bad 400 --data-raw 'output=matxin&data=a' "$URL/process"                     # unknown output
bad 400 --data-raw 'tagger=use_lemma%3D0&data=a' "$URL/process"              # tagger options
bad 400 --data-raw 'tokenizer=presegmented&data=a' "$URL/process"            # tokenizer options
bad 400 --data-raw 'tokenizer=normalized_spaces&data=a' "$URL/process"       # not what it writes
bad 400 --data-raw 'data=a%2' "$URL/process"                                 # a broken escape
bad 400 -X POST "$URL/process"                                               # no body, no data
bad 400 --data-raw 'tagger=&data=1%09foo%0A' "$URL/process"                  # broken CoNLL-U
bad 400 --data-raw 'tagger=&data=1%09a%09_%09_%09_%09_%09_%09_%09_%09_%0A3%09b%09_%09_%09_%09_%09_%09_%09_%09_%0A' \
    "$URL/process"                                                           # CoNLL-U ids out of order
bad 400 -H 'Content-Type: multipart/form-data; boundary=XyZ' --data-binary $'--XyZ\r\nContent-Disposition: form-data; name="data"\r\n\r\nno end' \
    "$URL/process"                                                           # multipart without its end
bad 400 -H 'Content-Type: multipart/form-data' --data-binary 'x' "$URL/process" # multipart without boundary
bad 415 -H 'Content-Type: text/plain' --data-binary 'hello' "$URL/process"   # not a form
bad 400 --data-raw "input=horizontal&tagger=&data=$(printf 'w%.0s+' $(seq 101))" "$URL/process" # > --max-words
bad 400 --data-raw "tokenizer=&tagger=&parser=&data=$(printf 'word%.0s+' $(seq 150))" "$URL/process" # raw text, > --max-words
head -c 1048576 /dev/zero | tr '\0' 'a' >"$SCRATCH/long.txt"
bad 400 -F tokenizer= -F data="<$SCRATCH/long.txt" "$URL/process"         # a 1 MB line without spaces
head -c 1200000 /dev/zero | tr '\0' 'a' >"$SCRATCH/huge.txt"
bad 413 -F data="<$SCRATCH/huge.txt" "$URL/process"                          # larger than --max-body
bad 404 "$URL/nowhere"
bad 405 -X DELETE "$URL/process"

# /metrics: Prometheus text counting the requests, errors and words
curl -sS -f "$URL/metrics" >"$SCRATCH/metrics" || fail "/metrics"
grep -q '^qkv_http_requests_total{route="/process",code="200"} ' "$SCRATCH/metrics" || fail "no request count"
errors=$(sed -n 's/^qkv_http_errors_total //p' "$SCRATCH/metrics")
[ "$errors" -ge 20 ] || fail "qkv_http_errors_total $errors, expected 20 or more"
words=$(sed -n 's/^qkv_words_total{model="en"} //p' "$SCRATCH/metrics")
[ "$words" -gt 100 ] || fail "qkv_words_total $words"
grep -q '^qkv_http_request_duration_seconds{route="/process",quantile="0.99"} ' "$SCRATCH/metrics" ||
    fail "no latency quantile"

# SIGTERM with a request in flight: it is answered whole, then the server exits 0
for _ in $(seq 15); do cat "$SCRATCH/raw.txt"; done >"$SCRATCH/more.txt"
curl -sS -f -F tokenizer= -F tagger= -F parser= -F data="<$SCRATCH/more.txt" "$URL/process" >"$SCRATCH/last.json" &
client=$!
sleep 0.3
stop_server TERM
wait "$client" || fail "the request in flight at SIGTERM was not answered"
"$PY" -c 'import json, sys; assert json.load(open(sys.argv[1]))["result"].count("# sent_id") == 45' \
    "$SCRATCH/last.json" || fail "the answer in flight at SIGTERM is not whole"
grep -q "stopped" "$SCRATCH/serve.log" || fail "no 'stopped' line"
echo "ok"
