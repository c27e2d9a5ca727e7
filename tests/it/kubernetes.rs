//! The Kubernetes manifests (deploy/kubernetes/) are valid and ask the
//! binary only for what it has. Every file validates, strictly, against the
//! Kubernetes 1.37 schemas with kubernetes-validate (PyPI, pinned, installed
//! into .tools/ by scripts/kubernetes-validate.sh the first time, about
//! 30 s); the kustomization lists every file but the Secret's example; and
//! the Deployment's container, started as written (its args and
//! environment, with test values for the Secret's keys and the fake GitLab
//! for GitLab), accepts its configuration and answers its probes and the
//! scraped metrics path on the annotated port.

use std::collections::BTreeSet;
use std::time::Duration;

use fake_gitlab::FakeGitLab;
use serde_json::Value;
use tokio::process::Command;

use crate::common::http::{HttpServer, raw};
use crate::common::serve_help::serve_help;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/kubernetes");

/// Every manifest file, by name.
fn manifests() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".yaml"))
        .collect();
    files.sort();
    files
}

/// scripts/kubernetes-validate.sh with `args` and `files` (of
/// deploy/kubernetes/): its status and what it said.
async fn run_script(args: &[&str], files: Vec<String>) -> (bool, String) {
    let output = Command::new("bash")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/kubernetes-validate.sh"
        ))
        .args(args)
        .args(files.iter().map(|f| format!("{DIR}/{f}")))
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(600), output)
        .await
        .expect("the script (and its first install) ends within 10 minutes")
        .expect("bash runs scripts/kubernetes-validate.sh");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// Every manifest but the kustomization (not a Kubernetes kind), validated.
async fn validate() -> (bool, String) {
    let files = manifests()
        .into_iter()
        .filter(|f| f != "kustomization.yaml")
        .collect();
    run_script(&[], files).await
}

#[tokio::test]
async fn every_manifest_validates_against_the_kubernetes_1_37_schemas() {
    let (ok, text) = validate().await;
    assert!(ok, "{text}");
    for file in manifests().iter().filter(|f| *f != "kustomization.yaml") {
        assert!(
            text.lines()
                .any(|l| l.contains(&format!("/{file} passed"))
                    && l.contains("against version 1.37")),
            "{file} did not pass:\n{text}"
        );
    }
}

#[tokio::test]
async fn the_kustomization_lists_every_manifest_but_the_secrets_example() {
    let usage = usage().await;
    let listed: BTreeSet<&str> = usage["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    let files: BTreeSet<String> = manifests().into_iter().collect();
    let expected: BTreeSet<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| !["kustomization.yaml", "secret.example.yaml"].contains(f))
        .collect();
    assert_eq!(listed, expected);
}

/// What the manifests ask of the binary (tests/kubernetes/usage.py).
async fn usage() -> Value {
    let (ok, text) = run_script(&["--usage"], manifests()).await;
    assert!(ok, "{text}");
    let json = text
        .lines()
        .find(|l| l.starts_with('{'))
        .expect("usage JSON");
    serde_json::from_str(json).unwrap()
}

#[tokio::test]
async fn the_deployment_starts_the_binary_with_flags_and_variables_it_has() {
    let usage = usage().await;
    let containers = usage["containers"].as_array().unwrap();
    assert_eq!(containers.len(), 1);
    let container = &containers[0];
    let help = serve_help();

    let args: Vec<&str> = container["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(args.first(), Some(&"serve"));
    for flag in args.iter().filter(|a| a.starts_with("--")) {
        assert!(
            help.flags.contains(*flag),
            "{flag} is not a flag of serve --help"
        );
    }
    let env = container["env"].as_object().unwrap();
    let secrets = &usage["secrets"];
    for (name, source) in env {
        assert!(help.env.contains(name), "{name} is not in serve --help");
        // A secret comes from the Secret (whose example has the key), never
        // from the manifest's text.
        let from_secret = source.get("secret").is_some();
        assert_eq!(
            from_secret,
            help.secret_env.contains(name),
            "{name}: {source}"
        );
        if from_secret {
            let keys = &secrets[source["secret"].as_str().unwrap()];
            assert!(
                keys.as_array().unwrap().contains(&source["key"]),
                "{name}: {source} not in secret.example.yaml"
            );
        }
    }

    // The port the server is told to listen on is the container's, the
    // probes' and the scrape annotation's.
    let http = args
        .iter()
        .position(|a| *a == "--http")
        .map(|i| args[i + 1])
        .expect("--http ADDR");
    let port: u64 = http.rsplit(':').next().unwrap().parse().unwrap();
    assert_eq!(container["ports"]["http"], Value::from(port));
    let annotations = &container["annotations"];
    assert_eq!(annotations["prometheus.io/scrape"], "true");
    assert_eq!(
        annotations["prometheus.io/port"],
        Value::from(port.to_string())
    );

    // Started as written: the same args and environment, but on a loopback
    // port, against the fake, with test values for the Secret's keys.
    let fake = FakeGitLab::start().await;
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = free.local_addr().unwrap().to_string();
    drop(free);
    let mut cmd = Command::new(crate::common::BIN);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    for arg in &args {
        cmd.arg(if *arg == http { addr.as_str() } else { arg });
    }
    for (name, source) in env {
        let value = match name.as_str() {
            "GITLAB_URL" => fake.url(),
            "GITLAB_MCP_TOKEN_KEY" => "ab".repeat(32),
            _ if help.secret_env.contains(name) => "test-secret".to_string(),
            _ => source["value"].as_str().unwrap().to_string(),
        };
        cmd.env(name, value);
    }
    let server = HttpServer::spawn_on(cmd, &addr).await;
    let probes = container["probes"].as_object().unwrap();
    assert_eq!(probes.len(), 2, "readiness and liveness: {probes:?}");
    let metrics = annotations["prometheus.io/path"].as_str().unwrap();
    for path in probes
        .values()
        .map(|p| p.as_str().unwrap())
        .chain([metrics])
    {
        let response = raw()
            .get(format!("{}{path}", server.url))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
    }
    let text = raw()
        .get(format!("{}{metrics}", server.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("# TYPE"), "Prometheus text: {text}");
}
