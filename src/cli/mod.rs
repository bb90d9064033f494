//! The command line: argument types (clap derive) and dispatch. Each command lives in its own
//! file, turns its arguments into library calls and reports through [`Printer`].

/// The exit statuses of the signing commands' `--help` (a literal: help text is not formatted
/// at start-up).
macro_rules! signing_exit_help {
    () => {
        "\n\nExit status: 0 done, 1 refused (a wrong password, a malformed key, an invalid package), \
2 usage or I/O error (a file that exists already, no terminal to ask for the password)."
    };
}

/// The exit statuses every project command's `--help` ends with (a literal: help text is not
/// formatted at start-up).
macro_rules! project_exit_help {
    () => {
        "\n\nExit status: 0 done, 1 refused (squads.jsonc or squads.lock cannot be used, the files \
disagree under --locked, bytes that differ from the lock, an invalid package), 2 usage, network or \
I/O error (an offline sync that misses an archive in the cache)."
    };
}

mod activate;
mod args;
mod audit;
mod cache;
mod collab;
mod diff;
mod digest;
mod documents;
mod explain;
mod failures;
mod fix;
mod handoff;
mod index;
mod init;
mod inputs;
mod install;
mod key;
mod lint;
mod list;
mod lsp;
mod meta;
mod new;
mod ofp;
mod pack;
mod play;
mod project;
mod registry;
mod report;
mod router;
mod scaffold;
mod search;
mod show;
mod sign;
mod trust;
mod uninstall;
mod update;
mod validate;
mod verify;
mod version;

use clap::{Parser, Subcommand, ValueEnum};

use crate::output::{ColorChoice, Printer};

/// Exit statuses, as documented in `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: everything checked is valid (warnings allowed).
    Success,
    /// 1: a package is invalid.
    Failure,
    /// 2: the command could not do its job (usage, missing folder, I/O).
    Error,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Error => 2,
        }
    }

    /// The worse of two statuses.
    pub fn max(self, other: ExitStatus) -> ExitStatus {
        if other.code() > self.code() {
            other
        } else {
            self
        }
    }
}

impl From<crate::error::Class> for ExitStatus {
    fn from(class: crate::error::Class) -> ExitStatus {
        match class {
            crate::error::Class::Refused => ExitStatus::Failure,
            crate::error::Class::Failed => ExitStatus::Error,
        }
    }
}

/// Output format for commands that report results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Diagnostics rendered for people, on stderr.
    Human,
    /// One versioned JSON document on stdout (see docs/json-output.md).
    Json,
    /// SARIF 2.1.0 on stdout, for code-scanning uploads.
    Sarif,
    /// GitHub Actions annotations (`::error file=…,line=…::…`) on stdout.
    Github,
}

/// Output format for commands that report results but no diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DataFormat {
    /// Lines for people.
    Human,
    /// One versioned JSON document on stdout (see docs/json-output.md).
    Json,
}

/// A data command's failure is reported like a diagnostic command's, in its format.
impl From<DataFormat> for Format {
    fn from(format: DataFormat) -> Format {
        match format {
            DataFormat::Human => Format::Human,
            DataFormat::Json => Format::Json,
        }
    }
}

const AFTER_HELP: &str = "\
Exit status:
  0  success (warnings allowed)
  1  a package is invalid or has drifted, or an install was refused (conflict, limits)
  2  usage error, or a path could not be read or written

Environment:
  NO_COLOR          disables colour when set to a non-empty value
  OPENCORVUS_HOME   OpenCorvus data root (default: the per-OS data directory)
  SQUAD_TODAY       YYYY-MM-DD to use as today's UTC date (for reproducible tests)
  SQUAD_NOW         YYYY-MM-DDTHH:MM:SSZ to use as the UTC time (an index's build and expiry)
  SQUAD_HTTP_TIMEOUT  seconds to wait to connect to a registry or for any read (default 10 / 30)
  SQUAD_HTTP_DEADLINE seconds one whole request may take, its body included (default 300)
  SQUAD_NET_DEADLINE  seconds all of a command's requests (and credential helpers, 30 s at
                      most each) may take (default 1800)
  SQUAD_NET_RETRY   retries after 429, 5xx or a dropped connection (default 3)
  SQUAD_CACHE_DIR   squad's download cache (default: the per-OS user cache directory)
  SQUAD_HEARTBEAT   seconds between the progress lines of a long transfer without a terminal
                    (default 10)
  SQUAD_REGISTRY_HOST, SQUAD_REGISTRY_USERNAME, SQUAD_REGISTRY_TOKEN  credentials for that one
                    registry, for CI (never printed)
  DOCKER_AUTH_CONFIG  a Docker config.json given as a value, read before the files
  DOCKER_CONFIG, REGISTRY_AUTH_FILE  where registry credentials are read and written";

/// The heading the options every command takes are listed under, apart from its own.
const GLOBAL: &str = "Global options";

/// A parsed command line: squad's own options and the command to run.
#[derive(Debug)]
pub struct Cli {
    pub color: ColorChoice,
    pub quiet: bool,
    pub verbose: bool,
    pub command: Command,
}

/// A package manager for expert-squad packages: scaffold, check, fingerprint, pack and install.
// The top of the command line without its subcommands, so that `parse` can add only the one it
// runs; `command` adds them all.
#[derive(Debug, Parser)]
#[command(
    name = "squad",
    version,
    about,
    after_help = AFTER_HELP,
    subcommand_required = true,
    arg_required_else_help = true
)]
struct Globals {
    /// When to use colour in human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true, help_heading = GLOBAL)]
    color: ColorChoice,

    /// Print only errors: no warnings, notes or status lines.
    #[arg(long, short, global = true, conflicts_with = "verbose", help_heading = GLOBAL)]
    quiet: bool,

    /// Print more: every diagnostic (without it, a file shows at most 20 of each code and 50 in
    /// all, then how many more there are), the files validation read, each fix `squad fix`
    /// made, and how long the command took.
    #[arg(long, short, global = true, help_heading = GLOBAL)]
    verbose: bool,
}

/// Each command's arguments are built only when it is the one run ([`parse`]).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    Validate(validate::ValidateArgs),
    Audit(audit::AuditArgs),
    Fix(fix::FixArgs),
    Digest(digest::DigestArgs),
    Pack(pack::PackArgs),
    Verify(verify::VerifyArgs),
    Key(key::KeyArgs),
    Sign(sign::SignArgs),
    Trust(trust::TrustArgs),
    Install(install::InstallArgs),
    Show(show::ShowArgs),
    Search(search::SearchArgs),
    Index(index::IndexArgs),
    Diff(diff::DiffArgs),
    Publish(registry::PublishArgs),
    Pull(registry::PullArgs),
    Versions(registry::VersionsArgs),
    Login(registry::LoginArgs),
    Logout(registry::LogoutArgs),
    Uninstall(uninstall::UninstallArgs),
    Init(init::InitArgs),
    Add(project::AddArgs),
    Remove(project::RemoveArgs),
    Sync(project::SyncArgs),
    Outdated(update::OutdatedArgs),
    Update(update::UpdateArgs),
    Cache(cache::CacheArgs),
    List(list::ListArgs),
    Activate(activate::ActivateArgs),
    Projects(list::ProjectsArgs),
    New(new::NewArgs),
    Scaffold(scaffold::ScaffoldArgs),
    Version(version::VersionArgs),
    Collab(collab::CollabArgs),
    Lint(lint::LintArgs),
    Import(play::ImportArgs),
    Export(play::ExportArgs),
    Explain(explain::ExplainArgs),
    Lsp(lsp::LspArgs),
    Router(router::RouterArgs),
    Handoff(handoff::HandoffArgs),
    Ofp(ofp::OfpArgs),
    Schema(meta::SchemaArgs),
    Completions(meta::CompletionsArgs),
    Man(meta::ManArgs),
}

/// The whole command tree: for help, completions and the man page. The subcommands come first
/// so that squad's own description, not [`Command`]'s, heads the help.
pub fn command() -> clap::Command {
    use clap::{Args, Subcommand};
    Globals::augment_args(Command::augment_subcommands(clap::Command::new("squad")))
}

/// Parses the command line, building only what it names. Every subcommand's arguments are
/// deferred (`#[command(defer = true)]`), and a command line that names one gets that one
/// subcommand alone, `--version` none: building the tree and copying the three global options
/// into each of its 45 subcommands cost some 160 KB of heap and 40 page faults, a tenth of
/// `squad --version`. Where the tree's summary can be shown (`squad --help`, `squad help`, a
/// misspelt or missing command), the whole [`command`] is parsed, so help and suggestions read
/// as before.
pub fn parse() -> Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let command = only_named(&args).unwrap_or_else(whole);
    parse_with(command, &args).unwrap_or_else(|error| error.exit())
}

/// The command line's top with only the subcommand `args` name, if they name one.
fn only_named(args: &[std::ffi::OsString]) -> Option<clap::Command> {
    use clap::{Args, CommandFactory, Subcommand};
    match named(args.iter().skip(1))? {
        Named::Version => Some(Globals::command()),
        Named::Command(name) => {
            // The shells are cheap (each one's arguments are deferred); the named one is taken.
            let mut shells = Command::augment_subcommands(clap::Command::new("squad"));
            let one = std::mem::take(shells.find_subcommand_mut(name)?);
            Some(Globals::augment_args(
                clap::Command::new("squad").subcommand(one),
            ))
        }
    }
}

/// The whole tree, built, for help and suggestions that name every command.
fn whole() -> clap::Command {
    let mut all = command();
    all.build();
    all
}

fn parse_with(mut command: clap::Command, args: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let matches = command.try_get_matches_from_mut(args)?;
    let globals =
        Globals::from_arg_matches(&matches).map_err(|error| error.format(&mut command))?;
    let subcommand =
        Command::from_arg_matches(&matches).map_err(|error| error.format(&mut command))?;
    Ok(Cli {
        color: globals.color,
        quiet: globals.quiet,
        verbose: globals.verbose,
        command: subcommand,
    })
}

/// What a command line names before anything of the tree is shown.
enum Named<'a> {
    /// `--version` alone.
    Version,
    /// A word after only global options, perhaps a subcommand's name or alias.
    Command(&'a str),
}

/// What `args` name after only global options, if nothing else of the tree is shown.
fn named<'a>(args: impl Iterator<Item = &'a std::ffi::OsString>) -> Option<Named<'a>> {
    let mut args = args.peekable();
    if let Some(first) = args.peek() {
        if *first == "--version" || *first == "-V" {
            return args.nth(1).is_none().then_some(Named::Version);
        }
    }
    while let Some(arg) = args.next() {
        let arg = arg.to_str()?;
        match arg {
            "-q" | "--quiet" | "-v" | "--verbose" => {}
            "--color" => {
                args.next();
            }
            _ if arg.starts_with("--color=") => {}
            _ if arg.starts_with('-') || arg == "help" => return None,
            name => return Some(Named::Command(name)),
        }
    }
    None
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> ExitStatus {
    let printer = Printer::new(cli.color, cli.quiet, cli.verbose);
    let started = std::time::Instant::now();
    let status = dispatch(cli.command, &printer);
    printer.detail(&format!(
        "finished in {:.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    ));
    status
}

fn dispatch(command: Command, printer: &Printer) -> ExitStatus {
    match command {
        Command::Validate(args) => validate::run(&args, printer),
        Command::Audit(args) => audit::run(&args, printer),
        Command::Fix(args) => fix::run(&args, printer),
        Command::Digest(args) => digest::run(&args, printer),
        Command::Pack(args) => pack::run(&args, printer),
        Command::Verify(args) => verify::run(&args, printer),
        Command::Key(args) => key::run_key(&args, printer),
        Command::Sign(args) => sign::run_sign(&args, printer),
        Command::Trust(args) => trust::run_trust(&args, printer),
        Command::Install(args) => install::run_install(&args, printer),
        Command::Show(args) => show::run(&args, printer),
        Command::Search(args) => search::run(&args, printer),
        Command::Index(args) => index::run(&args, printer),
        Command::Diff(args) => diff::run(&args, printer),
        Command::Publish(args) => registry::run_publish(&args, printer),
        Command::Pull(args) => registry::run_pull(&args, printer),
        Command::Versions(args) => registry::run_versions(&args, printer),
        Command::Login(args) => registry::run_login(&args, printer),
        Command::Logout(args) => registry::run_logout(&args, printer),
        Command::Uninstall(args) => uninstall::run_uninstall(&args, printer),
        Command::Init(args) => init::run(&args, printer),
        Command::Add(args) => project::run_add(&args, printer),
        Command::Remove(args) => project::run_remove(&args, printer),
        Command::Sync(args) => project::run_sync(&args, printer),
        Command::Outdated(args) => update::run_outdated(&args, printer),
        Command::Update(args) => update::run_update(&args, printer),
        Command::Cache(args) => cache::run(&args, printer),
        Command::List(args) => list::run_list(&args, printer),
        Command::Activate(args) => activate::run_activate(&args, printer),
        Command::Projects(args) => list::run_projects(&args, printer),
        Command::New(args) => new::run(&args, printer),
        Command::Scaffold(args) => scaffold::run(&args, printer),
        Command::Version(args) => version::run(&args, printer),
        Command::Collab(args) => collab::run(&args, printer),
        Command::Lint(args) => lint::run(&args, printer),
        Command::Import(args) => play::run_import(&args, printer),
        Command::Export(args) => play::run_export(&args, printer),
        Command::Explain(args) => explain::run(&args, printer),
        Command::Lsp(args) => lsp::run(&args, printer),
        Command::Router(args) => router::run(&args, printer),
        Command::Handoff(args) => handoff::run(&args, printer),
        Command::Ofp(args) => ofp::run(&args, printer),
        Command::Schema(args) => meta::schema(&args, printer),
        Command::Completions(args) => meta::completions(&args, printer),
        Command::Man(args) => meta::man(&args, printer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What parsing `line` gives, or the error's kind and text.
    fn outcome(command: clap::Command, line: &[&str]) -> String {
        let args: Vec<std::ffi::OsString> = line.iter().map(Into::into).collect();
        match parse_with(command, &args) {
            Ok(cli) => format!("{cli:?}"),
            Err(error) => format!("{:?}: {}", error.kind(), error.render()),
        }
    }

    #[test]
    fn a_command_line_parses_the_same_with_only_the_command_it_names_as_with_the_whole_tree() {
        let lines: &[&[&str]] = &[
            &["squad", "--version"],
            &["squad", "-V"],
            &["squad", "validate", "a", "b", "--format", "json"],
            &["squad", "-q", "--color", "never", "validate", "a"],
            &["squad", "--color=always", "pack", "a", "-v"],
            &["squad", "validate", "--bogus"],
            &["squad", "validate", "-q", "-v"],
            &["squad", "validate", "--help"],
            &["squad", "key", "generate", "--help"],
            &["squad", "key"],
            &["squad", "install"],
            &["squad", "sync", "--locked", "--project", "p"],
        ];
        for line in lines {
            let args: Vec<std::ffi::OsString> = line.iter().map(Into::into).collect();
            let only = only_named(&args).expect("names one command");
            assert_eq!(outcome(only, line), outcome(whole(), line), "{line:?}");
        }
    }

    #[test]
    fn a_command_line_that_shows_the_tree_gets_the_whole_tree() {
        for line in [
            &["squad"][..],
            &["squad", "--help"],
            &["squad", "help"],
            &["squad", "help", "validate"],
            &["squad", "-q"],
            &["squad", "valdate"],
            &["squad", "--version", "validate"],
        ] {
            let args: Vec<std::ffi::OsString> = line.iter().map(Into::into).collect();
            assert!(only_named(&args).is_none(), "{line:?}");
        }
    }
}
