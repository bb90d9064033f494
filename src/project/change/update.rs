//! `squad update`: each locked squad moved to its newest version (old enough under a cooldown,
//! within the grants the lock accepted under `deny_escalation`), a declared version, tag or
//! digest moved with it; `--dry-run` plans the same and changes nothing.

use std::path::Path;

use crate::acquire::Acquired;
use crate::acquire::source::Source;
use crate::project::cooldown::{self, Cooldown, HeldBack};
use crate::project::declared::{self, Declaration, Name};
use crate::project::escalation;
use crate::project::lockfile::Locked;
use crate::project::resolve::{self, Downloads};
use crate::project::sync::Outcome;
use crate::project::{Failure, Project, ProjectError, Settings, Task, run_jobs};

use super::*;

/// What `update` did to one squad.
#[derive(Debug)]
pub struct Updated {
    pub name: String,
    /// The version locked before, if any.
    pub from: Option<String>,
    pub outcome: Outcome,
    /// Whether squads.jsonc was rewritten for it (a declared version, tag or digest moved).
    pub declaration_changed: bool,
    /// The manifest locked before, when the same version's tag now names another: the tag was
    /// moved to other bytes, which this update took.
    pub tag_moved_from: Option<String>,
    /// Newer versions `minimum_release_age` held back (PRJ-14), and the line that says so.
    pub held_back: Vec<HeldBack>,
    pub held_back_note: Option<String>,
}

/// The manifest `previous` locked, when `locked` is the same version at another manifest (a
/// registry tag moved to other bytes).
pub(super) fn tag_moved_from(previous: Option<&Locked>, locked: &Locked) -> Option<String> {
    let previous = previous?;
    let before = previous.manifest_digest()?;
    (previous.version == locked.version && Some(before) != locked.manifest_digest())
        .then(|| before.to_owned())
}

/// The declaration that asks for a registry squad's new resolution: a declared version, tag or
/// digest moves with it; a source that names none stays as written.
pub(super) fn moved(declaration: &Declaration, locked: &Locked) -> Declaration {
    if declaration.source == Source::Index {
        // A version declared for a squad of the index moves with it.
        let mut moved = declaration.clone();
        if moved.version.is_some() {
            moved.version = Some(locked.version.clone());
        }
        return moved;
    }
    let Source::Registry(reference) = &declaration.source else {
        return declaration.clone();
    };
    let version = &locked.version;
    let mut moved = declaration.clone();
    let source = if reference.tag.is_some() {
        Some(reference.repository_only().with_tag(version))
    } else if reference.digest.is_some() {
        locked
            .manifest_digest()
            .map(|digest| reference.repository_only().with_digest(digest))
    } else {
        None
    };
    if let Some(source) = source {
        moved.source_text = source.to_string();
        moved.source = Source::Registry(source);
    }
    if moved.version.is_some() {
        moved.version = Some(version.clone());
    }
    moved
}

/// One squad `update` resolved anew: the acquisition and the newer versions the cooldown held
/// back.
type Fetched = Result<(Acquired, Vec<HeldBack>), Failure>;

/// What `squad update` is asked to do.
#[derive(Debug, Clone, Copy, Default)]
pub struct UpdateRequest<'a> {
    /// Only this squad (`<namespace>/<id>` or its id).
    pub only: Option<&'a str>,
    /// Under `deny_escalation`: grants beyond those locked are accepted and recorded.
    pub accept_grants: bool,
    /// Resolve and judge, install and write nothing.
    pub dry_run: bool,
}

/// What an update would do (`--dry-run`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Planned {
    pub name: String,
    /// The version locked now, if any.
    pub from: Option<String>,
    pub to: String,
    pub resolved: String,
    /// The grants the new version holds beyond those the lock accepted (or, without a record,
    /// beyond the installed version's): `built_in_tool_ids +bash; …`, empty when none;
    /// `None` when there is nothing to compare with.
    pub adds: Option<String>,
    /// The real run would refuse it (`deny_escalation` without `--accept-grants`).
    pub refused: bool,
    /// The manifest locked now, when the same version's tag names another (see [`Updated`]).
    pub tag_moved_from: Option<String>,
    /// Newer versions `minimum_release_age` holds back (PRJ-14).
    pub held_back: Vec<HeldBack>,
    #[serde(skip)]
    pub held_back_note: Option<String>,
}

/// What `squad update` did, or would do with `--dry-run`.
#[derive(Debug, Default)]
pub struct UpdateReport {
    pub updated: Vec<Updated>,
    pub planned: Vec<Planned>,
    pub failures: Vec<Failure>,
}

/// The grants a squad held before an update: the lock's record, else the installed package's.
pub(super) fn held_before(
    project: &Project,
    settings: &Settings<'_>,
    name: &Name,
    previous: Option<&Locked>,
) -> Option<crate::capability::accepted::Accepted> {
    if let Some(accepted) = previous.and_then(|locked| locked.capabilities.clone()) {
        return Some(accepted);
    }
    let target = project
        .locations(&settings.opencorvus_root)
        .target(&name.namespace, &name.id);
    if !target.is_dir() {
        return None;
    }
    let acquired = resolve::Acquirer {
        project,
        settings,
        policy: &crate::sign::Policy::default(),
        installs: false,
    }
    .installed(&name.to_string(), &target)
    .ok()?;
    escalation::capabilities(name, &acquired)
        .ok()
        .map(|capabilities| crate::capability::accepted::Accepted::of(&capabilities.total))
}

pub fn update(
    project: &Project,
    settings: &Settings<'_>,
    request: &UpdateRequest<'_>,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<UpdateReport, ProjectError> {
    let only = request.only;
    let (_guard, files) = project.lock_and_read(true, on_wait)?;
    let entries: Vec<&declared::Entry> = match only {
        Some(wanted) => vec![
            files
                .declared
                .find(wanted)
                .ok_or_else(|| ProjectError::NotDeclared(wanted.to_owned()))?,
        ],
        None => files.declared.entries.iter().collect(),
    };
    let downloads = Downloads::new(settings.transfers);
    let policy = &files.declared.policy;
    let index = files.declared.index.as_ref();
    let cooldown = Cooldown::of(files.declared.minimum_release_age.as_ref());
    let cooldown = cooldown.as_ref();
    let tasks: Vec<Task<'_, Fetched>> = entries
        .iter()
        .map(|entry| {
            let downloads = &downloads;
            Box::new(move || {
                let job = downloads.job();
                let label = entry.name.to_string();
                // A squad of the project's index: its newest version there (old enough, under
                // a cooldown); a registry squad under a cooldown: the newest old enough.
                let (declaration, pins, newest, held_back) = match &entry.declaration.source {
                    Source::Index => {
                        let (declaration, pins, held) = crate::project::by_index::resolve_declared(
                            index,
                            settings,
                            &entry.name,
                            None,
                            cooldown,
                        )?;
                        (declaration, pins, true, held)
                    }
                    _ => match cooldown::registry_unnamed(
                        cooldown,
                        settings,
                        index,
                        &label,
                        &entry.declaration,
                        true,
                    )? {
                        Some((declaration, pins, held)) => (declaration, pins, false, held),
                        None => (
                            entry.declaration.clone(),
                            resolve::declared_pins(&entry.declaration),
                            true,
                            Vec::new(),
                        ),
                    },
                };
                let acquired = resolve::Acquirer {
                    project,
                    settings,
                    policy,
                    installs: !request.dry_run,
                }
                .acquire(&job, &label, &declaration, &pins, newest)?;
                resolve::check_name(
                    &entry.name,
                    acquired.identity(),
                    &entry.declaration.source_text,
                )?;
                Ok((acquired, held_back))
            }) as Task<'_, Fetched>
        })
        .collect();
    let results = run_jobs(settings.jobs, tasks);
    downloads.end();
    let mut acquisitions = Vec::new();
    let mut failures = Vec::new();
    for (entry, result) in entries.iter().zip(results) {
        match result {
            Ok((acquired, held_back)) => acquisitions.push((*entry, acquired, held_back)),
            Err(failure) => failures.push(failure),
        }
    }
    if !failures.is_empty() {
        return Err(ProjectError::Failed(failures));
    }
    let mut text = files.declared_text.clone().unwrap_or_default();
    let mut lock = files.lock.clone();
    let mut report = UpdateReport::default();
    for (entry, acquired, held_back) in acquisitions {
        let held_back_note = cooldown
            .filter(|_| !held_back.is_empty())
            .map(|cooldown| cooldown::note(&held_back, &acquired.identity().version, cooldown));
        let mut locked = resolve::locked(&entry.declaration, &acquired);
        let declaration = moved(&entry.declaration, &locked);
        locked.source = declaration.source_text.clone();
        let key = entry.name.to_string();
        let previous = files.lock.squads.get(&key);
        let judged = judge_escalation(
            &files,
            request.accept_grants,
            &entry.name,
            &locked,
            &acquired,
        );
        if request.dry_run {
            let adds = held_before(project, settings, &entry.name, previous).and_then(|held| {
                let total = escalation::capabilities(&entry.name, &acquired).ok()?.total;
                Some(held.widening(&total).describe())
            });
            report.planned.push(Planned {
                name: key,
                from: previous.map(|locked| locked.version.clone()),
                to: locked.version.clone(),
                resolved: locked.resolved.clone(),
                adds,
                refused: judged.is_err(),
                tag_moved_from: tag_moved_from(previous, &locked),
                held_back,
                held_back_note,
            });
            if let Err(failure) = judged {
                report.failures.push(failure);
            }
            continue;
        }
        match judged {
            Ok(record) => locked.capabilities = record,
            Err(failure) => {
                report.failures.push(failure);
                continue;
            }
        }
        let outcome = match bring_in(
            project,
            settings,
            &entry.name,
            &declaration,
            &locked,
            acquired,
            on_wait,
        ) {
            Ok(outcome) => outcome,
            Err(failure) => {
                report.failures.push(failure);
                continue;
            }
        };
        let declaration_changed = declaration != entry.declaration;
        if declaration_changed {
            text = declared::set_entry(&text, &entry.name, &declaration).map_err(|message| {
                ProjectError::Io(project.declared_path(), std::io::Error::other(message))
            })?;
        }
        let from = previous.map(|locked| locked.version.clone());
        let tag_moved_from = tag_moved_from(previous, &locked);
        lock.squads.insert(key.clone(), locked);
        report.updated.push(Updated {
            name: key,
            from,
            outcome,
            declaration_changed,
            tag_moved_from,
            held_back,
            held_back_note,
        });
    }
    if request.dry_run {
        return Ok(report);
    }
    if Some(&text) != files.declared_text.as_ref() {
        project.write_declared(&text)?;
    }
    crate::env::failpoint("update-declared");
    if lock != files.lock || files.lock_text.is_none() {
        project.write_lock(&lock)?;
    }
    Ok(report)
}
