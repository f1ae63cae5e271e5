// The load time of a qkv board page, through headless Chromium's DevTools protocol (node 20
// or later; not in ctest): opens the page three times and prints, each time, the page's
// data-drawn-ms (from navigation to its first drawing of curves) and the curves drawn.
//   node --experimental-websocket tests/board/page_load.js http://127.0.0.1:8090/
const {spawn} = require("child_process");
const url = process.argv[2];
const ch = spawn("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=9333", "about:blank"], {stdio: "ignore"});
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  let targets;
  for (let i = 0; i < 100; i++) { try { targets = await (await fetch("http://127.0.0.1:9333/json")).json(); if (targets.some(t => t.type === "page")) break; } catch (e) {} await sleep(100); }
  const ws = new WebSocket(targets.find(t => t.type === "page").webSocketDebuggerUrl);
  await new Promise(r => ws.onopen = r);
  let id = 0; const pending = {};
  ws.onmessage = m => { const d = JSON.parse(m.data); if (pending[d.id]) pending[d.id](d.result); };
  const send = (method, params) => new Promise(r => { pending[++id] = r; ws.send(JSON.stringify({id, method, params})); });
  for (let rep = 0; rep < 3; rep++) {
    await send("Page.navigate", {url});
    let v;
    for (let i = 0; i < 200; i++) {
      await sleep(50);
      const r = await send("Runtime.evaluate", {expression: "document.body && document.body.dataset.drawnMs + ' ' + document.querySelectorAll('#charts polyline').length"});
      v = r && r.result && r.result.value;
      if (v && !v.startsWith("undefined")) break;
    }
    console.log("navigation to first drawing (ms), polylines:", v);
  }
  ch.kill(); process.exit(0);
})();
