"""Headless Chromium driven over the DevTools protocol (--remote-debugging-pipe): pages opened
from file://, scripts evaluated, mouse events dispatched, screenshots decoded. Every console
error, uncaught exception and request that is not file: or data: is recorded, so a test can
assert that a page ran cleanly and offline. Standard library only."""

import base64
import json
import os
import select
import shutil
import struct
import subprocess
import tempfile
import time
import zlib


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class CdpError(Exception):
    pass


class Browser:
    def __init__(self, binary, width=1280, height=900, timeout=60.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="tfm-chromium-")
        cmd_r, self._cmd_w = os.pipe()  # our commands: Chromium reads them on its fd 3
        self._res_r, res_w = os.pipe()  # its answers: written on its fd 4
        args = [binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--user-data-dir=" + self.profile,
                "--force-color-profile=srgb", "--hide-scrollbars", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--mute-audio", "--window-size=%d,%d" % (width, height), "about:blank"]
        # The shell puts the pipes on fds 3 and 4, where Chromium expects them.
        # (By way of fds 10 and 11: the pipes may themselves be 3 or 4.)
        script = ('exec 10<&%d 11>&%d; exec %d<&- %d>&-; exec 3<&10 4>&11 10<&- 11>&-; exec "$@"'
                  % (cmd_r, res_w, cmd_r, res_w))
        self.proc = subprocess.Popen(["bash", "-c", script, "chromium"] + args, pass_fds=(cmd_r, res_w),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(cmd_r)
        os.close(res_w)
        self._buf = b""
        self._id = 0
        self.events = []
        self.session = None
        self.width, self.height = width, height

    # ---- the protocol
    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("no answer from Chromium in %.0f s" % self.timeout)
            ready, _, _ = select.select([self._res_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._res_r, 1 << 20)
            if not chunk:
                err = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.stderr else ""
                raise CdpError("Chromium closed its pipe: " + err)
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise CdpError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, name, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        for i, e in enumerate(self.events):
            if e["method"] == name:
                return self.events.pop(i)
        while True:
            m = self._read_message(deadline)
            if "method" in m:
                if m["method"] == name:
                    return m
                self.events.append(m)

    def start(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False})
        return self

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._cmd_w)
        os.close(self._res_r)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # ---- pages
    def open(self, path, ready="window.tfmView && window.tfmView.ready"):
        """Loads a file and waits for its load event and for `ready` to be true; returns the
        seconds from the navigation to ready."""
        if not os.path.isfile(path):
            raise CdpError("no page at " + path)
        url = "file://" + os.path.abspath(path)
        t0 = time.monotonic()
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        while not self.evaluate("!!(%s)" % ready):
            if time.monotonic() - t0 > self.timeout:
                raise CdpError("the page never became ready: " + ready)
            time.sleep(0.02)
        return time.monotonic() - t0

    def evaluate(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise CdpError("evaluating %s: %s" % (expression[:80], json.dumps(r["exceptionDetails"])[:500]))
        return r["result"].get("value")

    def rect(self, selector):
        """The element's box in page coordinates (scrolled into view first)."""
        return self.evaluate(
            "(() => { const e = document.querySelector(%s); e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height,"
            " sx: window.scrollX, sy: window.scrollY}; })()" % json.dumps(selector))

    def mouse(self, kind, x, y):
        params = {"type": kind, "x": x, "y": y}
        if kind in ("mousePressed", "mouseReleased"):
            params.update(button="left", clickCount=1)
        self.send("Input.dispatchMouseEvent", params)

    def hover(self, selector, dx=None, dy=None):
        r = self.rect(selector)
        x = r["x"] + (r["w"] / 2 if dx is None else dx)
        y = r["y"] + (r["h"] / 2 if dy is None else dy)
        self.mouse("mouseMoved", x, y)
        return r

    def click(self, selector):
        r = self.hover(selector)
        x, y = r["x"] + r["w"] / 2, r["y"] + r["h"] / 2
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def screenshot(self, selector=None):
        """PNG bytes of the element's box (the whole viewport without a selector)."""
        params = {"format": "png"}
        if selector:
            r = self.rect(selector)
            params["clip"] = {"x": r["x"] + r["sx"], "y": r["y"] + r["sy"], "width": r["w"], "height": r["h"], "scale": 1}
            params["captureBeyondViewport"] = True
        return base64.b64decode(self.send("Page.captureScreenshot", params)["data"])

    # ---- what went wrong
    def problems(self):
        """Console errors and warnings, uncaught exceptions, log errors, and requests for
        anything but file: and data: URLs, as text lines."""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append("console %s: %s" % (p["type"], json.dumps(p.get("args", []))[:300]))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.append("log: " + p["entry"].get("text", "")[:300])
            elif m == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not (url.startswith("file:") or url.startswith("data:") or url == "about:blank"):
                    out.append("request: " + url[:200])
        return out

    def requests(self):
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]


def decode_png(data):
    """(width, height, rows) of an 8-bit RGB or RGBA PNG: rows[y] is a bytes object of RGB(A)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError("PNG depth %d colour type %d" % (depth, colour))
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, [r if bpp == 3 else bytes(v for i, v in enumerate(r) if i % 4 != 3) for r in rows]


def pixel(png, x, y):
    w, h, rows = png
    return tuple(rows[y][3 * x:3 * x + 3])
