//! SECURITY.md maps every threat to the tests that prove its defence: each
//! test it names exists, in the file it names when it names one, so the
//! table cannot silently point at nothing.

use std::fs;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = path.strip_prefix(ROOT).unwrap().display().to_string();
            out.push((name, fs::read_to_string(&path).unwrap()));
        }
    }
}

#[test]
fn every_test_security_md_names_exists_where_it_says() {
    let text = fs::read_to_string(Path::new(ROOT).join("SECURITY.md")).unwrap();
    let mut files = Vec::new();
    for dir in ["src", "tests", "fuzz", "benches"] {
        let dir = Path::new(ROOT).join(dir);
        if dir.exists() {
            sources(&dir, &mut files);
        }
    }
    let table: Vec<&str> = text.lines().filter(|l| l.starts_with("| ")).collect();
    assert!(table.len() > 10, "the threat table");
    let mut named = 0;
    for row in table.iter().skip(2) {
        let proof = row.rsplit(" | ").next().unwrap_or_default();
        // `tests/it/x.rs`: `a`, `b`; `src/y.rs`: `c` — names belong to the
        // file named last before them.
        let mut file: Option<String> = None;
        // Inside "fuzz targets `a`, `b`": the names are fuzz targets.
        let mut fuzz_targets = false;
        for (i, part) in proof.split('`').enumerate() {
            if i % 2 == 0 {
                fuzz_targets = part.ends_with("fuzz target ")
                    || part.ends_with("fuzz targets ")
                    || (fuzz_targets && matches!(part, ", " | " and "));
                continue;
            }
            if fuzz_targets {
                let target = format!("fuzz/fuzz_targets/{part}.rs");
                assert!(
                    Path::new(ROOT).join(&target).exists(),
                    "SECURITY.md names fuzz target {part}, but {target} does not exist"
                );
            } else if part.ends_with(".rs") {
                assert!(
                    Path::new(ROOT).join(part).exists(),
                    "SECURITY.md names {part}, which does not exist"
                );
                file = Some(part.to_string());
            } else if part
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                && part.contains('_')
            {
                let wanted = format!("fn {part}(");
                let found = files
                    .iter()
                    .filter(|(name, _)| file.as_ref().is_none_or(|f| name == f))
                    .any(|(_, src)| src.contains(&wanted));
                assert!(found, "SECURITY.md names `{part}`, not a test of {file:?}");
                named += 1;
            }
        }
    }
    assert!(named >= 30, "{named} tests named");
}
