//! SARIF 2.1.0 output (`--format sarif`), for code-scanning uploads. One run, the tool's rules
//! are the diagnostic codes, columns are counted in Unicode code points (as ours are).

use std::collections::HashMap;

use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use super::{Code, Diagnostic};
use crate::source::SourceFile;

/// The diagnostics of one package, with the path the user gave for it.
pub struct PackageDiagnostics<'a> {
    pub shown: &'a str,
    pub diagnostics: &'a [Diagnostic],
    pub sources: &'a HashMap<String, SourceFile>,
}

/// The path of a package file as a URI relative to the working directory.
pub fn display_file(package: &str, file: &str) -> String {
    let package = package.trim_end_matches('/');
    if file == "." {
        package.to_owned()
    } else if package == "." || package.is_empty() {
        file.to_owned()
    } else {
        format!("{package}/{file}")
    }
}

/// The SARIF log for every package of a run. Its results are built one by one as the log is
/// written, so that a run of many thousand diagnostics is streamed instead of held in memory.
pub fn document<'a>(packages: &'a [PackageDiagnostics<'a>]) -> Log<'a> {
    let rules = Code::ALL
        .iter()
        .map(|code| {
            json!({
                "id": code.as_str(),
                "shortDescription": { "text": code.description() },
                "fullDescription": { "text": format!("{} (package-format.md: {})", code.description(), code.rules()) },
                "help": { "text": format!("Run `squad explain {}` for the rule, why it exists and how to fix it.", code.as_str()) },
                "defaultConfiguration": { "level": code.severity().as_str() },
            })
        })
        .collect();
    Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "squad",
                    version: env!("CARGO_PKG_VERSION"),
                    information_uri: "https://github.com/opencorvus/squad",
                    rules,
                },
            },
            column_kind: "unicodeCodePoints",
            results: Results {
                packages,
                rule_index: Code::ALL
                    .iter()
                    .enumerate()
                    .map(|(index, code)| (*code, index))
                    .collect(),
            },
        }],
    }
}

#[derive(Serialize)]
pub struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    column_kind: &'static str,
    results: Results<'a>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<Value>,
}

struct Results<'a> {
    packages: &'a [PackageDiagnostics<'a>],
    rule_index: HashMap<Code, usize>,
}

impl Serialize for Results<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.packages.iter().flat_map(|package| {
            package
                .diagnostics
                .iter()
                .map(move |diagnostic| self.result(package, diagnostic))
        }))
    }
}

impl Results<'_> {
    fn result(&self, package: &PackageDiagnostics, diagnostic: &Diagnostic) -> Value {
        let mut location = json!({
            "physicalLocation": {
                "artifactLocation": { "uri": display_file(package.shown, &diagnostic.file) }
            }
        });
        if let (Some(span), Some(source)) =
            (&diagnostic.span, package.sources.get(&diagnostic.file))
        {
            let start = source.position(span.start);
            let end = source.position(span.end);
            location["physicalLocation"]["region"] = json!({
                "startLine": start.line,
                "startColumn": start.column,
                "endLine": end.line,
                "endColumn": end.column.max(if end.line == start.line { start.column + 1 } else { 1 }),
                "byteOffset": start.offset,
                "byteLength": end.offset.saturating_sub(start.offset),
            });
        }
        let mut text = diagnostic.message.clone();
        for help in &diagnostic.help {
            text.push_str("\nhelp: ");
            text.push_str(help);
        }
        let mut result = json!({
            "ruleId": diagnostic.code.as_str(),
            "ruleIndex": self.rule_index[&diagnostic.code],
            "level": diagnostic.severity().as_str(),
            "message": { "text": text },
            "locations": [location],
        });
        if let Some(pointer) = &diagnostic.pointer {
            result["properties"] = json!({ "pointer": pointer });
        }
        // Machine-applicable suggestions as SARIF fixes, by byte ranges of the file as read.
        let fixes: Vec<Value> = diagnostic
            .suggestions
            .iter()
            .filter(|suggestion| suggestion.is_machine_applicable())
            .map(|suggestion| {
                json!({
                    "description": { "text": suggestion.message },
                    "artifactChanges": [{
                        "artifactLocation": { "uri": display_file(package.shown, &diagnostic.file) },
                        "replacements": suggestion.edits.iter().map(|edit| json!({
                            "deletedRegion": {
                                "byteOffset": edit.span.start,
                                "byteLength": edit.span.end - edit.span.start,
                            },
                            "insertedContent": { "text": edit.replacement },
                        })).collect::<Vec<_>>(),
                    }],
                })
            })
            .collect();
        if !fixes.is_empty() {
            result["fixes"] = Value::Array(fixes);
        }
        result
    }
}
