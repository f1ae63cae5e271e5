// The time from `qkv train` starting to the first curve on an open qkv board page, through
// headless Chromium's DevTools protocol (node 20 or later; not in ctest):
//   node --experimental-websocket tests/board/latency.js http://127.0.0.1:8090/ build/qkv runs/live
// with `qkv board runs --port 8090` running; it trains tests/train/synthetic.yaml for 2 epochs
// into the run folder given (which must not exist).
const {spawn} = require("child_process");
const sleep = ms => new Promise(r => setTimeout(r, ms));
const ch = spawn("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=9334", "about:blank"], {stdio: "ignore"});
(async () => {
  let targets;
  for (let i = 0; i < 100; i++) { try { targets = await (await fetch("http://127.0.0.1:9334/json")).json(); if (targets.some(t => t.type === "page")) break; } catch (e) {} await sleep(100); }
  const ws = new WebSocket(targets.find(t => t.type === "page").webSocketDebuggerUrl);
  await new Promise(r => ws.onopen = r);
  let id = 0; const pending = {};
  ws.onmessage = m => { const d = JSON.parse(m.data); if (pending[d.id]) pending[d.id](d.result); };
  const send = (method, params) => new Promise(r => { pending[++id] = r; ws.send(JSON.stringify({id, method, params})); });
  const [url, qkv, out] = process.argv.slice(2);
  await send("Page.navigate", {url});
  await sleep(3000);
  const t0 = Date.now();
  const tr = spawn(qkv, ["train", "tests/train/synthetic.yaml", "--out", out, "--set", "train.epochs=2", "--set", "log.progress=off"], {stdio: "ignore"});
  for (;;) {
    await sleep(20);
    const r = await send("Runtime.evaluate", {expression: "document.querySelectorAll('#charts polyline').length"});
    if (r.result.value > 0) break;
  }
  console.log("qkv train started -> first curve on the page:", Date.now() - t0, "ms");
  await new Promise(r => tr.on("exit", r));
  ch.kill(); process.exit(0);
})();
