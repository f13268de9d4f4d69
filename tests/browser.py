"""A headless Chromium driven over the DevTools protocol on ``--remote-debugging-pipe``.

Standard library only: the browser reads NUL-terminated JSON commands on its fd 3 and writes
NUL-terminated JSON messages (replies and events) on its fd 4. Every wait has a deadline; the
browser is killed when the ``with`` block ends, whatever happened in it.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    """The Chromium program on PATH (Debian's package installs ``chromium``), or None."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(AssertionError):
    """The browser did not answer in time, closed its pipe, or answered with an error."""


class Chromium:
    """One headless Chromium with one page; ``call`` sends a command to that page."""

    def __init__(self, program: str, profile: Path, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        self._buffer = b""
        self.session = ""
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # Away from 3 and 4, so that the child's dup2 onto 3 and 4 cannot clobber one of them.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        for fd in (to_browser_r, from_browser_w):
            os.close(fd)
        child_in, child_out = high

        def onto_3_and_4() -> None:
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        profile.mkdir(parents=True, exist_ok=True)
        self.stderr_path = profile.parent / "chromium.stderr"
        with self.stderr_path.open("wb") as stderr:
            self.proc = subprocess.Popen(
                [program, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                pass_fds=(3, 4),
                preexec_fn=onto_3_and_4,
            )
        os.close(child_in)
        os.close(child_out)
        self._write = to_browser_w
        self._read = from_browser_r

    def __enter__(self) -> Chromium:
        try:
            self._attach()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        for fd in (self._write, self._read):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=self.timeout)

    def _send(self, method: str, params: dict[str, Any], session: str) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode("utf-8") + b"\0"
        deadline = time.monotonic() + self.timeout
        while data:
            if not select.select([], [self._write], [], self._left(deadline, method))[1]:
                continue
            data = data[os.write(self._write, data) :]
        return self._next_id

    @staticmethod
    def _left(deadline: float, what: str) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BrowserError(f"Chromium did not answer {what} in time")
        return left

    def _message(self, deadline: float, what: str) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if not select.select([self._read], [], [], self._left(deadline, what))[0]:
                continue
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium closed its pipe waiting for {what}")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def _call(self, method: str, params: dict[str, Any], session: str) -> dict[str, Any]:
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._message(deadline, method)
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send ``method`` to the page and return its result (events meanwhile are kept)."""
        return self._call(method, params, self.session)

    def wait_for(self, method: str) -> dict[str, Any]:
        """The first event ``method`` of the page not yet waited for (kept ones first)."""
        for index, event in enumerate(self.events):
            if event["method"] == method and event.get("sessionId") == self.session:
                return self.events.pop(index)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._message(deadline, method)
            if message.get("method") == method and message.get("sessionId") == self.session:
                return message
            if "method" in message:
                self.events.append(message)

    def _attach(self) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            targets = self._call("Target.getTargets", {}, "")["targetInfos"]
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                break
            self._left(deadline, "a page target")
            time.sleep(0.05)
        attached = self._call(
            "Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True}, ""
        )
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def load(self, url: str, width: int, height: int, mobile: bool) -> None:
        """Set the viewport (a phone's when ``mobile``) and load ``url`` to its load event;
        the page's console starts empty."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=mobile,
        )
        self.call("Page.navigate", url="about:blank")
        self.wait_for("Page.loadEventFired")
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (the test's, not the page's)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        """A PNG of the viewport (or of the whole page) written to ``path``."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            width = self.evaluate("document.documentElement.scrollWidth")
            height = self.evaluate("document.documentElement.scrollHeight")
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def console(self) -> list[str]:
        """Every console message, log entry and uncaught exception the page has produced."""
        seen = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Log.entryAdded":
                entry = params["entry"]
                seen.append(f"{entry.get('level')} ({entry.get('source')}): {entry.get('text')}")
            elif method == "Runtime.consoleAPICalled":
                seen.append(f"console.{params.get('type')}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                seen.append(f"exception: {params.get('exceptionDetails')}")
        return seen
