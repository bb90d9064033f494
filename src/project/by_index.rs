//! A squad taken by name from the project's index (`squads.jsonc` `index`, docs/index.md):
//! `squad add acme/review` finds the squad in the index, takes its newest version that is not
//! yanked, and declares where that version is (a registry repository with its `version`, or
//! an `https://` archive with its `sha256`), so that the lock pins exactly those bytes. What
//! is installed must be what the index says: the index's package digest and identity are
//! pins of the acquisition, checked on the bytes installed (a registry or server that serves
//! anything else is refused).

use std::path::Path;

use crate::acquire::{Pins, Source};
use crate::index::IndexError;
use crate::index::fetch::Index;
use crate::install::Exact;

use super::cooldown::{Cooldown, HeldBack};
use super::declared::{Declaration, IndexConfig};
use super::{Failure, Project, ProjectError, Settings};

/// What a name resolves to through the index.
pub struct FromIndex {
    pub declaration: Declaration,
    pub pins: Pins,
    /// Newer versions `minimum_release_age` held back (PRJ-14).
    pub held_back: Vec<HeldBack>,
}

/// Whether a command-line argument is a squad's name rather than a source: `namespace/id` or
/// an id, that is no path from `cwd`.
pub fn is_name(text: &str, cwd: &Path) -> bool {
    let name_like = crate::manifest::squad_name(text).is_ok() || crate::text::is_kebab_id(text);
    name_like && !cwd.join(text).exists()
}

/// Resolves `name` through the project's index, or `None` when `name` is a source (a path,
/// a URL, a reference) rather than a name.
pub fn resolve(
    project: &Project,
    settings: &Settings<'_>,
    name: &str,
    cwd: &Path,
) -> Result<Option<FromIndex>, ProjectError> {
    if !is_name(name, cwd) {
        return Ok(None);
    }
    let files = project.read()?;
    let Some(config) = files.declared.index else {
        return Err(ProjectError::Usage(format!(
            "`{name}` is not a folder, archive or URL, and the project's squads.jsonc has no `index` to find a squad by name in (docs/index.md)"
        )));
    };
    let cooldown = Cooldown::of(files.declared.minimum_release_age.as_ref());
    find(&config, settings, name, None, cooldown.as_ref())
        .map(Some)
        .map_err(|failure| ProjectError::Failed(vec![failure]))
}

/// A squad declared with `"index": true`: the source the project's index gives for it (its
/// `version`, else the newest not yanked and old enough for `cooldown`), pinned to the index's
/// digests, to acquire it from; with the newer versions the cooldown held back.
pub fn resolve_declared(
    config: Option<&IndexConfig>,
    settings: &Settings<'_>,
    name: &super::declared::Name,
    version: Option<&str>,
    cooldown: Option<&Cooldown<'_>>,
) -> Result<(Declaration, Pins, Vec<HeldBack>), Failure> {
    let config = required(config, &name.to_string())?;
    let found = find(config, settings, &name.to_string(), version, cooldown)?;
    // Acquired from exactly the version's location: a registry's pinned reference as it is.
    let source_text = match (
        &found.declaration.source,
        found.pins.manifest_digest.as_deref(),
    ) {
        (Source::Registry(reference), Some(digest)) => reference.with_digest(digest).to_string(),
        _ => found.declaration.source_text.clone(),
    };
    let source = Source::parse(&source_text)
        .map_err(|message| Failure::refused(name.to_string(), message))?;
    Ok((
        Declaration {
            source,
            source_text,
            version: None,
            sha256: found.declaration.sha256,
        },
        found.pins,
        found.held_back,
    ))
}

/// The project's index of a squad declared with `"index": true`, or the refusal that says
/// squads.jsonc declares none.
pub fn required<'c>(
    config: Option<&'c IndexConfig>,
    label: &str,
) -> Result<&'c IndexConfig, Failure> {
    config.ok_or_else(|| {
        Failure::refused(
            label,
            "it is declared with `\"index\": true`, but squads.jsonc has no `index`",
        )
        .hint("add the index's URL as `index` in squads.jsonc (docs/index.md)")
    })
}

/// An index error as the failure of the squad `label`, with the error's hint.
pub fn failure(label: &str, error: &IndexError) -> Failure {
    Failure {
        hint: error.hint(),
        ..Failure::of(label, error, error.class())
    }
}

/// The project's index, its root fetched (or taken from the cache) and checked against the
/// project's `index_key`, on behalf of the squad `label`.
pub fn open<'a>(
    config: &'a IndexConfig,
    client: Option<&'a crate::http::Client>,
    cache: Option<&'a crate::cache::Cache>,
    label: &str,
) -> Result<Index<'a>, Failure> {
    let access = crate::index::fetch::Access {
        client,
        cache,
        trust: config.key.as_ref(),
        now: crate::env::now_utc(),
    };
    Index::open(&config.url, access).map_err(|error| failure(label, &error))
}

fn find(
    config: &IndexConfig,
    settings: &Settings<'_>,
    name: &str,
    version: Option<&str>,
    cooldown: Option<&Cooldown<'_>>,
) -> Result<FromIndex, Failure> {
    let failed = |error: IndexError| failure(name, &error);
    let index = open(config, settings.client, Some(&settings.cache), name)?;
    let squad = index.find(name).map_err(failed)?;
    let mut held_back = Vec::new();
    let entry = match version {
        Some(version) => squad
            .versions
            .iter()
            .find(|entry| entry.version == version)
            .ok_or_else(|| {
                Failure::refused(
                    squad.name(),
                    format!("the index {} has no version {version} of it", index.url),
                )
            })?,
        // Unnamed under a cooldown: the newest old enough, by the index's publish times.
        None => match cooldown {
            Some(cooldown) => {
                let (entry, held) = cooldown.pick_in_index(&squad, index.url.as_str())?;
                held_back = held;
                entry
            }
            None => squad.newest().ok_or_else(|| {
                Failure::refused(
                    squad.name(),
                    format!("every version of it in the index {} is yanked", index.url),
                )
            })?,
        },
    };
    let source_text = index.source_of(&entry.location).map_err(failed)?;
    let refused = |message: String| Failure::refused(squad.name(), message);
    let package_digest = crate::digest::Sha256Digest::parse(&entry.package_digest)
        .ok_or_else(|| refused("the index's package digest is not 64 hex".to_owned()))?;
    let archive_sha256 = crate::digest::Sha256Digest::parse(&entry.archive_sha256)
        .ok_or_else(|| refused("the index's archive SHA-256 is not 64 hex".to_owned()))?;
    let source = Source::parse(&source_text).map_err(|message| {
        refused(format!(
            "the index locates {} at `{}`: {message}",
            entry.version,
            crate::text::remote(&source_text, 200)
        ))
    })?;
    let mut pins = Pins {
        exact: Exact {
            namespace: Some(squad.namespace.clone()),
            id: Some(squad.id.clone()),
            version: Some(entry.version.clone()),
            digest: Some(package_digest),
        },
        archive_sha256: Some(archive_sha256),
        archive_bytes: Some(entry.archive_bytes),
        by: "the index",
        ..Pins::default()
    };
    let declaration = match source {
        // A registry squad is declared by repository and version; the lock pins its digest.
        Source::Registry(reference) => {
            pins.manifest_digest = reference.digest.clone();
            let repository = reference.repository_only().to_string();
            Declaration {
                source: Source::parse(&repository).map_err(refused)?,
                source_text: repository,
                version: Some(entry.version.clone()),
                sha256: None,
            }
        }
        Source::Https(_) => Declaration {
            source,
            source_text,
            version: None,
            sha256: Some(archive_sha256),
        },
        other => {
            return Err(refused(format!(
                "the index locates {} at a {} source; an index points at registries and https:// archives",
                entry.version,
                other.kind()
            )));
        }
    };
    Ok(FromIndex {
        declaration,
        pins,
        held_back,
    })
}
