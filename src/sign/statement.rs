//! What a squad signature covers: a four-line statement binding a squad's identity to its
//! package digest (not to archive bytes, which a compressor upgrade may change while the
//! package digest does not). See docs/signatures.md.

use crate::digest::Sha256Digest;

/// The statement's first line: the format and its version.
pub const HEADER: &str = "opencorvus.squad.signature.v1";

/// A squad's identity and package digest, as signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub namespace: String,
    pub id: String,
    pub version: String,
    pub package_digest: Sha256Digest,
}

impl Statement {
    /// The exact bytes signed: four lines, each ended by one LF.
    pub fn text(&self) -> String {
        format!(
            "{HEADER}\n{}/{}\n{}\n{}\n",
            self.namespace,
            self.id,
            self.version,
            self.package_digest.hex()
        )
    }

    /// `<namespace>/<id> <version>`.
    pub fn identity(&self) -> String {
        format!("{}/{} {}", self.namespace, self.id, self.version)
    }

    /// The minisign trusted comment squad writes: the identity and digest again, for people
    /// reading the signature file (the signature covers it too, but squad decides on the
    /// statement alone).
    pub fn trusted_comment(&self) -> String {
        format!(
            "{HEADER} {}/{} {} {}",
            self.namespace,
            self.id,
            self.version,
            self.package_digest.hex()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statement_is_four_lines_ended_by_lf() {
        let statement = Statement {
            namespace: "acme".to_owned(),
            id: "review".to_owned(),
            version: "2026.12.01.1".to_owned(),
            package_digest: Sha256Digest::parse(&"ab".repeat(32)).unwrap(),
        };
        assert_eq!(
            statement.text(),
            format!(
                "opencorvus.squad.signature.v1\nacme/review\n2026.12.01.1\n{}\n",
                "ab".repeat(32)
            )
        );
        assert!(!statement.trusted_comment().contains('\n'));
    }
}
