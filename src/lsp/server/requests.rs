//! The requests an editor makes about a position: hover, completion, definition, references,
//! rename and code actions, each answered from the package view of the document.

use lsp_types::{
    CodeActionOrCommand, CodeActionParams, CompletionParams, CompletionResponse,
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams, MarkupContent,
    MarkupKind, PrepareRenameResponse, ReferenceParams, RenameParams, TextDocumentPositionParams,
    Url,
};

use crate::lsp::actions::{self, Shown, Target};
use crate::lsp::navigate::{self, View};
use crate::lsp::publish;
use crate::lsp::workspace::{Document, Package, Workspace};
use crate::lsp::{complete, hover};
use crate::manifest::{MANIFEST_FILE, Manifest};

use super::*;

impl Server<'_> {
    /// Runs `feature` with the package view of the document `uri`.
    pub(super) fn with_view<R>(
        &mut self,
        uri: &Url,
        fresh: bool,
        feature: impl FnOnce(&View, &Workspace, &Document) -> R,
    ) -> Option<R> {
        let root = self.workspace.documents.get(uri)?.package.clone()?;
        let has_report = self
            .workspace
            .packages
            .get(&root)
            .is_some_and(|package| package.report.is_some());
        if fresh || !has_report {
            self.ensure_checked(&root);
        }
        let manifest_uri = Workspace::uri_of(&root, MANIFEST_FILE)?;
        let owned: Option<(String, Manifest)> =
            if self.workspace.documents.contains_key(&manifest_uri) {
                self.workspace.model(&manifest_uri);
                None
            } else {
                let text = self.workspace.text_of(&root, MANIFEST_FILE)?;
                let mut ignored = crate::diag::Diagnostics::default();
                let manifest = crate::manifest::check(&text, &mut ignored)?;
                Some((text, manifest))
            };
        let workspace = &self.workspace;
        let (text, manifest, current) = match &owned {
            Some((text, manifest)) => (text.as_str(), manifest, true),
            None => {
                let model = workspace.models.get(&manifest_uri)?;
                let document = workspace.documents.get(&manifest_uri)?;
                (
                    document.text.as_str(),
                    model.manifest.as_ref()?,
                    model.current,
                )
            }
        };
        let discovered = workspace
            .packages
            .get(&root)
            .and_then(|package| package.report.as_ref())
            .map(|report| &report.resources);
        let view = View {
            root: &root,
            manifest_uri,
            manifest_text: text,
            manifest,
            current,
            discovered,
            encoding: workspace.encoding,
        };
        let document = workspace.documents.get(uri)?;
        Some(feature(&view, workspace, document))
    }

    pub(super) fn offset_of(&self, uri: &Url, position: lsp_types::Position) -> Option<usize> {
        let document = self.workspace.documents.get(uri)?;
        Some(document.index.offset(&document.text, position))
    }

    pub(super) fn hover(&mut self, params: HoverParams) -> Option<Hover> {
        let uri = params.text_document_position_params.text_document.uri;
        let offset = self.offset_of(&uri, params.text_document_position_params.position)?;
        let mut parts: Vec<String> = self.diagnostics_at(&uri, offset);
        let document = self.workspace.documents.get(&uri)?;
        if document.package.is_some() {
            let relative = document.relative().unwrap_or_default();
            let text = self.with_view(&uri, false, |view, workspace, document| {
                if document.is_manifest() {
                    hover::manifest(view, workspace, offset)
                } else if is_mcp_declaration(&relative) {
                    hover::schema_field(
                        &crate::manifest::schema::mcp_schema(),
                        &document.text,
                        offset,
                    )
                } else {
                    None
                }
            });
            parts.extend(text.flatten());
        }
        if parts.is_empty() {
            return None;
        }
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: if self.markdown_hover {
                    MarkupKind::Markdown
                } else {
                    MarkupKind::PlainText
                },
                value: parts.join("\n\n---\n\n"),
            }),
            range: None,
        })
    }

    /// The explain summaries of the diagnostics of the last check under `offset` of `uri`.
    pub(super) fn diagnostics_at(&mut self, uri: &Url, offset: usize) -> Vec<String> {
        let Some(root) = self
            .workspace
            .documents
            .get(uri)
            .and_then(|d| d.package.clone())
        else {
            return Vec::new();
        };
        let Some(package) = self.workspace.packages.get(&root) else {
            return Vec::new();
        };
        let (Some(report), Some(document)) =
            (package.report.as_ref(), self.workspace.documents.get(uri))
        else {
            return Vec::new();
        };
        if package.checked.get(uri) != Some(&document.version) {
            return Vec::new();
        }
        report
            .diagnostics
            .iter()
            .filter_map(|diagnostic| {
                let placed = publish::place(&root, report, diagnostic)?;
                let span = placed.span?;
                (placed.uri == *uri && span.start <= offset && offset <= span.end)
                    .then(|| hover::diagnostic(diagnostic.code.as_str(), &diagnostic.message))
            })
            .take(8)
            .collect()
    }

    pub(super) fn completion(&mut self, params: CompletionParams) -> Option<CompletionResponse> {
        let uri = params.text_document_position.text_document.uri;
        let offset = self.offset_of(&uri, params.text_document_position.position)?;
        let document = self.workspace.documents.get(&uri)?;
        let relative = document.relative().unwrap_or_default();
        let markdown = self.markdown_completion;
        let mut items = if document.is_manifest() {
            let items = self.with_view(&uri, false, |view, _, document| {
                complete::manifest(Some(view), &document.text, offset, &document.index)
            });
            match items {
                Some(items) => items,
                None => {
                    let document = self.workspace.documents.get(&uri)?;
                    complete::manifest(None, &document.text, offset, &document.index)
                }
            }
        } else if is_mcp_declaration(&relative) {
            complete::mcp(&document.text, offset, &document.index)
        } else {
            return None;
        };
        if !markdown {
            for item in &mut items {
                if let Some(lsp_types::Documentation::MarkupContent(content)) =
                    item.documentation.take()
                {
                    item.documentation = Some(lsp_types::Documentation::String(content.value));
                }
            }
        }
        Some(CompletionResponse::List(lsp_types::CompletionList {
            is_incomplete: false,
            items,
        }))
    }

    pub(super) fn definition(
        &mut self,
        params: GotoDefinitionParams,
    ) -> Option<GotoDefinitionResponse> {
        let uri = params.text_document_position_params.text_document.uri;
        let offset = self.offset_of(&uri, params.text_document_position_params.position)?;
        let locations = self.with_view(&uri, false, |view, workspace, document| {
            if document.is_manifest() {
                navigate::definition(view, workspace, offset)
            } else {
                Vec::new()
            }
        })?;
        (!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations))
    }

    pub(super) fn references(
        &mut self,
        params: ReferenceParams,
    ) -> Option<Vec<lsp_types::Location>> {
        let uri = params.text_document_position.text_document.uri;
        let offset = self.offset_of(&uri, params.text_document_position.position)?;
        let include = params.context.include_declaration;
        self.with_view(&uri, false, |view, _, document| {
            let relative = document.relative().unwrap_or_default();
            navigate::references(view, &relative, offset, include)
        })
    }

    pub(super) fn prepare_rename(
        &mut self,
        params: TextDocumentPositionParams,
    ) -> Option<PrepareRenameResponse> {
        let uri = params.text_document.uri;
        let offset = self.offset_of(&uri, params.position)?;
        self.with_view(&uri, false, |view, _, document| {
            if !document.is_manifest() {
                return None;
            }
            let (span, placeholder) = navigate::prepare_rename(view, offset)?;
            Some(PrepareRenameResponse::RangeWithPlaceholder {
                range: document.index.range(&document.text, &span),
                placeholder,
            })
        })
        .flatten()
    }

    pub(super) fn rename(
        &mut self,
        params: RenameParams,
    ) -> Result<lsp_types::WorkspaceEdit, RpcError> {
        let uri = params.text_document_position.text_document.uri;
        let Some(offset) = self.offset_of(&uri, params.text_document_position.position) else {
            return Err(RpcError::new(
                REQUEST_FAILED,
                format!("`{uri}` is not open"),
            ));
        };
        let support = self.support;
        let new_name = params.new_name;
        let result = self.with_view(&uri, false, |view, workspace, document| {
            if !document.is_manifest() {
                return Err("rename an agent or a node in expert-squad.jsonc".to_owned());
            }
            let version = workspace
                .documents
                .get(&view.manifest_uri)
                .map(|manifest| manifest.version);
            navigate::rename(view, offset, &new_name, version, support)
        });
        match result {
            Some(Ok(edit)) => Ok(edit),
            Some(Err(message)) => Err(RpcError::new(REQUEST_FAILED, message)),
            None => Err(RpcError::new(
                REQUEST_FAILED,
                "the document is not part of a package with a manifest",
            )),
        }
    }

    pub(super) fn code_action(
        &mut self,
        params: CodeActionParams,
    ) -> Option<Vec<CodeActionOrCommand>> {
        let uri = params.text_document.uri;
        let root = self.workspace.documents.get(&uri)?.package.clone()?;
        self.ensure_checked(&root);
        let workspace = &self.workspace;
        let document = workspace.documents.get(&uri)?;
        let package: &Package = workspace.packages.get(&root)?;
        if package.checked.get(&uri) != Some(&document.version) {
            return None;
        }
        let report = package.report.as_ref()?;
        let relative = document.relative()?;
        let mut shown = Vec::new();
        for diagnostic in &report.diagnostics {
            let Some(placed) = publish::place(&root, report, diagnostic) else {
                continue;
            };
            if placed.uri != uri {
                continue;
            }
            let lsp = publish::to_lsp(
                diagnostic,
                &uri,
                placed.span.as_ref(),
                &document.text,
                &document.index,
                &mut self.pages,
            );
            shown.push(Shown {
                diagnostic,
                lsp,
                span: placed.span,
            });
        }
        let target = Target {
            root: &root,
            uri: &uri,
            relative: &relative,
            text: &document.text,
            index: &document.index,
        };
        let span = document.index.span(&document.text, params.range);
        let actions = actions::actions(
            &target,
            report,
            &shown,
            &span,
            params.context.only.as_deref(),
            self.support,
        );
        Some(
            actions
                .into_iter()
                .map(CodeActionOrCommand::CodeAction)
                .collect(),
        )
    }
}
