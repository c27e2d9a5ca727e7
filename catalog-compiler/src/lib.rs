//! The catalog compiler of gitlab-mcp: reads `catalog/*.toml`, checks
//! every entry, and writes the catalog as Rust statics (`ToolSpec`,
//! `ActionSpec`, `ParamSpec`, `KindSpec`...) with the `Handler` and `Check`
//! enums of the names it uses. Like rustc, it reports every mistake at
//! once, each naming its file, item and field.
//!
//! - `sources`: what is read (the TOML texts, the handler and check files);
//! - `defs`: the file formats, as serde reads them (closed sets as enums);
//! - `template`: an action's `http` taken apart at its placeholders;
//! - `expand`: a tool file's actions expanded and checked;
//! - `params`: an action's parameters resolved and placed;
//! - `graphql`: GraphQL actions: their documents read with the server's
//!   parser, their variables checked against the documents and GitLab's
//!   schema;
//! - `emit`: the Rust text;
//! - `json`: TOML values as JSON text;
//! - `problem`: what is refused, and where.
//!
//! It refuses: a file that is not TOML, an unknown key, a word outside a
//! closed set (`type`, `in`, `style`, `items`), each with its line and
//! column; an `http` that is not `METHOD /path`, names another method or
//! leaves a placeholder unclosed; a placeholder with no parameter; `path`
//! as an `in`, and `in` or `required` on a placeholder's parameter;
//! `minimum` or `maximum` outside an integer, `fields` outside an array of
//! objects; a missing annotation; a hint keyed by something other than an
//! HTTP status; a `use` naming no parameter of the file or of
//! `_shared.toml`, a parameter of a file's `[params]` no action uses; a
//! `returns` naming no kind of `kinds.toml`; a toolset not declared in
//! `_shared.toml`; a `handler` or `check` that is not snake_case or has no
//! file in `src/handlers/` or `src/dispatch/checks/`; a `one_of` or
//! `replaced_by` naming no parameter of the action; `long_running` on a
//! destructive action (a task cannot ask for confirmation); an `icon` with no SVG
//! in `catalog/icons/`, or no `server.svg` there; a `featured` action the
//! file lacks or names twice; a value that is not
//! JSON-representable; a prompt text naming an argument it does not
//! declare; a `diffs`, `served_by`, peer tool or reference prefix of the
//! wrong shape; a `role = "web_url"` outside `_shared.toml`, twice, or
//! `use`d; an action with both or neither of `http` and `graphql`; a
//! GraphQL document that does not parse or is not one query or mutation, a
//! `graphql` naming none, a query on an action that writes and a mutation
//! on a read-only one, a variable the document does not declare or a
//! required one nothing feeds, a parameter feeding nothing, a path into an
//! input object the schema lacks, a value of the wrong type for its
//! variable, an `answer` the document does not select.
//!
//! It prints nothing: gitlab-mcp's `build/main.rs` prints cargo's
//! directives, writes the code, and fails the build listing the problems.
//! The rules that need the compiled catalog are gitlab-mcp's
//! `tests/it/catalog_rules.rs`.

mod defs;
mod emit;
mod expand;
mod graphql;
pub mod json;
mod params;
mod problem;
mod sources;
mod template;

use std::collections::BTreeSet;
use std::path::Path;

use serde::de::DeserializeOwned;

use defs::{KindsFile, PromptsFile, SharedFile, ToolFile, UrlsFile, VocabularyFile};
use problem::{Place, Report};
pub use problem::{Problem, Problems};
pub use sources::Sources;

/// The stem of the server's own icon in `catalog/icons/`.
const SERVER_ICON: &str = "server";

/// The compiled catalog.
#[derive(Debug)]
pub struct Generated {
    /// Rust items, to `include!` where `src/catalog/model.rs`'s types are
    /// in scope.
    pub code: String,
}

/// Compile the catalog of `catalog_dir`, checking handler and check names
/// against the files under `src_dir`. `only` names tool files, separated
/// by commas (`gitlab_issue`, `gitlab_issue,gitlab_label`): only they are
/// written and only their problems (and those of the files every tool
/// uses) count, whatever state the others are in.
pub fn compile(
    catalog_dir: &Path,
    src_dir: &Path,
    only: Option<&str>,
) -> Result<Generated, Problems> {
    let mut report = Report::default();
    let sources = sources::read(catalog_dir, src_dir, &mut report);
    compile_into(&sources, only, report)
}

/// Compile sources already read (or written by a test).
pub fn compile_sources(sources: &Sources, only: Option<&str>) -> Result<Generated, Problems> {
    compile_into(sources, only, Report::default())
}

fn compile_into(
    sources: &Sources,
    only: Option<&str>,
    mut report: Report,
) -> Result<Generated, Problems> {
    let place = |name: &str| Place::file(sources.label(name));
    let shared: Option<SharedFile> = parse(sources, "_shared.toml", &mut report);
    let kinds: Option<KindsFile> = parse(sources, "kinds.toml", &mut report);
    let vocabulary: Option<VocabularyFile> = parse(sources, "vocabulary.toml", &mut report);
    let prompts: Option<PromptsFile> = parse(sources, "prompts.toml", &mut report);
    let urls: Option<UrlsFile> = parse(sources, "urls.toml", &mut report);
    let chosen = |name: &str| {
        only.is_none_or(|only| {
            let tool = name.strip_suffix(".toml");
            only.split(',').any(|one| tool == Some(one.trim()))
        })
    };
    let tools: Vec<(&str, Option<ToolFile>)> = sources
        .files
        .keys()
        .filter(|name| name.starts_with("gitlab_"))
        .map(|name| (name.as_str(), parse(sources, name, &mut report)))
        .collect();

    let mut out = String::from(
        "// @generated by gitlab-mcp-catalog (build/main.rs) from catalog/*.toml; edit the catalog, not this file.\n",
    );
    if let Some(kinds) = &kinds {
        emit::kinds(&mut out, kinds, &place("kinds.toml"), &mut report);
    }
    if let Some(shared) = &shared {
        for (name, def) in &shared.params {
            let at = place("_shared.toml").then(format_args!("param `{name}`"));
            params::declaration(def, params::Declared::Shared, &at, &mut report);
        }
        emit::toolsets(&mut out, shared);
        emit::web_url(
            &mut out,
            params::web_url(shared, &place("_shared.toml"), &mut report),
        );
    }
    if let Some(vocabulary) = &vocabulary {
        emit::vocabulary(&mut out, vocabulary, &place("vocabulary.toml"), &mut report);
    }
    if let Some(prompts) = &prompts {
        emit::prompts(&mut out, prompts, &place("prompts.toml"), &mut report);
    }
    if let Some(urls) = &urls {
        emit::urls(&mut out, urls, &place("urls.toml"), &mut report);
    }

    // Every GraphQL document is read (and written, for the resolvers that
    // send those no action names), and the schema their variables use.
    let schema = sources.schema.as_deref().and_then(|text| {
        graphql::Schema::read(text)
            .map_err(|e| {
                report.push(
                    &Place::file(sources.document_label(sources::SCHEMA_STEM)),
                    None,
                    e,
                )
            })
            .ok()
    });
    let mut documents = std::collections::BTreeMap::new();
    for (name, text) in &sources.documents {
        match graphql::Document::read(text) {
            Ok(document) => {
                documents.insert(name.clone(), document);
            }
            Err(e) => report.push(&Place::file(sources.document_label(name)), None, e),
        }
    }
    emit::documents(&mut out, &documents);

    // Every tool file is expanded, even under `only`: the enums need every
    // handler and check name, or the match arms of the others would not
    // compile. A tool file's references are checked once `_shared.toml`
    // and `kinds.toml` read.
    let mut handlers = BTreeSet::new();
    let mut graphql_handlers = BTreeSet::new();
    let mut checks = BTreeSet::new();
    let icons: BTreeSet<String> = sources.icons.keys().cloned().collect();
    let icons_dir = sources.icons_dir();
    emit::server_icon(
        &mut out,
        sources.icons.get(SERVER_ICON),
        &icons_dir,
        &mut report,
    );
    out.push_str("pub static TOOLS: &[ToolSpec] = &[\n");
    if let (Some(shared), Some(kinds)) = (&shared, &kinds) {
        let shared_file = sources.label("_shared.toml");
        let known = expand::Known {
            shared,
            shared_file: &shared_file,
            kinds,
            handlers: expand::CodeFiles {
                names: &sources.handler_files,
                dir: sources.code_dir(sources::HANDLERS_DIR),
            },
            graphql_handlers: expand::CodeFiles {
                names: &sources.graphql_handler_files,
                dir: sources.code_dir(sources::GRAPHQL_HANDLERS_DIR),
            },
            checks: expand::CodeFiles {
                names: &sources.check_files,
                dir: sources.code_dir(sources::CHECKS_DIR),
            },
            icons: &icons,
            icons_dir: &icons_dir,
            graphql: graphql::Known {
                documents: &documents,
                names: sources.documents.keys().map(String::as_str).collect(),
                schema: schema.as_ref(),
            },
        };
        for (name, tool) in &tools {
            let Some(tool) = tool else { continue };
            let actions = expand::tool(tool, &known, &place(name), &mut report);
            for a in &actions {
                let set = match a.route {
                    expand::Route::Graphql(_) => &mut graphql_handlers,
                    expand::Route::Rest(_) | expand::Route::Help => &mut handlers,
                };
                set.extend(a.handler.clone());
            }
            checks.extend(actions.iter().filter_map(|a| a.check.clone()));
            if chosen(name) {
                let icon = sources.icons.get(&tool.icon).map_or("", String::as_str);
                emit::tool(&mut out, tool, icon, &actions);
            }
        }
    }
    out.push_str("];\n");
    emit::closed_set(
        &mut out,
        "Handler",
        "Every `handler` the catalog names; `src/handlers/<name>.rs` carries it out.",
        &handlers,
    );
    emit::closed_set(
        &mut out,
        "GraphqlHandler",
        "Every `handler` of a GraphQL action; `src/handlers/graphql/actions/<name>.rs` carries it out.",
        &graphql_handlers,
    );
    emit::closed_set(
        &mut out,
        "Check",
        "Every `check` the catalog names; `src/dispatch/checks/<name>.rs` states it.",
        &checks,
    );

    let skipped: BTreeSet<String> = tools
        .iter()
        .filter(|(name, _)| !chosen(name))
        .map(|(name, _)| sources.label(name))
        .collect();
    report.retain_files(|file| !skipped.contains(file));
    report.finish(Generated { code: out })
}

/// A catalog file read as `T`; a missing file or a TOML error (with its
/// line and column) is a problem.
fn parse<T: DeserializeOwned>(sources: &Sources, name: &str, report: &mut Report) -> Option<T> {
    let at = Place::file(sources.label(name));
    let Some(text) = sources.files.get(name) else {
        report.push(&at, None, "missing: every catalog has this file");
        return None;
    };
    toml::from_str(text)
        .map_err(|e| report.push(&at, None, e.to_string()))
        .ok()
}
