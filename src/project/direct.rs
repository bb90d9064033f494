//! `squad install SOURCE --scope …`: one source installed directly, outside `squads.jsonc`,
//! through the same road as `add` ([`crate::acquire`]), with the same rules for every source
//! kind; into a project, under that project's signature policy.

use std::path::{Path, PathBuf};

use crate::acquire::{self, AcquireError, Installed, Local, Pins, Request, Source};
use crate::digest::Sha256Digest;
use crate::install::Options;
use crate::install::scope::Scope;
use crate::share::Transfers;

use super::{Project, ProjectError};

/// One source to install, as the command line gives it.
pub struct Direct<'a> {
    pub source: &'a str,
    /// An `https://` archive's SHA-256.
    pub sha256: Option<Sha256Digest>,
    /// `--expect-namespace`, `--expect-id`, `--expect-version`, `--expect-digest`.
    pub exact: crate::install::Exact,
    /// Where, and what an existing installation must be.
    pub options: &'a Options,
    /// `None`: no cache (its directory cannot be told).
    pub cache: Option<&'a crate::cache::Cache>,
    pub client: &'a crate::http::Client,
    pub transfers: &'a (dyn Transfers + Sync),
}

/// Why a direct install did not happen.
#[derive(Debug, thiserror::Error)]
pub enum DirectError {
    /// The source or a flag cannot be used as given.
    #[error("{0}")]
    Usage(String),
    /// The project's files cannot be read, so its signature policy cannot be applied.
    #[error("{0}: its signature policy cannot be applied; nothing was installed")]
    Policy(#[source] ProjectError),
    #[error(transparent)]
    Acquire(AcquireError),
}

impl DirectError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            DirectError::Usage(_) => crate::error::Class::Failed,
            DirectError::Policy(_) => crate::error::Class::Refused,
            DirectError::Acquire(error) => error.class(),
        }
    }
}

/// The signature policy of the project a scope is (the default policy, which asks nothing,
/// for the global scope).
pub fn policy_of(scope: &Scope) -> Result<crate::sign::Policy, ProjectError> {
    Ok(policies_of(scope)?.signatures)
}

/// The project's signature policy, and, under `deny_escalation`, its lock (whose records of
/// accepted grants a direct install may not go beyond).
/// A project's policies that a direct install into it must meet.
struct Policies {
    signatures: crate::sign::Policy,
    /// Under `deny_escalation`, the lock whose records a version may not go beyond.
    lock: Option<super::lockfile::Lock>,
    audit: Option<super::declared::AuditPolicy>,
    /// `minimum_release_age`, with the index whose records tell a version's age.
    cooldown: Option<(
        super::declared::ReleaseAge,
        Option<super::declared::IndexConfig>,
    )>,
}

fn policies_of(scope: &Scope) -> Result<Policies, ProjectError> {
    let Scope::Project(root) = scope else {
        return Ok(Policies {
            signatures: crate::sign::Policy::default(),
            lock: None,
            audit: None,
            cooldown: None,
        });
    };
    let project = Project::new(root.clone(), root.display().to_string());
    let files = project.read()?;
    let lock = files.declared.deny_escalation.then_some(files.lock);
    Ok(Policies {
        signatures: files.declared.policy,
        lock,
        audit: Some(files.declared.audit),
        cooldown: files
            .declared
            .minimum_release_age
            .map(|age| (age, files.declared.index)),
    })
}

/// A squad installed directly into a project meets the project's audit bar.
fn audited(
    audit: Option<&super::declared::AuditPolicy>,
    acquired: &acquire::Acquired,
) -> Result<(), acquire::AcquireError> {
    let Some(audit) = audit else {
        return Ok(());
    };
    let identity = acquired.identity();
    let name = super::declared::Name {
        namespace: identity.namespace.clone(),
        id: identity.id.clone(),
    };
    let Some(capabilities) =
        crate::capability::of(&acquired.ready.report, &acquired.package_digest().hex())
    else {
        return Ok(());
    };
    super::findings::judge(audit, &name, acquired, &capabilities).map_err(|failure| {
        acquire::AcquireError::Refused {
            message: failure.message,
            hint: failure.hint,
        }
    })
}

/// Under `deny_escalation`, a squad the project locked may not be installed directly in a
/// version that holds grants its lock did not accept.
fn within_accepted(
    lock: Option<&super::lockfile::Lock>,
    acquired: &acquire::Acquired,
) -> Result<(), acquire::AcquireError> {
    let Some(lock) = lock else {
        return Ok(());
    };
    let identity = acquired.identity();
    let name = format!("{}/{}", identity.namespace, identity.id);
    let Some(accepted) = lock
        .squads
        .get(&name)
        .and_then(|locked| locked.capabilities.as_ref())
    else {
        return Ok(());
    };
    let Some(capabilities) =
        crate::capability::of(&acquired.ready.report, &acquired.package_digest().hex())
    else {
        return Ok(());
    };
    let widening = accepted.widening(&capabilities.total);
    if widening.is_empty() {
        return Ok(());
    }
    Err(acquire::AcquireError::Refused {
        message: format!(
            "{name} {} holds grants the project's squads.lock did not accept (deny_escalation): {}",
            identity.version,
            widening.describe()
        ),
        hint: Some(format!(
            "review them with `squad diff`; `squad update {name} --accept-grants` accepts them for the project"
        )),
    })
}

/// The `--sha256` flag against the source it is given with.
fn check_sha256(source: &Source, sha256: Option<Sha256Digest>) -> Result<(), DirectError> {
    match (source, sha256) {
        (Source::Https(url), None) => {
            return Err(DirectError::Usage(format!(
                "an {}:// archive source needs the SHA-256 of its archive: pass --sha256 <64 hex>",
                url.scheme()
            )));
        }
        (Source::Https(_), Some(_)) | (_, None) => {}
        (other, Some(_)) => {
            return Err(DirectError::Usage(format!(
                "--sha256 is for https:// sources; a {} source is checked by its own digests",
                other.noun()
            )));
        }
    }
    Ok(())
}

/// Installs one source into `direct.options.scope`.
pub fn install(
    direct: &Direct<'_>,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Installed, DirectError> {
    let source = Source::argument(direct.source).map_err(DirectError::Usage)?;
    check_sha256(&source, direct.sha256)?;
    let policies = policies_of(&direct.options.scope).map_err(DirectError::Policy)?;
    if policies.audit.is_some() {
        crate::audit::prepare();
    }
    let policy = policies.signatures.clone();
    let mut pins = Pins {
        exact: direct.exact.clone(),
        archive_sha256: direct.sha256,
        by: "the command line",
        ..Pins::default()
    };
    // A registry repository without a version, into a project under `minimum_release_age`:
    // the newest version old enough by the project's index (PRJ-14), pinned to its digest.
    let cooldown = policies
        .cooldown
        .as_ref()
        .and_then(|(age, index)| super::cooldown::Cooldown::of(Some(age)).map(|c| (c, index)));
    let mut version = None;
    let mut held_back = None;
    if let (Some((cooldown, index)), Source::Registry(reference)) = (&cooldown, &source) {
        if reference.tag.is_none() && reference.digest.is_none() {
            let picked = cooldown
                .pick_in_registry(
                    (Some(direct.client), direct.cache),
                    index.as_ref(),
                    direct.source,
                    reference,
                )
                .map_err(|failure| {
                    DirectError::Acquire(acquire::AcquireError::Refused {
                        message: format!("{}: {}", failure.name, failure.message),
                        hint: failure.hint,
                    })
                })?;
            pins.exact.version.get_or_insert(picked.version.clone());
            if pins.exact.digest.is_none() {
                pins.exact.digest = picked.package_digest;
            }
            if !picked.held_back.is_empty() {
                held_back = Some(super::cooldown::note(
                    &picked.held_back,
                    &picked.version,
                    cooldown,
                ));
            }
            version = Some(picked.version);
        }
    }
    let local = Local::given(PathBuf::new());
    let temporary = direct.options.locations().temporary;
    let context = acquire::Context {
        cache: direct.cache,
        client: Some(direct.client),
        transfers: direct.transfers,
        policy: &policy,
        temporary: &temporary,
        local: &local,
        installs: true,
    };
    let request = Request {
        label: direct.source,
        source: &source,
        version: version.as_deref(),
        newest: false,
        pins: &pins,
    };
    let mut installed = context
        .install_judged(&request, direct.options, on_wait, &|acquired| {
            audited(policies.audit.as_ref(), acquired)?;
            within_accepted(policies.lock.as_ref(), acquired)
        })
        .map_err(DirectError::Acquire)?;
    if let Some(note) = held_back {
        let identity = &installed.receipt.identity;
        let name = format!("{}/{}", identity.namespace, identity.id);
        installed.receipt.warnings.push(format!("{name}: {note}"));
    }
    Ok(installed)
}

/// One squad to look at, not install (`squad show`, `squad diff`): any source, or a package
/// installed in `scopes`.
pub struct Look<'a> {
    pub source: &'a str,
    /// An `https://` archive's SHA-256.
    pub sha256: Option<Sha256Digest>,
    /// Where an installed name is looked for, in order.
    pub scopes: &'a [Scope],
    pub opencorvus_root: &'a Path,
    pub cache: Option<&'a crate::cache::Cache>,
    pub client: Option<&'a crate::http::Client>,
    pub transfers: &'a (dyn Transfers + Sync),
}

/// Reads and judges one source exactly as `squad install` would (the same road, the same
/// rules for every kind), without installing it: its validated private copy, its identity
/// and digest. No signature policy applies: looking is not trusting.
pub fn look(look: &Look<'_>) -> Result<acquire::Acquired, DirectError> {
    let named = acquire::argument_or_installed(look.source, look.scopes, look.opencorvus_root)
        .map_err(DirectError::Acquire)?;
    let source = match named {
        acquire::Named::Source(source) => source,
        acquire::Named::Installed(root) => {
            if look.sha256.is_some() {
                return Err(DirectError::Usage(
                    "--sha256 is for https:// sources; an installed package is checked by its own digests".to_owned(),
                ));
            }
            return context_for_look(look, |context| context.installed(&root));
        }
    };
    check_sha256(&source, look.sha256)?;
    let pins = Pins {
        archive_sha256: look.sha256,
        by: "the command line",
        ..Pins::default()
    };
    let request = Request {
        label: look.source,
        source: &source,
        version: None,
        newest: false,
        pins: &pins,
    };
    context_for_look(look, |context| context.acquire(&request))
}

/// Runs `work` with the acquisition context of a look: no signature policy (looking is not
/// trusting), local paths as the command line gives them, copies in the temporary directory.
fn context_for_look(
    look: &Look<'_>,
    work: impl FnOnce(&acquire::Context<'_>) -> Result<acquire::Acquired, acquire::AcquireError>,
) -> Result<acquire::Acquired, DirectError> {
    let policy = crate::sign::Policy::default();
    let local = Local::given(PathBuf::new());
    let temporary = crate::snapshot::scratch_parent();
    let context = acquire::Context {
        cache: look.cache,
        client: look.client,
        transfers: look.transfers,
        policy: &policy,
        temporary: &temporary,
        local: &local,
        installs: false,
    };
    work(&context).map_err(DirectError::Acquire)
}
