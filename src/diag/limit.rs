//! How many diagnostics human output shows. One file can hold thousands of the same mistake (a
//! generated manifest with a misspelt key in every object); showing each one buries the rest and
//! costs minutes of terminal output. Human output therefore shows at most [`PER_CODE`]
//! diagnostics of each code and [`PER_FILE`] in all for each file, then one "… and N more" line
//! for each code it held back. `--verbose` shows every one; the machine formats (JSON, SARIF,
//! GitHub) always list every one.

use std::collections::HashMap;

use super::{Code, Diagnostic, Severity};

/// Diagnostics of one code shown for one file.
pub const PER_CODE: usize = 20;
/// Diagnostics shown for one file.
pub const PER_FILE: usize = 50;

/// Diagnostics of one code and severity held back for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldBack {
    pub code: Code,
    pub severity: Severity,
    pub count: usize,
}

/// Decides, diagnostic by diagnostic, which ones are shown.
#[derive(Debug, Default)]
pub struct Limit {
    unlimited: bool,
    shown_in_file: HashMap<String, usize>,
    shown_of_code: HashMap<(String, Code), usize>,
    /// Held back since the last [`Limit::take_held_back`], in the order first met.
    held_back: Vec<HeldBack>,
}

impl Limit {
    /// A limit that shows every diagnostic when `unlimited`.
    pub fn new(unlimited: bool) -> Limit {
        Limit {
            unlimited,
            ..Limit::default()
        }
    }

    /// Whether to show `diagnostic`; one that is not shown is counted.
    pub fn admit(&mut self, diagnostic: &Diagnostic) -> bool {
        if self.unlimited {
            return true;
        }
        let in_file = self
            .shown_in_file
            .entry(diagnostic.file.clone())
            .or_default();
        let of_code = self
            .shown_of_code
            .entry((diagnostic.file.clone(), diagnostic.code))
            .or_default();
        if *in_file < PER_FILE && *of_code < PER_CODE {
            *in_file += 1;
            *of_code += 1;
            return true;
        }
        let severity = diagnostic.severity();
        match self
            .held_back
            .iter_mut()
            .find(|held| held.code == diagnostic.code && held.severity == severity)
        {
            Some(held) => held.count += 1,
            None => self.held_back.push(HeldBack {
                code: diagnostic.code,
                severity,
                count: 1,
            }),
        }
        false
    }

    /// The diagnostics held back since the last call. Call it whenever the file changes, so that
    /// they are counted by file.
    pub fn take_held_back(&mut self) -> Vec<HeldBack> {
        std::mem::take(&mut self.held_back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_back_past_the_limits_per_code_and_per_file() {
        let mut limit = Limit::new(false);
        let unknown = |file: &str| Diagnostic::new(Code::UnknownField, file, "m");
        let shown = (0..100).filter(|_| limit.admit(&unknown("a"))).count();
        assert_eq!(shown, PER_CODE);
        assert_eq!(
            limit.take_held_back(),
            [HeldBack {
                code: Code::UnknownField,
                severity: Severity::Error,
                count: 100 - PER_CODE
            }]
        );
        // Another file has limits of its own.
        assert!(limit.admit(&unknown("b")));
        // Other codes fill the file up to its limit; past it, every code is held back.
        let codes = [
            Code::WrongType,
            Code::MissingField,
            Code::InvalidId,
            Code::BlankString,
        ];
        let shown = codes
            .iter()
            .flat_map(|code| std::iter::repeat_n(*code, 30))
            .filter(|code| limit.admit(&Diagnostic::new(*code, "a", "m").as_warning()))
            .count();
        assert_eq!(shown, PER_FILE - PER_CODE);
        let held: usize = limit.take_held_back().iter().map(|held| held.count).sum();
        assert_eq!(held, 4 * 30 - (PER_FILE - PER_CODE));
        assert!(limit.take_held_back().is_empty());
    }

    #[test]
    fn unlimited_shows_everything() {
        let mut limit = Limit::new(true);
        let diagnostic = Diagnostic::new(Code::UnknownField, "a", "m");
        assert!((0..1000).all(|_| limit.admit(&diagnostic)));
        assert!(limit.take_held_back().is_empty());
    }
}
