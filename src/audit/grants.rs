//! Grants larger than the workflows use (AUD-G1): an agent that no workflow node runs, yet
//! holds tools that run commands, write files, reach the network or author squads. Validation
//! already notes the unused agent (GR-5); the audit says what it could do if dispatched, which
//! the scheduler can still do outside any workflow. A package without workflows dispatches
//! its agents at the scheduler's discretion, so none of them is idle.

use super::finding;
use crate::capability::{Capabilities, Class};
use crate::diag::{Code, Diagnostics};
use crate::manifest::MANIFEST_FILE;
use crate::package::Report;

/// The classes that make an idle grant worth a finding (delegating alone is not).
const HIGH_IMPACT: [Class; 4] = [
    Class::RunsCommands,
    Class::WritesFiles,
    Class::ReachesNetwork,
    Class::AuthorsSquads,
];

pub fn check(report: &Report, capabilities: &Capabilities, findings: &mut Diagnostics) {
    let Some(manifest) = &report.manifest else {
        return;
    };
    if manifest.workflows.is_empty() {
        return;
    }
    for node in capabilities.nodes.iter().filter(|node| !node.in_a_workflow) {
        let held: Vec<Class> = HIGH_IMPACT
            .into_iter()
            .filter(|class| node.classes.contains(class))
            .collect();
        let Some(projection) = manifest.agent(&node.node) else {
            continue;
        };
        if held.is_empty() {
            continue;
        }
        let tools: Vec<String> = node
            .effective_tools
            .iter()
            .filter(|tool| tool.classes.iter().any(|class| held.contains(class)))
            .map(|tool| format!("`{}`", tool.tool))
            .collect();
        let classes: Vec<&str> = held.iter().map(|class| class.name()).collect();
        findings.push(
            finding(
                Code::IdleAgentGrants,
                MANIFEST_FILE,
                projection.span.clone(),
                format!(
                    "agent `{}` is run by no workflow but holds {} ({})",
                    node.node,
                    classes.join(", "),
                    tools.join(", ")
                ),
            )
            .pointer(projection.pointer.clone())
            .span_label("in no workflow")
            .help("add the agent to the workflow that needs it, or remove the grants (or the agent): an idle grant is surface without a purpose"),
        );
    }
}
