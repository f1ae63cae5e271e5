#!/usr/bin/env python3
"""Load on a running qkv serve: clients (Python threads) send /process requests back to back for
a while at each concurrency, and the script prints requests, words/s and the p50 and p99
latency of each.

    ./build/qkv serve --port 8080 --threads 2 &
    tests/bench/serve_load.py http://127.0.0.1:8080 --clients 1,8,64 --seconds 10

Each request is --sentences sentences of the EWT sample (data/ud_english_ewt_sample/), as raw
text for the segmenter, tagger and parser (--input raw), or as horizontal text for the tagger and
parser (--input horizontal). Needs only the standard library."""
import argparse
import gzip
import json
import os
import threading
import time
import urllib.parse
import urllib.request

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "data", "ud_english_ewt_sample",
                      "en_ewt-sample-dev.conllu.gz")


def sentences():
    """(text, words) of each sentence of the sample."""
    out, text, words = [], None, []
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# text = "):
                text = line[len("# text = "):]
            elif line and line.split("\t")[0].isdigit():
                words.append(line.split("\t")[1])
            elif not line and words:
                out.append((text, words))
                text, words = None, []
    return out


def requests(args):
    """The bodies of the requests, one per group of --sentences sentences."""
    sents, bodies = sentences(), []
    for i in range(0, len(sents) - args.sentences + 1, args.sentences):
        group = sents[i:i + args.sentences]
        if args.input == "raw":
            params = {"tokenizer": "", "tagger": "", "parser": "", "data": " ".join(t for t, _ in group)}
        else:
            params = {"input": "horizontal", "tagger": "", "parser": "",
                      "data": "".join(" ".join(w) + "\n" for _, w in group)}
        bodies.append(urllib.parse.urlencode(params).encode())
    return bodies


def run(url, bodies, clients, seconds):
    """(requests, words, errors, latencies) of clients threads for seconds."""
    lock, latencies, totals = threading.Lock(), [], {"words": 0, "errors": 0}
    stop = time.monotonic() + seconds

    def client(k):
        i = k
        while time.monotonic() < stop:
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(url + "/process", data=bodies[i % len(bodies)], timeout=600) as r:
                    result = json.loads(r.read())["result"]
                words = sum(1 for l in result.split("\n") if l.split("\t")[0].isdigit())
                with lock:
                    latencies.append(time.monotonic() - t0)
                    totals["words"] += words
            except Exception:  # counted, not fatal: the load goes on
                with lock:
                    totals["errors"] += 1
            i += clients

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(latencies), totals["words"], totals["errors"], sorted(latencies), time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("url", help="the server, e.g. http://127.0.0.1:8080")
    ap.add_argument("--clients", default="1,8,64", help="concurrencies, comma-separated")
    ap.add_argument("--seconds", type=float, default=10, help="seconds at each concurrency")
    ap.add_argument("--sentences", type=int, default=4, help="sentences per request")
    ap.add_argument("--input", choices=["raw", "horizontal"], default="raw")
    args = ap.parse_args()
    bodies = requests(args)
    print("clients  requests  errors  words/s    p50 ms    p99 ms")
    for clients in (int(c) for c in args.clients.split(",")):
        n, words, errors, lat, wall = run(args.url.rstrip("/"), bodies, clients, args.seconds)
        q = lambda p: 1000 * lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")
        print("%7d  %8d  %6d  %7.0f  %8.1f  %8.1f" % (clients, n, errors, words / wall, q(0.5), q(0.99)))


if __name__ == "__main__":
    main()
