//! `squad cache dir` and `squad cache clean`: squad's download cache.

use super::ExitStatus;
use crate::cache::Cache;
use crate::output::{Printer, human_bytes};

/// Show or empty squad's download cache.
///
/// Archives downloaded for a project (registry, https:// and install-link squads) are kept by
/// their SHA-256, checked again on every read, so a second sync needs no network and
/// `squad sync --offline` works. The cache is $SQUAD_CACHE_DIR, else the per-OS user cache
/// directory ($XDG_CACHE_HOME/squad or ~/.cache/squad, ~/Library/Caches/squad,
/// %LOCALAPPDATA%\squad\cache).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad cache dir
  squad cache clean")]
pub struct CacheArgs {
    #[command(subcommand)]
    pub command: CacheCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum CacheCommand {
    Dir(DirArgs),
    Clean(CleanArgs),
}

/// Print the cache directory.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  du -sh \"$(squad cache dir)\"")]
pub struct DirArgs {}

/// Remove every cached archive.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  squad cache clean")]
pub struct CleanArgs {}

pub fn run(args: &CacheArgs, printer: &Printer) -> ExitStatus {
    let Some(cache) = Cache::from_env() else {
        printer.error(
            "cannot tell where squad's download cache is",
            Some("set SQUAD_CACHE_DIR to a directory"),
        );
        return ExitStatus::Error;
    };
    match args.command {
        CacheCommand::Dir(_) => {
            printer.data(&format!("{}\n", cache.root().display()));
            ExitStatus::Success
        }
        CacheCommand::Clean(_) => match cache.clean() {
            Ok(cleaned) => {
                printer.status(
                    "Removed",
                    &format!(
                        "{} archive{} ({}) from {}",
                        cleaned.files,
                        crate::text::plural(cleaned.files as usize),
                        human_bytes(cleaned.bytes),
                        cache.root().display()
                    ),
                );
                ExitStatus::Success
            }
            Err(error) => {
                printer.failure(&error, None);
                error.class().into()
            }
        },
    }
}
