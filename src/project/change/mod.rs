//! `squad add`, `squad remove` and `squad update`: change which squads a project declares, or
//! the versions it locks, in both files. Each resolves and installs before it writes, writes
//! `squads.jsonc` before `squads.lock` (a crash in between leaves a declared squad the next
//! sync locks), and edits `squads.jsonc` in place so comments survive.

use std::path::{Path, PathBuf};

use crate::digest::Sha256Digest;

use super::cooldown::{self, Cooldown, HeldBack};
use super::declared::{self, Declaration, Name};
use super::escalation::{self, Escalation};
use super::lockfile::Locked;
use super::resolve::{self, Downloads};
use super::sync::{Installed, Outcome, install, unchanged};
use super::{Failure, Files, Project, ProjectError, Settings};
use crate::acquire::Acquired;
use crate::acquire::source::Source;

mod update;

pub use update::*;

/// A source as given on the command line, and the SHA-256 given with it.
pub struct AddRequest<'a> {
    pub source: &'a str,
    pub sha256: Option<Sha256Digest>,
    /// The directory relative paths are given from.
    pub cwd: &'a Path,
    /// `--accept-grants`: under `deny_escalation`, grants beyond those locked are accepted.
    pub accept_grants: bool,
}

/// How `squads.jsonc` changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Declared {
    Added,
    Changed,
    Unchanged,
}

#[derive(Debug)]
pub struct Added {
    pub name: Name,
    pub declared: Declared,
    pub outcome: Outcome,
    /// Newer versions `minimum_release_age` held back (PRJ-14), and the line that says so.
    pub held_back: Vec<HeldBack>,
    pub held_back_note: Option<String>,
}

/// `path` relative to `base` (both absolute), `/`-separated.
fn relative_path(base: &Path, path: &Path) -> String {
    let base: Vec<_> = base.components().collect();
    let path: Vec<_> = path.components().collect();
    let common = base.iter().zip(&path).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> =
        std::iter::repeat_n("..".to_owned(), base.len() - common).collect();
    parts.extend(
        path[common..]
            .iter()
            .map(|part| part.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// The declaration a command-line source makes: a path is made relative to the project, a
/// registry tag becomes the entry's `version`.
fn declaration_of(
    project: &Project,
    request: &AddRequest<'_>,
) -> Result<Declaration, ProjectError> {
    let usage = ProjectError::Usage;
    let text = request.source;
    let remote = crate::oci::reference::is_reference(text)
        || crate::share::link::is_link(text)
        || text.contains("://");
    let (source_text, version) = if remote {
        match Source::parse(text).map_err(usage)? {
            Source::Registry(reference) if reference.digest.is_none() => (
                reference.repository_only().to_string(),
                reference.tag.clone(),
            ),
            _ => (text.to_owned(), None),
        }
    } else {
        let absolute = request.cwd.join(text).canonicalize().map_err(|error| {
            let meant = (!request.cwd.join(text).exists())
                .then(|| crate::acquire::source::registry_meant(text))
                .flatten()
                .map(|meant| format!("; did you mean `{meant}`?"))
                .unwrap_or_default();
            usage(format!("cannot use `{text}`: {error}{meant}"))
        })?;
        (relative_path(&project.root, &absolute), None)
    };
    let source = Source::parse(&source_text).map_err(usage)?;
    match (&source, request.sha256) {
        (Source::Https(url), None) => {
            return Err(usage(format!(
                "an {}:// archive source needs the SHA-256 of its archive: pass --sha256 <64 hex>",
                url.scheme()
            )));
        }
        (Source::Https(_), Some(_)) | (_, None) => {}
        (other, Some(_)) => {
            return Err(usage(format!(
                "--sha256 is for https:// sources; a {} source is checked by its own digests",
                other.noun()
            )));
        }
    }
    Ok(Declaration {
        source,
        source_text,
        version,
        sha256: request.sha256,
    })
}

/// The other declared squad with the same id (one id per project scope), if any.
fn same_id<'f>(files: &'f Files, name: &Name) -> Option<&'f Name> {
    files
        .declared
        .entries
        .iter()
        .map(|entry| &entry.name)
        .find(|other| other.id == name.id && other.namespace != name.namespace)
}

/// A new version of `name` under the project's policies: its audit findings (findings.rs), then
/// its grants against its lock entry under `deny_escalation` (escalation.rs). Returns the record
/// of accepted grants to lock.
fn judge_escalation(
    files: &Files,
    accept: bool,
    name: &Name,
    locked: &Locked,
    acquired: &Acquired,
) -> Result<Option<crate::capability::accepted::Accepted>, Failure> {
    let policy = Escalation {
        deny: files.declared.deny_escalation,
        accept,
    };
    let capabilities = escalation::capabilities(name, acquired)?;
    super::findings::judge(&files.declared.audit, name, acquired, &capabilities)?;
    if !policy.deny {
        return Ok(None);
    }
    let total = capabilities.total;
    escalation::judge(
        policy,
        name,
        &locked.version,
        files.lock.squads.get(&name.to_string()),
        &total,
    )
}

/// Installs an acquired squad unless it is installed already.
fn bring_in(
    project: &Project,
    settings: &Settings<'_>,
    name: &Name,
    declaration: &Declaration,
    locked: &Locked,
    acquired: Acquired,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Outcome, Failure> {
    let locations = project.locations(&settings.opencorvus_root);
    let entry = (name, declaration);
    match Installed::of(&locations, name) {
        Installed::Digest(digest) if digest == locked.package_digest => {
            Ok(unchanged(&locations, entry, locked))
        }
        Installed::Unreadable(target, problem) => Err(Failure::refused(
            name.to_string(),
            format!(
                "the package installed at `{}` cannot be read ({problem}); squad does not replace it",
                target.display()
            ),
        )),
        installed => install(
            settings,
            project,
            entry,
            locked,
            acquired,
            installed.digest(),
            on_wait,
        ),
    }
}

pub fn add(
    project: &Project,
    settings: &Settings<'_>,
    request: &AddRequest<'_>,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Added, ProjectError> {
    // A name rather than a source: found in the project's index, pinned to what it says.
    let (declaration, pins, mut held_back) =
        match super::by_index::resolve(project, settings, request.source, request.cwd)? {
            Some(found) => (found.declaration, found.pins, found.held_back),
            None => {
                let declaration = declaration_of(project, request)?;
                let pins = resolve::declared_pins(&declaration);
                (declaration, pins, Vec::new())
            }
        };
    let (_guard, files) = project.lock_and_read(false, on_wait)?;
    let cooldown = Cooldown::of(files.declared.minimum_release_age.as_ref());
    // A registry repository without a version: the newest the cooldown lets through (PRJ-14);
    // squads.jsonc still declares the repository alone, as written.
    let unnamed = cooldown::registry_unnamed(
        cooldown.as_ref(),
        settings,
        files.declared.index.as_ref(),
        &declaration.source_text,
        &declaration,
        false,
    )
    .map_err(|failure| ProjectError::Failed(vec![failure]))?;
    let (acquired_from, pins) = match unnamed {
        Some((chosen, pins, held)) => {
            held_back = held;
            (chosen, pins)
        }
        None => (declaration.clone(), pins),
    };
    let downloads = Downloads::new(settings.transfers);
    let job = downloads.job();
    let acquired = resolve::Acquirer {
        project,
        settings,
        policy: &files.declared.policy,
        installs: true,
    }
    .acquire(&job, &declaration.source_text, &acquired_from, &pins, false);
    downloads.end();
    let acquired = acquired.map_err(|failure| ProjectError::Failed(vec![failure]))?;
    let identity = acquired.identity();
    let name = Name {
        namespace: identity.namespace.clone(),
        id: identity.id.clone(),
    };
    if let Some(other) = same_id(&files, &name) {
        return Err(ProjectError::Failed(vec![Failure::refused(
            name.to_string(),
            format!(
                "`{other}` is declared already: a project scope holds one package per id, whatever its namespace"
            ),
        )
        .hint(format!("`squad remove {other}` first"))]));
    }
    let mut locked = resolve::locked(&declaration, &acquired);
    locked.capabilities =
        judge_escalation(&files, request.accept_grants, &name, &locked, &acquired)
            .map_err(|failure| ProjectError::Failed(vec![failure]))?;
    let outcome = bring_in(
        project,
        settings,
        &name,
        &declaration,
        &locked,
        acquired,
        on_wait,
    )
    .map_err(|failure| ProjectError::Failed(vec![failure]))?;
    let declared_state = match files.declared.get(&name) {
        None => Declared::Added,
        Some(entry) if entry.declaration == declaration => Declared::Unchanged,
        Some(_) => Declared::Changed,
    };
    if declared_state != Declared::Unchanged {
        let text = match &files.declared_text {
            Some(text) => declared::set_entry(text, &name, &declaration),
            None => Ok(declared::new_file(&name, &declaration)),
        }
        .map_err(|message| {
            ProjectError::Io(project.declared_path(), std::io::Error::other(message))
        })?;
        project.write_declared(&text)?;
    }
    crate::env::failpoint("add-declared");
    let mut lock = files.lock.clone();
    lock.squads.insert(name.to_string(), locked);
    if lock != files.lock || files.lock_text.is_none() {
        project.write_lock(&lock)?;
    }
    let held_back_note = cooldown
        .filter(|_| !held_back.is_empty())
        .map(|cooldown| cooldown::note(&held_back, &outcome.version, &cooldown));
    Ok(Added {
        name,
        declared: declared_state,
        outcome,
        held_back,
        held_back_note,
    })
}

#[derive(Debug)]
pub struct Removed {
    pub name: String,
    /// Whether squads.jsonc and squads.lock named it.
    pub declared: bool,
    pub locked: bool,
    /// Where the package was, when it was installed and removed.
    pub uninstalled: Option<PathBuf>,
    /// The configs whose `prompt_profile.active` went back to `base` (UNI-2).
    pub reset: Vec<PathBuf>,
    /// Configs that selected it but could not be reset, and why.
    pub warnings: Vec<String>,
}

/// Removes a squad from both files and uninstalls it. A package whose files changed since it
/// was installed is refused before anything is written (both files and the package stay as
/// they are), unless `force`, which removes it with its changes.
pub fn remove(
    project: &Project,
    settings: &Settings<'_>,
    wanted: &str,
    force: bool,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Removed, ProjectError> {
    let (_guard, files) = project.lock_and_read(true, on_wait)?;
    let name = match files.declared.find(wanted) {
        Some(entry) => entry.name.clone(),
        None => files
            .lock
            .squads
            .keys()
            .filter_map(|name| Name::parse(name).ok())
            .find(|name| name.to_string() == wanted || name.id == wanted)
            .or_else(|| Name::parse(wanted).ok())
            .ok_or_else(|| ProjectError::NotDeclared(wanted.to_owned()))?,
    };
    let declared = files.declared.get(&name).is_some();
    let locked = files.lock.squads.contains_key(&name.to_string());
    let locations = project.locations(&settings.opencorvus_root);
    let installed = !matches!(Installed::of(&locations, &name), Installed::Absent);
    if !declared && !locked && !installed {
        return Err(ProjectError::NotDeclared(wanted.to_owned()));
    }
    let package = crate::install::PackageName {
        namespace: Some(name.namespace.clone()),
        id: name.id.clone(),
    };
    if installed && !force {
        // Refused here, before either file is written: the edits and the uninstall go together.
        let inspected =
            crate::install::inspect(&package, &[project.scope()], &settings.opencorvus_root);
        if let Ok((_, inspected)) = inspected {
            let changes = inspected.changes().unwrap_or_default();
            if !changes.is_empty() {
                let paths: Vec<String> = changes
                    .iter()
                    .map(|drift| crate::text::shown(&drift.path))
                    .collect();
                let error = crate::install::InstallError::Modified {
                    package: inspected.installed.label(),
                    root: inspected.installed.root.clone(),
                    changes,
                };
                return Err(ProjectError::Failed(vec![
                    Failure::refused(
                        name.to_string(),
                        format!("{error} ({})", paths.join(", ")),
                    )
                    .hint(
                        "pass --force to remove it with these changes, or copy what you need first",
                    ),
                ]));
            }
        }
    }
    if declared {
        let text = files.declared_text.as_deref().unwrap_or_default();
        let text = declared::remove_entry(text, &name).map_err(|message| {
            ProjectError::Io(project.declared_path(), std::io::Error::other(message))
        })?;
        project.write_declared(&text)?;
    }
    crate::env::failpoint("remove-declared");
    if locked {
        let mut lock = files.lock.clone();
        lock.squads.remove(&name.to_string());
        project.write_lock(&lock)?;
    }
    let mut reset = Vec::new();
    let mut warnings = Vec::new();
    let uninstalled = if installed {
        let options = settings.install_options(project);
        // Local changes to the installed files are kept, as `squad uninstall` keeps them,
        // unless `force`.
        let removal = crate::install::Removal { force };
        match crate::install::uninstall(&package, &options, &removal, on_wait) {
            Ok(removed) => {
                reset = removed.reset;
                warnings = removed.warnings;
                Some(removed.package.root)
            }
            Err(crate::install::InstallError::NotInstalled(_)) => None,
            Err(error) => {
                return Err(ProjectError::PartlyDone(vec![Failure::of(
                    name.to_string(),
                    &error,
                    error.class(),
                )
                .hint(format!(
                    "it was removed from squads.jsonc and squads.lock, but is still installed: `squad uninstall {} --scope project` removes it",
                    name.id
                ))]));
            }
        }
    } else {
        None
    };
    Ok(Removed {
        name: name.to_string(),
        declared,
        locked,
        uninstalled,
        reset,
        warnings,
    })
}

/// What `squad init` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Initialized {
    /// `squads.jsonc` was written (it was absent).
    pub created: bool,
    /// `.opencorvus/.gitignore` was written (it was absent).
    pub gitignore: bool,
    /// The project above this one, if any: commands run below this folder now use this one.
    pub enclosing: Option<PathBuf>,
}

/// Makes `project` a project on purpose: `.opencorvus/squads.jsonc` declaring no squad, and
/// `.opencorvus/.gitignore` for what must not be committed, each only when absent. A folder
/// inside another project becomes a project of its own, which [`super::discover`] finds first
/// from below it.
pub fn init(
    project: &Project,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Initialized, ProjectError> {
    let enclosing = project.root.parent().and_then(super::discover);
    let config_root = project.config_root();
    let ignore = config_root.join(crate::install::scope::GITIGNORE);
    let ignored_before = crate::fs::symlink_metadata(&ignore).is_ok();
    let (_guard, files) = project.lock_and_read(false, on_wait)?;
    crate::install::scope::write_gitignore(&config_root)
        .map_err(|error| ProjectError::Io(ignore.clone(), error))?;
    let created = files.declared_text.is_none();
    if created {
        project.write_declared(declared::EMPTY_FILE)?;
    }
    Ok(Initialized {
        created,
        gitignore: !ignored_before,
        enclosing,
    })
}

/// What `trust add` did, read back from the file it wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrustAdded {
    pub changed: bool,
    /// The key is in `revoked` too, which wins: it vouches for nothing.
    pub revoked: bool,
}

/// Trusts `key` for `namespace` (`*`: every namespace) in `squads.jsonc`, edited in place
/// (created when absent); with `require`, also sets `require_signatures`. The report is made
/// from the policy of the file as written.
pub fn trust(
    project: &Project,
    namespace: &str,
    key: &crate::sign::PublicKey,
    expires: Option<crate::version::Date>,
    require: bool,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<TrustAdded, ProjectError> {
    if namespace != crate::sign::policy::ANY_NAMESPACE {
        if let Some((_, problem)) =
            crate::manifest::id_problem(namespace, crate::manifest::IdKind::Package)
        {
            return Err(ProjectError::Usage(format!(
                "`{namespace}` is not a namespace (or `*` for every namespace): {problem}"
            )));
        }
    }
    let written = std::cell::RefCell::new(String::new());
    let changed = edit_declared(project, on_wait, &|text| {
        let text = declared::add_trusted(text, namespace, key, expires, require)?;
        written.replace(text.clone());
        Ok(text)
    })?;
    let (after, _) = declared::parse(&written.borrow());
    Ok(TrustAdded {
        changed,
        revoked: after.policy.revoked.contains(&key.id),
    })
}

/// What `trust remove` did, read back from the file it wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Untrusted {
    /// Entries of the key that went.
    pub removed: usize,
    /// The trust lists that still hold the key afterwards (`*` among them when it is trusted
    /// for every namespace): with `--namespace`, a key may still vouch for that namespace
    /// through `*`.
    pub still_trusted_in: Vec<String>,
}

/// Stops trusting `key` for `namespace` (every namespace when `None`). The report is made
/// from the policy of the file as written, so it says what is true afterwards.
pub fn untrust(
    project: &Project,
    key: crate::sign::KeyId,
    namespace: Option<&str>,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Untrusted, ProjectError> {
    // Nothing to take a key out of: no lock file or folder is made either.
    if !project.declared_path().exists() {
        return Ok(Untrusted::default());
    }
    let removed = std::cell::Cell::new(0);
    let written = std::cell::RefCell::new(String::new());
    edit_declared(project, on_wait, &|text| {
        let (text, count) = declared::remove_trusted(text, key, namespace)?;
        removed.set(count);
        written.replace(text.clone());
        Ok(text)
    })?;
    let (after, _) = declared::parse(&written.borrow());
    let mut still_trusted_in: Vec<String> = after
        .policy
        .trusted
        .iter()
        .filter(|trusted| trusted.key.id == key)
        .map(|trusted| trusted.namespace.clone())
        .collect();
    still_trusted_in.dedup();
    Ok(Untrusted {
        removed: removed.get(),
        still_trusted_in,
    })
}

/// Refuses `key` in the project's policy whatever `trust` says (`revoked`): `true` when
/// squads.jsonc changed.
pub fn revoke(
    project: &Project,
    key: crate::sign::KeyId,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<bool, ProjectError> {
    edit_declared(project, on_wait, &|text| declared::add_revoked(text, key))
}

/// Edits squads.jsonc under the project lock (a new one when absent): `true` when it changed.
fn edit_declared(
    project: &Project,
    on_wait: &mut dyn FnMut(&Path),
    edit: &dyn Fn(&str) -> Result<String, String>,
) -> Result<bool, ProjectError> {
    let (_guard, files) = project.lock_and_read(false, on_wait)?;
    let before = files
        .declared_text
        .clone()
        .unwrap_or_else(|| "// The squads this project uses and the keys trusted to sign them.\n{\n  \"squads\": {}\n}\n".to_owned());
    let text = edit(&before).map_err(|message| {
        ProjectError::Io(project.declared_path(), std::io::Error::other(message))
    })?;
    // Unchanged: nothing is written, not even a new file.
    if text == before {
        return Ok(false);
    }
    project.write_declared(&text)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_walk_up_and_down() {
        let base = Path::new("/work/app");
        assert_eq!(
            relative_path(base, Path::new("/work/app/squads/a")),
            "squads/a"
        );
        assert_eq!(
            relative_path(base, Path::new("/work/shared/b")),
            "../shared/b"
        );
        assert_eq!(relative_path(base, Path::new("/work/app")), ".");
        assert_eq!(relative_path(base, Path::new("/other")), "../../other");
    }
}
