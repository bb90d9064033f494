//! A project's squads through [`crate::acquire`]: a declaration (and its lock entry, if any)
//! turned into a request with the lock's digests as pins, the acquired squad into what the
//! lock records, and an acquisition's refusal into a [`Failure`] naming the squad.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::acquire::{self, AcquireError, Acquired, Local, Pins, Request, Source};
use crate::install::Exact;
use crate::install::receipts::Origin;
use crate::package::Identity;
use crate::share::Transfers;

use super::declared::{Declaration, Name};
use super::lockfile::Locked;
use super::{Failure, Project, Settings};

/// The receipt's origin of a registry squad: the pinned reference and its manifest digest.
pub fn origin(declaration: &Declaration, locked: &Locked) -> Option<Origin> {
    match declaration.source {
        Source::Registry(_) => locked.manifest_digest().map(|digest| Origin {
            reference: locked.resolved.clone(),
            manifest_digest: digest.to_owned(),
        }),
        _ => None,
    }
}

/// Refuses a package that is not the squad its entry names.
pub fn check_name(name: &Name, identity: &Identity, source: &str) -> Result<(), Failure> {
    if identity.namespace == name.namespace && identity.id == name.id {
        return Ok(());
    }
    Err(Failure::refused(
        name.to_string(),
        format!(
            "`{source}` holds {}/{}, not {name}",
            identity.namespace, identity.id
        ),
    )
    .hint("declare it under its own name: `squad add` writes the name the package declares"))
}

/// A refused or failed acquisition, for the squad `label`.
pub fn failure(label: &str, error: AcquireError) -> Failure {
    let hint = error.hint();
    let mut failure = Failure::of(label, &error, error.class());
    failure.hint = hint;
    failure.report = error.into_report();
    failure
}

/// The pins of a locked squad: its identity, version, package digest, archive and manifest
/// digests. The bytes acquired must be these; none of them is evidence of a signature.
pub fn pins(name: &Name, locked: &Locked) -> Pins {
    Pins {
        exact: Exact {
            namespace: Some(name.namespace.clone()),
            id: Some(name.id.clone()),
            version: Some(locked.version.clone()),
            digest: Some(locked.package_digest),
        },
        archive_sha256: locked.archive_sha256,
        archive_bytes: locked.archive_bytes,
        manifest_digest: locked.manifest_digest().map(str::to_owned),
        by: "squads.lock",
        update_hint: Some(format!(
            "if the new bytes are intended, `squad update {name}` locks them"
        )),
    }
}

/// The declaration a locked squad is acquired from: itself, or for a squad of the project's
/// index, the source the lock resolved it to (pinned: a registry manifest digest, or an
/// archive's URL and SHA-256), so that a locked squad needs no index.
pub fn as_locked(declaration: &Declaration, locked: &Locked) -> Declaration {
    if declaration.source != Source::Index {
        return declaration.clone();
    }
    match Source::parse(&locked.resolved) {
        Ok(source @ (Source::Registry(_) | Source::Https(_))) => Declaration {
            sha256: matches!(source, Source::Https(_))
                .then_some(locked.archive_sha256)
                .flatten(),
            source,
            source_text: declaration.source_text.clone(),
            version: None,
        },
        // Acquiring refuses an index squad that was not resolved.
        _ => declaration.clone(),
    }
}

/// The pins a declaration makes by itself: an `https://` source's SHA-256.
pub fn declared_pins(declaration: &Declaration) -> Pins {
    Pins {
        archive_sha256: declaration.sha256,
        by: "squads.jsonc",
        ..Pins::default()
    }
}

/// What the lock records of an acquired squad.
pub fn locked(declaration: &Declaration, acquired: &Acquired) -> Locked {
    Locked {
        source: declaration.source_text.clone(),
        resolved: acquired.resolved.clone(),
        version: acquired.identity().version.clone(),
        package_digest: acquired.package_digest(),
        archive_sha256: acquired.archive_sha256,
        archive_bytes: acquired.archive_bytes,
        signed_by: acquired.signed_by.map(|id| id.to_string()),
        // Recorded where the project's policy asks for it (escalation.rs).
        capabilities: None,
    }
}

/// The capabilities of an acquired squad (a valid package always has them).
pub fn capabilities_of(acquired: &Acquired) -> Option<crate::capability::Capabilities> {
    crate::capability::of(&acquired.ready.report, &acquired.package_digest().hex())
}

/// What a project's squads are acquired with: the project, how it reaches things, and its
/// signature policy.
pub struct Acquirer<'a> {
    pub project: &'a Project,
    pub settings: &'a Settings<'a>,
    pub policy: &'a crate::sign::Policy,
    /// Whether what [`Acquirer::acquire`] brings is to be installed (a dry run only looks).
    pub installs: bool,
}

impl Acquirer<'_> {
    fn context<'c>(
        &'c self,
        transfers: &'c (dyn Transfers + Sync),
        local: &'c Local,
        temporary: &'c std::path::Path,
        installs: bool,
    ) -> acquire::Context<'c> {
        acquire::Context {
            cache: Some(&self.settings.cache),
            client: self.settings.client,
            transfers,
            policy: self.policy,
            temporary,
            local,
            installs,
        }
    }

    /// Acquires a declared squad: anew (the declaration's own pins; with `newest`, a registry
    /// source's newest version), or as locked (the lock's pins).
    pub fn acquire(
        &self,
        transfers: &(dyn Transfers + Sync),
        label: &str,
        declaration: &Declaration,
        pins: &Pins,
        newest: bool,
    ) -> Result<Acquired, Failure> {
        let local = self.project.local();
        let temporary = self.settings.opencorvus_root.join("tmp");
        self.context(transfers, local, &temporary, self.installs)
            .acquire(&Request {
                label,
                source: &declaration.source,
                version: declaration.version.as_deref(),
                newest,
                pins,
            })
            .map_err(|error| failure(label, error))
    }

    /// The package installed at `root`, read into a private copy and validated.
    pub fn installed(&self, label: &str, root: &std::path::Path) -> Result<Acquired, Failure> {
        let local = self.project.local();
        let temporary = self.settings.opencorvus_root.join("tmp");
        self.context(&crate::share::Silent, local, &temporary, false)
            .installed(root)
            .map_err(|error| failure(label, error))
    }

    /// Under a policy that requires signatures, the key that vouches for a locked squad
    /// installed as locked: its signatures verified over the locked identity and package
    /// digest (which the installed package was found to have), found where its declared source
    /// keeps them.
    pub fn vouch(
        &self,
        name: &Name,
        declaration: &Declaration,
        locked: &Locked,
    ) -> Result<Option<String>, Failure> {
        let local = self.project.local();
        let temporary = self.settings.opencorvus_root.join("tmp");
        let identity = Identity {
            namespace: name.namespace.clone(),
            id: name.id.clone(),
            version: locked.version.clone(),
        };
        self.context(&crate::share::Silent, local, &temporary, false)
            .vouch(
                &declaration.source,
                &identity,
                locked.package_digest,
                locked.manifest_digest(),
            )
            .map(|id| id.map(|id| id.to_string()))
            .map_err(|error| failure(&name.to_string(), error))
    }
}

/// One progress display for many downloads at once: the bytes of every transfer add up.
pub struct Downloads<'a> {
    display: &'a (dyn Transfers + Sync),
    total: AtomicU64,
    done: AtomicU64,
    /// What each download that began is (`acme/x 2026.12.01.1`), for the display's label.
    labels: std::sync::Mutex<Vec<String>>,
}

impl<'a> Downloads<'a> {
    pub fn new(display: &'a (dyn Transfers + Sync)) -> Downloads<'a> {
        Downloads {
            display,
            total: AtomicU64::new(0),
            done: AtomicU64::new(0),
            labels: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The [`Transfers`] of one download.
    pub fn job(&self) -> Download<'_, 'a> {
        Download {
            downloads: self,
            seen: AtomicU64::new(0),
        }
    }

    /// Erases the display.
    pub fn end(&self) {
        self.display.end();
    }
}

/// One download of [`Downloads`].
pub struct Download<'d, 'a> {
    downloads: &'d Downloads<'a>,
    seen: AtomicU64,
}

impl Transfers for Download<'_, '_> {
    fn begin(&self, label: &str, total: u64) {
        let downloads = self.downloads;
        let total = downloads.total.fetch_add(total, Ordering::Relaxed) + total;
        let what = label
            .strip_prefix("Downloading ")
            .unwrap_or(label)
            .to_owned();
        let shown = downloads.labels.lock().map_or_else(
            |_| "Downloading".to_owned(),
            |mut labels| {
                labels.push(what);
                match labels.as_slice() {
                    [one] => format!("Downloading {one}"),
                    many => format!("Downloading {} squads", many.len()),
                }
            },
        );
        downloads.display.begin(&shown, total);
        downloads
            .display
            .advance(downloads.done.load(Ordering::Relaxed));
    }

    fn advance(&self, done: u64) {
        let before = self.seen.swap(done, Ordering::Relaxed);
        let downloads = self.downloads;
        let now = downloads
            .done
            .fetch_add(done.saturating_sub(before), Ordering::Relaxed)
            + done.saturating_sub(before);
        downloads.display.advance(now);
    }

    fn end(&self) {}
}
