//! What several commands check before they work: the inputs of `validate` (a package folder,
//! a folder of packages, an archive, a document of the neighbouring formats) and the digest
//! of a folder or an archive under the tree contract, with their refusals reported once.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use super::report::{Failure, Inspected, refused_package, report};
use super::{ExitStatus, Format};
use crate::archive::reader::{Limits, read_package_file};
use crate::diag::Diagnostic;
use crate::digest::{Progress, TreeDigest, digest_entries, digest_entries_with_files};
use crate::interop::document::{Document, Read};
use crate::interop::external::ExternalSchema;
use crate::interop::{self, Kind, Options};
use crate::manifest::MANIFEST_FILE;
use crate::output::{Printer, ProgressLine};
use crate::package::{self, ContractDigestError, contract_digest};
use crate::snapshot::is_archive;

/// Checks every input of `squad validate` (and `squad ofp validate`): package folders (a folder
/// without a manifest is a folder of packages), package archives and documents of the
/// neighbouring formats, then reports them all in `format`.
pub fn validate(
    paths: &[PathBuf],
    kind: Option<Kind>,
    options: &Options,
    schema: Option<&Path>,
    deny_warnings: bool,
    format: Format,
    printer: &Printer,
) -> ExitStatus {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    // What each input is, said in order; then each is checked on its own.
    enum Check {
        Path(PathBuf),
        Package(PathBuf),
        NotAPackage(PathBuf),
    }
    let mut checks = Vec::new();
    for path in &paths {
        // A folder without a manifest is a folder of packages, or no package at all.
        let located = match kind {
            None | Some(Kind::Package) => package::locate(path),
            Some(_) => package::Located::Package,
        };
        match located {
            package::Located::Package => checks.push(Check::Path(path.clone())),
            package::Located::Packages(children) => {
                printer.detail(&format!(
                    "`{}` holds no {MANIFEST_FILE}; validating the {} packages in it",
                    path.display(),
                    children.len()
                ));
                checks.extend(children.into_iter().map(Check::Package));
            }
            package::Located::NotAPackage => checks.push(Check::NotAPackage(path.clone())),
        }
    }
    let check = |check: &Check, schema: Option<&mut ExternalSchema>| match check {
        Check::Path(path) => (
            path.display().to_string(),
            check_path(path, kind, options, schema),
        ),
        Check::Package(path) => (path.display().to_string(), check_package(path)),
        Check::NotAPackage(path) => (
            path.display().to_string(),
            Err(Failure {
                message: not_a_package(path),
                hint: None,
            }),
        ),
    };
    let results: Vec<(String, Result<Inspected, Failure>)> = match schema {
        // An external schema is compiled once and kept: one input after the other.
        Some(schema) => {
            let mut schema = ExternalSchema::new(schema);
            checks
                .iter()
                .map(|one| check(one, Some(&mut schema)))
                .collect()
        }
        // On every core at once, reported in order.
        None => crate::jobs::map_jobs(crate::jobs::cores(), &checks, &|one| check(one, None)),
    };
    for (shown, result) in &results {
        if let Ok(inspected) = result {
            describe(printer, shown, inspected);
        }
    }
    report(printer, format, deny_warnings, results)
}

/// The refusal for a folder that holds no manifest, in it or in any child.
pub fn not_a_package(path: &Path) -> String {
    format!(
        "`{}` is not a squad package (no {MANIFEST_FILE}); create one with `squad new`",
        path.display()
    )
}

/// With `--verbose`, what was read for one input.
fn describe(printer: &Printer, shown: &str, inspected: &Inspected) {
    if !printer.verbose {
        return;
    }
    let mut files: Vec<&String> = inspected.sources.keys().collect();
    files.sort();
    let bytes: usize = inspected
        .sources
        .values()
        .map(|source| source.text.len())
        .sum();
    let what = match &inspected.name {
        Some(name) => format!("{} {name}", inspected.kind.noun()),
        None => inspected.kind.noun().to_owned(),
    };
    printer.detail(&format!(
        "{shown}: {what}; read {} text file{} ({bytes} bytes){}{}; {} diagnostic{}",
        files.len(),
        crate::text::plural(files.len()),
        if files.is_empty() { "" } else { ": " },
        files
            .iter()
            .map(|file| file.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        inspected.diagnostics.len(),
        crate::text::plural(inspected.diagnostics.len()),
    ));
}

fn check_path(
    path: &Path,
    kind: Option<Kind>,
    options: &Options,
    schema: Option<&mut ExternalSchema>,
) -> Result<Inspected, Failure> {
    let shown = path.display();
    if path.is_dir() {
        if kind.is_some_and(|kind| kind != Kind::Package) {
            return Err(Failure {
                message: format!("`{shown}` is a folder; only a package is a folder"),
                hint: Some("pass the document's file, or drop --kind"),
            });
        }
        return check_package(path);
    }
    if crate::snapshot::is_archive(path) {
        return match package::validate_archive(path) {
            Ok(report) => Ok(Inspected::package(report)),
            Err(package::ArchiveValidateError::Archive(error)) => Err(Failure {
                message: format!("`{shown}` is not a usable package archive: {error}"),
                hint: Some(
                    "archives are read within the reference's import limits, with the checks `squad install` makes",
                ),
            }),
            Err(error) => Err(Failure {
                message: crate::error::chain(&error),
                hint: None,
            }),
        };
    }
    if path.file_name().is_some_and(|name| name == MANIFEST_FILE)
        && kind.is_none_or(|kind| kind == Kind::Package)
    {
        let parent = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty());
        return check_package(parent.unwrap_or(Path::new(".")));
    }
    if !path.exists() {
        if kind.is_some_and(|kind| kind != Kind::Package) {
            return Err(Failure {
                message: format!("`{shown}` does not exist"),
                hint: None,
            });
        }
        return check_package(path);
    }
    check_document(path, kind, options, schema, |_, _| {})
}

/// Checks the document at `path` as `kind`, or as what its content says it is, against
/// `schema` too when given; `also` adds the findings of checks only the caller knows about.
/// A file that is not JSON is a finding; one that cannot be read, or whose kind cannot be
/// told, a failure.
pub fn check_document(
    path: &Path,
    kind: Option<Kind>,
    options: &Options,
    schema: Option<&mut ExternalSchema>,
    also: impl FnOnce(&Document, &mut Vec<Diagnostic>),
) -> Result<Inspected, Failure> {
    let shown = path.display();
    let document = match Document::read(path) {
        Ok(Read::Parsed(document)) => document,
        Ok(Read::Unparsed(_)) if kind.is_none() && !is_json_name(path) => {
            return Err(Failure {
                message: format!(
                    "`{shown}` is not a folder (a package is a folder that holds {MANIFEST_FILE}) nor a JSON document"
                ),
                hint: Some("pass --kind to check the file as a document of that kind"),
            });
        }
        Ok(Read::Unparsed(unparsed)) => {
            // Not JSON, or too large: a finding about the file, whatever kind it was meant to be.
            return Ok(Inspected::document(
                kind.unwrap_or(Kind::Unknown),
                vec![unparsed.diagnostic],
                unparsed.source,
            ));
        }
        Err(error) => {
            return Err(Failure {
                message: format!("cannot read `{shown}`: {error}"),
                hint: None,
            });
        }
    };
    let kind = match kind.or_else(|| interop::sniff(&document.value)) {
        Some(Kind::Package) => {
            return Err(Failure {
                message: format!("`{shown}` is a manifest; validate its package folder instead"),
                hint: Some("a package is checked as a whole: `squad validate DIR`"),
            });
        }
        Some(kind) => kind,
        None => {
            return Err(Failure {
                message: format!(
                    "cannot tell what kind of document `{shown}` is; pass --kind with one of: {}",
                    Kind::ALL
                        .iter()
                        .map(|kind| kind.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                hint: Some("`squad validate --help` lists what each kind is"),
            });
        }
    };
    let mut diagnostics = interop::check(&document, kind, options);
    if let Some(schema) = schema {
        let extra = schema
            .check(&document, kind, options.level, &diagnostics)
            .map_err(|message| Failure {
                message,
                hint: None,
            })?;
        diagnostics.extend(extra);
    }
    also(&document, &mut diagnostics);
    Ok(Inspected::document(kind, diagnostics, document.source))
}

fn check_package(path: &Path) -> Result<Inspected, Failure> {
    match package::validate(path) {
        Ok(report) => Ok(Inspected::package(report)),
        Err(error) => Err(Failure {
            message: crate::error::chain(&error),
            hint: None,
        }),
    }
}

fn is_json_name(path: &Path) -> bool {
    path.extension().is_some_and(|extension| {
        extension.eq_ignore_ascii_case("json") || extension.eq_ignore_ascii_case("jsonc")
    })
}

/// Digests a folder under the raw tree contract, rendering contract violations on failure.
/// The root `.opencorvus-meta.json` of an installed package is excluded, not refused (DG-1).
pub fn digest_path(
    printer: &Printer,
    format: Format,
    path: &Path,
    with_files: bool,
    check_root: bool,
    limits: &Limits,
) -> Result<TreeDigest, ExitStatus> {
    let shown = path.display().to_string();
    if is_archive(path) {
        let package = read_package_file(path, limits).map_err(|error| {
            printer.error(
                &format!("`{shown}` is not a usable package archive: {error}"),
                Some("archives are read within the reference's import limits; pass --no-limits for one packed with --no-limits"),
            );
            ExitStatus::Failure
        })?;
        return Ok(if with_files {
            digest_entries_with_files(&package.files)
        } else {
            TreeDigest {
                package_digest: digest_entries(&package.files),
                files: Vec::new(),
            }
        });
    }
    let progress = std::sync::Arc::new(Progress::default());
    let display = {
        let progress = progress.clone();
        ProgressLine::start(move || {
            format!(
                "    Digesting {}/{} files, {} MiB",
                progress.files.load(Ordering::Relaxed),
                progress.total.load(Ordering::Relaxed),
                progress.bytes.load(Ordering::Relaxed) >> 20
            )
        })
    };
    let result = contract_digest(path, check_root, with_files, &progress);
    // The progress line is erased before anything else is printed.
    drop(display);
    match result {
        Ok(tree) => Ok(tree),
        Err(ContractDigestError::Contract(diagnostics)) => {
            refused_package(printer, format, &shown, &diagnostics, &Default::default());
            printer.error(
                &format!("`{shown}` breaks the package tree contract; it has no digest"),
                None,
            );
            Err(ExitStatus::Failure)
        }
        Err(error) => {
            printer.failure(&error, None);
            Err(ExitStatus::Error)
        }
    }
}

/// The packages `path` names (a package, or a folder of packages), or the status to exit with
/// after saying why.
pub fn tree(
    path: &Path,
    format: Format,
    printer: &Printer,
) -> Result<crate::tree::Tree, ExitStatus> {
    crate::tree::find(path).map_err(|error| {
        let _ = format;
        printer.failure(&error, Some(error.hint()));
        error.class().into()
    })
}
