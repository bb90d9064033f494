//! Author signatures, in minisign's format so that the `minisign` tool and squad check each
//! other's work. What is signed is a [`Statement`] (identity and package digest), never archive
//! bytes; [`policy`] decides which keys a project trusts. docs/signatures.md is the reference.
//!
//! The `minisign` crate (by the format's author) does the cryptography: Ed25519, scrypt
//! key encryption and the Blake2b prehash. It was preferred to ed25519-dalek plus hand-written
//! formats because it is the format's reference Rust implementation, pure Rust (gcc only), and
//! brings 16 small crates; [`minisig`] checks every field before it, as it panics on some
//! truncated inputs.

pub mod keys;
pub mod minisig;
pub mod policy;
pub mod statement;

use std::path::{Path, PathBuf};

pub use minisig::{FormatError, KeyId, PublicKey, SecretKey, SecretKeyFile, Signature};
pub use policy::{Policy, Refusal, Trusted};
pub use statement::Statement;

/// The title of a signature attached to a squad in a registry (its referrer's file name).
pub fn default_signature_name(id: &str, version: &str) -> String {
    format!("{id}-{version}.squad.minisig")
}

/// Where a local archive's or folder's signature is kept: `<archive>.minisig`, and
/// `<folder>.minisig` beside a folder (`pkg/` is `pkg`; `.` is the current folder's own name,
/// beside it), as `minisign -S` names it. `squad sign` and `squad pull` write it there, and
/// `add`, `install` and `sync` look for it there: one rule.
pub fn beside(source: &Path) -> PathBuf {
    let mut entry = crate::fs::entry_path(source);
    if entry.file_name().is_none() {
        entry = crate::fs::canonicalize(&entry).unwrap_or(entry);
    }
    let mut name = entry.into_os_string();
    name.push(".minisig");
    PathBuf::from(name)
}

/// Why a package's statement could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StatementError {
    /// A package folder or archive that does not validate: nothing about it is signed.
    #[error("the package `{}` is invalid; run `squad validate` on it for details", .0.display())]
    Invalid(PathBuf),
    /// The folder or archive could not be read once (absent, unreadable, refused entries).
    #[error(transparent)]
    Read(crate::snapshot::SnapshotError),
    #[error("`{}`: {}", .0.display(), .1)]
    Digest(PathBuf, String),
}

impl StatementError {
    /// A package that is not what a signature may be made over is refused; one that cannot
    /// be read at all could not be judged.
    pub fn class(&self) -> crate::error::Class {
        match self {
            StatementError::Invalid(_) => crate::error::Class::Refused,
            StatementError::Read(error) => error.class(),
            StatementError::Digest(..) => crate::error::Class::Failed,
        }
    }
}

/// The statement of a package folder or `.zip` archive: read once into a private copy, that
/// copy validated, and its package digest computed. An archive is judged as a folder is: its
/// identity is the validated manifest's, never what an unchecked manifest declares (it names
/// the signature file, and a signature vouches for it).
pub fn statement_of(path: &Path) -> Result<Statement, StatementError> {
    let parent = crate::snapshot::scratch_parent();
    let judged = if crate::snapshot::is_archive(path) {
        crate::snapshot::read_archive_judged(path, &parent)
    } else {
        crate::snapshot::read_folder(path, &parent)
    }
    .map_err(|error| match error {
        crate::snapshot::SnapshotError::Invalid(_) => StatementError::Invalid(path.to_path_buf()),
        other => StatementError::Read(other),
    })?;
    let report = &judged.report;
    let identity = match (&report.identity, report.is_valid()) {
        (Some(identity), true) => identity.clone(),
        _ => return Err(StatementError::Invalid(path.to_path_buf())),
    };
    let files: Vec<String> = report
        .tree
        .files()
        .map(|entry| entry.path.clone())
        .collect();
    let digest = crate::digest::digest_folder(judged.snapshot.path(), &files, false)
        .map_err(|error| StatementError::Digest(path.to_path_buf(), error.message))?;
    Ok(Statement {
        namespace: identity.namespace,
        id: identity.id,
        version: identity.version,
        package_digest: digest.package_digest,
    })
}

/// Creates `path` with `bytes`, refusing to replace anything; `private` files are mode 0600
/// from their first byte. A failed write leaves no file.
pub fn write_new(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::File::options();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if private { 0o600 } else { 0o644 });
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut file = options.open(path)?;
    let result = file.write_all(bytes).and_then(|()| file.sync_all());
    if result.is_err() {
        let _ = crate::fs::remove_file(path);
    }
    result
}

/// Runs every key and signature parser on `data` (a fuzzing entry point: it must return, never
/// panic, whatever the input).
pub fn parse_all(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = PublicKey::parse(&text);
    if let Ok(file) = SecretKeyFile::parse(&text) {
        // Only unencrypted keys: decrypting runs scrypt with the file's own cost parameters.
        if !file.is_encrypted() {
            let _ = file.unlock(None);
        }
    }
    let _ = Signature::parse(&text);
    let _ = KeyId::parse(&text);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator: the property test needs no extra crate.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    #[test]
    fn no_input_panics_a_parser() {
        let (public, secret) = minisig::generate(None).unwrap();
        let key = SecretKeyFile::parse(&secret).unwrap().unlock(None).unwrap();
        let signature = minisig::sign(&key, b"statement", "comment").unwrap();
        let seeds = [
            public.file_text(),
            public.base64.clone(),
            secret,
            signature.text().to_owned(),
            r#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#.to_owned(),
        ];
        let mut random = Lcg(7);
        let mut runs = 0;
        for seed in &seeds {
            let bytes = seed.as_bytes();
            for cut in 0..=bytes.len() {
                parse_all(&bytes[..cut]);
                runs += 1;
            }
            for _ in 0..300 {
                let mut mutated = bytes.to_vec();
                for _ in 0..1 + random.next() % 4 {
                    let at = (random.next() as usize) % mutated.len().max(1);
                    match random.next() % 3 {
                        0 if !mutated.is_empty() => mutated[at] = random.next() as u8,
                        1 if !mutated.is_empty() => {
                            mutated.remove(at);
                        }
                        _ => mutated.insert(at.min(mutated.len()), random.next() as u8),
                    }
                }
                parse_all(&mutated);
                runs += 1;
            }
        }
        for _ in 0..300 {
            let length = (random.next() % 400) as usize;
            let noise: Vec<u8> = (0..length).map(|_| random.next() as u8).collect();
            parse_all(&noise);
            runs += 1;
        }
        assert!(runs > 2000, "{runs} inputs");
    }
}
