//! Human rendering of diagnostics, in the style of rustc and cargo: a header with the code, a
//! `-->` location, the source line with the span underlined, then `help:` lines. Colour is
//! applied only when asked for; the text reads the same without it.

use std::fmt::Write as _;
use std::ops::Range;

use super::{Diagnostic, Severity};
use crate::source::SourceFile;

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(self, text: &str, ansi: &str) -> String {
        if self.color {
            format!("\x1b[{ansi}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn severity(self, severity: Severity) -> String {
        let ansi = match severity {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Note => "1;36",
        };
        self.paint(severity.as_str(), ansi)
    }

    fn gutter(self, text: &str) -> String {
        self.paint(text, "1;34")
    }

    fn bold(self, text: &str) -> String {
        self.paint(text, "1")
    }
}

struct Annotation<'a> {
    span: &'a Range<usize>,
    message: Option<&'a str>,
    primary: bool,
}

/// Renders one diagnostic. `display_path` is the file's path as the user should read it;
/// `source` is its text when the diagnostic has a span.
pub fn render(
    diagnostic: &Diagnostic,
    display_path: &str,
    source: Option<&SourceFile>,
    style: Style,
) -> String {
    let mut out = String::new();
    let severity = diagnostic.severity();
    let _ = writeln!(
        out,
        "{}{} {}",
        style.severity(severity),
        style.bold(&format!("[{}]:", diagnostic.code.as_str())),
        style.bold(&diagnostic.message)
    );
    let (Some(source), Some(span)) = (source, diagnostic.span.as_ref()) else {
        let _ = writeln!(out, "  {} {display_path}", style.gutter("-->"));
        if let Some(pointer) = &diagnostic.pointer {
            let _ = writeln!(out, "  {} at `{pointer}`", style.gutter("="));
        }
        push_help(&mut out, diagnostic, style);
        return out;
    };

    let mut annotations = vec![Annotation {
        span,
        message: diagnostic.span_label.as_deref(),
        primary: true,
    }];
    annotations.extend(diagnostic.labels.iter().map(|label| Annotation {
        span: &label.span,
        message: Some(label.message.as_str()),
        primary: false,
    }));
    let start = source.position(span.start);
    let max_line = annotations
        .iter()
        .map(|annotation| source.position(annotation.span.start).line)
        .max()
        .unwrap_or(start.line);
    let width = max_line.to_string().len();
    let pad = " ".repeat(width);
    let _ = writeln!(
        out,
        "{pad}{} {display_path}:{}:{}",
        style.gutter("-->"),
        start.line,
        start.column
    );
    let _ = writeln!(out, "{pad} {}", style.gutter("|"));
    annotations.sort_by_key(|annotation| (annotation.span.start, !annotation.primary));
    let mut previous_line = None;
    for annotation in &annotations {
        let (from, to) = source.lines_of(annotation.span);
        let line_text = source.line_text(from.line).replace('\t', " ");
        let line_chars = line_text.chars().count();
        let first = from.column - 1;
        let last = if to.line == from.line {
            (to.column - 1).max(first + 1)
        } else {
            line_chars.max(first + 1)
        };
        let marker = if annotation.primary { "^" } else { "-" };
        let underline = format!("{}{}", " ".repeat(first), marker.repeat(last - first));
        let underline = match annotation.message {
            Some(message) => format!("{underline} {message}"),
            None => underline,
        };
        let painted = if annotation.primary {
            style.paint(&underline, severity_ansi(severity))
        } else {
            style.gutter(&underline)
        };
        // Several annotations on one line share one copy of it.
        if previous_line != Some(from.line) {
            let _ = writeln!(
                out,
                "{} {} {line_text}",
                style.gutter(&format!("{:>width$}", from.line)),
                style.gutter("|")
            );
        }
        previous_line = Some(from.line);
        let _ = writeln!(out, "{pad} {} {painted}", style.gutter("|"));
    }
    if let Some(pointer) = &diagnostic.pointer {
        let _ = writeln!(out, "{pad} {} at `{pointer}`", style.gutter("="));
    }
    push_help(&mut out, diagnostic, style);
    out
}

fn severity_ansi(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "1;31",
        Severity::Warning => "1;33",
        Severity::Note => "1;36",
    }
}

fn push_help(out: &mut String, diagnostic: &Diagnostic, style: Style) {
    for help in &diagnostic.help {
        let _ = writeln!(out, "{} {help}", style.bold("help:"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Code;

    #[test]
    fn renders_snippet_with_underline_and_help() {
        let source = SourceFile::new("{\n  \"id\": \"Bad\",\n  \"x\": 1\n}\n".to_owned());
        let diagnostic = Diagnostic::new(Code::InvalidId, "expert-squad.jsonc", "invalid id `Bad`")
            .span(10..15)
            .span_label("must match ^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
            .pointer("/id")
            .label(19..22, "another label")
            .help("use lower-kebab-case");
        let text = render(
            &diagnostic,
            "pkg/expert-squad.jsonc",
            Some(&source),
            Style { color: false },
        );
        assert_eq!(
            text,
            "error[invalid-id]: invalid id `Bad`
 --> pkg/expert-squad.jsonc:2:9
  |
2 |   \"id\": \"Bad\",
  |         ^^^^^ must match ^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$
3 |   \"x\": 1
  |   --- another label
  = at `/id`
help: use lower-kebab-case
"
        );
    }

    #[test]
    fn renders_file_level_diagnostics_without_snippet() {
        let diagnostic = Diagnostic::new(Code::MissingFile, "README.md", "missing README.md");
        let text = render(&diagnostic, "pkg/README.md", None, Style { color: false });
        assert_eq!(
            text,
            "error[missing-file]: missing README.md\n  --> pkg/README.md\n"
        );
    }
}
