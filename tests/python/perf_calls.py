"""Make N `gitlab_issue get` calls, one after another, with the official
Python MCP SDK over streamable HTTP: the client side of the instruction
benchmark (benches/instructions.rs), which counts what the server spends.

Usage: perf_calls.py URL N [--mode 2026-07-28|legacy]

The token goes in a `Private-Token` header on every request (a per-request
token, as a team's shared server receives it). Prints `ok N` when every call
answered without an error; exits non-zero otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def run(url: str, calls: int, mode: str, token: str) -> None:
    headers = {"Private-Token": token}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(600.0)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode) as client:
            for _ in range(calls):
                result = await client.call_tool(
                    "gitlab_issue",
                    {"action": "get", "params": {"project_id": 1, "issue_iid": 3}},
                )
                if result.is_error:
                    text = "\n".join(getattr(c, "text", "") for c in result.content)
                    raise SystemExit(f"call failed: {text}")
    print(f"ok {calls}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("calls", type=int)
    parser.add_argument("--mode", default="2026-07-28")
    args = parser.parse_args()
    token = os.environ.get("GITLAB_TOKEN", "glpat-alice")
    asyncio.run(run(args.url, args.calls, args.mode, token))


if __name__ == "__main__":
    sys.exit(main())
