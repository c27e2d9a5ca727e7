//! Compiles the catalog (`catalog/*.toml`) into Rust statics in
//! `$OUT_DIR/catalog_generated.rs`, with the catalog compiler
//! (`catalog-compiler/`, the `gitlab-mcp-catalog` crate). On a mistake the
//! build fails once, listing every problem with its file, item and field.
//! Also names the commit and target for `--version` (`version.rs`).

mod version;

use std::path::Path;

fn main() {
    version::emit();
    println!("cargo::rerun-if-changed=catalog");
    println!("cargo::rerun-if-changed=src/handlers");
    println!("cargo::rerun-if-changed=src/dispatch/checks");
    // `CATALOG_ONLY=gitlab_issue` compiles one tool file, to check an entry in
    // isolation while other files are being edited; a comma-separated list
    // compiles several (a smaller catalog, for BENCHMARKS.md's scaling row).
    println!("cargo::rerun-if-env-changed=CATALOG_ONLY");
    let only = std::env::var("CATALOG_ONLY").ok();

    match gitlab_mcp_catalog::compile(Path::new("catalog"), Path::new("src"), only.as_deref()) {
        Ok(generated) => {
            let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
            let dest = Path::new(&out_dir).join("catalog_generated.rs");
            std::fs::write(dest, generated.code).expect("write the generated catalog");
        }
        Err(problems) => panic!("{problems}"),
    }
}
