//! The project policy `deny_escalation`: no silent widening of what a squad may do.
//!
//! Under it, `squads.lock` records for every squad the grants the project accepted
//! ([`Accepted`]: the total grants of the version locked). A new version whose grants go beyond
//! the record (`squad diff`'s rule: a grant list's union gains an entry, a base role is added,
//! `inherit_base_tools` is turned on) is refused by `add`, `update`, `sync` and `install` into
//! the project, unless `--accept-grants` takes it, which records its grants. And the bytes a
//! sync installs or finds installed must hold exactly the accepted grants: the record is a
//! claim like the rest of the lock, so a lock whose package digest was moved to a wider
//! version while its record was kept (or dropped) is refused by `sync --locked`.

use crate::acquire::Acquired;
use crate::capability::accepted::Accepted;
use crate::capability::{Capabilities, Total};

use super::Failure;
use super::declared::Name;
use super::lockfile::Locked;

/// What a project's policy asks of one command.
#[derive(Debug, Clone, Copy, Default)]
pub struct Escalation {
    /// `deny_escalation` in squads.jsonc.
    pub deny: bool,
    /// `--accept-grants`: wider grants are accepted and recorded.
    pub accept: bool,
}

/// The capabilities of a squad about to be locked (a valid package always has them).
pub fn capabilities(name: &Name, acquired: &Acquired) -> Result<Capabilities, Failure> {
    crate::capability::of(&acquired.ready.report, &acquired.package_digest().hex())
        .ok_or_else(|| Failure::refused(name.to_string(), "the package has no identity to judge"))
}

fn accept_hint(name: &Name) -> String {
    format!(
        "review them with `squad diff`; `squad update {name} --accept-grants` accepts them and records them in squads.lock"
    )
}

/// A new version of `name` (added, updated, or resolved anew by a sync) with these total
/// grants, judged against what `previous` (its lock entry, if any) accepted. Returns the record
/// to lock: `None` when the policy is off.
pub fn judge(
    policy: Escalation,
    name: &Name,
    version: &str,
    previous: Option<&Locked>,
    total: &Total,
) -> Result<Option<Accepted>, Failure> {
    if !policy.deny {
        return Ok(None);
    }
    let record = Accepted::of(total);
    // A squad new to the lock, or locked before the policy recorded anything: what it holds
    // now is what is accepted. The lock's record, where there is one, is the bar.
    let Some(accepted) = previous.and_then(|locked| locked.capabilities.as_ref()) else {
        return Ok(Some(record));
    };
    let widening = accepted.widening(total);
    if widening.is_empty() || policy.accept {
        return Ok(Some(record));
    }
    Err(Failure::refused(
        name.to_string(),
        format!(
            "{name} {version} holds grants squads.lock did not accept (deny_escalation): {}",
            widening.describe()
        ),
    )
    .hint(accept_hint(name)))
}

/// The bytes of a locked squad, found installed or fetched as pinned, must hold the grants the
/// lock accepted. Returns the record to keep: the lock's, or, outside `--locked`, a first one
/// for an entry locked before the policy (`locked_only`: such an entry is refused, since
/// nothing may be written and nothing accepted it).
pub fn hold(
    policy: Escalation,
    name: &Name,
    locked: &Locked,
    total: &Total,
    locked_only: bool,
) -> Result<Option<Accepted>, Failure> {
    if !policy.deny {
        return Ok(locked.capabilities.clone());
    }
    let record = Accepted::of(total);
    match &locked.capabilities {
        Some(accepted) if accepted.sha256 == record.sha256 => Ok(Some(accepted.clone())),
        Some(accepted) => {
            let widening = accepted.widening(total);
            let what = if widening.is_empty() {
                "other grants (fewer)".to_owned()
            } else {
                format!("grants it did not accept: {}", widening.describe())
            };
            Err(Failure::refused(
                name.to_string(),
                format!(
                    "the package squads.lock pins for {name} ({}) holds {what}",
                    locked.version
                ),
            )
            .hint("squads.lock was edited by hand or by another tool: restore it from version control, or run `squad update` to lock and accept a version"))
        }
        None if locked_only => Err(Failure::refused(
            name.to_string(),
            format!(
                "squads.lock records no accepted grants for {name}, and the project denies escalation (--locked writes nothing)"
            ),
        )
        .hint("run `squad sync` once without --locked to record them, and commit squads.lock")),
        None => Ok(Some(record)),
    }
}
