#!/usr/bin/env python3
"""Extract what the catalog cross-check needs from GitLab's OpenAPI document.

Source
    Repository  gitlabhq/gitlabhq (the GitHub mirror of gitlab-org/gitlab)
    Path        doc/api/openapi/openapi_v3.yaml
    Commit      045bf8777ea893e770b49d420febaeb7bf89e24a
    Version     info.version "19.5" (OpenAPI 3.0.0, 3,912,294 characters)

The document is generated from GitLab's Grape route definitions
(lib/api/*.rb and ee/lib/api/*.rb); those files stay the ground truth
where the two differ (see tests/it/data/openapi_exceptions.txt).

How the committed data file was made
    python3 scripts/openapi/extract.py openapi_v3.yaml \
        > tests/it/data/gitlab_rest_endpoints.json

    Requirements: Python 3.11 and PyYAML (6.0.3 was used; if it is missing,
    `python3 -m venv .tools/venv && .tools/venv/bin/pip install pyyaml` and
    run the script with .tools/venv/bin/python).

    The document was read from the stored copy of the commit above in pieces
    of 16,000 characters and reassembled; every piece was checked against
    its expected length and its neighbours' boundaries.  Only two parts of
    the document are read by this script: `paths` and the `RequestBody_*`
    schemas under `components/schemas` (which hold every request body).
    The response schemas (`APIEntities*`) between them were not needed and
    the run that produced the committed file used a copy without them;
    running the script on the complete document gives the same output.

What is extracted (one endpoint per line, sorted by path then method)
    method    GET, POST, PUT, PATCH, DELETE or HEAD
    path      below /api/v4, placeholders kept as GitLab names them
              ({id}, {issue_iid}, ...); an optional `(-/)` segment is
              expanded into both spellings
    tier      "ce" or "ee" (see below)
    params    [name, where, required, type, enum] for every parameter:
              where is path, query or body; required is 1 or 0; type is
              the OpenAPI type (oneOf of string and integer is "string");
              enum is the list of allowed values or null.  Body
              parameters are the top-level properties of the request
              body schema (`$ref` resolved), required from its `required`
              list.  For object-typed body parameters the names of their
              properties follow as a sixth element.
    lifecycle "beta" or "experiment" when GitLab marks it so (optional)
    deprecated  {name: replacement} for the parameters GitLab marks
              deprecated (OpenAPI `deprecated: true`, or a description
              that begins with "Deprecated", "[Deprecated ...]" or
              "(deprecated)"); the replacement is the parameter the
              description names ("Use `draft` instead", "See
              allow_collaboration", "Renamed to internal"), or null when it
              names none (optional)

CE or EE
    The document does not mark the tier of most operations (only three
    carry `x-gitlab-tier`).  An endpoint counts as EE (Premium/Ultimate)
    when any of these holds, otherwise CE:
      1. it carries `x-gitlab-tier`;
      2. its first tag is one of EE_TAGS below: API pages that GitLab's
         documentation marks "Tier: Premium, Ultimate" or "Ultimate" as a
         whole, or features that exist only in the EE codebase (some
         confirmed by a listing of ee/lib/api/*.rb in the mirror: epics,
         geo, ldap, license, managed_licenses, project_approvals,
         project_mirror, project_push_rule);
      3. its path matches one of EE_PATHS below: Premium/Ultimate
         endpoints that GitLab documents on otherwise free pages (group
         webhooks, group wikis, group protected branches, merge request
         dependencies, approval rules, audit events, SAML/SCIM/LDAP,
         iterations, weights, vulnerabilities, and similar).
    The rules are conservative: an endpoint of unknown tier stays CE, so
    the coverage figure errs low rather than high.
"""

import json
import re
import sys

import yaml

SOURCE = {
    "repository": "gitlabhq/gitlabhq",
    "path": "doc/api/openapi/openapi_v3.yaml",
    "commit": "045bf8777ea893e770b49d420febaeb7bf89e24a",
}

METHODS = ("get", "post", "put", "patch", "delete", "head")

EE_TAGS = {
    "Active context", "Add on purchases", "Advanced search rollout",
    "Ai agent audit events", "Ai agent identities", "Ai agent sessions",
    "Analytics", "Approval rules", "Audit events", "CI minutes",
    "Code Suggestions", "Code review analytics", "Code search",
    "Compliance policy settings", "DORA metrics", "Data management",
    "Dependency management", "Enterprise users", "Epics",
    "External status checks", "Geo", "GitLab Duo", "GitLab Duo workflows",
    "GitLab subscriptions", "Group credentials inventory", "Iterations",
    "Knowledge graph", "LDAP", "Licenses", "Member roles", "Merge trains",
    "Namespace projects", "Orbit", "Project alias", "Project approvals",
    "Project mirrors", "Protected environments", "Provider identities",
    "Push rules", "Runner controller tokens", "Runner controllers",
    "SAML group links", "Security scans", "Service accounts",
    "Software composition analysis", "Vulnerabilities", "Workspaces",
}

EE_PATHS = [re.compile(p) for p in (
    r"/security_settings$", r"/billable_members", r"/pending_members",
    r"/seat_usage", r"/ldap", r"/saml", r"/scim", r"/audit_events",
    r"/provisioned_users", r"/ssh_certificates", r"/epics?(/|$)",
    r"/epic_boards", r"/related_epic", r"^/groups/\{[^}]+\}/hooks",
    r"^/groups/\{[^}]+\}/protected_branches", r"^/groups/\{[^}]+\}/wikis",
    r"/push_rule", r"/iterations", r"/approval_rules", r"/approval_settings",
    r"^/projects/\{[^}]+\}/approvals$", r"/approval_state", r"/approvers",
    r"/merge_trains", r"/protected_environments", r"/external_status_checks",
    r"/status_check", r"/managed_licenses", r"/dependency_list_exports",
    r"vulnerabilit", r"^/security/", r"/dora/", r"/analytics/",
    r"/mirror/pull", r"/resource_iteration_events", r"/resource_weight_events",
    r"^/projects/\{[^}]+\}/issues/\{[^}]+\}/metric_images",
    r"/ai_agent/", r"^/ai/", r"/service_accounts", r"/compliance",
    r"/merge_requests/\{[^}]+\}/(blocks|blockees)", r"/member_roles",
    r"/enterprise_users", r"/manage/", r"/gitlab_subscription",
    r"/storage/limit_exclusion", r"^/license", r"^/geo",
    r"^/admin/(zoekt|search|active_context|knowledge_graph|data_management)",
    r"^/elasticsearch", r"^/code_suggestions", r"^/chat/", r"duo",
    r"^/orbit", r"runner_controllers", r"/sbom_scans",
    r"^/internal/gitlab_subscriptions", r"/subscription_add_on_purchase",
    r"^/namespaces/\{[^}]+\}/minutes", r"/search/semantic",
)]


def tier(path, op):
    if op.get("x-gitlab-tier"):
        return "ee"
    tags = op.get("tags") or []
    if tags and tags[0] in EE_TAGS:
        return "ee"
    if any(rx.search(path) for rx in EE_PATHS):
        return "ee"
    return "ce"


def type_of(schema):
    if not schema:
        return "any"
    if "oneOf" in schema or "anyOf" in schema:
        kinds = [s.get("type", "any") for s in schema.get("oneOf") or schema.get("anyOf")]
        if "string" in kinds:
            return "string"
        return kinds[0]
    t = schema.get("type", "any")
    if t == "array":
        item = (schema.get("items") or {}).get("type", "any")
        return f"array[{item}]"
    return t


def enum_of(schema):
    if not schema:
        return None
    if "enum" in schema:
        return schema["enum"]
    items = schema.get("items") or {}
    if "enum" in items:
        return items["enum"]
    return None


def body_params(op, schemas):
    body = op.get("requestBody")
    if not body:
        return []
    out = []
    for content in body["content"].values():
        schema = content.get("schema", {})
        ref = schema.get("$ref")
        if ref:
            schema = schemas[ref.rsplit("/", 1)[1]]
        required = set(schema.get("required", []))
        for name, prop in (schema.get("properties") or {}).items():
            row = [name, "body", int(name in required), type_of(prop), enum_of(prop)]
            sub = prop.get("properties") or (prop.get("items") or {}).get("properties")
            if sub:
                row.append(sorted(sub))
            out.append(row)
        break  # every operation has one content type
    return out


DEPRECATED = re.compile(r"^\W*deprecated\b", re.I)
REPLACEMENT = re.compile(r"\b(?:use|see|renamed to)\s+(?:the\s+)?[`:]?([a-z_][a-z0-9_]*)", re.I)


def deprecations(op, schemas):
    """The parameters GitLab marks deprecated, with what replaces each."""
    found = {}
    described = [(p["name"], p) for p in op.get("parameters", [])]
    body = op.get("requestBody")
    if body:
        schema = next(iter(body["content"].values())).get("schema", {})
        ref = schema.get("$ref")
        if ref:
            schema = schemas[ref.rsplit("/", 1)[1]]
        described += list((schema.get("properties") or {}).items())
    for name, p in described:
        text = p.get("description") or ""
        if p.get("deprecated") or DEPRECATED.search(text):
            match = REPLACEMENT.search(text)
            found[name] = match.group(1) if match else None
    return found


def expand(path):
    """`(-/)` marks an optional `-/` segment: both spellings are routes."""
    if "(-/)" in path:
        return [path.replace("(-/)", "-/"), path.replace("(-/)", "")]
    return [path]


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        doc = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    schemas = doc.get("components", {}).get("schemas", {})
    rows = []
    for raw_path, item in doc["paths"].items():
        assert raw_path.startswith("/api/v4/"), raw_path
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            params = []
            for p in op.get("parameters", []):
                s = p.get("schema", {})
                params.append([p["name"], p["in"], int(bool(p.get("required"))), type_of(s), enum_of(s)])
            params += body_params(op, schemas)
            for path in expand(raw_path[len("/api/v4"):]):
                row = {"method": method.upper(), "path": path, "tier": tier(path, op)}
                if op.get("x-gitlab-lifecycle"):
                    row["lifecycle"] = op["x-gitlab-lifecycle"]
                row["params"] = params
                deprecated = deprecations(op, schemas)
                if deprecated:
                    row["deprecated"] = deprecated
                rows.append(row)
    rows.sort(key=lambda r: (r["path"], r["method"]))
    ce = sum(r["tier"] == "ce" for r in rows)
    head = dict(SOURCE, gitlab_version=str(doc["info"]["version"]), openapi=doc["openapi"],
                generated_by="scripts/openapi/extract.py", endpoints=len(rows), ce=ce, ee=len(rows) - ce)
    out = sys.stdout
    out.write("{\n\"source\": " + json.dumps(head, ensure_ascii=False) + ",\n\"endpoints\": [\n")
    for i, r in enumerate(rows):
        out.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")))
        out.write(",\n" if i + 1 < len(rows) else "\n")
    out.write("]\n}\n")


if __name__ == "__main__":
    main(sys.argv)
