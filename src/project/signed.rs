//! The project's signature policy applied to one squad: where its signatures are (registry
//! referrers; a `.minisig` beside a local archive or folder, or beside an archive's URL) and the
//! refusal that names the squad, the key ids found and the keys expected.
//! [`crate::sign::Policy::check`] decides.

use std::path::{Path, PathBuf};

use crate::digest::Sha256Digest;
use crate::sign::{Policy, Statement};

use super::Failure;

/// Where a local archive's or folder's signature is looked for: `<archive>.minisig`, as
/// `minisign -S` names it, and `<folder>.minisig` beside a folder (`pkg/` is `pkg`).
pub fn sibling(source: &Path) -> PathBuf {
    let mut name = crate::fs::entry_path(source).into_os_string();
    name.push(".minisig");
    PathBuf::from(name)
}

/// The signature beside a local archive or folder, if there is one (read within the size
/// bound).
pub fn sibling_signatures(label: &str, archive: &Path) -> Result<Vec<String>, Failure> {
    let path = sibling(archive);
    match crate::fs::metadata(&path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(Failure::operational(
                label,
                format!("cannot read `{}`: {error}", path.display()),
            ));
        }
        Ok(metadata) if metadata.len() > crate::sign::minisig::MAX_FILE_BYTES as u64 => {
            return Err(Failure::refused(
                label,
                format!(
                    "`{}` is {} bytes: not a minisign signature",
                    path.display(),
                    metadata.len()
                ),
            ));
        }
        Ok(_) => {}
    }
    let bytes = crate::fs::read(&path).map_err(|error| {
        Failure::operational(label, format!("cannot read `{}`: {error}", path.display()))
    })?;
    Ok(vec![String::from_utf8_lossy(&bytes).into_owned()])
}

/// The statement of a squad as resolved or locked.
pub fn statement(namespace: &str, id: &str, version: &str, digest: Sha256Digest) -> Statement {
    Statement {
        namespace: namespace.to_owned(),
        id: id.to_owned(),
        version: version.to_owned(),
        package_digest: digest,
    }
}

/// Applies `policy` to a squad's signatures: the key id that verified, or a refusal naming the
/// squad (`label`), the key ids found and the keys expected.
pub fn judge(
    policy: &Policy,
    label: &str,
    statement: &Statement,
    signatures: &[String],
) -> Result<String, Failure> {
    let today = crate::env::today_utc();
    policy
        .check(statement, signatures, today)
        .map(|id| id.to_string())
        .map_err(|refusal| {
            let hint = match &refusal {
                crate::sign::Refusal::Unsigned { .. } => {
                    "the publisher signs with `squad sign` or `squad publish --sign`; see docs/signatures.md"
                }
                _ => {
                    "if the key is the publisher's, `squad trust add KEY --namespace NAMESPACE` trusts it"
                }
            };
            Failure::refused(
                label,
                format!("version {} was refused: {refusal}", statement.version),
            )
            .hint(hint)
        })
}
