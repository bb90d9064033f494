//! Code actions: every suggestion a diagnostic carries (the machine-applicable ones, which
//! `squad fix` applies, first and preferred), all of a file's machine-applicable fixes at once
//! (`source.fixAll`), and quick fixes that create a missing file a ref or a prompt names, from
//! the texts `squad scaffold` writes.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use lsp_types::{
    CodeAction, CodeActionKind, CreateFile, CreateFileOptions, Diagnostic as LspDiagnostic,
    DocumentChangeOperation, DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier,
    Position, ResourceOp, TextDocumentEdit, TextEdit, Url, WorkspaceEdit,
};

use super::navigate::EditSupport;
use super::position::LineIndex;
use super::workspace::Workspace;
use crate::diag::{Code, Diagnostic, Suggestion};
use crate::manifest::{MANIFEST_FILE, ResourceKind};
use crate::package::{CapabilityKind, Report};
use crate::scaffold;
use crate::text::is_kebab_id;

/// The document the actions are asked for, as it was checked.
pub struct Target<'a> {
    pub root: &'a Path,
    pub uri: &'a Url,
    pub relative: &'a str,
    pub text: &'a str,
    pub index: &'a LineIndex,
}

/// One of the report's diagnostics shown in this document, and how it was shown.
pub struct Shown<'a> {
    pub diagnostic: &'a Diagnostic,
    pub lsp: LspDiagnostic,
    pub span: Option<Range<usize>>,
}

/// The actions for the diagnostics shown in `span` of the target document.
pub fn actions(
    target: &Target,
    report: &Report,
    shown: &[Shown],
    span: &Range<usize>,
    only: Option<&[CodeActionKind]>,
    support: EditSupport,
) -> Vec<CodeAction> {
    let wants = |kind: &CodeActionKind| {
        only.is_none_or(|only| {
            only.iter()
                .any(|wanted| kind.as_str().starts_with(wanted.as_str()))
        })
    };
    let mut preferred = Vec::new();
    let mut others = Vec::new();
    if wants(&CodeActionKind::QUICKFIX) {
        for shown in shown {
            let touches = match &shown.span {
                Some(at) => at.start <= span.end && span.start <= at.end,
                None => span.start == 0,
            };
            if !touches {
                continue;
            }
            // Suggestions edit the diagnostic's own file; one re-placed here (about a file that
            // is missing) has nothing to edit in this text.
            if shown.diagnostic.file == target.relative {
                for suggestion in &shown.diagnostic.suggestions {
                    let Some(edit) = text_edit(target, std::slice::from_ref(suggestion)) else {
                        continue;
                    };
                    let action = CodeAction {
                        title: suggestion.message.clone(),
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![shown.lsp.clone()]),
                        edit: Some(edit),
                        is_preferred: Some(suggestion.is_machine_applicable()),
                        ..CodeAction::default()
                    };
                    if suggestion.is_machine_applicable() {
                        preferred.push(action);
                    } else {
                        others.push(action);
                    }
                }
            }
            if let Some((file, content)) = missing_file(target, report, shown.diagnostic) {
                if let Some(edit) = create_file(target.root, &file, &content, support) {
                    others.push(CodeAction {
                        title: format!("create `{file}`"),
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![shown.lsp.clone()]),
                        edit: Some(edit),
                        is_preferred: Some(false),
                        ..CodeAction::default()
                    });
                }
            }
        }
    }
    preferred.extend(others);
    if wants(&CodeActionKind::SOURCE_FIX_ALL) {
        let fixable: Vec<Suggestion> = shown
            .iter()
            .filter(|shown| shown.diagnostic.file == target.relative)
            .filter_map(|shown| {
                shown
                    .diagnostic
                    .suggestions
                    .iter()
                    .find(|suggestion| suggestion.is_machine_applicable())
                    .cloned()
            })
            .collect();
        if !fixable.is_empty() {
            if let Some(edit) = text_edit(target, &fixable) {
                preferred.push(CodeAction {
                    title: "apply every fix `squad fix` would apply in this file".to_owned(),
                    kind: Some(CodeActionKind::SOURCE_FIX_ALL),
                    edit: Some(edit),
                    ..CodeAction::default()
                });
            }
        }
    }
    preferred.truncate(super::MAX_RESULTS);
    preferred
}

/// The edits of the suggestions that do not touch each other (all of them, for one), as
/// `squad fix` chooses them.
fn text_edit(target: &Target, suggestions: &[Suggestion]) -> Option<WorkspaceEdit> {
    let (_, chosen) = crate::fix::apply(target.text, suggestions);
    if chosen.is_empty() {
        return None;
    }
    let mut edits: Vec<TextEdit> = chosen
        .iter()
        .flat_map(|index| &suggestions[*index].edits)
        .map(|edit| {
            TextEdit::new(
                target.index.range(target.text, &edit.span),
                edit.replacement.clone(),
            )
        })
        .collect();
    edits.sort_by_key(|edit| (edit.range.start.line, edit.range.start.character));
    let mut changes = HashMap::new();
    changes.insert(target.uri.clone(), edits);
    Some(WorkspaceEdit::new(changes))
}

/// A workspace edit that creates `file` with `content`, never replacing a file.
fn create_file(
    root: &Path,
    file: &str,
    content: &str,
    support: EditSupport,
) -> Option<WorkspaceEdit> {
    if !(support.create_files && support.document_changes) {
        return None;
    }
    if crate::fs::symlink_metadata(root.join(file)).is_ok() {
        return None;
    }
    let uri = Workspace::uri_of(root, file)?;
    Some(WorkspaceEdit {
        changes: None,
        document_changes: Some(DocumentChanges::Operations(vec![
            DocumentChangeOperation::Op(ResourceOp::Create(CreateFile {
                uri: uri.clone(),
                options: Some(CreateFileOptions {
                    overwrite: Some(false),
                    ignore_if_exists: Some(true),
                }),
                annotation_id: None,
            })),
            DocumentChangeOperation::Edit(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri, version: None },
                edits: vec![OneOf::Left(TextEdit::new(
                    lsp_types::Range::new(Position::new(0, 0), Position::new(0, 0)),
                    content.to_owned(),
                ))],
            }),
        ])),
        change_annotations: None,
    })
}

/// The file a diagnostic says is missing, and what `squad scaffold` would write there.
fn missing_file(
    target: &Target,
    report: &Report,
    diagnostic: &Diagnostic,
) -> Option<(String, String)> {
    let manifest = report.manifest.as_ref()?;
    match diagnostic.code {
        Code::MissingFile if diagnostic.file == "README.md" => {
            let label = manifest
                .label
                .as_ref()
                .map_or("", |label| label.value.as_str());
            let description = manifest
                .description
                .as_ref()
                .map_or("What this squad does.", |description| {
                    description.value.as_str()
                });
            Some(("README.md".into(), format!("# {label}\n\n{description}\n")))
        }
        Code::MissingFile if diagnostic.file == "selector.md" => Some((
            "selector.md".into(),
            "Choose this squad when the task matches what its README describes.\n".into(),
        )),
        Code::MissingFile if diagnostic.file == MANIFEST_FILE => {
            let path = literal_at(target, report, diagnostic)?;
            let owner = path.strip_prefix("agents/")?.strip_suffix("/system.md")?;
            let agent = manifest
                .projections()
                .find(|projection| projection.owner == owner)?;
            let label = agent
                .label
                .as_ref()
                .map_or_else(|| scaffold::title_case(owner), |label| label.value.clone());
            let description = agent.description.as_ref().map(|d| d.value.as_str());
            Some((path, scaffold::prompt_text(&label, description)))
        }
        Code::DanglingRef => {
            let reference = literal_at(target, report, diagnostic)?;
            let pointer = diagnostic.pointer.as_deref()?;
            let field = pointer.rsplit('/').nth(1)?;
            let kind = ResourceKind::ALL
                .into_iter()
                .find(|kind| kind.field() == field)?;
            let id = manifest.id.as_ref()?.value.as_str();
            new_resource(report, id, kind, &reference)
        }
        _ => None,
    }
}

/// The string value a diagnostic points at, as the checked text holds it.
fn literal_at(target: &Target, report: &Report, diagnostic: &Diagnostic) -> Option<String> {
    let span = diagnostic.span.clone()?;
    let text = if diagnostic.file == target.relative {
        target.text
    } else {
        report.sources.get(&diagnostic.file)?.text.as_str()
    };
    serde_json::from_str::<String>(text.get(span)?).ok()
}

/// The file that would declare `reference` of `kind`, and its scaffold text.
fn new_resource(
    report: &Report,
    id: &str,
    kind: ResourceKind,
    reference: &str,
) -> Option<(String, String)> {
    let rest = reference.strip_prefix(id)?.strip_prefix('/')?;
    let (owner, name) = rest.split_once('/')?;
    if !is_kebab_id(owner) {
        return None;
    }
    let base = if owner == "shared" {
        String::new()
    } else {
        format!("agents/{owner}/")
    };
    match kind {
        ResourceKind::PackageSkill => {
            let parts: Vec<&str> = name.split('/').collect();
            if !parts.iter().all(|part| is_kebab_id(part)) {
                return None;
            }
            let last = parts.last()?;
            Some((
                format!("{base}skills/{name}/SKILL.md"),
                scaffold::skill_text(last, None),
            ))
        }
        ResourceKind::PackageTool => is_kebab_id(name).then(|| {
            (
                format!("{base}tools/{name}.ts"),
                scaffold::tool_text(name, None),
            )
        }),
        ResourceKind::PackageMcpServer => server_file(&base, name, None),
        ResourceKind::PackageMcpTool
        | ResourceKind::PackageMcpPrompt
        | ResourceKind::PackageMcpResource => {
            let capability = match kind {
                ResourceKind::PackageMcpTool => CapabilityKind::Tool,
                ResourceKind::PackageMcpPrompt => CapabilityKind::Prompt,
                _ => CapabilityKind::Resource,
            };
            let marker = format!("/{}/", capability.segment());
            let at = name.rfind(&marker)?;
            let (server, capability_name) = (&name[..at], &name[at + marker.len()..]);
            let server_reference = format!("{id}/{owner}/{server}");
            let exists = report
                .resources
                .servers
                .iter()
                .any(|declared| declared.reference == server_reference);
            if exists || capability_name.is_empty() {
                return None;
            }
            server_file(&base, server, Some((capability, capability_name)))
        }
        _ => None,
    }
}

fn server_file(
    base: &str,
    server: &str,
    capability: Option<(CapabilityKind, &str)>,
) -> Option<(String, String)> {
    if server.is_empty() || server.contains(['/', '\\']) {
        return None;
    }
    let name = |kind: CapabilityKind| {
        capability
            .filter(|(wanted, _)| *wanted == kind)
            .map(|(_, name)| vec![name.to_owned()])
            .unwrap_or_default()
    };
    let spec = scaffold::McpSpec {
        resource: scaffold::ResourceSpec {
            name: server.to_owned(),
            owner: None,
            projections: Vec::new(),
            description: Some(format!(
                "The {server} MCP server: set its url (and transport) to the real server."
            )),
        },
        url: "https://mcp.example.com/mcp".to_owned(),
        transport: "streamable-http".to_owned(),
        tools: name(CapabilityKind::Tool),
        prompts: name(CapabilityKind::Prompt),
        resources: name(CapabilityKind::Resource),
    };
    Some((
        format!("{base}mcp/{server}.jsonc"),
        scaffold::mcp_text(&spec),
    ))
}
