//! `squad explain CODE`: what a diagnostic means, why the rule exists, and how to fix it.

use super::ExitStatus;
use crate::diag::Code;
use crate::diag::explain::page;
use crate::output::Printer;

/// Explain a diagnostic code: the rule, why it exists, a failing and a fixed example.
///
/// Without a code, lists every code with its severity and one-line meaning. A rule id of the
/// package format (`GR-4`, `MAN-8`) opens the page of the code that enforces it, or lists the
/// codes when several do.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad explain                  every code, one per line
  squad explain dangling-ref
  squad explain error[dependency-cycle]
  squad explain GR-4             the code of a rule of the package format")]
pub struct ExplainArgs {
    /// The code, as printed in brackets (error[CODE]), or a rule id such as GR-4.
    #[arg(value_name = "CODE")]
    pub code: Option<String>,

    /// List every code with its one-line meaning (the same as giving no code).
    #[arg(long, conflicts_with = "code")]
    pub list: bool,
}

/// `code` as a list line: name, severity, meaning.
fn list_line(code: Code) -> String {
    format!(
        "{:<34}{:<8} {}\n",
        code.as_str(),
        code.severity().as_str(),
        code.description()
    )
}

pub fn run(args: &ExplainArgs, printer: &Printer) -> ExitStatus {
    let Some(asked) = args.code.as_deref().filter(|_| !args.list) else {
        printer.data(
            &Code::ALL
                .iter()
                .map(|code| list_line(*code))
                .collect::<String>(),
        );
        return ExitStatus::Success;
    };
    let code = asked
        .trim()
        .trim_start_matches("error[")
        .trim_start_matches("warning[")
        .trim_start_matches("note[")
        .trim_end_matches(']');
    if let Some(text) = page(code) {
        printer.data(text);
        return ExitStatus::Success;
    }
    match codes_of_rule(code).as_slice() {
        [] => {}
        [only] => {
            printer.data(page(only.as_str()).unwrap_or_default());
            return ExitStatus::Success;
        }
        several => {
            let mut text = format!(
                "rule {} is checked by {} codes; `squad explain CODE` explains each:\n",
                code.to_ascii_uppercase(),
                several.len()
            );
            text.extend(several.iter().map(|code| list_line(*code)));
            printer.data(&text);
            return ExitStatus::Success;
        }
    }
    let hint = match crate::text::closest(code, Code::ALL.iter().map(|code| code.as_str())) {
        Some(close) => format!("did you mean `{close}`? (`squad explain` lists every code)"),
        None => "`squad explain` lists every code".to_owned(),
    };
    printer.error(
        &format!("there is no diagnostic code or rule `{code}`"),
        Some(&hint),
    );
    ExitStatus::Error
}

/// The codes whose rule list names `rule` (`GR-4`), directly, through a range (`ID-1..4`
/// holds `ID-3`) or as a family (`SEL` holds `SEL-3`). Case does not matter.
pub fn codes_of_rule(rule: &str) -> Vec<Code> {
    let rule = rule.trim().to_ascii_uppercase();
    if !rule.contains('-') || rule.contains(' ') {
        return Vec::new();
    }
    Code::ALL
        .iter()
        .copied()
        .filter(|code| {
            code.rules()
                .split(", ")
                .any(|listed| rule_matches(listed.trim(), &rule))
        })
        .collect()
}

fn rule_matches(listed: &str, rule: &str) -> bool {
    if listed == rule {
        return true;
    }
    // A family: `SEL` holds `SEL-3`, `MAN` holds `MAN-8`.
    if !listed.contains('-') && !listed.contains(' ') {
        return rule
            .strip_prefix(listed)
            .is_some_and(|rest| rest.starts_with('-'));
    }
    // A range: `ID-1..4`, `TOOL-T2..T4`, `MAN-1..13`.
    let Some((first, last)) = listed.split_once("..") else {
        return false;
    };
    let split = |text: &str| {
        let digits = text.len() - text.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, number) = text.split_at(text.len() - digits);
        number
            .parse::<u32>()
            .ok()
            .map(|number| (prefix.to_owned(), number))
    };
    let (Some((prefix, low)), Some((_, high)), Some((rule_prefix, number))) =
        (split(first), split(last), split(rule))
    else {
        return false;
    };
    prefix == rule_prefix && (low..=high).contains(&number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::explain::PAGES;

    #[test]
    fn rule_ids_name_their_codes() {
        assert_eq!(codes_of_rule("GR-4"), [Code::DependencyCycle]);
        assert_eq!(codes_of_rule("gr-4"), [Code::DependencyCycle]);
        assert!(codes_of_rule("ID-3").contains(&Code::InvalidId));
        assert!(codes_of_rule("ID-3").contains(&Code::ReservedId));
        assert!(codes_of_rule("TOOL-T3").contains(&Code::ToolNotSuppliedByRole));
        assert!(codes_of_rule("SEL-3").contains(&Code::MissingField));
        assert!(codes_of_rule("MAN-8").contains(&Code::UnsortedList));
        assert!(codes_of_rule("GR-2").contains(&Code::UnsortedList));
        assert!(codes_of_rule("GR-99").is_empty());
        assert!(codes_of_rule("dangling").is_empty());
    }

    #[test]
    fn pages_show_no_repository_paths_and_fix_what_they_show() {
        for (name, text) in PAGES {
            assert!(
                !text.contains("registry-fixtures"),
                "`{name}`'s page shows a repository path"
            );
            let fixed = text
                .split("## Fixed")
                .nth(1)
                .unwrap_or_else(|| panic!("`{name}`'s page has no Fixed section"));
            assert!(
                !fixed.trim().is_empty(),
                "`{name}`'s Fixed section is empty"
            );
            // A rule of the package itself is fixed by showing the change, before and after.
            let package_rule = text.contains("(package-format.md)") && !name.starts_with("collab-");
            let prose = ["invalid-utf8", "tools-not-compiled"].contains(name);
            if package_rule && !prose {
                assert!(
                    fixed.contains("```"),
                    "`{name}`'s Fixed section shows no change"
                );
            }
            for empty in [
                "remove what was added",
                "in this form: remove, rename or correct it",
            ] {
                assert!(!fixed.contains(empty), "`{name}`: {empty}");
            }
        }
    }

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
