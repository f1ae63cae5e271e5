"""A headless Chromium driven through its DevTools protocol (Python standard library only: the
WebSocket handshake and frames of RFC 6455 written out here), for tests/board/test_board_page.sh.

    with Browser(profile_dir) as b:       # starts chromium --headless on a free debugging port
        b.navigate(url)
        b.eval("document.title")          # Runtime.evaluate, the value returned
        png = b.screenshot()              # Page.captureScreenshot, PNG bytes
"""
import base64
import json
import os
import socket
import struct
import subprocess
import urllib.request

from waiting import wait_for


class Browser:
    def __init__(self, profile):
        self.profile = profile
        self.proc = None
        self.sock = None
        self.next_id = 0

    def __enter__(self):
        self.proc = subprocess.Popen(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                      "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
                                      "--window-size=1280,900", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=open(f"{self.profile}.log", "wb"))
        port_file = os.path.join(self.profile, "DevToolsActivePort")

        def listening():  # chromium writes its port there once it listens
            if os.path.exists(port_file) and open(port_file).read().count("\n") >= 1:
                return True
            assert self.proc.poll() is None, f"chromium exited {self.proc.returncode}"
        wait_for(port_file, listening, 30)
        port = int(open(port_file).read().split()[0])
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=30).read())
        page = next(t for t in targets if t["type"] == "page")
        self._connect(page["webSocketDebuggerUrl"])
        return self

    def __exit__(self, *exc):
        if self.sock:
            self.sock.close()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _connect(self, url):
        host, path = url[len("ws://"):].split("/", 1)
        self.sock = socket.create_connection((host.split(":")[0], int(host.split(":")[1])), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(f"GET /{path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"):  # byte by byte: frames may follow at once
            head += self._exactly(1)
        assert head.split(b"\r\n")[0].split()[1] == b"101", head

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            assert chunk, "the browser closed the connection"
            data += chunk
        return data

    def _send(self, text):
        """One text frame, masked as a client's must be."""
        data, mask = text.encode(), os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
                                if n < 65536 else bytes([0x80 | 127]) + struct.pack(">Q", n))
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + body)

    def _receive(self):
        """One whole message (its frames joined); pings and other control frames skipped."""
        message = b""
        while True:
            b0, b1 = self._exactly(2)
            n = b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack(">H", self._exactly(2))
            elif n == 127:
                (n,) = struct.unpack(">Q", self._exactly(8))
            data = self._exactly(n)
            opcode = b0 & 0x0F
            assert opcode != 0x8, "the browser closed the connection"
            if opcode in (0x0, 0x1, 0x2):
                message += data
                if b0 & 0x80:
                    return message.decode()

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            answer = json.loads(self._receive())
            if answer.get("id") == self.next_id:
                assert "error" not in answer, (method, answer["error"])
                return answer["result"]

    def navigate(self, url):
        self.call("Page.navigate", url=url)

    def eval(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, (expression, result["exceptionDetails"])
        return result["result"].get("value")

    def screenshot(self):
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
