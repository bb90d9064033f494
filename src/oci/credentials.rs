//! Registry credentials where `docker`, `podman`, `helm` and `oras` keep them: Docker-style
//! `config.json` files (`auths`, `credHelpers`, `credsStore`) and Podman's `auth.json`, with
//! `docker-credential-<name>` helpers. `squad login` writes the same format.
//!
//! The environment first, for CI: `SQUAD_REGISTRY_TOKEN` (with `SQUAD_REGISTRY_USERNAME`) for
//! the one registry `SQUAD_REGISTRY_HOST` names, never for another (a cloned squads.jsonc may
//! name any registry), then `DOCKER_AUTH_CONFIG`, a Docker `config.json` given as a value. Then
//! files, in the order they are read: `$REGISTRY_AUTH_FILE`; `$DOCKER_CONFIG/config.json`
//! (else `~/.docker/config.json`); `$XDG_RUNTIME_DIR/containers/auth.json`;
//! `~/.config/containers/auth.json`. The first with something for the registry wins.
//! `squad login` writes to `$REGISTRY_AUTH_FILE` when set, else to the Docker file. A secret is a
//! [`Secret`], which no message prints.
//!
//! A helper is another program, which may wait on a keychain or a password store: it runs for
//! at most [`HELPER_TIME`] (less when the command's network deadline ends sooner, see
//! [`lookup`]), its output is read within [`HELPER_OUTPUT_BYTES`], and a helper past either
//! bound is stopped. A sync looks credentials up under the project lock, which must always be
//! let go.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;

use crate::http::Secret;

/// A username and password (or token) for one registry.
#[derive(Debug, Clone)]
pub struct Credential {
    pub username: String,
    pub secret: Secret,
    /// Where it came from, for messages: a file or a helper.
    pub source: String,
}

impl Credential {
    /// The `Authorization` value for Basic authentication.
    pub fn basic(&self) -> Secret {
        let pair = format!("{}:{}", self.username, self.secret.expose());
        Secret::new(format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        ))
    }
}

#[derive(Debug)]
pub enum CredentialError {
    /// A config file that exists but cannot be read or parsed.
    File(PathBuf, String),
    /// A helper that failed (not "not found").
    Helper(String, String),
    NoHome,
    /// A credentials variable that cannot be used (the variable's name, and why; never its
    /// value).
    Env(&'static str, String),
}

impl std::fmt::Display for CredentialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CredentialError::File(path, why) => {
                write!(f, "registry credentials file `{}`: {why}", path.display())
            }
            // A helper's words are another program's: shown neutralised.
            CredentialError::Helper(helper, why) => {
                write!(
                    f,
                    "credential helper `{helper}`: {}",
                    crate::text::shown(why)
                )
            }
            CredentialError::Env(variable, why) => write!(f, "{variable}: {why}"),
            CredentialError::NoHome => f.write_str(
                "cannot tell where to keep registry credentials: set HOME, DOCKER_CONFIG or REGISTRY_AUTH_FILE",
            ),
        }
    }
}

impl std::error::Error for CredentialError {}

/// The files read for credentials, in order.
pub fn auth_files() -> Vec<PathBuf> {
    let home = crate::env::path_var("HOME");
    let mut files = Vec::new();
    files.extend(crate::env::path_var("REGISTRY_AUTH_FILE"));
    files.extend(docker_file(home.as_deref()));
    if let Some(runtime) = crate::env::path_var("XDG_RUNTIME_DIR") {
        files.push(runtime.join("containers/auth.json"));
    }
    if let Some(home) = &home {
        files.push(home.join(".config/containers/auth.json"));
    }
    files
}

fn docker_file(home: Option<&Path>) -> Option<PathBuf> {
    crate::env::path_var("DOCKER_CONFIG")
        .map(|directory| directory.join("config.json"))
        .or_else(|| home.map(|home| home.join(".docker/config.json")))
}

/// The file `squad login` writes.
pub fn login_file() -> Result<PathBuf, CredentialError> {
    crate::env::path_var("REGISTRY_AUTH_FILE")
        .or_else(|| docker_file(crate::env::path_var("HOME").as_deref()))
        .ok_or(CredentialError::NoHome)
}

/// The key a config file uses for `registry`, compared without scheme and path
/// (`https://ghcr.io/v1/` and `ghcr.io` are the same).
fn normalize_key(key: &str) -> String {
    let key = key
        .strip_prefix("https://")
        .or_else(|| key.strip_prefix("http://"))
        .unwrap_or(key);
    let host = key.split('/').next().unwrap_or(key).to_ascii_lowercase();
    match host.as_str() {
        "index.docker.io" | "registry-1.docker.io" => "docker.io".to_owned(),
        _ => host,
    }
}

fn read_config(path: &Path) -> Result<Option<serde_json::Value>, CredentialError> {
    let bytes = match crate::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(CredentialError::File(path.to_path_buf(), error.to_string())),
    };
    parse_config(&bytes)
        .map(Some)
        .map_err(|why| CredentialError::File(path.to_path_buf(), why))
}

/// A config file's JSON object (blank: an empty one).
fn parse_config(bytes: &[u8]) -> Result<serde_json::Value, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::json!({}));
    }
    // serde's error names a position, never the text, which may hold secrets.
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|error| format!("not valid JSON ({error})"))?;
    if !value.is_object() {
        return Err("not a JSON object".to_owned());
    }
    Ok(value)
}

/// The credential `SQUAD_REGISTRY_TOKEN` gives `registry`: only the registry
/// `SQUAD_REGISTRY_HOST` names gets it.
fn from_token(registry: &str) -> Result<Option<Credential>, CredentialError> {
    let (host, username, token) = crate::env::registry_token();
    let Some(token) = token else {
        return Ok(None);
    };
    let Some(host) = host else {
        return Err(CredentialError::Env(
            "SQUAD_REGISTRY_TOKEN",
            "it is set without SQUAD_REGISTRY_HOST, the registry it is for; squad sends a token to that registry only".to_owned(),
        ));
    };
    if normalize_key(&host) != normalize_key(registry) {
        return Ok(None);
    }
    Ok(Some(Credential {
        username: username.unwrap_or_else(|| "squad".to_owned()),
        secret: Secret::new(token.trim()),
        source: "SQUAD_REGISTRY_TOKEN".to_owned(),
    }))
}

/// The entry of an object keyed by registry, matched after normalizing keys.
fn entry<'a>(
    object: Option<&'a serde_json::Value>,
    registry: &str,
) -> Option<&'a serde_json::Value> {
    let wanted = normalize_key(registry);
    object?
        .as_object()?
        .iter()
        .find(|(key, _)| normalize_key(key) == wanted)
        .map(|(_, value)| value)
}

/// The credential for `registry` (`host[:port]`), if any file or helper has one. A helper
/// runs for at most `time_left` (what is left of the command's network deadline) or
/// [`HELPER_TIME`], whichever ends first.
pub fn lookup(registry: &str, time_left: Duration) -> Result<Option<Credential>, CredentialError> {
    let limit = time_left.min(HELPER_TIME);
    if let Some(credential) = from_token(registry)? {
        return Ok(Some(credential));
    }
    let given = crate::env::docker_auth_config()
        .map(|text| {
            parse_config(text.as_bytes())
                .map(|config| (PathBuf::from("DOCKER_AUTH_CONFIG"), config))
                .map_err(|why| CredentialError::Env("DOCKER_AUTH_CONFIG", why))
        })
        .transpose()?;
    let files = auth_files()
        .into_iter()
        .map(|path| read_config(&path).map(|config| config.map(|config| (path.clone(), config))));
    for found in given.into_iter().map(|given| Ok(Some(given))).chain(files) {
        let Some((path, config)) = found? else {
            continue;
        };
        if let Some(helper) = entry(config.get("credHelpers"), registry).and_then(|v| v.as_str()) {
            if let Some(credential) = helper_get(helper, registry, limit)? {
                return Ok(Some(credential));
            }
        }
        if let Some(auth) = entry(config.get("auths"), registry) {
            if let Some(credential) = decode_auth(auth, &path)? {
                return Ok(Some(credential));
            }
        }
        if let Some(store) = config.get("credsStore").and_then(|v| v.as_str()) {
            if let Some(credential) = helper_get(store, registry, limit)? {
                return Ok(Some(credential));
            }
        }
    }
    Ok(None)
}

/// An `auths` entry: `auth` (base64 `user:password`), or `username` and `password`.
fn decode_auth(
    entry: &serde_json::Value,
    path: &Path,
) -> Result<Option<Credential>, CredentialError> {
    let source = path.display().to_string();
    if let Some(auth) = entry
        .get("auth")
        .and_then(|v| v.as_str())
        .filter(|a| !a.is_empty())
    {
        let bad = || {
            CredentialError::File(
                path.to_path_buf(),
                "an `auth` value is not base64 of `user:password`".to_owned(),
            )
        };
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(auth.trim())
            .map_err(|_| bad())?;
        let text = String::from_utf8(decoded).map_err(|_| bad())?;
        let (username, password) = text.split_once(':').ok_or_else(bad)?;
        return Ok(Some(Credential {
            username: username.to_owned(),
            secret: Secret::new(password),
            source,
        }));
    }
    if let (Some(username), Some(password)) = (
        entry.get("username").and_then(|v| v.as_str()),
        entry.get("password").and_then(|v| v.as_str()),
    ) {
        return Ok(Some(Credential {
            username: username.to_owned(),
            secret: Secret::new(password),
            source,
        }));
    }
    if entry.get("identitytoken").is_some() {
        return Err(CredentialError::File(
            path.to_path_buf(),
            "the entry holds an OAuth identity token, which squad does not use; run `squad login` with a username and password or token".to_owned(),
        ));
    }
    Ok(None)
}

fn helper_program(helper: &str) -> Result<String, CredentialError> {
    if helper.is_empty()
        || !helper
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        return Err(CredentialError::Helper(
            helper.to_owned(),
            "not a valid helper name".to_owned(),
        ));
    }
    Ok(format!("docker-credential-{helper}"))
}

/// Longest a credential helper may run.
pub const HELPER_TIME: Duration = Duration::from_secs(30);
/// Most bytes read of a helper's stdout, and of its stderr: a credential is a small JSON
/// object.
pub const HELPER_OUTPUT_BYTES: u64 = 64 * 1024;
/// Most bytes of a helper's reason for failing kept for a message.
const HELPER_REASON_BYTES: usize = 300;

/// Runs `docker-credential-<helper> <action>` with `input` on stdin, for at most `limit`;
/// stdout on success, the helper's reason otherwise.
fn run_helper(
    helper: &str,
    action: &str,
    input: &[u8],
    limit: Duration,
) -> Result<Result<Vec<u8>, String>, CredentialError> {
    run_program(&helper_program(helper)?, action, input, limit)
}

/// [`run_helper`] of the program `program`.
fn run_program(
    program: &str,
    action: &str,
    input: &[u8],
    limit: Duration,
) -> Result<Result<Vec<u8>, String>, CredentialError> {
    let failed = |why: String| CredentialError::Helper(program.to_owned(), why);
    if limit.is_zero() {
        return Err(failed(
            "not run: the command's network deadline (SQUAD_NET_DEADLINE) has passed".to_owned(),
        ));
    }
    let started = Instant::now();
    let mut child = Command::new(program)
        .arg(action)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| failed(format!("cannot run it ({error}); is it on PATH?")))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    // Both pipes are read on threads of their own, so a helper that fills one while squad
    // waits on the other, or that never exits, cannot block squad past `limit`.
    let (sender, outputs) = std::sync::mpsc::channel();
    read_bounded(child.stdout.take(), 0, sender.clone());
    read_bounded(child.stderr.take(), 1, sender);
    let mut read: [Option<Vec<u8>>; 2] = [None, None];
    let stop = |child: &mut std::process::Child, why: String| {
        let _ = child.kill();
        let _ = child.wait();
        Err(failed(why))
    };
    let too_long = || {
        format!(
            "did not finish within {} and was stopped",
            shown_seconds(limit)
        )
    };
    let too_much = format!("wrote more than {HELPER_OUTPUT_BYTES} bytes and was stopped");
    let status = loop {
        while let Ok((index, bytes)) = outputs.try_recv() {
            if bytes.len() as u64 > HELPER_OUTPUT_BYTES {
                return stop(&mut child, too_much);
            }
            read[index] = Some(bytes);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= limit => return stop(&mut child, too_long()),
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(error) => return stop(&mut child, error.to_string()),
        }
    };
    // A process the helper started may still hold its pipes open: their end is waited for
    // within the same limit.
    while read.iter().any(Option::is_none) {
        let left = limit.saturating_sub(started.elapsed());
        let Ok((index, bytes)) = outputs.recv_timeout(left) else {
            return Err(failed(too_long()));
        };
        if bytes.len() as u64 > HELPER_OUTPUT_BYTES {
            return Err(failed(too_much));
        }
        read[index] = Some(bytes);
    }
    let [stdout, stderr] = read.map(Option::unwrap_or_default);
    if status.success() {
        Ok(Ok(stdout))
    } else {
        // Helpers print their reason on stdout; it never holds the secret on failure.
        let mut why = String::from_utf8_lossy(&stdout).trim().to_owned();
        if why.is_empty() {
            why = String::from_utf8_lossy(&stderr).trim().to_owned();
        }
        truncate_at_char(&mut why, HELPER_REASON_BYTES);
        Ok(Err(why))
    }
}

/// Reads `pipe` to its end, or to one byte past [`HELPER_OUTPUT_BYTES`], on a thread of its
/// own, and sends what it read, tagged `index`.
fn read_bounded(
    pipe: Option<impl Read + Send + 'static>,
    index: usize,
    sender: std::sync::mpsc::Sender<(usize, Vec<u8>)>,
) {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(pipe) = pipe {
            let _ = pipe.take(HELPER_OUTPUT_BYTES + 1).read_to_end(&mut bytes);
        }
        let _ = sender.send((index, bytes));
    });
}

/// `30 s`; whole seconds rounded up (what is left of a deadline is rarely whole), tenths
/// below one second.
fn shown_seconds(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{:.1} s", duration.as_secs_f64())
    } else {
        format!("{} s", duration.as_secs_f64().ceil())
    }
}

/// Cuts `text` to at most `max` bytes, at a character boundary (`String::truncate` panics
/// inside a character).
fn truncate_at_char(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
}

fn helper_get(
    helper: &str,
    registry: &str,
    limit: Duration,
) -> Result<Option<Credential>, CredentialError> {
    let program = helper_program(helper)?;
    match run_helper(helper, "get", registry.as_bytes(), limit)? {
        Ok(stdout) => {
            let value: serde_json::Value = serde_json::from_slice(&stdout).map_err(|_| {
                CredentialError::Helper(
                    program.clone(),
                    "answered something that is not JSON".to_owned(),
                )
            })?;
            let field = |name: &str| value.get(name).and_then(|v| v.as_str()).map(str::to_owned);
            match (field("Username"), field("Secret")) {
                (Some(username), Some(secret)) if !secret.is_empty() => Ok(Some(Credential {
                    username,
                    secret: Secret::new(secret),
                    source: program,
                })),
                _ => Ok(None),
            }
        }
        Err(why) if why.to_ascii_lowercase().contains("credentials not found") => Ok(None),
        Err(why) => Err(CredentialError::Helper(program, why)),
    }
}

/// Where `squad login` put a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    File(PathBuf),
    Helper(String),
}

impl std::fmt::Display for Stored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stored::File(path) => write!(f, "`{}`", path.display()),
            Stored::Helper(program) => write!(f, "`{program}`"),
        }
    }
}

/// The helper the login file names for `registry`, if any.
fn configured_helper(config: &serde_json::Value, registry: &str) -> Option<String> {
    entry(config.get("credHelpers"), registry)
        .and_then(|v| v.as_str())
        .or_else(|| config.get("credsStore").and_then(|v| v.as_str()))
        .map(str::to_owned)
}

/// Stores a credential for `registry` as `docker login` does: through the helper the login
/// file names, else as `auths.<registry>.auth` in it (mode 0600).
pub fn store(registry: &str, username: &str, secret: &Secret) -> Result<Stored, CredentialError> {
    let path = login_file()?;
    let mut config = read_config(&path)?.unwrap_or_else(|| serde_json::json!({}));
    if let Some(helper) = configured_helper(&config, registry) {
        let input = serde_json::json!({
            "ServerURL": registry,
            "Username": username,
            "Secret": secret.expose(),
        });
        let program = helper_program(&helper)?;
        return match run_helper(&helper, "store", input.to_string().as_bytes(), HELPER_TIME)? {
            Ok(_) => Ok(Stored::Helper(program)),
            Err(why) => Err(CredentialError::Helper(program, why)),
        };
    }
    let pair = format!("{username}:{}", secret.expose());
    let auth = base64::engine::general_purpose::STANDARD.encode(pair);
    let auths = config
        .as_object_mut()
        .expect("read_config returns objects")
        .entry("auths")
        .or_insert_with(|| serde_json::json!({}));
    if !auths.is_object() {
        *auths = serde_json::json!({});
    }
    let auths = auths.as_object_mut().expect("just made an object");
    let wanted = normalize_key(registry);
    auths.retain(|key, _| normalize_key(key) != wanted);
    auths.insert(registry.to_owned(), serde_json::json!({ "auth": auth }));
    write_config(&path, &config)?;
    Ok(Stored::File(path))
}

/// Removes the credential for `registry` from the login file (or its helper). `Ok(None)` when
/// there was nothing to remove.
pub fn erase(registry: &str) -> Result<Option<Stored>, CredentialError> {
    let path = login_file()?;
    let Some(mut config) = read_config(&path)? else {
        return Ok(None);
    };
    let wanted = normalize_key(registry);
    let mut removed = None;
    if let Some(auths) = config.get_mut("auths").and_then(|v| v.as_object_mut()) {
        let before = auths.len();
        auths.retain(|key, _| normalize_key(key) != wanted);
        if auths.len() != before {
            removed = Some(Stored::File(path.clone()));
        }
    }
    if removed.is_some() {
        write_config(&path, &config)?;
    }
    if let Some(helper) = configured_helper(&config, registry) {
        let program = helper_program(&helper)?;
        match run_helper(&helper, "erase", registry.as_bytes(), HELPER_TIME)? {
            Ok(_) => removed = removed.or(Some(Stored::Helper(program))),
            Err(why) if why.to_ascii_lowercase().contains("not found") => {}
            Err(why) => return Err(CredentialError::Helper(program, why)),
        }
    }
    Ok(removed)
}

fn write_config(path: &Path, config: &serde_json::Value) -> Result<(), CredentialError> {
    let failed =
        |error: std::io::Error| CredentialError::File(path.to_path_buf(), error.to_string());
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        crate::fs::create_dir_all(parent).map_err(failed)?;
    }
    let mut text = serde_json::to_vec_pretty(config).unwrap_or_default();
    text.push(b'\n');
    crate::fs::replace_private_file(path, &text).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_with_or_without_scheme_and_path() {
        assert_eq!(normalize_key("https://GHCR.io/v1/"), "ghcr.io");
        assert_eq!(normalize_key("127.0.0.1:5000"), "127.0.0.1:5000");
        assert_eq!(normalize_key("https://index.docker.io/v1/"), "docker.io");
        let auths = serde_json::json!({"https://127.0.0.1:5000/v2/": {"auth": "dTpw"}});
        assert!(entry(Some(&auths), "127.0.0.1:5000").is_some());
        assert!(entry(Some(&auths), "127.0.0.1:5001").is_none());
    }

    #[test]
    fn auth_entries_decode_and_never_print_the_password() {
        let path = Path::new("/c.json");
        let credential = decode_auth(&serde_json::json!({"auth": "dXNlcjpwYTpzcw=="}), path)
            .unwrap()
            .unwrap();
        assert_eq!(credential.username, "user");
        assert_eq!(credential.secret.expose(), "pa:ss");
        assert!(!format!("{credential:?}").contains("pa:ss"));
        assert_eq!(credential.basic().expose(), "Basic dXNlcjpwYTpzcw==");
        assert!(decode_auth(&serde_json::json!({"auth": "%%%"}), path).is_err());
        assert!(decode_auth(&serde_json::json!({}), path).unwrap().is_none());
        assert!(decode_auth(&serde_json::json!({"identitytoken": "t"}), path).is_err());
    }

    #[test]
    fn reasons_are_cut_at_a_character_boundary() {
        // Byte 300 falls inside the third byte of a CJK character: `truncate(300)` panicked.
        let mut why = format!("x{}", "日".repeat(200));
        truncate_at_char(&mut why, HELPER_REASON_BYTES);
        assert_eq!(why.len(), 298);
        assert!(why.ends_with('日'));
        let mut short = "credentials not found".to_owned();
        truncate_at_char(&mut short, HELPER_REASON_BYTES);
        assert_eq!(short, "credentials not found");
    }

    #[cfg(unix)]
    fn helper(dir: &Path, name: &str, script: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let program = dir.join(format!("docker-credential-{name}"));
        std::fs::write(&program, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        program.display().to_string()
    }

    // Helpers are run by absolute path here: tests share one process, whose PATH is not
    // theirs to change.
    #[cfg(unix)]
    #[test]
    fn helpers_are_stopped_at_their_limits() {
        let dir = tempfile::tempdir().unwrap();
        let run = |script: &str, limit: Duration| {
            let program = helper(dir.path(), "t", script);
            let started = Instant::now();
            let result = run_program(&program, "get", b"127.0.0.1:5000", limit);
            (result, started.elapsed())
        };
        let (result, took) = run("exec sleep 5", Duration::from_millis(300));
        let error = result.unwrap_err().to_string();
        assert!(error.contains("did not finish within 0.3 s"), "{error}");
        assert!(took < Duration::from_secs(5), "{took:?}");
        // A child of the helper that keeps the pipes open does not hold squad either.
        let (result, took) = run("sleep 3 &\nexit 0", Duration::from_millis(300));
        assert!(result.is_err());
        assert!(took < Duration::from_secs(5), "{took:?}");
        let (result, took) = run("exec yes", Duration::from_secs(20));
        let error = result.unwrap_err().to_string();
        assert!(error.contains("wrote more than 65536 bytes"), "{error}");
        assert!(took < Duration::from_secs(5), "{took:?}");
        let (result, _) = run(
            "printf 'x%.0s' $(seq 1 400); printf '\\033[2J\\n'; exit 1",
            Duration::from_secs(20),
        );
        let why = result.unwrap().unwrap_err();
        assert_eq!(why.len(), HELPER_REASON_BYTES);
        let (result, _) = run(
            "echo '{\"Username\":\"u\",\"Secret\":\"s\"}'",
            Duration::from_secs(20),
        );
        assert!(result.unwrap().unwrap().starts_with(b"{"));
        let shown = CredentialError::Helper("h".to_owned(), "a\nerror: forged\u{1b}[2J".to_owned());
        assert_eq!(
            shown.to_string(),
            "credential helper `h`: a\\nerror: forged\\u{1b}[2J"
        );
    }

    #[test]
    fn helper_names_cannot_escape_the_prefix() {
        assert!(helper_program("../../bin/sh").is_err());
        assert!(helper_program("").is_err());
        assert_eq!(helper_program("pass").unwrap(), "docker-credential-pass");
    }
}
