//! What a token may do: [`Role`], stored in `api_tokens.role` as `user`, `worker` or
//! `admin` (the same strings on the wire and on the command line).

use sqlx::error::BoxDynError;
use sqlx::postgres::{PgTypeInfo, PgValueRef};
use sqlx::Postgres;

/// A token's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Submits jobs and reads its team's runs, suites, schedules and reports.
    User,
    /// Only heartbeats (`POST /api/v1/workers/heartbeat`).
    Worker,
    /// Everything, for every team.
    Admin,
}

impl Role {
    /// The stored and wire name: `user`, `worker`, `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Worker => "worker",
            Role::Admin => "admin",
        }
    }

    /// Parses the stored name; `None` for anything else.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "user" => Some(Role::User),
            "worker" => Some(Role::Worker),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    /// Errors: a name other than `user`, `worker`, `admin`.
    fn from_str(s: &str) -> Result<Role, String> {
        Role::parse(s).ok_or_else(|| format!("unknown role {s:?} (user, worker or admin)"))
    }
}

/// Read from a `text` column.
impl sqlx::Type<Postgres> for Role {
    fn type_info() -> PgTypeInfo {
        <String as sqlx::Type<Postgres>>::type_info()
    }

    fn compatible(ty: &PgTypeInfo) -> bool {
        <String as sqlx::Type<Postgres>>::compatible(ty)
    }
}

/// Errors: a stored name other than the three (the table's check constraint rules it out).
impl<'r> sqlx::Decode<'r, Postgres> for Role {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        let s = <&str as sqlx::Decode<Postgres>>::decode(value)?;
        Ok(s.parse::<Role>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::Role;

    #[test]
    fn names_round_trip() {
        for r in [Role::User, Role::Worker, Role::Admin] {
            assert_eq!(r.as_str().parse::<Role>(), Ok(r));
            assert_eq!(
                serde_json::to_value(r).expect("json"),
                serde_json::Value::from(r.as_str())
            );
        }
        assert!("root".parse::<Role>().is_err());
    }
}
