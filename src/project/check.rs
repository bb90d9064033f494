//! `squad verify --locked`: the whole project against its lock, read-only. Every squad
//! squads.lock locks must be installed with exactly the locked package digest and version, and
//! declared as it was locked; under the project's signature policy its signatures are verified
//! again over the installed digest (a key revoked since, or expired, is refused whatever the
//! lock's `signed_by` says), and a `signed_by` naming a revoked key is refused even without
//! `require_signatures`; under `deny_escalation` the installed package must hold exactly the
//! grants the lock's record accepted. Nothing is installed, fetched into the project or written
//! there.

use std::path::Path;

use serde::Serialize;

use super::declared::Name;
use super::resolve::Acquirer;
use super::sync::Installed;
use super::{Project, ProjectError, Settings};

/// One locked (or declared but unlocked) squad, as found.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    pub name: String,
    /// The locked version (`null`: not locked).
    pub version: Option<String>,
    /// The locked package digest.
    pub package_digest: Option<String>,
    /// What is installed under the name (`null`: nothing).
    pub installed_digest: Option<String>,
    /// The key whose signature verified, under a signature policy.
    pub signed_by: Option<String>,
    /// What does not match; empty when the squad is as locked.
    pub problems: Vec<String>,
    /// A problem is the network's or the disk's (could not check), not a mismatch.
    #[serde(skip)]
    pub operational: bool,
}

/// What `squad verify --locked` found.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub squads: Vec<Checked>,
}

impl CheckReport {
    /// Squads with a problem.
    pub fn failed(&self) -> impl Iterator<Item = &Checked> {
        self.squads
            .iter()
            .filter(|checked| !checked.problems.is_empty())
    }
}

/// Checks every squad of `project` against squads.lock (see the module docs). The files must
/// be readable; each squad's problems are reported, none stops the others.
pub fn check(
    project: &Project,
    settings: &Settings<'_>,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<CheckReport, ProjectError> {
    // The project lock: no sync changes the packages while they are read.
    let (_guard, files) = project.lock_and_read(true, on_wait)?;
    let locations = project.locations(&settings.opencorvus_root);
    let policy = &files.declared.policy;
    let mut report = CheckReport::default();
    for entry in &files.declared.entries {
        if !files.lock.squads.contains_key(&entry.name.to_string()) {
            report.squads.push(Checked {
                name: entry.name.to_string(),
                version: None,
                package_digest: None,
                installed_digest: None,
                signed_by: None,
                problems: vec!["declared in squads.jsonc but not locked".to_owned()],
                operational: false,
            });
        }
    }
    for (key, locked) in &files.lock.squads {
        let mut checked = Checked {
            name: key.clone(),
            version: Some(locked.version.clone()),
            package_digest: Some(locked.package_digest.hex()),
            installed_digest: None,
            signed_by: None,
            problems: Vec::new(),
            operational: false,
        };
        let Ok(name) = Name::parse(key) else {
            continue;
        };
        let declaration = files.declared.get(&name).map(|entry| &entry.declaration);
        match declaration {
            None => checked
                .problems
                .push("locked, but squads.jsonc no longer declares it".to_owned()),
            Some(declaration) if !locked.agrees_with(declaration) => {
                checked.problems.push(format!(
                    "squads.jsonc declares {} now, which is not what squads.lock locked",
                    declaration.source_text
                ))
            }
            Some(_) => {}
        }
        // Under deny_escalation the package is read once: its copy gives the digest and,
        // validated, the grants.
        let (installed, copy) = if files.declared.deny_escalation {
            read_installed(&locations, &name)
        } else {
            (Installed::of(&locations, &name), None)
        };
        match installed {
            Installed::Absent => checked.problems.push("not installed".to_owned()),
            Installed::Unreadable(target, problem) => checked.problems.push(format!(
                "the package at `{}` cannot be read: {problem}",
                target.display()
            )),
            Installed::Digest(digest) => {
                checked.installed_digest = Some(digest.hex());
                if digest != locked.package_digest {
                    checked.problems.push(format!(
                        "installed package digest {digest} is not the locked {} (`squad verify {key}` names the files, `squad sync` installs the locked bytes)",
                        locked.package_digest
                    ));
                } else if let Some(report) = &copy {
                    if let Some(problem) = grants_problem(report, &name, locked) {
                        checked.problems.push(problem);
                    }
                }
            }
        }
        if checked.problems.is_empty() {
            if let Some(problem) = version_problem(project, settings, &name, &locked.version) {
                checked.problems.push(problem);
            }
        }
        if let Some(id) = locked
            .signed_by
            .as_deref()
            .and_then(crate::sign::KeyId::parse)
            .filter(|id| policy.revoked.contains(id))
        {
            checked.problems.push(format!(
                "squads.lock records it as signed by key {id}, which squads.jsonc revokes"
            ));
        }
        if let (true, Some(declaration), true) =
            (policy.applies(), declaration, checked.problems.is_empty())
        {
            let acquirer = Acquirer {
                project,
                settings,
                policy,
                installs: false,
            };
            match acquirer.vouch(&name, declaration, locked) {
                Ok(signed_by) => checked.signed_by = signed_by,
                Err(failure) => {
                    checked.operational = !failure.refused;
                    checked.problems.push(failure.chain());
                }
            }
        }
        report.squads.push(checked);
    }
    report.squads.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(report)
}

/// What is installed under `name`, read once into a private copy: the copy's digest, and its
/// validation report for the grants (`None` when nothing could be read).
fn read_installed(
    locations: &crate::install::scope::Locations,
    name: &Name,
) -> (Installed, Option<crate::package::Report>) {
    let target = locations.target(&name.namespace, &name.id);
    if !matches!(
        crate::fs::real_directory(&target),
        Ok(crate::fs::RealDirectory::Present(_))
    ) {
        // Absent, not a directory, or not to be looked at: said as for any other check.
        return (Installed::of(locations, name), None);
    }
    let judged = match crate::snapshot::read_folder(&target, &crate::snapshot::scratch_parent()) {
        Ok(judged) => judged,
        Err(error) => {
            return (
                Installed::Unreadable(target, crate::error::chain(&error)),
                None,
            );
        }
    };
    match crate::install::directory_digest(judged.snapshot.path()) {
        Ok(digest) => (Installed::Digest(digest), Some(judged.report)),
        Err(problem) => (Installed::Unreadable(target, problem), None),
    }
}

/// Under `deny_escalation`, the installed package must hold exactly the grants squads.lock
/// accepted for it: the record is a claim like the rest of the lock (`sync --locked` refuses the
/// same). `report` is the validation of the copy whose digest matched the lock.
fn grants_problem(
    report: &crate::package::Report,
    name: &Name,
    locked: &super::lockfile::Locked,
) -> Option<String> {
    let Some(capabilities) = crate::capability::of(report, &locked.package_digest.hex()) else {
        return Some("the installed package has no identity to judge its grants by".to_owned());
    };
    let policy = super::escalation::Escalation {
        deny: true,
        accept: false,
    };
    super::escalation::hold(policy, name, locked, &capabilities.total, true)
        .err()
        .map(|failure| failure.message)
}

/// The installed package's manifest must declare the locked version (the lock's version is a
/// claim too).
fn version_problem(
    project: &Project,
    settings: &Settings<'_>,
    name: &Name,
    version: &str,
) -> Option<String> {
    let manifest = project
        .locations(&settings.opencorvus_root)
        .target(&name.namespace, &name.id)
        .join(crate::manifest::MANIFEST_FILE);
    let declared = crate::fs::read_regular_to_string(&manifest)
        .ok()
        .and_then(|text| crate::manifest::declared(&text))
        .unwrap_or_default();
    (declared.version.as_deref() != Some(version)).then(|| {
        format!(
            "squads.lock records version {version}, but the installed package declares {}",
            declared
                .version
                .map_or("none".to_owned(), |found| crate::text::shown(&found))
        )
    })
}
