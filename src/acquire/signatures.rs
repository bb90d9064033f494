//! A squad's signatures, found where its source keeps them, and the project's signature policy
//! applied to them. Where they are: `<path>.minisig` beside a local folder or archive (as
//! `minisign -S` names it), `<url>.minisig` beside an archive's URL, OCI referrers of a
//! registry squad's manifest. What is found is only material: [`crate::sign::Policy::check`]
//! verifies each one against the policy's keys over the statement of the bytes being
//! installed, at every use. Signatures found over the network are kept in the cache by their
//! statement, so an offline sync judges a locked squad as an online one does.

use std::path::{Path, PathBuf};

use crate::digest::Sha256Digest;
use crate::sign::{KeyId, Policy, Statement};

use super::AcquireError;

/// Where a local archive's or folder's signature is looked for ([`crate::sign::beside`]).
pub fn sibling(source: &Path) -> PathBuf {
    crate::sign::beside(source)
}

/// The signature beside a local archive or folder, if there is one (read within the size
/// bound).
pub fn beside_path(source: &Path) -> Result<Vec<String>, AcquireError> {
    let path = sibling(source);
    match crate::fs::metadata(&path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(AcquireError::Io(path, error)),
        Ok(metadata) if metadata.len() > crate::sign::minisig::MAX_FILE_BYTES as u64 => {
            return Err(AcquireError::Refused {
                message: format!(
                    "`{}` is {} bytes: not a minisign signature",
                    path.display(),
                    metadata.len()
                ),
                hint: None,
            });
        }
        Ok(_) => {}
    }
    let bytes = crate::fs::read(&path).map_err(|error| AcquireError::Io(path, error))?;
    Ok(vec![String::from_utf8_lossy(&bytes).into_owned()])
}

/// The statement of a squad: what its signatures sign.
pub fn statement(namespace: &str, id: &str, version: &str, digest: Sha256Digest) -> Statement {
    Statement {
        namespace: namespace.to_owned(),
        id: id.to_owned(),
        version: version.to_owned(),
        package_digest: digest,
    }
}

/// The key under which a statement's signatures are cached.
pub fn cache_key(statement: &Statement) -> Sha256Digest {
    Sha256Digest::of(statement.text().as_bytes())
}

/// Applies `policy` to a squad's signatures: the id of the key whose signature over
/// `statement` verified, or a refusal naming the key ids found and the keys expected.
pub fn judge(
    policy: &Policy,
    statement: &Statement,
    signatures: &[String],
) -> Result<KeyId, AcquireError> {
    let today = crate::env::today_utc();
    policy.check(statement, signatures, today).map_err(|refusal| {
        let revoked: Vec<String> = refusal
            .found()
            .into_iter()
            .filter(|id| policy.revoked.contains(id))
            .map(|id| id.to_string())
            .collect();
        let hint = match &refusal {
            crate::sign::Refusal::Unsigned { .. } => {
                "the publisher signs with `squad sign` or `squad publish --sign`; see docs/signatures.md".to_owned()
            }
            _ if !revoked.is_empty() => format!(
                "key {} was revoked (`squad trust revoke`, `revoked` in squads.jsonc), which no `trust` entry overrides: the publisher must sign with another key; a revocation made by mistake is undone by taking the key out of `revoked`",
                revoked.join(", ")
            ),
            _ => {
                "if the key is the publisher's, `squad trust add KEY --namespace NAMESPACE` trusts it".to_owned()
            }
        };
        AcquireError::Refused {
            message: format!("version {} was refused: {refusal}", statement.version),
            hint: Some(hint),
        }
    })
}
