//! The command line: `call` and its exit statuses, `tools`, `catalog`,
//! the completions, the man page, where logs go, `--version`, and numbers
//! refused outside their range.

use crate::common;

use fake_gitlab::FakeGitLab;
use serde_json::Value;
use tokio::process::Command;

async fn call(
    fake: &FakeGitLab,
    args: &[&str],
    env: &[(&str, &str)],
) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(common::BIN);
    cmd.env_clear()
        .env("GITLAB_URL", fake.url())
        .env("GITLAB_TOKEN", common::TOKEN)
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().await.unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn call_exits_0_on_success_1_on_an_error_result_2_on_usage_errors() {
    let fake = FakeGitLab::start().await;
    let (code, stdout, _) = call(
        &fake,
        &[
            "call",
            "gitlab_issue",
            r#"{"action":"get","params":{"project_id":1,"issue_iid":1}}"#,
        ],
        &[],
    )
    .await;
    assert_eq!(code, Some(0), "{stdout}");
    let issue: Value = serde_json::from_str(common::data(&stdout)).unwrap();
    assert_eq!(issue["iid"], 1);

    let (code, stdout, _) = call(
        &fake,
        &[
            "call",
            "gitlab_issue",
            r#"{"action":"get","params":{"iid":1}}"#,
        ],
        &[],
    )
    .await;
    assert_eq!(code, Some(1));
    assert!(stdout.contains("did you mean `issue_iid`?"), "{stdout}");

    let (code, _, stderr) = call(&fake, &["call", "gitlab_issue", "{not json"], &[]).await;
    assert_eq!(code, Some(2));
    assert!(stderr.contains("does not parse"), "{stderr}");
    let (code, _, stderr) = call(&fake, &["call", "gitlab_issuez", "{}"], &[]).await;
    assert_eq!(code, Some(2));
    assert!(stderr.contains("did you mean `gitlab_issue`"), "{stderr}");
    let (code, _, stderr) = call(
        &fake,
        &["call", "gitlab_issue", "{}"],
        &[("GITLAB_URL", "gitlab.example.com")],
    )
    .await;
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("GITLAB_URL must start with http"),
        "{stderr}"
    );
    let (code, _, _) = call(&fake, &["frobnicate"], &[]).await;
    assert_eq!(code, Some(2));
}

#[tokio::test]
async fn gitlab_url_may_include_api_v4_and_the_token_may_come_from_the_alternative_variable() {
    let fake = FakeGitLab::start().await;
    let url = format!("{}/api/v4/", fake.url());
    let mut cmd = Command::new(common::BIN);
    cmd.env_clear()
        .env("GITLAB_URL", &url)
        .env("GITLAB_PERSONAL_ACCESS_TOKEN", "glpat-bob")
        .args([
            "call",
            "gitlab_project",
            r#"{"action":"get","params":{"project_id":"acme/website"}}"#,
        ]);
    let out = cmd.output().await.unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let request = fake.requests().pop().unwrap();
    assert_eq!(request.line(), "GET /api/v4/projects/acme%2Fwebsite");
    assert_eq!(request.private_token.as_deref(), Some("glpat-bob"));
}

#[test]
fn tools_prints_a_summary_and_catalog_prints_json() {
    let out = std::process::Command::new(common::BIN)
        .arg("tools")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("tools,") && first.contains("actions,") && first.contains("bytes"),
        "{first}"
    );
    assert!(text.contains("gitlab_issue"));

    let out = std::process::Command::new(common::BIN)
        .args(["catalog", "--json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["tools"].as_array().unwrap().len() >= 5);
}

/// `--version` and `-V` name the version, the commit the binary was built
/// from (HEAD of this checkout, which cargo rebuilds for) and the target.
#[test]
fn version_names_the_version_the_commit_and_the_target() {
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let target = std::process::Command::new("rustc")
        .arg("-vV")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap();
    let host = target
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap();
    let expected = format!(
        "gitlab-mcp {} (commit {head}, {host})\n",
        env!("CARGO_PKG_VERSION")
    );
    for flag in ["--version", "-V"] {
        let out = std::process::Command::new(common::BIN)
            .arg(flag)
            .output()
            .unwrap();
        assert!(out.status.success(), "{flag}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{flag}");
    }
}

/// @zereight/mcp-gitlab's variables work as aliases; ours win when both
/// are set, with a warning; its tool names point to ours.
#[tokio::test]
async fn another_servers_variables_and_tool_names_carry_over() {
    let fake = FakeGitLab::start().await;
    let run = |env: Vec<(&'static str, String)>, args: Vec<&'static str>| async move {
        let mut cmd = tokio::process::Command::new(common::BIN);
        cmd.args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().await.unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // GITLAB_API_URL and GITLAB_PERSONAL_ACCESS_TOKEN reach the fake.
    let (code, stdout, _) = run(
        vec![
            ("GITLAB_API_URL", format!("{}/api/v4", fake.url())),
            ("GITLAB_PERSONAL_ACCESS_TOKEN", "glpat-alice".into()),
        ],
        vec!["call", "gitlab_user", r#"{"action": "current"}"#],
    )
    .await;
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("\"username\":\"alice\""));
    // Its toolsets and tool names filter the tool list.
    let (_, stdout, _) = run(
        vec![("GITLAB_TOOLSETS", "merge_requests,labels".into())],
        vec!["tools"],
    )
    .await;
    assert!(stdout.starts_with("2 tools"), "{stdout}");
    let (_, stdout, _) = run(
        vec![("GITLAB_TOOLS", "get_issue,list_issues".into())],
        vec!["tools"],
    )
    .await;
    assert!(
        stdout.contains("gitlab_issue") && stdout.contains("3 actions: list, get, help"),
        "{stdout}"
    );
    let (_, _, stderr) = run(
        vec![
            ("GITLAB_API_URL", "https://a.example".into()),
            ("GITLAB_URL", "https://b.example".into()),
        ],
        vec!["tools"],
    )
    .await;
    assert!(
        stderr.contains("GITLAB_API_URL and GITLAB_URL are both set and disagree; GITLAB_URL wins"),
        "{stderr}"
    );
    // A call to one of its tool names says which tool and action do it here.
    let (code, _, stderr) = run(
        vec![("GITLAB_URL", fake.url())],
        vec!["call", "get_issue", "{}"],
    )
    .await;
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("here that is tool `gitlab_issue` with {\"action\": \"get\""),
        "{stderr}"
    );
}

#[test]
fn completions_and_the_man_page_are_generated_from_the_cli() {
    for shell in ["bash", "zsh", "fish"] {
        let out = std::process::Command::new(common::BIN)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("gitlab-mcp") && text.contains("serve") && text.contains("sandbox"),
            "{shell}: {text}"
        );
    }
    let out = std::process::Command::new(common::BIN)
        .arg("man")
        .output()
        .unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    // clap_mangen's page: the title line (name, section, no date, source),
    // then its sections in order.
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        page.lines().find(|l| l.starts_with(".TH ")),
        Some(format!(".TH gitlab-mcp 1  \"gitlab-mcp {version}\" ").as_str()),
        "{page}"
    );
    let sections: Vec<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix(".SH "))
        .collect();
    assert_eq!(
        sections,
        [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "SUBCOMMANDS",
            "VERSION"
        ]
    );
    let after = |section: &str| {
        let mut lines = page.lines().skip_while(|l| *l != format!(".SH {section}"));
        lines.nth(1).unwrap_or_default()
    };
    assert!(
        after("NAME").starts_with(r"gitlab\-mcp \- The GitLab REST API for AI agents"),
        "{page}"
    );
    assert_eq!(after("VERSION"), format!("v{version}"));
    for flag in [
        r"\fB\-\-gitlab\-url\fR \fI<GITLAB_URL>\fR [default: https://gitlab.com]",
        r"\fB\-\-token\fR \fI<TOKEN>\fR",
        r"\fB\-\-read\-only\fR",
        r"\fB\-\-log\-format\fR",
        r"May also be specified with the \fBGITLAB_TOKEN\fR environment variable.",
    ] {
        assert!(page.contains(flag), "{flag} missing from:\n{page}");
    }
    let subcommands: Vec<&str> = page
        .lines()
        .skip_while(|l| *l != ".SH SUBCOMMANDS")
        .take_while(|l| *l != ".SH VERSION")
        .filter_map(|l| l.strip_prefix(r"gitlab\-mcp\-")?.strip_suffix("(1)"))
        .collect();
    assert_eq!(
        subcommands,
        [
            "serve",
            "call",
            "check",
            "demo",
            "tools",
            "completions",
            "man",
            "catalog",
            "help"
        ]
    );
}

#[test]
fn logs_are_text_or_json_on_stderr_or_in_a_file_never_on_stdout() {
    let run = |args: &[&str]| {
        std::process::Command::new(common::BIN)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("GITLAB_API_URL", "https://a.example")
            .env("GITLAB_URL", "https://b.example")
            .output()
            .unwrap()
    };
    // The migration warning is one log line.
    let out = run(&["--log-format", "json", "tools", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line: Value =
        serde_json::from_str(stderr.lines().next().unwrap()).expect("a JSON log line");
    assert_eq!(line["level"], "WARN");
    assert!(
        line["message"]
            .as_str()
            .unwrap()
            .contains("GITLAB_URL wins")
    );
    serde_json::from_slice::<Value>(&out.stdout).expect("stdout is the tool list only");

    let file = std::env::temp_dir().join(format!("gitlab-mcp-log-{}.log", std::process::id()));
    let out = run(&["--log-file", file.to_str().unwrap(), "tools"]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let logged = std::fs::read_to_string(&file).unwrap();
    assert!(
        logged.contains("WARN") && logged.contains("GITLAB_URL wins"),
        "{logged}"
    );
    let _ = std::fs::remove_file(file);
}

/// A number below its flag's range is refused by clap (exit 2, the flag
/// and the range named, nothing on stdout), never raised silently; from
/// the environment as from the command line. `--http` names no address,
/// so a value wrongly accepted fails later, with another message.
#[test]
fn numbers_below_their_range_are_refused_naming_the_range() {
    /// Arguments, a variable, and clap's message.
    type Case<'a> = (Vec<&'a str>, Option<(&'a str, &'a str)>, &'a str);
    let serve = ["serve", "--http", "not-an-address"];
    let cases: Vec<Case> = vec![
        (
            [&serve[..], &["--max-sessions", "0"]].concat(),
            None,
            "invalid value '0' for '--max-sessions <MAX_SESSIONS>': 0 is not in 1..",
        ),
        (
            [&serve[..], &["--max-body-bytes", "1023"]].concat(),
            None,
            "invalid value '1023' for '--max-body-bytes <MAX_BODY_BYTES>': 1023 is not in 1024..",
        ),
        (
            serve.to_vec(),
            Some(("GITLAB_MCP_HTTP_CALL_TIMEOUT", "0")),
            "invalid value '0' for '--call-timeout <CALL_TIMEOUT>': 0 is not in 1..",
        ),
        (
            vec!["--max-response-bytes", "100", "tools"],
            None,
            "invalid value '100' for '--max-response-bytes <MAX_RESPONSE_BYTES>': 100 is not in 1024..",
        ),
        (
            vec!["tools"],
            Some(("GITLAB_MCP_MAX_CONCURRENT", "0")),
            "invalid value '0' for '--max-concurrent <MAX_CONCURRENT>': 0 is not in 1..",
        ),
        (
            vec!["--timeout", "0", "tools"],
            None,
            "invalid value '0' for '--timeout <TIMEOUT>': 0 is not in 1..",
        ),
    ];
    for (args, env, expected) in cases {
        let mut cmd = std::process::Command::new(common::BIN);
        cmd.env_clear().args(&args);
        if let Some((name, value)) = env {
            cmd.env(name, value);
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?} {env:?}: {stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{args:?}");
    }
    // The bounds themselves are accepted.
    let out = std::process::Command::new(common::BIN)
        .env_clear()
        .args(["--max-response-bytes", "1024", "--timeout", "1", "tools"])
        .env("GITLAB_MCP_MAX_CONCURRENT", "1")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
