"""Headless Chromium driven through its DevTools protocol over a pipe (--remote-debugging-pipe), with
nothing but the standard library: open a page, wait until a script says it is ready, read values out
of it, take a screenshot. The docs' search test (check_search.py) and screenshots
(scripts/screenshot-docs) use it; a local site is served on the loopback address (serve()).
"""
from __future__ import annotations

import base64
import contextlib
import fcntl
import functools
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory):
    """The folder on http://127.0.0.1:PORT/ for the duration of the block (a port the system picks)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    raise RuntimeError("chromium not found (apt-get install chromium)")


class Browser:
    """One headless Chromium with one page. Use as a context manager."""

    def __init__(self, width=1400, height=1000, timeout=60):
        self.width, self.height, self.timeout = width, height, timeout
        self.profile = tempfile.TemporaryDirectory()
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        # Above 4, so that placing them at 3 and 4 cannot overwrite one with the other.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_read, from_browser_write)]
        os.close(to_browser_read)
        os.close(from_browser_write)
        to_browser_read, from_browser_write = high
        # Chromium reads commands from its fd 3 and writes replies to its fd 4: bash puts the pipes there.
        redirect = (
            f'exec "$0" "$@" 3<&{to_browser_read} 4>&{from_browser_write} {to_browser_read}<&- {from_browser_write}>&-'
        )
        self.process = subprocess.Popen(
            [
                "bash",
                "-c",
                redirect,
                chromium_path(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--remote-debugging-pipe",
                f"--user-data-dir={self.profile.name}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(to_browser_read, from_browser_write),
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._id = 0
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        with contextlib.suppress(Exception):
            self.call("Browser.close")
        with contextlib.suppress(Exception):
            self.process.wait(timeout=10)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.profile.cleanup()

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method, params=None, session=False):
        """Sends one command and returns its result (events in between are dropped)."""
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluate: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def open(self, url, ready="document.readyState === 'complete'", timeout=30):
        """Goes to url and waits (real time) until the expression `ready` is true."""
        self.call("Page.navigate", {"url": url}, session=True)
        return self.wait_for(ready, timeout)

    def wait_for(self, expression, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(RuntimeError):
                if self.evaluate(f"Boolean({expression})"):
                    return True
            time.sleep(0.2)
        return False

    def screenshot(self, path, height=None, full_page=False):
        """A PNG of the page: the window, a given height from the top, or the whole page."""
        if full_page:
            height = int(self.evaluate("document.documentElement.scrollHeight"))
        if height:
            self.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": self.width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session=True,
            )
            time.sleep(0.3)
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False}, session=True)
        with open(path, "wb") as out:
            out.write(base64.b64decode(data["data"]))
        if height:
            self.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
                session=True,
            )
