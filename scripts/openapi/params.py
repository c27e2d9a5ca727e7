#!/usr/bin/env python3
"""Print GitLab's parameters of one endpoint as catalog entries to start from.

    python3 scripts/openapi/params.py OPENAPI_YAML METHOD PATH [--missing TOOL.ACTION]

    python3 scripts/openapi/params.py .tools/openapi/openapi_v3.yaml \\
        PUT /projects/{id}/protected_branches/{name}

PATH is GitLab's path below /api/v4; placeholders match by position, so
`/projects/{project_id}/issues` finds `/projects/{id}/issues`.  Each line is
a TOML inline table in the catalog's form (catalog/README.md), followed by
GitLab's own description as a comment: rewrite the `doc` in a short
sentence of your own, and fix what the document cannot say (formats of
dates, path parameter names from _shared.toml or the file's [params],
array styles). A path parameter says neither `in` nor `required`: its
placeholder in `http` says both.

With --missing, only the parameters the catalog action lacks are printed
(the catalog is read from `cargo run -- catalog`).

The OpenAPI document is the one scripts/openapi/extract.py names; keep a
copy under .tools/ (ignored by git).
"""

import json
import re
import subprocess
import sys

import yaml

DEPRECATED = re.compile(r"^\W*deprecated\b", re.I)


def shape(path):
    return re.sub(r"\{[^}]+\}", "{}", path.strip("/"))


def resolve(schema, schemas):
    ref = schema.get("$ref")
    return schemas[ref.rsplit("/", 1)[1]] if ref else schema


def entries(op, schemas):
    """(name, where, required, schema, description) of every parameter."""
    for p in op.get("parameters", []):
        yield p["name"], p["in"], bool(p.get("required")), p.get("schema", {}), p.get("description") or ""
    body = op.get("requestBody")
    if body:
        schema = resolve(next(iter(body["content"].values())).get("schema", {}), schemas)
        required = set(schema.get("required", []))
        for name, prop in (schema.get("properties") or {}).items():
            yield name, "body", name in required, prop, prop.get("description") or ""


def toml_value(v):
    return json.dumps(v, ensure_ascii=False)


def line(name, where, required, schema, text, default_where):
    ty = schema.get("type") or ("string" if "oneOf" in schema else "string")
    parts = [f"name = {toml_value(name.removesuffix('[]'))}", f"type = {toml_value(ty)}"]
    if ty == "array":
        items = (schema.get("items") or {}).get("type", "string")
        parts.append(f"items = {toml_value(items)}")
    # A placeholder of the template is in the path and required already.
    if where not in ("path", default_where):
        parts.append(f"in = {toml_value(where)}")
    if required and where != "path":
        parts.append("required = true")
    enum = schema.get("enum") or (schema.get("items") or {}).get("enum")
    if enum:
        parts.append(f"enum = {toml_value([str(e) for e in enum])}")
    fmt = schema.get("format")
    if fmt in ("date", "date-time"):
        parts.append(f"format = {toml_value(fmt)}")
    if DEPRECATED.search(text):
        parts.append("deprecated = true")
    parts.append('doc = "TODO"')
    return "  { " + ", ".join(parts) + " },  # " + " ".join(text.split())[:200]


def declared(action_id):
    tool, action = action_id.split(".", 1)
    catalog = json.loads(subprocess.run(["cargo", "run", "--quiet", "--", "catalog"],
                                        check=True, capture_output=True, text=True).stdout)
    for t in catalog["tools"]:
        if t["name"] == tool:
            for a in t["actions"]:
                if a["name"] == action:
                    return {p["name"] for p in a["params"]} | set(a.get("fixed") or {})
    sys.exit(f"no action {action_id} in the catalog")


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    doc_path, method, path = argv[1], argv[2].lower(), argv[3]
    skip = declared(argv[5]) if len(argv) > 5 and argv[4] == "--missing" else set()
    with open(doc_path, encoding="utf-8") as f:
        doc = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    schemas = doc.get("components", {}).get("schemas", {})
    found = False
    for raw, item in doc["paths"].items():
        gl_path = raw[len("/api/v4"):]
        if shape(gl_path.replace("(-/)", "-/")) != shape(path) and shape(gl_path.replace("(-/)", "")) != shape(path):
            continue
        op = item.get(method)
        if not op:
            continue
        found = True
        print(f"# {method.upper()} {gl_path}: {op.get('summary') or op.get('description') or ''}".rstrip())
        if op.get("tags"):
            print(f"# tags: {', '.join(op['tags'])}")
        default_where = "query" if method in ("get", "delete") else "body"
        for name, where, required, schema, text in entries(op, schemas):
            if skip and (where == "path" or name.removesuffix("[]").split("[")[0] in skip):
                continue
            print(line(name, where, required, schema, text, default_where))
    if not found:
        sys.exit(f"no {method.upper()} {path} in the document")


if __name__ == "__main__":
    main(sys.argv)
