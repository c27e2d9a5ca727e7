// The merge request review: its files with their hunks, the threads at
// their lines, its pipeline. Selected lines take a comment
// (`gitlab_merge_request line_comment`); "Approve" sends the head commit it
// shows. Any action of the tool that names one merge request opens it; for
// the others the view says the answer is in the conversation.

const TOOL = "gitlab_merge_request";
const MR_FIELDS = ["iid", "project_id", "title", "state", "draft", "sha", "source_branch", "target_branch", "author", "head_pipeline", "detailed_merge_status"];
const DIFF_FIELDS = ["old_path", "new_path", "diff", "new_file", "deleted_file", "renamed_file", "too_large", "collapsed"];

const view = { mr: null, target: null, files: [], selection: null };

start("gitlab-mcp merge request review", load);

// The merge request a call names: its project and iid, or a web URL.
function named(args) {
  const params = args.params || {};
  if (params.project_id !== undefined && params.merge_request_iid !== undefined) {
    return { project_id: params.project_id, merge_request_iid: params.merge_request_iid };
  }
  return typeof params.url === "string" ? { url: params.url } : null;
}

async function load(args) {
  const which = named(args);
  if (!which) {
    say(`This call (${args.action || "no action"}) names no single merge request: its answer is in the conversation.`);
    return;
  }
  say("Reading the merge request…");
  try {
    const mr = gitlabJson(await call(TOOL, { action: "get", params: which, fields: MR_FIELDS })).values[0];
    view.mr = mr;
    view.target = { project_id: mr.project_id, merge_request_iid: mr.iid };
    showHeader(mr);
    say("Reading its changes and threads…");
    const [diffs, threads] = await Promise.all([
      call(TOOL, { action: "diffs", params: view.target, max_items: 300, fields: DIFF_FIELDS }),
      call(TOOL, { action: "discussion_list", params: view.target, max_items: 300, fields: ["id", "notes"] }),
    ]);
    const read = gitlabJson(diffs);
    view.files = read.values.map(parseFile);
    showFiles();
    const placed = placeThreads(gitlabJson(threads).values);
    const added = view.files.reduce((n, f) => n + f.rows.filter((r) => r.kind === "add").length, 0);
    const removed = view.files.reduce((n, f) => n + f.rows.filter((r) => r.kind === "del").length, 0);
    let summary = `${count(view.files.length, "file")} changed, +${added} −${removed}; ${count(placed.onLines, "thread")} on the diff`;
    if (placed.earlier) summary += `, ${placed.earlier} on an earlier version`;
    if (placed.general) summary += `; ${count(placed.general, "comment")} not on the diff`;
    if (read.cut) summary += `; ${count(read.cut, "file")} cut from the answer`;
    say(`${summary}.`);
    document.getElementById("help").hidden = false;
  } catch (e) {
    say(e.message, true);
  }
}

function showHeader(mr) {
  const title = document.getElementById("title");
  title.textContent = `!${mr.iid} ${mr.title}`;
  const pipeline = mr.head_pipeline;
  const short = (mr.sha || "").slice(0, 8);
  const facts = document.getElementById("facts");
  facts.replaceChildren(
    el("span", {}, mr.draft ? "draft, " : "", mr.state),
    el("span", {}, `${mr.source_branch} → ${mr.target_branch}`),
    mr.author ? el("span", {}, `by ${mr.author}`) : null,
    pipeline
      ? el("span", { id: "pipeline" }, "pipeline ", statusLabel(pipeline.status), ` #${pipeline.id}`)
      : el("span", { id: "pipeline" }, "no pipeline"),
    el("span", {}, "head ", el("code", { id: "head-sha", title: mr.sha }, short)),
    mr.state === "opened"
      ? el("button", { id: "approve", class: "primary", title: `Approve only if the head is still ${mr.sha}`, onclick: approve }, `Approve at ${short}`)
      : null,
  );
}

async function approve(event) {
  const button = event.currentTarget;
  button.disabled = true;
  say(`Approving at ${view.mr.sha.slice(0, 8)}…`);
  try {
    await call(TOOL, { action: "approve", params: { ...view.target, sha: view.mr.sha } });
    button.textContent = `✓ Approved at ${view.mr.sha.slice(0, 8)}`;
    say(`Approved at ${view.mr.sha.slice(0, 8)}.`);
  } catch (e) {
    button.disabled = false;
    say(e.message, true);
  }
}

// One file's diff into rows: hunk headers, then lines with their old and
// new numbers, counted from each header as git writes them.
function parseFile(file) {
  const rows = [];
  let oldNo = 0;
  let newNo = 0;
  for (const line of (file.diff || "").split("\n")) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (header) {
      oldNo = Number(header[1]);
      newNo = Number(header[2]);
      rows.push({ kind: "hunk", text: line });
    } else if (rows.length && line[0] === "+") {
      rows.push({ kind: "add", new: newNo++, text: line.slice(1) });
    } else if (rows.length && line[0] === "-") {
      rows.push({ kind: "del", old: oldNo++, text: line.slice(1) });
    } else if (rows.length && line[0] === " ") {
      rows.push({ kind: "ctx", old: oldNo++, new: newNo++, text: line.slice(1) });
    }
  }
  return { ...file, rows, path: file.deleted_file ? file.old_path : file.new_path };
}

function change(file) {
  if (file.new_file) return "added";
  if (file.deleted_file) return "deleted";
  if (file.renamed_file) return "renamed";
  return "modified";
}

const SIGNS = { add: "+", del: "−", ctx: " " };

function showFiles() {
  const files = document.getElementById("files");
  files.replaceChildren();
  view.files.forEach((file, index) => {
    const added = file.rows.filter((r) => r.kind === "add").length;
    const removed = file.rows.filter((r) => r.kind === "del").length;
    const name = file.renamed_file ? `${file.old_path} → ${file.new_path}` : file.path;
    const section = el("section", { class: "file", "data-path": file.path },
      el("h2", {}, el("span", { class: "path" }, name), " ", el("span", { class: "muted" }, `${change(file)}, +${added} −${removed}`)));
    if (!file.rows.length) {
      section.append(el("p", { class: "muted" }, file.too_large || file.collapsed
        ? `Too large to show here: gitlab_merge_request diffs with "file": "${file.path}" reads it.`
        : "No lines changed (a mode change, or a binary file)."));
    } else {
      const table = el("table", { class: "diff", role: "grid", "aria-label": `Changes of ${file.path}` });
      let first = true;
      file.rows.forEach((row, at) => {
        if (row.kind === "hunk") {
          row.node = el("tr", { class: "hunk" }, el("td", { colspan: 3 }, row.text));
        } else {
          row.node = el("tr", { class: `line ${row.kind}`, tabindex: first ? 0 : -1, "aria-selected": "false", "data-old": row.old, "data-new": row.new },
            el("th", { class: "num" }, row.old === undefined ? "" : row.old),
            el("th", { class: "num" }, row.new === undefined ? "" : row.new),
            el("td", { class: "code" }, el("span", { class: "sign", "aria-hidden": "true" }, SIGNS[row.kind]), el("span", { class: "sr" }, row.kind === "add" ? "added: " : row.kind === "del" ? "removed: " : ""), el("span", { class: "text" }, row.text)));
          row.node.addEventListener("click", (e) => select(index, at, e.shiftKey, true));
          row.node.addEventListener("keydown", (e) => key(e, index, at));
          first = false;
        }
        table.append(row.node);
      });
      section.append(table);
    }
    file.section = section;
    files.append(section);
  });
}

// Keyboard: arrows move between the file's lines, Shift with them selects
// several; Enter or Space selects the line (if it is not already) and goes
// to the comment box; Escape lets go.
function key(event, index, at) {
  const rows = view.files[index].rows;
  const step = { ArrowDown: 1, ArrowUp: -1 }[event.key];
  if (step) {
    let next = at + step;
    while (rows[next] && rows[next].kind === "hunk") next += step;
    if (rows[next]) {
      rows[at].node.tabIndex = -1;
      rows[next].node.tabIndex = 0;
      rows[next].node.focus();
      if (event.shiftKey) {
        if (!view.selection || view.selection.file !== index) select(index, at, false, false);
        select(index, next, true, false);
      }
    }
    event.preventDefault();
  } else if (event.key === "Enter" || event.key === " ") {
    const chosen = view.selection && view.selection.file === index && view.selection.rows.includes(rows[at]);
    if (chosen && !event.shiftKey) view.selection.box.focus();
    else select(index, at, event.shiftKey, true);
    event.preventDefault();
  } else if (event.key === "Escape") {
    unselect();
  }
}

// Select one line, or extend the selection to it; the comment box follows
// the selection with what was written in it.
function select(index, at, extend, focusBox) {
  const keep = view.selection && extend && view.selection.file === index ? view.selection.anchor : at;
  const draft = view.selection && view.selection.box ? view.selection.box.value : "";
  unselect();
  const [from, to] = keep <= at ? [keep, at] : [at, keep];
  const rows = view.files[index].rows.slice(from, to + 1).filter((r) => r.kind !== "hunk");
  rows.forEach((r) => r.node.setAttribute("aria-selected", "true"));
  view.selection = { file: index, anchor: keep, rows };
  compose(view.files[index], rows, draft);
  if (focusBox && view.selection.box) view.selection.box.focus();
}

function unselect() {
  if (!view.selection) return;
  view.selection.rows.forEach((r) => r.node.setAttribute("aria-selected", "false"));
  if (view.selection.form) view.selection.form.remove();
  view.selection = null;
}

// Where a comment on these lines goes: both ends on the new side (added or
// unchanged lines) or both on the old side (removed or unchanged lines).
function placement(file, rows) {
  const first = rows[0];
  const last = rows[rows.length - 1];
  const range = (a, b) => (a === b ? `line ${a}` : `lines ${a}–${b}`);
  if (first.new !== undefined && last.new !== undefined) {
    return { params: { file: file.path, line: first.new, ...(last !== first && { end_line: last.new }) }, words: `${range(first.new, last.new)} of ${file.path}` };
  }
  if (first.old !== undefined && last.old !== undefined) {
    return { params: { file: file.path, old_line: first.old, ...(last !== first && { end_line: last.old }) }, words: `old ${range(first.old, last.old)} of ${file.path}` };
  }
  return null;
}

function compose(file, rows, draft) {
  const where = placement(file, rows);
  const box = el("div", { class: "compose" });
  const form = el("tr", { class: "form" }, el("td", { colspan: 3 }, box));
  rows[rows.length - 1].node.after(form);
  view.selection.form = form;
  if (!where) {
    box.append(el("p", { class: "notice error" }, "A comment's first and last lines must both be new lines (added or unchanged) or both old lines (removed or unchanged)."));
    return;
  }
  // No <form>: a sandboxed frame without `allow-forms` never submits one.
  const text = el("textarea", { id: "comment", rows: 3 });
  text.value = draft;
  view.selection.box = text;
  const send = el("button", { type: "button", class: "primary", onclick: () => post(where, text, send) }, "Comment");
  text.addEventListener("keydown", (e) => {
    if (e.key === "Escape") unselect();
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) post(where, text, send);
  });
  box.append(el("label", { for: "comment" }, `Comment on ${where.words} (Ctrl+Enter sends)`), text,
    el("div", { class: "actions" }, send, el("button", { type: "button", onclick: unselect }, "Cancel")));
}

async function post(where, text, send) {
  if (send.disabled) return;
  const body = text.value.trim();
  if (!body) {
    say("Write the comment first.", true);
    return;
  }
  send.disabled = true;
  say(`Posting on ${where.words}…`);
  try {
    const answer = gitlabJson(await call(TOOL, { action: "line_comment", params: { ...view.target, ...where.params, body } }));
    const last = view.selection.rows[view.selection.rows.length - 1];
    unselect();
    const thread = answer.values[0];
    if (thread) last.node.after(threadRow(thread, false));
    say(`Comment posted on ${where.words}.`);
  } catch (e) {
    send.disabled = false;
    say(e.message, true);
  }
}

// The threads on the diff at their lines; those on an earlier version of
// it listed under their file, as their line numbers are that version's.
function placeThreads(threads) {
  const placed = { onLines: 0, earlier: 0, general: 0 };
  for (const thread of threads) {
    const first = (thread.notes || [])[0];
    if (!first || first.system) continue;
    const p = first.position;
    const file = p && view.files.find((f) => f.new_path === p.new_path || f.old_path === p.old_path);
    const row = file && file.rows.find((r) => (p.new_line ? r.new === p.new_line : r.kind === "del" && r.old === p.old_line));
    if (!file) {
      placed.general += 1;
    } else if (p.head_sha === view.mr.sha && row) {
      row.node.after(threadRow(thread, false));
      placed.onLines += 1;
    } else {
      file.section.append(el("div", { class: "earlier" }, threadBox(thread, true)));
      placed.earlier += 1;
    }
  }
  return placed;
}

const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function threadRow(thread, earlier) {
  return el("tr", { class: "thread" }, el("td", { colspan: 3 }, threadBox(thread, earlier)));
}

function threadBox(thread, earlier) {
  const notes = thread.notes || [];
  const p = notes[0].position || {};
  const resolved = notes.some((n) => n.resolvable) && notes.filter((n) => n.resolvable).every((n) => n.resolved);
  const where = earlier ? ` on an earlier version (${(p.head_sha || "").slice(0, 8)}), line ${p.new_line || p.old_line}` : "";
  return el("div", { class: "box", role: "group", "aria-label": "Thread" },
    el("p", {}, resolved ? el("span", { class: "status ok" }, "✓ resolved") : el("span", { class: "status warn" }, "● unresolved"), el("span", { class: "muted" }, where)),
    notes.map((n) => el("p", { class: "note" }, el("strong", {}, n.author || "someone"), ": ", n.body)));
}
