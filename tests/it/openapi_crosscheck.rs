//! Every REST action of the catalog, checked against GitLab's own
//! description of its API: the endpoints of its OpenAPI document, extracted
//! into `tests/it/data/gitlab_rest_endpoints.json` by
//! `scripts/openapi/extract.py` (the file says from which GitLab version).
//!
//! For each action: an endpoint with its method and path exists (path
//! placeholders compared by position, whatever their names), every
//! parameter GitLab requires is declared or fixed, and every parameter the
//! action declares or fixes is one GitLab knows for that endpoint.
//! The parameters are also complete: every parameter GitLab documents for
//! the endpoint is declared, and a
//! parameter GitLab marks deprecated is declared `deprecated`, with the
//! `replaced_by` GitLab names.
//! Deliberate differences are listed, each with its reason, in
//! `tests/it/data/openapi_exceptions.txt`.
//!
//! The test also prints the share of the document's CE endpoints the
//! catalog serves (`cargo test --test it openapi_crosscheck:: -- --nocapture`)
//! and fails if it falls below `COVERAGE_FLOOR`.

use std::collections::{BTreeSet, HashMap, HashSet};

use gitlab_mcp::catalog::{self, ActionSpec, Location};
use serde_json::Value;

const ENDPOINTS: &str = include_str!("data/gitlab_rest_endpoints.json");
const EXCEPTIONS: &str = include_str!("data/openapi_exceptions.txt");

/// The share of the document's CE endpoints (method and path) that at least
/// one catalog action serves: 846 of 1450 (58.3 %) when this floor was set.
/// Raise it as coverage grows; it may only fall with a new document.
const COVERAGE_FLOOR: f64 = 0.583;

/// One parameter of a GitLab endpoint.
struct GlParam {
    name: String,
    location: String,
    required: bool,
}

/// One endpoint of the document.
struct Endpoint {
    method: String,
    path: String,
    ce: bool,
    params: Vec<GlParam>,
    /// Deprecated parameters, with the one GitLab names in their place.
    deprecated: HashMap<String, Option<String>>,
}

fn endpoints() -> Vec<Endpoint> {
    let doc: Value = serde_json::from_str(ENDPOINTS).expect("the endpoints file is JSON");
    let list = doc["endpoints"].as_array().expect("an `endpoints` array");
    list.iter()
        .map(|e| {
            let tier = e["tier"].as_str().expect("a tier");
            assert!(matches!(tier, "ce" | "ee"), "unknown tier {tier}");
            Endpoint {
                method: e["method"].as_str().expect("a method").to_owned(),
                path: e["path"].as_str().expect("a path").to_owned(),
                ce: tier == "ce",
                params: e["params"]
                    .as_array()
                    .expect("params")
                    .iter()
                    .map(|p| GlParam {
                        name: p[0].as_str().expect("a parameter name").to_owned(),
                        location: p[1].as_str().expect("a location").to_owned(),
                        required: p[2].as_i64() == Some(1),
                    })
                    .collect(),
                deprecated: e["deprecated"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| (k.clone(), v.as_str().map(str::to_owned)))
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// A path's shape: its segments with every `{placeholder}` reduced to `{}`,
/// so that `/projects/{project_id}/issues` and `/projects/{id}/issues` agree.
fn shape(path: &str) -> Vec<String> {
    path.trim_matches('/')
        .split('/')
        .map(|segment| {
            let mut out = String::new();
            let mut rest = segment;
            while let Some(open) = rest.find('{') {
                let close = rest[open..].find('}').expect("a closed placeholder") + open;
                out.push_str(&rest[..open]);
                out.push_str("{}");
                rest = &rest[close + 1..];
            }
            out.push_str(rest);
            out
        })
        .collect()
}

/// The name a parameter is known by: `labels[]` is `labels`, and the keys
/// of a hash (`not[labels]`, `variables[][key]`) belong to the hash.
fn base(name: &str) -> &str {
    let name = name.strip_suffix("[]").unwrap_or(name);
    name.split('[').next().unwrap_or(name)
}

/// Excused parameters by `tool.action`; `None` excuses all of them.
struct Exception {
    params: Option<Vec<String>>,
    line: usize,
}

fn exceptions() -> HashMap<String, Exception> {
    let mut out = HashMap::new();
    for (n, line) in EXCEPTIONS.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.splitn(3, ' ');
        let (Some(action), Some(params), Some(reason)) = (words.next(), words.next(), words.next())
        else {
            panic!(
                "openapi_exceptions.txt:{}: want `tool.action params reason`",
                n + 1
            );
        };
        assert!(
            reason.trim().len() > 10,
            "openapi_exceptions.txt:{}: say why",
            n + 1
        );
        let params = (params != "*").then(|| params.split(',').map(str::to_owned).collect());
        let old = out.insert(
            action.to_owned(),
            Exception {
                params,
                line: n + 1,
            },
        );
        assert!(
            old.is_none(),
            "openapi_exceptions.txt:{}: {action} listed twice",
            n + 1
        );
    }
    out
}

/// What is wrong with `action` against `endpoint`, by parameter name.
fn problems(action: &ActionSpec, endpoint: &Endpoint) -> Vec<(String, String)> {
    let mut declared: BTreeSet<&str> = action
        .params
        .iter()
        .filter(|p| p.location != Location::Path)
        .map(|p| base(p.name))
        .collect();
    declared.extend(
        action
            .fixed
            .iter()
            .filter(|f| f.location != Location::Path)
            .map(|f| base(f.name)),
    );
    let known: HashSet<&str> = endpoint
        .params
        .iter()
        .filter(|p| p.location != "path")
        .map(|p| base(&p.name))
        .collect();
    let mut out = Vec::new();
    let mut missing = BTreeSet::new();
    for p in &endpoint.params {
        let name = base(&p.name);
        if p.location == "path" || declared.contains(name) {
            continue;
        }
        if p.required {
            out.push((
                name.to_owned(),
                format!(
                    "GitLab requires `{}` ({}), not declared",
                    p.name, p.location
                ),
            ));
        } else if missing.insert(name) {
            out.push((
                name.to_owned(),
                format!("GitLab documents `{name}` ({}), not declared", p.location),
            ));
        }
    }
    out.extend(deprecation_problems(action, endpoint));
    for name in declared {
        if !known.contains(name) {
            out.push((
                name.to_owned(),
                format!("`{name}` is not a parameter GitLab knows here"),
            ));
        }
    }
    out
}

/// A parameter GitLab marks deprecated is declared deprecated, replaced by
/// the parameter GitLab names when the action has it; and the catalog marks
/// nothing deprecated that GitLab does not.
fn deprecation_problems(action: &ActionSpec, endpoint: &Endpoint) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in action
        .params
        .iter()
        .filter(|p| p.location != Location::Path)
    {
        match (endpoint.deprecated.get(p.name), p.deprecated) {
            (Some(current), false) => out.push((
                p.name.to_owned(),
                format!(
                    "GitLab marks `{}` deprecated{}: declare it `deprecated`",
                    p.name,
                    current
                        .as_deref()
                        .map(|c| format!(" (use `{c}`)"))
                        .unwrap_or_default()
                ),
            )),
            (Some(Some(current)), true)
                if action.param(current).is_some() && p.replaced_by != Some(current.as_str()) =>
            {
                out.push((
                    p.name.to_owned(),
                    format!(
                        "GitLab replaces `{}` by `{current}`: say `replaced_by`",
                        p.name
                    ),
                ))
            }
            (None, true) => out.push((
                p.name.to_owned(),
                format!(
                    "`{}` is declared deprecated, GitLab's document does not say so",
                    p.name
                ),
            )),
            _ => {}
        }
    }
    out
}

#[test]
fn every_rest_action_matches_gitlab_openapi_document() {
    let endpoints = endpoints();
    let mut by_route: HashMap<(&str, Vec<String>), Vec<&Endpoint>> = HashMap::new();
    for e in &endpoints {
        by_route
            .entry((e.method.as_str(), shape(&e.path)))
            .or_default()
            .push(e);
    }
    let exceptions = exceptions();
    // Actions an exception excused something of, and REST actions matched.
    let mut used: HashSet<String> = HashSet::new();
    let mut matched: HashSet<String> = HashSet::new();
    let mut served: HashSet<(&str, &str)> = HashSet::new();
    let mut failures = Vec::new();
    let mut checked = 0;

    for tool in catalog::tools() {
        for action in tool.actions {
            // REST actions only: GraphQL actions are checked against
            // GitLab's GraphQL schema (graphql_documents.rs), `help` is local.
            let (Some(method), Some(template)) = (action.method(), action.template()) else {
                continue;
            };
            checked += 1;
            let id = format!("{}.{}", tool.name, action.name);
            let Some(candidates) = by_route.get(&(method.as_str(), shape(template))) else {
                failures.push(format!(
                    "{id}: no {} {template} in GitLab's document",
                    method.as_str()
                ));
                continue;
            };
            matched.insert(id.clone());
            for e in candidates {
                served.insert((e.method.as_str(), e.path.as_str()));
            }
            // Paths that differ only in placeholder names: the closest one.
            let found = candidates
                .iter()
                .map(|e| (e, problems(action, e)))
                .min_by_key(|(_, p)| p.len())
                .expect("at least one candidate");
            let (endpoint, found) = found;
            let exception = exceptions.get(&id);
            for (param, message) in found {
                let excused = exception
                    .is_some_and(|x| x.params.as_ref().is_none_or(|list| list.contains(&param)));
                if excused {
                    used.insert(id.clone());
                } else {
                    failures.push(format!(
                        "{id} ({} {}): {message}",
                        endpoint.method, endpoint.path
                    ));
                }
            }
            if let Some(Exception {
                params: Some(list),
                line,
            }) = exception
            {
                let still = problems(action, endpoint);
                for p in list {
                    if !still.iter().any(|(name, _)| name == p) {
                        failures.push(format!(
                            "openapi_exceptions.txt:{line}: {id} `{p}` matches GitLab now: remove it"
                        ));
                    }
                }
            }
        }
    }
    // `CATALOG_ONLY=gitlab_issue` builds one tool file: the others' entries
    // and the coverage of the whole catalog cannot be judged then.
    let partial = option_env!("CATALOG_ONLY").is_some();
    for (id, x) in &exceptions {
        // A stale parameter of a matched action is reported above.
        let reported = x.params.is_some() && matched.contains(id);
        let tool = id.split('.').next().unwrap_or_default();
        let absent = partial && catalog::tools().iter().all(|t| t.name != tool);
        if !used.contains(id) && !reported && !absent {
            failures.push(format!(
                "openapi_exceptions.txt:{}: {id} excuses nothing (no such REST action, or it matches GitLab now): remove it",
                x.line
            ));
        }
    }

    let ce: Vec<&Endpoint> = endpoints.iter().filter(|e| e.ce).collect();
    let ce_served = ce
        .iter()
        .filter(|e| served.contains(&(e.method.as_str(), e.path.as_str())))
        .count();
    let ee_served = served.len() - ce_served;
    let share = ce_served as f64 / ce.len() as f64;
    println!(
        "GitLab CE endpoints served by the catalog: {ce_served} of {} ({:.1} %); \
         EE endpoints served: {ee_served} of {}; {checked} REST actions checked",
        ce.len(),
        share * 100.0,
        endpoints.len() - ce.len(),
    );

    assert!(
        failures.is_empty(),
        "{} difference(s) from GitLab's OpenAPI document:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        partial || share >= COVERAGE_FLOOR,
        "coverage of GitLab's CE endpoints fell to {:.1} % (floor {:.1} %)",
        share * 100.0,
        COVERAGE_FLOOR * 100.0
    );
}

#[test]
fn shapes_compare_placeholders_by_position() {
    assert_eq!(
        shape("/projects/{project_id}/issues/{issue_iid}"),
        shape("/projects/{id}/issues/{issue_iid}")
    );
    assert_eq!(
        shape("/projects/{id}/repository/commits/{sha}.diff"),
        vec!["projects", "{}", "repository", "commits", "{}.diff"]
    );
    assert_ne!(shape("/projects/{id}/issues"), shape("/projects/{id}/{x}"));
    assert_eq!(base("labels[]"), "labels");
    assert_eq!(base("not[labels]"), "not");
    assert_eq!(base("variables[][key]"), "variables");
}
