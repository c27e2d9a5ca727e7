//! Run the fake GitLab on its own, for benchmarks, manual checks and demos.
//!
//! `fake-gitlab [--sandbox] [--ee] [--delay MS] [ADDR]` (default
//! 127.0.0.1:8929): the test seed, or with `--sandbox` the demo seed
//! (`Db::sandbox`, any token is alice's); CE unless `--ee` (the work item
//! types GraphQL offers differ); `--delay` holds every answer that long (a
//! slow GitLab, for long calls through a proxy: scripts/proxy-test.sh).
//! The request log is off so long runs do not grow memory. Stops on Ctrl-C.

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sandbox = args.iter().any(|a| a == "--sandbox");
    let delay = args.iter().position(|a| a == "--delay").map(|i| {
        args.get(i + 1)
            .and_then(|ms| ms.parse::<u64>().ok())
            .expect("--delay MS")
    });
    let addr = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--delay"))
        .map(|(_, a)| a.clone())
        .unwrap_or_else(|| "127.0.0.1:8929".to_string());
    let fake = if sandbox {
        fake_gitlab::FakeGitLab::start_sandbox_on(&addr, false).await
    } else {
        fake_gitlab::FakeGitLab::start_on(&addr, false).await
    };
    if args.iter().any(|a| a == "--ee") {
        fake.set_edition(fake_gitlab::db::Edition::Ee);
    }
    if let Some(ms) = delay {
        fake.inject(fake_gitlab::Fault::delay(std::time::Duration::from_millis(
            ms,
        )));
    }
    eprintln!("fake GitLab listening on {}", fake.url());
    println!("{}", fake.url());
    tokio::signal::ctrl_c().await.ok();
}
