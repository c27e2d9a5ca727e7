//! The layer invariants of ARCHITECTURE.md, checked on the source: each
//! layer uses only the layers its table allows, never an edge this file
//! forbids (whatever the table says), only `mcp/` knows rmcp,
//! only `gitlab/client.rs` knows reqwest, `dispatch/` does no I/O, no URL
//! is taken apart by hand, and nothing but the command line writes to
//! stdout.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Code lines (comments left out) of every file under `src/`, with the
/// file's path relative to `src/`.
fn code() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut lines = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for line in fs::read_to_string(&file).unwrap().lines() {
            let code = line.trim_start();
            if !code.starts_with("//") {
                lines.push((rel.clone(), code.to_string()));
            }
        }
    }
    lines
}

fn offenders(forbidden: &[&str], allowed: impl Fn(&str) -> bool) -> Vec<String> {
    code()
        .into_iter()
        .filter(|(file, line)| !allowed(file) && forbidden.iter().any(|f| line.contains(f)))
        .map(|(file, line)| format!("{file}: {line}"))
        .collect()
}

#[test]
fn only_mcp_knows_rmcp() {
    let found = offenders(&["rmcp::", "use rmcp"], |f| f.starts_with("mcp/"));
    assert!(found.is_empty(), "rmcp outside mcp/: {found:#?}");
}

#[test]
fn only_the_gitlab_client_knows_reqwest() {
    // Sign-in fetches client metadata documents, with its own guards.
    let found = offenders(&["reqwest::", "use reqwest", "rustls::"], |f| {
        f == "gitlab/client.rs" || f == "signin/fetch.rs"
    });
    assert!(
        found.is_empty(),
        "reqwest outside gitlab/client.rs: {found:#?}"
    );
}

#[test]
fn the_dispatcher_is_pure() {
    let found = offenders(
        &[
            "tokio",
            "std::fs",
            "std::net",
            "std::io",
            "SystemTime",
            "Instant",
            "reqwest",
            "tracing::",
        ],
        |f| !f.starts_with("dispatch/"),
    );
    assert!(found.is_empty(), "I/O in dispatch/: {found:#?}");
}

#[test]
fn urls_are_taken_apart_by_one_parser() {
    // `http_url.rs` (the url crate) reads every URL the server trusts; a
    // second reading by hand is where the two disagree on the host.
    let found = offenders(&["strip_prefix(\"http", "split(\"://\")"], |_| false);
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn nothing_but_the_command_line_writes_to_stdout() {
    let found = offenders(
        &["println!", "print!(", "std::io::stdout", "io::stdout()"],
        |f| f == "main.rs",
    );
    assert!(
        found.is_empty(),
        "stdout written outside main.rs: {found:#?}"
    );
}

/// The layer table of ARCHITECTURE.md: each layer and what it may use.
fn allowed_edges() -> BTreeMap<String, BTreeSet<String>> {
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap();
    let table = text
        .split("<!-- layers:start -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- layers:end -->").next())
        .expect("ARCHITECTURE.md has the layer table between its markers");
    let names = |cell: &str| -> BTreeSet<String> {
        cell.split(',')
            .map(|n| n.trim().trim_matches('`').to_string())
            .filter(|n| !n.is_empty())
            .collect()
    };
    table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            let layer = cells[0].trim().trim_matches('`').to_string();
            (layer, names(cells.get(1).copied().unwrap_or("")))
        })
        .collect()
}

/// The layer of a file under `src/`: its first path component.
fn layer_of(file: &str) -> String {
    file.split('/')
        .next()
        .unwrap()
        .trim_end_matches(".rs")
        .to_string()
}

/// Every layer a piece of code names with `crate::`, grouped imports
/// included: `use crate::{config::Config, engine};` names `config` and
/// `engine`, even across lines.
fn crate_refs(code: &str) -> Vec<String> {
    let ident = |text: &str| -> String {
        text.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            found.push(ident(rest));
            continue;
        };
        // The group's top-level items, up to its closing brace.
        let (mut depth, mut item_start) = (0usize, 0);
        for (j, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    found.push(ident(&group[item_start..j]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    found.push(ident(&group[item_start..j]));
                    item_start = j + 1;
                }
                _ => {}
            }
        }
    }
    found.retain(|name| !name.is_empty());
    found
}

/// Each file under `src/` but the binary's own, with the layers its code
/// names: (file, layer, used layer).
fn uses() -> Vec<(String, String, String)> {
    let mut by_file: BTreeMap<String, String> = BTreeMap::new();
    for (file, line) in code() {
        let text = by_file.entry(file).or_default();
        text.push_str(&line);
        text.push('\n');
    }
    let mut out = Vec::new();
    for (file, text) in by_file {
        let layer = layer_of(&file);
        if layer == "main" || layer == "lib" {
            continue;
        }
        for used in crate_refs(&text) {
            if used != layer {
                out.push((file.clone(), layer.clone(), used));
            }
        }
    }
    out
}

#[test]
fn crate_refs_reads_paths_and_grouped_imports() {
    assert_eq!(crate_refs("use crate::config::Config;"), ["config"]);
    assert_eq!(
        crate_refs("use crate::{\n    config::{self, Config},\n    engine,\n};"),
        ["config", "engine"]
    );
    assert_eq!(
        crate_refs("let x = crate::sandbox::NOTE; crate::mcp::serve()"),
        ["sandbox", "mcp"]
    );
}

#[test]
fn each_layer_uses_only_what_architecture_md_allows() {
    let edges = allowed_edges();
    let mut layers_in_src = BTreeSet::new();
    let mut violations = Vec::new();
    for (file, layer, used) in uses() {
        layers_in_src.insert(layer.clone());
        let Some(allowed) = edges.get(&layer) else {
            continue;
        };
        if !allowed.contains(&used) {
            violations.push(format!("{file}: {layer} uses {used}"));
        }
    }
    let missing: Vec<&String> = layers_in_src
        .iter()
        .filter(|l| !edges.contains_key(*l))
        .collect();
    assert!(
        missing.is_empty(),
        "layers missing from ARCHITECTURE.md's table: {missing:?}"
    );
    assert!(
        violations.is_empty(),
        "uses not allowed by ARCHITECTURE.md: {violations:#?}"
    );
}

/// Edges that ran against the layering once and were taken out: named here
/// so that putting one back fails even if the table were edited to allow
/// it. (layer, what it must not use, why.)
const FORBIDDEN: &[(&str, &str, &str)] = &[
    (
        "engine",
        "config",
        "the engine is built from its own `engine::Settings`; the face's configuration is the face's business",
    ),
    (
        "mcp",
        "sandbox",
        "the protocol layer serves whatever it is started with: the sandbox's note comes as ordinary instructions (`mcp::Introduction`)",
    ),
];

#[test]
fn forbidden_edges_stay_out_of_the_code_and_the_table() {
    let found: Vec<String> = uses()
        .into_iter()
        .filter_map(|(file, layer, used)| {
            let (_, _, why) = FORBIDDEN
                .iter()
                .find(|(from, to, _)| *from == layer && *to == used)?;
            Some(format!("{file}: {layer} uses {used}, but {why}"))
        })
        .collect();
    assert_eq!(found, Vec::<String>::new());
    let edges = allowed_edges();
    let allowed: Vec<String> = FORBIDDEN
        .iter()
        .filter(|(from, to, _)| edges.get(*from).is_some_and(|uses| uses.contains(*to)))
        .map(|(from, to, why)| format!("ARCHITECTURE.md lets {from} use {to}, but {why}"))
        .collect();
    assert_eq!(allowed, Vec::<String>::new());
}

#[test]
fn the_layer_table_has_no_cycle() {
    let edges = allowed_edges();
    // Depth-first search from each layer; a layer reached again on the
    // current path closes a cycle.
    fn visit<'a>(
        layer: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
    ) {
        assert!(!path.contains(&layer), "cycle: {path:?} -> {layer}");
        path.push(layer);
        for next in edges.get(layer).into_iter().flatten() {
            visit(next, edges, path);
        }
        path.pop();
    }
    for layer in edges.keys() {
        visit(layer, &edges, &mut Vec::new());
    }
}
