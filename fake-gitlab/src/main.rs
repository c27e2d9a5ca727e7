//! Run the fake GitLab on its own, for benchmarks and manual checks.
//!
//! `fake-gitlab [ADDR]` (default 127.0.0.1:8929); the request log is off so
//! long runs do not grow memory. Stops on Ctrl-C.

#[tokio::main]
async fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8929".to_string());
    let fake = fake_gitlab::FakeGitLab::start_on(&addr, false).await;
    eprintln!("fake GitLab listening on {}", fake.url());
    println!("{}", fake.url());
    tokio::signal::ctrl_c().await.ok();
}
