//! The `--format json` documents of the commands, as docs/json-output.md describes them (and
//! `tests/it/json_docs.rs` holds it to what the binary prints). Each command builds one of these
//! instead of an ad-hoc `json!` value, so a field is named and typed in one place, and two
//! commands that print the same thing (a squad's outcome, a failure) print it alike.
//!
//! Field order is the order of the document on stdout: scripts read by name, but people diff
//! the output, so fields only ever go at the end of a body.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::report::{ValidateDocument, print_json};
use crate::diag::json::SCHEMA_VERSION;
use crate::install::Operation;
use crate::install::receipts::Origin;
use crate::output::Printer;
use crate::project::Failure;
use crate::project::change::Declared;
use crate::project::cooldown::HeldBack;
use crate::project::outdated::Row;
use crate::project::sync::Outcome;
use crate::share::signature::Attached;
use crate::share::{Listed, PublishStatus};
use crate::sign::Statement;
use crate::verify::Drift;

/// Every document but `squad validate`'s, `squad router check`'s and `squad fix`'s: versioned,
/// and named by `type` so that a script reading several commands' output can tell them apart.
#[derive(Serialize)]
pub struct Document<T> {
    pub schema_version: u32,
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(flatten)]
    pub body: T,
}

/// Prints the document `kind` with `body` on stdout.
pub fn print<T: Serialize>(printer: &Printer, kind: &'static str, body: T) {
    print_json(
        printer,
        &Document {
            schema_version: SCHEMA_VERSION,
            kind,
            body,
        },
    );
}

/// `ok`, or `failed` when some squads could not be brought in line.
fn status_of(failures: &[Failure]) -> &'static str {
    if failures.is_empty() { "ok" } else { "failed" }
}

/// `squad pack`: `packed`.
#[derive(Serialize)]
pub struct Packed {
    pub path: String,
    pub namespace: String,
    pub id: String,
    pub version: String,
    pub package_digest: String,
    pub archive_sha256: String,
    pub file_count: usize,
    pub bytes: u64,
}

/// `squad verify`: `verify`.
#[derive(Serialize)]
pub struct Verified {
    pub path: String,
    /// `namespace/id` and scope of an installed package named on the command line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<&'static str>,
    pub expected_digest: String,
    pub actual_digest: String,
    pub unchanged: bool,
    pub drift: Vec<Drift>,
}

/// `squad install`: `install`.
#[derive(Serialize)]
pub struct Installed<'a> {
    pub operation: Operation,
    pub scope: &'static str,
    pub namespace: &'a str,
    pub id: &'a str,
    pub version: &'a str,
    pub before_version: Option<&'a str>,
    pub before: Option<String>,
    pub after: String,
    pub target: &'a Path,
    pub source: Option<&'a str>,
    pub manifest_digest: Option<&'a str>,
    pub restored: Option<&'a [Drift]>,
    pub warnings: &'a [String],
}

/// `squad list`: `list`.
#[derive(Serialize)]
pub struct Listing<'a> {
    /// The project whose packages and selection were read (`null`: the global scope alone).
    pub project: Option<&'a Path>,
    /// The project's `prompt_profile.active`.
    pub active: Option<&'a str>,
    pub packages: Vec<ListedPackage<'a>>,
}

#[derive(Serialize)]
pub struct ListedPackage<'a> {
    pub scope: &'static str,
    pub namespace: &'a str,
    pub id: &'a str,
    pub version: Option<&'a str>,
    pub package_digest: Option<&'a str>,
    pub root: &'a Path,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<&'a str>,
    pub active: bool,
    /// `null` when there is no install receipt to compare with.
    pub modified: Option<bool>,
    pub changes: Vec<Drift>,
    /// The registry reference and manifest digest the receipt recorded (`null`: a local
    /// install, or no receipt).
    pub origin: Option<Origin>,
    /// Installed in the project, but not declared in its squads.jsonc: the next `squad sync`
    /// removes it.
    pub undeclared: bool,
}

/// `squad fix`: the `squad validate` document of the package as fixed, then what was fixed.
/// `type` comes after the validate document's fields, not first: the document is a validate
/// document extended, and was printed in this order before it was typed.
#[derive(Serialize)]
pub struct FixDocument<'a> {
    #[serde(flatten)]
    pub report: ValidateDocument<'a>,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub dry_run: bool,
    pub fixes: Vec<Fixed<'a>>,
    pub changed_files: Vec<&'a str>,
}

/// `squad audit`: the `squad validate` document of the packages (each audited one with
/// `status` `audited` and the audit's findings as its diagnostics), then `type`, the `--deny`
/// level and whether the run passed it.
#[derive(Serialize)]
pub struct AuditDocument<'a> {
    #[serde(flatten)]
    pub report: ValidateDocument<'a>,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub deny: &'static str,
    pub passed: bool,
}

#[derive(Serialize)]
pub struct Fixed<'a> {
    pub file: &'a str,
    pub code: &'static str,
    pub message: &'a str,
}

/// `squad publish`: `publish`.
#[derive(Serialize)]
pub struct Published<'a> {
    pub status: PublishStatus,
    pub reference: String,
    pub tag: String,
    pub namespace: &'a str,
    pub id: &'a str,
    pub version: &'a str,
    pub package_digest: &'a str,
    pub manifest_digest: Option<&'a str>,
    pub config_digest: &'a str,
    pub archive_sha256: &'a str,
    pub archive_bytes: u64,
    pub uploaded: &'a [String],
    /// `null` without `--sign`.
    pub signature: Option<&'a Attached>,
}

/// `squad pull`: `pull`.
#[derive(Serialize)]
pub struct Pulled<'a> {
    pub path: String,
    pub reference: String,
    pub namespace: &'a str,
    pub id: &'a str,
    pub version: &'a str,
    pub package_digest: &'a str,
    pub manifest_digest: &'a str,
    pub archive_sha256: &'a str,
    pub bytes: u64,
    /// The signature attached in the registry, written beside the archive (`null`: none).
    pub signature_file: Option<&'a Path>,
}

/// `squad versions`: `versions`.
#[derive(Serialize)]
pub struct Versions<'a> {
    pub reference: String,
    pub versions: &'a [Listed],
}

/// `squad key generate`: `key-generate`. The secret key itself never appears.
#[derive(Serialize)]
pub struct KeyGenerated<'a> {
    pub key_id: String,
    pub public_key: &'a str,
    pub public_key_file: &'a Path,
    pub secret_key_file: &'a Path,
    pub encrypted: bool,
}

/// What a signature vouches for: the statement's identity and package digest.
#[derive(Serialize)]
pub struct SignedIdentity<'a> {
    pub namespace: &'a str,
    pub id: &'a str,
    pub version: &'a str,
    pub package_digest: String,
}

impl<'a> From<&'a Statement> for SignedIdentity<'a> {
    fn from(statement: &'a Statement) -> SignedIdentity<'a> {
        SignedIdentity {
            namespace: &statement.namespace,
            id: &statement.id,
            version: &statement.version,
            package_digest: statement.package_digest.hex(),
        }
    }
}

/// `squad sign --statement`: `statement`.
#[derive(Serialize)]
pub struct StatementShown<'a> {
    #[serde(flatten)]
    pub signed: SignedIdentity<'a>,
    pub statement: String,
}

/// `squad sign`: `sign`.
#[derive(Serialize)]
pub struct SignatureWritten<'a> {
    #[serde(flatten)]
    pub signed: SignedIdentity<'a>,
    pub key_id: String,
    pub signature_file: &'a Path,
    pub statement: String,
}

/// `squad verify --signature`: `verify-signature`.
#[derive(Serialize)]
pub struct SignatureChecked<'a> {
    pub path: String,
    pub signature_file: &'a Path,
    #[serde(flatten)]
    pub signed: SignedIdentity<'a>,
    /// The public key's id.
    pub key_id: String,
    /// The id the signature names (`null`: the signature could not be read).
    pub signature_key_id: Option<String>,
    pub trusted_comment: Option<&'a str>,
    pub verified: bool,
    pub error: Option<&'a str>,
}

/// `squad trust add`: `trust`.
#[derive(Serialize)]
pub struct Trusted<'a> {
    /// Whether the key is also in `revoked`, which wins.
    pub revoked: bool,
    pub project: &'a str,
    pub namespace: &'a str,
    pub key_id: String,
    pub public_key: &'a str,
    pub expires: Option<String>,
    pub require_signatures: bool,
    pub changed: bool,
}

/// `squad trust revoke`: `revoke`.
#[derive(Serialize)]
pub struct Revoked<'a> {
    pub project: &'a str,
    pub key_id: String,
    pub changed: bool,
}

/// `squad trust remove`: `untrust`.
#[derive(Serialize)]
pub struct Untrusted<'a> {
    pub project: &'a str,
    pub key_id: String,
    /// The namespace given (`null`: every list).
    pub namespace: Option<&'a str>,
    pub removed: usize,
    /// The lists that still name the key.
    pub still_trusted_in: &'a [String],
}

/// One squad that could not be brought in line, in every project document.
#[derive(Serialize)]
pub struct FailureEntry<'a> {
    pub name: &'a str,
    /// The message with its causes, as one line.
    pub message: String,
    pub hint: Option<&'a str>,
    /// Refused bytes or packages (exit 1), rather than work that could not be done (exit 2).
    pub refused: bool,
}

pub fn failures(failures: &[Failure]) -> Vec<FailureEntry<'_>> {
    failures
        .iter()
        .map(|failure| FailureEntry {
            name: &failure.name,
            message: failure.chain(),
            hint: failure.hint.as_deref(),
            refused: failure.refused,
        })
        .collect()
}

/// `squad add`: `add`.
#[derive(Serialize)]
pub struct Added<'a> {
    pub project: &'a str,
    pub status: &'static str,
    pub declared: Declared,
    pub squad: &'a Outcome,
    /// Newer versions squads.jsonc's `minimum_release_age` held back.
    pub held_back: &'a [HeldBack],
}

impl<'a> Added<'a> {
    pub fn new(
        project: &'a str,
        declared: Declared,
        squad: &'a Outcome,
        held_back: &'a [HeldBack],
    ) -> Added<'a> {
        Added {
            project,
            status: "ok",
            declared,
            squad,
            held_back,
        }
    }
}

/// `squad verify --locked`: `verify-locked`.
#[derive(Serialize)]
pub struct LockVerified<'a> {
    pub project: &'a str,
    /// `ok`, `refused` (a squad does not match the lock) or `error` (one could not be checked).
    pub status: &'static str,
    pub squads: &'a [crate::project::check::Checked],
}

/// `squad init`: `init`.
#[derive(Serialize)]
pub struct Initialized<'a> {
    pub project: &'a str,
    /// `squads.jsonc` was written (`false`: it was there already).
    pub created: bool,
    /// `.opencorvus/.gitignore` was written.
    pub gitignore: bool,
    /// The project this folder is inside, if any (`null`: none).
    pub enclosing: Option<&'a Path>,
}

/// `squad remove`: `remove`.
#[derive(Serialize)]
pub struct Removed<'a> {
    pub project: &'a str,
    pub status: &'static str,
    pub name: &'a str,
    /// Whether squads.jsonc and squads.lock named it.
    pub declared: bool,
    pub locked: bool,
    /// The removed package's folder (`null`: nothing was installed).
    pub uninstalled: Option<&'a Path>,
    /// The configs whose `prompt_profile.active` went back to `base`.
    pub reset: &'a [PathBuf],
}

impl<'a> Removed<'a> {
    pub fn new(project: &'a str, removed: &'a crate::project::change::Removed) -> Removed<'a> {
        Removed {
            project,
            status: "ok",
            name: &removed.name,
            declared: removed.declared,
            locked: removed.locked,
            uninstalled: removed.uninstalled.as_deref(),
            reset: &removed.reset,
        }
    }
}

/// `squad sync`: `sync`.
#[derive(Serialize)]
pub struct Synced<'a> {
    pub project: &'a str,
    pub status: &'static str,
    pub locked: bool,
    pub offline: bool,
    pub squads: &'a [Outcome],
    pub failures: Vec<FailureEntry<'a>>,
    pub dropped: &'a [String],
    pub lock_written: bool,
    /// squads.lock held merge conflicts: their lines, the squads resolved anew, how many kept.
    pub merge_conflicts: Option<&'a crate::project::merge::LockMerge>,
    /// Packages installed in the project that squads.jsonc does not declare: removed or kept.
    pub undeclared: &'a [crate::project::sync::Undeclared],
    /// What refused nothing but is worth saying (a tag moved away from the locked bytes).
    pub warnings: &'a [String],
}

impl<'a> Synced<'a> {
    pub fn new(
        project: &'a str,
        locked: bool,
        offline: bool,
        report: &'a crate::project::sync::SyncReport,
    ) -> Synced<'a> {
        Synced {
            project,
            status: status_of(&report.failures),
            locked,
            offline,
            squads: &report.outcomes,
            failures: failures(&report.failures),
            dropped: &report.dropped,
            lock_written: report.lock_written,
            merge_conflicts: report.merged.as_ref(),
            undeclared: &report.undeclared,
            warnings: &report.warnings,
        }
    }
}

/// `squad outdated`: `outdated`.
#[derive(Serialize)]
pub struct Outdated<'a> {
    pub project: &'a str,
    pub status: &'static str,
    pub squads: &'a [Row],
    pub failures: Vec<FailureEntry<'a>>,
}

impl<'a> Outdated<'a> {
    pub fn new(project: &'a str, rows: &'a [Row], failed: &'a [Failure]) -> Outdated<'a> {
        Outdated {
            project,
            status: status_of(failed),
            squads: rows,
            failures: failures(failed),
        }
    }
}

/// `squad update`: `update`.
#[derive(Serialize)]
pub struct Updated<'a> {
    pub project: &'a str,
    pub status: &'static str,
    /// `--dry-run`: nothing was installed or written; `planned` says what would be.
    pub dry_run: bool,
    pub squads: Vec<UpdatedSquad<'a>>,
    pub planned: &'a [crate::project::change::Planned],
    pub failures: Vec<FailureEntry<'a>>,
}

/// A squad's outcome, and where it came from.
#[derive(Serialize)]
pub struct UpdatedSquad<'a> {
    #[serde(flatten)]
    pub outcome: &'a Outcome,
    /// The version locked before.
    pub from: Option<&'a str>,
    /// Whether a version, tag or digest declared in squads.jsonc was rewritten.
    pub declaration_changed: bool,
    /// The manifest locked before, when the version's tag was moved to other bytes.
    pub tag_moved_from: Option<&'a str>,
    /// Newer versions squads.jsonc's `minimum_release_age` held back.
    pub held_back: &'a [HeldBack],
}

impl<'a> Updated<'a> {
    pub fn new(
        project: &'a str,
        dry_run: bool,
        report: &'a crate::project::change::UpdateReport,
    ) -> Updated<'a> {
        let failed = &report.failures;
        Updated {
            project,
            status: status_of(failed),
            dry_run,
            planned: &report.planned,
            squads: report
                .updated
                .iter()
                .map(|updated| UpdatedSquad {
                    outcome: &updated.outcome,
                    from: updated.from.as_deref(),
                    declaration_changed: updated.declaration_changed,
                    tag_moved_from: updated.tag_moved_from.as_deref(),
                    held_back: &updated.held_back,
                })
                .collect(),
            failures: failures(failed),
        }
    }
}

/// A project command that stopped: its own `type`, with `status` `failed`, `refused` or
/// `error`, what stopped it, and the failures or disagreements behind that.
#[derive(Serialize)]
pub struct ProjectStopped<'a> {
    pub project: &'a str,
    pub status: &'static str,
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<Vec<FailureEntry<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disagreements: Option<&'a [String]>,
}

/// `squad show`: the capabilities of one squad, and where its bytes came from.
#[derive(Serialize)]
pub struct Show {
    /// The source as given.
    pub source: String,
    /// What it resolved to: the pinned registry reference, the archive URL or the local path.
    pub resolved: String,
    pub archive_sha256: Option<String>,
    #[serde(flatten)]
    pub capabilities: crate::capability::Capabilities,
}

/// `squad diff`: what an update changes ([`crate::capability::diff::Diff`]).
#[derive(Serialize)]
pub struct DiffDocument<'a> {
    #[serde(flatten)]
    pub diff: &'a crate::capability::diff::Diff,
}

/// Why one package of a tree run failed.
#[derive(Serialize)]
pub struct PackageError {
    /// The message with its causes, as one line.
    pub message: String,
    pub hint: Option<String>,
    /// Refused bytes or packages (exit 1), rather than work that could not be done (exit 2).
    pub refused: bool,
}

/// One package of a tree run: its folder, then its result, or `status` `failed` and `error`.
#[derive(Serialize)]
pub struct TreePackage<T: Serialize> {
    pub path: String,
    #[serde(flatten)]
    pub result: TreeResult<T>,
}

#[derive(Serialize)]
#[serde(untagged)]
pub enum TreeResult<T: Serialize> {
    Done(T),
    Failed {
        status: &'static str,
        error: PackageError,
    },
}

/// How many packages a tree run saw, and how many failed.
#[derive(Serialize)]
pub struct TreeSummary {
    pub packages: usize,
    pub failed: usize,
}

/// Each outcome of a tree run as its document entry, with `done` building a success's body.
pub fn tree_packages<'a, T, B: Serialize>(
    outcomes: &'a [crate::tree::Outcome<T>],
    done: impl Fn(&'a T) -> B,
) -> Vec<TreePackage<B>> {
    outcomes
        .iter()
        .map(|outcome| TreePackage {
            path: outcome.shown(),
            result: match &outcome.result {
                Ok(value) => TreeResult::Done(done(value)),
                Err(failure) => TreeResult::Failed {
                    status: "failed",
                    error: PackageError {
                        message: failure.chain(),
                        hint: failure.hint.clone(),
                        refused: failure.class == crate::error::Class::Refused,
                    },
                },
            },
        })
        .collect()
}

/// `squad version bump --format json`: `version-bump`.
#[derive(Serialize)]
pub struct VersionBumped<B: Serialize> {
    pub path: String,
    /// Whether only the packages whose content moved were bumped (`--changed`).
    pub changed: bool,
    /// `record` or `registry` with `--changed`, else `null`.
    pub baseline: Option<&'static str>,
    /// The record's path or the registry's base.
    pub against: Option<String>,
    pub dry_run: bool,
    pub packages: Vec<TreePackage<B>>,
    /// With a record: whether it was written.
    pub record_written: bool,
    /// Record entries of squads no longer in the tree, dropped.
    pub dropped: Vec<String>,
    pub summary: BumpSummary,
}

#[derive(Serialize)]
pub struct BumpSummary {
    pub packages: usize,
    pub bumped: usize,
    pub failed: usize,
}

/// One package bumped without `--changed`: the fields of `--changed`'s entries
/// ([`crate::release::changed::Stamp`]), the baseline's `null`.
#[derive(Serialize)]
pub struct PlainBump {
    pub namespace: Option<String>,
    pub id: Option<String>,
    pub status: &'static str,
    pub before: String,
    pub version: String,
    pub baseline_version: Option<String>,
    pub content_digest: Option<String>,
}

/// `squad version check --format json`: `version-check`.
#[derive(Serialize)]
pub struct VersionChecked<'a> {
    pub path: String,
    /// What the packages were compared with: each `{ "baseline": "registry" | "record" |
    /// "archive", "at": … }`.
    pub against: Vec<Against>,
    pub packages: Vec<TreePackage<&'a crate::release::changed::Checked>>,
    pub summary: TreeSummary,
}

#[derive(Serialize)]
pub struct Against {
    pub baseline: &'static str,
    pub at: String,
}

/// `squad pack TREE --format json`: `pack-tree`.
#[derive(Serialize)]
pub struct PackedTree {
    pub path: String,
    /// The directory the archives were written to.
    pub output: String,
    pub packages: Vec<TreePackage<PackedInTree>>,
    pub summary: TreeSummary,
}

/// One package of `pack-tree`.
#[derive(Serialize)]
pub struct PackedInTree {
    pub status: &'static str,
    pub archive: String,
    pub namespace: String,
    pub id: String,
    pub version: String,
    pub package_digest: String,
    pub archive_sha256: String,
    pub file_count: usize,
    pub bytes: u64,
}

/// `squad digest TREE --format json`: `digest-tree`.
#[derive(Serialize)]
pub struct DigestedTree {
    pub path: String,
    pub packages: Vec<TreePackage<DigestedInTree>>,
    pub summary: TreeSummary,
}

/// One package of `digest-tree`.
#[derive(Serialize)]
pub struct DigestedInTree {
    pub status: &'static str,
    pub package_digest: String,
}

/// `squad publish TREE --format json`: `publish-tree`.
#[derive(Serialize)]
pub struct PublishedTree<'a> {
    pub path: String,
    pub base: String,
    /// `ok`; `refused`: nothing was pushed (an invalid package, a version published with other
    /// bytes, a registry that could not be asked); `failed`: a package could not be pushed.
    pub status: &'static str,
    pub dry_run: bool,
    pub packages: Vec<TreePackage<PublishedInTree<'a>>>,
    pub summary: PublishSummary,
}

/// One package of `publish-tree`.
#[derive(Serialize)]
pub struct PublishedInTree<'a> {
    pub namespace: &'a str,
    pub id: &'a str,
    pub version: &'a str,
    /// The pinned `oci://…@sha256:` reference.
    pub reference: String,
    pub status: PublishStatus,
    pub package_digest: &'a str,
    pub uploaded: &'a [String],
    /// `null` without `--sign`.
    pub signature: Option<&'a Attached>,
}

#[derive(Serialize)]
pub struct PublishSummary {
    pub packages: usize,
    pub pushed: usize,
    pub unchanged: usize,
    pub failed: usize,
}

/// `squad index build --format json`: `index-build`.
#[derive(Serialize)]
pub struct IndexBuilt<'a> {
    pub output: String,
    pub sources: Vec<String>,
    /// The new root's version and expiry.
    pub version: u64,
    pub expires: &'a str,
    pub squads: usize,
    pub versions: usize,
    /// Files written because their bytes changed (the root last), and removed.
    pub written: &'a [String],
    pub removed: &'a [String],
    pub unchanged: usize,
    /// Versions whose archive this build read, and whose entry it kept from the last build.
    pub read: usize,
    pub reused: usize,
    pub skipped: &'a [String],
    /// The key id that signed the root (`null`: unsigned).
    pub signed_by: Option<&'a str>,
}

/// `squad search --format json`: `search`.
#[derive(Serialize)]
pub struct Searched<'a> {
    pub query: &'a str,
    /// The index searched (`null`: none, only what is installed).
    pub index: Option<String>,
    pub offline: bool,
    /// The key whose signature over the index's root verified (`null`: not asked for).
    pub signed_by: Option<String>,
    pub results: &'a [crate::index::search::Hit],
}

/// `squad show NAME --index URL --format json`: `show-index`.
#[derive(Serialize)]
pub struct ShownFromIndex<'a> {
    pub index: String,
    pub name: &'a str,
    pub signed_by: Option<String>,
    pub squad: &'a crate::index::format::SquadFile,
}
