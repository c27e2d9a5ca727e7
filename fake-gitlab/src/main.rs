//! Run the fake GitLab on its own, for benchmarks, manual checks and demos.
//!
//! `fake-gitlab [--sandbox] [--ee] [ADDR]` (default 127.0.0.1:8929): the
//! test seed, or with `--sandbox` the demo seed (`Db::sandbox`, any token is
//! alice's); CE unless `--ee` (the work item types GraphQL offers differ).
//! The request log is off so long runs do not grow memory. Stops on Ctrl-C.

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sandbox = args.iter().any(|a| a == "--sandbox");
    let addr = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:8929".to_string());
    let fake = if sandbox {
        fake_gitlab::FakeGitLab::start_sandbox_on(&addr, false).await
    } else {
        fake_gitlab::FakeGitLab::start_on(&addr, false).await
    };
    if args.iter().any(|a| a == "--ee") {
        fake.set_edition(fake_gitlab::db::Edition::Ee);
    }
    eprintln!("fake GitLab listening on {}", fake.url());
    println!("{}", fake.url());
    tokio::signal::ctrl_c().await.ok();
}
