//! `squad diff`: what an update of a squad changes, and whether it widens what the squad may do.

use super::args::{LookArgs, look_at};
use super::documents::{self, DiffDocument};
use super::{DataFormat, ExitStatus, Format};
use crate::capability::diff::{Change, Diff, Side};
use crate::output::Printer;

/// Show what an update of a squad changes: grants added and removed (per agent and in total),
/// capability classes gained, MCP servers and package tools added, removed or changed, and the
/// files changed, split into mutable text (prompts, skills, README) and executable or opaque
/// files (tools, MCP declarations, assets), named one by one.
///
/// OLD and NEW are two versions of one namespace/id, each anything `squad show` takes: a
/// source or an installed package. The judgement is the reference's rule for a new revision:
/// an update may not add to any grant list (the union over all agents), add a base role, or
/// turn on inherit_base_tools (docs/capabilities.md).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad diff acme/review oci://ghcr.io/acme/squads/acme/review:2026.12.10.1
                                      the installed one against a published one
  squad diff review-v1.zip ./review   an archive against a working folder
  squad diff old new --format json    the record docs/json-output.md describes

Exit status: 0 the update adds no grant, 1 it widens what the squad may do (for CI gates),
2 usage, network or I/O error, or two different squads.")]
pub struct DiffArgs {
    /// The version you have (a source or an installed package).
    #[arg(value_name = "OLD")]
    pub old: String,

    /// The version to compare with it.
    #[arg(value_name = "NEW")]
    pub new: String,

    /// The SHA-256 of OLD's archive, when OLD is an `https://` source.
    #[arg(long, value_name = "HEX")]
    pub old_sha256: Option<String>,

    /// The SHA-256 of NEW's archive, when NEW is an `https://` source.
    #[arg(long, value_name = "HEX")]
    pub new_sha256: Option<String>,

    #[command(flatten)]
    pub look: LookArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub fn run(args: &DiffArgs, printer: &Printer) -> ExitStatus {
    let format = Format::from(args.format);
    let old = match look_at(
        &args.old,
        args.old_sha256.as_deref(),
        &args.look,
        format,
        printer,
    ) {
        Ok(acquired) => acquired,
        Err(status) => return status,
    };
    let new = match look_at(
        &args.new,
        args.new_sha256.as_deref(),
        &args.look,
        format,
        printer,
    ) {
        Ok(acquired) => acquired,
        Err(status) => return status,
    };
    let capabilities = |acquired: &crate::acquire::Acquired| {
        crate::capability::of(&acquired.ready.report, &acquired.package_digest().hex())
    };
    let (Some(before), Some(after)) = (capabilities(&old), capabilities(&new)) else {
        printer.error("a package without an identity cannot be compared", None);
        return ExitStatus::Error;
    };
    let diff = match crate::capability::diff::compare(&side(&old, &before), &side(&new, &after)) {
        Ok(diff) => diff,
        Err(error) => {
            printer.failure(&error, Some("name two versions of the same squad"));
            return ExitStatus::Error;
        }
    };
    match args.format {
        DataFormat::Json => documents::print(printer, "diff", DiffDocument { diff: &diff }),
        // The summary quotes the packages' own words (file names, import specifiers, names):
        // the values that are free text are neutralised where they are quoted, and whatever
        // else escaped that is escaped here, squad's own line breaks kept.
        DataFormat::Human => printer.data(&crate::text::lines_safe_to_show(&summary(&diff))),
    }
    if diff.widens {
        if !printer.quiet {
            printer.human(&format!(
                "The update widens what {}/{} may do: it adds grants {} does not hold.\n",
                diff.namespace, diff.id, diff.old_version
            ));
        }
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
}

fn side<'a>(
    acquired: &'a crate::acquire::Acquired,
    capabilities: &'a crate::capability::Capabilities,
) -> Side<'a> {
    Side {
        report: &acquired.ready.report,
        capabilities,
        files: &acquired.ready.tree.files,
        root: acquired.ready.copy.path(),
    }
}

fn mark(change: &Change) -> &'static str {
    match change {
        Change::Added => "+",
        Change::Removed => "-",
        Change::Changed => "~",
    }
}

fn lists(added: &std::collections::BTreeMap<&'static str, Vec<String>>, sign: &str) -> Vec<String> {
    added
        .iter()
        .map(|(list, items)| {
            let items: Vec<String> = items.iter().map(|item| format!("{sign}{item}")).collect();
            format!("{list}: {}", items.join(", "))
        })
        .collect()
}

fn classes(classes: &[crate::capability::Class]) -> String {
    classes
        .iter()
        .map(|class| class.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn summary(diff: &Diff) -> String {
    use crate::text::remote;
    let mut text = format!(
        "{}/{} {} -> {}\n  package digest {} -> {}\n",
        diff.namespace,
        diff.id,
        diff.old_version,
        diff.new_version,
        diff.parent_digest,
        diff.candidate_digest
    );
    let mut widened: Vec<String> = lists(&diff.grants_added, "+");
    if !diff.base_roles_added.is_empty() {
        widened.push(format!(
            "base roles: +{}",
            diff.base_roles_added.join(", +")
        ));
    }
    if diff.inherit_base_tools_gained {
        widened.push("inherit_base_tools: false on every agent -> true".to_owned());
    }
    if widened.is_empty() {
        text.push_str("\nNo grant added: the update does not widen what the squad may do.\n");
    } else {
        text.push_str("\nGrants added (the update widens what the squad may do):\n");
        for line in widened {
            text.push_str(&format!("  {line}\n"));
        }
    }
    let mut narrowed = lists(&diff.grants_removed, "-");
    if !diff.base_roles_removed.is_empty() {
        narrowed.push(format!(
            "base roles: -{}",
            diff.base_roles_removed.join(", -")
        ));
    }
    if !narrowed.is_empty() {
        text.push_str("\nGrants removed:\n");
        for line in narrowed {
            text.push_str(&format!("  {line}\n"));
        }
    }
    if !diff.classes_gained.is_empty() || !diff.classes_lost.is_empty() {
        text.push_str(&format!(
            "\nCapability classes: gained {}; lost {}\n",
            if diff.classes_gained.is_empty() {
                "none".to_owned()
            } else {
                classes(&diff.classes_gained)
            },
            if diff.classes_lost.is_empty() {
                "none".to_owned()
            } else {
                classes(&diff.classes_lost)
            }
        ));
    }
    if !diff.nodes.is_empty() {
        text.push_str("\nBy agent:\n");
        for node in &diff.nodes {
            let mut parts: Vec<String> = lists(&node.grants_added, "+");
            parts.extend(lists(&node.grants_removed, "-"));
            if let Some([old, new]) = &node.base_role {
                parts.push(format!("base_role {old} -> {new}"));
            }
            if let Some([old, new]) = &node.inherit_base_tools {
                parts.push(format!("inherit_base_tools {old} -> {new}"));
            }
            if !node.classes_gained.is_empty() {
                parts.push(format!("gains {}", classes(&node.classes_gained)));
            }
            text.push_str(&format!(
                "  {} {}: {}\n",
                mark(&node.change),
                node.node,
                if parts.is_empty() {
                    "—".to_owned()
                } else {
                    parts.join("; ")
                }
            ));
        }
    }
    if !diff.mcp_servers.is_empty() {
        text.push_str("\nMCP servers:\n");
        for server in &diff.mcp_servers {
            let mut parts = Vec::new();
            if let Some([old, new]) = &server.url {
                parts.push(format!(
                    "url {} -> {}",
                    old.as_deref().map_or("?".to_owned(), |u| remote(u, 200)),
                    new.as_deref().map_or("?".to_owned(), |u| remote(u, 200))
                ));
            }
            if let Some([old, new]) = &server.transport {
                parts.push(format!("transport {old:?} -> {new:?}"));
            }
            if let Some([old, new]) = &server.headers {
                parts.push(format!(
                    "headers [{}] -> [{}]",
                    remote(&old.join(", "), 200),
                    remote(&new.join(", "), 200)
                ));
            }
            if !server.tools_added.is_empty() {
                parts.push(format!("tools +{}", server.tools_added.join(", +")));
            }
            if !server.tools_removed.is_empty() {
                parts.push(format!("tools -{}", server.tools_removed.join(", -")));
            }
            text.push_str(&format!(
                "  {} {}{}\n",
                mark(&server.change),
                server.reference,
                if parts.is_empty() {
                    String::new()
                } else {
                    format!(": {}", parts.join("; "))
                }
            ));
        }
    }
    if !diff.tools.is_empty() {
        text.push_str("\nPackage tools:\n");
        for tool in &diff.tools {
            let mut parts = Vec::new();
            if !tool.modules_added.is_empty() {
                parts.push(format!("imports +{}", quoted(&tool.modules_added, ", +")));
            }
            if !tool.modules_removed.is_empty() {
                parts.push(format!("imports -{}", quoted(&tool.modules_removed, ", -")));
            }
            if !tool.classes_gained.is_empty() {
                parts.push(format!("gains {}", classes(&tool.classes_gained)));
            }
            text.push_str(&format!(
                "  {} {}{}\n",
                mark(&tool.change),
                tool.reference,
                if parts.is_empty() {
                    String::new()
                } else {
                    format!(": {}", parts.join("; "))
                }
            ));
        }
    }
    text.push_str("\nFiles:\n");
    if diff.frozen_changed.is_empty() {
        text.push_str("  executable or opaque files changed: none\n");
    } else {
        text.push_str("  executable or opaque files changed:\n");
        for file in &diff.frozen_changed {
            let what = match (&file.parent_sha256, &file.candidate_sha256) {
                (None, _) => "added",
                (_, None) => "removed",
                _ => "changed",
            };
            text.push_str(&format!(
                "    {} ({what})\n",
                remote(&file.path, usize::MAX)
            ));
        }
    }
    text.push_str(&format!(
        "  mutable text changed: {}\n",
        if diff.mutable_changed.is_empty() {
            "none".to_owned()
        } else {
            quoted(&diff.mutable_changed, ", ")
        }
    ));
    text
}

/// `items` joined by `separator`, each neutralised: file names and import specifiers are the
/// package author's.
fn quoted(items: &[String], separator: &str) -> String {
    items
        .iter()
        .map(|item| crate::text::remote(item, usize::MAX))
        .collect::<Vec<_>>()
        .join(separator)
}
