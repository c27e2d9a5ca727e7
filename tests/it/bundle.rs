//! The MCP Bundle as a client installs and starts it. scripts/bundle.sh
//! packs the test binary (a debug build: the release's bundle differs only
//! in the binary) with the official CLI (@anthropic-ai/mcpb, installed into
//! .tools/mcpb/ the first time) after `mcpb validate`; the test unpacks it
//! with `mcpb unpack`, has the package's own host code turn the manifest
//! and a user's settings into a command, arguments and environment
//! (tests/bundle/host.mjs), starts exactly that, and completes an MCP
//! handshake and calls against the sandbox. Also: the manifest's version
//! is Cargo.toml's, and the registry entry the script writes names the
//! bundle's sha256.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rmcp::ClientServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::process::Command;

use crate::common::{BIN, Lifecycle, mode};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn mcpb_package() -> PathBuf {
    Path::new(ROOT).join(".tools/mcpb/node_modules/@anthropic-ai/mcpb")
}

/// Runs a command to its end within 10 minutes (the first npm install
/// included); its stdout, or a panic with everything it said.
async fn run(cmd: &mut Command) -> String {
    let output = tokio::time::timeout(Duration::from_secs(600), cmd.kill_on_drop(true).output())
        .await
        .expect("ends within 10 minutes")
        .expect("starts");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{cmd:?} failed:\n{stdout}\n--- stderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A folder of its own under the system's temporary folder, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let dir = std::env::temp_dir().join(format!("gitlab-mcp-bundle-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the host would run for these settings: (command, args, env).
async fn host_config(
    bundle_dir: &Path,
    user_config: Value,
) -> (String, Vec<String>, Vec<(String, String)>) {
    let out = run(Command::new("node")
        .arg(Path::new(ROOT).join("tests/bundle/host.mjs"))
        .arg(mcpb_package())
        .arg(bundle_dir)
        .arg(user_config.to_string()))
    .await;
    let config: Value = serde_json::from_str(&out).unwrap();
    let strings = |v: &Value| v.as_str().unwrap().to_string();
    let args = config["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(strings)
        .collect();
    let env = config["env"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), strings(v)))
        .collect();
    (strings(&config["command"]), args, env)
}

#[tokio::test]
async fn the_bundle_validates_unpacks_and_answers_a_call_started_as_the_manifest_says() {
    let scratch = Scratch::new();
    let out_dir = scratch.0.join("out");
    let bundle = run(Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/bundle.sh"))
        .args(["--binary", BIN, "--out"])
        .arg(&out_dir))
    .await;
    let bundle = PathBuf::from(bundle.trim());
    let name = bundle.file_name().unwrap().to_string_lossy().into_owned();
    // Node's names for the platform, as the bundle and its manifest use them.
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        os => os,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        arch => arch,
    };
    assert_eq!(
        name,
        format!("gitlab-mcp-{}-{os}-{arch}.mcpb", env!("CARGO_PKG_VERSION")),
        "named for the version and the platform"
    );

    // The registry entry written beside it names this bundle's sha256.
    let bytes = std::fs::read(&bundle).unwrap();
    let sha = ring::digest::digest(&ring::digest::SHA256, &bytes);
    let sha: String = sha.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    let entry: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("server.json")).unwrap())
            .unwrap();
    let package = &entry["packages"][0];
    assert_eq!(package["fileSha256"], json!(sha));
    assert!(
        package["identifier"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/{name}"))
    );

    let unpacked = scratch.0.join("unpacked");
    run(Command::new("node")
        .arg(mcpb_package().join("dist/cli/cli.js"))
        .arg("unpack")
        .arg(&bundle)
        .arg(&unpacked))
    .await;
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(unpacked.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["compatibility"]["platforms"], json!([os]));
    let listed: Vec<&str> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let catalog: Vec<&str> = gitlab_mcp::catalog::tools()
        .iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(listed, catalog, "the manifest lists the binary's tools");

    // A required setting left empty: the host does not start the server.
    let refused = Command::new("node")
        .arg(Path::new(ROOT).join("tests/bundle/host.mjs"))
        .arg(mcpb_package())
        .arg(&unpacked)
        .arg(json!({"gitlab_url": ""}).to_string())
        .output()
        .await
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));

    // A user who kept the address the settings form offers, turned the
    // sandbox on, read-only, with the planning tools, and left the token
    // empty.
    let settings = json!({
        "gitlab_url": "https://gitlab.com",
        "sandbox": true,
        "read_only": true,
        "toolsets": "planning",
        "gitlab_token": "",
    });
    let (command, args, env) = host_config(&unpacked, settings).await;
    assert_eq!(Path::new(&command), unpacked.join("server/gitlab-mcp"));
    assert_eq!(args, ["serve"]);
    let mut env_sorted = env.clone();
    env_sorted.sort();
    assert_eq!(
        env_sorted,
        [
            ("GITLAB_MCP_SANDBOX", "true"),
            ("GITLAB_MCP_TOOLS", "planning"),
            ("GITLAB_READ_ONLY", "true"),
            ("GITLAB_TOKEN", ""),
            ("GITLAB_URL", "https://gitlab.com"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
    );

    let mut cmd = Command::new(&command);
    cmd.args(&args).env_clear().envs(env);
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("the bundled binary starts");
    let client =
        ().serve_with_lifecycle(transport, mode(Lifecycle::Initialize))
            .await
            .expect("MCP handshake");
    let server = client.peer_info().unwrap().server_info.clone().unwrap();
    assert_eq!(server.name, "gitlab-mcp");
    assert_eq!(
        server.title.as_deref(),
        Some("GitLab MCP (sandbox)"),
        "the sandbox setting reached it"
    );

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        ["gitlab_issue", "gitlab_label", "gitlab_milestone"],
        "the planning toolset"
    );
    let issue = tools.iter().find(|t| t.name == "gitlab_issue").unwrap();
    let actions = serde_json::to_string(&issue.input_schema["properties"]["action"]).unwrap();
    assert!(
        actions.contains("\"list\"") && !actions.contains("\"create\""),
        "read-only: {actions}"
    );

    let arguments =
        json!({"action": "list", "params": {"project_id": "demo/webshop", "state": "opened"}});
    let result = client
        .call_tool(
            CallToolRequestParams::new("gitlab_issue")
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    assert_eq!(result.is_error, Some(false), "{text}");
    assert!(
        text.contains("Checkout button does nothing on Safari 17"),
        "{text}"
    );
    client.cancel().await.unwrap();
}
