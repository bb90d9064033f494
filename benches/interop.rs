#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! Checking documents of the neighbouring formats, against `cat` of the same files in the same
//! run (the machines are shared and noisy, so only ratios are meaningful):
//!
//! 1. `squad lint` of a workspace holding 3,000 documents (plays, Open Floor envelopes,
//!    manifests and dialog events, handoffs), in one process;
//! 2. `squad validate` of one 8 MB Open Floor envelope with 20,000 utterance events.
//!
//! Run with `cargo bench --bench interop`. Each figure is the median of several runs.

#[path = "support.rs"]
#[allow(dead_code)] // neither the registry nor the corpus is needed here
mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use support::median;

const RUNS: usize = 9;

fn time(program: &str, args: &[&str], cwd: &Path) -> Duration {
    median(
        (0..RUNS)
            .map(|_| support::time_quiet(Command::new(program).args(args).current_dir(cwd), 1))
            .collect(),
    )
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn main() {
    let squad = env!("CARGO_BIN_EXE_squad");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("registry-fixtures/interop");
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    let sources = [
        ("openvibe", fixtures.join("play/valid/fan-out.json")),
        ("openvibe", fixtures.join("play/valid/grader-loop.json")),
        (
            "ofp/envelopes",
            fixtures.join(
                "open-floor/docs/conversation-envelope/1.0.0/sample-json/example-utterance.json",
            ),
        ),
        (
            "ofp/manifests",
            fixtures.join(
                "open-floor/docs/assistant-manifest/1.0.0/sample-json/example-manifest1.json",
            ),
        ),
        (
            "ofp/dialog-events",
            fixtures.join("open-floor/docs/dialog-event/1.0.2/sample-json/utterance0.json"),
        ),
        ("aos/handoffs", fixtures.join("handoff/valid/full.json")),
    ];
    let mut files = Vec::new();
    for index in 0..3000 {
        let (folder, source) = &sources[index % sources.len()];
        let target = workspace.join("interop").join(folder);
        std::fs::create_dir_all(&target).unwrap();
        let path = target.join(format!("d{index:05}.json"));
        std::fs::copy(source, &path).unwrap();
        files.push(path.to_string_lossy().into_owned());
    }
    let lint = time(squad, &["lint", workspace.to_str().unwrap()], dir.path());
    let mut cat_args: Vec<&str> = files.iter().map(String::as_str).collect();
    cat_args.sort_unstable();
    let cat = time("cat", &cat_args, dir.path());
    println!(
        "lint, 3,000 documents: squad {}   cat {}   squad/cat {:.2}x",
        ms(lint),
        ms(cat),
        lint.as_secs_f64() / cat.as_secs_f64()
    );

    let event = r#"{"eventType": "utterance", "to": {"speakerUri": "tag:example.com,2025:agent"}, "parameters": {"dialogEvent": {"id": "de-1", "speakerUri": "tag:example.com,2025:user", "span": {"startTime": "2025-06-01T10:00:00Z"}, "features": {"text": {"mimeType": "text/plain", "tokens": [{"value": "Book a table for two at eight, please.", "confidence": 0.93}]}}}}}"#;
    let events = vec![event; 20_000].join(",\n");
    let envelope = format!(
        r#"{{"openFloor": {{"schema": {{"version": "1.0.0"}}, "conversation": {{"id": "c"}}, "sender": {{"speakerUri": "tag:example.com,2025:user"}}, "events": [{events}]}}}}"#
    );
    let big = dir.path().join("big.json");
    std::fs::write(&big, &envelope).unwrap();
    let validate = time(squad, &["validate", big.to_str().unwrap()], dir.path());
    let cat = time("cat", &[big.to_str().unwrap()], dir.path());
    println!(
        "validate, one {:.1} MB envelope of 20,000 utterances: squad {}   cat {}   squad/cat {:.1}x",
        envelope.len() as f64 / 1e6,
        ms(validate),
        ms(cat),
        validate.as_secs_f64() / cat.as_secs_f64()
    );
}
