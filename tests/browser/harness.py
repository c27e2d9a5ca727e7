"""What the browser tests share: Debian's Chromium under Playwright, watched.

- `browser()` starts /usr/bin/chromium (never a downloaded build) headless
  with a fresh profile, and a page whose console errors, page errors and
  requests are all recorded (`Watch`); `Watch.check()` fails on any console
  error, and on any request that leaves the addresses the test allows.
- `host_page()` serves tests/browser/host.html, the MCP Apps test host, from
  a loopback port of its own.
- `mcp_client()` is the host's MCP session with the server under test: the
  official Python SDK, declaring MCP Apps (`io.modelcontextprotocol/ui`
  with `text/html;profile=mcp-app`) unless told not to.
- `Report` prints one `ok ...` line per step and `N passed, N failed` last.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import threading
import traceback
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import async_playwright

UI_EXTENSION = "io.modelcontextprotocol/ui"
MIME_TYPE = "text/html;profile=mcp-app"
HERE = Path(__file__).resolve().parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class Watch:
    """Everything a page logged and asked for."""

    def __init__(self, allowed_hosts: set[str]):
        self.allowed_hosts = allowed_hosts
        self.errors: list[str] = []
        self.requests: list[tuple[str, str]] = []  # (url, frame url)

    def attach(self, page) -> None:
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on("request", lambda r: self.requests.append((r.url, r.frame.url if r.frame else "")))

    def check(self) -> str:
        """Raise on a console error or a request elsewhere; say what was asked."""
        assert not self.errors, f"console errors: {self.errors}"
        elsewhere = [u for u, _ in self.requests if urlsplit(u).hostname not in self.allowed_hosts]
        assert not elsewhere, f"requests that left {sorted(self.allowed_hosts)}: {elsewhere}"
        return f"{len(self.requests)} requests, all to {', '.join(sorted(self.allowed_hosts))}, no console error"


@contextlib.asynccontextmanager
async def browser(allowed_hosts: set[str], color_scheme: str = "light"):
    """A watched page of a fresh headless Chromium: `(context, page, watch)`."""
    async with async_playwright() as p:
        chromium = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            context = await chromium.new_context(
                viewport={"width": 980, "height": 720}, color_scheme=color_scheme, locale="en-GB"
            )
            page = await context.new_page()
            watch = Watch(allowed_hosts)
            watch.attach(page)
            yield context, page, watch
        finally:
            await chromium.close()


async def snapshot(page, path: Path, height: int | None = None) -> None:
    """The page as a PNG, whole or its first `height` pixels. The viewport
    grows to the page first: Chromium paints a frame's content only within
    the viewport, even for a full-page screenshot."""
    whole = await page.evaluate("document.documentElement.scrollHeight")
    width = page.viewport_size["width"]
    await page.set_viewport_size({"width": width, "height": whole})
    clip = {"x": 0, "y": 0, "width": width, "height": min(height, whole)} if height else None
    await page.screenshot(path=str(path), clip=clip)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def host_page():
    """The test host's URL, served from this folder on a loopback port."""
    handler = functools.partial(_Quiet, directory=str(HERE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/host.html"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.asynccontextmanager
async def mcp_client(url: str, token: str, ui: bool = True):
    """The host's MCP session with the server, declaring MCP Apps if `ui`."""
    extensions = [advertise(UI_EXTENSION, {"mimeTypes": [MIME_TYPE]})] if ui else []
    headers = {"Private-Token": token}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http:
        async with Client(streamable_http_client(url, http_client=http), extensions=extensions) as client:
            yield client


def dump(model) -> dict:
    """An SDK result as the JSON the wire carried."""
    return json.loads(model.model_dump_json(by_alias=True, exclude_none=True))


def text_of(result) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def framed_json(text: str) -> list:
    """GitLab's JSON in an answer: one value per line between the marks
    (an empty list is `[]`, unframed)."""
    lines = text.split("\n")
    if lines[0] == "[]":
        return []
    inside = lines[lines.index("⟦") + 1 : len(lines) - lines[::-1].index("⟧") - 1]
    return [json.loads(line) for line in inside if line.strip()]


class Report:
    """`ok ...` per step; `N passed, N failed` for the checks run."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    @staticmethod
    def ok(text: str) -> None:
        print(f"ok {text}", flush=True)

    async def run(self, name: str, check) -> None:
        try:
            await check
            self.passed += 1
        except BaseException as e:  # an ExceptionGroup from anyio included
            self.failed += 1
            print(f"FAILED {name}: {e!r}", flush=True)
            traceback.print_exc()

    def close(self) -> int:
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 else 1
