//! The one table of what each tool can do beyond reading and talking: its capability classes.
//!
//! The reference has no such table; these are squad's reading of each tool of the runtime's
//! pool (TOOL-T1, TOOL-T2) by what it is for. A tool is in a class when the class names
//! something it can do to the machine or the world outside the conversation. A tool in no class
//! reads, plans, searches the package or the workspace, or talks to the user or other agents.
//! docs/capabilities.md renders this table ([`markdown`]), and a test holds the table to
//! cover every tool id of the runtime's tables, so a new tool needs a decision here.

use serde::Serialize;

/// What a tool can do that matters before trusting a squad with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Runs programs on the machine (a shell): with it an agent can do anything its user can.
    RunsCommands,
    /// Creates, changes or deletes files.
    WritesFiles,
    /// Sends requests to other hosts (fetches pages, searches the web, calls remote servers).
    ReachesNetwork,
    /// Starts or steers other agents, or runs other tools on the agent's behalf.
    Delegates,
    /// Creates or changes squads themselves, this one included.
    AuthorsSquads,
}

impl Class {
    pub const ALL: [Class; 5] = [
        Class::RunsCommands,
        Class::WritesFiles,
        Class::ReachesNetwork,
        Class::Delegates,
        Class::AuthorsSquads,
    ];

    /// The class's name in documents and output (`runs-commands`, …).
    pub fn name(self) -> &'static str {
        match self {
            Class::RunsCommands => "runs-commands",
            Class::WritesFiles => "writes-files",
            Class::ReachesNetwork => "reaches-network",
            Class::Delegates => "delegates",
            Class::AuthorsSquads => "authors-squads",
        }
    }

    /// One line of what the class means.
    pub fn meaning(self) -> &'static str {
        match self {
            Class::RunsCommands => "runs programs on the machine",
            Class::WritesFiles => "creates, changes or deletes files",
            Class::ReachesNetwork => "sends requests to other hosts",
            Class::Delegates => "starts or steers other agents, or runs tools for the agent",
            Class::AuthorsSquads => "creates or changes squads",
        }
    }
}

use Class::{AuthorsSquads, Delegates, ReachesNetwork, RunsCommands, WritesFiles};

/// Every core tool id (TOOL-T1) and its classes; an empty list is a decision too.
pub const BUILT_IN: [(&str, &[Class]); 58] = [
    ("add_goal", &[]),
    ("analytics", &[]),
    ("apply_patch", &[WritesFiles]),
    ("artifact_publish", &[]),
    ("artifact_read", &[]),
    ("artifact_search", &[]),
    ("artifact_select", &[]),
    ("artifact_snapshot", &[]),
    ("bash", &[RunsCommands, WritesFiles, ReachesNetwork]),
    ("batch", &[Delegates]),
    ("browser_preview", &[ReachesNetwork]),
    ("browser_preview_capture", &[ReachesNetwork]),
    (
        "browser_preview_capture_interaction_state",
        &[ReachesNetwork],
    ),
    ("cancel_subagent", &[Delegates]),
    ("capability_search", &[]),
    ("delegate_agent", &[Delegates]),
    ("delete_goal", &[]),
    ("dispatch_agent", &[Delegates]),
    ("edit", &[WritesFiles]),
    ("evolve_expert_squad_from_feedback", &[AuthorsSquads]),
    ("expert_squad_author", &[AuthorsSquads]),
    ("explore", &[Delegates]),
    ("external_code_search", &[ReachesNetwork]),
    ("glob", &[]),
    ("list", &[]),
    ("manage_task", &[]),
    ("memory", &[]),
    ("mission_skill", &[]),
    ("mission_state", &[]),
    ("modify_goal", &[]),
    ("multica_catalog", &[ReachesNetwork]),
    ("multica_import", &[AuthorsSquads, ReachesNetwork]),
    ("multica_preview", &[ReachesNetwork]),
    ("no_action", &[]),
    ("panel", &[]),
    ("planner", &[]),
    ("publish_interactive_artifact", &[]),
    ("question", &[]),
    ("read", &[]),
    ("read_context", &[]),
    ("read_task_message", &[]),
    ("request_orchestrator_decision", &[]),
    ("respond_agent_coordination", &[]),
    ("schedule", &[Delegates]),
    ("scheduler_message", &[]),
    ("search_code", &[]),
    ("send_mailbox_message", &[]),
    ("skill", &[]),
    ("todoread", &[]),
    ("todowrite", &[]),
    ("wait", &[]),
    ("webfetch", &[ReachesNetwork]),
    ("websearch", &[ReachesNetwork]),
    ("work_artifact_author", &[WritesFiles]),
    ("work_artifact_deliver", &[WritesFiles]),
    ("work_artifact_inspect", &[]),
    ("work_artifact_validate", &[]),
    ("write", &[WritesFiles]),
];

/// Every default host tool (TOOL-T2) and its classes.
pub const HOST: [(&str, &[Class]); 9] = [
    (
        "browser_preview_compare_reference_regions",
        &[ReachesNetwork],
    ),
    ("browser_preview_compare_scroll_slices", &[ReachesNetwork]),
    ("browser_preview_layout_geometry", &[ReachesNetwork]),
    ("create_visual_region_coordinate_atlas", &[WritesFiles]),
    ("create_visual_region_binding_package", &[WritesFiles]),
    (
        "update_frontend_competitor_reference",
        &[ReachesNetwork, WritesFiles],
    ),
    ("webpage_extract", &[ReachesNetwork]),
    ("webpage_compile", &[ReachesNetwork]),
    ("webpage_runtime_state", &[ReachesNetwork]),
];

/// The classes of the built-in tool `id` (none for an unknown id).
pub fn of_built_in(id: &str) -> &'static [Class] {
    BUILT_IN
        .iter()
        .find(|(tool, _)| *tool == id)
        .map_or(&[], |(_, classes)| classes)
}

/// The classes of the default host tool `name`.
pub fn of_host_tool(name: &str) -> &'static [Class] {
    HOST.iter()
        .find(|(tool, _)| *tool == name)
        .map_or(&[], |(_, classes)| classes)
}

/// The classes a package tool gains from a module it imports. The tool policy (TL-4) admits
/// few modules; of those, only the file system is more than computation.
pub fn of_module(specifier: &str) -> &'static [Class] {
    match specifier {
        "node:fs" | "node:fs/promises" | "fs" | "fs/promises" => &[WritesFiles],
        "node:child_process" | "child_process" | "node:worker_threads" | "node:cluster" => {
            &[RunsCommands]
        }
        "node:http" | "node:https" | "node:net" | "node:tls" | "node:dgram" | "node:dns"
        | "node:http2" | "http" | "https" | "net" | "tls" => &[ReachesNetwork],
        _ => &[],
    }
}

/// The classes a package tool gains from a global it uses (`fetch`, `Bun.spawn`, …): the
/// runtime's own ways out of a tool that imports nothing.
pub fn of_global(name: &str) -> &'static [Class] {
    match name {
        "fetch"
        | "XMLHttpRequest"
        | "WebSocket"
        | "EventSource"
        | "Bun.connect"
        | "Bun.listen"
        | "Bun.serve"
        | "Bun.udpSocket"
        | "navigator.sendBeacon" => &[ReachesNetwork],
        "Bun.spawn" | "Bun.spawnSync" | "Bun.$" => &[RunsCommands],
        "Bun.write" => &[WritesFiles],
        _ => &[],
    }
}

/// The table as markdown, for docs/capabilities.md.
pub fn markdown() -> String {
    let mut text = String::from(
        "| class | meaning | built-in tools | default host tools |\n|---|---|---|---|\n",
    );
    for class in Class::ALL {
        let list = |table: &[(&str, &[Class])]| {
            let names: Vec<String> = table
                .iter()
                .filter(|(_, classes)| classes.contains(&class))
                .map(|(tool, _)| format!("`{tool}`"))
                .collect();
            if names.is_empty() {
                "—".to_owned()
            } else {
                names.join(", ")
            }
        };
        text.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            class.name(),
            class.meaning(),
            list(&BUILT_IN),
            list(&HOST)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool added to the runtime's tables gets a decision here before anything builds on
    /// it; the table names no tool the runtime does not have.
    #[test]
    fn every_tool_of_the_runtime_is_classified_once() {
        let built_in: Vec<&str> = BUILT_IN.iter().map(|(tool, _)| *tool).collect();
        assert_eq!(built_in, crate::tables::CORE_TOOL_IDS.to_vec());
        let host: Vec<&str> = HOST.iter().map(|(tool, _)| *tool).collect();
        let runtime: Vec<&str> = crate::tables::DEFAULT_HOST_TOOLS
            .iter()
            .map(|(tool, _)| *tool)
            .collect();
        assert_eq!(host, runtime);
        assert_eq!(of_built_in("bash")[0], Class::RunsCommands);
        assert!(of_built_in("read").is_empty());
        assert_eq!(of_module("node:fs"), &[Class::WritesFiles]);
        assert_eq!(of_global("Bun.spawn"), &[Class::RunsCommands]);
    }

    #[test]
    fn the_capabilities_page_shows_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/capabilities.md");
        let text = crate::fs::read_to_string(path).unwrap_or_default();
        let (begin, end) = ("<!-- classes:begin -->\n", "<!-- classes:end -->");
        let (Some(start), Some(stop)) = (text.find(begin), text.find(end)) else {
            panic!("docs/capabilities.md has no classes markers");
        };
        let expected = markdown();
        if std::env::var_os("SNAPSHOTS").is_some_and(|value| value == "overwrite") {
            let rewritten = format!(
                "{}{expected}{}",
                &text[..start + begin.len()],
                &text[stop..]
            );
            std::fs::write(path, rewritten).unwrap();
            return;
        }
        assert!(
            text[start + begin.len()..stop] == expected,
            "docs/capabilities.md's classes table is stale: run SNAPSHOTS=overwrite cargo test"
        );
    }
}
