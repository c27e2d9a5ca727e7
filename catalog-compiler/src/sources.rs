//! The compiler's input: the catalog's TOML texts, its icons and the names
//! of the handler and check files, read from disk, or written by a test.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::problem::{Place, Report};

/// Everything a compilation reads.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The catalog's folder, as problems name its files (`catalog`).
    pub catalog_dir: PathBuf,
    /// The crate's `src`, as problems name the handler and check files.
    pub src_dir: PathBuf,
    /// Every `.toml` file of the catalog: file name, text.
    pub files: BTreeMap<String, String>,
    /// Every SVG of `catalog/icons/`: stem, text.
    pub icons: BTreeMap<String, String>,
    /// The GraphQL documents of `catalog/graphql/`: stem, text.
    pub documents: BTreeMap<String, String>,
    /// `catalog/graphql/gitlab_schema.graphql`: the part of GitLab's
    /// schema the documents use, which their variables are checked against.
    pub schema: Option<String>,
    /// The stems of the `.rs` files of `src/handlers/`,
    /// `src/handlers/graphql/actions/` and `src/dispatch/checks/`, `mod`
    /// left out.
    pub handler_files: BTreeSet<String>,
    pub graphql_handler_files: BTreeSet<String>,
    pub check_files: BTreeSet<String>,
}

/// Where the icons live, under the catalog's folder.
pub const ICONS_DIR: &str = "icons";

/// Where handlers and checks live, under `src`.
pub const HANDLERS_DIR: &str = "handlers";
pub const GRAPHQL_HANDLERS_DIR: &str = "handlers/graphql/actions";
pub const CHECKS_DIR: &str = "dispatch/checks";
/// Where the GraphQL documents live, under the catalog.
pub const DOCUMENTS_DIR: &str = "graphql";
/// The schema's stem in `DOCUMENTS_DIR`: not a document.
pub const SCHEMA_STEM: &str = "gitlab_schema";

impl Sources {
    /// A catalog file's name as problems show it: `catalog/kinds.toml`.
    pub fn label(&self, file: &str) -> String {
        self.catalog_dir.join(file).display().to_string()
    }

    /// `catalog/icons`.
    pub fn icons_dir(&self) -> String {
        self.catalog_dir.join(ICONS_DIR).display().to_string()
    }

    /// `catalog/graphql/work_item_get.graphql`.
    pub fn document_label(&self, stem: &str) -> String {
        self.catalog_dir
            .join(DOCUMENTS_DIR)
            .join(format!("{stem}.graphql"))
            .display()
            .to_string()
    }

    /// `src/handlers`, `src/dispatch/checks`.
    pub fn code_dir(&self, dir: &str) -> String {
        self.src_dir.join(dir).display().to_string()
    }
}

/// Read the catalog and the code folders; what cannot be read is a problem.
pub fn read(catalog_dir: &Path, src_dir: &Path, report: &mut Report) -> Sources {
    let mut sources = Sources {
        catalog_dir: catalog_dir.to_path_buf(),
        src_dir: src_dir.to_path_buf(),
        handler_files: stems(&src_dir.join(HANDLERS_DIR), "rs"),
        graphql_handler_files: stems(&src_dir.join(GRAPHQL_HANDLERS_DIR), "rs"),
        check_files: stems(&src_dir.join(CHECKS_DIR), "rs"),
        files: BTreeMap::new(),
        icons: BTreeMap::new(),
        documents: BTreeMap::new(),
        schema: None,
    };
    for stem in stems(&catalog_dir.join(ICONS_DIR), "svg") {
        let path = catalog_dir.join(ICONS_DIR).join(format!("{stem}.svg"));
        match fs::read_to_string(&path) {
            Ok(text) => {
                sources.icons.insert(stem, text);
            }
            Err(e) => report.push(
                &Place::file(path.display().to_string()),
                None,
                format!("cannot read: {e}"),
            ),
        }
    }
    read_documents(&catalog_dir.join(DOCUMENTS_DIR), &mut sources, report);
    let entries = match fs::read_dir(catalog_dir) {
        Ok(entries) => entries,
        Err(e) => {
            report.push(
                &Place::file(catalog_dir.display().to_string()),
                None,
                format!("cannot read the folder: {e}"),
            );
            return sources;
        }
    };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        match fs::read_to_string(&path) {
            Ok(text) => {
                sources.files.insert(name, text);
            }
            Err(e) => report.push(
                &Place::file(path.display().to_string()),
                None,
                format!("cannot read: {e}"),
            ),
        }
    }
    sources
}

/// The `.graphql` files of the documents' folder, the schema apart.
fn read_documents(dir: &Path, sources: &mut Sources, report: &mut Report) {
    for stem in stems(dir, "graphql") {
        let path = dir.join(format!("{stem}.graphql"));
        match fs::read_to_string(&path) {
            Ok(text) if stem == SCHEMA_STEM => sources.schema = Some(text),
            Ok(text) => {
                sources.documents.insert(stem, text);
            }
            Err(e) => report.push(
                &Place::file(path.display().to_string()),
                None,
                format!("cannot read: {e}"),
            ),
        }
    }
}

/// The stems of a folder's files with that extension, `mod` left out.
fn stems(dir: &Path, extension: &str) -> BTreeSet<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return BTreeSet::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|s| s != "mod")
        .collect()
}
