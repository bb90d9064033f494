//! `squad router`: a squad's scheduler seen as a ck-brain-style router (seed-formats §2). Derive
//! the routes of a package, lint a router contract, and check a recorded run against one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::report::{Inspected, load_squad, print_diagnostics, report};
use super::{DataFormat, ExitStatus, Format};
use serde::Serialize;

use crate::diag::Diagnostic;
use crate::diag::json::{JsonDiagnostic, SCHEMA_VERSION, Summary};
use crate::interop::Kind;
use crate::interop::document::{Document, Read};
use crate::interop::router::conformance::{self, Case};
use crate::interop::router::{Contract, Profile, contract, implementation, routes};
use crate::output::Printer;
use crate::source::SourceFile;

/// Work with ck-brain-style routers: a squad's scheduler is a router and its agents are the
/// routes.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad router routes pkg                          the routes array of a package
  squad router routes pkg --request 'Review this paper' -o input.json
  squad router contract interop/ck/ck-brain.contract.json --profile ck-brain
  squad router check --contract c.json --input in.json --output out.json
  squad router check --input in.json --output out.json --expect unrouted")]
pub struct RouterArgs {
    #[command(subcommand)]
    pub command: RouterCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum RouterCommand {
    Routes(RoutesArgs),
    Contract(ContractArgs),
    Check(CheckArgs),
}

/// Print a package's agents as a router's routes.
///
/// One route per agent, sorted by agent id, with the agent id as the route's name and agent
/// and the agent's description as what the router classifies by.
///
/// With --request, print a complete router input document (`{request, routes}`) that
/// `squad validate --kind router-input` accepts. An agent without a description
/// (routes-desc) or a package without agents (routes-none) is an error: nothing is printed.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad router routes pkg                         the routes array, on stdout
  squad router routes pkg --request 'Check the statistics' -o in.json
  squad router routes pkg | jq -r '.[].name'")]
pub struct RoutesArgs {
    /// The package folder. Defaults to the current directory.
    #[arg(value_name = "PKG", default_value = ".")]
    pub package: PathBuf,

    /// Wrap the routes in a router input document with this request.
    #[arg(long, value_name = "TEXT")]
    pub request: Option<String>,

    /// Write to this file (replaced atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Lint a router contract (the R-* rules).
///
/// Checks the role, input, handoff, the four output states with their required fields, and
/// the ck-brain behaviour.
///
/// Implementation files are checked when given with --implementation, or found beside the
/// contract at `implementations/claude-code/<name>.md` and `implementations/codex/<name>.toml`
/// (`<name>` is the file name without `.contract.json`). Under --profile ck-brain both
/// `ck-brain` files must exist, the role must be router-orchestrator and a behaviour value
/// other than ck-brain's is an error (a warning under the generic profile).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad router contract ck-brain.contract.json
  squad router contract ck-brain.contract.json --profile ck-brain
  squad router contract router.json --implementation agents/router.md --format json")]
pub struct ContractArgs {
    /// The contract JSON.
    #[arg(value_name = "FILE")]
    pub contract: PathBuf,

    /// The contract to hold it to.
    #[arg(long, value_enum, default_value_t = Profile::Generic)]
    pub profile: Profile,

    /// An implementation file (.md Claude Code subagent or .toml Codex agent); repeatable.
    /// Replaces the discovery beside the contract.
    #[arg(long, value_name = "FILE")]
    pub implementation: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Check a recorded router run against a contract (the RC-* rules).
///
/// The answer's status fits the configuration, it names one declared route and that route's
/// agent, its handoff has the contract's fields, an ambiguous case is answered `unrouted`, and
/// the delegate's result is passed on verbatim.
///
/// Without --contract the seed's ck-brain contract is used. A contract with errors is
/// reported and nothing else is checked.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad router check --input in.json --output out.json
  squad router check --contract ck-brain.contract.json --input in.json --output out.json
  squad router check --input ambiguous.json --output out.json --expect unrouted
  squad router check --input in.json --output out.json --delegate-result result.json")]
pub struct CheckArgs {
    /// The router contract [default: the ck-brain contract].
    #[arg(long, value_name = "FILE")]
    pub contract: Option<PathBuf>,

    /// The input the router was given: `{request, routes, context?}`.
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,

    /// The router's answer.
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,

    /// What the case expects: `unrouted` marks an ambiguous request.
    #[arg(long, value_enum)]
    pub expect: Option<Expect>,

    /// A JSON file holding the delegate's terminal result (a JSON string for text), which a
    /// `routed` answer must carry verbatim as delegated_result.
    #[arg(long, value_name = "FILE")]
    pub delegate_result: Option<PathBuf>,

    /// Output format: human, or json (`{schema_version, conforms, documents, summary}` on
    /// stdout, each document with its diagnostics as `squad validate` reports them).
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Expect {
    /// The request is ambiguous: the router must not pick a route.
    Unrouted,
}

pub fn run(args: &RouterArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        RouterCommand::Routes(args) => run_routes(args, printer),
        RouterCommand::Contract(args) => run_contract(args, printer),
        RouterCommand::Check(args) => run_check(args, printer),
    }
}

fn run_routes(args: &RoutesArgs, printer: &Printer) -> ExitStatus {
    let shown = args.package.display().to_string();
    let (squad, report) = match load_squad(
        &args.package,
        printer,
        &format!("package `{shown}` is invalid"),
        Some(super::report::FIX_PACKAGE),
    ) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    let routes = match routes::derive(&squad) {
        Ok(routes) => routes,
        Err(diagnostics) => {
            print_diagnostics(printer, &shown, &diagnostics, &report.sources);
            printer.error(
                &format!("package `{shown}` has no routes a router could classify"),
                None,
            );
            return ExitStatus::Failure;
        }
    };
    let json = match &args.request {
        Some(request) => crate::output::json_text(&routes::Input {
            request,
            routes: &routes,
        }),
        None => crate::output::json_text(&routes),
    };
    super::report::write_output(printer, args.output.as_deref(), &json)
}

fn cannot_read(path: &Path, error: &std::io::Error) -> String {
    format!("cannot read `{}`: {error}", path.display())
}

/// The findings about one file, under the path shown for it.
type Findings = (String, Inspected);

fn findings(kind: Kind, path: &Path, diagnostics: Vec<Diagnostic>, source: SourceFile) -> Findings {
    (
        path.display().to_string(),
        Inspected::document(kind, diagnostics, source),
    )
}

fn has_errors((_, inspected): &Findings) -> bool {
    crate::diag::has_errors(&inspected.diagnostics)
}

fn run_contract(args: &ContractArgs, printer: &Printer) -> ExitStatus {
    let mut all = Vec::new();
    match Document::read(&args.contract) {
        Err(error) => return fail(printer, &cannot_read(&args.contract, &error)),
        Ok(Read::Unparsed(unparsed)) => {
            all.push(findings(
                Kind::RouterContract,
                &args.contract,
                vec![unparsed.diagnostic],
                unparsed.source,
            ));
        }
        Ok(Read::Parsed(doc)) => {
            let mut diagnostics = doc.notes.clone();
            contract::lint(&doc, args.profile, &mut diagnostics);
            all.push(findings(
                Kind::RouterContract,
                &args.contract,
                diagnostics,
                doc.source,
            ));
        }
    }
    let implementations = if args.implementation.is_empty() {
        implementation::discover(&args.contract, args.profile)
    } else {
        args.implementation.clone()
    };
    for path in &implementations {
        // Implementation findings have no span, so their text is not needed to show them.
        let inspected = Inspected {
            kind: Kind::RouterContract,
            name: None,
            diagnostics: implementation::check(path),
            sources: HashMap::new(),
        };
        all.push((path.display().to_string(), inspected));
    }
    let results = all
        .into_iter()
        .map(|(shown, inspected)| (shown, Ok(inspected)))
        .collect();
    report(printer, args.format, false, results)
}

fn run_check(args: &CheckArgs, printer: &Printer) -> ExitStatus {
    let mut reported = Vec::new();
    let contract = match &args.contract {
        None => Contract::ck_brain(),
        Some(path) => match Document::read(path) {
            Err(error) => return fail(printer, &cannot_read(path, &error)),
            Ok(Read::Unparsed(unparsed)) => {
                reported.push(findings(
                    Kind::RouterContract,
                    path,
                    vec![unparsed.diagnostic],
                    unparsed.source,
                ));
                return finish(printer, args.format, &reported, &args.output);
            }
            Ok(Read::Parsed(doc)) => {
                let mut diagnostics = doc.notes.clone();
                contract::lint(&doc, Profile::Generic, &mut diagnostics);
                let model = Contract::from_value(&doc.value);
                let linted = findings(Kind::RouterContract, path, diagnostics, doc.source);
                let broken = has_errors(&linted);
                reported.push(linted);
                if broken {
                    let why = format!(
                        "contract `{}` has errors, so the run was not checked",
                        path.display()
                    );
                    return finish_with(printer, args.format, &reported, &args.output, Some(&why));
                }
                model
            }
        },
    };
    let mut documents = Vec::new();
    for path in [&args.input, &args.output] {
        match Document::read(path) {
            Err(error) => return fail(printer, &cannot_read(path, &error)),
            Ok(Read::Unparsed(unparsed)) => {
                reported.push(findings(
                    Kind::RouterInput,
                    path,
                    vec![unparsed.diagnostic],
                    unparsed.source,
                ));
            }
            Ok(Read::Parsed(doc)) => documents.push((path, doc)),
        }
    }
    let delegate_result = match &args.delegate_result {
        None => None,
        Some(path) => match Document::read(path) {
            Err(error) => return fail(printer, &cannot_read(path, &error)),
            Ok(Read::Unparsed(unparsed)) => {
                reported.push(findings(
                    Kind::Unknown,
                    path,
                    vec![unparsed.diagnostic],
                    unparsed.source,
                ));
                None
            }
            Ok(Read::Parsed(doc)) => {
                if !doc.notes.is_empty() {
                    reported.push(findings(Kind::Unknown, path, doc.notes, doc.source));
                }
                Some(doc.value)
            }
        },
    };
    if reported.iter().any(has_errors) || documents.len() != 2 {
        // The run is not judged, but what was read of it is still reported.
        for (path, doc) in documents {
            if !doc.notes.is_empty() {
                reported.push(findings(Kind::RouterInput, path, doc.notes, doc.source));
            }
        }
        return finish(printer, args.format, &reported, &args.output);
    }
    let (_, output) = documents.pop().expect("two documents");
    let (_, input) = documents.pop().expect("two documents");
    let mut diagnostics = output.notes.clone();
    conformance::check(
        &Case {
            contract: &contract,
            input: &input,
            output: &output,
            expect_unrouted: args.expect == Some(Expect::Unrouted),
            delegate_result: delegate_result.as_ref(),
        },
        &mut diagnostics,
    );
    if !input.notes.is_empty() {
        reported.push(findings(
            Kind::RouterInput,
            &args.input,
            input.notes,
            input.source,
        ));
    }
    reported.push(findings(
        Kind::RouterInput,
        &args.output,
        diagnostics,
        output.source,
    ));
    finish(printer, args.format, &reported, &args.output)
}

fn fail(printer: &Printer, message: &str) -> ExitStatus {
    printer.error(message, None);
    ExitStatus::Error
}

#[derive(Serialize)]
struct JsonRun<'a> {
    schema_version: u32,
    conforms: bool,
    documents: Vec<JsonDocument<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct JsonDocument<'a> {
    path: &'a str,
    diagnostics: Vec<JsonDiagnostic>,
}

/// Prints every finding and the verdict on the run.
fn finish(
    printer: &Printer,
    format: DataFormat,
    reported: &[Findings],
    output: &Path,
) -> ExitStatus {
    finish_with(printer, format, reported, output, None)
}

/// `unchecked` says why the run itself was not judged.
fn finish_with(
    printer: &Printer,
    format: DataFormat,
    reported: &[Findings],
    output: &Path,
    unchecked: Option<&str>,
) -> ExitStatus {
    let mut summary = Summary::default();
    for (_, inspected) in reported {
        summary.merge(Summary::of(&inspected.diagnostics));
    }
    let errors = summary.errors;
    if format == DataFormat::Json {
        let run = JsonRun {
            schema_version: SCHEMA_VERSION,
            conforms: errors == 0,
            documents: reported
                .iter()
                .map(|(shown, inspected)| JsonDocument {
                    path: shown,
                    diagnostics: inspected
                        .diagnostics
                        .iter()
                        .map(|d| JsonDiagnostic::new(d, inspected.sources.get(&d.file)))
                        .collect(),
                })
                .collect(),
            summary,
        };
        printer.data(&crate::output::json_text(&run));
    } else {
        for (shown, inspected) in reported {
            print_diagnostics(printer, shown, &inspected.diagnostics, &inspected.sources);
        }
        if let Some(why) = unchecked {
            printer.error(why, Some("`squad router contract FILE` lints it alone"));
        } else if errors == 0 {
            printer.status("Conforms", &output.display().to_string());
        } else {
            printer.error(
                &format!(
                    "the run `{}` does not conform: {errors} error{}",
                    output.display(),
                    crate::text::plural(errors)
                ),
                None,
            );
        }
    }
    if errors == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    }
}
