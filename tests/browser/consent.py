"""The sign-in consent page in Debian's Chromium: the one web page of the
server people already see.

Usage: consent.py AUTHORIZE_URL CLIENT_NAME SCOPES REDIRECT_URI ARTIFACTS_DIR

AUTHORIZE_URL is a client's authorization request to a sign-in server
(`serve --http` with GITLAB_OAUTH_CLIENT_ID...), whose GitLab (the fake)
consents at once. In one browser:

1. the page names the client and each GitLab scope asked for (SCOPES,
   space-separated), and where the browser goes after;
2. its form posted without its ticket (the page's CSRF token) is refused
   with the error page, and the browser goes nowhere else;
3. its form with its ticket but posted from another browser, which has not
   the flow's cookie, is refused likewise;
4. approved through its form, the browser goes through GitLab and back and
   lands on REDIRECT_URI with a code, the request's state and the issuer;
   the last line before the summary is `code <code>`, for the caller to
   redeem.

Every request stays on 127.0.0.1 and no page logs an error. A screenshot of
the page goes to ARTIFACTS_DIR. Prints `ok ...` per step and
`N passed, N failed` last.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import sys
import threading
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from playwright.async_api import expect

from harness import Report, browser, snapshot

ok = Report.ok
REFUSED_FORGED = "This consent form was not issued by this server."
REFUSED_ELSEWHERE = "This answer did not come from the browser the consent page was shown in."


@contextlib.contextmanager
def client_callback(redirect_uri: str):
    """The client's loopback redirect endpoint: the URLs it was sent to."""
    landed: list[str] = []
    parts = urlsplit(redirect_uri)

    class Callback(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.startswith(parts.path):
                landed.append(f"{parts.scheme}://{parts.netloc}{self.path}")
            body = b"<!doctype html><title>Client</title><link rel=icon href='data:,'><p>Signed in.</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer((parts.hostname, parts.port), Callback)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield landed
    finally:
        server.shutdown()
        server.server_close()


async def post_answer(page) -> int:
    """Click Approve; the status of the page the browser lands on."""
    async with page.expect_navigation() as landing:
        await page.locator("button[value=approve]").click()
    return (await landing.value).status


async def consent(authorize_url: str, client_name: str, scopes: str, redirect_uri: str, artifacts: Path) -> None:
    base = f"{urlsplit(authorize_url).scheme}://{urlsplit(authorize_url).netloc}"
    with client_callback(redirect_uri) as landed:
        await steps(authorize_url, client_name, scopes, redirect_uri, artifacts, base, landed)


async def steps(authorize_url, client_name, scopes, redirect_uri, artifacts, base, landed) -> None:
    async with browser({"127.0.0.1"}) as (context, page, watch):
        response = await page.goto(authorize_url)
        assert response.status == 200, response.status
        await expect(page.locator("h1")).to_have_text("Allow access to GitLab?")
        await expect(page.locator("strong").first).to_have_text(client_name)
        assert await page.locator("#scopes code").all_text_contents() == scopes.split(), scopes
        await expect(page.locator("body")).to_contain_text(urlsplit(redirect_uri).netloc)
        await snapshot(page, artifacts / "consent.png")
        ok(f"the consent page names the client `{client_name}`, the scopes {scopes.split()} and {urlsplit(redirect_uri).netloc}")

        await page.locator("input[name=ticket]").evaluate("input => input.remove()")
        status = await post_answer(page)
        assert status == 400, (status, await page.content())
        await expect(page.locator("body")).to_contain_text(REFUSED_FORGED)
        # The browser logs the refusal's status; nothing else.
        assert watch.errors == ["console: Failed to load resource: the server responded with a status of 400 (Bad Request)"], watch.errors
        watch.errors.clear()
        ok("its form posted without the ticket is refused (400, the error page)")

        await page.goto(authorize_url)
        ticket = await page.locator("input[name=ticket]").get_attribute("value")
        other = await context.browser.new_context()
        try:
            stranger = await other.new_page()
            await stranger.goto(f"{base}/healthz")
            await stranger.evaluate(
                """([ticket]) => {
                    const form = document.createElement("form");
                    form.method = "post";
                    form.action = "/authorize";
                    for (const [name, value] of [["ticket", ticket], ["decision", "approve"]]) {
                        const input = document.createElement("input");
                        input.name = name;
                        input.value = value;
                        form.append(input);
                    }
                    document.body.append(form);
                }""",
                [ticket],
            )
            async with stranger.expect_navigation() as landing:
                await stranger.evaluate("document.forms[0].submit()")
            assert (await landing.value).status == 403
            await expect(stranger.locator("body")).to_contain_text(REFUSED_ELSEWHERE)
        finally:
            await other.close()
        ok("its form with the ticket, posted from another browser (no flow cookie), is refused (403)")

        status = await post_answer(page)
        assert status == 200, (status, page.url, await page.content())
        assert page.url == landed[0] and len(landed) == 1, (page.url, landed)
        query = parse_qs(urlsplit(landed[0]).query)
        assert landed[0].startswith(f"{redirect_uri}?"), landed
        assert query["state"] == ["browser-state"] and query["iss"] == [base], query
        ok(f"approved, the browser goes through GitLab and lands on {redirect_uri} with a code, its state and the issuer")
        ok(watch.check())
        print(f"code {query['code'][0]}", flush=True)


def main() -> int:
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    authorize_url, client_name, scopes, redirect_uri, artifacts = sys.argv[1:]
    Path(artifacts).mkdir(parents=True, exist_ok=True)
    report = Report()
    asyncio.run(report.run("consent", consent(authorize_url, client_name, scopes, redirect_uri, Path(artifacts))))
    return report.close()


if __name__ == "__main__":
    sys.exit(main())
