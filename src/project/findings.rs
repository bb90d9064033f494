//! The project's audit policy (PRJ-13): a squad whose `squad audit` findings reach the
//! project's bar (`audit` in squads.jsonc, `error` by default) is refused by `add`, `update`,
//! `sync` and `install` into the project, unless each such finding is accepted for that very
//! version (`accepted_findings`, bound to the package digest: the next version's findings count
//! again). The findings are those of the bytes about to be locked or installed, computed from
//! their validation report; nothing the lock or a cache says stands in for them.

use crate::acquire::Acquired;
use crate::capability::Capabilities;
use crate::diag::Diagnostic;

use super::Failure;
use super::declared::{AuditPolicy, Name};

/// The findings of `acquired` that the policy refuses it for (empty: it may be brought in).
pub fn refused_for(
    policy: &AuditPolicy,
    name: &Name,
    acquired: &Acquired,
    capabilities: &Capabilities,
) -> Vec<Diagnostic> {
    let Some(bar) = policy.deny_at else {
        return Vec::new();
    };
    let digest = acquired.package_digest();
    crate::audit::run(&acquired.ready.report, capabilities)
        .into_iter()
        .filter(|finding| finding.severity() <= bar)
        .filter(|finding| {
            !policy.accepted.iter().any(|accepted| {
                accepted.squad == *name
                    && accepted.package_digest == digest
                    && accepted.code == finding.code
            })
        })
        .collect()
}

/// Refuses `acquired` when the policy does (see [`refused_for`]), naming the findings.
pub fn judge(
    policy: &AuditPolicy,
    name: &Name,
    acquired: &Acquired,
    capabilities: &Capabilities,
) -> Result<(), Failure> {
    let findings = refused_for(policy, name, acquired, capabilities);
    if findings.is_empty() {
        return Ok(());
    }
    const SHOWN: usize = 5;
    let mut lines: Vec<String> = findings
        .iter()
        .take(SHOWN)
        .map(|finding| {
            let place = match (
                &finding.span,
                acquired.ready.report.sources.get(&finding.file),
            ) {
                (Some(span), Some(source)) => {
                    let position = source.position(span.start);
                    format!("{}:{}:{}", finding.file, position.line, position.column)
                }
                _ => finding.file.clone(),
            };
            format!(
                "{}[{}] {place}: {}",
                finding.severity().as_str(),
                finding.code.as_str(),
                finding.message
            )
        })
        .collect();
    if findings.len() > SHOWN {
        lines.push(format!("… and {} more", findings.len() - SHOWN));
    }
    let identity = acquired.identity();
    Err(Failure::refused(
        name.to_string(),
        format!(
            "{name} {} has {} audit finding{} at or above the project's bar:\n  {}",
            identity.version,
            findings.len(),
            crate::text::plural(findings.len()),
            lines.join("\n  ")
        ),
    )
    .hint(format!(
        "read them with `squad audit`; accept one for this version with an `accepted_findings` entry in squads.jsonc (squad `{name}`, package digest {}, the code, a reason)",
        acquired.package_digest()
    )))
}
