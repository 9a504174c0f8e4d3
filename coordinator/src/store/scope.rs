//! Which teams' rows a store query may touch. Every store function that reads or changes
//! team-owned rows takes a [`TeamScope`], so a query cannot forget its team: a handler gets
//! one only from its authenticated caller ([`crate::auth::Caller::scope`]), a background
//! task (scheduler, reaper, dispatcher) or the operator's CLI from [`TeamScope::system`].
//! Nothing else can make one, so no code can name a team scope from a string it was sent.

/// The teams a store query may see: every team (an admin, the system), or one.
///
/// SQL binds [`TeamScope::team`] (`$n::text is null or team_id = $n`); Rust code that
/// already holds a row checks it with [`TeamScope::sees`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamScope(Teams);

/// Private, so only this module makes a [`TeamScope`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Teams {
    /// Every team's rows.
    All,
    /// Only this team's rows.
    One(String),
}

impl TeamScope {
    /// Every team's rows, for the coordinator's own background work (scheduler, reaper,
    /// dispatcher) and the operator's CLI, which acts for no caller. Never for a request:
    /// a handler takes [`crate::auth::Caller::scope`].
    pub fn system() -> Self {
        TeamScope(Teams::All)
    }

    /// The scope of an authenticated caller: an admin (`admin`) sees every team, anyone
    /// else only its own `team_id`. Only [`crate::auth::Caller::scope`] calls this.
    pub(crate) fn of(admin: bool, team_id: &str) -> Self {
        if admin {
            TeamScope(Teams::All)
        } else {
            TeamScope(Teams::One(team_id.to_string()))
        }
    }

    /// The team SQL filters on: `None` = every team.
    pub fn team(&self) -> Option<&str> {
        match &self.0 {
            Teams::All => None,
            Teams::One(team) => Some(team),
        }
    }

    /// Whether a row of `team` is in scope.
    pub fn sees(&self, team: &str) -> bool {
        self.team().is_none_or(|t| t == team)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{Caller, Role};

    fn caller(team: &str, role: Role) -> Caller {
        Caller {
            team_id: team.into(),
            role,
            token_id: None,
            shared_pool: false,
        }
    }

    #[test]
    fn users_and_workers_see_their_team_admins_and_the_system_see_all() {
        for role in [Role::User, Role::Worker] {
            let s = caller("team-a", role).scope();
            assert_eq!(s.team(), Some("team-a"));
            assert!(s.sees("team-a"));
            assert!(!s.sees("team-b"));
            assert!(!s.sees(""));
        }
        for s in [caller("team-a", Role::Admin).scope(), TeamScope::system()] {
            assert_eq!(s.team(), None);
            assert!(s.sees("team-a") && s.sees("team-b"));
        }
    }

    /// The parameter names a store function may no longer take as `Option<&str>` /
    /// `Option<String>`: a team filter is a [`TeamScope`]. `served_team` (which team's runs
    /// a worker's devices serve, see [`crate::auth::Caller::served_team`]) is not a filter
    /// of what a caller may see.
    fn bare_team_filters(src: &str) -> Vec<String> {
        let mut found = Vec::new();
        for (n, line) in src.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for ty in [": Option<&str>", ": Option<String>", ": Option<&String>"] {
                for (at, _) in code.match_indices(ty) {
                    let name: String = code[..at]
                        .chars()
                        .rev()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    if name.contains("team") && name != "served_team" {
                        found.push(format!("line {}: {}", n + 1, line.trim()));
                    }
                }
            }
        }
        found
    }

    #[test]
    fn the_pattern_catches_a_bare_team_filter() {
        assert_eq!(
            bare_team_filters("pub async fn f(pool: &PgPool, team: Option<&str>) {}").len(),
            1
        );
        assert_eq!(bare_team_filters("    team_id: Option<String>,").len(), 1);
        assert!(bare_team_filters("    served_team: Option<&str>,").is_empty());
        assert!(bare_team_filters("// team: Option<&str> was the old way").is_empty());
        assert!(bare_team_filters("    scope: &TeamScope,").is_empty());
    }

    /// No store function (nor the token list) takes a team as `Option<&str>` again: each
    /// takes a [`TeamScope`].
    #[test]
    fn no_store_function_takes_a_bare_team_filter() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files: Vec<_> = std::fs::read_dir(root.join("store"))
            .expect("src/store")
            .map(|e| e.expect("dir entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.push(root.join("auth").join("tokens.rs"));
        assert!(files.len() > 10, "found only {files:?}");
        let mut bad = Vec::new();
        for f in &files {
            let src = std::fs::read_to_string(f).expect("source");
            // This file's own test names the pattern it looks for.
            let src = src.split("#[cfg(test)]").next().unwrap_or("");
            for hit in bare_team_filters(src) {
                bad.push(format!("{}: {hit}", f.display()));
            }
        }
        assert!(
            bad.is_empty(),
            "take `scope: &TeamScope` instead of a team filter:\n{}",
            bad.join("\n")
        );
    }
}
