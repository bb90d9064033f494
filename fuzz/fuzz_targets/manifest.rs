//! Parse + validate any bytes as a manifest: must never panic.
//! Run: `scripts/fuzz 600 manifest` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut diagnostics = squad::diag::Diagnostics::default();
    let _ = squad::manifest::check(&text, &mut diagnostics);
    for diagnostic in diagnostics.into_sorted() {
        let source = squad::source::SourceFile::new(text.to_string());
        let _ = squad::diag::render::render(
            &diagnostic,
            "expert-squad.jsonc",
            Some(&source),
            squad::diag::render::Style::default(),
        );
    }
});
