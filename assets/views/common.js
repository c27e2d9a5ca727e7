"use strict";
// Shared by both views (src/mcp/views.rs puts it first in each page): the
// view's side of MCP Apps (SEP-1865, version 2026-01-26), JSON-RPC 2.0 over
// postMessage with the host window; the server's answers read back into
// GitLab's JSON; statuses as sign, word and colour; a DOM helper that only
// ever writes text.

const PROTOCOL_VERSION = "2026-01-26";

const host = (() => {
  let nextId = 1;
  const pending = new Map();
  const listeners = {};
  const post = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined) {
      const waiting = pending.get(m.id);
      if (!waiting) return;
      pending.delete(m.id);
      if (m.error) waiting.reject(new Error(m.error.message || "the host refused the request"));
      else waiting.resolve(m.result);
    } else if (m.id !== undefined) {
      // The host's requests: a view keeps nothing to save before teardown.
      if (m.method === "ui/resource-teardown" || m.method === "ping") post({ id: m.id, result: {} });
      else post({ id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
    } else if (listeners[m.method]) {
      listeners[m.method](m.params || {});
    }
  });
  return {
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        post({ id, method, params });
      });
    },
    notify(method, params) {
      post({ method, params });
    },
    on(method, handler) {
      listeners[method] = handler;
    },
  };
})();

// The host's theme and style variables (hostContext), over the defaults.
function applyContext(context) {
  const root = document.documentElement;
  if (context.theme === "light" || context.theme === "dark") root.dataset.theme = context.theme;
  const variables = (context.styles && context.styles.variables) || {};
  for (const [name, value] of Object.entries(variables)) {
    if (name.startsWith("--") && typeof value === "string") root.style.setProperty(name, value);
  }
}

// Handshake, then `load(arguments)` with the tool call's input once its
// result is in (the view reads what it shows itself, after any write the
// call made).
function start(name, load) {
  let args = {};
  connect(name, (input) => (args = input), () => load(args)).catch((e) => say(`The host did not start the view: ${e.message}`, true));
}

async function connect(name, input, result) {
  host.on("ui/notifications/tool-input", (p) => input(p.arguments || {}));
  host.on("ui/notifications/tool-result", result);
  host.on("ui/notifications/tool-cancelled", (p) => say(`The call was cancelled${p.reason ? `: ${p.reason}` : ""}.`));
  host.on("ui/notifications/host-context-changed", applyContext);
  const init = await host.request("ui/initialize", {
    appInfo: { name, version: "1" },
    appCapabilities: { availableDisplayModes: ["inline"] },
    protocolVersion: PROTOCOL_VERSION,
  });
  applyContext(init.hostContext || {});
  host.notify("ui/notifications/initialized", {});
  let height = 0;
  new ResizeObserver(() => {
    const now = Math.ceil(document.body.getBoundingClientRect().height);
    if (now !== height) {
      height = now;
      host.notify("ui/notifications/size-changed", { height });
    }
  }).observe(document.body);
}

// A result's text; an error result is thrown with its words.
function resultText(result) {
  const text = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  if (result.isError) throw new Error(text || "the call failed");
  return text;
}

// One tool call through the host, which may ask the person first.
async function call(tool, args) {
  return resultText(await host.request("tools/call", { name: tool, arguments: args }));
}

// GitLab's JSON in an answer: the lines between the frame's marks, one
// value each (a list is one object per line; an empty one is `[]`, with no
// frame); the server's notes follow the closing mark. A line that does not
// parse was cut: it is counted.
function gitlabJson(text) {
  const lines = text.split("\n");
  if (lines[0] === "[]") return { values: [], cut: 0, notes: lines.slice(1).join("\n").trim() };
  const open = lines.indexOf("⟦");
  const close = lines.lastIndexOf("⟧");
  if (open < 0 || close < open) throw new Error(text.slice(0, 300) || "an empty answer");
  const values = [];
  let cut = 0;
  for (const line of lines.slice(open + 1, close)) {
    if (!line.trim()) continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      cut += 1;
    }
  }
  return { values, cut, notes: lines.slice(close + 1).join("\n").trim() };
}

// The framed text between the marks, for answers that are prose.
function framedText(text) {
  const lines = text.split("\n");
  const open = lines.indexOf("⟦");
  const close = lines.lastIndexOf("⟧");
  return open < 0 || close < open ? text : lines.slice(open + 1, close).join("\n");
}

// An element with attributes, listeners (`on...`) and children as text.
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}

// GitLab's statuses: sign, word, tone.
const STATUSES = {
  success: ["✓", "passed", "ok"],
  failed: ["✗", "failed", "bad"],
  running: ["●", "running", "info"],
  pending: ["◷", "pending", "warn"],
  waiting_for_resource: ["◷", "waiting", "warn"],
  preparing: ["◷", "preparing", "warn"],
  scheduled: ["◷", "scheduled", "info"],
  created: ["○", "created", "idle"],
  manual: ["⚙", "manual", "idle"],
  canceled: ["⊘", "canceled", "idle"],
  canceling: ["⊘", "canceling", "idle"],
  skipped: ["»", "skipped", "idle"],
};

function statusLabel(status, allowedToFail) {
  const [sign, word, tone] =
    status === "failed" && allowedToFail ? ["!", "failed, allowed", "warn"] : STATUSES[status] || ["?", status || "unknown", "idle"];
  return el("span", { class: `status ${tone}` }, `${sign} ${word}`);
}

// A line in the live region that screen readers announce.
function say(text, isError) {
  const region = document.getElementById("status");
  region.textContent = text;
  region.className = isError ? "notice error" : "muted";
}
