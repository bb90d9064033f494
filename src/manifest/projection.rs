//! The scheduler and agent projections (SCH, AG, RES): their shape and the 13 resource arrays.
//! What the arrays' elements must name is checked later, against the package's files, in
//! `package::projections`.

use super::checker::{Checker, Item, child_pointer, edit_between, json_string};
use crate::diag::{Applicability, Code, Suggestion};
use crate::jsonc::{Member, Node};
use crate::tables::RUNTIME_TEMPLATE_IDS;

/// The 13 resource arrays, in the reference's check order (PREF-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResourceKind {
    BuiltInTool,
    DefaultSkill,
    DefaultTool,
    DefaultMcpServer,
    DefaultMcpTool,
    DefaultMcpPrompt,
    DefaultMcpResource,
    PackageSkill,
    PackageTool,
    PackageMcpServer,
    PackageMcpTool,
    PackageMcpPrompt,
    PackageMcpResource,
}

impl ResourceKind {
    pub const ALL: [ResourceKind; 13] = [
        ResourceKind::BuiltInTool,
        ResourceKind::DefaultSkill,
        ResourceKind::DefaultTool,
        ResourceKind::DefaultMcpServer,
        ResourceKind::DefaultMcpTool,
        ResourceKind::DefaultMcpPrompt,
        ResourceKind::DefaultMcpResource,
        ResourceKind::PackageSkill,
        ResourceKind::PackageTool,
        ResourceKind::PackageMcpServer,
        ResourceKind::PackageMcpTool,
        ResourceKind::PackageMcpPrompt,
        ResourceKind::PackageMcpResource,
    ];

    pub fn field(self) -> &'static str {
        match self {
            ResourceKind::BuiltInTool => "built_in_tool_ids",
            ResourceKind::DefaultSkill => "default_skill_refs",
            ResourceKind::DefaultTool => "default_tool_refs",
            ResourceKind::DefaultMcpServer => "default_mcp_server_refs",
            ResourceKind::DefaultMcpTool => "default_mcp_tool_refs",
            ResourceKind::DefaultMcpPrompt => "default_mcp_prompt_refs",
            ResourceKind::DefaultMcpResource => "default_mcp_resource_refs",
            ResourceKind::PackageSkill => "package_skill_refs",
            ResourceKind::PackageTool => "package_tool_refs",
            ResourceKind::PackageMcpServer => "package_mcp_server_refs",
            ResourceKind::PackageMcpTool => "package_mcp_tool_refs",
            ResourceKind::PackageMcpPrompt => "package_mcp_prompt_refs",
            ResourceKind::PackageMcpResource => "package_mcp_resource_refs",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A scheduler or agent projection. `owner` is `orchestrator` for the scheduler.
#[derive(Debug, Clone)]
pub struct Projection {
    pub owner: String,
    pub is_scheduler: bool,
    pub pointer: String,
    /// Where diagnostics about the projection as a whole point (the agent key, or the scheduler
    /// object's opening brace).
    pub span: std::ops::Range<usize>,
    pub base_role: Option<Item>,
    /// An agent's label and description (the scheduler has neither).
    pub label: Option<Item>,
    pub description: Option<Item>,
    /// The declared prompt path, if declared (even when it is not the canonical path).
    pub prompt: Option<Item>,
    pub prompt_declared: bool,
    /// Whether the agent key is a valid, unreserved id (always true for the scheduler).
    pub key_valid: bool,
    /// `inherit_base_tools`, when it is a boolean: whether the runtime adds the base role's
    /// inherited tool set (RES-0).
    pub inherit_base_tools: Option<bool>,
    resources: [Vec<Item>; 13],
}

impl Projection {
    /// The valid, de-duplicated elements of one resource array.
    pub fn refs(&self, kind: ResourceKind) -> &[Item] {
        &self.resources[kind.index()]
    }

    /// `capability_projection.scheduler` or `capability_projection.agents.<id>`.
    pub fn pointer_display(&self) -> String {
        format!("capability_projection.{}", self.context())
    }

    /// `agents.<id>` or `scheduler`, for messages.
    pub fn context(&self) -> String {
        if self.is_scheduler {
            "scheduler".to_owned()
        } else {
            format!("agents.{}", self.owner)
        }
    }
}

/// The scheduler's and an agent's own keys, before the resource members.
pub const SCHEDULER_KEYS: [&str; 2] = ["base_role", "prompt"];
pub const AGENT_KEYS: [&str; 5] = [
    "label",
    "description",
    "base_role",
    "execution_contract",
    "prompt",
];
pub const EXECUTION_CONTRACTS: [&str; 1] = ["platform_integrity_review"];

pub const RESOURCE_KEYS: [&str; 14] = [
    "inherit_base_tools",
    "built_in_tool_ids",
    "default_skill_refs",
    "package_skill_refs",
    "default_tool_refs",
    "package_tool_refs",
    "default_mcp_server_refs",
    "package_mcp_server_refs",
    "default_mcp_tool_refs",
    "package_mcp_tool_refs",
    "default_mcp_prompt_refs",
    "package_mcp_prompt_refs",
    "default_mcp_resource_refs",
    "package_mcp_resource_refs",
];

fn allowed_keys(head: &[&'static str]) -> Vec<&'static str> {
    head.iter().copied().chain(RESOURCE_KEYS).collect()
}

pub fn check_scheduler(checker: &mut Checker, node: &Node, pointer: &str) -> Option<Projection> {
    let object = checker.object(node, pointer, &allowed_keys(&SCHEDULER_KEYS))?;
    let base_role = checker.required(&object, "base_role").and_then(|value| {
        checker.literal(value, &object.pointer_of("base_role"), &["orchestrator"])
    });
    let mut projection = Projection {
        owner: "orchestrator".to_owned(),
        is_scheduler: true,
        pointer: pointer.to_owned(),
        span: object.open_span(),
        base_role,
        label: None,
        description: None,
        prompt: None,
        prompt_declared: object.get("prompt").is_some(),
        key_valid: true,
        inherit_base_tools: None,
        resources: Default::default(),
    };
    check_prompt(checker, &object, &mut projection);
    check_resources(checker, &object, &mut projection);
    Some(projection)
}

pub fn check_agent(
    checker: &mut Checker,
    member: &Member,
    pointer: &str,
    key_valid: bool,
) -> Option<Projection> {
    let object = checker.object(&member.value, pointer, &allowed_keys(&AGENT_KEYS))?;
    let label = checker
        .required(&object, "label")
        .and_then(|label| checker.non_blank(label, &object.pointer_of("label")));
    let description = object
        .get("description")
        .and_then(|description| checker.non_blank(description, &object.pointer_of("description")));
    let base_role = checker
        .required(&object, "base_role")
        .and_then(|value| checker.non_empty(value, &object.pointer_of("base_role")));
    if let Some(role) = &base_role {
        if !RUNTIME_TEMPLATE_IDS.contains(&role.value.as_str()) {
            let mut diagnostic = checker
                .at(
                    Code::UnknownBaseRole,
                    role.span.clone(),
                    &role.pointer,
                    format!("unknown runtime template `{}`", role.value),
                )
                .span_label("not a runtime template");
            diagnostic = match crate::text::closest(&role.value, RUNTIME_TEMPLATE_IDS) {
                Some(close) => diagnostic.suggest(Suggestion::replace(
                    format!("did you mean `{close}`?"),
                    role.span.clone(),
                    json_string(close),
                )),
                None => diagnostic.help(format!(
                    "base_role is one of: {}",
                    RUNTIME_TEMPLATE_IDS.join(", ")
                )),
            };
            checker.push(diagnostic);
        }
    }
    let contract = object.get("execution_contract").and_then(|value| {
        checker.literal(
            value,
            &object.pointer_of("execution_contract"),
            &EXECUTION_CONTRACTS,
        )
    });
    let contract_present = object.get("execution_contract").is_some();
    if let Some(role) = &base_role {
        if role.value == "integrity" && !contract_present {
            let diagnostic = checker
                .at(
                    Code::ExecutionContractMismatch,
                    role.span.clone(),
                    &role.pointer,
                    "integrity base_role requires the explicit platform_integrity_review execution contract",
                )
                .help("add \"execution_contract\": \"platform_integrity_review\" to this agent")
                .suggest(Suggestion {
                    message: "add `\"execution_contract\": \"platform_integrity_review\"`".to_owned(),
                    edits: vec![edit_between(
                        checker.text,
                        &crate::jsonc::edit::set_member(
                            checker.text,
                            object.node,
                            "execution_contract",
                            "\"platform_integrity_review\"",
                        ),
                    )],
                    applicability: Applicability::MachineApplicable,
                });
            checker.push(diagnostic);
        } else if role.value != "integrity" {
            if let Some(contract) = &contract {
                let diagnostic = checker
                    .at(
                        Code::ExecutionContractMismatch,
                        contract.span.clone(),
                        &contract.pointer,
                        "platform_integrity_review execution contract requires integrity base_role",
                    )
                    .label(role.span.clone(), "base_role is not `integrity`")
                    .help("remove execution_contract, or use base_role `integrity`");
                checker.push(diagnostic);
            }
        }
    }
    let mut projection = Projection {
        owner: member.key.clone(),
        is_scheduler: false,
        pointer: pointer.to_owned(),
        span: member.key_span.clone(),
        base_role,
        label,
        description,
        prompt: None,
        prompt_declared: object.get("prompt").is_some(),
        key_valid,
        inherit_base_tools: None,
        resources: Default::default(),
    };
    check_prompt(checker, &object, &mut projection);
    check_resources(checker, &object, &mut projection);
    Some(projection)
}

/// SCH-2, AG-5, MAN-R2: a declared prompt is exactly `agents/<owner>/system.md`.
fn check_prompt(
    checker: &mut Checker,
    object: &super::checker::Object,
    projection: &mut Projection,
) {
    let Some(value) = object.get("prompt") else {
        return;
    };
    let Some(item) = checker.non_empty(value, &object.pointer_of("prompt")) else {
        return;
    };
    let expected = format!("agents/{}/system.md", projection.owner);
    if item.value != expected {
        let diagnostic = checker
            .at(
                Code::InvalidPromptPath,
                item.span.clone(),
                &item.pointer,
                format!("{}.prompt must be {expected}", projection.context()),
            )
            .span_label(format!("expected `{expected}`"))
            .suggest(Suggestion::replace(
                format!("write `{expected}`"),
                item.span.clone(),
                json_string(&expected),
            ));
        checker.push(diagnostic);
    }
    projection.prompt = Some(item);
}

fn check_resources(
    checker: &mut Checker,
    object: &super::checker::Object,
    projection: &mut Projection,
) {
    if let Some(value) = checker.required(object, "inherit_base_tools") {
        projection.inherit_base_tools =
            checker.boolean(value, &object.pointer_of("inherit_base_tools"));
    }
    for kind in ResourceKind::ALL {
        let field = kind.field();
        if object.get(field).is_none() {
            // All 13 arrays are required; an empty one is what leaving it out usually means.
            let diagnostic = checker
                .at(
                    Code::MissingField,
                    object.open_span(),
                    &object.pointer,
                    format!("missing required field `{field}`"),
                )
                .span_label(format!("this object needs `{field}`"))
                .suggest(Suggestion {
                    message: format!("add `\"{field}\": []`"),
                    edits: vec![edit_between(
                        checker.text,
                        &crate::jsonc::edit::set_member(checker.text, object.node, field, "[]"),
                    )],
                    applicability: Applicability::MachineApplicable,
                });
            checker.push(diagnostic);
            continue;
        }
        if let Some(value) = checker.required(object, field) {
            let pointer = child_pointer(&object.pointer, field);
            if let Some(items) = checker.unique_strings(value, &pointer, field) {
                projection.resources[kind.index()] = items;
            }
        }
    }
}
