//! The committed reference `docs/tools.md` is what the catalog says today:
//! regenerate it with `cargo run -- catalog --markdown > docs/tools.md`.

#[test]
fn docs_tools_md_is_fresh() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tools.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let current = gitlab_mcp::catalog::catalog_markdown();
    assert_eq!(
        committed.trim_end(),
        current.trim_end(),
        "docs/tools.md is stale: run `cargo run -- catalog --markdown > docs/tools.md` and commit it"
    );
}
