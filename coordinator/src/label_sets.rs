//! The label sets of registered devices per platform, cached for the submit path.
//!
//! Every submit asks "could any registered device ever run this selector?"; asking
//! PostgreSQL each time (`select distinct labels from devices …`, a walk over every slot)
//! cost more than storing the job. A set seen within [`FRESH_FOR`] answers a "yes" from
//! memory; a "no" is always re-checked against the database before the submit answer warns
//! that no device matches yet (the job is queued either way), so a device registered a
//! moment ago is never missed.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argus_protocol::JobSpec;
use sqlx::PgPool;

/// How long a platform's cached label sets may answer "yes" (5 s: a device whose labels
/// changed within that time may let one job through that then waits in the queue, exactly
/// as a job for an offline device does).
pub const FRESH_FOR: Duration = Duration::from_secs(5);

/// One label set: label name → value.
pub type LabelSet = BTreeMap<String, String>;

/// Cache of `platform → (read at, label sets)`.
#[derive(Default)]
pub struct LabelSets {
    by_platform: Mutex<HashMap<String, (Instant, Vec<LabelSet>)>>,
}

impl LabelSets {
    /// `Ok(None)` when some registered device of the job's platform satisfies its selector,
    /// else `Ok(Some(sets))` with the platform's label sets as the database has them now.
    ///
    /// Errors: the database's, when the cache could not answer.
    pub async fn unmatched(
        &self,
        pool: &PgPool,
        spec: &JobSpec,
    ) -> Result<Option<Vec<LabelSet>>, sqlx::Error> {
        let platform = spec.platform.as_str();
        if let Ok(cache) = self.by_platform.lock() {
            if let Some((at, sets)) = cache.get(platform) {
                if at.elapsed() < FRESH_FOR && sets.iter().any(|l| spec.selector.matches(l)) {
                    return Ok(None);
                }
            }
        }
        let sets = crate::store::workers::label_sets(pool, platform).await?;
        let matched = sets.iter().any(|l| spec.selector.matches(l));
        if let Ok(mut cache) = self.by_platform.lock() {
            cache.insert(platform.to_string(), (Instant::now(), sets.clone()));
        }
        Ok(if matched { None } else { Some(sets) })
    }
}

/// What a job asks of a device, in words: `platform web` or
/// `platform web with browser=chromium, os>=14`.
pub fn wanted(spec: &JobSpec) -> String {
    let sel = spec.selector.describe();
    if sel.is_empty() {
        format!("platform {}", spec.platform)
    } else {
        format!("platform {} with {sel}", spec.platform)
    }
}

#[cfg(test)]
mod tests {
    use argus_protocol::{JobSpec, Platform};

    #[test]
    fn wanted_names_platform_labels_and_constraints() {
        let mut spec = JobSpec::script(Platform::Web, None, "wait 1ms".into());
        assert_eq!(super::wanted(&spec), "platform web");
        spec.selector
            .labels
            .insert("browser".into(), "chromium".into());
        spec.selector.require.push("os_version>=14".into());
        assert_eq!(
            super::wanted(&spec),
            "platform web with browser=chromium, os_version>=14"
        );
    }
}
