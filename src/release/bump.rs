//! `squad version bump` of one package: the next version (VER-B1) written in place of the
//! version literal, every other byte of the manifest kept.

use std::path::{Path, PathBuf};

use crate::manifest::MANIFEST_FILE;
use crate::version::{Date, Version, locate_in_manifest, splice_version};

use super::content::{ContentError, read_manifest};

/// What a bump did.
#[derive(Debug, Clone)]
pub struct Bumped {
    pub path: PathBuf,
    /// `namespace/id`, when the manifest says so.
    pub name: Option<String>,
    /// The version literal before, as written.
    pub before: String,
    /// How `before` was read: repaired (`2026.12.1.1` as `2026.12.01.1`), or not a version.
    pub before_read_as: Option<String>,
    pub after: Version,
}

/// Why a package could not be bumped.
#[derive(Debug, thiserror::Error)]
pub enum BumpError {
    #[error(transparent)]
    Read(ContentError),
    /// The version is dated after today: a bump would go backwards.
    #[error("`{}`: {message}", path.display())]
    Future { path: PathBuf, message: String },
    #[error("cannot write `{}`", .0.display())]
    Write(PathBuf, #[source] std::io::Error),
    /// After the stamp, the content digest changed: something besides the version moved.
    #[error("`{}`: stamping the version changed more than the version; nothing was written", .0.display())]
    ContentMoved(PathBuf),
}

impl BumpError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            BumpError::Read(error) => error.class(),
            BumpError::Write(..) => crate::error::Class::Failed,
            BumpError::Future { .. } | BumpError::ContentMoved(_) => crate::error::Class::Refused,
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            BumpError::Read(ContentError::Manifest { .. }) => Some(
                "write `\"version\": \"YYYY.MM.DD.1\"` at the top level of the manifest, then bump"
                    .to_owned(),
            ),
            BumpError::Read(error) => error.hint(),
            BumpError::Future { .. } => Some(
                "set the version by hand (or check the system clock); nothing was changed"
                    .to_owned(),
            ),
            _ => None,
        }
    }
}

/// The next version of a package whose version literal is `value`: VER-B1 from it, from its
/// repaired form when only its writing is wrong, or today's first revision when it is no
/// version at all. Returns the next version and how `value` was read.
pub fn next_version(value: &str, today: Date) -> Result<(Version, Option<String>), String> {
    let (current, read_as) = match Version::parse(value) {
        Ok(current) => (Some(current), None),
        Err(_) => match crate::version::repaired(value).and_then(|v| Version::parse(&v).ok()) {
            Some(current) => (Some(current.clone()), Some(current.to_string())),
            None => (None, Some("not a valid version".to_owned())),
        },
    };
    let next = match current {
        Some(current) => current.bump(today)?,
        None => Version {
            year: today.year,
            month: today.month,
            day: today.day,
            revision: "1".to_owned(),
        },
    };
    Ok((next, read_as))
}

/// Writes `version` in place of the version literal of the manifest `text` of the package
/// `path` (at `span`), checking first that nothing but the version changes (the content
/// digest, CD-1, is the same before and after).
pub fn stamp(
    path: &Path,
    text: &str,
    span: std::ops::Range<usize>,
    version: &Version,
) -> Result<(), BumpError> {
    let manifest = path.join(MANIFEST_FILE);
    let rewritten = splice_version(text, span, &version.to_string());
    let blank = |text: &str| crate::version::without_version(text).ok();
    if blank(text) != blank(&rewritten) || locate_in_manifest(&rewritten).is_err() {
        return Err(BumpError::ContentMoved(manifest));
    }
    crate::fs::replace_file(&manifest, rewritten.as_bytes())
        .map_err(|error| BumpError::Write(manifest, error))
}

/// `squad version bump` of the package folder `path`: today's date, revision N+1 when the
/// version is dated today, else 1 (see [`next_version`]).
pub fn bump(path: &Path, today: Date) -> Result<Bumped, BumpError> {
    let (text, span, value) = read_manifest(path).map_err(BumpError::Read)?;
    let (after, before_read_as) =
        next_version(&value, today).map_err(|message| BumpError::Future {
            path: path.join(MANIFEST_FILE),
            message,
        })?;
    // An invalid version is repaired or replaced: the content digest check cannot hold for a
    // literal it cannot blank, so only a valid one is checked.
    stamp(path, &text, span, &after)?;
    let name = crate::manifest::declared(&text)
        .and_then(|declared| Some(format!("{}/{}", declared.namespace?, declared.id?)));
    Ok(Bumped {
        path: path.to_path_buf(),
        name,
        before: value,
        before_read_as,
        after,
    })
}

/// `squad version bump` of every package of a tree, one outcome each.
pub fn bump_all(packages: &[PathBuf], today: Date) -> Vec<crate::tree::Outcome<Bumped>> {
    packages
        .iter()
        .map(|path| crate::tree::Outcome {
            path: path.clone(),
            result: bump(path, today).map_err(|error| {
                crate::tree::PackageFailure::of(&error, error.class(), error.hint())
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(year: u32, month: u32, day: u32) -> Date {
        Date { year, month, day }
    }

    #[test]
    fn next_versions_repair_or_replace_what_is_not_a_version() {
        let today = date(2026, 12, 1);
        let next = |value: &str| {
            next_version(value, today).map(|(next, read_as)| (next.to_string(), read_as))
        };
        assert_eq!(
            next("2026.12.01.1").unwrap(),
            ("2026.12.01.2".to_owned(), None)
        );
        assert_eq!(
            next("2026.12.1.3").unwrap(),
            ("2026.12.01.4".to_owned(), Some("2026.12.01.3".to_owned()))
        );
        assert_eq!(next("soon").unwrap().0, "2026.12.01.1");
        assert!(next("2027.01.01.1").unwrap_err().contains("after today"));
    }

    #[test]
    fn a_bump_keeps_every_other_byte() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join(MANIFEST_FILE);
        let text = "{ // keep\n  \"namespace\": \"acme\", \"id\": \"p\",\n  \"version\":  \"2026.11.30.1\" }\n";
        std::fs::write(&manifest, text).unwrap();
        let bumped = bump(dir.path(), date(2026, 12, 1)).unwrap();
        assert_eq!(bumped.after.to_string(), "2026.12.01.1");
        assert_eq!(bumped.name.as_deref(), Some("acme/p"));
        assert_eq!(
            std::fs::read_to_string(&manifest).unwrap(),
            text.replace("2026.11.30.1", "2026.12.01.1")
        );
    }
}
