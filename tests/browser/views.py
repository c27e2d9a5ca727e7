"""The MCP Apps views in Debian's Chromium, hosted by tests/browser/host.html.

Usage: views.py merge-request|pipeline MCP_URL ARTIFACTS_DIR

The host (this script and the page) connects to the server with the
official Python SDK, declaring MCP Apps, finds the view linked from the tool
(`_meta.ui.resourceUri`), reads it (`resources/read`), makes the model's
call, and shows the view with that call's input and result; every call the
view makes goes through the host, which asks the person (`confirm`, accepted
here) and forwards it over the same MCP session. The sandbox's demo project
is `demo/webshop` (merge request !3, pipeline 4102, job 8806 failed).

- merge-request: the view draws every file of !3's diff, every hunk header
  and every line with its kind and text as the diffs say, and the seeded
  thread right after its line; a line selected with the keyboard takes a
  comment that the sandbox then holds as a discussion positioned at that
  line of the head version, and a range one with its `line_range`;
  "Approve" names the head commit and sends it.
- pipeline: the view draws every job of pipeline 4102 in its stage with its
  status in words, and the failed job, opened with the keyboard, shows its
  paragraph of `gitlab_pipeline triage`, asked through the host.

Both: no console error, no request but the host page's own, and
screenshots (light and dark) in ARTIFACTS_DIR. GITLAB_TOKEN is sent as a
Private-Token header (the sandbox takes any). Run it against a fresh
sandbox: GitLab refuses a second approval from the same user. Prints
`ok ...` per step and `N passed, N failed` last.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from pathlib import Path

from playwright.async_api import expect

from harness import MIME_TYPE, Report, browser, dump, framed_json, host_page, mcp_client, snapshot, text_of

PROJECT = "demo/webshop"
MR_TOOL = "gitlab_merge_request"
PIPELINE_TOOL = "gitlab_pipeline"
MR_URI = "ui://gitlab-mcp/merge-request"
PIPELINE_URI = "ui://gitlab-mcp/pipeline"
NO_DOMAINS = {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}
# Its own words each run, so that a run against a server used before finds
# its own discussion.
RUN = uuid.uuid4().hex[:8]
COMMENT = f"Shipping should use the discounted subtotal here (browser test {RUN})."
RANGE_COMMENT = f"Could findDiscount live beside DISCOUNTS? (browser test {RUN})"
ok = Report.ok


async def view_of(client, tool: str, uri: str):
    """The tool as listed and its view as read, checked against the rules."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert tools[tool].meta == {"ui": {"resourceUri": uri}}, tools[tool].meta
    listed = {r.uri: r for r in (await client.list_resources()).resources}
    assert listed[uri].mime_type == MIME_TYPE, listed
    content = (await client.read_resource(uri)).contents[0]
    size = len(content.text.encode())
    assert content.mime_type == MIME_TYPE and size < 60 * 1024, (content.mime_type, size)
    assert content.meta == {"ui": {"csp": NO_DOMAINS, "prefersBorder": True}}, content.meta
    ok(f"{tool} links {uri}: listed, {size} bytes of {MIME_TYPE}, a CSP naming no domain")
    return tools[tool], content


class Host:
    """The test host page showing one view, the person saying yes to calls."""

    def __init__(self, page, client):
        self.page = page
        self.client = client
        self.asked: list[str] = []

    async def start(self, url: str) -> None:
        async def host_call(method: str, params: dict):
            if method == "tools/call":
                return dump(await self.client.call_tool(params["name"], params.get("arguments") or {}))
            if method == "resources/read":
                return dump(await self.client.read_resource(params["uri"]))
            raise ValueError(f"the host forwards no {method}")

        def confirm(dialog) -> None:
            self.asked.append(dialog.message)
            asyncio.ensure_future(dialog.accept())

        self.page.on("dialog", confirm)
        await self.page.expose_function("hostCall", host_call)
        await self.page.goto(url)

    async def show(self, tool, content, arguments: dict, theme: str = "light"):
        """The model's call, then its view: the view's frame."""
        result = await self.client.call_tool(tool.name, arguments)
        assert not result.is_error, text_of(result)
        call = {
            "html": content.text,
            "csp": content.meta["ui"]["csp"],
            "tool": dump(tool),
            "arguments": arguments,
            "result": dump(result),
            "theme": theme,
        }
        await self.page.evaluate("call => show(call)", call)
        return self.page.frame_locator("#frame")

    async def calls(self) -> list[dict]:
        """The `tools/call` requests the view sent, as the host got them."""
        log = await self.page.evaluate("window.hostLog")
        return [m["params"] for m in log if m.get("from") == "view" and m.get("method") == "tools/call"]


async def dark(client, page_url: str, tool, content, target: dict, drawn: tuple[str, int], path: Path) -> None:
    """The view of `get` on `target` in the dark theme, `drawn` = (selector,
    count) once it has drawn, as a screenshot."""
    async with browser({"127.0.0.1"}, color_scheme="dark") as (_, page, watch):
        host = Host(page, client)
        await host.start(page_url)
        view = await host.show(tool, content, {"action": "get", "params": target}, theme="dark")
        await expect(view.locator(drawn[0])).to_have_count(drawn[1])
        await snapshot(page, path)
        ok(f"dark theme drawn; {watch.check()}")


async def gitlab(client, tool: str, action: str, params: dict, **view) -> list:
    """GitLab's JSON for a call, as the test reads it itself (`raw`)."""
    answer = await client.call_tool(tool, {"action": action, "params": params, "raw": True, **view})
    return framed_json(text_of(answer))


def diff_rows(diff: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The hunk headers and the lines (kind, text) of a unified diff."""
    headers, lines = [], []
    for line in diff.split("\n"):
        if line.startswith("@@"):
            headers.append(line)
        elif headers and line[:1] in ("+", "-", " "):
            lines.append(({"+": "add", "-": "del", " ": "ctx"}[line[0]], line[1:]))
    return headers, lines


async def merge_request(url: str, artifacts: Path) -> None:
    token = os.environ.get("GITLAB_TOKEN", "sandbox")
    async with mcp_client(url, token) as client:
        tool, content = await view_of(client, MR_TOOL, MR_URI)
        target = {"project_id": PROJECT, "merge_request_iid": 3}
        mr = (await gitlab(client, MR_TOOL, "get", target))[0]
        diffs = await gitlab(client, MR_TOOL, "diffs", target)
        with host_page() as page_url:
            async with browser({"127.0.0.1"}) as (_, page, watch):
                host = Host(page, client)
                await host.start(page_url)
                view = await host.show(tool, content, {"action": "get", "params": target})

                files = view.locator("section.file")
                await expect(files).to_have_count(len(diffs))
                assert await files.evaluate_all("s => s.map(x => x.dataset.path)") == [d["new_path"] for d in diffs]
                hunks = lines = 0
                for d in diffs:
                    section = view.locator(f'section.file[data-path="{d["new_path"]}"]')
                    headers, rows = diff_rows(d["diff"])
                    assert await section.locator("tr.hunk").all_text_contents() == headers, d["new_path"]
                    drawn = await section.locator("tr.line").evaluate_all(
                        "rs => rs.map(r => [r.classList[1], r.querySelector('.text').textContent])"
                    )
                    assert [tuple(r) for r in drawn] == rows, (d["new_path"], drawn, rows)
                    hunks += len(headers)
                    lines += len(rows)
                ok(f"merge request view draws !3's {len(diffs)} files, {hunks} hunk headers and {lines} lines as the diffs say")

                checkout = view.locator('section.file[data-path="src/checkout.ts"]')
                seeded = checkout.locator("tr.line").filter(has_text="const shippingCents = shippingFor(subtotalCents);")
                after = seeded.locator("xpath=following-sibling::tr[1]")
                await expect(after).to_have_class("thread")
                await expect(after).to_contain_text("Free shipping is still decided on the subtotal")
                await expect(after).to_contain_text("● unresolved")
                ok("the seeded unresolved thread is drawn right after its line of src/checkout.ts")

                row = checkout.locator("tr.line.add").filter(has_text="const off = discount ? discountCents")
                line = int(await row.get_attribute("data-new"))
                await row.focus()
                await page.keyboard.press("Enter")
                await expect(row).to_have_attribute("aria-selected", "true")
                await expect(view.locator("#comment")).to_be_focused()
                await page.keyboard.type(COMMENT)
                await snapshot(page, artifacts / "merge-request-comment.png", height=1100)
                await page.keyboard.press("Tab")
                await page.keyboard.press("Enter")
                await expect(view.locator("#status")).to_have_text(f"Comment posted on line {line} of src/checkout.ts.")
                posted = row.locator("xpath=following-sibling::tr[1]")
                await expect(posted).to_have_class("thread")
                await expect(posted).to_contain_text(COMMENT)
                sent = (await host.calls())[-1]
                assert sent == {
                    "name": MR_TOOL,
                    "arguments": {
                        "action": "line_comment",
                        "params": {"project_id": mr["project_id"], "merge_request_iid": 3, "file": "src/checkout.ts", "line": line, "body": COMMENT},
                    },
                }, sent
                assert "line_comment" in host.asked[-1], host.asked
                threads = await gitlab(client, MR_TOOL, "discussion_list", target, max_items=300)
                notes = [n for t in threads for n in t["notes"] if n["body"] == COMMENT]
                assert len(notes) == 1, notes
                position = notes[0]["position"]
                refs = mr["diff_refs"]
                assert (position["new_path"], position["new_line"], position.get("old_line")) == ("src/checkout.ts", line, None), position
                assert (position["head_sha"], position["base_sha"], position["start_sha"]) == (mr["sha"], refs["base_sha"], refs["start_sha"]), position
                ok(f"a comment on line {line} of src/checkout.ts, selected and sent with the keyboard and confirmed in the host, is a discussion at new_line {line} of head {mr['sha'][:8]}")

                discounts = view.locator('section.file[data-path="src/discounts.ts"]')
                first = discounts.locator("tr.line").filter(has_text="export function findDiscount")
                start = int(await first.get_attribute("data-new"))
                await first.focus()
                for _ in range(3):
                    await page.keyboard.press("Shift+ArrowDown")
                selected = discounts.locator('tr.line[aria-selected="true"]')
                await expect(selected).to_have_count(4)
                await page.keyboard.press("Space")
                await expect(view.locator("#comment")).to_be_focused()
                await page.keyboard.type(RANGE_COMMENT)
                await page.keyboard.press("Control+Enter")
                await expect(view.locator("#status")).to_have_text(f"Comment posted on lines {start}–{start + 3} of src/discounts.ts.")
                sent = (await host.calls())[-1]["arguments"]["params"]
                assert (sent["file"], sent["line"], sent["end_line"]) == ("src/discounts.ts", start, start + 3), sent
                threads = await gitlab(client, MR_TOOL, "discussion_list", target, max_items=300)
                position = next(n for t in threads for n in t["notes"] if n["body"] == RANGE_COMMENT)["position"]
                ends = position["line_range"]["start"], position["line_range"]["end"]
                assert [(e["type"], e["new_line"]) for e in ends] == [("new", start), ("new", start + 3)], position
                ok(f"a range, lines {start}–{start + 3} of src/discounts.ts chosen with Shift+arrows, opened with Space and sent with Ctrl+Enter, is a discussion with that line_range")

                approve = view.locator("#approve")
                await expect(approve).to_have_text(f"Approve at {mr['sha'][:8]}")
                await approve.focus()
                await page.keyboard.press("Enter")
                await expect(view.locator("#status")).to_have_text(f"Approved at {mr['sha'][:8]}.")
                sent = (await host.calls())[-1]
                assert sent["arguments"] == {"action": "approve", "params": {"project_id": mr["project_id"], "merge_request_iid": 3, "sha": mr["sha"]}}, sent
                ok(f"Approve shows and sends the head {mr['sha'][:8]}, confirmed in the host")

                await snapshot(page, artifacts / "merge-request.png")
                ok(watch.check())
            await dark(client, page_url, tool, content, target, ("section.file", len(diffs)), artifacts / "merge-request-dark.png")


async def pipeline(url: str, artifacts: Path) -> None:
    token = os.environ.get("GITLAB_TOKEN", "sandbox")
    async with mcp_client(url, token) as client:
        tool, content = await view_of(client, PIPELINE_TOOL, PIPELINE_URI)
        target = {"project_id": PROJECT, "pipeline_id": 4102}
        found = (await gitlab(client, PIPELINE_TOOL, "get", target))[0]
        jobs = await gitlab(client, PIPELINE_TOOL, "job_list", target)
        triage = text_of(await client.call_tool(PIPELINE_TOOL, {"action": "triage", "params": {**target, "max_bytes": 16000}}))
        with host_page() as page_url:
            async with browser({"127.0.0.1"}) as (_, page, watch):
                host = Host(page, client)
                await host.start(page_url)
                view = await host.show(tool, content, {"action": "get", "params": target})

                cards = view.locator(".job")
                await expect(cards).to_have_count(len(jobs))
                words = {"success": "✓ passed", "failed": "✗ failed"}
                for job in jobs:
                    stage = view.locator("section.stage", has=view.locator(f'[data-job="{job["id"]}"]'))
                    await expect(stage.locator("h2")).to_contain_text(job["stage"])
                    card = view.locator(f'[data-job="{job["id"]}"]')
                    await expect(card).to_contain_text(job["name"])
                    await expect(card.locator(".status")).to_have_text(words[job["status"]])
                stages = await view.locator("section.stage h2").evaluate_all("hs => hs.map(h => h.firstChild.textContent.trim())")
                assert stages == ["build", "test"], stages
                ok(f"pipeline view draws all {len(jobs)} jobs of 4102 in stages {' → '.join(stages)}, each with its status in words")

                failed = [j for j in jobs if j["status"] == "failed"]
                assert len(failed) == 1, failed
                job = failed[0]
                button = view.locator(f'button[data-job="{job["id"]}"]')
                await button.focus()
                await page.keyboard.press("Enter")
                await expect(button).to_have_attribute("aria-expanded", "true")
                panel = view.locator(f"#excerpt-{job['id']} pre")
                paragraph = next(p for p in triage.split("\n\n") if p.startswith(f"Job {job['id']} "))
                excerpt = paragraph.split("\n", 1)[1]
                await expect(panel).to_have_text(excerpt)
                sent = (await host.calls())[-1]
                assert sent == {"name": PIPELINE_TOOL, "arguments": {"action": "triage", "params": {"project_id": found["project_id"], "pipeline_id": 4102, "max_bytes": 16000}}}, sent
                assert "triage" in host.asked[-1], host.asked
                first_error = next(line for line in excerpt.split("\n") if "|" in line)
                ok(f"failed job {job['id']} `{job['name']}`, opened with the keyboard, shows its triage excerpt ({len(excerpt.splitlines())} lines, from `{first_error.strip()[:60]}`) asked through the host")

                await snapshot(page, artifacts / "pipeline.png")

                asked = len(await host.calls())
                view = await host.show(tool, content, {"action": "list", "params": {"project_id": PROJECT}})
                await expect(view.locator("#status")).to_have_text("This call (list) names no single pipeline: its answer is in the conversation.")
                assert len(await host.calls()) == asked, await host.calls()
                ok("a call naming no single pipeline (list) gets one line and no call from the view")
                ok(watch.check())
            await dark(client, page_url, tool, content, target, (".job", len(jobs)), artifacts / "pipeline-dark.png")


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in ("merge-request", "pipeline"):
        print(__doc__, file=sys.stderr)
        return 2
    check, url, artifacts = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    artifacts.mkdir(parents=True, exist_ok=True)
    report = Report()
    run = merge_request if check == "merge-request" else pipeline
    asyncio.run(report.run(check, run(url, artifacts)))
    return report.close()


if __name__ == "__main__":
    sys.exit(main())
