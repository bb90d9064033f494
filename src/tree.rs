//! A tree of squads: a folder whose direct children are package folders, as a repository that
//! keeps many squads under one folder has it. Every command that takes a package folder takes
//! a tree too (`validate`, `pack`, `publish`, `version bump`, `version check`, `digest`): it
//! finds the packages here ([`find`]), works on each, and reports one outcome per package
//! ([`Outcome`]), the run's exit status being the worst of them.
//!
//! A package is found by its manifest, exactly as `squad validate` finds it
//! ([`crate::package::locate`]); the order is the children's name order, so two runs over the
//! same tree report in the same order.

use std::path::{Path, PathBuf};

use crate::manifest::MANIFEST_FILE;
use crate::package::{Located, Report, locate};

/// The packages a path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// The path as given.
    pub root: PathBuf,
    /// The package folders, in name order: the root itself when it is a package.
    pub packages: Vec<PathBuf>,
    /// Whether the root is a folder of packages rather than one package.
    pub is_tree: bool,
}

/// Why a path names no package.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error(
        "`{}` is not a squad package (no {MANIFEST_FILE}) nor a folder of packages",
        .0.display()
    )]
    NotAPackage(PathBuf),
}

impl TreeError {
    pub fn class(&self) -> crate::error::Class {
        crate::error::Class::Failed
    }

    pub fn hint(&self) -> &'static str {
        "a package folder holds expert-squad.jsonc; a tree is a folder whose child folders do"
    }
}

/// The packages of `path`: the package it is, or the packages its child folders are.
pub fn find(path: &Path) -> Result<Tree, TreeError> {
    match locate(path) {
        Located::Package => Ok(Tree {
            root: path.to_path_buf(),
            packages: vec![path.to_path_buf()],
            is_tree: false,
        }),
        Located::Packages(packages) => Ok(Tree {
            root: path.to_path_buf(),
            packages,
            is_tree: true,
        }),
        Located::NotAPackage => Err(TreeError::NotAPackage(path.to_path_buf())),
    }
}

impl Tree {
    /// The folder that holds the packages: the tree itself, or a lone package's parent. A
    /// record of the tree lives here, beside the package folders.
    pub fn holder(&self) -> PathBuf {
        if self.is_tree {
            return self.root.clone();
        }
        match self.root.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }
}

/// Why one package of a run failed: its message, causes and hint, whether it was refused
/// (exit 1) or the work could not be done (exit 2), and an invalid package's diagnostics.
#[derive(Debug)]
pub struct PackageFailure {
    pub message: String,
    pub causes: Vec<String>,
    pub hint: Option<String>,
    pub class: crate::error::Class,
    pub report: Option<Box<Report>>,
}

impl PackageFailure {
    /// A failure with the class and causes of the error behind it.
    pub fn of(
        error: &(dyn std::error::Error + 'static),
        class: crate::error::Class,
        hint: Option<String>,
    ) -> PackageFailure {
        PackageFailure {
            message: error.to_string(),
            causes: crate::error::causes(error),
            hint,
            class,
            report: None,
        }
    }

    /// A refusal with a message of its own.
    pub fn refused(message: impl Into<String>, hint: Option<String>) -> PackageFailure {
        PackageFailure {
            message: message.into(),
            causes: Vec::new(),
            hint,
            class: crate::error::Class::Refused,
            report: None,
        }
    }

    /// The message with its causes, as one line (JSON output).
    pub fn chain(&self) -> String {
        let mut text = self.message.clone();
        for cause in &self.causes {
            text.push_str(": ");
            text.push_str(cause);
        }
        text
    }

    pub fn with_report(mut self, report: Option<Box<Report>>) -> PackageFailure {
        self.report = report;
        self
    }
}

/// What happened to one package of a run.
#[derive(Debug)]
pub struct Outcome<T> {
    /// The package folder.
    pub path: PathBuf,
    pub result: Result<T, PackageFailure>,
}

impl<T> Outcome<T> {
    pub fn shown(&self) -> String {
        self.path.display().to_string()
    }
}

/// The worst class among the failures of `outcomes` (`None`: every package succeeded).
pub fn worst<T>(outcomes: &[Outcome<T>]) -> Option<crate::error::Class> {
    let mut worst = None;
    for outcome in outcomes {
        if let Err(failure) = &outcome.result {
            worst = match (worst, failure.class) {
                (_, crate::error::Class::Failed) => Some(crate::error::Class::Failed),
                (None, class) => Some(class),
                (Some(class), _) => Some(class),
            };
        }
    }
    worst
}

/// The package digest of every package of a tree under the tree contract (with the root
/// layout), one outcome each: what `squad digest` prints for a tree.
pub fn digests(packages: &[PathBuf]) -> Vec<Outcome<crate::digest::TreeDigest>> {
    use crate::package::{ContractDigestError, contract_digest};
    packages
        .iter()
        .map(|package| Outcome {
            path: package.clone(),
            result: contract_digest(package, true, false, &crate::digest::Progress::default())
                .map_err(|error| {
                    let class = match &error {
                        ContractDigestError::Contract(_) => crate::error::Class::Refused,
                        _ => crate::error::Class::Failed,
                    };
                    PackageFailure::of(&error, class, None)
                }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_lists_its_packages_in_name_order_and_a_package_is_a_tree_of_one() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b", "a", "not-a-package"] {
            std::fs::create_dir_all(dir.path().join(name)).unwrap();
        }
        for name in ["a", "b"] {
            std::fs::write(dir.path().join(name).join(MANIFEST_FILE), "{}").unwrap();
        }
        let tree = find(dir.path()).unwrap();
        assert!(tree.is_tree);
        assert_eq!(
            tree.packages,
            vec![dir.path().join("a"), dir.path().join("b")]
        );
        assert_eq!(tree.holder(), dir.path());
        let one = find(&dir.path().join("a")).unwrap();
        assert!(!one.is_tree);
        assert_eq!(one.packages, vec![dir.path().join("a")]);
        assert_eq!(one.holder(), dir.path());
        let error = find(&dir.path().join("not-a-package")).unwrap_err();
        assert!(error.to_string().contains("not a squad package"), "{error}");
    }

    #[test]
    fn the_worst_failure_decides() {
        let outcome = |class: Option<crate::error::Class>| Outcome {
            path: PathBuf::from("p"),
            result: match class {
                None => Ok(()),
                Some(class) => Err(PackageFailure {
                    class,
                    ..PackageFailure::refused("no", None)
                }),
            },
        };
        use crate::error::Class::{Failed, Refused};
        assert_eq!(worst(&[outcome(None)]), None);
        assert_eq!(
            worst(&[outcome(None), outcome(Some(Refused))]),
            Some(Refused)
        );
        assert_eq!(
            worst(&[outcome(Some(Failed)), outcome(Some(Refused))]),
            Some(Failed)
        );
    }
}
