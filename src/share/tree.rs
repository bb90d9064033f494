//! `squad publish TREE oci://HOST/BASE`: every package of a tree of squads, all or nothing up to
//! the first byte sent.
//!
//! The run goes in three phases, each over every package at once (within a bound):
//!
//! 1. prepare: each package is read once, validated, packed and (with a key) signed;
//! 2. plan: the registry is asked for each package's version: not there (to push), there with
//!    the same package digest (unchanged, no error), or there with another (a conflict);
//! 3. push: only what the registry lacks is sent, blobs it has skipped, signatures attached.
//!
//! If any package is invalid, is the same squad as another folder, would overwrite a version
//! with other bytes, or could not be asked about, the run is refused after phase 2 and nothing
//! is pushed: a CI job that publishes a tree never leaves half a release behind because of a
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
    let prepare = |package: &PathBuf| super::prepare_signed(package, options.signer);
    let prepared = crate::jobs::map_jobs(jobs, packages, &prepare);
    // A tree holds each squad once: a second folder of the same squad would push over the
    // first one's version, or race it.
    let mut first: BTreeMap<String, &PathBuf> = BTreeMap::new();
    let mut results: Vec<Result<super::Prepared, PackageFailure>> = Vec::new();
    for (path, result) in packages.iter().zip(prepared) {
        results.push(match result {
            Ok(prepared) => {
                let name = format!("{}/{}", prepared.identity.namespace, prepared.identity.id);
                match first.get(&name) {
                    Some(other) => Err(PackageFailure::refused(
                        format!(
                            "{name} is also the squad in `{}`: a tree holds each squad once",
                            other.display()
                        ),
                        None,
                    )),
                    None => {
                        first.insert(name, path);
                        Ok(prepared)
                    }
                }
            }
            Err(error) => Err(failure(error)),
        });
    }
    // Phase 2 for the prepared packages, at once.
    let slots: Vec<std::sync::Mutex<Option<super::Prepared>>> = results
        .iter_mut()
        .map(|result| {
            let taken = match result {
                Ok(_) => std::mem::replace(result, Err(PackageFailure::refused("", None))).ok(),
                Err(_) => None,
            };
            std::sync::Mutex::new(taken)
        })
        .collect();
    let plan = |slot: &std::sync::Mutex<Option<super::Prepared>>| {
        let prepared = slot.lock().ok().and_then(|mut slot| slot.take());
        prepared
            .map(|prepared| super::plan(client, base, prepared, options.dry_run).map_err(failure))
    };
    let planned: Vec<Option<Result<Planned<'_>, PackageFailure>>> =
        crate::jobs::map_jobs(jobs, &slots, &plan);
    let mut steps: Vec<Result<Planned<'_>, PackageFailure>> = results
        .into_iter()
        .zip(planned)
        .map(|(prepared, planned)| match (prepared, planned) {
            (_, Some(planned)) => planned,
            (Err(failure), None) => Err(failure),
            (Ok(_), None) => unreachable!("every prepared package was planned"),
        })
        .collect();
    let refused = steps.iter().any(Result::is_err);
    if refused || options.dry_run {
        let status = if refused {
            PublishStatus::NotPushed
        } else {
            PublishStatus::DryRun
        };
        let outcomes = packages
            .iter()
            .zip(steps)
            .map(|(path, step)| Outcome {
                path: path.clone(),
                result: step.map(|planned| planned.held(status)),
            })
            .collect();
        return TreePublished { outcomes, refused };
    }
    // Phase 3: nothing stands in the way; push what the registry lacks.
    let slots: Vec<std::sync::Mutex<Option<Planned<'_>>>> = steps
        .iter_mut()
        .map(|step| {
            let taken = std::mem::replace(step, Err(PackageFailure::refused("", None))).ok();
            std::sync::Mutex::new(taken)
        })
        .collect();
    let push = |slot: &std::sync::Mutex<Option<Planned<'_>>>| {
        let planned = slot
            .lock()
            .ok()
            .and_then(|mut slot| slot.take())
            .expect("every package was planned");
        super::push(planned, false, transfers).map_err(failure)
    };
    let pushed = crate::jobs::map_jobs(jobs, &slots, &push);
    TreePublished {
        outcomes: packages
            .iter()
            .zip(pushed)
            .map(|(path, result)| Outcome {
                path: path.clone(),
                result,
            })
            .collect(),
        refused: false,
    }
}
