//! Data tables of the reference runtime (TOOL-T1…T4, AG-3a), versioned with the reference commit
//! they were read from. They change only when the reference's tool pool changes.

/// The reference commit these tables describe.
pub const REFERENCE_COMMIT: &str = "ca6ed43a170e775eb893c4e62447bfaaeee85966";

/// AG-3a: the runtime templates an agent's `base_role` may name.
pub const RUNTIME_TEMPLATE_IDS: [&str; 13] = [
    "delegated-worker",
    "intent-analysis",
    "requirements",
    "architect",
    "goal-workload-analyst",
    "build",
    "explore",
    "deep-research",
    "frontend-research",
    "frontend-design",
    "visual-qa",
    "integrity",
    "fact-check",
];

/// TOOL-T1: every core tool id.
pub const CORE_TOOL_IDS: [&str; 58] = [
    "add_goal",
    "analytics",
    "apply_patch",
    "artifact_publish",
    "artifact_read",
    "artifact_search",
    "artifact_select",
    "artifact_snapshot",
    "bash",
    "batch",
    "browser_preview",
    "browser_preview_capture",
    "browser_preview_capture_interaction_state",
    "cancel_subagent",
    "capability_search",
    "delegate_agent",
    "delete_goal",
    "dispatch_agent",
    "edit",
    "evolve_expert_squad_from_feedback",
    "expert_squad_author",
    "explore",
    "external_code_search",
    "glob",
    "list",
    "manage_task",
    "memory",
    "mission_skill",
    "mission_state",
    "modify_goal",
    "multica_catalog",
    "multica_import",
    "multica_preview",
    "no_action",
    "panel",
    "planner",
    "publish_interactive_artifact",
    "question",
    "read",
    "read_context",
    "read_task_message",
    "request_orchestrator_decision",
    "respond_agent_coordination",
    "schedule",
    "scheduler_message",
    "search_code",
    "send_mailbox_message",
    "skill",
    "todoread",
    "todowrite",
    "wait",
    "webfetch",
    "websearch",
    "work_artifact_author",
    "work_artifact_deliver",
    "work_artifact_inspect",
    "work_artifact_validate",
    "write",
];

/// TOOL-T2: default host tools and the one role that may project each.
pub const DEFAULT_HOST_TOOLS: [(&str, &str); 9] = [
    ("browser_preview_compare_reference_regions", "visual-qa"),
    ("browser_preview_compare_scroll_slices", "visual-qa"),
    ("browser_preview_layout_geometry", "visual-qa"),
    ("create_visual_region_coordinate_atlas", "frontend-design"),
    ("create_visual_region_binding_package", "frontend-design"),
    ("update_frontend_competitor_reference", "frontend-design"),
    ("webpage_extract", "frontend-research"),
    ("webpage_compile", "frontend-research"),
    ("webpage_runtime_state", "frontend-research"),
];

/// TOOL-T3: built-ins the scheduler may project.
const SCHEDULER_TOOLS: [&str; 26] = [
    "artifact_read",
    "artifact_search",
    "artifact_select",
    "artifact_snapshot",
    "bash",
    "browser_preview",
    "browser_preview_capture",
    "cancel_subagent",
    "capability_search",
    "dispatch_agent",
    "evolve_expert_squad_from_feedback",
    "expert_squad_author",
    "manage_task",
    "multica_catalog",
    "multica_import",
    "multica_preview",
    "no_action",
    "publish_interactive_artifact",
    "question",
    "read",
    "read_context",
    "read_task_message",
    "respond_agent_coordination",
    "scheduler_message",
    "skill",
    "wait",
];

/// The five platform artifact tools every worker may project (TOOL-T4).
const ARTIFACT_TOOLS: [&str; 5] = [
    "artifact_search",
    "artifact_read",
    "artifact_select",
    "artifact_snapshot",
    "artifact_publish",
];

/// TOOL-T4, without the artifact tools (added by [`projectable_built_in`]).
fn worker_tools(base_role: &str) -> &'static [&'static str] {
    match base_role {
        "delegated-worker" => &[
            "apply_patch",
            "bash",
            "batch",
            "browser_preview",
            "capability_search",
            "edit",
            "external_code_search",
            "glob",
            "memory",
            "publish_interactive_artifact",
            "question",
            "read",
            "request_orchestrator_decision",
            "search_code",
            "send_mailbox_message",
            "skill",
            "todoread",
            "todowrite",
            "webfetch",
            "websearch",
            "write",
        ],
        "build" => &[
            "apply_patch",
            "bash",
            "batch",
            "browser_preview",
            "browser_preview_capture",
            "capability_search",
            "edit",
            "external_code_search",
            "glob",
            "memory",
            "mission_state",
            "planner",
            "publish_interactive_artifact",
            "question",
            "read",
            "request_orchestrator_decision",
            "schedule",
            "search_code",
            "send_mailbox_message",
            "skill",
            "todoread",
            "todowrite",
            "webfetch",
            "websearch",
            "work_artifact_author",
            "work_artifact_deliver",
            "work_artifact_inspect",
            "work_artifact_validate",
            "write",
        ],
        "visual-qa" => &[
            "browser_preview",
            "browser_preview_capture",
            "browser_preview_capture_interaction_state",
            "capability_search",
            "glob",
            "list",
            "memory",
            "publish_interactive_artifact",
            "read",
            "request_orchestrator_decision",
            "search_code",
            "send_mailbox_message",
            "skill",
        ],
        "explore" => &[
            "capability_search",
            "external_code_search",
            "glob",
            "memory",
            "panel",
            "publish_interactive_artifact",
            "read",
            "request_orchestrator_decision",
            "search_code",
            "send_mailbox_message",
            "webfetch",
            "websearch",
        ],
        "requirements" | "architect" => &[
            "capability_search",
            "glob",
            "list",
            "memory",
            "publish_interactive_artifact",
            "read",
            "request_orchestrator_decision",
            "search_code",
            "send_mailbox_message",
            "skill",
            "todoread",
            "todowrite",
            "websearch",
        ],
        "frontend-design" => &[
            "apply_patch",
            "bash",
            "capability_search",
            "edit",
            "glob",
            "list",
            "memory",
            "publish_interactive_artifact",
            "read",
            "request_orchestrator_decision",
            "search_code",
            "send_mailbox_message",
            "skill",
            "write",
        ],
        "intent-analysis" | "goal-workload-analyst" => &[
            "capability_search",
            "glob",
            "list",
            "memory",
            "publish_interactive_artifact",
            "read",
            "request_orchestrator_decision",
            "search_code",
            "send_mailbox_message",
            "skill",
            "todoread",
            "todowrite",
        ],
        "integrity" => &[
            "browser_preview",
            "capability_search",
            "publish_interactive_artifact",
            "request_orchestrator_decision",
            "send_mailbox_message",
            "skill",
        ],
        "fact-check" => &[
            "bash",
            "capability_search",
            "external_code_search",
            "glob",
            "list",
            "memory",
            "publish_interactive_artifact",
            "read",
            "request_orchestrator_decision",
            "search_code",
            "send_mailbox_message",
            "skill",
            "todoread",
            "todowrite",
            "webfetch",
            "websearch",
        ],
        "deep-research" => &[
            "capability_search",
            "external_code_search",
            "glob",
            "list",
            "memory",
            "publish_interactive_artifact",
            "read",
            "request_orchestrator_decision",
            "search_code",
            "send_mailbox_message",
            "skill",
            "todoread",
            "todowrite",
            "webfetch",
            "websearch",
        ],
        "frontend-research" => &[
            "apply_patch",
            "bash",
            "capability_search",
            "publish_interactive_artifact",
            "read",
            "request_orchestrator_decision",
            "send_mailbox_message",
            "skill",
            "websearch",
        ],
        _ => &[],
    }
}

/// Which runtime a projection uses: the scheduler, or a worker with its base role.
#[derive(Debug, Clone, Copy)]
pub enum Role<'a> {
    Scheduler,
    Worker(&'a str),
}

pub fn is_core_tool(id: &str) -> bool {
    CORE_TOOL_IDS.contains(&id)
}

/// TOOL-T3/T4: whether `role` may project the built-in tool `id`.
pub fn projectable_built_in(role: Role, id: &str) -> bool {
    match role {
        Role::Scheduler => SCHEDULER_TOOLS.contains(&id),
        Role::Worker(base_role) => {
            ARTIFACT_TOOLS.contains(&id) || worker_tools(base_role).contains(&id)
        }
    }
}

/// The role that may project the default host tool `name`, if it exists (TOOL-T2).
pub fn default_host_tool_role(name: &str) -> Option<&'static str> {
    DEFAULT_HOST_TOOLS
        .iter()
        .find(|(tool, _)| *tool == name)
        .map(|(_, role)| *role)
}

/// TOOL-T3/T4: the built-ins `inherit_base_tools: true` adds for `role`: the scheduler's
/// projectable set less its shell, browser, reading and authoring tools; a worker's projectable
/// set less the artifact tools (and, for `build`, the four `work_artifact_*` tools), which are
/// projectable without being inherited.
pub fn inherited(role: Role) -> Vec<&'static str> {
    const NOT_INHERITED_BY_SCHEDULER: [&str; 8] = [
        "bash",
        "browser_preview",
        "browser_preview_capture",
        "read",
        "expert_squad_author",
        "multica_catalog",
        "multica_import",
        "multica_preview",
    ];
    let mut list: Vec<&'static str> = match role {
        Role::Scheduler => SCHEDULER_TOOLS
            .iter()
            .copied()
            .filter(|tool| !NOT_INHERITED_BY_SCHEDULER.contains(tool))
            .collect(),
        Role::Worker(base_role) => worker_tools(base_role)
            .iter()
            .copied()
            .filter(|tool| !(base_role == "build" && tool.starts_with("work_artifact_")))
            .collect(),
    };
    list.sort_unstable();
    list
}

/// TOOL-RT: the built-ins the runtime gives every projection of `role` whatever it declares.
pub fn always(role: Role) -> &'static [&'static str] {
    match role {
        Role::Scheduler => &[
            "artifact_read",
            "artifact_search",
            "artifact_select",
            "artifact_snapshot",
            "publish_interactive_artifact",
        ],
        Role::Worker(_) => &[
            "artifact_publish",
            "artifact_read",
            "artifact_search",
            "artifact_select",
            "artifact_snapshot",
            "publish_interactive_artifact",
        ],
    }
}

/// Built-ins a role may project, sorted, for hints.
pub fn projectable_list(role: Role) -> Vec<&'static str> {
    let mut list: Vec<&'static str> = match role {
        Role::Scheduler => SCHEDULER_TOOLS.to_vec(),
        Role::Worker(base_role) => ARTIFACT_TOOLS
            .iter()
            .chain(worker_tools(base_role))
            .copied()
            .collect(),
    };
    list.sort_unstable();
    list.dedup();
    list
}

/// The markdown table of docs/authoring.md that lists what each role may project, generated
/// from these tables so the two cannot drift apart.
pub fn roles_markdown() -> String {
    let mut table = String::from(
        "| base role | built-in tools it may project (`built_in_tool_ids`) | default host tools (`default_tool_refs`) |\n|---|---|---|\n",
    );
    let row = |role: &str, tools: Vec<&str>, host: Vec<&str>| {
        let list = |items: Vec<&str>| {
            if items.is_empty() {
                "—".to_owned()
            } else {
                items
                    .iter()
                    .map(|item| format!("`{item}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        format!("| {role} | {} | {} |\n", list(tools), list(host))
    };
    table.push_str(&row(
        "`orchestrator` (the scheduler only)",
        projectable_list(Role::Scheduler),
        Vec::new(),
    ));
    for role in RUNTIME_TEMPLATE_IDS {
        let host = DEFAULT_HOST_TOOLS
            .iter()
            .filter(|(_, owner)| *owner == role)
            .map(|(tool, _)| *tool)
            .collect();
        table.push_str(&row(
            &format!("`{role}`"),
            projectable_list(Role::Worker(role)),
            host,
        ));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The roles table of docs/authoring.md, between its markers, is the generated one
    /// (`SNAPSHOTS=overwrite cargo test` rewrites it).
    #[test]
    fn the_authoring_guide_lists_every_role_and_its_tools() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/authoring.md");
        let text = crate::fs::read_to_string(path).unwrap_or_default();
        let (begin, end) = ("<!-- roles:begin -->\n", "<!-- roles:end -->");
        let (Some(start), Some(stop)) = (text.find(begin), text.find(end)) else {
            panic!("docs/authoring.md has no roles markers");
        };
        let current = &text[start + begin.len()..stop];
        let expected = roles_markdown();
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
            current == expected,
            "docs/authoring.md's roles table is stale: run SNAPSHOTS=overwrite cargo test"
        );
    }

    #[test]
    fn table_sizes_match_the_spec() {
        let sizes: Vec<(&str, usize)> = RUNTIME_TEMPLATE_IDS
            .iter()
            .map(|role| (*role, projectable_list(Role::Worker(role)).len()))
            .collect();
        let expected = [
            ("delegated-worker", 26),
            ("intent-analysis", 17),
            ("requirements", 18),
            ("architect", 18),
            ("goal-workload-analyst", 17),
            ("build", 34),
            ("explore", 17),
            ("deep-research", 20),
            ("frontend-research", 14),
            ("frontend-design", 19),
            ("visual-qa", 18),
            ("integrity", 11),
            ("fact-check", 21),
        ];
        assert_eq!(sizes, expected);
        assert_eq!(projectable_list(Role::Scheduler).len(), 26);
        for role in RUNTIME_TEMPLATE_IDS {
            for tool in projectable_list(Role::Worker(role)) {
                assert!(is_core_tool(tool), "{tool}");
            }
        }
        for tool in projectable_list(Role::Scheduler) {
            assert!(is_core_tool(tool), "{tool}");
        }
        // TOOL-T3: 26 projectable, 18 of them inherited.
        assert_eq!(inherited(Role::Scheduler).len(), 18);
        // TOOL-T4: projectable = inherited ∪ artifact tools (∪ work_artifact_* for build).
        for role in RUNTIME_TEMPLATE_IDS {
            let mut rebuilt: Vec<&str> = inherited(Role::Worker(role));
            rebuilt.extend(ARTIFACT_TOOLS);
            if role == "build" {
                rebuilt.extend(
                    worker_tools("build")
                        .iter()
                        .filter(|t| t.starts_with("work_artifact_")),
                );
            }
            rebuilt.sort_unstable();
            rebuilt.dedup();
            assert_eq!(rebuilt, projectable_list(Role::Worker(role)), "{role}");
        }
    }
}
