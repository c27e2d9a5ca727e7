//! Lockdown: only what project members wrote reaches the model.
//!
//! In a public project anyone with an account can open an issue or write a
//! comment, and so can put instructions in front of an agent that holds a
//! maintainer's token. With `--lockdown <role>` the text of an issue, merge
//! request, note or snippet whose author is not a member of the project with
//! at least that role is withheld, and the answer says what was withheld and
//! why (as GitHub's lockdown mode does for public repositories).

use std::fmt;
use std::str::FromStr;

/// GitLab's roles, by the access level its API reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Guest,
    Planner,
    Reporter,
    Developer,
    Maintainer,
    Owner,
}

impl Role {
    pub const ALL: [Role; 6] = [
        Role::Guest,
        Role::Planner,
        Role::Reporter,
        Role::Developer,
        Role::Maintainer,
        Role::Owner,
    ];

    /// The `access_level` GitLab reports for the role (docs: api/members,
    /// "Roles").
    pub fn access_level(self) -> u64 {
        match self {
            Role::Guest => 10,
            Role::Planner => 15,
            Role::Reporter => 20,
            Role::Developer => 30,
            Role::Maintainer => 40,
            Role::Owner => 50,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::Guest => "guest",
            Role::Planner => "planner",
            Role::Reporter => "reporter",
            Role::Developer => "developer",
            Role::Maintainer => "maintainer",
            Role::Owner => "owner",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().to_ascii_lowercase();
        Role::ALL
            .into_iter()
            .find(|r| r.name() == s || r.access_level().to_string() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
                format!("unknown role `{s}`; roles: {}", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_parse_by_name_or_access_level() {
        assert_eq!("Developer".parse::<Role>(), Ok(Role::Developer));
        assert_eq!("40".parse::<Role>(), Ok(Role::Maintainer));
        assert!(
            "admin"
                .parse::<Role>()
                .unwrap_err()
                .contains("guest, planner")
        );
        assert!(Role::Reporter < Role::Developer);
    }
}
