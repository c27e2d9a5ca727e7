//! The HTTP harness: `gitlab-mcp serve --http 127.0.0.1:0` as a child
//! process against a fake GitLab, its address read from the one line it
//! logs when it listens, and rmcp's streamable HTTP client talking to it.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fake_gitlab::FakeGitLab;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientServiceExt, RoleClient};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use super::{BIN, Lifecycle, mode};

pub struct HttpServer {
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub url: String,
    /// Every line the server wrote to stderr so far.
    pub stderr: Arc<Mutex<Vec<String>>>,
}

/// rustls needs its crypto provider before any client is built.
pub fn crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The server command with a clean environment pointing at `fake`; on
/// 127.0.0.1 with an ephemeral port unless `args` name an `--http`.
pub fn command(fake: &FakeGitLab, env: &[(&str, &str)], args: &[&str]) -> Command {
    crypto();
    let mut cmd = Command::new(BIN);
    cmd.arg("serve");
    if !args.contains(&"--http") {
        cmd.args(["--http", "127.0.0.1:0"]);
    }
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLAB_URL", fake.url())
        .env("RUST_LOG", "warn,gitlab_mcp=info");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

impl HttpServer {
    pub async fn start(fake: &FakeGitLab, env: &[(&str, &str)], args: &[&str]) -> HttpServer {
        Self::spawn(command(fake, env, args)).await
    }

    pub async fn spawn(mut cmd: Command) -> HttpServer {
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn gitlab-mcp serve --http");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (addr_tx, addr_rx) = tokio::sync::oneshot::channel();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let collected = stderr.clone();
        tokio::spawn(async move {
            let mut addr_tx = Some(addr_tx);
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(rest) = line.split("addr=").nth(1)
                    && line.contains("serving MCP over HTTP")
                    && let Some(tx) = addr_tx.take()
                {
                    let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
                }
                collected.lock().unwrap().push(line);
            }
        });
        let addr = tokio::time::timeout(Duration::from_secs(20), addr_rx)
            .await
            .expect("the server logs its address")
            .expect("the server starts");
        HttpServer {
            child,
            url: format!("http://{addr}"),
            stderr,
        }
    }

    /// A server told to listen on `addr`, ready once `/healthz` answers:
    /// for log levels that do not print the address.
    pub async fn spawn_on(mut cmd: Command, addr: &str) -> HttpServer {
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn gitlab-mcp serve --http");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let collected = stderr.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                collected.lock().unwrap().push(line);
            }
        });
        let url = format!("http://{addr}");
        for _ in 0..200 {
            if let Ok(r) = raw().get(format!("{url}/healthz")).send().await
                && r.status().is_success()
            {
                return HttpServer { child, url, stderr };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the server did not answer /healthz on {addr}");
    }

    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.url)
    }

    /// An rmcp client over streamable HTTP, sending `headers` with every request.
    pub async fn client<C: ClientHandler>(
        &self,
        handler: C,
        lifecycle: Lifecycle,
        headers: &[(&str, &str)],
    ) -> RunningService<RoleClient, C> {
        let mut custom = HashMap::new();
        for (k, v) in headers {
            custom.insert(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                http::HeaderValue::from_str(v).unwrap(),
            );
        }
        let config =
            StreamableHttpClientTransportConfig::with_uri(self.mcp_url()).custom_headers(custom);
        let transport = StreamableHttpClientTransport::from_config(config);
        handler
            .serve_with_lifecycle(transport, mode(lifecycle))
            .await
            .expect("MCP session over HTTP starts")
    }

    /// Send SIGTERM and wait for the exit status.
    pub async fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().expect("running").to_string();
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs");
        tokio::time::timeout(Duration::from_secs(30), self.child.wait())
            .await
            .expect("the server exits after SIGTERM")
            .expect("exit status")
    }

    /// What `/metrics` says now.
    pub async fn metrics(&self) -> String {
        raw()
            .get(format!("{}/metrics", self.url))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    pub fn stderr_text(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }
}

/// A plain HTTP client for the raw protocol.
pub fn raw() -> reqwest::Client {
    crypto();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Write raw bytes to the server and read what it answers until it closes
/// the connection (or 10 s pass).
pub async fn raw_exchange(url: &str, bytes: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let _ = stream.write_all(bytes).await;
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}
