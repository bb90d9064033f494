//! Sharing squads through OCI registries, end to end with the real binary: the happy paths
//! against Debian's `docker-registry` (no auth, htpasswd Basic, and token auth with a test
//! token endpoint), artifacts pushed by `skopeo`, and a lying server for what a real registry
//! will not do.

use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::oci_support::{
    Auth, LyingServer, Registry, Seen, TokenIssuer, forward, require, respond,
};
use crate::support::Sandbox;
use crate::support::{copy_tree, corpus, repo, text};

pub(crate) fn template(name: &str) -> PathBuf {
    repo().join("templates").join(name)
}

/// The last line of stdout: the pinned reference publish prints.
fn pinned(output: &std::process::Output) -> String {
    let stdout = text(&output.stdout);
    stdout.lines().last().unwrap_or_default().trim().to_owned()
}

pub(crate) fn assert_ok(output: &std::process::Output, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{what}: {}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

fn digest_of(sandbox: &Sandbox, package: &Path) -> String {
    let output = sandbox.run(&["digest", package.to_str().unwrap()]);
    assert_ok(&output, "digest");
    text(&output.stdout).trim().to_owned()
}

/// A copy of a template with another version (and optionally changed README bytes).
pub(crate) fn variant(dir: &Path, name: &str, version: &str, readme_extra: &str) -> PathBuf {
    let package = dir.join(format!("{name}-{version}-{}", readme_extra.len()));
    copy_tree(&template(name), &package);
    let manifest = package.join("expert-squad.jsonc");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let (span, _) = squad::version::locate_in_manifest(&text).unwrap();
    std::fs::write(
        &manifest,
        squad::version::splice_version(&text, span, version),
    )
    .unwrap();
    if !readme_extra.is_empty() {
        let readme = package.join("README.md");
        let mut bytes = std::fs::read(&readme).unwrap();
        bytes.extend_from_slice(readme_extra.as_bytes());
        std::fs::write(&readme, bytes).unwrap();
    }
    package
}

fn installed_target(sandbox: &Sandbox, stderr: &str) -> PathBuf {
    let line = stderr
        .lines()
        .find(|line| line.contains(" at "))
        .unwrap_or_else(|| panic!("no target in {stderr}"));
    let _ = sandbox;
    PathBuf::from(line.rsplit(" at ").next().unwrap().trim())
}

#[test]
fn every_template_publishes_and_installs_by_tag_and_by_digest() {
    let registry = Registry::start(Auth::None);
    // Every folder of templates/, as `squad new --template` offers them.
    let mut packages: Vec<PathBuf> = std::fs::read_dir(repo().join("templates"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    packages.sort();
    assert!(packages.len() >= 3, "{packages:?}");
    assert_eq!(
        publish_and_install_each(&registry, &packages),
        packages.len()
    );
}

#[test]
fn twenty_corpus_packages_publish_and_install_by_tag_and_by_digest() {
    let Some(corpus) = corpus() else { return };
    let registry = Registry::start(Auth::None);
    let mut from_corpus: Vec<PathBuf> = std::fs::read_dir(corpus)
        .expect("the corpus is readable")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("expert-squad.jsonc").is_file())
        // Built-in ids are never installed (INS-3).
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            !["base", "advanced", "research-studio", "squad-sdk"].contains(&name.as_ref())
        })
        .collect();
    from_corpus.sort();
    from_corpus.truncate(20);
    assert_eq!(from_corpus.len(), 20, "the corpus has 20 packages");
    assert_eq!(publish_and_install_each(&registry, &from_corpus), 20);
}

/// Publishes each package, installs it by tag and by digest into fresh scopes, verifies both
/// installed copies against the source digest; returns how many packages went through.
fn publish_and_install_each(registry: &Registry, packages: &[PathBuf]) -> usize {
    let mut checked = 0;
    for package in packages {
        let by_tag = Sandbox::new();
        let by_digest = Sandbox::new();
        let source_digest = digest_of(&by_tag, package);
        let output = by_tag.run(&[
            "publish",
            package.to_str().unwrap(),
            &registry.oci("squads"),
        ]);
        assert_ok(&output, &format!("publish {}", package.display()));
        let reference = pinned(&output);
        assert!(reference.contains("@sha256:"), "{reference}");
        let repository = reference.split('@').next().unwrap().to_owned();
        let version = text(&output.stderr)
            .split_whitespace()
            .nth(2)
            .unwrap()
            .to_owned();
        for (sandbox, source) in [
            (&by_tag, format!("{repository}:{version}")),
            (&by_digest, reference.clone()),
        ] {
            let project = sandbox.project();
            let output = sandbox.run(&[
                "install",
                &source,
                "--scope",
                "project",
                "--project",
                project.to_str().unwrap(),
            ]);
            assert_ok(&output, &format!("install {source}"));
            assert_eq!(
                text(&output.stdout).trim(),
                source_digest,
                "installed digest of {source}"
            );
            let target = installed_target(sandbox, &text(&output.stderr));
            // The receipt keeps where the package came from; `list` shows it.
            let output = sandbox.run(&[
                "list",
                "--project",
                project.to_str().unwrap(),
                "--format",
                "json",
            ]);
            assert_ok(&output, "list");
            let listed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
            let origin = &listed["packages"][0]["origin"];
            assert_eq!(origin["reference"], reference.as_str(), "{listed}");
            assert_eq!(
                Some(origin["manifest_digest"].as_str().unwrap()),
                reference.split('@').nth(1),
                "{listed}"
            );
            let output = sandbox.run(&["verify", target.to_str().unwrap()]);
            assert_ok(&output, &format!("verify {}", target.display()));
            assert_eq!(digest_of(sandbox, &target), source_digest);
        }
        checked += 1;
    }
    checked
}

#[test]
fn a_version_is_immutable_dry_run_sends_nothing_and_versions_are_in_release_order() {
    let registry = Registry::start(Auth::None);
    let sandbox = Sandbox::new();
    let base = registry.oci("team/squads");
    let scratch = sandbox.dir.path().join("packages");
    let first = variant(&scratch, "minimal", "2026.12.10.9", "");
    let output = sandbox.run(&["publish", first.to_str().unwrap(), &base]);
    assert_ok(&output, "first publish");
    let reference = pinned(&output);
    assert!(text(&output.stderr).contains("Published"));

    // The same bytes again: unchanged, the same pinned reference, exit 0.
    let output = sandbox.run(&[
        "publish",
        first.to_str().unwrap(),
        &base,
        "--format",
        "json",
    ]);
    assert_ok(&output, "publish again");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["status"], "unchanged");
    assert_eq!(json["reference"], reference.as_str());
    assert_eq!(json["uploaded"], serde_json::json!([]));

    // Other bytes under the same version: refused, naming both digests.
    let changed = variant(&scratch, "minimal", "2026.12.10.9", "\nchanged\n");
    let published_digest = digest_of(&sandbox, &first);
    let local_digest = digest_of(&sandbox, &changed);
    let output = sandbox.run(&["publish", changed.to_str().unwrap(), &base]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&published_digest) && stderr.contains(&local_digest),
        "{stderr}"
    );
    assert!(stderr.contains("squad version bump"), "{stderr}");
    // A dry run asks the registry too: the same refusal, and "unchanged" for the same bytes.
    let output = sandbox.run(&["publish", changed.to_str().unwrap(), &base, "--dry-run"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains(&local_digest));
    let output = sandbox.run(&[
        "publish",
        first.to_str().unwrap(),
        &base,
        "--dry-run",
        "--format",
        "json",
    ]);
    assert_ok(&output, "dry run of a published version");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["status"], "unchanged");
    assert_eq!(json["reference"], reference.as_str());

    // --dry-run shows the artifact and sends nothing.
    let dry = variant(&scratch, "minimal", "2026.12.11.1", "");
    let output = sandbox.run(&["publish", dry.to_str().unwrap(), &base, "--dry-run"]);
    assert_ok(&output, "dry run");
    assert!(text(&output.stderr).contains("nothing was sent"));
    assert!(text(&output.stderr).contains("manifest sha256:"));
    let repository = format!("{base}/example/minimal");
    let output = sandbox.run(&["versions", &repository]);
    assert!(!text(&output.stdout).contains("2026.12.11.1"));

    // Versions in release order; a non-version tag is left out.
    for version in ["2026.12.10.10", "2026.12.09.1", "2026.12.10.100"] {
        let package = variant(&scratch, "minimal", version, "");
        assert_ok(
            &sandbox.run(&["publish", package.to_str().unwrap(), &base]),
            version,
        );
    }
    tag_as_latest(&registry, "team/squads/example/minimal", "2026.12.10.10");
    let output = sandbox.run(&["versions", &repository]);
    assert_ok(&output, "versions");
    let listed: Vec<String> = text(&output.stdout)
        .lines()
        .map(|line| line.split_whitespace().next().unwrap().to_owned())
        .collect();
    assert_eq!(
        listed,
        [
            "2026.12.10.100",
            "2026.12.10.10",
            "2026.12.10.9",
            "2026.12.09.1"
        ]
    );
    let output = sandbox.run(&["versions", &repository, "--format", "json"]);
    assert_ok(&output, "versions json");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let versions = json["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 4);
    assert_eq!(versions[2]["version"], "2026.12.10.9");
    assert_eq!(versions[2]["package_digest"], published_digest.as_str());
    assert_eq!(
        format!(
            "{repository}@{}",
            versions[2]["manifest_digest"].as_str().unwrap()
        ),
        reference
    );

    // Without a tag, install and pull take the newest version.
    let output = sandbox.run(&["pull", &repository, "-o", "newest.zip", "--format", "json"]);
    assert_ok(&output, "pull newest");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["version"], "2026.12.10.100");
    let bytes = std::fs::read(sandbox.dir.path().join("newest.zip")).unwrap();
    assert_eq!(bytes.len() as u64, json["bytes"].as_u64().unwrap());
    // An existing output is kept unless --force.
    let output = sandbox.run(&["pull", &repository, "-o", "newest.zip"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("--force"));
    // An unknown version is "not found" (exit 2) and names the reference.
    let output = sandbox.run(&["pull", &format!("{repository}:2030.01.01.1")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("minimal:2030.01.01.1 was not found"));
}

/// Puts the manifest of `version` under the tag `latest`, as another tool would.
fn tag_as_latest(registry: &Registry, repository: &str, version: &str) {
    let client = squad::http::Client::new(squad::http::Transport::default());
    let reference =
        squad::oci::Reference::parse(&format!("{}:{version}", registry.oci(repository))).unwrap();
    let mut session = squad::oci::Repository::new(
        &client,
        &reference,
        squad::oci::Access::Push,
        squad::oci::Credentials::Configured,
    );
    let manifest = session.manifest(version).unwrap().unwrap();
    session
        .put_manifest(
            "latest",
            &manifest.bytes,
            squad::oci::manifest::IMAGE_MANIFEST,
        )
        .unwrap();
}

fn write_file(path: &Path, contents: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn install_minimal(sandbox: &Sandbox, reference: &str) -> std::process::Output {
    let project = sandbox.project();
    sandbox.run(&[
        "install",
        reference,
        "--scope",
        "project",
        "--project",
        project.to_str().unwrap(),
    ])
}

#[test]
fn basic_auth_login_logout_docker_podman_files_and_credential_helpers() {
    let registry = Registry::start(Auth::Htpasswd("squad", "s3cret-pw"));
    let host = registry.host();
    let base = registry.oci("squads");
    let minimal = template("minimal");
    let minimal = minimal.to_str().unwrap();

    // Anonymous: 401 with the fix, exit 2.
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["publish", minimal, &base]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains(&format!(
            "401 from {host} for squads/example/minimal: run `squad login {host} -u USER --password-stdin`"
        )),
        "{}",
        text(&output.stderr)
    );

    // A wrong password is refused and nothing is stored.
    let output = sandbox.run_with_input(
        &["login", &host, "--username", "squad", "--password-stdin"],
        "wrong\n",
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let config = sandbox.home().join(".docker/config.json");
    assert!(!config.exists());
    // Without --password-stdin: usage error.
    let output = sandbox.run(&["login", &host, "--username", "squad"]);
    assert_eq!(output.status.code(), Some(2));

    let output = sandbox.run_with_input(
        &["login", &host, "--username", "squad", "--password-stdin"],
        "s3cret-pw\n",
    );
    assert_ok(&output, "login");
    assert!(!text(&output.stderr).contains("s3cret-pw"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&config).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    assert!(stored["auths"][&host]["auth"].is_string(), "{stored}");

    let output = sandbox.run(&["publish", minimal, &base]);
    assert_ok(&output, "publish with stored credentials");
    let reference = pinned(&output);
    let output = install_minimal(&sandbox, &reference);
    assert_ok(&output, "install with stored credentials");
    assert!(!text(&output.stderr).contains("s3cret-pw"));

    let output = sandbox.run(&["logout", &host]);
    assert_ok(&output, "logout");
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    assert!(stored["auths"].get(&host).is_none(), "{stored}");
    let output = sandbox.run(&["versions", &format!("{base}/example/minimal")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("run `squad login"));

    // $DOCKER_CONFIG, $REGISTRY_AUTH_FILE (Podman's auth.json) and a `username`/`password` pair.
    let entry =
        serde_json::json!({"auths": {format!("https://{host}"): {"auth": "c3F1YWQ6czNjcmV0LXB3"}}});
    let docker = Sandbox::new();
    write_file(
        &docker.dir.path().join("docker-config/config.json"),
        &entry.to_string(),
    );
    let docker = {
        let path = docker.dir.path().join("docker-config");
        docker.with_env("DOCKER_CONFIG", path)
    };
    assert_ok(&install_minimal(&docker, &reference), "DOCKER_CONFIG");
    let podman = Sandbox::new();
    let auth_file = podman.dir.path().join("containers/auth.json");
    write_file(&auth_file, &entry.to_string());
    let podman = podman.with_env("REGISTRY_AUTH_FILE", &auth_file);
    assert_ok(&install_minimal(&podman, &reference), "REGISTRY_AUTH_FILE");
    let runtime = Sandbox::new();
    write_file(
        &runtime.dir.path().join("run/containers/auth.json"),
        &entry.to_string(),
    );
    let runtime = {
        let path = runtime.dir.path().join("run");
        runtime.with_env("XDG_RUNTIME_DIR", path)
    };
    assert_ok(&install_minimal(&runtime, &reference), "XDG_RUNTIME_DIR");

    // credHelpers: a `docker-credential-<name>` program on PATH answers `get`.
    let helped = Sandbox::new();
    let bin = helped.dir.path().join("bin");
    let log = helped.dir.path().join("helper.log");
    write_helper(&bin, "squadtest", &log);
    write_file(
        &helped.home().join(".docker/config.json"),
        &serde_json::json!({"credHelpers": {&host: "squadtest"}}).to_string(),
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let helped = helped.with_env("PATH", &path);
    assert_ok(&install_minimal(&helped, &reference), "credHelpers");
    assert!(
        std::fs::read_to_string(&log)
            .unwrap()
            .contains(&format!("get {host}"))
    );

    // credsStore: login stores through the helper, not in the file.
    let stored_by_helper = Sandbox::new();
    let bin = stored_by_helper.dir.path().join("bin");
    let log = stored_by_helper.dir.path().join("helper.log");
    write_helper(&bin, "squadtest", &log);
    let config = stored_by_helper.home().join(".docker/config.json");
    write_file(&config, r#"{"credsStore": "squadtest", "other": 1}"#);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let stored_by_helper = stored_by_helper.with_env("PATH", &path);
    let output = stored_by_helper.run_with_input(
        &["login", &host, "-u", "squad", "--password-stdin"],
        "s3cret-pw",
    );
    assert_ok(&output, "login through credsStore");
    assert!(text(&output.stderr).contains("docker-credential-squadtest"));
    let written = std::fs::read_to_string(&config).unwrap();
    assert_eq!(written, r#"{"credsStore": "squadtest", "other": 1}"#);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("store") && logged.contains("\"Username\":\"squad\""),
        "{logged}"
    );
    assert_ok(
        &install_minimal(&stored_by_helper, &reference),
        "credsStore get",
    );
}

/// A fake credential helper: `get` answers squad/s3cret-pw, `store` and `erase` log their
/// input to `log`.
fn write_helper(bin: &Path, name: &str, log: &Path) {
    let script = format!(
        "#!/bin/sh\nread -r input\necho \"$1 $input\" >> '{}'\ncase \"$1\" in\n  get) echo '{{\"ServerURL\":\"x\",\"Username\":\"squad\",\"Secret\":\"s3cret-pw\"}}' ;;\n  *) ;;\nesac\n",
        log.display()
    );
    let program = bin.join(format!("docker-credential-{name}"));
    write_file(&program, &script);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// The registry and its token endpoint share one origin, as GHCR's do: squad sends stored
/// credentials over plain HTTP to the registry's own origin only (hostile.rs has a realm
/// elsewhere). One in-test server answers `/token` and forwards the rest to the registry.
#[test]
fn the_bearer_token_flow_against_a_token_auth_registry() {
    let issuer = Arc::new(TokenIssuer::new());
    let signer = issuer.clone();
    let registry_port = Arc::new(std::sync::OnceLock::<u16>::new());
    let upstream = registry_port.clone();
    let tokens = LyingServer::start(
        "127.0.0.1",
        Arc::new(move |seen: &Seen, stream: &mut TcpStream| {
            if !seen.path.starts_with("/token") {
                return forward(*upstream.get().unwrap(), seen, stream);
            }
            let query = seen.path.split_once('?').map_or("", |(_, q)| q);
            let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
                .into_owned()
                .collect();
            let scope = pairs
                .iter()
                .find(|(key, _)| key == "scope")
                .map(|(_, value)| value.clone());
            let authenticated = seen.header("authorization") == Some("Basic c3F1YWQ6czNjcmV0LXB3"); // squad:s3cret-pw
            if seen.header("authorization").is_some() && !authenticated {
                respond(stream, "401 Unauthorized", &[], b"{}");
                return;
            }
            // Anonymous callers may pull; authenticated ones get what they ask for.
            let (repository, actions): (Option<String>, Vec<&str>) = match &scope {
                Some(scope) => {
                    let mut parts = scope.splitn(3, ':');
                    let (_, name, wanted) = (parts.next(), parts.next(), parts.next());
                    let wanted: Vec<&str> = wanted.unwrap_or("").split(',').collect();
                    let granted = wanted
                        .into_iter()
                        .filter(|action| authenticated || *action == "pull")
                        .collect();
                    (name.map(str::to_owned), granted)
                }
                None => (None, Vec::new()),
            };
            let token = signer.token(
                if authenticated { "squad" } else { "" },
                repository.as_deref(),
                &actions,
            );
            let body = serde_json::json!({"token": token, "expires_in": 600}).to_string();
            respond(
                stream,
                "200 OK",
                &[("content-type", "application/json".to_owned())],
                body.as_bytes(),
            );
        }),
    );
    let realm = format!("http://{}/token", tokens.address);
    let registry = Registry::start(Auth::Token {
        realm: &realm,
        bundle: &issuer.bundle,
    });
    registry_port.set(registry.port).unwrap();
    let host = tokens.address.clone();
    let base = format!("oci://{host}/squads");
    let sandbox = Sandbox::new();
    let minimal = template("minimal");

    // An anonymous token may pull but not push.
    let output = sandbox.run(&["publish", minimal.to_str().unwrap(), &base]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains(&format!("401 from {host} for squads/example/minimal")),
        "{}",
        text(&output.stderr)
    );

    let output = sandbox.run_with_input(
        &["login", &host, "-u", "squad", "--password-stdin"],
        "s3cret-pw\n",
    );
    assert_ok(&output, "login through the token flow");
    let output = sandbox.run(&["publish", minimal.to_str().unwrap(), &base]);
    assert_ok(&output, "publish with a token");
    let reference = pinned(&output);
    let asked: Vec<Seen> = tokens.seen();
    assert!(
        asked.iter().any(|seen| seen
            .path
            .contains("scope=repository%3Asquads%2Fexample%2Fminimal%3Apull%2Cpush")
            && seen.header("authorization").is_some()),
        "{asked:?}"
    );

    // Anonymous pulls work through an anonymous token.
    let anonymous = Sandbox::new();
    assert_ok(&install_minimal(&anonymous, &reference), "anonymous pull");
}

/// An OCI image layout holding a squad artifact without `artifactType` (the pre-1.1 style of
/// `oras push --config …:application/vnd.opencorvus.squad.config.v1+json`), copied into the
/// registry by `skopeo`.
#[test]
fn an_artifact_pushed_by_skopeo_without_artifact_type_installs() {
    let skopeo = require("skopeo", "skopeo");
    let registry = Registry::start(Auth::None);
    let (identity, artifact) = squad::share::prepare(&template("planner-parallel")).unwrap();
    let mut manifest = artifact.manifest.clone();
    manifest.artifact_type = None;
    manifest.annotations = None;
    let manifest_bytes = serde_json::to_vec_pretty(&manifest).unwrap();
    let layout = tempfile::tempdir().unwrap();
    let blobs = layout.path().join("blobs/sha256");
    std::fs::create_dir_all(&blobs).unwrap();
    for bytes in [
        &manifest_bytes,
        &artifact.config_bytes,
        &artifact.archive().to_vec(),
    ] {
        let digest = squad::oci::manifest::sha256_digest(bytes);
        std::fs::write(blobs.join(&digest["sha256:".len()..]), bytes).unwrap();
    }
    let manifest_digest = squad::oci::manifest::sha256_digest(&manifest_bytes);
    std::fs::write(
        layout.path().join("oci-layout"),
        r#"{"imageLayoutVersion":"1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        layout.path().join("index.json"),
        serde_json::json!({"schemaVersion": 2, "manifests": [{
            "mediaType": squad::oci::manifest::IMAGE_MANIFEST,
            "digest": manifest_digest,
            "size": manifest_bytes.len(),
            "annotations": {"org.opencontainers.image.ref.name": identity.version},
        }]})
        .to_string(),
    )
    .unwrap();
    let destination = format!(
        "docker://{}/other/{}/{}:{}",
        registry.host(),
        identity.namespace,
        identity.id,
        identity.version
    );
    let output = std::process::Command::new(skopeo)
        .args(["copy", "--dest-tls-verify=false", "--insecure-policy"])
        .arg(format!(
            "oci:{}:{}",
            layout.path().display(),
            identity.version
        ))
        .arg(&destination)
        .output()
        .unwrap();
    assert!(output.status.success(), "skopeo: {}", text(&output.stderr));
    let sandbox = Sandbox::new();
    let reference = format!(
        "{}:{}",
        registry.oci(&format!("other/{}/{}", identity.namespace, identity.id)),
        identity.version
    );
    let output = install_minimal(&sandbox, &reference);
    assert_ok(&output, "install what skopeo pushed");
    assert_eq!(
        text(&output.stdout).trim(),
        artifact.config.package_digest,
        "the package digest"
    );
}

/// What the lying server does wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lie {
    LayerBytes,
    ContentLengthAboveDescriptor,
    EndlessBody,
    ConfigMediaType,
    ManifestOverLimit,
    ManifestStreamOverLimit,
    ManifestDigestHeader,
    SlowHeaders,
    SlowBody,
    NotASquad,
    ConfigIdentity,
    /// The config is true to the tag, but the archive (whose digest it names) declares
    /// another version: the registry would install a squad under a name it is not.
    ArchiveIdentity,
    /// The manifest served as an index.
    IndexContentType,
    /// Not a lie: a registry or proxy that ignores `Accept` and serves plain JSON.
    GenericContentType,
}

/// A fake registry serving the `minimal` template, lying as told.
fn lying_registry(lie: Option<Lie>) -> (LyingServer, String, squad::share::Artifact) {
    let (_, artifact) = squad::share::prepare(&template("minimal")).unwrap();
    let mut manifest = artifact.manifest.clone();
    let mut config_bytes = artifact.config_bytes.clone();
    let mut archive = artifact.archive().to_vec();
    match lie {
        Some(Lie::ArchiveIdentity) => {
            let scratch = tempfile::tempdir().unwrap();
            let other = variant(scratch.path(), "minimal", "2099.01.01.1", "");
            let (_, served) = squad::share::prepare(&other).unwrap();
            let mut config = artifact.config.clone();
            config.package_digest = served.config.package_digest.clone();
            config.archive_sha256 = served.config.archive_sha256.clone();
            config.archive_bytes = served.config.archive_bytes;
            config_bytes = serde_json::to_vec(&config).unwrap();
            manifest.config =
                squad::oci::manifest::Descriptor::of(&manifest.config.media_type, &config_bytes);
            manifest.layers[0] = served.manifest.layers[0].clone();
            archive = served.archive().to_vec();
        }
        Some(Lie::ConfigMediaType) => {
            manifest.config.media_type = "application/vnd.oci.image.config.v1+json".to_owned();
        }
        Some(Lie::NotASquad) => {
            manifest.artifact_type = Some("application/vnd.example.not-a-squad".to_owned());
        }
        Some(Lie::ConfigIdentity) => {
            let mut config = artifact.config.clone();
            config.id = "someone-else".to_owned();
            config_bytes = serde_json::to_vec(&config).unwrap();
            manifest.config =
                squad::oci::manifest::Descriptor::of(&manifest.config.media_type, &config_bytes);
        }
        _ => {}
    }
    let manifest_bytes = manifest.to_canonical_json();
    let (config_digest, layer_digest) = (
        manifest.config.digest.clone(),
        manifest.layers[0].digest.clone(),
    );
    let server = LyingServer::start(
        "127.0.0.1",
        Arc::new(move |seen: &Seen, stream: &mut TcpStream| {
            let path = seen.path.as_str();
            if path.contains("/manifests/") {
                match lie {
                    Some(Lie::ManifestOverLimit) => {
                        let _ = stream.write_all(
                            b"HTTP/1.1 200 OK\r\ncontent-type: application/vnd.oci.image.manifest.v1+json\r\ncontent-length: 5242880\r\n\r\n",
                        );
                        let _ = stream.write_all(&[b' '; 1024]);
                        return;
                    }
                    Some(Lie::ManifestStreamOverLimit) => {
                        endless(stream, "application/vnd.oci.image.manifest.v1+json");
                        return;
                    }
                    Some(Lie::SlowHeaders) => {
                        std::thread::sleep(std::time::Duration::from_secs(4));
                    }
                    _ => {}
                }
                let announced = match lie {
                    Some(Lie::ManifestDigestHeader) => format!("sha256:{}", "0".repeat(64)),
                    _ => squad::oci::manifest::sha256_digest(&manifest_bytes),
                };
                let content_type = match lie {
                    Some(Lie::IndexContentType) => "application/vnd.oci.image.index.v1+json",
                    Some(Lie::GenericContentType) => "application/json; charset=utf-8",
                    _ => squad::oci::manifest::IMAGE_MANIFEST,
                };
                respond(
                    stream,
                    "200 OK",
                    &[
                        ("content-type", content_type.to_owned()),
                        ("docker-content-digest", announced),
                    ],
                    &manifest_bytes,
                );
            } else if path.ends_with(&config_digest) {
                respond(stream, "200 OK", &[], &config_bytes);
            } else if path.ends_with(&layer_digest) {
                match lie {
                    Some(Lie::LayerBytes) => {
                        let mut bytes = archive.clone();
                        let middle = bytes.len() / 2;
                        bytes[middle] ^= 0xff;
                        respond(stream, "200 OK", &[], &bytes);
                    }
                    Some(Lie::ContentLengthAboveDescriptor) => {
                        let mut bytes = archive.clone();
                        bytes.extend_from_slice(&[0; 100]);
                        respond(stream, "200 OK", &[], &bytes);
                    }
                    Some(Lie::EndlessBody) => endless(stream, "application/octet-stream"),
                    Some(Lie::SlowBody) => {
                        let _ = stream.write_all(
                            format!(
                                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n",
                                archive.len()
                            )
                            .as_bytes(),
                        );
                        let _ = stream.write_all(&archive[..10]);
                        let _ = stream.flush();
                        std::thread::sleep(std::time::Duration::from_secs(4));
                    }
                    _ => respond(stream, "200 OK", &[], &archive),
                }
            } else {
                respond(
                    stream,
                    "404 Not Found",
                    &[],
                    b"{\"errors\":[{\"code\":\"NAME_UNKNOWN\"}]}",
                );
            }
        }),
    );
    let reference = format!(
        "oci://{}/squads/example/minimal:{}",
        server.address, artifact.config.version
    );
    (server, reference, artifact)
}

/// A chunked body that does not end (bounded: stops after 64 MiB or when the client hangs up).
fn endless(stream: &mut TcpStream, content_type: &str) {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\n\r\n"
    );
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    let chunk = vec![b'x'; 64 * 1024];
    for _ in 0..1024 {
        let framed = [
            format!("{:x}\r\n", chunk.len()).into_bytes(),
            chunk.clone(),
            b"\r\n".to_vec(),
        ]
        .concat();
        if stream.write_all(&framed).is_err() {
            return;
        }
    }
}

#[test]
fn a_lying_registry_is_refused_with_a_clear_error_and_the_scope_untouched() {
    let cases = [
        (
            Lie::LayerBytes,
            1,
            "refusing bytes that are not the ones published",
        ),
        (
            Lie::ContentLengthAboveDescriptor,
            1,
            "refused before reading",
        ),
        (Lie::EndlessBody, 1, "was cut off"),
        (
            Lie::ConfigMediaType,
            1,
            "its config has media type `application/vnd.oci.image.config.v1+json`",
        ),
        (
            Lie::ManifestOverLimit,
            1,
            "the server announced 5242880 bytes",
        ),
        (
            Lie::ManifestStreamOverLimit,
            1,
            "the body went past the 4194304 bytes allowed",
        ),
        (Lie::ManifestDigestHeader, 1, "was announced as sha256:0000"),
        (Lie::SlowHeaders, 2, "timed out"),
        (Lie::SlowBody, 2, "timed out"),
        (Lie::NotASquad, 1, "it is not a squad package"),
        (
            Lie::ConfigIdentity,
            1,
            "the repository path does not end with example/someone-else",
        ),
        (
            Lie::IndexContentType,
            1,
            "served a `application/vnd.oci.image.index.v1+json`, not an OCI image manifest",
        ),
        (
            Lie::ArchiveIdentity,
            1,
            "the archive's manifest declares example/minimal 2099.01.01.1, but the config says example/minimal 2026.11.30.1",
        ),
    ];
    let mut checked = 0;
    for (lie, code, message) in cases {
        let (server, reference, _) = lying_registry(Some(lie));
        let sandbox = Sandbox::new()
            .with_env("SQUAD_HTTP_TIMEOUT", "1")
            .with_env("SQUAD_NET_RETRY", "0");
        let before = sandbox.snapshot();
        let output = install_minimal(&sandbox, &reference);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{lie:?}: {stderr}");
        assert!(stderr.contains(message), "{lie:?}: {stderr}");
        assert!(
            stderr.contains(&server.address),
            "{lie:?} names the registry: {stderr}"
        );
        // Only the project registration may appear; no package, staging or download remains.
        let after: Vec<String> = sandbox
            .snapshot()
            .into_iter()
            .filter(|path| {
                !path.contains("/opencorvus/data/") && !path.ends_with("/opencorvus/data")
            })
            .filter(|path| !path.ends_with("/opencorvus/tmp") && !path.ends_with("/.opencorvus"))
            .collect();
        assert_eq!(after, before, "{lie:?} changed the scope");
        // pull refuses the same way and writes no file.
        let output = sandbox.run(&["pull", &reference, "-o", "pulled.zip"]);
        assert_eq!(output.status.code(), Some(code), "pull {lie:?}");
        assert!(!sandbox.dir.path().join("pulled.zip").exists());
        checked += 1;
    }
    assert_eq!(checked, 13);

    // The honest server installs: the harness itself is not what fails. So does one that
    // ignores `Accept` and calls the manifest plain JSON: its body says what it is.
    for honest in [None, Some(Lie::GenericContentType)] {
        let (_server, reference, artifact) = lying_registry(honest);
        let sandbox = Sandbox::new();
        let output = install_minimal(&sandbox, &reference);
        assert_ok(&output, &format!("honest server {honest:?}"));
        assert_eq!(text(&output.stdout).trim(), artifact.config.package_digest);
    }
}

#[test]
fn authorization_stays_with_the_registry_across_a_redirect_and_retries_honour_retry_after() {
    let (_, artifact) = squad::share::prepare(&template("minimal")).unwrap();
    let archive = artifact.archive().to_vec();
    // Object storage on another loopback host: records what arrives.
    let storage_archive = archive.clone();
    let storage = LyingServer::start(
        "127.0.0.2",
        Arc::new(move |_: &Seen, stream: &mut TcpStream| {
            respond(stream, "200 OK", &[], &storage_archive);
        }),
    );
    let storage_url = format!("http://{}/blob?X-Signature=abc", storage.address);
    let manifest_bytes = artifact.manifest_bytes.clone();
    let config_bytes = artifact.config_bytes.clone();
    let (config_digest, layer_digest) = (
        artifact.manifest.config.digest.clone(),
        artifact.layer().digest.clone(),
    );
    let busy = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let registry = LyingServer::start(
        "127.0.0.1",
        Arc::new(move |seen: &Seen, stream: &mut TcpStream| {
            if seen.header("authorization") != Some("Basic c3F1YWQ6czNjcmV0LXB3") {
                respond(
                    stream,
                    "401 Unauthorized",
                    &[("www-authenticate", "Basic realm=\"lies\"".to_owned())],
                    b"",
                );
            } else if seen.path.contains("/manifests/") {
                // Busy twice, then the manifest.
                if busy.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < 2 {
                    respond(
                        stream,
                        "503 Service Unavailable",
                        &[("retry-after", "0".to_owned())],
                        b"",
                    );
                    return;
                }
                respond(
                    stream,
                    "200 OK",
                    &[(
                        "content-type",
                        squad::oci::manifest::IMAGE_MANIFEST.to_owned(),
                    )],
                    &manifest_bytes,
                );
            } else if seen.path.ends_with(&config_digest) {
                respond(stream, "200 OK", &[], &config_bytes);
            } else if seen.path.ends_with(&layer_digest) {
                respond(
                    stream,
                    "307 Temporary Redirect",
                    &[("location", storage_url.clone())],
                    b"",
                );
            } else {
                respond(stream, "404 Not Found", &[], b"");
            }
        }),
    );
    let sandbox = Sandbox::new().with_env("SQUAD_NET_RETRY", "3");
    write_file(
        &sandbox.home().join(".docker/config.json"),
        &serde_json::json!({"auths": {&registry.address: {"auth": "c3F1YWQ6czNjcmV0LXB3"}}})
            .to_string(),
    );
    let reference = format!(
        "oci://{}/squads/example/minimal:{}",
        registry.address, artifact.config.version
    );
    let output = install_minimal(&sandbox, &reference);
    assert_ok(&output, "install through a redirect");
    let at_storage = storage.seen();
    assert_eq!(at_storage.len(), 1, "{at_storage:?}");
    assert_eq!(at_storage[0].method, "GET");
    assert_eq!(at_storage[0].header("authorization"), None);
    let manifests = registry
        .seen()
        .iter()
        .filter(|seen| seen.path.contains("/manifests/"))
        .count();
    assert!(manifests >= 3, "retried after 503: {manifests}");
}

#[test]
fn references_and_transport_rules_are_checked_before_any_request() {
    let sandbox = Sandbox::new();
    for (args, message) in [
        (
            vec![
                "publish",
                "templates/minimal",
                "oci://127.0.0.1:1/squads:1.0",
            ],
            "names a tag or digest",
        ),
        (vec!["versions", "oci://ghcr.io"], "no repository path"),
        (
            vec!["pull", "oci://ghcr.io/Acme/x"],
            "not a valid repository path",
        ),
        (
            vec![
                "install",
                "oci://ghcr.io/a/b@sha256:12",
                "--scope",
                "global",
            ],
            "is not a digest",
        ),
    ] {
        let output = sandbox.run(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            text(&output.stderr).contains(message),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
}
