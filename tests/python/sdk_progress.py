"""A long call through the official Python MCP SDK, which must stream.

Usage: sdk_progress.py URL [--mode auto|legacy|2026-07-28 ...]

Against a slow GitLab (scripts/proxy-test.sh starts the fake with
`--delay`), for each mode (all three by default) it lists issue pages
one by one (`gitlab_issue list` with `per_page` 1 and `max_items` 3, so
three requests to GitLab) with a progress callback, and requires the
progress notifications to arrive while the call runs: at least two, the
first at least half a second before the result. A proxy that buffered the
answer would deliver them all with the result. Prints one `ok MODE ...`
line per mode and `N passed, N failed` last; exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import traceback

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def run(url: str, mode: str, token: str) -> None:
    headers = {"Private-Token": token}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode) as client:
            started = time.monotonic()
            seen: list[float] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                seen.append(time.monotonic() - started)

            result = await client.call_tool(
                "gitlab_issue",
                {"action": "list", "params": {"project_id": 1, "per_page": 1}, "max_items": 3},
                progress_callback=on_progress,
            )
            ended = time.monotonic() - started
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            assert not result.is_error, f"list failed: {text}"
            assert "followed 3 pages" in text, f"not three pages: {text[:500]}"
            assert len(seen) >= 2, f"{len(seen)} progress notifications"
            assert seen[0] <= ended - 0.5, f"first progress at {seen[0]:.2f} s, result at {ended:.2f} s: buffered"
            print(
                f"ok {mode} streamed {len(seen)} progress notifications, "
                f"first at {seen[0]:.1f} s, result at {ended:.1f} s",
                flush=True,
            )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--mode", action="append", choices=["auto", "2026-07-28", "legacy"])
    args = parser.parse_args()
    token = os.environ.get("GITLAB_TOKEN", "glpat-alice")
    passed = failed = 0
    for mode in args.mode or ["auto", "2026-07-28", "legacy"]:
        try:
            asyncio.run(run(args.url, mode, token))
            passed += 1
        except BaseException as e:  # an ExceptionGroup from anyio included
            failed += 1
            print(f"FAILED {mode}: {e!r}", flush=True)
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
