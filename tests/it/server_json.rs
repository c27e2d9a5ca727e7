//! The MCP Registry entry (`server.json`) and the bundle's manifest say
//! what is true: the entry validates against the registry's published
//! schema (the 2025-12-11 revision, vendored byte for byte as
//! tests/it/data/mcp_server.schema.json from
//! https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json,
//! sha256 pinned below, as published on 2025-12-11 and checked 2026-12-04),
//! both carry Cargo.toml's version, and every environment variable they
//! name exists in `gitlab-mcp serve --help`, the secret ones marked secret.

use serde_json::{Value, json};

use crate::common::serve_help::serve_help;

const SCHEMA_SHA256: &str = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";
const VERSION: &str = env!("CARGO_PKG_VERSION");

fn read(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn json_file(path: &str) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every problem the registry's schema finds in `entry`.
fn schema_problems(entry: &Value) -> Vec<String> {
    let schema = read("tests/it/data/mcp_server.schema.json");
    let sha = ring::digest::digest(&ring::digest::SHA256, schema.as_bytes());
    let sha: String = sha.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        sha, SCHEMA_SHA256,
        "the vendored schema is the published file, unedited"
    );
    let schema: Value = serde_json::from_str(&schema).unwrap();
    let validator = jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the registry's schema compiles offline");
    validator
        .iter_errors(entry)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn server_json_validates_against_the_registry_schema() {
    assert_eq!(
        schema_problems(&json_file("server.json")),
        Vec::<String>::new()
    );
}

/// The validator refuses what the registry would: a test that could not fail
/// would prove nothing.
#[test]
fn the_schema_refuses_a_long_description_a_bad_name_and_a_missing_sha() {
    let entry = json_file("server.json");
    let mut long = entry.clone();
    long["description"] = json!("x".repeat(101));
    let mut name = entry.clone();
    name["name"] = json!("no-slash");
    let mut sha = entry.clone();
    sha["packages"][0]["fileSha256"] = json!("not-a-sha");
    for (what, bad) in [("description", long), ("name", name), ("fileSha256", sha)] {
        let problems = schema_problems(&bad);
        assert_eq!(problems.len(), 1, "{what}: {problems:?}");
    }
}

#[test]
fn server_json_names_this_version_and_its_bundle() {
    let entry = json_file("server.json");
    assert_eq!(
        entry["version"],
        json!(VERSION),
        "server.json follows Cargo.toml"
    );
    assert_eq!(
        entry["$schema"],
        json!("https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json")
    );
    let packages = entry["packages"].as_array().unwrap();
    assert!(!packages.is_empty());
    for package in packages {
        assert_eq!(package["registryType"], json!("mcpb"));
        assert_eq!(package["version"], json!(VERSION));
        let identifier = package["identifier"].as_str().unwrap();
        let file = format!("/v{VERSION}/gitlab-mcp-{VERSION}-");
        assert!(
            identifier.contains(&file) && identifier.ends_with(".mcpb"),
            "{identifier}"
        );
        assert_eq!(package["transport"], json!({"type": "stdio"}));
    }
    let remote = &entry["remotes"][0];
    assert_eq!(remote["type"], json!("streamable-http"));
    assert!(
        remote["url"].as_str().unwrap().ends_with("/mcp"),
        "the endpoint's default path"
    );
}

#[test]
fn every_variable_the_entry_and_the_bundle_set_exists_and_secrets_are_marked() {
    let help = serve_help();
    let entry = json_file("server.json");
    for package in entry["packages"].as_array().unwrap() {
        for var in package["environmentVariables"].as_array().unwrap() {
            let name = var["name"].as_str().unwrap();
            assert!(help.env.contains(name), "{name} is not in serve --help");
            assert!(
                !var["description"].as_str().unwrap_or_default().is_empty(),
                "{name} has a description"
            );
            assert_eq!(
                var["isSecret"].as_bool().unwrap_or(false),
                help.secret_env.contains(name),
                "{name}"
            );
        }
    }
    for header in entry["remotes"][0]["headers"].as_array().unwrap() {
        assert_eq!(
            header["isSecret"],
            json!(true),
            "a GitLab token header is secret"
        );
    }

    let manifest = json_file("bundle/manifest.json");
    assert_eq!(
        manifest["version"],
        json!(VERSION),
        "bundle/manifest.json follows Cargo.toml"
    );
    let config = &manifest["user_config"];
    for (name, value) in manifest["server"]["mcp_config"]["env"].as_object().unwrap() {
        assert!(help.env.contains(name), "{name} is not in serve --help");
        // `${user_config.key}`: each a setting the user is asked for.
        let key = value
            .as_str()
            .unwrap()
            .strip_prefix("${user_config.")
            .and_then(|k| k.strip_suffix('}'))
            .unwrap();
        let setting = &config[key];
        assert!(
            setting.is_object(),
            "{name} names the setting {key}, which is not in user_config"
        );
        assert_eq!(
            setting["sensitive"].as_bool().unwrap_or(false),
            help.secret_env.contains(name),
            "{key}"
        );
        // A setting without a value or default would reach the server as the
        // literal `${user_config.key}`.
        assert!(setting.get("default").is_some(), "{key} has a default");
    }
}
