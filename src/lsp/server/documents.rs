//! Documents as the client edits them, and the checks of their packages: opened, changed,
//! closed and watched files update the workspace; a check runs when its time comes and
//! publishes validate's diagnostics for every file they point into.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, PublishDiagnosticsParams, Url,
};

use crate::lsp::position::LineIndex;
use crate::lsp::publish;
use crate::lsp::workspace::Document;
use crate::package::{self, ValidateError};

use super::*;

impl Server<'_> {
    pub(super) fn did_open(&mut self, params: DidOpenTextDocumentParams) {
        let item = params.text_document;
        if item.text.len() > crate::lsp::MAX_DOCUMENT_BYTES {
            self.note(&format!(
                "`{}` is larger than the {} bytes kept open ({} bytes); it is checked as saved on disk",
                item.uri, crate::lsp::MAX_DOCUMENT_BYTES, item.text.len()
            ));
            return;
        }
        if self.workspace.documents.len() >= crate::lsp::MAX_OPEN_DOCUMENTS
            && !self.workspace.documents.contains_key(&item.uri)
        {
            self.note(&format!(
                "more than {} documents open; `{}` is not followed",
                crate::lsp::MAX_OPEN_DOCUMENTS,
                item.uri
            ));
            return;
        }
        let encoding = self.workspace.encoding;
        let document = Document::new(item.uri.clone(), item.version, item.text, encoding);
        self.workspace.documents.insert(item.uri.clone(), document);
        // A manifest opened may make a package of the documents around it.
        self.refresh_packages();
        self.touch_document(&item.uri);
    }

    pub(super) fn did_change(&mut self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let encoding = self.workspace.encoding;
        let Some(document) = self.workspace.documents.get_mut(&uri) else {
            self.note(&format!(
                "a change of `{uri}`, which is not open, was ignored"
            ));
            return;
        };
        if params.content_changes.len() > crate::lsp::MAX_CHANGES {
            let count = params.content_changes.len();
            self.close_unusable(
                &uri,
                &format!(
                    "{count} changes in one edit (at most {})",
                    crate::lsp::MAX_CHANGES
                ),
            );
            return;
        }
        let mut text = std::mem::take(&mut document.text);
        for change in params.content_changes {
            match change.range {
                Some(range) => {
                    let index = LineIndex::new(&text, encoding);
                    let span = index.span(&text, range);
                    text.replace_range(span, &change.text);
                }
                None => text = change.text,
            }
            if text.len() > crate::lsp::MAX_DOCUMENT_BYTES {
                break;
            }
        }
        if text.len() > crate::lsp::MAX_DOCUMENT_BYTES {
            self.close_unusable(
                &uri,
                &format!("larger than {} bytes", crate::lsp::MAX_DOCUMENT_BYTES),
            );
            return;
        }
        document.set_text(text, params.text_document.version, encoding);
        self.touch_document(&uri);
    }

    /// Stops following a document the server can no longer keep in step with the editor: it
    /// is checked from the file on disk.
    pub(super) fn close_unusable(&mut self, uri: &Url, why: &str) {
        self.note(&format!(
            "`{uri}` is no longer followed: {why}; it is checked as saved on disk"
        ));
        self.forget(uri);
    }

    pub(super) fn did_close(&mut self, params: DidCloseTextDocumentParams) {
        self.forget(&params.text_document.uri);
    }

    pub(super) fn forget(&mut self, uri: &Url) {
        let Some(document) = self.workspace.documents.remove(uri) else {
            return;
        };
        self.workspace.models.remove(uri);
        if document.package.is_none() && self.workspace.standalone_published.remove(uri) {
            self.publish(uri.clone(), Vec::new(), None);
        }
        self.refresh_packages();
        if let Some(root) = document.package {
            self.workspace.touch(&root, Instant::now());
        }
    }

    pub(super) fn files_changed(&mut self, params: DidChangeWatchedFilesParams) {
        self.refresh_packages();
        let now = Instant::now();
        let roots: Vec<PathBuf> = self.workspace.packages.keys().cloned().collect();
        for change in params.changes.iter().take(crate::lsp::MAX_CHANGES) {
            let Ok(path) = change.uri.to_file_path() else {
                continue;
            };
            for root in &roots {
                if path.starts_with(root) {
                    self.workspace.touch(root, now);
                }
            }
        }
    }

    pub(super) fn refresh_packages(&mut self) {
        for gone in self.workspace.refresh_packages() {
            for uri in gone.published {
                self.publish(uri, Vec::new(), None);
            }
        }
    }

    /// Marks the document's package changed, or checks a document in no package at once.
    pub(super) fn touch_document(&mut self, uri: &Url) {
        let Some(document) = self.workspace.documents.get(uri) else {
            return;
        };
        match document.package.clone() {
            Some(root) => self.workspace.touch(&root, Instant::now()),
            None => self.check_standalone(uri),
        }
    }

    // --- Checks --------------------------------------------------------------------------

    pub(super) fn next_due(&self) -> Option<Instant> {
        self.workspace
            .packages
            .values()
            .filter_map(|package| package.due)
            .min()
    }

    /// Checks the package whose time has come first.
    pub(super) fn check_due(&mut self) {
        let now = Instant::now();
        let Some(root) = self
            .workspace
            .packages
            .values()
            .filter(|package| package.due.is_some_and(|due| due <= now))
            .min_by_key(|package| package.due)
            .map(|package| package.root.clone())
        else {
            return;
        };
        self.check(&root, true);
    }

    /// Checks a package now (abandoned for a newer edit when `cancellable`) and publishes
    /// its diagnostics.
    pub(super) fn check(&mut self, root: &Path, cancellable: bool) {
        let Some(abandoned) = self.workspace.packages.get(root).map(|p| p.abandoned) else {
            return;
        };
        let (overlay, versions) = self.workspace.overlay(root);
        let edits = self.edits.clone();
        let start = edits.load(Ordering::SeqCst);
        let may_abandon = cancellable && abandoned < crate::lsp::MAX_ABANDONED;
        let cancelled = move || may_abandon && edits.load(Ordering::SeqCst) != start;
        let started = Instant::now();
        let result = package::validate_overlay(root, &overlay, &cancelled);
        let elapsed = started.elapsed();
        match result {
            Ok(report) => self.publish_report(root, report, versions, elapsed),
            Err(ValidateError::Cancelled(_)) => {
                if let Some(package) = self.workspace.packages.get_mut(root) {
                    package.abandoned += 1;
                    package.due = Some(Instant::now());
                }
            }
            Err(error) => {
                self.note(&format!(
                    "cannot check `{}`: {}",
                    root.display(),
                    crate::error::chain(&error)
                ));
                let published = self.workspace.packages.get_mut(root).map(|package| {
                    package.due = None;
                    package.report = None;
                    std::mem::take(&mut package.published)
                });
                for uri in published.into_iter().flatten() {
                    self.publish(uri, Vec::new(), None);
                }
            }
        }
    }

    pub(super) fn publish_report(
        &mut self,
        root: &Path,
        report: package::Report,
        versions: BTreeMap<Url, i32>,
        elapsed: Duration,
    ) {
        let texts: BTreeMap<String, String> = self
            .workspace
            .documents
            .values()
            .filter(|document| document.package.as_deref() == Some(root))
            .filter_map(|document| Some((document.relative()?, document.text.clone())))
            .collect();
        let mut by_document = publish::package_diagnostics(
            root,
            &report,
            &texts,
            self.workspace.encoding,
            &mut self.pages,
        );
        // Every open document of the package hears the verdict, an empty one included: the
        // editor then knows it was checked.
        for uri in versions.keys() {
            by_document.entry(uri.clone()).or_default();
        }
        let previous = self
            .workspace
            .packages
            .get(root)
            .map(|package| package.published.clone())
            .unwrap_or_default();
        let mut published = std::collections::BTreeSet::new();
        for (uri, diagnostics) in by_document {
            published.insert(uri.clone());
            let version = versions.get(&uri).copied();
            self.publish(uri, diagnostics, version);
        }
        for uri in previous.difference(&published) {
            let version = versions.get(uri).copied();
            self.publish(uri.clone(), Vec::new(), version);
        }
        if let Some(package) = self.workspace.packages.get_mut(root) {
            package.published = published;
            package.report = Some(report);
            package.checked = versions;
            package.last_check = elapsed;
            package.abandoned = 0;
            package.due = None;
        }
    }

    pub(super) fn publish(
        &mut self,
        uri: Url,
        mut diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) {
        if diagnostics.len() > crate::lsp::MAX_DIAGNOSTICS_PER_DOCUMENT {
            let more = diagnostics.len() - crate::lsp::MAX_DIAGNOSTICS_PER_DOCUMENT;
            diagnostics.truncate(crate::lsp::MAX_DIAGNOSTICS_PER_DOCUMENT);
            diagnostics.push(lsp_types::Diagnostic {
                severity: Some(lsp_types::DiagnosticSeverity::INFORMATION),
                source: Some(publish::SOURCE.to_owned()),
                message: format!("… and {more} more; `squad validate` lists every one"),
                ..lsp_types::Diagnostic::default()
            });
        }
        self.notify(
            "textDocument/publishDiagnostics",
            PublishDiagnosticsParams {
                uri,
                diagnostics,
                version,
            },
        );
    }

    /// A document in no package: checked as the document of a neighbouring format its content
    /// says it is, as `squad validate FILE` checks it.
    pub(super) fn check_standalone(&mut self, uri: &Url) {
        let Some(document) = self.workspace.documents.get(uri) else {
            return;
        };
        let name = uri
            .path()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !(name.ends_with(".json") || name.ends_with(".jsonc")) {
            return;
        }
        let interop_place = uri.path().contains("/interop/")
            || [
                ".play.json",
                ".collab.json",
                ".contract.json",
                ".handoff.json",
            ]
            .iter()
            .any(|suffix| name.ends_with(suffix));
        let (diagnostics, source) = match crate::interop::Document::parse(document.text.clone()) {
            Ok(parsed) => match crate::interop::sniff(&parsed.value) {
                Some(kind) if kind != crate::interop::Kind::Package => (
                    crate::interop::check(&parsed, kind, &crate::interop::Options::default()),
                    parsed.source,
                ),
                _ => (Vec::new(), parsed.source),
            },
            Err(unparsed) if interop_place => (vec![unparsed.diagnostic], unparsed.source),
            Err(unparsed) => (Vec::new(), unparsed.source),
        };
        let index = LineIndex::new(&source.text, self.workspace.encoding);
        let version = document.version;
        let lsp: Vec<lsp_types::Diagnostic> = diagnostics
            .iter()
            .map(|diagnostic| {
                publish::to_lsp(
                    diagnostic,
                    uri,
                    diagnostic.span.as_ref(),
                    &source.text,
                    &index,
                    &mut self.pages,
                )
            })
            .collect();
        let had = self.workspace.standalone_published.contains(uri);
        if lsp.is_empty() && !had {
            return;
        }
        if lsp.is_empty() {
            self.workspace.standalone_published.remove(uri);
        } else {
            self.workspace.standalone_published.insert(uri.clone());
        }
        self.publish(uri.clone(), lsp, Some(version));
    }

    /// Makes sure the package's last check is of the documents as they are now.
    pub(super) fn ensure_checked(&mut self, root: &Path) {
        let stale = self
            .workspace
            .packages
            .get(root)
            .is_some_and(|package| package.report.is_none() || package.due.is_some());
        if stale {
            self.check(root, false);
        }
    }
}
