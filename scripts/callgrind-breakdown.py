#!/usr/bin/env python3
"""Where the instructions of one call go, from two callgrind files of the
instruction benchmark (benches/instructions.rs): a run with no call and a
run with N calls. Every figure is (run with N calls - run with none) / N,
so start-up and shutdown cancel out, as in the benchmark's own total.

    INSTRUCTIONS_OUT=target/cg INSTRUCTIONS_BIN=target/profiling/gitlab-mcp \\
        cargo bench --bench instructions
    scripts/callgrind-breakdown.py target/cg/stdio-0.callgrind target/cg/stdio-500.callgrind 500

Prints two Markdown tables:

- **by crate, self cost**: each function's own instructions (what callgrind
  calls exclusive), summed by the crate its name starts with (for
  `<A as B>::f`, A's crate, or B's when A is the standard library's). These
  add up to the total. With fat LTO much generic code is inlined into its
  caller, so it counts there; what stays in `core`/`alloc`/`std` is generic
  code kept out of line (hashing, formatting, collections).
- **by stage, inclusive**: the instructions spent inside the functions that
  start each stage (a function and everything it calls), for the stages
  named in STAGES below. Stages can nest (the engine's call holds the
  decode and the render), so these do not add up.

Reads the callgrind format itself (name compression, inlined files, call
cost lines); needs only Python 3. Build with `--profile profiling` for
names.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict

# (stage, regular expression over the demangled function name). A stage's
# figure is the largest inclusive cost among its matching functions, per
# call: the outermost one, when several nest; a stage named "(self)" sums
# the self cost of its functions instead.
STAGES = [
    ("stdio: read and parse a request line (the transport)", r"Transport<rmcp::service::server::RoleServer>>::receive::\{\{closure\}\}$"),
    ("stdio: write the answer (serialize, frame, write; rmcp's transport, before stdio_direct.rs)", r"AsyncRwTransport<Role,R,W> as rmcp::transport::Transport<Role>>::send::\{\{closure\}\}$"),
    ("stdio: a call answered without rmcp's serve loop (stdio_direct.rs, the call and its answer)", r"gitlab_mcp::mcp::stdio_direct::DirectCalls::take::\{\{closure\}\}$"),
    ("mcp/: the answer's bytes (answer_bytes.rs: the message, the text escaped)", r"gitlab_mcp::mcp::answer_bytes::answer_bytes$"),
    ("HTTP: rmcp's POST handling (parse, header checks; the call runs in its own task)", r"StreamableHttpService<S,M>::handle_post::\{\{closure\}\}$"),
    ("HTTP: rmcp's header checks (the message serialized again)", r"streamable_http_server::tower::validate_standard_headers$"),
    ("HTTP: the answer as a response (serialize)", r"streamable_http_server::tower::jsonrpc_message_response$"),
    ("rmcp: a request's handler task (ours inside)", r"rmcp::handler::server::<impl rmcp::service::Service<rmcp::service::server::RoleServer> for H>::handle_request::\{\{closure\}\}$"),
    ("mcp/: the call (GitLabServer::run, engine included)", r"gitlab_mcp::mcp::server::GitLabServer::run::\{\{closure\}\}$"),
    ("mcp/: the call under its limits (GitLabServer::execute; over HTTP, the direct path's call)", r"gitlab_mcp::mcp::server::GitLabServer::execute::\{\{closure\}\}$"),
    ("engine: Engine::call", r"gitlab_mcp::engine::Engine::call::\{\{closure\}\}$"),
    ("dispatch: decode and validate", r"gitlab_mcp::dispatch::decode$"),
    ("gitlab/: Client::send (reqwest, hyper, the body read)", r"gitlab_mcp::gitlab::client::Client::send::\{\{closure\}\}$"),
    ("gitlab/: the reqwest request built (URL parsed, token header)", r"gitlab_mcp::gitlab::client::Client::builder$"),
    ("hyper: the client connection's task", r"hyper::proto::h1::dispatch::Dispatcher<D,Bs,I,T>::poll_loop$"),
    ("render/: success (parse GitLab's JSON, compact, frame, write)", r"gitlab_mcp::render::success$"),
    ("render/: GitLab's JSON parsed (tree, through serde; builds before render/parse.rs)", r"<gitlab_mcp::render::tree::Node as serde_core::de::Deserialize>::deserialize$"),
    ("render/: GitLab's JSON parsed (tree, render/parse.rs)", r"gitlab_mcp::render::parse::Reader::value$|gitlab_mcp::render::tree::Node::parse_text$"),
    ("render/: compacted (render/compact.rs)", r"gitlab_mcp::render::compact::compact$"),
    ("render/: the tree written as JSON text (Node::to_text)", r"gitlab_mcp::render::tree::Node::to_text$|gitlab_mcp::render::json::object_text$"),
    ("malloc/free/realloc (self)", r"^(malloc|free|realloc|calloc|_int_malloc|_int_free|_int_realloc|cfree|malloc_consolidate|unlink_chunk.*|posix_memalign|_mid_memalign.*|_?mi_.*)(@.*)?$"),
    ("memcpy/memmove (self)", r"^__mem(cpy|move)_avx_unaligned(_erms)?$"),
]

STD = {"core", "alloc", "std"}


def crate_of(name: str, obj: str) -> str:
    """The crate a demangled Rust name belongs to, or the library for C."""
    if "::" not in name:
        # mimalloc, the global allocator since ee7d789, is C in our binary.
        if re.match(r"_?mi_|mi_", name):
            return "mimalloc (the allocator)"
        lib = obj.rsplit("/", 1)[-1]
        if lib.startswith("libc.so") or lib.startswith("ld-linux"):
            if re.match(r"_?_?(int_)?(malloc|free|realloc|calloc|cfree|tcache|unlink|malloc_consolidate)", name):
                return "libc: malloc/free"
            if re.match(r"__(mem|str|wmem)", name):
                return "libc: memcpy/memmove/memcmp"
            return "libc: other (syscall wrappers, start-up)"
        return lib or "?"
    # `<A as B>::f`, `<A>::f`, `<&A as B>::f`: A's crate, else B's.
    m = re.match(r"^<+(?:&|mut |dyn |\*const |\*mut |\[)*([A-Za-z_][A-Za-z0-9_]*)", name)
    if m:
        first = m.group(1)
        # A generic parameter (`<T as serde::Serialize>`) says nothing.
        if first in STD or re.fullmatch(r"[A-Z]", first):
            b = re.search(r" as (?:&|mut |dyn )*([A-Za-z_][A-Za-z0-9_]*)::", name)
            if b and b.group(1) not in STD:
                return crate_label(b.group(1))
        return crate_label(first)
    return crate_label(name.split("::", 1)[0])


def crate_label(crate: str) -> str:
    if crate == "gitlab_mcp":
        return "gitlab_mcp"
    if crate in STD:
        return "core/alloc/std (generic code kept out of line)"
    return crate


def module_of(name: str) -> str | None:
    """For our own functions: `gitlab_mcp::<module>`."""
    m = re.search(r"gitlab_mcp::([a-z_]+)", name)
    if m and crate_of(name, "") == "gitlab_mcp":
        return "gitlab_mcp::" + m.group(1)
    return None


def read(path: str):
    """Self and inclusive cost per function (name, object)."""
    names: dict[str, dict[str, str]] = defaultdict(dict)
    self_cost: dict[tuple[str, str], int] = defaultdict(int)
    incl_calls: dict[tuple[str, str], int] = defaultdict(int)
    columns = 1
    ob = fn = ""
    in_call = False
    call_target: tuple[str, str] | None = None
    cob = ""

    def named(kind: str, value: str) -> str:
        m = re.match(r"\((\d+)\)(?: (.*))?$", value)
        if not m:
            return value
        ident, text = m.group(1), m.group(2)
        if text is not None:
            names[kind][ident] = text
            return text
        return names[kind].get(ident, "?")

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                cost = int(parts[columns]) if len(parts) > columns else 0
                if in_call:
                    key = (fn, ob)
                    if call_target != key:
                        incl_calls[key] += cost
                    in_call = False
                else:
                    self_cost[(fn, ob)] += cost
                continue
            if line.startswith("positions:"):
                columns = len(line.split()) - 1
            elif line.startswith("ob="):
                ob = named("ob", line[3:])
                cob = ob
            elif line.startswith("fn="):
                fn = named("fn", line[3:])
                cob = ob
            elif line.startswith("cob="):
                cob = named("ob", line[4:])
            elif line.startswith("cfn=") or line.startswith("cfi=") or line.startswith("cfl="):
                if line.startswith("cfn="):
                    call_target = (named("fn", line[4:]), cob)
                else:
                    named("fl", line[4:])
            elif line.startswith("calls="):
                in_call = True
            elif line[:3] in ("fl=", "fi=", "fe="):
                named("fl", line[3:])
    inclusive = {k: self_cost.get(k, 0) + incl_calls.get(k, 0) for k in set(self_cost) | set(incl_calls)}
    return self_cost, inclusive


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit("usage: callgrind-breakdown.py IDLE.callgrind BUSY.callgrind CALLS")
    idle_path, busy_path, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
    idle_self, idle_incl = read(idle_path)
    busy_self, busy_incl = read(busy_path)

    def per_call(busy: dict, idle: dict, keys) -> float:
        return (sum(busy.get(k, 0) for k in keys) - sum(idle.get(k, 0) for k in keys)) / calls

    total = per_call(busy_self, idle_self, set(busy_self) | set(idle_self))
    groups: dict[str, set] = defaultdict(set)
    modules: dict[str, set] = defaultdict(set)
    for key in set(busy_self) | set(idle_self):
        groups[crate_of(*key)].add(key)
        module = module_of(key[0])
        if module:
            modules[module].add(key)

    print(f"Instructions per call: {total:,.0f}\n")
    print("| crate (self cost) | per call | share |")
    print("|---|---:|---:|")
    rows = sorted(((per_call(busy_self, idle_self, k), g) for g, k in groups.items()), reverse=True)
    for cost, group in rows:
        if abs(cost) >= total * 0.005:
            print(f"| {group} | {cost:,.0f} | {100 * cost / total:.1f}% |")
    rest = sum(c for c, _ in rows if abs(c) < total * 0.005)
    print(f"| everything else | {rest:,.0f} | {100 * rest / total:.1f}% |")

    print("\n| our module (self cost) | per call | share |")
    print("|---|---:|---:|")
    for cost, module in sorted(((per_call(busy_self, idle_self, k), m) for m, k in modules.items()), reverse=True):
        if abs(cost) >= 50:
            print(f"| {module} | {cost:,.0f} | {100 * cost / total:.1f}% |")

    print("\n| stage (inclusive) | per call | share |")
    print("|---|---:|---:|")
    for stage, pattern in STAGES:
        regex = re.compile(pattern)
        best = 0.0
        is_self = stage.endswith("(self)")
        for key in set(busy_incl) | set(idle_incl):
            if regex.search(key[0]) and not is_self:
                best = max(best, (busy_incl.get(key, 0) - idle_incl.get(key, 0)) / calls)
        if is_self:
            keys = [k for k in set(busy_self) | set(idle_self) if regex.search(k[0])]
            best = per_call(busy_self, idle_self, keys)
        if best:
            print(f"| {stage} | {best:,.0f} | {100 * best / total:.1f}% |")


if __name__ == "__main__":
    main()
