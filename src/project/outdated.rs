//! `squad outdated`: for each registry squad and each squad of the project's index, the versions
//! published after the one locked, in release order (`YYYY.MM.DD.N`). Other sources fix their
//! own bytes and are listed as such. Nothing is written.

use serde::Serialize;

use crate::http::Client;
use crate::version::Version;

use super::cooldown::{Cooldown, HeldBack};
use super::declared::IndexConfig;
use super::{Failure, Project, ProjectError, Task, run_jobs};
use crate::acquire::source::Source;

/// One declared squad and what is newer.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub name: String,
    pub kind: &'static str,
    /// The kind as people read it ([`Source::noun`]).
    #[serde(skip)]
    pub noun: &'static str,
    pub source: String,
    /// The version locked, if it is locked.
    pub locked: Option<String>,
    /// The newest version published (registry squads; the newest not yanked for index squads).
    pub latest: Option<String>,
    /// The versions published after the locked one, newest first.
    pub newer: Vec<String>,
    /// What squads.jsonc pins a registry squad with, `version`, `tag` or `digest`, when it
    /// pins it (`update` moves the pin too).
    pub pinned_by: Option<&'static str>,
    /// The manifest the locked version's tag names now, when it is not the one locked: the tag
    /// was moved to other bytes (`update` takes them; `sync` keeps the locked ones).
    pub tag_moved_to: Option<String>,
    /// Of `newer`, the versions squads.jsonc's `minimum_release_age` holds back (PRJ-14):
    /// younger than it by the project's index, or of unknown age (no record; `update` then
    /// refuses the squad unless a version is named). Empty without the policy.
    pub held_back: Vec<HeldBack>,
}

pub fn outdated(
    project: &Project,
    client: &Client,
    cache: Option<&crate::cache::Cache>,
    jobs: usize,
) -> Result<(Vec<Row>, Vec<Failure>), ProjectError> {
    let files = project.read()?;
    if files.declared_text.is_none() {
        return Err(ProjectError::Undeclared(project.declared_path()));
    }
    let cooldown = Cooldown::of(files.declared.minimum_release_age.as_ref());
    let cooldown = cooldown.as_ref();
    let index = files.declared.index.as_ref();
    let tasks: Vec<Task<'_, Result<Row, Failure>>> = files
        .declared
        .entries
        .iter()
        .map(|entry| {
            let entry_locked = files
                .lock
                .squads
                .get(&entry.name.to_string())
                .filter(|locked| locked.agrees_with(&entry.declaration));
            let locked = entry_locked.map(|locked| locked.version.clone());
            let locked_manifest = entry_locked
                .and_then(|locked| locked.manifest_digest())
                .map(str::to_owned);
            let declaration = &entry.declaration;
            let mut row = Row {
                name: entry.name.to_string(),
                kind: declaration.source.kind(),
                noun: declaration.source.noun(),
                source: declaration.source_text.clone(),
                locked,
                latest: None,
                newer: Vec::new(),
                pinned_by: None,
                tag_moved_to: None,
                held_back: Vec::new(),
            };
            Box::new(move || {
                if declaration.source == Source::Index {
                    row.pinned_by = declaration.version.is_some().then_some("version");
                    return in_index(row, client, cache, index, cooldown);
                }
                let Source::Registry(reference) = &declaration.source else {
                    return Ok(row);
                };
                row.pinned_by = if reference.digest.is_some() {
                    Some("digest")
                } else if reference.tag.is_some() {
                    Some("tag")
                } else if declaration.version.is_some() {
                    Some("version")
                } else {
                    None
                };
                let listed = crate::share::versions(client, &reference.repository_only(), false)
                    .map_err(|error| Failure {
                        hint: error.hint(),
                        ..Failure::of(row.name.clone(), &error, error.class())
                    })?;
                row.latest = listed.first().map(|listed| listed.version.clone());
                let current = row
                    .locked
                    .as_deref()
                    .and_then(|text| Version::parse(text).ok());
                row.newer = newer_than(
                    current.as_ref(),
                    listed.iter().map(|listed| listed.version.as_str()),
                );
                if let Some(cooldown) = cooldown.filter(|_| !row.newer.is_empty()) {
                    let repository = reference.repository_only();
                    let records = super::cooldown::records_of(
                        Some(client),
                        cache,
                        index,
                        &row.name,
                        &repository,
                    )?;
                    row.held_back = cooldown.held_back_of(
                        &row.newer,
                        records.as_ref().map(|(_, records)| records.as_slice()),
                    );
                }
                if let (Some(version), Some(manifest), None) =
                    (&row.locked, &locked_manifest, &reference.digest)
                {
                    let repository = reference.repository_only();
                    let mut session = crate::oci::Repository::new(
                        client,
                        &repository,
                        crate::oci::Access::Pull,
                        crate::oci::Credentials::Configured,
                    );
                    if let Ok(Some(now)) = crate::share::tag_digest(&mut session, version) {
                        row.tag_moved_to = (now != *manifest).then_some(now);
                    }
                }
                Ok(row)
            }) as Task<'_, Result<Row, Failure>>
        })
        .collect();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for result in run_jobs(jobs, tasks) {
        match result {
            Ok(row) => rows.push(row),
            Err(failure) => failures.push(failure),
        }
    }
    Ok((rows, failures))
}

/// The versions after `current` (all of them when nothing is locked), in the order given.
fn newer_than<'v>(
    current: Option<&Version>,
    versions: impl Iterator<Item = &'v str>,
) -> Vec<String> {
    versions
        .filter(|text| {
            let version = Version::parse(text).ok();
            match (current, version) {
                (Some(current), Some(version)) => version > *current,
                _ => current.is_none(),
            }
        })
        .map(str::to_owned)
        .collect()
}

/// A squad declared with `"index": true`: what the project's index lists after the locked
/// version (yanked versions are never taken, so never offered), and what the cooldown holds
/// back of it by the index's own publish times.
fn in_index(
    mut row: Row,
    client: &Client,
    cache: Option<&crate::cache::Cache>,
    index: Option<&IndexConfig>,
    cooldown: Option<&Cooldown<'_>>,
) -> Result<Row, Failure> {
    let config = super::by_index::required(index, &row.name)?;
    let opened = super::by_index::open(config, Some(client), cache, &row.name)?;
    let squad = opened
        .find(&row.name)
        .map_err(|error| super::by_index::failure(&row.name, &error))?;
    let taken = squad.versions.iter().filter(|entry| !entry.yanked);
    row.latest = squad.newest().map(|entry| entry.version.clone());
    let current = row
        .locked
        .as_deref()
        .and_then(|text| Version::parse(text).ok());
    row.newer = newer_than(current.as_ref(), taken.map(|entry| entry.version.as_str()));
    if let Some(cooldown) = cooldown.filter(|_| !row.newer.is_empty()) {
        row.held_back = cooldown.held_back_of(&row.newer, Some(&squad.versions));
    }
    Ok(row)
}
