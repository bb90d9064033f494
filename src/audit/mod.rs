//! `squad audit`: what a valid squad's files would make its agents do that a user should see
//! before installing it, as diagnostics with codes of their own (the `AUD` rules of
//! docs/rules.md), from its validation [`Report`] and its [`Capabilities`] alone: nothing is
//! read again, nothing is run.
//!
//! - **Tools** (`tools.rs`): what the code of each package tool reaches through the runtime's
//!   globals and the `node:` modules the policy allows (the network, processes, files, the
//!   environment), code it makes at run time or loads from outside the package, and payloads
//!   it carries as base64 or hex.
//! - **MCP servers** (`mcp.rs`): plain HTTP to another host, and credentials written into the
//!   declaration.
//! - **Prompts** (`prompts.rs`): README, selector, every agent's `system.md`, every skill's text
//!   files and the manifest's own text, read for instructions aimed at the agent rather than
//!   the user (`instructions.rs`, `commands.rs` for command lines) and for text a reader cannot see (`hidden.rs`). What a file
//!   shows as a quotation (a code block, a blockquote marked as an example, quotation marks:
//!   `markdown.rs`) is reported one severity lower than the same words as prose.
//! - **Grants** (`grants.rs`): an agent that no workflow runs, holding tools that run commands,
//!   write files, reach the network or author squads.
//!
//! [`run`] is the judgement, for any caller that has a report and its capabilities (the
//! project policy, an install); [`audit_path`] reads a folder or archive and runs it, for
//! `squad audit`.

mod commands;
mod grants;
mod hidden;
mod instructions;
mod markdown;
mod mcp;
mod phrases;
mod prompts;
mod read;
mod tools;
mod triggers;

pub use read::{AuditError, Audited, audit_path};

use std::ops::Range;

use crate::capability::Capabilities;
use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::package::Report;

/// Every finding of the audit of a valid package, sorted by file, position and code. A report
/// of an invalid package has no capabilities and is not audited: its validation errors say
/// what is wrong.
pub fn run(report: &Report, capabilities: &Capabilities) -> Vec<Diagnostic> {
    let mut findings = Diagnostics::default();
    tools::check(report, capabilities, &mut findings);
    mcp::check(report, &mut findings);
    prompts::check(report, &mut findings);
    grants::check(report, capabilities, &mut findings);
    findings.into_sorted()
}

/// Starts building what the prompt rules search with (one automaton of every trigger word,
/// 0.5 ms) on a thread of its own, for a caller that audits a package once it has read it:
/// the build then overlaps the reading instead of following it. A caller that audits first
/// waits for that build rather than making another.
pub fn prepare() {
    let _ = std::thread::Builder::new()
        .name("audit-prepare".to_owned())
        .spawn(triggers::prepare);
}

/// The severity one step below `severity`: how a quoted finding is reported.
fn lowered(severity: Severity) -> Severity {
    match severity {
        Severity::Error => Severity::Warning,
        Severity::Warning | Severity::Note => Severity::Note,
    }
}

/// A finding at `span` of `file`.
fn finding(code: Code, file: &str, span: Range<usize>, message: String) -> Diagnostic {
    Diagnostic::new(code, file, message).span(span)
}

/// A package's text, shown in a message: white space runs as one space, cut to `max`
/// characters, and anything that could move the cursor or reorder the line escaped.
fn quote(text: &str, max: usize) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::remote(&collapsed, max).replace('`', "'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_one_line_short_and_inert() {
        assert_eq!(quote("a\n  `b`\tc", 80), "a 'b' c");
        assert_eq!(quote("abcdef", 3), "abc…");
        assert_eq!(quote("x\u{202E}y", 80), "x\\u{202e}y");
        assert_eq!(lowered(Severity::Error), Severity::Warning);
        assert_eq!(lowered(Severity::Note), Severity::Note);
    }
}
