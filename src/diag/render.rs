//! Human rendering of diagnostics, in the style of rustc and cargo: a header with the code, a
//! `-->` location, the source lines with the spans underlined, the JSON pointer, then `help:`
//! lines. Colour is applied only when asked for; the text reads the same without it.
//!
//! The source snippet is drawn by `annotate-snippets`, rustc's renderer: display widths of wide
//! characters, tabs, control characters, multi-line spans and the clipping of long lines to the
//! terminal width are its business. It is handed only a window of the file (see `Window`), so
//! that rendering a diagnostic costs the size of its neighbourhood, not of its line or file: a
//! minified manifest is one line, and thousands of diagnostics on it must not each copy it. The
//! header and the `= at`/`help:` lines are written here, because the column the renderer would
//! compute from a window is not the column in the file.

use std::fmt::Write as _;
use std::ops::Range;

use annotate_snippets::renderer::{
    DEFAULT_EMPHASIS_STYLE, DEFAULT_ERROR_STYLE, DEFAULT_HELP_STYLE, DEFAULT_LINE_NUM_STYLE,
    DEFAULT_NOTE_STYLE, DEFAULT_WARNING_STYLE,
};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use super::limit::HeldBack;
use super::{Diagnostic, Severity};
use crate::source::SourceFile;

/// ANSI styling or none, and the width (in columns) to fit snippets to.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
    pub width: usize,
}

impl Default for Style {
    /// Plain, at rustc's default width: what piped output looks like.
    fn default() -> Self {
        Style {
            color: false,
            width: annotate_snippets::renderer::DEFAULT_TERM_WIDTH,
        }
    }
}

impl Style {
    fn paint(self, text: &str, style: anstyle::Style) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    fn severity(self, severity: Severity) -> anstyle::Style {
        match severity {
            Severity::Error => DEFAULT_ERROR_STYLE,
            Severity::Warning => DEFAULT_WARNING_STYLE,
            Severity::Note => DEFAULT_NOTE_STYLE,
        }
    }

    fn gutter(self, text: &str) -> String {
        self.paint(text, DEFAULT_LINE_NUM_STYLE)
    }

    fn renderer(self) -> Renderer {
        let renderer = if self.color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        renderer.term_width(self.width)
    }
}

/// Characters of context kept on each side of a span's ends, in widths of the snippet: at twice
/// the width, a cut line is always cut again by the renderer, which then shows its `...` where
/// the line goes on.
const CONTEXT_WIDTHS: usize = 2;
/// Characters kept inside a span at each end when a single-line span is wider than the snippet.
const INSIDE: usize = 32;
/// Lines further than this from every span's ends are never shown by the renderer (it shows a
/// multi-line span's first four and last two lines, and gaps of one line), so they are blanked.
const SHOWN_AROUND: usize = 8;
/// Stands for the cut-out middle of a wide span.
const ELLIPSIS: &str = "...";

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
    let level_style = style.severity(severity);
    let _ = writeln!(
        out,
        "{}{}",
        style.paint(
            &format!("{}[{}]", severity.as_str(), diagnostic.code.as_str()),
            level_style
        ),
        style.paint(
            &format!(": {}", untrusted(&diagnostic.message)),
            DEFAULT_EMPHASIS_STYLE
        ),
    );
    let display_path = untrusted(display_path);
    let (Some(source), Some(span)) = (source, diagnostic.span.as_ref()) else {
        let _ = writeln!(out, "  {} {display_path}", style.gutter("-->"));
        push_footer(&mut out, diagnostic, "  ", style);
        return out;
    };

    let mut spans = vec![clean_span(source, span)];
    spans.extend(
        diagnostic
            .labels
            .iter()
            .map(|label| clean_span(source, &label.span)),
    );
    let window = Window::new(source, &spans, style.width);
    let start = source.position(spans[0].start);
    let pad = " ".repeat(window.last_line.to_string().len());
    let _ = writeln!(
        out,
        "{pad}{} {display_path}:{}:{}",
        style.gutter("-->"),
        start.line,
        start.column
    );

    let span_label = diagnostic.span_label.as_deref().map(untrusted);
    let label_messages: Vec<String> = diagnostic
        .labels
        .iter()
        .map(|label| untrusted(&label.message))
        .collect();
    let mut annotations = window.spans.iter().cloned();
    let primary = AnnotationKind::Primary
        .span(annotations.next().unwrap_or_default())
        .label(span_label.as_deref());
    let labels = annotations
        .zip(&label_messages)
        .map(|(span, label)| AnnotationKind::Context.span(span).label(label.as_str()));
    let level = match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
    };
    let snippet = Snippet::source(window.text.as_str())
        .line_start(window.first_line)
        .annotation(primary)
        .annotations(labels);
    let report = [Group::with_level(level).element(snippet)];
    out.push_str(&style.renderer().render(&report));
    out.push('\n');
    push_footer(&mut out, diagnostic, &pad, style);
    out
}

/// The line that stands for diagnostics held back by the [`super::limit::Limit`] of human output.
pub fn held_back(held: &HeldBack, display_path: &str) -> String {
    format!(
        "… and {} more `{}` {}{} in {} (`--verbose` shows them all)\n",
        held.count,
        held.code.as_str(),
        held.severity.as_str(),
        if held.count == 1 { "" } else { "s" },
        untrusted(display_path)
    )
}

/// The `= at` pointer line and the `help:` lines.
fn push_footer(out: &mut String, diagnostic: &Diagnostic, pad: &str, style: Style) {
    if let Some(pointer) = &diagnostic.pointer {
        let _ = writeln!(
            out,
            "{pad} {} at `{}`",
            style.gutter("="),
            untrusted(pointer)
        );
    }
    for help in &diagnostic.help {
        // A help may show a block of lines (the frontmatter a SKILL.md needs): each line after
        // the first is indented under the text, so no line of it can pass for squad's own.
        let mut lines = help.split('\n');
        let first = lines.next().unwrap_or_default();
        let _ = writeln!(
            out,
            "{}: {}",
            style.paint("help", DEFAULT_HELP_STYLE),
            untrusted(first)
        );
        for line in lines {
            let _ = writeln!(out, "      {}", untrusted(line));
        }
    }
}

/// Text a diagnostic quotes from a file (a key, a value, a path, a pointer), as one line of
/// squad's. annotate-snippets' own normalisation draws C0 controls and bidirectional overrides
/// as visible symbols, as rustc does, but passes line breaks and C1 controls (an 8-bit CSI
/// among them): a value could forge a line or start an escape sequence. Those, and the other
/// characters `text::remote` escapes, are escaped as it escapes them.
fn untrusted(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if crate::text::is_invisible(c) && !is_drawn(c) {
            escaped.push_str(&crate::text::remote(c.encode_utf8(&mut [0; 4]), 1));
        } else {
            escaped.push(c);
        }
    }
    annotate_snippets::normalize_untrusted_str(&escaped)
}

/// Whether annotate-snippets draws `c` as a visible symbol (or spaces) of its own.
fn is_drawn(c: char) -> bool {
    (c.is_ascii_control() && c != '\n')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A C1 control character (two bytes) in a snippet's source line, which the renderer would pass
/// to the terminal as is, drawn as U+FFFD (three bytes) instead.
fn visible(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.chars().any(is_c1) {
        return std::borrow::Cow::Borrowed(line);
    }
    std::borrow::Cow::Owned(
        line.chars()
            .map(|c| if is_c1(c) { '\u{FFFD}' } else { c })
            .collect(),
    )
}

/// Where byte `at` of `line` is in [`visible`]`(line)`: one byte later per C1 character before it.
fn visible_offset(line: &str, at: usize) -> usize {
    at + line[..at].chars().filter(|c| is_c1(*c)).count()
}

fn is_c1(c: char) -> bool {
    ('\u{80}'..='\u{9F}').contains(&c)
}

/// A span the renderer can take: inside the text, on character boundaries, not reversed, and
/// not ending with the line break it may have taken along (which would make it look like it runs
/// onto the next line).
fn clean_span(source: &SourceFile, span: &Range<usize>) -> Range<usize> {
    let text = source.text.as_str();
    let mut start = span.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let bytes = text.as_bytes();
    if end > start && bytes[end - 1] == b'\n' {
        end -= 1;
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
    }
    start..end
}

/// The part of a file a snippet shows: the lines from the first span's first line to the last
/// span's last line, each cut down to pieces around the span ends on it (with
/// [`CONTEXT_WIDTHS`] widths of characters on either side, and the middle of a span wider than
/// the snippet cut out), and the spans moved into that text. Lines the renderer would fold
/// away are left empty. Its size depends on the spans, not on the length of the lines.
struct Window {
    text: String,
    first_line: usize,
    last_line: usize,
    spans: Vec<Range<usize>>,
}

impl Window {
    fn new(source: &SourceFile, spans: &[Range<usize>], width: usize) -> Window {
        let text = source.text.as_str();
        let lines: Vec<(usize, usize)> = spans
            .iter()
            .map(|span| (source.line_of(span.start), source.line_of(span.end)))
            .collect();
        let first_line = lines.iter().map(|(start, _)| *start).min().unwrap_or(1);
        let last_line = lines
            .iter()
            .map(|(_, end)| *end)
            .max()
            .unwrap_or(first_line);
        let mut window = Window {
            text: String::new(),
            first_line,
            last_line,
            spans: spans.to_vec(),
        };
        for line in first_line..=last_line {
            let range = source.line_range(line);
            let near = lines.iter().any(|(start, end)| {
                start.abs_diff(line) <= SHOWN_AROUND || end.abs_diff(line) <= SHOWN_AROUND
            });
            if near {
                // Span ends on this line, clamped to it (an end may sit on its `\r`).
                let ends: Vec<(usize, bool, usize)> = spans
                    .iter()
                    .zip(&lines)
                    .enumerate()
                    .flat_map(|(index, (span, (start_line, end_line)))| {
                        [
                            (*start_line == line).then_some((index, true, span.start)),
                            (*end_line == line).then_some((index, false, span.end)),
                        ]
                    })
                    .flatten()
                    .map(|(index, is_start, offset)| (index, is_start, offset.min(range.end)))
                    .collect();
                let pieces = pieces(text, &range, &ends, width);
                for (number, piece) in pieces.iter().enumerate() {
                    if number > 0 {
                        window.text.push_str(ELLIPSIS);
                    }
                    let base = window.text.len();
                    let shown = &text[piece.clone()];
                    window.text.push_str(&visible(shown));
                    for (index, is_start, offset) in &ends {
                        if piece.contains(offset) || piece.end == *offset {
                            let moved = base + visible_offset(shown, offset - piece.start);
                            let span = &mut window.spans[*index];
                            if *is_start {
                                span.start = moved;
                            } else {
                                span.end = moved;
                            }
                        }
                    }
                }
            }
            if line < last_line {
                window.text.push('\n');
            }
        }
        window
    }
}

/// The byte ranges of `range` (one line) to keep: around each span end on the line (given as
/// span index, whether it is the start, offset), or the start of the line when none is on it;
/// sorted and merged.
fn pieces(
    text: &str,
    range: &Range<usize>,
    ends: &[(usize, bool, usize)],
    width: usize,
) -> Vec<Range<usize>> {
    let context = CONTEXT_WIDTHS * width;
    let before = |offset: usize, chars: usize| {
        text[range.start..offset]
            .char_indices()
            .rev()
            .take(chars)
            .last()
            .map_or(offset, |(index, _)| range.start + index)
    };
    let after = |offset: usize, chars: usize| {
        text[offset..range.end]
            .char_indices()
            .nth(chars)
            .map_or(range.end, |(index, _)| offset + index)
    };
    let mut pieces: Vec<Range<usize>> = Vec::new();
    for (index, is_start, offset) in ends {
        // The other end of the same span, when it is on this line too.
        let other = ends
            .iter()
            .find(|(other, other_is_start, _)| other == index && other_is_start != is_start)
            .map(|(_, _, offset)| *offset);
        pieces.push(match other {
            None => before(*offset, context)..after(*offset, context),
            Some(end) if *is_start => {
                let wide = text[*offset..end].chars().nth(width).is_some();
                if wide {
                    before(*offset, context)..after(*offset, INSIDE)
                } else {
                    before(*offset, context)..after(end, context)
                }
            }
            Some(start) => {
                let wide = text[start..*offset].chars().nth(width).is_some();
                if wide {
                    before(*offset, INSIDE)..after(*offset, context)
                } else {
                    // Kept whole, from its start's piece.
                    continue;
                }
            }
        });
    }
    if pieces.is_empty() {
        pieces.push(range.start..after(range.start, context));
    }
    pieces.sort_by_key(|piece| piece.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        match merged.last_mut() {
            // Pieces that overlap or nearly touch are one: an ellipsis would hide next to nothing.
            Some(last) if piece.start <= last.end + ELLIPSIS.len() => {
                last.end = last.end.max(piece.end);
            }
            _ => merged.push(piece),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Code;

    fn plain(diagnostic: &Diagnostic, text: &str) -> String {
        let source = SourceFile::new(text.to_owned());
        render(diagnostic, "pkg/f.jsonc", Some(&source), Style::default())
    }

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
            Style::default(),
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
        let text = render(&diagnostic, "pkg/README.md", None, Style::default());
        assert_eq!(
            text,
            "error[missing-file]: missing README.md\n  --> pkg/README.md\n"
        );
    }

    #[test]
    fn carets_after_wide_characters_sit_under_the_span() {
        // CJK characters and emoji take two columns each; the column in the header counts
        // characters, as the JSON output does.
        let text = "{\"名前\": \"日本語😀\", \"x\": 1}\n";
        let start = text.find("\"x\"").unwrap();
        let diagnostic = Diagnostic::new(Code::UnknownField, "f.jsonc", "unknown field `x`")
            .span(start..start + 3)
            .span_label("not allowed here");
        assert_eq!(
            plain(&diagnostic, text),
            "error[unknown-field]: unknown field `x`
 --> pkg/f.jsonc:1:16
  |
1 | {\"名前\": \"日本語😀\", \"x\": 1}
  |                      ^^^ not allowed here
"
        );
    }

    #[test]
    fn tabs_are_four_columns_and_carets_follow_them() {
        let text = "{\n\t\"a\":\t\"b\"\n}\n";
        let start = text.find("\"b\"").unwrap();
        let diagnostic = Diagnostic::new(Code::WrongType, "f.jsonc", "wrong type")
            .span(start..start + 3)
            .span_label("a number");
        assert_eq!(
            plain(&diagnostic, text),
            "error[wrong-type]: wrong type
 --> pkg/f.jsonc:2:7
  |
2 |     \"a\":    \"b\"
  |             ^^^ a number
"
        );
    }

    #[test]
    fn multi_line_spans_are_drawn_to_their_last_line() {
        let text = "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": 1\n}\n";
        let start = text.find('[').unwrap();
        let end = text.find(']').unwrap() + 1;
        let diagnostic = Diagnostic::new(Code::WrongType, "f.jsonc", "wrong type")
            .span(start..end)
            .span_label("this list");
        assert_eq!(
            plain(&diagnostic, text),
            "error[wrong-type]: wrong type
 --> pkg/f.jsonc:2:8
  |
2 |     \"a\": [
  |  ________^
3 | |     1,
4 | |     2
5 | |   ],
  | |___^ this list
"
        );
    }

    #[test]
    fn a_span_ending_with_its_line_break_stays_on_its_line() {
        let text = "ab\ncd\n";
        let diagnostic = Diagnostic::new(Code::WrongType, "f.jsonc", "m").span(0..3);
        assert_eq!(
            plain(&diagnostic, text),
            "error[wrong-type]: m\n --> pkg/f.jsonc:1:1\n  |\n1 | ab\n  | ^^\n"
        );
    }

    #[test]
    fn control_characters_in_source_and_messages_are_made_visible() {
        let text = "{\"a\u{1b}[31m\": 1}";
        let diagnostic =
            Diagnostic::new(Code::UnknownField, "f.jsonc", "unknown field `a\u{1b}[31m`")
                .span(1..9)
                .help("remove `a\u{1b}[31m`");
        let rendered = plain(&diagnostic, text);
        assert!(!rendered.contains('\u{1b}'), "{rendered}");
        assert!(rendered.contains("a␛[31m"), "{rendered}");
    }

    #[test]
    fn long_lines_are_clipped_around_the_span() {
        let mut text = String::from("{");
        for index in 0..2000 {
            let _ = write!(text, "\"x{index:04}\":0,");
        }
        text.push_str("\"end\":0}");
        let start = text.find("\"x1000\"").unwrap();
        let diagnostic = Diagnostic::new(Code::UnknownField, "f.jsonc", "unknown field `x1000`")
            .span(start..start + 7)
            .span_label("not allowed here");
        assert_eq!(
            plain(&diagnostic, &text),
            "error[unknown-field]: unknown field `x1000`
 --> pkg/f.jsonc:1:10002
  |
1 | ...:0,\"x0995\":0,\"x0996\":0,\"x0997\":0,\"x0998\":0,\"x0999\":0,\"x1000\":0,\"x1001\":0,\"x1002\":0,\"x1003\":0,\"x1004\":0,\"x1005\":0,\"x1006\":0,\"x1007\"...
  |                                                         ^^^^^^^ not allowed here
"
        );
    }

    #[test]
    fn quoted_file_text_cannot_forge_lines_or_escape_sequences() {
        let text = "{\"a\u{9b}2J\": 1, \"b\": 2}\n";
        let start = text.find("\"b\"").unwrap();
        let forged = "x\nerror: forged\u{1b}[2J\u{9b}31m";
        let diagnostic = Diagnostic::new(
            Code::UnknownField,
            "f.jsonc",
            format!("unknown field `{forged}`"),
        )
        .span(start..start + 3)
        .span_label(forged)
        .pointer(format!("/{forged}"))
        .label(1..7, forged)
        .help(forged);
        let rendered = plain(&diagnostic, text);
        assert!(!rendered.contains(['\u{1b}', '\u{9b}']), "{rendered:?}");
        assert!(
            !rendered
                .lines()
                .any(|line| line.starts_with("error: forged")),
            "{rendered}"
        );
        assert!(
            rendered.starts_with(
                "error[unknown-field]: unknown field `x\\nerror: forged\u{241b}[2J\\u{9b}31m`\n"
            ),
            "{rendered}"
        );
        // The caret still sits under `"b"`, after the C1 character drawn as U+FFFD.
        let line = rendered.lines().nth(3).unwrap();
        assert!(line.contains("\"a\u{FFFD}2J\""), "{rendered}");
        let caret = rendered.lines().nth(4).unwrap().find('^').unwrap();
        let under: String = line.chars().skip(caret).take(3).collect();
        assert_eq!(under, "\"b\"", "{rendered}");
    }

    #[test]
    fn snippets_fit_the_width_asked_for() {
        let text = format!(
            "{{\"a\": \"{}\", \"b\": 1, \"c\": \"{}\"}}",
            "x".repeat(300),
            "y".repeat(300)
        );
        let start = text.find("\"b\"").unwrap();
        let diagnostic = Diagnostic::new(Code::UnknownField, "f.jsonc", "unknown field `b`")
            .span(start..start + 3)
            .span_label("not allowed here");
        for width in [60, 100, 140, 250] {
            let source = SourceFile::new(text.clone());
            let style = Style {
                width,
                ..Style::default()
            };
            let rendered = render(&diagnostic, "f.jsonc", Some(&source), style);
            let line = rendered.lines().nth(3).unwrap();
            assert_eq!(line.chars().count(), width, "{rendered}");
            assert!(
                line.starts_with("1 | ...") && line.ends_with("..."),
                "{rendered}"
            );
            let caret = rendered.lines().nth(4).unwrap().find('^').unwrap();
            assert_eq!(&line[caret..caret + 3], "\"b\"", "{rendered}");
        }
    }

    #[test]
    fn wide_spans_on_long_lines_keep_their_ends() {
        let text = format!("{{\"a\": [{}], \"b\": 1}}", "1, ".repeat(5000));
        let start = text.find('[').unwrap();
        let end = text.find(']').unwrap() + 1;
        let diagnostic = Diagnostic::new(Code::WrongType, "f.jsonc", "wrong type")
            .span(start..end)
            .span_label("this list");
        // The middle of the list is cut out; both ends and the text around them stay.
        assert_eq!(
            plain(&diagnostic, &text),
            "error[wrong-type]: wrong type
 --> pkg/f.jsonc:1:7
  |
1 | {\"a\": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1... 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ], \"b\": 1}
  |       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ this list
"
        );
    }

    #[test]
    fn far_apart_labels_fold_the_lines_between() {
        let text: String = (1..=100).map(|n| format!("line {n}\n")).collect();
        let first = text.find("line 3\n").unwrap();
        let second = text.find("line 90\n").unwrap();
        let diagnostic = Diagnostic::new(Code::DuplicateKey, "f.jsonc", "duplicate")
            .span(second..second + 7)
            .label(first..first + 6, "first here");
        assert_eq!(
            plain(&diagnostic, &text),
            "warning[duplicate-key]: duplicate
  --> pkg/f.jsonc:90:1
   |
 3 | line 3
   | ------ first here
...
90 | line 90
   | ^^^^^^^
"
        );
    }

    #[test]
    fn spans_anywhere_on_long_mixed_lines_never_panic_and_stay_in_their_window() {
        let line: String = (0..20_000)
            .map(|index| ['a', '\t', 'é', '日', '😀', '\u{1b}', ' '][index % 7])
            .collect();
        let text = format!("{line}\r\n{line}\n\n{line}");
        let source = SourceFile::new(text.clone());
        let mut rendered = 0;
        for start in (0..=text.len() + 1).step_by(2_999) {
            for end in (start.saturating_sub(9_000)..=text.len() + 1).step_by(3_001) {
                let diagnostic = Diagnostic::new(Code::WrongType, "f", "m")
                    .span(start..end)
                    .label(start / 2..end / 3, "l");
                for width in [40, 140] {
                    let style = Style {
                        width,
                        ..Style::default()
                    };
                    let text = render(&diagnostic, "f", Some(&source), style);
                    // Two spans of at most a width each, with two widths of context on either
                    // side, tabs shown as four columns: the window, not the 20,000-character line.
                    let bound = 4 * 2 * 5 * width + 100;
                    assert!(
                        text.lines().all(|line| line.chars().count() <= bound),
                        "{start}..{end} at {width}:\n{text}"
                    );
                    rendered += 1;
                }
            }
        }
        assert!(rendered > 300, "{rendered}");
    }

    #[test]
    fn hostile_spans_never_panic() {
        let texts = [
            "",
            "\n",
            "é",
            "a\r\nb",
            "日本",
            "\u{1b}\t\r",
            "{\"a\":\n\n\n1}",
        ];
        for text in texts {
            let source = SourceFile::new(text.to_owned());
            for start in 0..=text.len() + 2 {
                for end in 0..=text.len() + 2 {
                    let diagnostic = Diagnostic::new(Code::WrongType, "f", "m")
                        .span(start..end)
                        .label(end..start, "l")
                        .label(start..start, "m");
                    let _ = render(&diagnostic, "f", Some(&source), Style::default());
                    let _ = render(
                        &diagnostic,
                        "f",
                        Some(&source),
                        Style {
                            color: true,
                            ..Style::default()
                        },
                    );
                }
            }
        }
    }
}
