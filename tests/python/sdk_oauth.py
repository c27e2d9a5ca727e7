"""Sign in with GitLab through the official Python MCP SDK's OAuth client.

Usage: sdk_oauth.py MCP_URL [--auth none|client_secret_basic|client_secret_post ...]
                            [--user alice] [--client-metadata-url URL] [--redirect-uri URI]

For each token-endpoint auth method (all three by default) a fresh
`mcp.client.auth.OAuthClientProvider` with in-memory storage connects to
MCP_URL. The server answers 401; the SDK discovers the protected-resource
and authorization-server metadata, registers dynamically (RFC 7591) with a
loopback redirect URI, and calls the redirect handler with the
authorization URL. The handler is the user's browser, in plain HTTP with no
redirect followed by itself:

  1. GET the authorization URL: the server's consent page, which must name
     this client and the redirect's host; keep its `ticket` and its cookie;
  2. POST the form (`decision=approve`) with the cookie: a 303 to GitLab's
     `/oauth/authorize`;
  3. GET that with `fake_user=USER` (the fake GitLab's way of choosing who
     signs in) : a redirect to the server's `/oauth/callback`;
  4. GET the callback with the cookie: a 303 to the client's redirect URI,
     whose `code`, `state` and `iss` go to the SDK's callback handler.

The SDK then exchanges the code (PKCE) and retries. The script lists the
tools, calls `gitlab_user {"action": "current"}` and expects USER (the JSON
is between the `⟦` and `⟧` lines of the answer), then makes the SDK refresh:
the SDK refreshes only before a request, when its own record of the token's
expiry has passed (`OAuthContext.is_token_valid`; a 401 makes it sign in
again instead), so the script moves that record into the past, as if the
two hours GitLab grants had gone by, and the next call must go through a
refresh grant, with a new access and refresh token, still as USER.

With --client-metadata-url the client is identified by that URL (a client
ID metadata document the server fetches) instead of registering; the auth
method is then `none`, and --redirect-uri must be one the document lists.

Prints one `ok AUTH ...` line per step and `N passed, N failed` last; exits
non-zero on any failure. Tokens are never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import os
import json
import socket
import sys
import time
import traceback
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]
CLIENT_NAME = "Python SDK sign-in test"


def say(line: str) -> None:
    print(line, flush=True)


class MemoryStorage(TokenStorage):
    """The SDK's TokenStorage, in memory; it counts the tokens it was given."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.saved: list[OAuthToken] = []

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.saved.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def location(response: httpx2.Response) -> str:
    """Where a redirect sends the browser, absolute."""
    assert response.status_code in (302, 303), (
        f"{response.request.method} {response.request.url.path}: {response.status_code}, not a redirect: "
        f"{response.text[:500]}"
    )
    return urljoin(str(response.request.url), response.headers["location"])


class Browser:
    """The user's browser, by hand: every request, cookie and redirect is the script's."""

    def __init__(self, label: str, mcp_url: str, redirect_uri: str, user: str) -> None:
        self.label = label
        self.mcp_url = mcp_url
        self.redirect_uri = redirect_uri
        self.user = user
        self.result: AuthorizationCodeResult | None = None
        self.sign_ins = 0

    async def redirect_handler(self, authorization_url: str) -> None:
        """What a native client does with the URL: open it in the browser."""
        self.sign_ins += 1
        server = urlsplit(self.mcp_url)
        assert urlsplit(authorization_url).netloc == server.netloc, f"authorization at {authorization_url}"
        params = query(authorization_url)
        assert params.get("code_challenge_method") == "S256", params
        assert params.get("redirect_uri") == self.redirect_uri, params
        assert params.get("resource") == self.mcp_url, params
        async with httpx2.AsyncClient(follow_redirects=False, timeout=httpx2.Timeout(30.0)) as http:
            # The cookie jar is kept by hand, to send exactly what a browser would.
            page = await http.get(authorization_url)
            http.cookies.clear()
            assert page.status_code == 200, f"consent page: {page.status_code}: {page.text[:500]}"
            set_cookie = page.headers.get("set-cookie", "")
            assert "HttpOnly" in set_cookie and "SameSite=Lax" in set_cookie, set_cookie
            cookie = set_cookie.split(";")[0]
            text = page.text
            redirect_host = urlsplit(self.redirect_uri).netloc
            assert html.escape(CLIENT_NAME) in text, f"the consent page does not name the client: {text}"
            assert redirect_host in text, f"the consent page does not name {redirect_host}: {text}"
            ticket = html.unescape(text.split('name="ticket" value="')[1].split('"')[0])
            action = html.unescape(text.split('<form method="post" action="')[1].split('"')[0])
            say(f"ok {self.label} consent page names the client and {redirect_host}")

            approved = await http.post(
                urljoin(authorization_url, action),
                data={"ticket": ticket, "decision": "approve"},
                headers={"cookie": cookie},
            )
            http.cookies.clear()
            to_gitlab = location(approved)
            assert urlsplit(to_gitlab).path == "/oauth/authorize", to_gitlab
            say(f"ok {self.label} approved, sent to GitLab")

            at_gitlab = await http.get(f"{to_gitlab}&fake_user={self.user}")
            http.cookies.clear()
            back = location(at_gitlab)
            assert back.startswith(f"{server.scheme}://{server.netloc}/oauth/callback?"), back
            say(f"ok {self.label} GitLab sent the browser back")

            callback = await http.get(back, headers={"cookie": cookie})
            http.cookies.clear()
            to_client = location(callback)
            assert to_client.startswith(f"{self.redirect_uri}?"), to_client
            answer = query(to_client)
            assert "error" not in answer, f"the server answered the client with an error: {answer}"
            assert answer.get("code"), "no code for the client"
            self.result = AuthorizationCodeResult(code=answer["code"], state=answer.get("state"), iss=answer.get("iss"))
            say(f"ok {self.label} redirected to the client with code, state and iss")

    async def callback_handler(self) -> AuthorizationCodeResult:
        """What the client's loopback listener would have received."""
        assert self.result is not None, "the redirect handler got no code"
        result, self.result = self.result, None
        return result


def data_of(result) -> dict:
    """The JSON between the answer's `⟦` and `⟧` lines."""
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    lines = text.split("\n")
    assert "⟦" in lines and "⟧" in lines, f"no frame in: {text[:500]}"
    inside = lines[lines.index("⟦") + 1 : lines.index("⟧")]
    return json.loads("\n".join(inside))


async def whoami(client: Client) -> str:
    result = await client.call_tool("gitlab_user", {"action": "current"})
    assert not result.is_error, f"gitlab_user current failed: {result.content}"
    return data_of(result)["username"]


async def run(url: str, auth: str, user: str, client_metadata_url: str | None, redirect_uri: str | None) -> None:
    label = "metadata-document" if client_metadata_url else auth
    # Where a native client's loopback listener would be; nothing needs to listen.
    redirect_uri = redirect_uri or f"http://127.0.0.1:{free_port()}/callback"
    storage = MemoryStorage()
    browser = Browser(label, url, redirect_uri, user)
    metadata = OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[redirect_uri],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=auth,
    )
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=browser.redirect_handler,
        callback_handler=browser.callback_handler,
        client_metadata_url=client_metadata_url,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(30.0)) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            info = storage.client_info
            assert info is not None, "no client information"
            if client_metadata_url:
                assert info.client_id == client_metadata_url, info.client_id
            else:
                assert info.token_endpoint_auth_method == auth, info.token_endpoint_auth_method
                assert (info.client_secret is not None) == (auth != "none"), "client secret iff confidential"
            assert browser.sign_ins == 1, f"{browser.sign_ins} sign-ins"
            assert len(storage.saved) == 1, f"{len(storage.saved)} token answers"
            first = storage.saved[0]
            assert first.refresh_token, "no refresh token"
            assert first.expires_in and first.expires_in > 0, first.expires_in
            say(f"ok {label} signed in, protocol {client.protocol_version}")

            tools = (await client.list_tools()).tools
            names = sorted(t.name for t in tools)
            expected = int(os.environ["EXPECTED_TOOLS"])
            assert len(names) == expected and all(n.startswith("gitlab_") for n in names), names
            say(f"ok {label} tools/list {len(names)} gitlab_* tools")

            who = await whoami(client)
            assert who == user, f"gitlab_user current is {who}, not {user}"
            say(f"ok {label} gitlab_user current is {user}")

            # The SDK's record of when the token expires, moved into the past.
            provider.context.token_expiry_time = time.time() - 1
            who = await whoami(client)
            assert who == user, f"after the refresh, gitlab_user current is {who}, not {user}"
            assert len(storage.saved) == 2, f"{len(storage.saved)} token answers: no refresh happened"
            second = storage.saved[1]
            assert second.access_token != first.access_token, "the refresh gave the same access token"
            assert second.refresh_token and second.refresh_token != first.refresh_token, "no new refresh token"
            assert browser.sign_ins == 1, "the SDK signed in again instead of refreshing"
            say(f"ok {label} refreshed, gitlab_user current is still {user}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--auth", action="append", choices=AUTH_METHODS)
    parser.add_argument("--user", default="alice")
    parser.add_argument("--client-metadata-url")
    parser.add_argument("--redirect-uri", help="a loopback URI on a free port by default")
    args = parser.parse_args()
    passed = failed = 0
    runs = [(a, None) for a in (args.auth or AUTH_METHODS)]
    if args.client_metadata_url:
        runs.append(("none", args.client_metadata_url))
    for auth, document in runs:
        try:
            asyncio.run(run(args.url, auth, args.user, document, args.redirect_uri))
            passed += 1
        except BaseException as e:  # an ExceptionGroup from anyio included
            failed += 1
            print(f"FAILED {auth}{' (metadata document)' if document else ''}: {e!r}", flush=True)
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
