//! `docs/diagnostics.md`, generated from the code table so the two cannot drift apart (a test
//! compares them; `SNAPSHOTS=overwrite cargo test` rewrites the file).

use super::Code;

/// The markdown page listing every diagnostic code.
pub fn markdown() -> String {
    let mut page = String::from(
        "# Diagnostic codes\n\n\
         Every problem `squad validate` reports has one of these stable codes. Errors make a\n\
         package invalid (exit status 1); warnings and notes do not. The rules are those of\n\
         `package-format.md` and `seed-formats.md`; [rules.md](rules.md) states each one. Each code\n\
         has example cases under `registry-fixtures/invalid/` named `<code>--<what>`: the change\n\
         that makes the case (`<case>.change`) and its expected output\n\
         (`<case>.diagnostics.json`).\n\n\
         | code | severity | rules | meaning |\n|---|---|---|---|\n",
    );
    for code in Code::ALL {
        page.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            code.as_str(),
            code.severity().as_str(),
            code.rules(),
            code.description()
        ));
    }
    page
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::Code;

    /// docs/rules.md: every rule id a code cites has a row, every row is cited, and each row
    /// lists exactly the codes that cite it.
    #[test]
    fn rules_page_states_every_cited_rule() {
        let page = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md"));
        let mut cited: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for code in Code::ALL {
            for id in code.rule_ids() {
                cited.entry(id).or_default().push(code.as_str());
            }
        }
        let mut rows: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for line in page.lines().filter(|line| line.starts_with("| <a id=")) {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            let id = cells[0]
                .split('`')
                .nth(1)
                .unwrap_or_else(|| panic!("no id in {line}"));
            assert!(
                cells[0].contains(&format!("<a id=\"{}\">", id.to_lowercase())),
                "{id}: the anchor is not its lower-cased id"
            );
            assert!(!cells[1].trim().is_empty(), "{id}: no statement");
            let codes = cells[2]
                .trim()
                .split(", ")
                .map(|c| c.trim_matches('`'))
                .collect();
            assert!(
                rows.insert(id.to_owned(), codes).is_none(),
                "{id}: two rows"
            );
        }
        let cited_ids: BTreeSet<&String> = cited.keys().collect();
        let row_ids: BTreeSet<&String> = rows.keys().collect();
        assert_eq!(
            cited_ids.difference(&row_ids).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "rule ids the code cites without a row in docs/rules.md"
        );
        assert_eq!(
            row_ids.difference(&cited_ids).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "rows of docs/rules.md that no code cites"
        );
        assert_eq!(rows, cited, "the codes of a row in docs/rules.md");
        assert!(rows.len() >= 190, "only {} rules", rows.len());
    }

    #[test]
    fn docs_list_every_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics.md");
        let expected = super::markdown();
        if std::env::var_os("SNAPSHOTS").is_some_and(|value| value == "overwrite") {
            std::fs::write(path, &expected).unwrap();
        }
        let actual = crate::fs::read_to_string(path).unwrap_or_default();
        assert!(
            actual == expected,
            "docs/diagnostics.md is stale: run SNAPSHOTS=overwrite cargo test"
        );
    }
}
