//! The explain pages (`docs/explain/<code>.md`), embedded at build time: what `squad explain`
//! prints, and what the language server shows and links for a diagnostic.

include!(concat!(env!("OUT_DIR"), "/explain.rs"));

/// The page of a code, if it has one.
pub fn page(code: &str) -> Option<&'static str> {
    PAGES
        .iter()
        .find(|(name, _)| *name == code)
        .map(|(_, text)| *text)
}

/// The first paragraphs of a code's page, for a hover: what the code means and why the rule
/// exists, without the examples.
pub fn summary(code: &str) -> Option<String> {
    let page = page(code)?;
    let mut summary = String::new();
    let mut section = "";
    for block in page.split("\n\n") {
        let block = block.trim();
        if let Some(heading) = block.strip_prefix("## ") {
            section = heading;
            continue;
        }
        if block.starts_with("# ") || block.starts_with("Rules:") || block.is_empty() {
            continue;
        }
        if section.is_empty() || section == "Why" {
            if !summary.is_empty() {
                summary.push_str("\n\n");
            }
            summary.push_str(block);
        }
    }
    Some(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_the_meaning_and_the_reason() {
        let summary = summary("dangling-ref").unwrap();
        assert!(
            summary.starts_with("A package reference names a resource"),
            "{summary}"
        );
        assert!(summary.contains("nothing to mount"), "{summary}");
        assert!(!summary.contains("```"), "{summary}");
        assert_eq!(super::summary("no-such-code"), None);
    }
}
