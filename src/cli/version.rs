//! `squad version bump` and `squad version check`: revisions as the reference stamps them, for
//! one package or a tree of squads.

use std::path::{Path, PathBuf};

use super::args::NetworkArgs;
use super::documents::{
    self, Against, BumpSummary, PlainBump, TreeSummary, VersionBumped, VersionChecked,
};
use super::{DataFormat, ExitStatus, Format};
use crate::output::Printer;
use crate::release::changed::{Baseline, CheckStatus, StampStatus};
use crate::release::record::FILE_NAME;
use crate::tree::{Outcome, Tree};

macro_rules! bump_exit_help {
    () => {
        "\n\nExit status: 0 done, 1 refused (a version dated after today, a versions record squad \
did not write, a package that cannot be read as a versioned package), 2 usage, network or I/O \
error. Over a tree, the worst of its packages."
    };
}

macro_rules! check_exit_help {
    () => {
        "\n\nExit status: 0 every package passes, 1 a package's bytes moved without a new \
version, a version is published with other bytes, a package is not recorded at its version, or \
a version is dated after today, 2 usage, network or I/O error. Over a tree, the worst of its \
packages."
    };
}

/// Work with the package's version (YYYY.MM.DD.N), of one package or of every package of a
/// tree (a folder whose child folders are packages).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad version bump                 stamp the next revision of today's date
  squad version bump --changed squads/          only the squads whose content moved
  squad version check squads/ --registry oci://ghcr.io/acme/squads
  squad version check --published dist/pkg.zip")]
pub struct VersionArgs {
    #[command(subcommand)]
    pub command: VersionCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum VersionCommand {
    Bump(BumpArgs),
    Check(CheckArgs),
}

/// Stamp the next version: today's UTC date, revision N+1 if the version is already dated
/// today, else 1. A version dated after today is refused (a bump never goes backwards). Only
/// the version string changes; comments and layout are kept byte for byte. An invalid version
/// is repaired: `2026.12.1.1` is read as `2026.12.01.1`, anything else is replaced by today's
/// first revision.
///
/// With --changed, only the packages whose content moved are stamped: those whose content
/// digest (CD-1: every file, the version masked) differs from their baseline's at the same
/// version. The baseline is the newest version published under --registry, or the tree's
/// versions record (`squad-versions.json` beside the package folders, or --record), which the
/// run then rewrites with each package's version and content digest. A package new to the
/// baseline, or whose author bumped already, is left as it is; a second run changes nothing.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad version bump my-squad      2026.11.30.1 -> 2026.11.30.2 when run the same day
  squad version bump squads/       every package of the tree
  squad version bump --changed squads/                      against squads/squad-versions.json
  squad version bump --changed squads/ --registry oci://ghcr.io/acme/squads
  squad version bump --changed squads/ --dry-run --format json", bump_exit_help!()))]
pub struct BumpArgs {
    /// A package folder, or a folder of packages. Defaults to the current directory.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,

    /// Stamp only the packages whose content moved under their baseline's version.
    #[arg(long)]
    pub changed: bool,

    /// With --changed: compare with the newest version published under this base
    /// (`oci://HOST/BASE`, the packages being at BASE/<namespace>/<id>) instead of the record.
    #[arg(long, value_name = "oci://HOST/BASE", requires = "changed")]
    pub registry: Option<String>,

    /// With --changed: the versions record [default: squad-versions.json in the folder that
    /// holds the packages].
    #[arg(
        long,
        value_name = "FILE",
        requires = "changed",
        conflicts_with = "registry"
    )]
    pub record: Option<PathBuf>,

    /// Say what would be stamped; write nothing.
    #[arg(long, requires = "changed")]
    pub dry_run: bool,

    /// Registry lookups at once.
    #[arg(long, default_value_t = super::args::DEFAULT_JOBS, value_name = "N")]
    pub jobs: usize,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Check versions for CI: each a real date, not after today; against a baseline, also that no
/// package's bytes moved without a new version. With --registry: no version is published
/// with other bytes (the newest: the package changed without a bump; an older one: a version
/// that would overwrite another). With --record (or the tree's `squad-versions.json`, used
/// when it exists): each package is recorded at its version with its content. With
/// --published: the package did not change since that archive without a new version.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad version check
  squad version check squads/ --registry oci://ghcr.io/acme/squads
  squad version check squads/ --record squads/squad-versions.json --format json
  squad version check pkg --published dist/pkg-2026.12.01.1-expert-squad.zip", check_exit_help!()))]
pub struct CheckArgs {
    /// A package folder, or a folder of packages. Defaults to the current directory.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,

    /// Compare with what is published under this base (`oci://HOST/BASE`).
    #[arg(long, value_name = "oci://HOST/BASE")]
    pub registry: Option<String>,

    /// Compare with this versions record [default: squad-versions.json in the folder that
    /// holds the packages, when it exists].
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,

    /// The last published archive of the package (made by `squad pack`).
    #[arg(long, value_name = "ARCHIVE")]
    pub published: Option<PathBuf>,

    /// Registry lookups at once.
    #[arg(long, default_value_t = super::args::DEFAULT_JOBS, value_name = "N")]
    pub jobs: usize,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub fn run(args: &VersionArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        VersionCommand::Bump(args) => bump(args, printer),
        VersionCommand::Check(args) => check(args, printer),
    }
}

fn bump(args: &BumpArgs, printer: &Printer) -> ExitStatus {
    let format = Format::from(args.format);
    let tree = match super::inputs::tree(&args.path, format, printer) {
        Ok(tree) => tree,
        Err(status) => return status,
    };
    let today = crate::env::today_utc();
    if !args.changed {
        let outcomes = crate::release::bump::bump_all(&tree.packages, today);
        return report_plain_bumps(args, &tree, &outcomes, printer);
    }
    let client = args.network.client();
    let baseline = match &args.registry {
        Some(registry) => match crate::share::publish_base(registry) {
            Ok(base) => Baseline::Registry {
                client: &client,
                base,
                jobs: args.jobs.max(1),
            },
            Err(error) => {
                return super::failures::report_share_error(printer, format, error);
            }
        },
        None => {
            let path = args
                .record
                .clone()
                .unwrap_or_else(|| tree.holder().join(FILE_NAME));
            match Baseline::record(&path) {
                Ok(baseline) => baseline,
                Err(error) => {
                    printer.failure(&error, error.hint());
                    return error.class().into();
                }
            }
        }
    };
    let stamped =
        match crate::release::changed::bump_changed(&tree.packages, &baseline, today, args.dry_run)
        {
            Ok(stamped) => stamped,
            Err(error) => {
                printer.failure(&error, error.hint());
                return error.class().into();
            }
        };
    let bumped = stamped
        .outcomes
        .iter()
        .filter(
            |outcome| matches!(&outcome.result, Ok(stamp) if stamp.status == StampStatus::Bumped),
        )
        .count();
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "version-bump",
            VersionBumped {
                path: args.path.display().to_string(),
                changed: true,
                baseline: Some(baseline.kind()),
                against: Some(baseline.shown()),
                dry_run: args.dry_run,
                packages: documents::tree_packages(&stamped.outcomes, |stamp| stamp),
                record_written: stamped.record_written,
                dropped: stamped.dropped.clone(),
                summary: BumpSummary {
                    packages: stamped.outcomes.len(),
                    bumped,
                    failed: failed(&stamped.outcomes),
                },
            },
        ),
        DataFormat::Human => {
            for outcome in &stamped.outcomes {
                let Ok(stamp) = &outcome.result else {
                    continue;
                };
                let name = format!("{}/{}", stamp.namespace, stamp.id);
                let against = stamp.baseline_version.as_deref().unwrap_or("none");
                match stamp.status {
                    StampStatus::Bumped if args.dry_run => printer.status(
                        "Would bump",
                        &format!("{name} {} -> {}", stamp.before, stamp.version),
                    ),
                    StampStatus::Bumped => printer.status(
                        "Bumped",
                        &format!("{name} {} -> {}", stamp.before, stamp.version),
                    ),
                    StampStatus::Unchanged => printer.status(
                        "Unchanged",
                        &format!(
                            "{name} {} (content as {})",
                            stamp.version,
                            match baseline {
                                Baseline::Registry { .. } => "published",
                                _ => "recorded",
                            }
                        ),
                    ),
                    StampStatus::New => printer.status(
                        "New",
                        &format!("{name} {} (not in the {})", stamp.version, baseline.kind()),
                    ),
                    StampStatus::Ahead => printer.status(
                        "Ahead",
                        &format!(
                            "{name} {} (the {} has {against})",
                            stamp.version,
                            baseline.kind()
                        ),
                    ),
                    StampStatus::Behind => printer.status(
                        "Behind",
                        &format!(
                            "{name} {} (the {} has {against})",
                            stamp.version,
                            baseline.kind()
                        ),
                    ),
                }
            }
            for name in &stamped.dropped {
                printer.status(
                    "Dropped",
                    &format!("{name} from the record (not in the tree)"),
                );
            }
            if stamped.record_written {
                printer.status("Wrote", &baseline.shown());
            }
            if args.dry_run {
                printer.status("", "nothing was written (--dry-run)");
            }
        }
    }
    super::failures::report_package_failures(printer, format, &stamped.outcomes)
}

fn report_plain_bumps(
    args: &BumpArgs,
    tree: &Tree,
    outcomes: &[Outcome<crate::release::bump::Bumped>],
    printer: &Printer,
) -> ExitStatus {
    let format = Format::from(args.format);
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "version-bump",
            VersionBumped {
                path: args.path.display().to_string(),
                changed: false,
                baseline: None,
                against: None,
                dry_run: false,
                packages: documents::tree_packages(outcomes, |bumped| {
                    let (namespace, id) = match bumped.name.as_deref().map(|n| n.split_once('/')) {
                        Some(Some((namespace, id))) => {
                            (Some(namespace.to_owned()), Some(id.to_owned()))
                        }
                        _ => (None, None),
                    };
                    PlainBump {
                        namespace,
                        id,
                        status: "bumped",
                        before: bumped.before.clone(),
                        version: bumped.after.to_string(),
                        baseline_version: None,
                        content_digest: None,
                    }
                }),
                record_written: false,
                dropped: Vec::new(),
                summary: BumpSummary {
                    packages: outcomes.len(),
                    bumped: outcomes
                        .iter()
                        .filter(|outcome| outcome.result.is_ok())
                        .count(),
                    failed: failed(outcomes),
                },
            },
        ),
        DataFormat::Human => {
            for outcome in outcomes {
                let Ok(bumped) = &outcome.result else {
                    continue;
                };
                let name = bumped
                    .name
                    .as_ref()
                    .map(|name| format!("{name} "))
                    .unwrap_or_default();
                let before = match &bumped.before_read_as {
                    Some(read_as) if read_as.starts_with("not ") => {
                        format!("{} ({read_as})", bumped.before)
                    }
                    Some(read_as) => format!("{} (read as {read_as})", bumped.before),
                    None => bumped.before.clone(),
                };
                printer.status("Bumped", &format!("{name}{before} -> {}", bumped.after));
                if !tree.is_tree {
                    printer.data(&format!("{}\n", bumped.after));
                }
            }
        }
    }
    super::failures::report_package_failures(printer, format, outcomes)
}

fn check(args: &CheckArgs, printer: &Printer) -> ExitStatus {
    let format = Format::from(args.format);
    let tree = match super::inputs::tree(&args.path, format, printer) {
        Ok(tree) => tree,
        Err(status) => return status,
    };
    let client = args.network.client();
    let mut against = Vec::new();
    if let Some(archive) = &args.published {
        if tree.is_tree {
            printer.error(
                "--published names the archive of one package; a tree is checked against --registry or --record",
                None,
            );
            return ExitStatus::Error;
        }
        against.push(Baseline::Archive {
            path: archive.clone(),
        });
    }
    if let Some(registry) = &args.registry {
        match crate::share::publish_base(registry) {
            Ok(base) => against.push(Baseline::Registry {
                client: &client,
                base,
                jobs: args.jobs.max(1),
            }),
            Err(error) => return super::failures::report_share_error(printer, format, error),
        }
    }
    let default_record = tree.holder().join(FILE_NAME);
    let record = match &args.record {
        Some(path) => Some(path.clone()),
        None => Path::new(&default_record)
            .exists()
            .then(|| default_record.clone()),
    };
    if let Some(path) = record {
        match Baseline::record(&path) {
            Ok(baseline) => {
                printer.detail(&format!("checking against the record `{}`", path.display()));
                against.push(baseline);
            }
            Err(error) => {
                printer.failure(&error, error.hint());
                return error.class().into();
            }
        }
    }
    let outcomes =
        crate::release::changed::check_tree(&tree.packages, &against, crate::env::today_utc());
    let failing = outcomes
        .iter()
        .filter(|outcome| matches!(&outcome.result, Ok(checked) if checked.status.fails()))
        .count();
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "version-check",
            VersionChecked {
                path: args.path.display().to_string(),
                against: against
                    .iter()
                    .map(|baseline| Against {
                        baseline: baseline.kind(),
                        at: baseline.shown(),
                    })
                    .collect(),
                packages: documents::tree_packages(&outcomes, |checked| checked),
                summary: TreeSummary {
                    packages: outcomes.len(),
                    failed: failed(&outcomes) + failing,
                },
            },
        ),
        DataFormat::Human => {
            for outcome in &outcomes {
                let Ok(checked) = &outcome.result else {
                    continue;
                };
                let name = format!(
                    "{}/{} version {}",
                    checked.namespace, checked.id, checked.version
                );
                match checked.status {
                    CheckStatus::Ok => printer.status("Checked", &name),
                    CheckStatus::New => {
                        printer.status("Checked", &format!("{name} (not published yet)"))
                    }
                    status => {
                        let hint = match status {
                            CheckStatus::Future => "`squad version bump` stamps today's date",
                            CheckStatus::Unrecorded => {
                                "run `squad version bump --changed` to record it, and commit the record"
                            }
                            _ => {
                                "run `squad version bump --changed`: a published (namespace, id, version) is immutable"
                            }
                        };
                        printer.error(
                            &format!(
                                "{}: {}",
                                outcome.shown(),
                                checked.message.as_deref().unwrap_or("fails the check")
                            ),
                            Some(hint),
                        );
                    }
                }
            }
        }
    }
    let status = super::failures::report_package_failures(printer, format, &outcomes);
    if failing > 0 {
        status.max(ExitStatus::Failure)
    } else {
        status
    }
}

fn failed<T>(outcomes: &[Outcome<T>]) -> usize {
    outcomes
        .iter()
        .filter(|outcome| outcome.result.is_err())
        .count()
}
