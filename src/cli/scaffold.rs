//! `squad scaffold`: add an agent, skill, tool, MCP server or workflow node to a package.

use std::path::PathBuf;

use super::ExitStatus;
use super::report::{Inspected, print_diagnostics, report};
use crate::output::Printer;
use crate::package::{self, Located};
use crate::scaffold::{
    AgentSpec, GenerateError, McpSpec, NodeSpec, Piece, ResourceSpec, apply, plan,
};

/// Add a piece to a package: an agent with its prompt, a skill, a tool, an MCP server or a
/// workflow node.
///
/// The manifest is edited in place: its comments, key order and indentation stay as they
/// were, and the new block is written in the same style. New files are created, never
/// replaced. A name that clashes with an id or a file of the package is refused and nothing is
/// touched. The result is validated before it is written; the package is left with no error it
/// did not have.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad scaffold agent analyst --role requirements --description \"Writes the problem statement.\"
  squad scaffold agent writer --role build --workflow respond --depends-on analyst
  squad scaffold skill triage-method                 shared, projected by every agent
  squad scaffold skill build-notes --agent writer    local to one agent
  squad scaffold tool summarize --for writer --for orchestrator
  squad scaffold mcp tracker --url https://tracker.example/mcp --tool list_issues
  squad scaffold workflow respond --agent reviewer --depends-on writer
  squad scaffold agent analyst --package squads/postmortem")]
pub struct ScaffoldArgs {
    #[command(subcommand)]
    pub piece: PieceArgs,
}

/// The package to add to, and where to find it.
#[derive(Debug, clap::Args)]
pub struct PackageArg {
    /// The package folder.
    #[arg(long = "package", short = 'p', value_name = "DIR", default_value = ".")]
    pub package: PathBuf,
}

/// Where a new skill, tool or MCP server lives and who projects it.
#[derive(Debug, clap::Args)]
pub struct PlacementArgs {
    /// Make it local to this agent (`agents/<AGENT>/…`, projected by that agent only);
    /// `orchestrator` is the scheduler. Without it, it is shared (`skills/`, `tools/`, `mcp/`).
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,

    /// A projection that uses it (repeatable; `orchestrator` is the scheduler) [default: the
    /// scheduler and every agent for a shared one, its agent for a local one].
    #[arg(long = "for", value_name = "AGENT")]
    pub projections: Vec<String>,
}

#[derive(Debug, clap::Subcommand)]
pub enum PieceArgs {
    /// An agent: its projection (all 13 resource arrays, empty) and its prompt
    /// agents/<ID>/system.md; with --workflow, also a node that runs it.
    #[command(after_help = "Examples:
  squad scaffold agent analyst --role requirements --label \"Analyst\"
  squad scaffold agent reviewer --role integrity --workflow respond --depends-on writer")]
    Agent {
        /// The agent id (lower-kebab-case; not orchestrator, shared or universal-build).
        #[arg(value_name = "ID")]
        id: String,
        /// The base role (one of the 13 runtime templates; it decides which built-in tools the
        /// agent may project; see docs/authoring.md).
        #[arg(long, value_name = "ROLE", default_value = "delegated-worker")]
        role: String,
        /// The display label [default: the id in title case].
        #[arg(long)]
        label: Option<String>,
        /// What the agent does, in one sentence (routes and plays are made from it).
        #[arg(long)]
        description: Option<String>,
        /// Also add a node running the agent to this workflow (created if it does not exist).
        #[arg(long, value_name = "WORKFLOW")]
        workflow: Option<String>,
        /// A node of the workflow the new node depends on (repeatable).
        #[arg(
            long,
            value_name = "NODE",
            requires = "workflow",
            value_delimiter = ','
        )]
        depends_on: Vec<String>,
        #[command(flatten)]
        package: PackageArg,
    },
    /// A skill: <folder>/SKILL.md with frontmatter whose `name` is the folder's, projected in
    /// package_skill_refs.
    #[command(after_help = "Examples:
  squad scaffold skill triage-method --description \"How to triage an incident.\"
  squad scaffold skill build-notes --agent writer")]
    Skill {
        /// The skill's folder and frontmatter name (lower-kebab-case).
        #[arg(value_name = "NAME")]
        name: String,
        /// When an agent should use it (the frontmatter `description`).
        #[arg(long)]
        description: Option<String>,
        #[command(flatten)]
        placement: PlacementArgs,
        #[command(flatten)]
        package: PackageArg,
    },
    /// A tool: <NAME>.ts with an `export default tool({…})` stub, projected in
    /// package_tool_refs.
    #[command(after_help = "Examples:
  squad scaffold tool summarize-timeline --description \"Summarize an incident timeline\"
  squad scaffold tool record-artifact --agent writer")]
    Tool {
        /// The tool id and file name (lower-kebab-case).
        #[arg(value_name = "NAME")]
        name: String,
        /// The tool's description, as the model reads it.
        #[arg(long)]
        description: Option<String>,
        #[command(flatten)]
        placement: PlacementArgs,
        #[command(flatten)]
        package: PackageArg,
    },
    /// An MCP server declaration mcp/<NAME>.jsonc (remote, over HTTP), mounted whole in
    /// package_mcp_server_refs.
    #[command(after_help = "Examples:
  squad scaffold mcp tracker --url https://tracker.example/mcp --tool list_issues --prompt triage
  squad scaffold mcp wiki --url https://wiki.example/sse --transport sse --agent writer")]
    Mcp {
        /// The server id and file name (lower-kebab-case).
        #[arg(value_name = "NAME")]
        name: String,
        /// The server's URL (http: or https:).
        #[arg(long)]
        url: String,
        /// How to reach it.
        #[arg(long, default_value = "streamable-http", value_parser = ["streamable-http", "sse"])]
        transport: String,
        /// A tool the server offers (repeatable).
        #[arg(long = "tool", value_name = "NAME")]
        tools: Vec<String>,
        /// A prompt the server offers (repeatable).
        #[arg(long = "prompt", value_name = "NAME")]
        prompts: Vec<String>,
        /// A resource the server offers (repeatable).
        #[arg(long = "resource", value_name = "NAME")]
        resources: Vec<String>,
        /// A comment about the server, written above the declaration.
        #[arg(long)]
        description: Option<String>,
        #[command(flatten)]
        placement: PlacementArgs,
        #[command(flatten)]
        package: PackageArg,
    },
    /// A workflow node running an agent, with its depends_on; the workflow is created when it
    /// does not exist.
    #[command(after_help = "Examples:
  squad scaffold workflow respond --agent analyst
  squad scaffold workflow respond --agent writer --depends-on analyst
  squad scaffold workflow respond --agent reviewer --node final-review --depends-on analyst,writer")]
    Workflow {
        /// The workflow id (lower-kebab-case).
        #[arg(value_name = "WORKFLOW")]
        workflow: String,
        /// The agent the node runs.
        #[arg(long)]
        agent: String,
        /// The node id [default: the agent id].
        #[arg(long)]
        node: Option<String>,
        /// A node the new node depends on (repeatable, or comma-separated); written sorted.
        #[arg(long, value_name = "NODE", value_delimiter = ',')]
        depends_on: Vec<String>,
        /// What the node does [default: the agent's description].
        #[arg(long)]
        description: Option<String>,
        /// The label of a new workflow [default: its id in title case].
        #[arg(long)]
        label: Option<String>,
        /// The description of a new workflow.
        #[arg(long, value_name = "TEXT")]
        workflow_description: Option<String>,
        #[command(flatten)]
        package: PackageArg,
    },
}

fn resource(name: &str, description: &Option<String>, placement: &PlacementArgs) -> ResourceSpec {
    ResourceSpec {
        name: name.to_owned(),
        owner: placement.agent.clone(),
        projections: placement.projections.clone(),
        description: description.clone(),
    }
}

pub fn run(args: &ScaffoldArgs, printer: &Printer) -> ExitStatus {
    let (piece, root) = match &args.piece {
        PieceArgs::Agent {
            id,
            role,
            label,
            description,
            workflow,
            depends_on,
            package,
        } => (
            Piece::Agent(AgentSpec {
                id: id.clone(),
                role: role.clone(),
                label: label.clone(),
                description: description.clone(),
                workflow: workflow.clone(),
                depends_on: depends_on.clone(),
            }),
            &package.package,
        ),
        PieceArgs::Skill {
            name,
            description,
            placement,
            package,
        } => (
            Piece::Skill(resource(name, description, placement)),
            &package.package,
        ),
        PieceArgs::Tool {
            name,
            description,
            placement,
            package,
        } => (
            Piece::Tool(resource(name, description, placement)),
            &package.package,
        ),
        PieceArgs::Mcp {
            name,
            url,
            transport,
            tools,
            prompts,
            resources,
            description,
            placement,
            package,
        } => (
            Piece::Mcp(McpSpec {
                resource: resource(name, description, placement),
                url: url.clone(),
                transport: transport.clone(),
                tools: tools.clone(),
                prompts: prompts.clone(),
                resources: resources.clone(),
            }),
            &package.package,
        ),
        PieceArgs::Workflow {
            workflow,
            agent,
            node,
            depends_on,
            description,
            label,
            workflow_description,
            package,
        } => (
            Piece::Node(NodeSpec {
                workflow: workflow.clone(),
                node: node.clone(),
                agent: agent.clone(),
                depends_on: depends_on.clone(),
                description: description.clone(),
                workflow_label: label.clone(),
                workflow_description: workflow_description.clone(),
            }),
            &package.package,
        ),
    };
    if package::locate(root) != Located::Package || !root.is_dir() {
        printer.error(
            &super::inputs::not_a_package(root),
            Some("pass the package folder with --package DIR"),
        );
        return ExitStatus::Error;
    }
    let shown = root.display().to_string();
    let result = plan(root, &piece).and_then(|planned| {
        let report = apply(root, &planned)?;
        Ok((planned, report))
    });
    match result {
        Ok((planned, report)) => {
            for action in &planned.actions {
                let (verb, rest) = action.split_once(' ').unwrap_or((action, ""));
                let mut verb = verb.to_owned();
                if let Some(first) = verb.get_mut(..1) {
                    first.make_ascii_uppercase();
                }
                printer.status(&verb, rest);
            }
            report_package(printer, &shown, report)
        }
        Err(GenerateError::Breaks(report, new_errors)) => {
            print_diagnostics(printer, &shown, &new_errors, &report.sources);
            printer.error(
                &GenerateError::Breaks(report, Vec::new()).to_string(),
                Some("this is a bug in squad when the package was valid; please report it with the command you ran"),
            );
            ExitStatus::Failure
        }
        Err(error) => {
            printer.failure(&error, error.hint().as_deref());
            error.class().into()
        }
    }
}

/// The package after the change, as `squad validate` reports it (notes left to `validate`).
fn report_package(printer: &Printer, shown: &str, mut validated: package::Report) -> ExitStatus {
    validated
        .diagnostics
        .retain(|diagnostic| diagnostic.severity() != crate::diag::Severity::Note);
    report(
        printer,
        super::Format::Human,
        false,
        vec![(shown.to_owned(), Ok(Inspected::package(validated)))],
    )
}
