# qkv serve --timeout closes a connection only while it is idle: a request that takes longer
# than the timeout to answer, and one waiting behind it for the one thread, are both answered;
# with that one waiting (--max-queue 1) another is answered 503 at once; a connection that sends
# nothing is closed after the timeout and the server answers on.
. "$QKV_SOURCE_DIR/tests/serve/common.sh"
start_server --threads 1 --timeout 1 --max-queue 1 --max-words 100000 --max-body 10000000

"$PY" - "$URL" "$PORT" <<'PY' || fail "a request was lost while another took longer than --timeout, or --max-queue was not kept"
import json, socket, sys, threading, time, urllib.error, urllib.parse, urllib.request
url, port = sys.argv[1], int(sys.argv[2])
def post(lines):
    data = urllib.parse.urlencode({"input": "horizontal", "tagger": "", "parser": "", "data": "".join(lines)})
    t0 = time.monotonic()
    with urllib.request.urlopen(urllib.request.Request(url + "/process", data=data.encode()), timeout=900) as r:
        ok = r.status == 200 and json.loads(r.read())["result"].count("\n\n") == len(lines)
    result.append((ok, time.monotonic() - t0))
# a connection opened first that sends its request half a second later, while the long request
# has the one thread: it waits for the thread, it is not idle
waiting = socket.create_connection(("127.0.0.1", port))
result = []
long_request = threading.Thread(target=post, args=(["Sentence %d is one of many , with the words that a "
                                                    "tagger reads here .\n" % i for i in range(2400)],))
long_request.start()
time.sleep(0.5)
waiting.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
time.sleep(0.3)
try:  # the queue holds one request: this one is refused at once
    urllib.request.urlopen(url + "/health", timeout=60)
    raise AssertionError("a request beyond --max-queue was taken")
except urllib.error.HTTPError as e:
    assert e.code == 503 and "busy" in json.loads(e.read())["error"], e.code
waiting.settimeout(900)
answer = b""
while chunk := waiting.recv(4096):
    answer += chunk
long_request.join()
assert answer.startswith(b"HTTP/1.1 200"), "the waiting request's answer: %r" % answer[:100]
assert result and result[0][0], "the long request's answer is wrong or missing"
# the checks mean something only when the long request outlasted the timeout
assert result[0][1] > 1.5, "the long request took %.2f s, not longer than --timeout" % result[0][1]
PY

"$PY" - "$PORT" <<'PY' || fail "an idle connection was not closed after --timeout"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # headers never end
s.settimeout(20)
t0 = time.monotonic()
assert s.recv(100) == b"" and time.monotonic() - t0 < 10, "not closed"
PY
[ "$(curl -sS -o /dev/null -w '%{http_code}' "$URL/health")" = 200 ] || fail "no /health after an idle connection"
stop_server TERM
echo "ok"
