//! A package read for an audit: a folder validated in place, as `squad validate` reads it, or
//! an archive read once into a private copy ([`crate::snapshot`]) and validated there, as
//! install and sign read one; then, when it is valid, its capabilities and the audit's
//! findings. An invalid package is not audited: its validation says what is wrong.

use std::path::{Path, PathBuf};

use crate::capability::{self, Capabilities};
use crate::diag::Diagnostic;
use crate::package::{self, Report, ValidateError};
use crate::snapshot::{self, SnapshotError};

/// What auditing one package gave.
#[derive(Debug)]
pub struct Audited {
    /// The validation of what was audited; its sources hold the texts the findings point
    /// into.
    pub report: Report,
    /// The package's capabilities; `None` when it is invalid (and so was not audited). Their
    /// `package_digest` is empty: the audit judges the files it validated and does not digest
    /// them, which would read every file again for a value no finding needs.
    pub capabilities: Option<Capabilities>,
    /// The audit's findings, sorted; empty when the package was not audited.
    pub findings: Vec<Diagnostic>,
}

impl Audited {
    /// Whether the package was valid, and so audited.
    pub fn was_audited(&self) -> bool {
        self.capabilities.is_some()
    }
}

/// Why a package could not be audited at all.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Validate(ValidateError),
    #[error("cannot read the archive `{}`", .0.display())]
    Archive(PathBuf, #[source] SnapshotError),
}

impl AuditError {
    /// A refused archive is refused; a package that cannot be read could not be judged.
    pub fn class(&self) -> crate::error::Class {
        match self {
            AuditError::Archive(_, error) => error.class(),
            AuditError::Validate(_) => crate::error::Class::Failed,
        }
    }
}

/// Audits the package folder or `.zip` archive at `path`.
pub fn audit_path(path: &Path) -> Result<Audited, AuditError> {
    // The private copy of an archive is removed once it is validated: validation kept the
    // texts the audit reads.
    let report = if snapshot::is_archive(path) {
        snapshot::read_archive_judged(path, &snapshot::scratch_parent())
            .map_err(|error| AuditError::Archive(path.to_path_buf(), error))?
            .report
    } else {
        package::validate(path).map_err(AuditError::Validate)?
    };
    if !report.is_valid() {
        return Ok(Audited {
            report,
            capabilities: None,
            findings: Vec::new(),
        });
    }
    // The audit judges the validated files; digesting them would read every file again for
    // a value no finding needs (`squad digest` gives it).
    let Some(capabilities) = capability::of(&report, "") else {
        return Ok(Audited {
            report,
            capabilities: None,
            findings: Vec::new(),
        });
    };
    let findings = super::run(&report, &capabilities);
    Ok(Audited {
        report,
        capabilities: Some(capabilities),
        findings,
    })
}
