//! `squad explain CODE`: what a diagnostic means, why the rule exists, and how to fix it.

use super::ExitStatus;
use crate::diag::Code;
use crate::output::Printer;

include!(concat!(env!("OUT_DIR"), "/explain.rs"));

/// Explain a diagnostic code: the rule, why it exists, a failing and a fixed example.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad explain dangling-ref
  squad explain --list")]
pub struct ExplainArgs {
    /// The code, as printed in brackets: error[CODE].
    #[arg(value_name = "CODE", required_unless_present = "list")]
    pub code: Option<String>,

    /// List every code with its one-line meaning.
    #[arg(long, exclusive = true)]
    pub list: bool,
}

/// The page of a code, if it has one.
pub fn page(code: &str) -> Option<&'static str> {
    PAGES
        .iter()
        .find(|(name, _)| *name == code)
        .map(|(_, text)| *text)
}

pub fn run(args: &ExplainArgs, printer: &Printer) -> ExitStatus {
    if args.list {
        let mut text = String::new();
        for code in Code::ALL {
            text.push_str(&format!(
                "{:<34}{:<8} {}\n",
                code.as_str(),
                code.severity().as_str(),
                code.description()
            ));
        }
        printer.data(&text);
        return ExitStatus::Success;
    }
    let code = args.code.as_deref().unwrap_or_default();
    let code = code
        .trim_start_matches("error[")
        .trim_start_matches("warning[")
        .trim_end_matches(']');
    match page(code) {
        Some(text) => {
            printer.data(text);
            ExitStatus::Success
        }
        None => {
            printer.error(
                &format!("there is no diagnostic code `{code}`"),
                Some("`squad explain --list` lists every code"),
            );
            ExitStatus::Error
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_page_and_every_page_a_code() {
        for code in Code::ALL {
            let page =
                page(code.as_str()).unwrap_or_else(|| panic!("no page for `{}`", code.as_str()));
            assert!(
                page.contains(code.rules()),
                "`{}`'s page does not name its rules",
                code.as_str()
            );
            if let Some(first) = code.rule_ids().first() {
                assert!(
                    page.contains(&format!("(../rules.md#{})", first.to_lowercase())),
                    "`{}`'s page does not link its rules to docs/rules.md",
                    code.as_str()
                );
            }
        }
        for (name, _) in PAGES {
            assert!(Code::from_name(name).is_some(), "page `{name}` has no code");
        }
    }
}
