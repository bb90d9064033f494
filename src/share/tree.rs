//! `squad publish TREE oci://HOST/BASE`: every package of a tree of squads, all or nothing up to
//! the first byte sent.
//!
//! The run goes in phases, each over every package at once (within a bound):
//!
//! 1. look: each package is validated where it is and digested;
//! 2. ask: the registry is asked for each package's version: not there (to push), there with
//!    the same package digest (unchanged, no error), or there with another (a conflict);
//! 3. prepare, only what must be pushed: read once into a private copy, validated there,
//!    packed and (with a key) signed; it must still be the package that was looked at;
//! 4. push: only what the registry lacks is sent, blobs it has skipped, signatures attached
//!    (also to the unchanged ones).
//!
//! An unchanged package is thus never copied or packed: what the registry holds is what was
//! validated and digested here. If any package is invalid, is the same squad as another
//! folder, would overwrite a version with other bytes, changed while it was read, or could not
//! be asked about, the run is refused after phase 3 and nothing is pushed: a CI job that publishes a tree never leaves half a release behind because of a
//! package it could have known about. A failure during phase 3 (the network) is that
//! package's own; what was pushed stays, and a second run pushes the rest (the pushed ones
//! are unchanged by then).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::oci::Reference;
use crate::tree::{Outcome, PackageFailure};

use super::{Planned, PublishStatus, Published, ShareError, Transfers};

/// How a tree is published.
pub struct TreeOptions<'a> {
    pub dry_run: bool,
    /// Packages prepared, asked about and pushed at once.
    pub jobs: usize,
    pub signer: Option<&'a crate::sign::SecretKey>,
}

/// What became of a tree.
#[derive(Debug)]
pub struct TreePublished {
    pub outcomes: Vec<Outcome<Published>>,
    /// Whether the run was refused before anything was sent (the packages without a failure
    /// are then `not-pushed` or `unchanged`).
    pub refused: bool,
}

fn failure(error: ShareError) -> PackageFailure {
    let class = error.class();
    let hint = error.hint();
    let failure = PackageFailure::of(&error, class, hint);
    match error {
        ShareError::Invalid(report) => failure.with_report(Some(report)),
        _ => failure,
    }
}

/// Publishes every package of `packages` to `base/<namespace>/<id>:<version>`: see the module
/// documentation for the phases and when the whole run is refused.
pub fn publish_tree(
    client: &crate::http::Client,
    packages: &[PathBuf],
    base: &Reference,
    options: &TreeOptions<'_>,
    transfers: &(dyn Transfers + Sync),
) -> TreePublished {
    let jobs = options.jobs.max(1);
    // Phase 1: every package validated where it is and digested (no copy yet).
    let look = |package: &PathBuf| super::look(package);
    let looks = crate::jobs::map_jobs(jobs, packages, &look);
    // A tree holds each squad once: a second folder of the same squad would push over the
    // first one's version, or race it.
    let mut first: BTreeMap<String, &PathBuf> = BTreeMap::new();
    let mut steps: Vec<Step<'_>> = Vec::new();
    for (path, result) in packages.iter().zip(looks) {
        steps.push(match result {
            Ok(look) => {
                let name = format!("{}/{}", look.identity.namespace, look.identity.id);
                match first.get(&name) {
                    Some(other) => Step::Failed(PackageFailure::refused(
                        format!(
                            "{name} is also the squad in `{}`: a tree holds each squad once",
                            other.display()
                        ),
                        None,
                    )),
                    None => {
                        first.insert(name, path);
                        Step::Looked(look)
                    }
                }
            }
            Err(error) => Step::Failed(failure(error)),
        });
    }
    // Phase 2: each version asked of the registry, at once.
    steps = in_parallel(jobs, steps, &|step| match step {
        Step::Looked(look) => match super::ask(client, base, look, options.dry_run) {
            Ok(asked) => Step::Asked(Box::new(asked)),
            Err(error) => Step::Failed(failure(error)),
        },
        other => other,
    });
    // Phase 3: what must be pushed read into its private copy, packed and signed; it must
    // still be what was looked at.
    steps = in_parallel(jobs, steps, &|step| match step {
        Step::Asked(asked) if asked.existing.is_none() => {
            let prepared = super::prepare_signed(&asked.look.path, options.signer);
            match prepared.and_then(|prepared| asked.prepared(prepared)) {
                Ok(planned) => Step::Planned(Box::new(planned)),
                Err(error) => Step::Failed(failure(error)),
            }
        }
        other => other,
    });
    let refused = steps.iter().any(|step| matches!(step, Step::Failed(_)));
    // Phase 4, unless refused: push what the registry lacks; sign what it has.
    let hold = refused || options.dry_run;
    let held = if refused {
        PublishStatus::NotPushed
    } else {
        PublishStatus::DryRun
    };
    let done = in_parallel(jobs, steps, &|step| match step {
        Step::Asked(asked) if hold => match asked.unchanged(None, true) {
            Ok(published) => Step::Done(Box::new(published)),
            Err(error) => Step::Failed(failure(error)),
        },
        Step::Asked(asked) => match asked.unchanged(options.signer, false) {
            Ok(published) => Step::Done(Box::new(published)),
            Err(error) => Step::Failed(failure(error)),
        },
        Step::Planned(planned) if hold => Step::Done(Box::new(planned.held(held))),
        Step::Planned(planned) => match super::push(*planned, false, transfers) {
            Ok(published) => Step::Done(Box::new(published)),
            Err(error) => Step::Failed(failure(error)),
        },
        other => other,
    });
    TreePublished {
        outcomes: packages
            .iter()
            .zip(done)
            .map(|(path, step)| Outcome {
                path: path.clone(),
                result: match step {
                    Step::Done(published) => Ok(*published),
                    Step::Failed(failure) => Err(failure),
                    _ => Err(PackageFailure::refused(
                        "the package was not published",
                        None,
                    )),
                },
            })
            .collect(),
        refused,
    }
}

/// Where one package of a tree is in the run.
enum Step<'c> {
    Looked(super::Look),
    Asked(Box<super::Asked<'c>>),
    Planned(Box<Planned<'c>>),
    Done(Box<Published>),
    Failed(PackageFailure),
}

/// `work` over every step, at most `jobs` at once, results in order.
fn in_parallel<'c>(
    jobs: usize,
    steps: Vec<Step<'c>>,
    work: &(dyn Fn(Step<'c>) -> Step<'c> + Sync),
) -> Vec<Step<'c>> {
    let tasks: Vec<crate::jobs::Task<'_, Step<'c>>> = steps
        .into_iter()
        .map(|step| Box::new(move || work(step)) as crate::jobs::Task<'_, Step<'c>>)
        .collect();
    crate::jobs::run_jobs(jobs, tasks)
}
