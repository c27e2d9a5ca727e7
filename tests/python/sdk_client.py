"""Drive gitlab-mcp's streamable HTTP endpoint with the official Python MCP SDK.

Usage: sdk_client.py URL [--mode auto|legacy|2026-07-28 ...]

For each mode (all three by default) it connects, lists the tools (EXPECTED_TOOLS
gitlab_* tools expected), gets issue 3 of project 1 and expects `"iid":3`,
then calls with a misspelt parameter and expects the error to name
`issue_iid`. The GitLab token goes in a `Private-Token` header
(GITLAB_TOKEN, default glpat-alice). How the SDK picks its lifecycle
(mcp/client/client.py, `Client.mode`, and mcp/client/_probe.py):

- "auto" (the default) sends `server/discover` at the newest modern version
  and adopts the result when the server lists a modern version; the script
  then requires the negotiated version to be 2026-07-28, so a server that
  made the SDK fall back to `initialize` fails here;
- "2026-07-28" adopts that version without a probe (a synthesized discover
  result): every request carries its own `_meta` envelope;
- "legacy" forces the `initialize` handshake (protocol up to 2025-11-25).

Prints one `ok MODE ...` line per step and `N passed, N failed` last; exits
non-zero on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import traceback

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

MODERN = "2026-07-28"


def text_of(result) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def run(url: str, mode: str, token: str) -> None:
    headers = {"Private-Token": token}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode) as client:
            version = client.protocol_version
            if mode == "legacy":
                assert version in HANDSHAKE_PROTOCOL_VERSIONS, f"legacy negotiated {version}"
            else:
                assert version == MODERN, f"{mode} negotiated {version}, not {MODERN}"
            print(f"ok {mode} protocol {version}", flush=True)

            tools = (await client.list_tools()).tools
            names = sorted(t.name for t in tools)
            expected = int(os.environ["EXPECTED_TOOLS"])
            assert len(names) == expected, f"expected {expected} tools, got {len(names)}: {names}"
            assert all(n.startswith("gitlab_") for n in names), names
            print(f"ok {mode} tools/list {len(names)} gitlab_* tools", flush=True)

            result = await client.call_tool(
                "gitlab_issue", {"action": "get", "params": {"project_id": 1, "issue_iid": 3}}
            )
            text = text_of(result)
            assert not result.is_error, f"get failed: {text}"
            assert '"iid":3' in text, f"no \"iid\":3 in: {text[:500]}"
            print(f"ok {mode} gitlab_issue get iid 3", flush=True)

            result = await client.call_tool(
                "gitlab_issue", {"action": "get", "params": {"project_id": 1, "iid": 3}}
            )
            text = text_of(result)
            assert result.is_error, f"a wrong parameter name succeeded: {text}"
            assert "`issue_iid`" in text, f"the error does not name issue_iid: {text}"
            print(f"ok {mode} wrong parameter refused, names issue_iid", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--mode", action="append", choices=["auto", MODERN, "legacy"])
    args = parser.parse_args()
    token = os.environ.get("GITLAB_TOKEN", "glpat-alice")
    passed = failed = 0
    for mode in args.mode or ["auto", MODERN, "legacy"]:
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
