//! `minimum_release_age` (PRJ-14): a cooldown before `add`, `update` and `sync` take a version
//! that is not named exactly, as pnpm's `minimumReleaseAge` and npm's `min-release-age` hold
//! back what was published minutes ago (the window in which a hijacked account's release is
//! usually found and pulled).
//!
//! A version's age must come from a record its author cannot write through the package's own
//! content. An OCI registry keeps no push time that its API shows (blobs come without
//! `Last-Modified`; a manifest's `created` annotation is the author's word), so the one record
//! is the project's static index: `published` is when the publisher's index build first saw the
//! version, kept from build to build, and the index's root pins every file by digest. A
//! version with no such record is never taken unnamed under the policy: the squad is refused,
//! and the message says how to name the version or which index would vouch for its age.

use serde::Serialize;

use crate::index::format::{SquadFile, VersionEntry};
use crate::oci::Reference;
use crate::version::Timestamp;

use crate::acquire::{Pins, Source};
use crate::install::Exact;

use super::declared::{Declaration, IndexConfig, ReleaseAge};
use super::{Failure, Settings};

/// A version newer than the one taken, held back by the cooldown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeldBack {
    pub version: String,
    /// When the project's index says it was published; `None`: the index has no record of it
    /// (so its age is unknown, and an unnamed update refuses rather than guess).
    pub published: Option<String>,
}

impl HeldBack {
    /// `2026.12.02.1 (published 2026-12-03T00:00:00Z, 1 d ago)`, or `… (no publish time …)`.
    pub fn describe(&self, now: Timestamp) -> String {
        match self
            .published
            .as_deref()
            .and_then(|text| Timestamp::parse(text).map(|at| (text, at)))
        {
            Some((text, at)) => format!(
                "{} (published {text}, {} ago)",
                self.version,
                age_text(now.seconds() - at.seconds())
            ),
            None => format!("{} (no publish time in the project's index)", self.version),
        }
    }
}

/// Several held-back versions, for one line.
pub fn describe_all(held: &[HeldBack], now: Timestamp) -> String {
    held.iter()
        .map(|held| held.describe(now))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An age in the largest unit that keeps it readable: `2 d 3 h`, `5 h 10 min`, `12 min`.
fn age_text(seconds: i64) -> String {
    let seconds = seconds.max(0);
    let (days, hours, minutes) = (
        seconds / 86_400,
        seconds % 86_400 / 3_600,
        seconds % 3_600 / 60,
    );
    match (days, hours) {
        (0, 0) => format!("{minutes} min"),
        (0, _) => format!("{hours} h {minutes} min"),
        _ => format!("{days} d {hours} h"),
    }
}

/// The cooldown of a project, with the clock it is judged by (`SQUAD_NOW` in tests).
#[derive(Debug, Clone, Copy)]
pub struct Cooldown<'a> {
    pub age: &'a ReleaseAge,
    pub now: Timestamp,
}

impl<'a> Cooldown<'a> {
    pub fn of(age: Option<&'a ReleaseAge>) -> Option<Cooldown<'a>> {
        age.map(|age| Cooldown {
            age,
            now: crate::env::now_utc(),
        })
    }

    /// Whether a version published at `published` is old enough.
    fn old_enough(&self, published: Timestamp) -> bool {
        self.now.seconds().saturating_sub(published.seconds()) >= self.age.seconds
    }

    /// What the policy says, for messages: `minimum_release_age` `3d`.
    pub fn named(&self) -> String {
        format!(
            "squads.jsonc's `minimum_release_age` of `{}`",
            self.age.text
        )
    }

    /// One version's verdict from its index record (`None`: none).
    fn judge(&self, version: &str, record: Option<&VersionEntry>) -> Verdict {
        let Some(record) = record else {
            return Verdict::NoRecord;
        };
        match Timestamp::parse(&record.published) {
            Some(published) if self.old_enough(published) => Verdict::Take,
            Some(_) => Verdict::Young(HeldBack {
                version: version.to_owned(),
                published: Some(record.published.clone()),
            }),
            // A record without a readable time vouches for no age.
            None => Verdict::NoRecord,
        }
    }

    /// The newest version of an index squad that is not yanked and is old enough, and the
    /// newer ones held back (PRJ-14). Every version of an index squad has its record.
    pub fn pick_in_index<'f>(
        &self,
        squad: &'f SquadFile,
        index_url: &str,
    ) -> Result<(&'f VersionEntry, Vec<HeldBack>), Failure> {
        let mut held = Vec::new();
        for entry in squad.versions.iter().filter(|entry| !entry.yanked) {
            match self.judge(&entry.version, Some(entry)) {
                Verdict::Take => return Ok((entry, held)),
                Verdict::Young(young) => held.push(young),
                Verdict::NoRecord => {
                    return Err(Failure::refused(
                        squad.name(),
                        format!(
                            "the index {index_url} gives {} of it no readable publish time (`{}`), so {} cannot tell its age",
                            entry.version,
                            crate::text::remote(&entry.published, 40),
                            self.named()
                        ),
                    )
                    .hint("name the version exactly (`\"version\"` in squads.jsonc)"));
                }
            }
        }
        Err(too_young(&squad.name(), self, &held, index_url))
    }

    /// The newest version of a registry squad the cooldown lets `add`, `update` or `sync`
    /// take unnamed: the registry's versions, newest first, each judged by the record the
    /// project's index keeps of that version in that repository. A version without a record
    /// refuses the squad (its age is unknown): the failure names the registry and the fix.
    pub fn pick_in_registry(
        &self,
        (client, cache): (Option<&crate::http::Client>, Option<&crate::cache::Cache>),
        index: Option<&IndexConfig>,
        label: &str,
        reference: &Reference,
    ) -> Result<Picked, Failure> {
        let repository = reference.repository_only();
        let Some(client) = client else {
            return Err(Failure::operational(
                label,
                format!(
                    "choosing a version of {repository} under {} needs the registry (--offline)",
                    self.named()
                ),
            ));
        };
        let listed =
            crate::share::versions(client, &repository, false).map_err(|error| Failure {
                hint: error.hint(),
                ..Failure::of(label, &error, error.class())
            })?;
        let records = records_of(Some(client), cache, index, label, &repository)?;
        let mut held = Vec::new();
        for listed in &listed {
            let record = records.as_ref().and_then(|(_, records)| {
                records.iter().find(|entry| entry.version == listed.version)
            });
            if record.is_some_and(|record| record.yanked) {
                continue;
            }
            match self.judge(&listed.version, record) {
                Verdict::Take => {
                    return Ok(Picked {
                        version: listed.version.clone(),
                        package_digest: record.and_then(|record| {
                            crate::digest::Sha256Digest::parse(&record.package_digest)
                        }),
                        held_back: held,
                    });
                }
                Verdict::Young(young) => held.push(young),
                Verdict::NoRecord => {
                    let (whose, fix) = match (index, &records) {
                        (None, _) => (
                            "the project declares no `index`".to_owned(),
                            "declare an `index` that lists it (docs/index.md)".to_owned(),
                        ),
                        (Some(config), Some(_)) => (
                            format!("the project's index {} has no record of {} in {repository}", config.url, listed.version),
                            "rebuild the index after the publish (`squad index build`), or wait for it".to_owned(),
                        ),
                        (Some(config), None) => (
                            format!("the project's index {} does not list that repository", config.url),
                            "declare an `index` that lists that repository (docs/index.md)".to_owned(),
                        ),
                    };
                    return Err(Failure::refused(
                        label,
                        format!(
                            "{} is the newest version at {repository}, but a registry records no publish time, and {whose}: under {} a version of unknown age is not taken unless it is named",
                            listed.version,
                            self.named()
                        ),
                    )
                    .hint(format!(
                        "name the version exactly (`squad add {}`, or `\"version\": \"{}\"` in squads.jsonc), or {fix}",
                        repository.with_tag(&listed.version),
                        listed.version
                    )));
                }
            }
        }
        Err(too_young(label, self, &held, &repository.to_string()))
    }

    /// Of `newer` (newest first), the versions the cooldown would hold back at `update`: those
    /// younger than the policy or without a record, down to the first it would take.
    pub fn held_back_of(
        &self,
        newer: &[String],
        records: Option<&[VersionEntry]>,
    ) -> Vec<HeldBack> {
        let mut held = Vec::new();
        for version in newer {
            let record =
                records.and_then(|records| records.iter().find(|entry| entry.version == *version));
            if record.is_some_and(|record| record.yanked) {
                continue;
            }
            match self.judge(version, record) {
                Verdict::Take => break,
                Verdict::Young(young) => held.push(young),
                Verdict::NoRecord => held.push(HeldBack {
                    version: version.clone(),
                    published: None,
                }),
            }
        }
        held
    }
}

enum Verdict {
    Take,
    Young(HeldBack),
    NoRecord,
}

/// What the cooldown let through for a registry squad.
#[derive(Debug, Clone)]
pub struct Picked {
    pub version: String,
    /// The package digest the index records for that version: the bytes taken must be the
    /// ones whose publish time it records (a tag moved since is refused).
    pub package_digest: Option<crate::digest::Sha256Digest>,
    pub held_back: Vec<HeldBack>,
}

fn too_young(label: &str, cooldown: &Cooldown<'_>, held: &[HeldBack], place: &str) -> Failure {
    let message = if held.is_empty() {
        format!("{place} has no version to take")
    } else {
        format!(
            "every version at {place} is younger than {}: {}",
            cooldown.named(),
            describe_all(held, cooldown.now)
        )
    };
    Failure::refused(label, message)
        .hint("name a version exactly to take it now, or wait until it is old enough")
}

/// The versions the project's index records for the squad of `repository`
/// (`…/<namespace>/<id>`), whose location is in that repository; with the index's URL.
/// `None` when the project declares no index or the index does not list the squad there.
pub fn records_of(
    client: Option<&crate::http::Client>,
    cache: Option<&crate::cache::Cache>,
    index: Option<&IndexConfig>,
    label: &str,
    repository: &Reference,
) -> Result<Option<(String, Vec<VersionEntry>)>, Failure> {
    let Some(config) = index else {
        return Ok(None);
    };
    let mut segments = repository.repository.rsplit('/');
    let (Some(id), Some(namespace)) = (segments.next(), segments.next()) else {
        return Ok(None);
    };
    let opened = super::by_index::open(config, client, cache, label)?;
    let found = opened.squad(namespace, id);
    let Some(squad) = found.map_err(|error| super::by_index::failure(label, &error))? else {
        return Ok(None);
    };
    let wanted = repository.repository_only().to_string();
    let records: Vec<VersionEntry> = squad
        .versions
        .into_iter()
        .filter(|entry| {
            Reference::parse(&entry.location)
                .is_ok_and(|location| location.repository_only().to_string() == wanted)
        })
        .collect();
    Ok((!records.is_empty()).then(|| (opened.url.to_string(), records)))
}

/// For a registry squad resolved anew without a version named (`add oci://…/<id>`, `sync` of a
/// declaration without `version`, tag or digest; with `newest`, `update`, which moves even a
/// named one): the declaration and pins the cooldown lets it be acquired with, the version
/// chosen and pinned to the package digest the index records, and the newer versions held
/// back. `None` when no cooldown applies (no policy, another source, a version named).
pub fn registry_unnamed(
    cooldown: Option<&Cooldown<'_>>,
    settings: &Settings<'_>,
    index: Option<&IndexConfig>,
    label: &str,
    declaration: &Declaration,
    newest: bool,
) -> Result<Option<(Declaration, Pins, Vec<HeldBack>)>, Failure> {
    let (Some(cooldown), Source::Registry(reference)) = (cooldown, &declaration.source) else {
        return Ok(None);
    };
    let named =
        reference.tag.is_some() || reference.digest.is_some() || declaration.version.is_some();
    if named && !newest {
        return Ok(None);
    }
    let picked = cooldown.pick_in_registry(
        (settings.client, Some(&settings.cache)),
        index,
        label,
        reference,
    )?;
    let repository = reference.repository_only();
    let chosen = Declaration {
        source_text: repository.to_string(),
        source: Source::Registry(repository),
        version: Some(picked.version.clone()),
        sha256: None,
    };
    let pins = Pins {
        exact: Exact {
            version: Some(picked.version),
            digest: picked.package_digest,
            ..Exact::default()
        },
        by: "the project's index",
        ..Pins::default()
    };
    Ok(Some((chosen, pins, picked.held_back)))
}

/// What the cooldown held back and what was taken instead, to follow the squad's name.
pub fn note(held: &[HeldBack], took: &str, cooldown: &Cooldown<'_>) -> String {
    format!(
        "{}: younger than {}; took {took}",
        describe_all(held, cooldown.now),
        cooldown.named()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_days_hours_or_minutes() {
        let seconds = |text: &str| ReleaseAge::parse(text).map(|age| age.seconds);
        assert_eq!(seconds("3d"), Ok(259_200));
        assert_eq!(seconds("12h"), Ok(43_200));
        assert_eq!(seconds("90m"), Ok(5_400));
        assert_eq!(seconds("0d"), Ok(0));
        for bad in [
            "",
            "3",
            "d",
            "3 d",
            "-3d",
            "+3d",
            "1.5d",
            "3w",
            "3D",
            "9999999999d",
            "3651d",
        ] {
            assert!(seconds(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ages_are_said_in_the_largest_readable_unit() {
        assert_eq!(age_text(59), "0 min");
        assert_eq!(age_text(3_660), "1 h 1 min");
        assert_eq!(age_text(90_000), "1 d 1 h");
        assert_eq!(age_text(-5), "0 min");
    }
}
