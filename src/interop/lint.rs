//! `squad lint WORKSPACE`: every interop file of an authoring workspace (seed-formats §0.2),
//! dispatched by directory and otherwise by content. Plays under `interop/openvibe/`, router
//! contracts and recorded runs under `interop/ck/`, Open Floor documents under `interop/ofp/`,
//! handoffs under `interop/aos/handoffs/`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::document::Read;
use super::router::conformance::{self, Case};
use super::router::{Contract, Profile, contract, implementation};
use super::{Document, Kind, Options};
use crate::diag::{Code, Diagnostic};
use crate::source::SourceFile;

/// The findings about one file of the workspace.
#[derive(Debug)]
pub struct Linted {
    /// Relative to the workspace, `/`-separated.
    pub path: String,
    pub kind: Kind,
    pub diagnostics: Vec<Diagnostic>,
    pub source: SourceFile,
}

/// Deeper than any layout of §0.2; a bound so a link loop or a hostile tree cannot run away.
const MAX_DEPTH: usize = 8;

/// What a file is, from where it lies. `None`: not an interop document (skipped); `Some(None)`:
/// told by its content.
fn kind_by_place(relative: &str) -> Option<Option<Place>> {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    if !name.ends_with(".json") {
        return None;
    }
    let place = if relative.starts_with("interop/openvibe/") {
        if name == "play-extras.json" {
            return None;
        }
        Place::Kind(Kind::Play)
    } else if relative.starts_with("interop/ck/cases/") {
        Place::RouterCase
    } else if relative.starts_with("interop/ck/implementations/") {
        return None;
    } else if relative.starts_with("interop/ck/") && name.ends_with(".contract.json") {
        Place::Contract
    } else if relative.starts_with("interop/ofp/envelopes/") {
        Place::Kind(Kind::OfpEnvelope)
    } else if relative.starts_with("interop/ofp/manifests/") {
        Place::Kind(Kind::OfpManifest)
    } else if relative.starts_with("interop/ofp/dialog-events/") {
        Place::Kind(Kind::OfpDialogEvent)
    } else if relative.starts_with("interop/aos/handoffs/") {
        Place::Kind(Kind::Handoff)
    } else {
        return Some(None);
    };
    Some(Some(place))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Kind(Kind),
    Contract,
    RouterCase,
}

/// Lints every interop file under `<workspace>/interop`, in path order.
pub fn lint(workspace: &Path, options: &Options) -> Result<Vec<Linted>, String> {
    let root = workspace.join("interop");
    if !root.is_dir() {
        return Err(format!(
            "`{}` has no interop/ folder; a workspace keeps other formats in interop/ beside its packages",
            workspace.display()
        ));
    }
    let mut files = collect(&root)
        .map_err(|(path, error)| format!("cannot read `{}`: {error}", path.display()))?;
    files.sort();
    let contracts: Vec<&PathBuf> = files
        .iter()
        .filter(|path| {
            relative(workspace, path).is_some_and(|r| {
                kind_by_place(&r) == Some(Some(Place::Contract))
                    && !r["interop/ck/".len()..].contains('/')
            })
        })
        .collect();
    // Recorded runs are judged against the workspace's one contract, or ck-brain's. That
    // contract is linted below from this same parse.
    let mut only_contract = match contracts.as_slice() {
        [only] => match Document::read(only) {
            Ok(Read::Parsed(doc)) => Some(((*only).clone(), doc)),
            _ => None,
        },
        _ => None,
    };
    let case_contract = only_contract
        .as_ref()
        .map_or_else(Contract::ck_brain, |(_, doc)| {
            Contract::from_value(&doc.value)
        });
    let mut linted = Vec::new();
    for path in &files {
        let Some(relative) = relative(workspace, path) else {
            continue;
        };
        let Some(place) = kind_by_place(&relative) else {
            continue;
        };
        let read = match only_contract.take_if(|(contract, _)| contract == path) {
            Some((_, document)) => Ok(Read::Parsed(document)),
            None => Document::read(path),
        };
        let document = match read {
            Ok(Read::Parsed(document)) => document,
            Ok(Read::Unparsed(unparsed)) => {
                linted.push(Linted {
                    path: relative,
                    kind: Kind::Unknown,
                    diagnostics: vec![unparsed.diagnostic],
                    source: unparsed.source,
                });
                continue;
            }
            Err(error) => return Err(format!("cannot read `{}`: {error}", path.display())),
        };
        let place = match place {
            Some(place) => place,
            None => match super::sniff(&document.value) {
                Some(Kind::Package) | None => {
                    let diagnostic = Diagnostic::new(
                        Code::UnknownKind,
                        super::document::FILE,
                        "unknown format: not a play, router contract or input, Open Floor document, handoff or collaboration",
                    )
                    .pointer("/")
                    .help("move it under the interop/ folder of its format (seed-formats §0.2), or out of interop/");
                    let mut diagnostics = document.notes;
                    diagnostics.push(diagnostic);
                    linted.push(Linted {
                        path: relative,
                        kind: Kind::Unknown,
                        diagnostics,
                        source: document.source,
                    });
                    continue;
                }
                Some(kind) => Place::Kind(kind),
            },
        };
        let (kind, diagnostics) = match place {
            Place::Kind(kind) => (kind, super::check(&document, kind, options)),
            Place::Contract => {
                let mut diagnostics = document.notes.clone();
                contract::lint(&document, Profile::Generic, &mut diagnostics);
                for implementation in implementation::discover(path, Profile::Generic) {
                    let shown = relative_or_display(workspace, &implementation);
                    diagnostics.extend(implementation::check(&implementation).into_iter().map(
                        |mut diagnostic| {
                            diagnostic.message = format!("{shown}: {}", diagnostic.message);
                            diagnostic
                        },
                    ));
                }
                (Kind::RouterContract, diagnostics)
            }
            Place::RouterCase => (Kind::RouterInput, router_case(&document, &case_contract)),
        };
        let mut diagnostics = diagnostics;
        super::sort_by_span(&mut diagnostics);
        linted.push(Linted {
            path: relative,
            kind,
            diagnostics,
            source: document.source,
        });
    }
    Ok(linted)
}

/// A recorded run `{input, output, expect?, delegate_result?}` (§2.7 B2), judged by the
/// conformance rules; findings are placed in the case file.
fn router_case(document: &Document, contract: &Contract) -> Vec<Diagnostic> {
    let mut out = document.notes.clone();
    let mut fields = super::shape::fields::Fields::new(document, &mut out);
    let Some(case) = fields.object(
        "",
        &document.value,
        &["input", "output", "expect", "delegate_result"],
        &["input", "output"],
        false,
    ) else {
        return out;
    };
    if let Some(expect) = case.get("expect") {
        fields.one_of("/expect", expect, &["unrouted"]);
    }
    let (Some(input), Some(output)) = (case.get("input"), case.get("output")) else {
        return out;
    };
    let reparse = |value: &Value| Document::parse(value.to_string()).ok();
    let (Some(input), Some(output)) = (reparse(input), reparse(output)) else {
        return out;
    };
    let mut found = Vec::new();
    conformance::check(
        &Case {
            contract,
            input: &input,
            output: &output,
            expect_unrouted: case.get("expect").and_then(Value::as_str) == Some("unrouted"),
            delegate_result: case.get("delegate_result"),
        },
        &mut found,
    );
    // Re-address each finding from the answer to its place in the case file.
    for finding in found {
        let inner = finding.pointer.clone().unwrap_or_default();
        let pointer = format!("/output{}", if inner == "/" { "" } else { inner.as_str() });
        let mut placed = document.at(finding.code, &pointer, finding.message);
        placed.keyword = finding.keyword;
        placed.severity_override = finding.severity_override;
        placed.help = finding.help;
        out.push(placed);
    }
    out
}

/// Every regular file under `root`, at most [`MAX_DEPTH`] directories down. Links are not
/// followed, so they are neither files nor directories here.
fn collect(root: &Path) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(root).max_depth(MAX_DEPTH + 1) {
        let entry = entry.map_err(|error| {
            let path = error.path().unwrap_or(root).to_path_buf();
            (path, std::io::Error::from(error))
        })?;
        if entry.file_type().is_file() {
            files.push(entry.into_path());
        }
    }
    Ok(files)
}

fn relative(workspace: &Path, path: &Path) -> Option<String> {
    path.strip_prefix(workspace)
        .ok()
        .map(|relative| relative.to_string_lossy().replace('\\', "/"))
}

fn relative_or_display(workspace: &Path, path: &Path) -> String {
    relative(workspace, path).unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_decide_the_kind() {
        let kind = |path: &str| kind_by_place(path);
        assert_eq!(
            kind("interop/openvibe/review.play.json"),
            Some(Some(Place::Kind(Kind::Play)))
        );
        assert_eq!(
            kind("interop/openvibe/review/source.play.json"),
            Some(Some(Place::Kind(Kind::Play)))
        );
        assert_eq!(kind("interop/openvibe/review/play-extras.json"), None);
        assert_eq!(
            kind("interop/ck/ck-brain.contract.json"),
            Some(Some(Place::Contract))
        );
        assert_eq!(
            kind("interop/ck/cases/ambiguous.json"),
            Some(Some(Place::RouterCase))
        );
        assert_eq!(kind("interop/ck/implementations/codex/ck-brain.toml"), None);
        assert_eq!(
            kind("interop/ofp/manifests/a.json"),
            Some(Some(Place::Kind(Kind::OfpManifest)))
        );
        assert_eq!(
            kind("interop/aos/handoffs/AOS-1.json"),
            Some(Some(Place::Kind(Kind::Handoff)))
        );
        assert_eq!(kind("interop/misc/thing.json"), Some(None));
        assert_eq!(kind("interop/ofp/envelopes/notes.md"), None);
    }
}
