//! The sandbox: an in-process GitLab stand-in (the fake GitLab of the
//! tests, embedded) seeded with a demo group and project, so the server can
//! be seen working with no account, no token and no network. Writes work
//! and last for the life of the process.
//!
//! It listens on a loopback port of its own, and the server's client talks
//! to it as to any GitLab: the same requests, answers and errors.

use fake_gitlab::FakeGitLab;

use crate::gitlab::{AuthScheme, Credentials, Target};
use crate::secret::Secret;

/// The demo project, as the sandbox's instructions name it.
pub const PROJECT: &str = fake_gitlab::sandbox::PROJECT;

/// The MCP server's title on the sandbox.
pub const TITLE: &str = "GitLab MCP (sandbox)";

/// What the server tells models about the sandbox, before its usual
/// instructions.
pub const NOTE: &str = "This is a SANDBOX: a stand-in GitLab, not a real one, seeded with group `demo` and project `demo/webshop` (issues #1-#8, merge requests !1-!3 with diffs and threads, pipeline 4102 with failed job 8806, branches, tags, a release, a wiki). Writes work and last until the server stops.";

pub struct Sandbox {
    fake: FakeGitLab,
}

impl Sandbox {
    /// Start the stand-in on a free loopback port. Needs a Tokio runtime.
    pub async fn start() -> Sandbox {
        Sandbox {
            fake: FakeGitLab::start_sandbox().await,
        }
    }

    /// Where the server's requests go: any token is the demo user's.
    pub fn target(&self) -> Target {
        Target {
            api_root: format!("{}/api/v4", self.fake.url()),
            credentials: Some(Credentials {
                token: Secret::new("sandbox"),
                scheme: AuthScheme::PrivateToken,
            }),
        }
    }
}
