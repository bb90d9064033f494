//! SARIF 2.1.0 output (`--format sarif`), for code-scanning uploads. One run, the tool's rules
//! are the diagnostic codes, columns are counted in Unicode code points (as ours are).

use std::collections::HashMap;

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

/// The SARIF log for every package of a run.
pub fn document(packages: &[PackageDiagnostics]) -> Value {
    let rules: Vec<Value> = Code::ALL
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
    let rule_index: HashMap<Code, usize> = Code::ALL
        .iter()
        .enumerate()
        .map(|(index, code)| (*code, index))
        .collect();
    let mut results = Vec::new();
    for package in packages {
        for diagnostic in package.diagnostics {
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
                    "byteLength": end.offset - start.offset,
                });
            }
            let mut text = diagnostic.message.clone();
            for help in &diagnostic.help {
                text.push_str("\nhelp: ");
                text.push_str(help);
            }
            let mut result = json!({
                "ruleId": diagnostic.code.as_str(),
                "ruleIndex": rule_index[&diagnostic.code],
                "level": diagnostic.severity().as_str(),
                "message": { "text": text },
                "locations": [location],
            });
            if let Some(pointer) = &diagnostic.pointer {
                result["properties"] = json!({ "pointer": pointer });
            }
            results.push(result);
        }
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "squad",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://github.com/opencorvus/squad",
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}
