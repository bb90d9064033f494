//! Author signatures end to end with the real binary: keys and signatures checked against the
//! real `minisign` tool both ways, every refusal of a key or a signature, `publish --sign` to
//! Debian's `docker-registry` (no referrers API: the tag schema), and a project policy that
//! `install`, `add` and `sync` enforce, leaving the scope untouched on each refusal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::oci_support::{Auth, Registry, require};
use crate::registry::{assert_ok, variant};
use crate::support::Sandbox;
use crate::support::text;

fn minisign() -> PathBuf {
    require("minisign", "minisign")
}

fn refused(output: &Output, what: &str, needle: &str) {
    let stderr = text(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{what}: {}{stderr}",
        text(&output.stdout)
    );
    assert!(
        stderr.contains(needle),
        "{what}: `{needle}` not in {stderr}"
    );
}

/// An unencrypted key pair made by squad: (secret, public, key id).
fn keys(sandbox: &Sandbox, name: &str) -> (PathBuf, PathBuf, String) {
    let secret = sandbox.dir.path().join(format!("{name}.key"));
    let public = sandbox.dir.path().join(format!("{name}.pub"));
    let output = sandbox.run(&[
        "key",
        "generate",
        "--secret-key",
        secret.to_str().unwrap(),
        "--public-key",
        public.to_str().unwrap(),
        "--unencrypted",
        "--format",
        "json",
    ]);
    assert_ok(&output, "key generate");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    (secret, public, json["key_id"].as_str().unwrap().to_owned())
}

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn squad_and_minisign_check_each_others_keys_and_signatures() {
    let minisign = minisign();
    let sandbox = Sandbox::new();
    let dir = sandbox.dir.path().to_path_buf();
    let package = variant(&dir, "minimal", "2026.12.01.1", "");
    let secret = dir.join("acme.key");
    let public = dir.join("acme.pub");
    let generate = |input: &str| {
        sandbox.run_with_input(
            &[
                "key",
                "generate",
                "--secret-key",
                path(&secret),
                "--public-key",
                path(&public),
                "--password-stdin",
            ],
            input,
        )
    };
    assert_ok(&generate("correct horse\n"), "key generate");
    let key_text = std::fs::read_to_string(&secret).unwrap();
    assert!(key_text.starts_with("untrusted comment: minisign encrypted secret key"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&secret).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the secret key is private");
    }
    // Never overwritten; the secret key never printed.
    let again = generate("other\n");
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), key_text);
    let secret_line = key_text.lines().nth(1).unwrap();
    assert!(
        !text(&again.stdout).contains(secret_line) && !text(&again.stderr).contains(secret_line)
    );

    // squad signs; squad and minisign verify.
    let signature = dir.join("review.minisig");
    let sign = |input: &str, key: &Path, out: &Path| {
        sandbox.run_with_input(
            &[
                "sign",
                path(&package),
                "--key",
                path(key),
                "-o",
                path(out),
                "--password-stdin",
            ],
            input,
        )
    };
    refused(
        &sign("wrong\n", &secret, &signature),
        "wrong password",
        "wrong password",
    );
    assert!(!signature.exists(), "a refused signing writes nothing");
    let signed = sign("correct horse\n", &secret, &signature);
    assert_ok(&signed, "sign");
    assert!(
        !text(&signed.stdout).contains(secret_line) && !text(&signed.stderr).contains(secret_line)
    );
    let statement = sandbox.run(&["sign", path(&package), "--statement"]);
    assert_ok(&statement, "--statement");
    let statement_text = text(&statement.stdout);
    let lines: Vec<&str> = statement_text.split_terminator('\n').collect();
    assert_eq!(lines.len(), 4, "{statement_text:?}");
    assert_eq!(lines[0], "opencorvus.squad.signature.v1");
    assert_eq!(lines[1], "example/minimal");
    assert_eq!(lines[2], "2026.12.01.1");
    assert_eq!(lines[3].len(), 64);
    let statement_file = dir.join("statement.txt");
    std::fs::write(&statement_file, &statement_text).unwrap();
    let tool = Command::new(&minisign)
        .args([
            "-V",
            "-p",
            path(&public),
            "-m",
            path(&statement_file),
            "-x",
            path(&signature),
        ])
        .output()
        .unwrap();
    assert!(
        tool.status.success(),
        "minisign -V: {}{}",
        text(&tool.stdout),
        text(&tool.stderr)
    );
    assert!(
        text(&tool.stdout).contains("example/minimal 2026.12.01.1"),
        "the trusted comment names the squad"
    );
    let verify = |target: &Path, signature: &Path, key: &Path| {
        sandbox.run(&[
            "verify",
            path(target),
            "--signature",
            path(signature),
            "--public-key",
            path(key),
        ])
    };
    assert_ok(&verify(&package, &signature, &public), "verify");

    // The archive has the same statement: the signature holds for it too.
    let archive = dir.join("minimal.zip");
    assert_ok(
        &sandbox.run(&["pack", path(&package), "-o", path(&archive)]),
        "pack",
    );
    assert_ok(&verify(&archive, &signature, &public), "verify the archive");

    // minisign signs the statement; squad accepts.
    let tool_secret = dir.join("tool.key");
    let tool_public = dir.join("tool.pub");
    let generated = Command::new(&minisign)
        .args([
            "-G",
            "-W",
            "-p",
            path(&tool_public),
            "-s",
            path(&tool_secret),
        ])
        .output()
        .unwrap();
    assert!(generated.status.success(), "minisign -G");
    let tool_signature = dir.join("tool.minisig");
    let signed = Command::new(&minisign)
        .args([
            "-S",
            "-s",
            path(&tool_secret),
            "-m",
            path(&statement_file),
            "-x",
            path(&tool_signature),
        ])
        .output()
        .unwrap();
    assert!(signed.status.success(), "minisign -S");
    assert_ok(
        &verify(&package, &tool_signature, &tool_public),
        "squad verifies minisign's signature",
    );
    // A minisign-made unencrypted key signs with squad as well.
    let squad_by_tool_key = dir.join("by-tool-key.minisig");
    assert_ok(
        &sign("", &tool_secret, &squad_by_tool_key),
        "sign with a minisign key",
    );
    assert_ok(
        &verify(&package, &squad_by_tool_key, &tool_public),
        "verify it",
    );

    // Refusals: another key, another package digest, truncated or malformed files.
    refused(
        &verify(&package, &tool_signature, &public),
        "another key",
        "was made by key",
    );
    let other = variant(&dir, "minimal", "2026.12.01.1", "changed");
    refused(
        &verify(&other, &signature, &public),
        "another digest",
        "does not verify",
    );
    let newer = variant(&dir, "minimal", "2026.12.02.1", "");
    refused(
        &verify(&newer, &signature, &public),
        "another version",
        "does not verify",
    );
    let signature_text = std::fs::read_to_string(&signature).unwrap();
    let truncated = dir.join("truncated.minisig");
    std::fs::write(&truncated, &signature_text[..signature_text.len() - 30]).unwrap();
    refused(
        &verify(&package, &truncated, &public),
        "truncated signature",
        "not a minisign signature",
    );
    let garbage = dir.join("garbage.minisig");
    std::fs::write(
        &garbage,
        "untrusted comment: x\nnot base64\ntrusted comment: y\nzz\n",
    )
    .unwrap();
    refused(
        &verify(&package, &garbage, &public),
        "malformed signature",
        "not a minisign signature",
    );
    let short_key = dir.join("short.key");
    std::fs::write(&short_key, &key_text[..key_text.len() / 2]).unwrap();
    refused(
        &sign("correct horse\n", &short_key, &dir.join("never.minisig")),
        "truncated secret key",
        "not a minisign secret key",
    );
    assert!(!dir.join("never.minisig").exists());
    let json = sandbox.run(&[
        "verify",
        path(&package),
        "--signature",
        path(&signature),
        "--public-key",
        path(&public),
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["type"], "verify-signature");
    assert_eq!(json["verified"], true);
}

/// A project whose squads.jsonc trusts `key` for `namespace` and requires signatures, written
/// by `squad trust add` over a file with a comment.
fn trusting(sandbox: &Sandbox, key: &Path, namespace: &str) {
    let config = sandbox.project().join(".opencorvus");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("squads.jsonc"),
        "// ours\n{\n  \"squads\": {}\n}\n",
    )
    .unwrap();
    let output = sandbox.run(&[
        "trust",
        "add",
        path(key),
        "--namespace",
        namespace,
        "--require-signatures",
        "--project",
        path(&sandbox.project()),
        "--format",
        "json",
    ]);
    assert_ok(&output, "trust add");
    let text = std::fs::read_to_string(config.join("squads.jsonc")).unwrap();
    assert!(text.starts_with("// ours\n"), "{text}");
    assert!(text.contains("\"require_signatures\": true"), "{text}");
}

/// The sandbox's paths, without the project lock file a refused command may leave (it is
/// bookkeeping, not the scope).
fn scope(sandbox: &Sandbox) -> Vec<String> {
    sandbox
        .snapshot()
        .into_iter()
        .filter(|path| !path.ends_with(".squads-sync.lock"))
        .collect()
}

fn install(sandbox: &Sandbox, reference: &str) -> Output {
    sandbox.run(&[
        "install",
        reference,
        "--scope",
        "project",
        "--project",
        path(&sandbox.project()),
    ])
}

#[test]
fn publish_signed_then_install_add_and_sync_under_a_policy() {
    require("minisign", "minisign");
    let registry = Registry::start(Auth::None);
    let publisher = Sandbox::new();
    let dir = publisher.dir.path().to_path_buf();
    let (secret, public, key_id) = keys(&publisher, "acme");
    let (_, stranger, stranger_id) = keys(&publisher, "stranger");
    let base = registry.oci("squads");
    let signed_package = variant(&dir, "minimal", "2026.12.01.1", "");
    let output = publisher.run(&[
        "publish",
        path(&signed_package),
        &base,
        "--sign",
        path(&secret),
        "--format",
        "json",
    ]);
    assert_ok(&output, "publish --sign");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["signature"]["key_id"], key_id.as_str());
    let subject = json["manifest_digest"].as_str().unwrap().to_owned();
    assert_eq!(
        json["signature"]["referrers_tag"],
        subject.replacen(':', "-", 1),
        "distribution 2.8 has no referrers API: the tag schema"
    );
    // Published again: the signature is there already.
    let again = publisher.run(&[
        "publish",
        path(&signed_package),
        &base,
        "--sign",
        path(&secret),
        "--format",
        "json",
    ]);
    assert_ok(&again, "publish --sign again");
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert!(again["signature"]["manifest_digest"].is_null(), "{again}");
    let unsigned_package = variant(&dir, "minimal", "2026.12.02.1", "");
    assert_ok(
        &publisher.run(&["publish", path(&unsigned_package), &base]),
        "publish unsigned",
    );
    // A signature over another package digest, attached to a published squad.
    let lying_package = variant(&dir, "minimal", "2026.12.03.1", "");
    let published = publisher.run(&["publish", path(&lying_package), &base, "--format", "json"]);
    assert_ok(&published, "publish the third");
    let lying_digest =
        serde_json::from_slice::<serde_json::Value>(&published.stdout).unwrap()["manifest_digest"]
            .as_str()
            .unwrap()
            .to_owned();
    let impostor = variant(&dir, "minimal", "2026.12.03.1", "other bytes");
    let impostor_signature = dir.join("impostor.minisig");
    assert_ok(
        &publisher.run(&[
            "sign",
            path(&impostor),
            "--key",
            path(&secret),
            "-o",
            path(&impostor_signature),
        ]),
        "sign the impostor",
    );
    let client = squad::http::Client::new(squad::http::Transport::default());
    let repository = squad::oci::Reference::parse(&format!("{base}/example/minimal")).unwrap();
    let mut session = squad::oci::Repository::new(
        &client,
        &repository,
        squad::oci::Access::Push,
        squad::oci::Credentials::Configured,
    );
    let manifest = session.manifest(&lying_digest).unwrap().unwrap();
    let subject_descriptor =
        squad::oci::manifest::Descriptor::of(squad::oci::manifest::IMAGE_MANIFEST, &manifest.bytes);
    let signature =
        squad::sign::Signature::parse(&std::fs::read_to_string(&impostor_signature).unwrap())
            .unwrap();
    squad::share::signature::attach(
        &mut session,
        &subject_descriptor,
        &signature,
        "impostor.minisig",
    )
    .unwrap();

    let reference = |version: &str| format!("{base}/example/minimal:{version}");

    // Trusted key, signed squad: installed.
    let consumer = Sandbox::new();
    trusting(&consumer, &public, "example");
    assert_ok(
        &install(&consumer, &reference("2026.12.01.1")),
        "install a signed squad",
    );
    assert!(
        consumer
            .project()
            .join(".opencorvus/expert-squads/example/minimal")
            .is_dir()
    );

    // Every refusal leaves the scope exactly as it was.
    let cases: [(&Sandbox, String, &str); 3] = [
        (&consumer, reference("2026.12.02.1"), "it is not signed"),
        (
            &consumer,
            reference("2026.12.03.1"),
            "not over this squad's statement",
        ),
        (&consumer, reference("2026.12.03.1"), &key_id),
    ];
    for (sandbox, reference, needle) in cases {
        let before = scope(sandbox);
        let installed = std::fs::read_to_string(
            sandbox
                .project()
                .join(".opencorvus/expert-squads/example/minimal/expert-squad.jsonc"),
        )
        .unwrap();
        refused(&install(sandbox, &reference), &reference, needle);
        assert_eq!(scope(sandbox), before, "{reference}: the scope changed");
        assert_eq!(
            std::fs::read_to_string(
                sandbox
                    .project()
                    .join(".opencorvus/expert-squads/example/minimal/expert-squad.jsonc")
            )
            .unwrap(),
            installed
        );
    }
    // A key not trusted for the namespace: refused, naming the key found and the one expected.
    let untrusting = Sandbox::new();
    trusting(&untrusting, &stranger, "example");
    let before = scope(&untrusting);
    let output = install(&untrusting, &reference("2026.12.01.1"));
    refused(
        &output,
        "untrusted key",
        &format!("key {key_id}: the key is not trusted for the namespace `example`"),
    );
    assert!(text(&output.stderr).contains(&format!("keys expected: {stranger_id}")));
    assert_eq!(scope(&untrusting), before, "untrusted: the scope changed");

    // add and sync: the same policy; the lock records the key that verified.
    let project =
        Sandbox::new().with_env("SQUAD_CACHE_DIR", Sandbox::new().dir.path().join("cache"));
    trusting(&project, &public, "example");
    let before = scope(&project);
    let added = project.run(&[
        "add",
        &reference("2026.12.02.1"),
        "--project",
        path(&project.project()),
    ]);
    refused(&added, "add unsigned", "it is not signed");
    assert_eq!(scope(&project), before, "a refused add changes nothing");
    assert_ok(
        &project.run(&[
            "add",
            &reference("2026.12.01.1"),
            "--project",
            path(&project.project()),
        ]),
        "add signed",
    );
    let lock: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(project.project().join(".opencorvus/squads.lock")).unwrap(),
    )
    .unwrap();
    assert_eq!(lock["lock_version"], 2);
    assert_eq!(
        lock["squads"]["example/minimal"]["signed_by"],
        key_id.as_str()
    );
    let synced = project.run(&["sync", "--project", path(&project.project())]);
    assert_ok(&synced, "sync, the lock's key still trusted");
    // The declaration moved to the squad whose signature names another digest: sync refuses.
    let jsonc = project.project().join(".opencorvus/squads.jsonc");
    let text_before = std::fs::read_to_string(&jsonc).unwrap();
    std::fs::write(&jsonc, text_before.replace("2026.12.01.1", "2026.12.03.1")).unwrap();
    let before = scope(&project);
    let synced = project.run(&["sync", "--project", path(&project.project())]);
    refused(
        &synced,
        "sync a squad signed over another digest",
        "not over this squad's statement",
    );
    assert_eq!(scope(&project), before, "a refused sync changes nothing");
}

#[test]
fn local_archives_are_checked_against_their_minisig_with_expiry_and_revocation() {
    let sandbox =
        Sandbox::new().with_env("SQUAD_CACHE_DIR", Sandbox::new().dir.path().join("cache"));
    let dir = sandbox.dir.path().to_path_buf();
    let (secret, public, key_id) = keys(&sandbox, "acme");
    let package = variant(&dir, "minimal", "2026.12.01.1", "");
    let vendor = sandbox.project().join("vendor");
    std::fs::create_dir_all(&vendor).unwrap();
    let archive = vendor.join("minimal.zip");
    assert_ok(
        &sandbox.run(&["pack", path(&package), "-o", path(&archive)]),
        "pack",
    );
    let public_key = std::fs::read_to_string(&public)
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .to_owned();
    let write = |policy: &str| {
        let config = sandbox.project().join(".opencorvus");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            config.join("squads.jsonc"),
            format!("{{\n  \"require_signatures\": true,\n  {policy}\n  \"squads\": {{ \"example/minimal\": {{ \"source\": \"vendor/minimal.zip\" }} }}\n}}\n"),
        )
        .unwrap();
    };
    let sync = || sandbox.run(&["sync", "--project", path(&sandbox.project())]);
    let trusted = format!("\"trust\": {{ \"example\": [\"{public_key}\"] }},");
    write(&trusted);
    let before = scope(&sandbox);
    refused(
        &sync(),
        "no .minisig beside the archive",
        "it is not signed",
    );
    assert_eq!(scope(&sandbox), before);
    assert_ok(
        &sandbox.run(&[
            "sign",
            path(&archive),
            "--key",
            path(&secret),
            "-o",
            &format!("{}.minisig", path(&archive)),
        ]),
        "sign the archive",
    );
    let cases = [
        (
            format!("{trusted}\n  \"revoked\": [\"{key_id}\"],"),
            "revoked",
            None,
        ),
        (
            format!(
                "\"trust\": {{ \"example\": [{{ \"key\": \"{public_key}\", \"expires\": \"2026-01-31\" }}] }},"
            ),
            "expired: trusted until 2026-01-31",
            Some("2026-02-01"),
        ),
        (
            format!("\"trust\": {{ \"other\": [\"{public_key}\"] }},"),
            "not trusted for the namespace `example`",
            None,
        ),
    ];
    for (policy, needle, today) in cases {
        write(&policy);
        let before = scope(&sandbox);
        let mut command = sandbox.command(&["sync", "--project", path(&sandbox.project())]);
        if let Some(today) = today {
            command.env("SQUAD_TODAY", today);
        }
        refused(&command.output().unwrap(), needle, needle);
        assert_eq!(scope(&sandbox), before, "{needle}: changed");
    }
    write(&format!(
        "\"trust\": {{ \"*\": [{{ \"key\": \"{public_key}\", \"expires\": \"2999-12-31\" }}] }},"
    ));
    assert_ok(&sync(), "a trusted, unexpired key");
    let lock = std::fs::read_to_string(sandbox.project().join(".opencorvus/squads.lock")).unwrap();
    assert!(
        lock.contains(&format!("\"signed_by\": \"{key_id}\"")),
        "{lock}"
    );
    // Revoked later (`squad trust revoke`, once; again changes nothing): the lock's key is no
    // longer enough, and the squad is refused.
    let revoke = || {
        sandbox.run(&[
            "trust",
            "revoke",
            &key_id,
            "--project",
            path(&sandbox.project()),
        ])
    };
    let output = revoke();
    assert_ok(&output, "trust revoke");
    assert!(
        text(&output.stderr).contains("Revoked"),
        "{}",
        text(&output.stderr)
    );
    let declared =
        std::fs::read_to_string(sandbox.project().join(".opencorvus/squads.jsonc")).unwrap();
    assert!(
        declared.contains(&format!("\"revoked\": [\"{key_id}\"]")),
        "{declared}"
    );
    assert!(text(&revoke().stderr).contains("Unchanged"));
    refused(&sync(), "revoked after locking", "revoked");
    // A malformed key in the policy is a diagnostic at its line.
    write("\"trust\": { \"example\": [\"RWQnot-a-key\"] },");
    let output = sync();
    refused(&output, "malformed trusted key", "squads-invalid-trust");
}

#[test]
fn folders_and_https_archives_are_signed_by_a_minisig_beside_them() {
    let sandbox =
        Sandbox::new().with_env("SQUAD_CACHE_DIR", Sandbox::new().dir.path().join("cache"));
    let dir = sandbox.dir.path().to_path_buf();
    let (secret, public, key_id) = keys(&sandbox, "acme");
    trusting(&sandbox, &public, "example");
    let project = sandbox.project();
    let folder = variant(&project.join("vendor"), "minimal", "2026.12.01.1", "");
    let sign = |what: &Path, signature: &Path| {
        assert_ok(
            &sandbox.run(&[
                "sign",
                path(what),
                "--key",
                path(&secret),
                "-o",
                path(signature),
            ]),
            "sign",
        );
    };

    // A folder: refused unsigned, installed once `<folder>.minisig` is beside it (a trailing
    // separator names the same folder).
    let before = scope(&sandbox);
    refused(
        &install(&sandbox, path(&folder)),
        "unsigned folder",
        "it is not signed",
    );
    assert_eq!(scope(&sandbox), before);
    sign(&folder, Path::new(&format!("{}.minisig", path(&folder))));
    assert_ok(
        &install(&sandbox, &format!("{}/", path(&folder))),
        "a signed folder",
    );
    let output = sandbox.run(&["add", path(&folder), "--project", path(&project)]);
    assert_ok(&output, "add a signed folder");
    let lock = std::fs::read_to_string(project.join(".opencorvus/squads.lock")).unwrap();
    assert!(
        lock.contains(&format!("\"signed_by\": \"{key_id}\"")),
        "{lock}"
    );

    // An https:// archive: `<url>.minisig` is fetched beside it.
    let served = dir.join("served");
    std::fs::create_dir_all(&served).unwrap();
    let other = variant(&dir.join("packages"), "minimal", "2026.12.02.1", "");
    let archive = served.join("minimal.zip");
    assert_ok(
        &sandbox.run(&["pack", path(&other), "-o", path(&archive)]),
        "pack",
    );
    let sha256 = squad::digest::Sha256Digest::of_file(&archive)
        .unwrap()
        .hex();
    let server = crate::http_support::StaticServer::start(&served);
    let url = format!("http://127.0.0.1:{}/minimal.zip", server.port);
    assert_ok(
        &sandbox.run(&["remove", "example/minimal", "--project", path(&project)]),
        "remove",
    );
    let add = || {
        sandbox.run(&[
            "add",
            &url,
            "--sha256",
            &sha256,
            "--project",
            path(&project),
        ])
    };
    refused(&add(), "unsigned https archive", "it is not signed");
    sign(&archive, &served.join("minimal.zip.minisig"));
    assert_ok(&add(), "a signed https archive");
    let lock = std::fs::read_to_string(project.join(".opencorvus/squads.lock")).unwrap();
    assert!(lock.contains("2026.12.02.1"), "{lock}");
    assert!(
        lock.contains(&format!("\"signed_by\": \"{key_id}\"")),
        "{lock}"
    );

    // The key no longer trusted (`squad trust remove`): the locked squad is refused.
    let untrust = || {
        sandbox.run(&[
            "trust",
            "remove",
            path(&public),
            "--project",
            path(&project),
        ])
    };
    let output = untrust();
    assert_ok(&output, "trust remove");
    assert!(
        text(&output.stderr).contains("Removed"),
        "{}",
        text(&output.stderr)
    );
    assert!(text(&untrust().stderr).contains("Unchanged"));
    let sync = sandbox.run(&["sync", "--project", path(&project)]);
    refused(&sync, "a key no longer trusted", "not trusted");
}

#[test]
fn a_registry_with_the_referrers_api_indexes_the_signature_itself() {
    let registry = crate::oci_support::memory_registry();
    let sandbox = Sandbox::new();
    let dir = sandbox.dir.path().to_path_buf();
    let (secret, public, key_id) = keys(&sandbox, "acme");
    let package = variant(&dir, "minimal", "2026.12.01.1", "");
    let base = format!("oci://{}/squads", registry.address);
    let output = sandbox.run(&[
        "publish",
        path(&package),
        &base,
        "--sign",
        path(&secret),
        "--format",
        "json",
    ]);
    assert_ok(&output, "publish --sign");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["signature"]["key_id"], key_id.as_str());
    assert!(
        json["signature"]["referrers_tag"].is_null(),
        "the registry indexed the referrer: no tag-schema index {json}"
    );
    let subject = json["manifest_digest"].as_str().unwrap().to_owned();
    let tag_schema = format!("/manifests/{}", subject.replacen(':', "-", 1));
    assert!(
        !registry
            .seen()
            .iter()
            .any(|seen| seen.method == "PUT" && seen.path.ends_with(&tag_schema)),
        "no tag-schema index was pushed"
    );

    // Installed under a policy: the signature is found through the referrers API.
    trusting(&sandbox, &public, "example");
    let reference = format!("{base}/example/minimal:2026.12.01.1");
    assert_ok(&install(&sandbox, &reference), "install a signed squad");
    assert!(
        registry.seen().iter().any(
            |seen| seen.method == "GET" && seen.path.contains(&format!("/referrers/{subject}"))
        ),
        "the referrers API was asked"
    );
    // Another key's policy refuses it, naming the key found, before the archive is downloaded.
    let layer = format!("/blobs/sha256:{}", json["archive_sha256"].as_str().unwrap());
    let downloads = || {
        registry
            .seen()
            .iter()
            .filter(|seen| seen.method == "GET" && seen.path.ends_with(&layer))
            .count()
    };
    let before = downloads();
    assert!(before > 0, "the accepted install downloaded the archive");
    let (_, stranger, _) = keys(&sandbox, "stranger");
    let other = Sandbox::new();
    trusting(&other, &stranger, "example");
    refused(&install(&other, &reference), "a stranger's policy", &key_id);
    assert_eq!(downloads(), before, "a refused squad is not downloaded");
    // Without a policy, an --expect-* flag is judged before the download too.
    let plain = Sandbox::new();
    let output = plain.run(&[
        "install",
        &reference,
        "--scope",
        "project",
        "--project",
        path(&plain.project()),
        "--expect-version",
        "2099.01.01.1",
    ]);
    refused(
        &output,
        "a wrong --expect-version",
        "version mismatch for example/minimal 2026.12.01.1: expected 2099.01.01.1",
    );
    assert_eq!(
        downloads(),
        before,
        "a squad refused by a flag is not downloaded"
    );
}
