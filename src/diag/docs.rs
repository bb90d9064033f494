//! `docs/diagnostics.md`, generated from the code table so the two cannot drift apart (a test
//! compares them; `SNAPSHOTS=overwrite cargo test` rewrites the file).

use super::Code;

/// The markdown page listing every diagnostic code.
pub fn markdown() -> String {
    let mut page = String::from(
        "# Diagnostic codes\n\n\
         Every problem `squad validate` reports has one of these stable codes. Errors make a\n\
         package invalid (exit status 1); warnings and notes do not. The rule ids refer to\n\
         `package-format.md`. Each code has example packages under `registry-fixtures/invalid/`\n\
         named `<code>--<what>`, with the expected output in `<case>.diagnostics.json`.\n\n\
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
    #[test]
    fn docs_list_every_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics.md");
        let expected = super::markdown();
        if std::env::var_os("SNAPSHOTS").is_some_and(|value| value == "overwrite") {
            std::fs::write(path, &expected).unwrap();
        }
        let actual = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            actual == expected,
            "docs/diagnostics.md is stale: run SNAPSHOTS=overwrite cargo test"
        );
    }
}
