//! `squad fix`: apply the fixes the diagnostics carry, in place.

use std::path::PathBuf;

use super::documents::{FixDocument, Fixed};
use super::report::{Inspected, print_json, report, validate_document};
use super::{ExitStatus, Format};
use crate::fix::{FixError, Plan, plan, unified_diff, write};
use crate::output::Printer;
use crate::package::{self, Located};

/// Fix a package's problems that have one certain fix, in place, keeping comments and layout.
///
/// PATH may also be a project's `.opencorvus/squads.jsonc`, or a folder that holds one and is
/// no package (by default, the project found from the current directory when it is no
/// package): its misspelt keys with one close match and versions written without their zeros
/// are fixed the same way. squads.lock is never edited: `squad sync` writes it.
///
/// Applies every machine-applicable suggestion (`suggestions` in `squad validate --format json`):
/// lists put in canonical order and repeats removed, `fs` imports written `node:fs`, versions
/// written with their zeros (`2026.12.1.1` -> `2026.12.01.1`), ids made kebab-case where
/// nothing else names them, fixed values written (`selector.md`, a prompt's path), a misspelt
/// key, role, tool, agent or node with exactly one close match corrected, a missing resource
/// array added empty. A misspelt package ref is only suggested: the resource may be missing.
/// Each fix is a splice of the file's text. The package is validated again after every pass
/// (one fix can reveal another) and once more when written; what is left is reported as
/// `squad validate` reports it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad fix                          fix the package in the current directory
  squad fix squads/review --dry-run  print the changes as a diff; write nothing
  squad fix .opencorvus/squads.jsonc a project's squads.jsonc
  squad fix --format json . > fix.json")]
pub struct FixArgs {
    /// The package folder, or a project's `.opencorvus/squads.jsonc`. Defaults to the current
    /// directory.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,

    /// Print the changes as a unified diff on stdout instead of writing them.
    #[arg(long)]
    pub dry_run: bool,

    /// Output format (json: the `squad validate` document of the fixed package, with the fixes).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(args: &FixArgs, printer: &Printer) -> ExitStatus {
    if let Some(project) = project_target(args) {
        return run_project(args, printer, &project);
    }
    let shown = args.path.display().to_string();
    if package::locate(&args.path) != Located::Package {
        printer.error(
            &super::inputs::not_a_package(&args.path),
            Some("`squad fix` works on one package folder at a time"),
        );
        return ExitStatus::Error;
    }
    let planned = match plan(&args.path) {
        Ok(planned) => planned,
        Err(error) => {
            printer.failure(&error, None);
            return ExitStatus::Error;
        }
    };
    let files = planned.changes.len();
    let fixes = planned.applied.len();
    if args.dry_run {
        if args.format == Format::Human {
            let diff: String = planned
                .changes
                .iter()
                .map(|change| unified_diff(&shown, change))
                .collect();
            printer.data(&diff);
        }
        for applied in &planned.applied {
            printer.detail(&format!(
                "{}: {} ({})",
                applied.file,
                applied.message,
                applied.code.as_str()
            ));
        }
        let message = if fixes == 0 {
            "nothing: no problem of this package has a certain fix".to_owned()
        } else {
            format!(
                "{fixes} problem{} in {files} file{} (--dry-run: nothing was written)",
                plural(fixes),
                plural(files)
            )
        };
        printer.status("Would fix", &message);
        if args.format == Format::Human {
            // Positions in what is left would point into files not yet written: counts only.
            let left = crate::diag::json::Summary::of(&planned.report.diagnostics);
            printer.status(
                "Would leave",
                &format!(
                    "{} error{}, {} warning{}",
                    left.errors,
                    plural(left.errors),
                    left.warnings,
                    plural(left.warnings)
                ),
            );
            return if left.errors > 0 {
                ExitStatus::Failure
            } else {
                ExitStatus::Success
            };
        }
        let inspected = planned_report(&planned);
        return finish(printer, args, &shown, &planned, inspected);
    }
    if let Err(error) = write(&args.path, &planned) {
        let hint = matches!(error, FixError::Changed(_)).then_some("run `squad fix` again");
        printer.failure(&error, hint);
        return ExitStatus::Error;
    }
    for change in &planned.changes {
        let count = planned
            .applied
            .iter()
            .filter(|applied| applied.file == change.file)
            .count();
        printer.status(
            "Fixed",
            &format!(
                "{} ({count} fix{})",
                crate::diag::sarif::display_file(&shown, &change.file),
                if count == 1 { "" } else { "es" }
            ),
        );
    }
    for applied in &planned.applied {
        printer.detail(&format!(
            "{}: {} ({})",
            applied.file,
            applied.message,
            applied.code.as_str()
        ));
    }
    if fixes == 0 {
        printer.status(
            "Fixed",
            "nothing: no problem of this package has a certain fix",
        );
    }
    // What the user gets is what is on disk now, checked once more.
    let inspected = match package::validate(&args.path) {
        Ok(report) => Inspected::package(report),
        Err(error) => {
            printer.failure(&error, None);
            return ExitStatus::Error;
        }
    };
    finish(printer, args, &shown, &planned, inspected)
}

/// The package as it would be after the fixes.
fn planned_report(planned: &Plan) -> Inspected {
    Inspected {
        kind: crate::interop::Kind::Package,
        name: planned
            .report
            .identity
            .as_ref()
            .map(package::Identity::display),
        diagnostics: planned.report.diagnostics.clone(),
        sources: planned.report.sources.clone(),
    }
}

/// Reports what is left, in the format asked for.
fn finish(
    printer: &Printer,
    args: &FixArgs,
    shown: &str,
    planned: &Plan,
    inspected: Inspected,
) -> ExitStatus {
    if args.format == Format::Json {
        let document = FixDocument {
            report: validate_document(shown, &inspected),
            kind: "fix",
            dry_run: args.dry_run,
            fixes: planned
                .applied
                .iter()
                .map(|applied| Fixed {
                    file: &applied.file,
                    code: applied.code.as_str(),
                    message: &applied.message,
                })
                .collect(),
            changed_files: planned
                .changes
                .iter()
                .map(|change| change.file.as_str())
                .collect(),
        };
        print_json(printer, &document);
        return if crate::diag::has_errors(&inspected.diagnostics) {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        };
    }
    report(
        printer,
        args.format,
        false,
        vec![(shown.to_owned(), Ok(inspected))],
    )
}

fn plural(count: usize) -> &'static str {
    crate::text::plural(count)
}

/// The project whose `squads.jsonc` PATH names: the file itself, or a folder that is no package
/// and holds `.opencorvus/squads.jsonc` (for the default `.`, the project found from here).
fn project_target(args: &FixArgs) -> Option<crate::project::Project> {
    let path = &args.path;
    let declared = std::path::Path::new(crate::project::declared::FILE);
    if path.is_file() {
        let root = path.parent()?.parent()?;
        let root = if root.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            root
        };
        let absolute = root.canonicalize().ok()?;
        return (absolute.join(declared).canonicalize().ok()? == path.canonicalize().ok()?)
            .then(|| crate::project::Project::new(absolute, root.display().to_string()));
    }
    if package::locate(path) == Located::Package
        && path.join(crate::manifest::MANIFEST_FILE).exists()
    {
        return None;
    }
    if path.join(declared).is_file() {
        let absolute = path.canonicalize().ok()?;
        return Some(crate::project::Project::new(
            absolute,
            path.display().to_string(),
        ));
    }
    if path != std::path::Path::new(".") {
        return None;
    }
    let here = std::env::current_dir().ok()?;
    let root = crate::project::discover(&here)?;
    let depth = here
        .canonicalize()
        .ok()?
        .strip_prefix(&root)
        .ok()?
        .components()
        .count();
    let shown = if depth == 0 {
        ".".to_owned()
    } else {
        vec![".."; depth].join("/")
    };
    Some(crate::project::Project::new(root, shown))
}

/// `squad fix` of a project's `squads.jsonc`.
fn run_project(args: &FixArgs, printer: &Printer, project: &crate::project::Project) -> ExitStatus {
    let report_error = |error: crate::project::ProjectError| {
        super::failures::project_error(printer, args.format, "fix", project, error)
    };
    let planned = match crate::project::fix::plan(project) {
        Ok(planned) => planned,
        Err(error) => return report_error(error),
    };
    let fixes = planned.applied.len();
    let file = project.display(crate::project::declared::FILE);
    for applied in &planned.applied {
        printer.detail(&format!(
            "{}: {} ({})",
            applied.file,
            applied.message,
            applied.code.as_str()
        ));
    }
    let inspected = if args.dry_run {
        if args.format == Format::Human {
            let diff: String = planned
                .changes
                .iter()
                .map(|change| unified_diff(&project.shown, change))
                .collect();
            printer.data(&diff);
        }
        printer.status(
            "Would fix",
            &format!(
                "{fixes} problem{} in {file} (--dry-run: nothing was written)",
                plural(fixes)
            ),
        );
        planned_report(&planned)
    } else {
        let written = match crate::project::fix::write(
            project,
            &planned,
            &mut super::report::waiting(printer),
        ) {
            Ok(written) => written,
            Err(error) => return report_error(error),
        };
        let what = if fixes == 0 {
            format!("nothing in {file}: no problem of it has a certain fix")
        } else {
            format!("{file} ({fixes} fix{})", if fixes == 1 { "" } else { "es" })
        };
        printer.status("Fixed", &what);
        Inspected {
            kind: crate::interop::Kind::Package,
            name: None,
            diagnostics: written.diagnostics,
            sources: written.sources,
        }
    };
    if args.format == Format::Json {
        return finish(printer, args, &project.shown, &planned, inspected);
    }
    super::report::project_diagnostics(
        printer,
        args.format,
        &project.shown,
        &inspected.diagnostics,
        &inspected.sources,
    );
    let left = crate::diag::json::Summary::of(&inspected.diagnostics);
    if left.errors > 0 {
        printer.error(
            &format!(
                "{file} {} {} error{} squad cannot fix with certainty",
                if args.dry_run { "would have" } else { "has" },
                left.errors,
                plural(left.errors)
            ),
            Some("fix what the diagnostics point at; `squad explain CODE` says more"),
        );
        return ExitStatus::Failure;
    }
    ExitStatus::Success
}
