//! `squad show`: what a squad is and what it may make its agents do, before it is installed.

use super::args::{IndexArgs, LookArgs, look_at, open_index};
use super::documents::{self, Show, ShownFromIndex};
use super::{DataFormat, ExitStatus, Format};
use crate::capability::{Capabilities, Class, Node};
use crate::output::Printer;

/// Show what a squad is and what it may make its agents do: its agents and their base roles,
/// its workflows, its grants and the tools each agent ends up with, its MCP servers and the
/// package tools it runs.
///
/// SOURCE is anything `squad install` takes (a folder, a `.zip` archive, `oci://…`, an
/// `https://` archive with --sha256, an install link), or an installed package by
/// `namespace/id` or id. The squad is read and validated exactly as an install would read it,
/// and nothing is installed.
///
/// With --index URL, SOURCE is a squad's name (`namespace/id`, or an id one namespace has) in
/// that static index, and what is shown is what the index says of it: every version with its
/// digests, size, location, signatures' key ids, publish time, yanked flag and capability
/// summary. The index's root is checked as `squad search` checks it; a name the index lacks is
/// an error that lists similar names, never one of them in its place. Tools are marked by what they can do: run commands, write files,
/// reach the network, delegate to other agents, author squads (docs/capabilities.md).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad show ./my-squad                          a folder
  squad show oci://ghcr.io/acme/squads/acme/review:2026.12.01.1
  squad show acme/review                         the installed one (project, then global)
  squad show review.zip --format json            the document docs/json-output.md describes
  squad show acme/review --index https://squads.example.com/index/   its versions in an index

Exit status: 0 shown, 1 refused (an invalid package, bytes that are not what the source
promises), 2 usage, network or I/O error.")]
pub struct ShowArgs {
    /// The squad: a source or an installed package.
    #[arg(value_name = "SOURCE")]
    pub source: String,

    /// The SHA-256 of an `https://` source's archive (64 hex).
    #[arg(long, value_name = "HEX")]
    pub sha256: Option<String>,

    #[command(flatten)]
    pub look: LookArgs,

    #[command(flatten)]
    pub index: IndexArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub fn run(args: &ShowArgs, printer: &Printer) -> ExitStatus {
    if args.index.index.is_some() {
        return from_index(args, printer);
    }
    let format = Format::from(args.format);
    let acquired = match look_at(
        &args.source,
        args.sha256.as_deref(),
        &args.look,
        format,
        printer,
    ) {
        Ok(acquired) => acquired,
        Err(status) => return status,
    };
    let digest = acquired.package_digest().hex();
    let Some(capabilities) = crate::capability::of(&acquired.ready.report, &digest) else {
        printer.error(&format!("`{}` has no identity", args.source), None);
        return ExitStatus::Failure;
    };
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "show",
            Show {
                source: args.source.clone(),
                resolved: acquired.resolved.clone(),
                archive_sha256: acquired.archive_sha256.map(|sha| sha.hex()),
                capabilities,
            },
        ),
        // As in `squad diff`: free-text values are neutralised where they are quoted, and
        // whatever else escaped that is escaped here, squad's own line breaks kept.
        DataFormat::Human => printer.data(&crate::text::lines_safe_to_show(&summary(
            &capabilities,
            &acquired.resolved,
        ))),
    }
    ExitStatus::Success
}

fn names(classes: &[Class]) -> String {
    if classes.is_empty() {
        return "—".to_owned();
    }
    classes
        .iter()
        .map(|class| class.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `items` joined, each neutralised: import specifiers and a server's tool names are the
/// package author's words.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        "—".to_owned()
    } else {
        items
            .iter()
            .map(|item| crate::text::remote(item, usize::MAX))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The human summary: identity, roster, workflows, servers, tools, totals and what stands out.
fn summary(capabilities: &Capabilities, resolved: &str) -> String {
    use crate::text::remote;
    let mut text = format!(
        "{}/{} {}\n  package digest {}\n  from {}\n",
        capabilities.namespace,
        capabilities.id,
        capabilities.version,
        capabilities.package_digest,
        remote(resolved, 300)
    );
    let agents = capabilities.nodes.len().saturating_sub(1);
    text.push_str(&format!("\nAgents ({agents}, and the scheduler):\n"));
    let width = capabilities
        .nodes
        .iter()
        .map(|node| node.node.len())
        .max()
        .unwrap_or(0);
    for node in &capabilities.nodes {
        text.push_str(&node_line(node, width));
    }
    if !capabilities.workflows.is_empty() {
        text.push_str("\nWorkflows:\n");
        for workflow in &capabilities.workflows {
            let stages: Vec<String> = workflow
                .stages
                .iter()
                .map(|stage| {
                    let nodes: Vec<String> = stage
                        .iter()
                        .map(|step| format!("{} ({})", step.node, step.agent))
                        .collect();
                    if nodes.len() == 1 {
                        nodes[0].clone()
                    } else {
                        format!("[{}]", nodes.join(", "))
                    }
                })
                .collect();
            text.push_str(&format!("  {}: {}\n", workflow.id, stages.join(" → ")));
        }
    }
    if !capabilities.mcp_servers.is_empty() {
        text.push_str(&format!(
            "\nMCP servers ({}, remote):\n",
            capabilities.mcp_servers.len()
        ));
        for server in &capabilities.mcp_servers {
            let headers: Vec<String> = server.headers.iter().map(|h| remote(h, 80)).collect();
            text.push_str(&format!(
                "  {}  {} {}\n    headers: {}  credential: {}  oauth: {}\n    tools: {}  prompts: {}  resources: {}\n    held by: {}\n",
                server.reference,
                server.transport.as_deref().map_or("?".to_owned(), |t| remote(t, 40)),
                server.url.as_deref().map_or("?".to_owned(), |url| remote(url, 300)),
                list(&headers),
                server.credential.as_deref().unwrap_or("—"),
                if server.oauth { "yes" } else { "no" },
                list(&server.tools),
                list(&server.prompts),
                list(&server.resources),
                list(&server.held_by),
            ));
        }
    }
    if !capabilities.tools.is_empty() {
        text.push_str(&format!(
            "\nPackage tools ({}):\n",
            capabilities.tools.len()
        ));
        for tool in &capabilities.tools {
            text.push_str(&format!(
                "  {}  {}\n    imports: {}  classes: {}\n    held by: {}\n",
                tool.reference,
                remote(&tool.path, usize::MAX),
                list(&tool.modules),
                names(&tool.classes),
                list(&tool.held_by),
            ));
        }
    }
    text.push_str("\nGrants in total (the union over the scheduler and every agent):\n");
    for (field, items) in &capabilities.total.grants {
        if !items.is_empty() {
            text.push_str(&format!("  {field}: {}\n", items.join(", ")));
        }
    }
    text.push_str(&format!(
        "  base roles: {}; inherit_base_tools: {}\n",
        capabilities.total.base_roles.join(", "),
        if capabilities.total.inherit_base_tools {
            "yes"
        } else {
            "no"
        }
    ));
    text.push_str("\nWhat it may do:\n");
    let mut any = false;
    for class in Class::ALL {
        let holders: Vec<&str> = capabilities
            .nodes
            .iter()
            .filter(|node| node.classes.contains(&class))
            .map(|node| node.node.as_str())
            .collect();
        if !holders.is_empty() {
            any = true;
            text.push_str(&format!(
                "  {} ({}): {}\n",
                class.name(),
                class.meaning(),
                holders.join(", ")
            ));
        }
    }
    if !any {
        text.push_str("  nothing beyond reading, planning and talking\n");
    }
    text
}

fn node_line(node: &Node, width: usize) -> String {
    let high: Vec<String> = node
        .effective_tools
        .iter()
        .filter(|tool| !tool.classes.is_empty())
        .map(|tool| tool.tool.clone())
        .collect();
    format!(
        "  {:<width$}  {:<22} inherits role tools: {:<3}  {} tools{}{}\n",
        node.node,
        node.base_role,
        if node.inherit_base_tools { "yes" } else { "no" },
        node.effective_tools.len(),
        if high.is_empty() {
            String::new()
        } else {
            format!(", of which high-impact: {}", high.join(", "))
        },
        if node.in_a_workflow {
            ""
        } else {
            "  (in no workflow)"
        }
    )
}

/// `squad show NAME --index URL`: a squad's versions as the index lists them.
fn from_index(args: &ShowArgs, printer: &Printer) -> ExitStatus {
    let client = args.look.network.client();
    let cache = crate::cache::Cache::from_env();
    let mut key = None;
    let index = match open_index(
        &args.index,
        None,
        &client,
        cache.as_ref(),
        &mut key,
        printer,
    ) {
        Ok(Some(index)) => index,
        Ok(None) => return ExitStatus::Error,
        Err(status) => return status,
    };
    let squad = match index.find(&args.source) {
        Ok(squad) => squad,
        Err(error) => {
            printer.failure(&error, error.hint().as_deref());
            return error.class().into();
        }
    };
    let signed_by = index.signed_by.map(|key| key.to_string());
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "show-index",
            ShownFromIndex {
                index: index.url.to_string(),
                name: &args.source,
                signed_by,
                squad: &squad,
            },
        ),
        DataFormat::Human => printer.data(&index_summary(&squad, &index)),
    }
    ExitStatus::Success
}

/// A squad as an index lists it; every word of the index's neutralised.
fn index_summary(
    squad: &crate::index::format::SquadFile,
    index: &crate::index::fetch::Index<'_>,
) -> String {
    use crate::text::remote;
    let mut text = format!("{}/{}", remote(&squad.namespace, 80), remote(&squad.id, 80));
    if let Some(title) = squad.label.as_ref().or(squad.name.as_ref()) {
        text.push_str(&format!("  {}", remote(title, 120)));
    }
    text.push('\n');
    if let Some(description) = &squad.description {
        text.push_str(&format!("  {}\n", remote(description, 600)));
    }
    text.push_str(&format!(
        "  from the index {} (root version {}, expires {}, {})\n",
        index.url,
        index.root.version,
        remote(&index.root.expires, 40),
        match index.signed_by {
            Some(key) => format!("signed by key {key}"),
            None => "not signature-checked".to_owned(),
        }
    ));
    text.push_str(&format!(
        "\nVersions ({}, newest first):\n",
        squad.versions.len()
    ));
    for entry in &squad.versions {
        let capabilities = &entry.capabilities;
        text.push_str(&format!(
            "  {}{}  {} bytes  package digest {}  published {}\n    at {}\n    signed by: {}\n    may: {}; {} agents, {} workflows, {} MCP servers, {} package tools\n",
            remote(&entry.version, 40),
            if entry.yanked { " (yanked)" } else { "" },
            entry.archive_bytes,
            remote(&entry.package_digest, 64),
            remote(&entry.published, 40),
            remote(&entry.location, 300),
            if entry.signatures.is_empty() {
                "—".to_owned()
            } else {
                entry
                    .signatures
                    .iter()
                    .map(|key| remote(key, 20))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            if capabilities.classes.is_empty() {
                "nothing beyond reading, planning and talking".to_owned()
            } else {
                capabilities
                    .classes
                    .iter()
                    .map(|class| remote(class, 40))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            capabilities.agents,
            capabilities.workflows,
            capabilities.mcp_servers.len(),
            capabilities.package_tools,
        ));
    }
    text
}
