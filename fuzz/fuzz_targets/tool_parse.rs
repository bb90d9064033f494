//! Parse any text as each language a tool file may be: must never panic, overflow the stack or
//! report a span outside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use squad::package::tool_parse::{Language, parse};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for language in [
        Language::TYPESCRIPT,
        Language::TSX,
        Language::JAVASCRIPT,
        Language::JSX,
    ] {
        let Ok(info) = parse(&text, language) else {
            continue;
        };
        for record in &info.imports {
            assert!(text.get(record.span.clone()).is_some());
        }
        for problem in &info.non_literal {
            assert!(text.get(problem.span.clone()).is_some());
        }
        for error in &info.syntax_errors {
            assert!(error.span.start <= error.span.end && error.span.end <= text.len());
        }
    }
});
