//! Open Floor Protocol (seed-formats §3.6, §3.7) through the real binary: the verdicts the spec
//! records for every vendored sample, the cases that separate the levels, and
//! `squad ofp manifests`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{corpus, fixtures, repo, squad, text};

fn samples() -> PathBuf {
    fixtures().join("interop/open-floor")
}

/// The official samples: (file, kind).
fn docs_samples() -> Vec<(PathBuf, &'static str)> {
    let mut found = Vec::new();
    for (folder, kind) in [
        ("conversation-envelope/1.0.0", "ofp-envelope"),
        ("assistant-manifest/1.0.0", "ofp-manifest"),
        ("dialog-event/1.0.2", "ofp-dialog-event"),
    ] {
        let dir = samples().join("docs").join(folder).join("sample-json");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        files.sort();
        found.extend(files.into_iter().map(|file| (file, kind)));
    }
    found
}

/// What `squad validate --format json` found: (pointer, code, severity, keyword), and the exit
/// code.
struct Verdict {
    status: i32,
    findings: Vec<(String, String, String, Option<String>)>,
}

impl Verdict {
    fn errors(&self) -> Vec<(String, String)> {
        self.of("error")
    }

    fn warnings(&self) -> Vec<(String, String)> {
        self.of("warning")
    }

    fn of(&self, severity: &str) -> Vec<(String, String)> {
        self.findings
            .iter()
            .filter(|finding| finding.2 == severity)
            .map(|finding| (finding.0.clone(), finding.1.clone()))
            .collect()
    }
}

fn validate(file: &Path, extra: &[&str]) -> Verdict {
    let home = tempfile::tempdir().unwrap();
    let file = file.to_str().unwrap();
    let mut args = vec!["validate", "--format", "json"];
    args.extend_from_slice(extra);
    args.push(file);
    let output = squad(&args, &repo(), home.path());
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}", text(&output.stderr)));
    let findings = document["packages"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|diagnostic| {
            (
                diagnostic["pointer"].as_str().unwrap_or("").to_owned(),
                diagnostic["code"].as_str().unwrap().to_owned(),
                diagnostic["severity"].as_str().unwrap().to_owned(),
                diagnostic["keyword"].as_str().map(str::to_owned),
            )
        })
        .collect();
    Verdict {
        status: output.status.code().unwrap(),
        findings,
    }
}

fn pair(pointer: &str, code: &str) -> (String, String) {
    (pointer.to_owned(), code.to_owned())
}

#[test]
fn there_are_15_envelope_1_manifest_and_6_dialog_event_samples() {
    let samples = docs_samples();
    let count = |kind| samples.iter().filter(|(_, k)| *k == kind).count();
    assert_eq!(
        (
            count("ofp-envelope"),
            count("ofp-manifest"),
            count("ofp-dialog-event")
        ),
        (15, 1, 6)
    );
}

#[test]
fn every_docs_sample_passes_the_docs_schema() {
    for (file, kind) in docs_samples() {
        let verdict = validate(
            &file,
            &[
                "--kind",
                kind,
                "--level",
                "schema",
                "--schema-variant",
                "docs",
            ],
        );
        assert_eq!(verdict.status, 0, "{}", file.display());
        assert!(verdict.findings.is_empty(), "{}", file.display());
    }
}

#[test]
fn with_the_js_schema_only_the_publish_manifest_sample_fails_and_at_its_event_type() {
    for (file, kind) in docs_samples() {
        let verdict = validate(&file, &["--kind", kind, "--level", "schema"]);
        if file.ends_with("example-publishManifests.json") {
            assert_eq!(verdict.status, 1);
            assert_eq!(
                verdict.findings,
                [(
                    "/openFloor/events/0/eventType".to_owned(),
                    "invalid-literal".to_owned(),
                    "error".to_owned(),
                    Some("enum".to_owned())
                )]
            );
        } else {
            assert_eq!(verdict.status, 0, "{}", file.display());
            assert!(verdict.findings.is_empty(), "{}", file.display());
        }
    }
}

#[test]
fn every_docs_sample_passes_spec_the_publish_manifest_one_with_the_alias_warning() {
    for variant in ["js", "docs"] {
        for (file, _) in docs_samples() {
            // By sniffing, as a user would run it.
            let verdict = validate(&file, &["--schema-variant", variant]);
            assert_eq!(verdict.status, 0, "{} {variant}", file.display());
            assert!(verdict.errors().is_empty(), "{}", file.display());
            let alias = pair("/openFloor/events/0/eventType", "ofp-publish-alias");
            assert_eq!(
                verdict.warnings().contains(&alias),
                file.ends_with("example-publishManifests.json"),
                "{}",
                file.display()
            );
        }
    }
}

#[test]
fn python_envelopes_fail_schema_and_spec_at_the_user_conversant_and_pass_lenient() {
    let dir = samples().join("openfloor-python");
    let mut envelopes = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let file = entry.unwrap().path();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name.contains("envelope") {
            envelopes += 1;
            for level in ["schema", "spec"] {
                let verdict = validate(&file, &["--level", level]);
                assert_eq!(verdict.status, 1, "{name} {level}");
                let errors = verdict.errors();
                assert!(!errors.is_empty());
                for (pointer, code) in errors {
                    assert_eq!(
                        (pointer.as_str(), code.as_str()),
                        (
                            "/openFloor/conversation/conversants/0/identification",
                            "missing-field"
                        ),
                        "{name} {level}"
                    );
                }
            }
            let lenient = validate(&file, &["--level", "lenient"]);
            assert_eq!(lenient.status, 0, "{name}");
            assert!(lenient.warnings().contains(&pair(
                "/openFloor/conversation/conversants/0/identification",
                "missing-field"
            )));
        } else {
            for level in ["schema", "spec", "lenient"] {
                let verdict = validate(&file, &["--level", level]);
                assert_eq!(verdict.status, 0, "{name} {level}");
                assert!(verdict.findings.is_empty(), "{name} {level}");
            }
        }
    }
    assert_eq!(envelopes, 5);
}

fn envelope(events: Value) -> Value {
    json!({"openFloor": {
        "schema": {"version": "1.0.0"},
        "conversation": {"id": "c1"},
        "sender": {"speakerUri": "tag:a.example,2025:me"},
        "events": events
    }})
}

fn dialog_event(features: Value) -> Value {
    json!({"id": "de1", "speakerUri": "tag:a.example,2025:me",
        "span": {"startTime": "2025-01-01T00:00:00Z"}, "features": features})
}

fn text_feature() -> Value {
    json!({"text": {"mimeType": "text/plain", "tokens": [{"value": "hello"}]}})
}

fn write_case(dir: &Path, name: &str, value: &Value) -> PathBuf {
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path
}

#[test]
fn these_pass_schema_and_fail_spec() {
    let mut conversation_list = envelope(json!([]));
    conversation_list["openFloor"]["conversation"] = json!([]);
    let cases = [
        (
            "dialog-event-42",
            envelope(json!([{"eventType": "utterance", "parameters": {"dialogEvent": 42}}])),
            pair(
                "/openFloor/events/0/parameters/dialogEvent",
                "ofp-utterance-de",
            ),
        ),
        (
            "no-event-type",
            envelope(json!([{"to": {"speakerUri": "tag:b.example,2025:x"}}])),
            pair("/openFloor/events/0", "ofp-eventtype"),
        ),
        (
            "empty-to",
            envelope(json!([{"eventType": "bye", "to": {}}])),
            pair("/openFloor/events/0/to", "ofp-to-empty"),
        ),
        (
            "scope-everything",
            envelope(
                json!([{"eventType": "getManifests", "parameters": {"recommendScope": "everything"}}]),
            ),
            pair("/openFloor/events/0/parameters/recommendScope", "ofp-scope"),
        ),
        (
            "utterance-without-text",
            envelope(
                json!([{"eventType": "utterance", "parameters": {"dialogEvent":
                dialog_event(json!({"audio": {"mimeType": "audio/wav", "tokens": [{"valueUrl": "https://a.example/x.wav"}]}}))}}]),
            ),
            pair(
                "/openFloor/events/0/parameters/dialogEvent/features",
                "ofp-utterance-text",
            ),
        ),
        (
            "conversation-list",
            conversation_list,
            pair("/openFloor/conversation", "ofp-type"),
        ),
        (
            "servicing-junk",
            envelope(
                json!([{"eventType": "publishManifests", "parameters": {"servicingManifests": "junk"}}]),
            ),
            pair(
                "/openFloor/events/0/parameters/servicingManifests",
                "ofp-manifests",
            ),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, value, expected) in cases {
        let file = write_case(dir.path(), name, &value);
        let schema = validate(&file, &["--level", "schema"]);
        assert_eq!(schema.status, 0, "{name} at schema: {:?}", schema.findings);
        for level in ["spec", "lenient"] {
            let verdict = validate(&file, &["--level", level]);
            assert_eq!(verdict.status, 1, "{name} at {level}");
            assert_eq!(
                verdict.errors(),
                std::slice::from_ref(&expected),
                "{name} at {level}"
            );
        }
    }
}

#[test]
fn these_fail_at_every_level() {
    let token =
        |token: Value| dialog_event(json!({"text": {"mimeType": "text/plain", "tokens": [token]}}));
    let mut empty_span = dialog_event(text_feature());
    empty_span["span"] = json!({});
    let cases = [
        (
            "invite-with-parameters",
            envelope(
                json!([{"eventType": "invite", "to": {"serviceUrl": "https://b.example"},
                "parameters": {"x": 1}}]),
            ),
            vec![
                pair("/openFloor/events/0/parameters", "out-of-range"),
                pair("/openFloor/events/0/parameters/x", "unknown-field"),
            ],
        ),
        (
            "empty-span",
            empty_span,
            vec![pair("/span", "schema-violation")],
        ),
        (
            "token-without-value",
            token(json!({"confidence": 0.5})),
            vec![pair("/features/text/tokens/0", "schema-violation")],
        ),
        (
            "null-value",
            token(json!({"value": null})),
            vec![pair("/features/text/tokens/0/value", "wrong-type")],
        ),
        (
            "private-yes",
            envelope(
                json!([{"eventType": "bye", "to": {"speakerUri": "tag:b.example,2025:x", "private": "yes"}}]),
            ),
            vec![pair("/openFloor/events/0/to/private", "wrong-type")],
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, value, expected) in cases {
        let file = write_case(dir.path(), name, &value);
        for level in ["schema", "spec", "lenient"] {
            let verdict = validate(&file, &["--level", level]);
            assert_eq!(verdict.status, 1, "{name} at {level}");
            let mut errors = verdict.errors();
            errors.sort();
            assert_eq!(errors, expected, "{name} at {level}");
        }
    }
}

#[test]
fn schema_findings_name_their_keyword_and_rule_findings_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_case(
        dir.path(),
        "mixed",
        &envelope(json!([{"eventType": "invite", "to": {}, "parameters": {"x": 1}}])),
    );
    let verdict = validate(&file, &[]);
    let keywords: Vec<_> = verdict
        .findings
        .iter()
        .map(|finding| (finding.1.as_str(), finding.3.as_deref()))
        .collect();
    assert!(keywords.contains(&("out-of-range", Some("maxProperties"))));
    assert!(keywords.contains(&("unknown-field", Some("additionalProperties"))));
    assert!(keywords.contains(&("ofp-to-empty", None)));
}

#[test]
fn nested_documents_break_their_schema_as_warnings_of_the_nesting_rule() {
    // The official getManifests2/3 and grantFloor samples carry dialog events without `id`,
    // and publishManifests manifests whose supportedLayers is a list; §3.6 says they pass spec.
    let file =
        samples().join("docs/conversation-envelope/1.0.0/sample-json/example-getManifests2.json");
    let verdict = validate(&file, &[]);
    assert_eq!(verdict.status, 0);
    assert_eq!(
        verdict.warnings(),
        [pair(
            "/openFloor/events/1/parameters/dialogEvent",
            "ofp-utterance-de"
        )]
    );
    let dir = tempfile::tempdir().unwrap();
    let scored = write_case(
        dir.path(),
        "score",
        &envelope(
            json!([{"eventType": "publishManifests", "parameters": {"servicingManifests": [
                {"identification": {"speakerUri": "s", "serviceUrl": "u", "organization": "o",
                    "conversationalName": "n", "synopsis": "y"}, "capabilities": [], "score": 1.5}
            ]}}]),
        ),
    );
    assert_eq!(
        validate(&scored, &[]).errors(),
        [pair(
            "/openFloor/events/0/parameters/servicingManifests/0/score",
            "ofp-manifests"
        )]
    );
}

#[test]
fn manifests_need_speaker_and_synopsis_at_spec_level() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_case(
        dir.path(),
        "manifest",
        &json!({"identification": {"serviceUrl": "u", "organization": "o", "conversationalName": "n"},
            "capabilities": []}),
    );
    assert_eq!(validate(&file, &["--level", "schema"]).status, 0);
    let spec = validate(&file, &[]);
    assert_eq!(spec.status, 1);
    assert_eq!(
        spec.errors(),
        [
            pair("/identification", "ofp-manifest-speaker"),
            pair("/identification", "ofp-manifest-synopsis")
        ]
    );
}

#[test]
fn hostile_documents_get_diagnostics_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let nested_value = format!(
        r#"{{"id": "d", "speakerUri": "s", "span": {{"startTime": "t"}}, "features": {{"text": {{"mimeType": "text/plain", "tokens": [{{"value": {}1{}}}]}}}}}}"#,
        "[".repeat(120),
        "]".repeat(120)
    );
    let many_events = envelope(Value::Array(
        (0..1000)
            .map(|index| json!({"eventType": "bye", "to": {}, "reason": format!("@x{index}")}))
            .collect(),
    ));
    let cases = [
        ("garbage", "\u{0}\u{1}not json at all".to_owned()),
        ("deep", deep),
        ("nested-value", nested_value),
        ("many", serde_json::to_string_pretty(&many_events).unwrap()),
        ("truncated", r#"{"openFloor": {"events": ["#.to_owned()),
    ];
    for (name, content) in cases {
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, content).unwrap();
        for kind in ["ofp-envelope", "ofp-manifest", "ofp-dialog-event"] {
            let home = tempfile::tempdir().unwrap();
            let output = squad(
                &["validate", "--kind", kind, path.to_str().unwrap()],
                dir.path(),
                home.path(),
            );
            let code = output.status.code();
            assert!(
                matches!(code, Some(0 | 1)),
                "{name} as {kind}: {code:?} {}",
                text(&output.stderr)
            );
        }
    }
}

// `squad ofp manifests` (C2).

const SERVICE: &str = "https://agents.example.com/ofp";

fn manifests(package: &Path, extra: &[&str], cwd: &Path) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    let mut args = vec![
        "ofp",
        "manifests",
        package.to_str().unwrap(),
        "--service-url",
        SERVICE,
        "--organization",
        "Example Org",
    ];
    args.extend_from_slice(extra);
    squad(&args, cwd, home.path())
}

fn golden() -> PathBuf {
    samples().join("published/academic-paper-review.envelope.json")
}

#[test]
fn the_corpus_squad_publishes_the_golden_envelope_with_eight_long_synopsis_warnings() {
    let Some(corpus) = corpus() else { return };
    let package = corpus.join("academic-paper-review");
    let output = manifests(&package, &[], &repo());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let expected = std::fs::read_to_string(golden()).unwrap();
    assert_eq!(text(&output.stdout), expected);
    let stderr = text(&output.stderr);
    assert_eq!(
        stderr.matches("warning[ofp-synopsis-long]").count(),
        8,
        "{stderr}"
    );
    let envelope: Value = serde_json::from_str(&expected).unwrap();
    let published = envelope["openFloor"]["events"][0]["parameters"]["servicingManifests"]
        .as_array()
        .unwrap();
    assert_eq!(published.len(), 8);
}

#[test]
fn the_golden_envelope_validates_as_it_is() {
    let verdict = validate(&golden(), &[]);
    assert_eq!(verdict.status, 0);
    assert!(verdict.findings.is_empty(), "{:?}", verdict.findings);
    let schema = validate(&golden(), &["--kind", "ofp-envelope", "--level", "schema"]);
    assert!(schema.findings.is_empty());
}

#[test]
fn bare_manifests_docs_spelling_and_output_files() {
    let package = fixtures().join("valid/release-review");
    let dir = tempfile::tempdir().unwrap();

    let bare = manifests(
        &package,
        &["--bare", "--include-scheduler", "--language", "en"],
        dir.path(),
    );
    assert_eq!(bare.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&bare.stdout).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 4, "three agents and the scheduler");
    assert_eq!(
        list[0]["identification"]["conversationalName"],
        "Release Review"
    );
    for (index, manifest) in list.iter().enumerate() {
        assert_eq!(manifest["capabilities"][0]["languages"], json!(["en"]));
        let file = write_case(dir.path(), &format!("manifest-{index}"), manifest);
        let verdict = validate(&file, &["--kind", "ofp-manifest"]);
        assert_eq!(verdict.status, 0);
        assert!(verdict.findings.is_empty(), "{:?}", verdict.findings);
    }

    let out = dir.path().join("docs.json");
    let docs = manifests(
        &package,
        &[
            "--event-name",
            "publishManifest",
            "-o",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(docs.status.code(), Some(0));
    assert!(docs.stdout.is_empty(), "-o writes nothing to stdout");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let docs_schema = validate(&out, &["--level", "schema", "--schema-variant", "docs"]);
    assert_eq!(docs_schema.status, 0);
    let spec = validate(&out, &[]);
    assert_eq!(spec.status, 0);
    assert_eq!(
        spec.warnings(),
        [pair("/openFloor/events/0/eventType", "ofp-publish-alias")]
    );
}

#[test]
fn an_agent_without_description_is_refused_and_bad_flags_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let missing = manifests(
        &fixtures().join("valid/minimal"),
        &["-o", out.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("error[ofp-manifest-synopsis]"));
    assert!(
        !out.exists(),
        "nothing is written when a manifest cannot be built"
    );

    let package = fixtures().join("valid/release-review");
    for flags in [
        &["--authority", "not an authority"][..],
        &["--language", "e"],
        &["--sender", " "],
    ] {
        let output = manifests(&package, flags, dir.path());
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
    }
    let home = tempfile::tempdir().unwrap();
    let no_url = squad(
        &[
            "ofp",
            "manifests",
            package.to_str().unwrap(),
            "--service-url",
            "nope",
            "--organization",
            "O",
        ],
        dir.path(),
        home.path(),
    );
    assert_eq!(no_url.status.code(), Some(2));
    let absent = manifests(&dir.path().join("no-such-package"), &[], dir.path());
    assert_eq!(absent.status.code(), Some(2));
    let invalid = manifests(
        &fixtures().join("invalid/absolute-import--file-url"),
        &[],
        dir.path(),
    );
    assert_eq!(invalid.status.code(), Some(1));
    assert!(text(&invalid.stderr).contains("error[absolute-import]"));
    assert!(invalid.stdout.is_empty());
}

#[test]
fn explicit_identity_flags_are_used_verbatim() {
    let package = fixtures().join("valid/release-review");
    let output = manifests(
        &package,
        &[
            "--authority",
            "ops@example.org",
            "--conversation-id",
            "conv-1",
            "--sender",
            "tag:example.org,2026:convener",
        ],
        &repo(),
    );
    assert_eq!(output.status.code(), Some(0));
    let envelope: Value = serde_json::from_slice(&output.stdout).unwrap();
    let open_floor = &envelope["openFloor"];
    assert_eq!(open_floor["conversation"]["id"], "conv-1");
    assert_eq!(
        open_floor["sender"]["speakerUri"],
        "tag:example.org,2026:convener"
    );
    let first = &open_floor["events"][0]["parameters"]["servicingManifests"][0]["identification"];
    assert!(
        first["speakerUri"]
            .as_str()
            .unwrap()
            .starts_with("tag:ops@example.org,2026:acme/release-review/")
    );
}

#[test]
fn nested_documents_are_errors_beyond_what_the_official_samples_do() {
    // Only the samples' own deviations (a dialog event without `id`, a manifest without
    // organization or conversationalName, a list as supportedLayers) are warnings.
    let verdict = validate(&samples().join("nested-errors.json"), &[]);
    assert_eq!(verdict.status, 1);
    let errors = verdict.errors();
    for (pointer, code) in [
        (
            "/openFloor/events/0/parameters/dialogEvent/span",
            "ofp-utterance-de",
        ),
        (
            "/openFloor/events/0/parameters/dialogEvent/features/text/tokens/0/value",
            "ofp-utterance-de",
        ),
        (
            "/openFloor/events/1/parameters/dialogHistory/0",
            "ofp-context-de",
        ),
        (
            "/openFloor/events/2/parameters/servicingManifests/0",
            "ofp-manifests",
        ),
    ] {
        assert!(
            errors.contains(&pair(pointer, code)),
            "{pointer} {code}: {errors:?}"
        );
    }
    assert_eq!(
        verdict.warnings(),
        [
            pair(
                "/openFloor/events/0/parameters/dialogEvent",
                "ofp-utterance-de"
            ),
            pair(
                "/openFloor/events/1/parameters/dialogHistory/0",
                "ofp-context-de"
            ),
        ]
    );
}

#[test]
fn ofp_validate_is_validate_for_open_floor_kinds() {
    let home = tempfile::tempdir().unwrap();
    let sample = samples()
        .join("docs/conversation-envelope/1.0.0/sample-json/example-publishManifests.json");
    let run = |args: &[&str]| {
        let mut all = vec!["ofp", "validate"];
        all.extend_from_slice(args);
        all.push(sample.to_str().unwrap());
        squad(&all, home.path(), home.path()).status.code()
    };
    assert_eq!(run(&[]), Some(0));
    assert_eq!(run(&["--level", "schema"]), Some(1));
    assert_eq!(
        run(&["--level", "schema", "--schema-variant", "docs"]),
        Some(0)
    );
    assert_eq!(run(&["--kind", "manifest"]), Some(1));
}
