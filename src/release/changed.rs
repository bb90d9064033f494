//! Versions that move when bytes move, over a tree of squads: `squad version bump --changed`
//! stamps exactly the packages whose content moved under the version of their baseline, and
//! `squad version check` fails naming every package whose bytes moved without a new version.
//!
//! The baseline of a squad is what it was last released or stamped as: the newest version a
//! registry holds (`--registry`: its config's package digest, evidence the registry serves),
//! or the tree's versions record ([`super::record`]: a content digest squad computed when it
//! last stamped, a claim committed with the tree). The rule is the reference's VER-B3: a
//! package is stamped when its baseline exists, has the package's declared version, and has
//! other content (CD-1, the version masked); otherwise nothing changes (the author bumped
//! already, the content is the same, or the package is new to the baseline). A second run
//! therefore changes nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::oci::Reference;
use crate::tree::{Outcome, PackageFailure};
use crate::version::{Date, Version};

use super::bump::{BumpError, stamp};
use super::content::{self, Versioned};
use super::record::{Record, RecordError, Recorded};

/// What a squad is compared with.
pub enum Baseline<'a> {
    /// The versions record at `path` (empty when there is no file yet).
    Record { path: PathBuf, record: Record },
    /// The last published archive (made by `squad pack`), at `path`.
    Archive { path: PathBuf },
    /// The newest version a registry holds under `base` (`oci://HOST/BASE`).
    Registry {
        client: &'a crate::http::Client,
        base: Reference,
        jobs: usize,
    },
}

impl Baseline<'_> {
    /// The record at `path`, read strictly.
    pub fn record(path: &Path) -> Result<Baseline<'static>, RecordError> {
        Ok(Baseline::Record {
            path: path.to_path_buf(),
            record: Record::read(path)?.unwrap_or_default(),
        })
    }

    /// `registry` or `record`, as JSON output names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Baseline::Record { .. } => "record",
            Baseline::Archive { .. } => "archive",
            Baseline::Registry { .. } => "registry",
        }
    }

    /// The record's path or the registry's base, as given.
    pub fn shown(&self) -> String {
        match self {
            Baseline::Record { path, .. } | Baseline::Archive { path } => {
                path.display().to_string()
            }
            Baseline::Registry { base, .. } => base.to_string(),
        }
    }
}

/// One squad's baseline: its version, and how its content is known.
#[derive(Debug, Clone)]
struct Known {
    version: String,
    /// The record's content digest (CD-1).
    content_digest: Option<String>,
    /// The registry's package digest of that version.
    package_digest: Option<String>,
    /// The registry's newest version (which `version` is for a bump).
    newest: Option<String>,
}

impl Known {
    /// Whether `package`'s content is the baseline's at the same version.
    fn same_content(&self, package: &Versioned) -> bool {
        match (&self.content_digest, &self.package_digest) {
            (Some(content), _) => *content == package.content_digest.hex(),
            // At the same version literal, equal package digests mean equal content.
            (None, Some(digest)) => *digest == package.package_digest.hex(),
            (None, None) => false,
        }
    }
}

/// What `version bump --changed` did to one package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StampStatus {
    /// The content moved under the baseline's version: stamped with the next version.
    Bumped,
    /// The content is the baseline's.
    Unchanged,
    /// The package is new to the baseline: recorded as it is.
    New,
    /// The author set a version after the baseline's already.
    Ahead,
    /// The version is before the baseline's (the baseline moved on without this tree).
    Behind,
}

/// One package of `version bump --changed`.
#[derive(Debug, Clone, Serialize)]
pub struct Stamp {
    pub namespace: String,
    pub id: String,
    pub status: StampStatus,
    /// The version before, and after (the same unless bumped).
    pub before: String,
    pub version: String,
    /// The baseline's version, when there is one.
    pub baseline_version: Option<String>,
    pub content_digest: String,
}

/// The whole run of `version bump --changed`.
#[derive(Debug)]
pub struct Stamped {
    pub outcomes: Vec<Outcome<Stamp>>,
    /// With a record: whether it was written (it is not when nothing in it changed).
    pub record_written: bool,
    /// Record entries of squads that are no longer in the tree, dropped from it.
    pub dropped: Vec<String>,
}

/// Reads every package for versioning; a second folder with a name already read is refused.
fn read_all(packages: &[PathBuf]) -> Vec<Outcome<Versioned>> {
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    packages
        .iter()
        .map(|path| {
            let result = content::read(path)
                .map_err(|error| PackageFailure::of(&error, error.class(), error.hint()))
                .and_then(|package| match seen.get(&package.name()) {
                    Some(first) => Err(PackageFailure::refused(
                        format!(
                            "{} is also the squad in `{}`: a tree holds each squad once",
                            package.name(),
                            first.display()
                        ),
                        None,
                    )),
                    None => {
                        seen.insert(package.name(), path.clone());
                        Ok(package)
                    }
                });
            Outcome {
                path: path.clone(),
                result,
            }
        })
        .collect()
}

/// The baseline of each package read (in order), or why it could not be looked up.
fn baselines(
    baseline: &Baseline<'_>,
    packages: &[&Versioned],
    at_version: bool,
) -> Vec<Result<Option<Known>, PackageFailure>> {
    match baseline {
        Baseline::Record { record, .. } => packages
            .iter()
            .map(|package| {
                Ok(record.squads.get(&package.name()).map(|recorded| Known {
                    version: recorded.version.to_string(),
                    content_digest: Some(recorded.content_digest.hex()),
                    package_digest: None,
                    newest: None,
                }))
            })
            .collect(),
        Baseline::Archive { path } => {
            let known = archive_baseline(path);
            packages
                .iter()
                .map(|_| match &known {
                    Ok(known) => Ok(Some(known.clone())),
                    Err(error) => Err(PackageFailure::refused(error.clone(), None)),
                })
                .collect()
        }
        Baseline::Registry { client, base, jobs } => {
            let lookup = |package: &&Versioned| {
                let version = package.version.to_string();
                crate::share::lookup(
                    client,
                    base,
                    &package.namespace,
                    &package.id,
                    at_version.then_some(version.as_str()),
                )
                .map_err(|error| PackageFailure::of(&error, error.class(), error.hint()))
                .map(|found| match (found.resolved, at_version) {
                    (Some(resolved), _) => Some(Known {
                        version: resolved.config.version.clone(),
                        content_digest: None,
                        package_digest: Some(resolved.config.package_digest.clone()),
                        newest: found.newest,
                    }),
                    // The version is not published, but others may be.
                    (None, true) => found.newest.map(|newest| Known {
                        version: newest.clone(),
                        content_digest: None,
                        package_digest: None,
                        newest: Some(newest),
                    }),
                    (None, false) => None,
                })
            };
            crate::jobs::map_jobs(*jobs, packages, &lookup)
        }
    }
}

/// The version and content digest of the archive at `path`, read within the import limits
/// (and never from a FIFO or a device).
fn archive_baseline(path: &Path) -> Result<Known, String> {
    let unreadable = |message: String| format!("`{}`: {message}", path.display());
    let bytes = crate::snapshot::read_archive(path)
        .map_err(|error| unreadable(crate::error::chain(&error)))?;
    let package =
        crate::archive::reader::read_package(&bytes, &crate::archive::reader::Limits::REFERENCE)
            .map_err(|error| unreadable(error.to_string()))?;
    let manifest = package
        .files
        .iter()
        .find(|(file, _)| file == crate::manifest::MANIFEST_FILE)
        .ok_or_else(|| unreadable("the archive holds no manifest".to_owned()))?;
    let (_, version) = crate::version::locate_in_manifest(&String::from_utf8_lossy(&manifest.1))
        .map_err(unreadable)?;
    let content_digest = content::content_digest_of_entries(&package.files).map_err(unreadable)?;
    Ok(Known {
        version,
        content_digest: Some(content_digest.hex()),
        package_digest: None,
        newest: None,
    })
}

fn order(version: &Version, other: &str) -> std::cmp::Ordering {
    match Version::parse(other) {
        Ok(other) => version.cmp(&other),
        Err(_) => std::cmp::Ordering::Greater,
    }
}

/// `squad version bump --changed` over `packages`: each package whose content moved under its
/// baseline's version is stamped with its next version (VER-B1, from `today`); with a record,
/// the record is rewritten with every package's version and content digest. `dry_run` writes
/// nothing and says what would be done.
pub fn bump_changed(
    packages: &[PathBuf],
    baseline: &Baseline<'_>,
    today: Date,
    dry_run: bool,
) -> Result<Stamped, RecordError> {
    let read = read_all(packages);
    let readable: Vec<&Versioned> = read
        .iter()
        .filter_map(|outcome| outcome.result.as_ref().ok())
        .collect();
    let mut known = baselines(baseline, &readable, false).into_iter();
    let mut record = match baseline {
        Baseline::Record { record, .. } => Some(record.clone()),
        Baseline::Archive { .. } | Baseline::Registry { .. } => None,
    };
    let mut kept: Vec<String> = Vec::new();
    let mut outcomes = Vec::new();
    for outcome in read {
        let Outcome { path, result } = outcome;
        let package = match result {
            Ok(package) => package,
            Err(failure) => {
                outcomes.push(Outcome {
                    path,
                    result: Err(failure),
                });
                continue;
            }
        };
        let result = known
            .next()
            .unwrap_or_else(|| Ok(None))
            .and_then(|known| stamp_one(&package, known.as_ref(), today, dry_run));
        if let Ok(stamp) = &result {
            kept.push(package.name());
            if let (Some(record), Ok(version)) = (&mut record, Version::parse(&stamp.version)) {
                record.squads.insert(
                    package.name(),
                    Recorded {
                        version,
                        content_digest: package.content_digest,
                    },
                );
            }
        } else {
            // A package that could not be read or stamped keeps its entry as it was.
            kept.push(package.name());
        }
        outcomes.push(Outcome { path, result });
    }
    let mut dropped = Vec::new();
    let mut record_written = false;
    if let (Some(mut record), Baseline::Record { path, .. }) = (record, baseline) {
        // Squads whose folder could not be read at all keep their entries: only a name no
        // folder of the tree declares is dropped. Folders that failed before their name was
        // known cannot say, so nothing is dropped then.
        let all_read = kept.len() == outcomes.len();
        if all_read {
            dropped = record
                .squads
                .keys()
                .filter(|name| !kept.contains(name))
                .cloned()
                .collect();
            for name in &dropped {
                record.squads.remove(name);
            }
        }
        if !dry_run {
            record_written = record.write(path)?;
        }
    }
    Ok(Stamped {
        outcomes,
        record_written,
        dropped,
    })
}

fn stamp_one(
    package: &Versioned,
    known: Option<&Known>,
    today: Date,
    dry_run: bool,
) -> Result<Stamp, PackageFailure> {
    let mut stamp = Stamp {
        namespace: package.namespace.clone(),
        id: package.id.clone(),
        status: StampStatus::New,
        before: package.version.to_string(),
        version: package.version.to_string(),
        baseline_version: known.map(|known| known.version.clone()),
        content_digest: package.content_digest.hex(),
    };
    let Some(known) = known else {
        return Ok(stamp);
    };
    stamp.status = match order(&package.version, &known.version) {
        std::cmp::Ordering::Greater => StampStatus::Ahead,
        std::cmp::Ordering::Less => StampStatus::Behind,
        std::cmp::Ordering::Equal if known.same_content(package) => StampStatus::Unchanged,
        std::cmp::Ordering::Equal => {
            let next = package.version.bump(today).map_err(|message| {
                let error = BumpError::Future {
                    path: package.manifest_path(),
                    message,
                };
                PackageFailure::of(&error, error.class(), error.hint())
            })?;
            if !dry_run {
                stamp_package(package, &next)?;
            }
            stamp.version = next.to_string();
            StampStatus::Bumped
        }
    };
    Ok(stamp)
}

fn stamp_package(package: &Versioned, next: &Version) -> Result<(), PackageFailure> {
    stamp(&package.path, &package.text, package.span.clone(), next)
        .map_err(|error| PackageFailure::of(&error, error.class(), error.hint()))
}

/// What `version check` found of one package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckStatus {
    /// Nothing moved without a new version.
    Ok,
    /// Not published, or not in the record (a registry baseline only: a record must know it).
    New,
    /// The content moved under the baseline's version.
    Unbumped,
    /// The version is published, but not the newest, with other bytes.
    Conflict,
    /// The record does not know this version of the squad.
    Unrecorded,
    /// The version is dated after today.
    Future,
}

impl CheckStatus {
    /// Whether the package fails the check.
    pub fn fails(self) -> bool {
        !matches!(self, CheckStatus::Ok | CheckStatus::New)
    }
}

/// One package of `version check`.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    pub namespace: String,
    pub id: String,
    pub version: String,
    pub status: CheckStatus,
    /// The baseline's version the package was compared with.
    pub baseline_version: Option<String>,
    /// Why it fails, in words.
    pub message: Option<String>,
}

/// `squad version check` over `packages`, against each of `against` (none: the date rule
/// only). A package fails on the first baseline it fails.
pub fn check_tree(
    packages: &[PathBuf],
    against: &[Baseline<'_>],
    today: Date,
) -> Vec<Outcome<Checked>> {
    let read = read_all(packages);
    let readable: Vec<&Versioned> = read
        .iter()
        .filter_map(|outcome| outcome.result.as_ref().ok())
        .collect();
    let mut found: Vec<std::vec::IntoIter<Result<Option<Known>, PackageFailure>>> = against
        .iter()
        .map(|baseline| baselines(baseline, &readable, true).into_iter())
        .collect();
    read.into_iter()
        .map(|Outcome { path, result }| {
            let result = result.and_then(|package| {
                let knowns: Vec<(&Baseline<'_>, Result<Option<Known>, PackageFailure>)> = against
                    .iter()
                    .zip(found.iter_mut())
                    .map(|(baseline, found)| (baseline, found.next().unwrap_or(Ok(None))))
                    .collect();
                check_one(&package, knowns, today)
            });
            Outcome { path, result }
        })
        .collect()
}

fn check_one(
    package: &Versioned,
    knowns: Vec<(&Baseline<'_>, Result<Option<Known>, PackageFailure>)>,
    today: Date,
) -> Result<Checked, PackageFailure> {
    let version = package.version.to_string();
    let mut checked = Checked {
        namespace: package.namespace.clone(),
        id: package.id.clone(),
        version: version.clone(),
        status: CheckStatus::Ok,
        baseline_version: None,
        message: None,
    };
    if package.version.date() > today {
        checked.status = CheckStatus::Future;
        checked.message = Some(format!(
            "version {version} is dated after today ({today} UTC)"
        ));
        return Ok(checked);
    }
    let name = package.name();
    for (baseline, known) in knowns {
        let known = known?;
        checked.baseline_version = known.as_ref().map(|known| known.version.clone());
        let (status, message) = match (baseline, known) {
            (Baseline::Record { path, .. }, None) => (
                CheckStatus::Unrecorded,
                format!("{name} {version} is not in `{}`", path.display()),
            ),
            (Baseline::Record { path, .. }, Some(known)) if known.version != version => (
                CheckStatus::Unrecorded,
                format!(
                    "`{}` records {name} at {}, not at {version}",
                    path.display(),
                    known.version
                ),
            ),
            (Baseline::Record { .. }, Some(known)) if !known.same_content(package) => (
                CheckStatus::Unbumped,
                format!(
                    "the content of {name} moved since {version} was recorded, but its version did not"
                ),
            ),
            (Baseline::Archive { .. }, Some(known))
                if known.version == version && !known.same_content(package) =>
            {
                (
                    CheckStatus::Unbumped,
                    format!(
                        "the package changed since {version} was published, but its version did not"
                    ),
                )
            }
            (Baseline::Registry { .. }, None) => (CheckStatus::New, String::new()),
            (Baseline::Registry { .. }, Some(known)) if known.package_digest.is_none() => {
                (CheckStatus::New, String::new())
            }
            (Baseline::Registry { base, .. }, Some(known)) if !known.same_content(package) => {
                let newest = known.newest.as_deref() == Some(version.as_str());
                let published = known.package_digest.unwrap_or_default();
                let status = if newest {
                    CheckStatus::Unbumped
                } else {
                    CheckStatus::Conflict
                };
                let what = if newest {
                    "the bytes moved since it was published, but its version did not"
                } else {
                    "that version is published already, with other bytes"
                };
                (
                    status,
                    format!(
                        "{name} {version}: {what} ({}/{name}:{version} holds package digest {published}, this folder {})",
                        base,
                        package.package_digest.hex()
                    ),
                )
            }
            _ => (CheckStatus::Ok, String::new()),
        };
        if status != CheckStatus::Ok {
            checked.status = status;
            checked.message = (!message.is_empty()).then_some(message);
        }
        if status.fails() {
            break;
        }
    }
    Ok(checked)
}
