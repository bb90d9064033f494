//! GitHub Actions workflow commands (`--format github`): one `::error`, `::warning` or
//! `::notice` line per diagnostic, which the runner turns into annotations on the files.

use std::io::{self, Write};

use super::Severity;
use super::sarif::{PackageDiagnostics, display_file};

/// Escapes a command's message (`%`, CR, LF), as the Actions toolkit does. The line breaks
/// become `%0A`; every other character `text::remote` escapes (the escape sequences a log
/// viewer would colour or hide text with, quoted from a package's files) is escaped as it
/// escapes them, first.
fn escape_data(text: &str) -> String {
    crate::text::lines_safe_to_show(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (also `:` and `,`).
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Writes one command line per diagnostic to `out`, as they are produced.
pub fn write_commands(out: &mut impl Write, packages: &[PackageDiagnostics]) -> io::Result<()> {
    for package in packages {
        for diagnostic in package.diagnostics {
            let command = match diagnostic.severity() {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "notice",
            };
            let mut properties = vec![format!(
                "file={}",
                escape_property(&display_file(package.shown, &diagnostic.file))
            )];
            if let (Some(span), Some(source)) =
                (&diagnostic.span, package.sources.get(&diagnostic.file))
            {
                let start = source.position(span.start);
                let end = source.position(span.end);
                properties.push(format!("line={}", start.line));
                properties.push(format!("col={}", start.column));
                properties.push(format!("endLine={}", end.line));
                if end.line == start.line {
                    properties.push(format!("endColumn={}", end.column));
                }
            }
            properties.push(format!(
                "title={}",
                escape_property(&format!("squad {}", diagnostic.code.as_str()))
            ));
            let mut message = diagnostic.message.clone();
            for help in &diagnostic.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            writeln!(
                out,
                "::{command} {}::{}",
                properties.join(","),
                escape_data(&message)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Code, Diagnostic};
    use crate::source::SourceFile;

    #[test]
    fn annotations_escape_and_position() {
        let mut sources = std::collections::HashMap::new();
        sources.insert(
            "expert-squad.jsonc".to_owned(),
            SourceFile::new("{\n  \"x\": 1\n}\n".to_owned()),
        );
        let diagnostics = vec![
            Diagnostic::new(
                Code::UnknownField,
                "expert-squad.jsonc",
                "unknown field `x`",
            )
            .span(4..7)
            .help("100% sure: remove it"),
            Diagnostic::new(
                Code::UnknownTopLevelEntry,
                "LICENSE",
                "unknown top-level entry `LICENSE`",
            ),
            Diagnostic::new(
                Code::UnknownField,
                "expert-squad.jsonc",
                "unknown field `\u{1b}[2J\u{9b}31m`",
            ),
        ];
        let mut out = Vec::new();
        write_commands(
            &mut out,
            &[PackageDiagnostics {
                shown: "pkg",
                diagnostics: &diagnostics,
                sources: &sources,
            }],
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "::error file=pkg/expert-squad.jsonc,line=2,col=3,endLine=2,endColumn=6,title=squad unknown-field::unknown field `x`%0Ahelp: 100%25 sure: remove it\n\
             ::error file=pkg/LICENSE,title=squad unknown-top-level-entry::unknown top-level entry `LICENSE`\n\
             ::error file=pkg/expert-squad.jsonc,title=squad unknown-field::unknown field `\\u{1b}[2J\\u{9b}31m`\n"
        );
    }
}
