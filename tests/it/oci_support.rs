//! Registries for the tests: Debian's `docker-registry` (CNCF distribution 2.8) started on
//! 127.0.0.1 with a free port, a temporary storage directory and a config written here, and a
//! small in-test HTTP server that lies, for what a real registry will not do on demand. Only
//! loopback addresses; every wait is bounded.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A program the tests need; missing, the test fails loudly with what to install.
pub fn require(program: &str, package: &str) -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|path| path.is_file())
    });
    found.unwrap_or_else(|| {
        panic!("`{program}` is not on PATH: install the Debian package `{package}` (.ci/run does)")
    })
}

pub fn free_port(address: &str) -> u16 {
    TcpListener::bind((address, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running `docker-registry`, killed by PID on drop.
pub struct Registry {
    child: Child,
    pub port: u16,
    pub dir: tempfile::TempDir,
}

pub enum Auth<'a> {
    None,
    Htpasswd(&'a str, &'a str),
    /// Bearer tokens from `realm`, signed by the key whose certificate is `bundle`.
    Token {
        realm: &'a str,
        bundle: &'a Path,
    },
}

pub const TOKEN_SERVICE: &str = "squad-test-registry";
pub const TOKEN_ISSUER: &str = "squad-test-issuer";

impl Registry {
    pub fn start(auth: Auth<'_>) -> Registry {
        let program = require("docker-registry", "docker-registry");
        let dir = tempfile::tempdir().unwrap();
        let auth_section = match auth {
            Auth::None => String::new(),
            Auth::Htpasswd(user, password) => {
                let htpasswd = require("htpasswd", "apache2-utils");
                let output = Command::new(htpasswd)
                    .args(["-Bbn", user, password])
                    .output()
                    .unwrap();
                assert!(output.status.success(), "htpasswd failed");
                let file = dir.path().join("htpasswd");
                std::fs::write(&file, &output.stdout).unwrap();
                format!(
                    "auth:\n  htpasswd:\n    realm: squad-test\n    path: {}\n",
                    file.display()
                )
            }
            Auth::Token { realm, bundle } => format!(
                "auth:\n  token:\n    realm: {realm}\n    service: {TOKEN_SERVICE}\n    issuer: {TOKEN_ISSUER}\n    rootcertbundle: {}\n",
                bundle.display()
            ),
        };
        let port = free_port("127.0.0.1");
        let config = dir.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n  secret: squad-tests\n{auth_section}",
                dir.path().join("data").display()
            ),
        )
        .unwrap();
        let log = std::fs::File::create(dir.path().join("registry.log")).unwrap();
        let child = Command::new(&program)
            .arg("serve")
            .arg(&config)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut registry = Registry { child, port, dir };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(status)) = registry.child.try_wait() {
                let log = std::fs::read_to_string(registry.dir.path().join("registry.log"))
                    .unwrap_or_default();
                panic!("docker-registry exited ({status}) on 127.0.0.1:{port}: {log}");
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return registry;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("docker-registry did not listen on 127.0.0.1:{port} within 10 s");
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `oci://127.0.0.1:<port>/<path>`.
    pub fn oci(&self, path: &str) -> String {
        format!("oci://{}/{path}", self.host())
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request as the lying server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// What the lying server does with one request: writes a whole raw response (or stalls).
pub type Handler = dyn Fn(&Seen, &mut TcpStream) + Send + Sync;

/// A small HTTP/1.1 server on a loopback address, one thread per connection, that answers
/// every request through a handler and records what it saw. Stops when dropped (its
/// accept loop is bounded by a flag and a short timeout).
pub struct LyingServer {
    pub address: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LyingServer {
    pub fn start(ip: &str, handler: Arc<Handler>) -> LyingServer {
        let listener = TcpListener::bind((ip, 0)).unwrap();
        listener.set_nonblocking(true).unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (seen_loop, stop_loop) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            while !stop_loop.load(std::sync::atomic::Ordering::Relaxed)
                && started.elapsed() < Duration::from_secs(120)
            {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (handler, seen) = (handler.clone(), seen_loop.clone());
                        std::thread::spawn(move || serve(stream, &*handler, &seen));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        LyingServer {
            address,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for LyingServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(stream: TcpStream, handler: &Handler, seen: &Mutex<Vec<Seen>>) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    // Keep-alive: several requests per connection, each bounded.
    for _ in 0..100 {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, path) = (
            parts.next().unwrap_or("").to_owned(),
            parts.next().unwrap_or("").to_owned(),
        );
        let mut headers = Vec::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.push((name.trim().to_owned(), value.trim().to_owned()));
            }
        }
        let mut request = Seen {
            method,
            path,
            headers,
            body: Vec::new(),
        };
        let length: u64 = request
            .header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let _ = (&mut reader).take(length).read_to_end(&mut request.body);
        seen.lock().unwrap().push(request.clone());
        handler(&request, &mut writer);
        let _ = writer.flush();
    }
}

/// Forwards `seen` to the server on 127.0.0.1:`port` and writes its answer back as is, then
/// closes the connection: a registry and its token endpoint served at one origin, as GHCR
/// serves them, from a `docker-registry` and an in-test token endpoint.
pub fn forward(port: u16, seen: &Seen, stream: &mut TcpStream) {
    let mut upstream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    upstream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut head = format!("{} {} HTTP/1.1\r\n", seen.method, seen.path);
    for (name, value) in &seen.headers {
        if !name.eq_ignore_ascii_case("connection") {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    head.push_str("connection: close\r\n\r\n");
    upstream.write_all(head.as_bytes()).unwrap();
    upstream.write_all(&seen.body).unwrap();
    let mut answer = Vec::new();
    let _ = upstream.read_to_end(&mut answer);
    let _ = stream.write_all(&answer);
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Writes a complete response.
pub fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, String)], body: &[u8]) {
    let mut text = format!("HTTP/1.1 {status}\r\ncontent-length: {}\r\n", body.len());
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    let _ = stream.write_all(text.as_bytes());
    let _ = stream.write_all(body);
}

/// A token endpoint for distribution's `auth: token`: checks Basic credentials (or lets
/// anonymous pulls through), and issues RS256 JWTs signed with `openssl`, carrying the
/// certificate in `x5c` so the registry can check them against its root bundle.
pub struct TokenIssuer {
    pub key: PathBuf,
    pub cert_der: Vec<u8>,
    pub bundle: PathBuf,
    pub dir: tempfile::TempDir,
}

impl TokenIssuer {
    pub fn new() -> TokenIssuer {
        let openssl = require("openssl", "openssl");
        let dir = tempfile::tempdir().unwrap();
        let (key, bundle, der) = (
            dir.path().join("key.pem"),
            dir.path().join("cert.pem"),
            dir.path().join("cert.der"),
        );
        let status = Command::new(&openssl)
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            ])
            .args(["-subj", "/CN=squad-test-issuer", "-keyout"])
            .arg(&key)
            .arg("-out")
            .arg(&bundle)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "openssl req failed");
        let status = Command::new(&openssl)
            .args(["x509", "-outform", "der", "-in"])
            .arg(&bundle)
            .arg("-out")
            .arg(&der)
            .status()
            .unwrap();
        assert!(status.success(), "openssl x509 failed");
        TokenIssuer {
            key,
            cert_der: std::fs::read(&der).unwrap(),
            bundle,
            dir,
        }
    }

    /// A signed token granting `actions` on `repository`.
    pub fn token(&self, subject: &str, repository: Option<&str>, actions: &[&str]) -> String {
        use base64::Engine;
        let url = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let standard = base64::engine::general_purpose::STANDARD;
        let header = serde_json::json!({
            "alg": "RS256", "typ": "JWT", "x5c": [standard.encode(&self.cert_der)]
        });
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let access: Vec<serde_json::Value> = repository
            .map(|name| serde_json::json!({"type": "repository", "name": name, "actions": actions}))
            .into_iter()
            .collect();
        let claims = serde_json::json!({
            "iss": TOKEN_ISSUER, "sub": subject, "aud": TOKEN_SERVICE,
            "exp": now + 600, "nbf": now - 60, "iat": now, "jti": format!("{now}-{subject}"),
            "access": access,
        });
        let signing_input = format!(
            "{}.{}",
            url.encode(header.to_string()),
            url.encode(claims.to_string())
        );
        let input = tempfile::NamedTempFile::new_in(self.dir.path()).unwrap();
        let signed = tempfile::NamedTempFile::new_in(self.dir.path()).unwrap();
        std::fs::write(input.path(), &signing_input).unwrap();
        let output = Command::new("openssl")
            .args(["dgst", "-sha256", "-sign"])
            .arg(&self.key)
            .arg("-out")
            .arg(signed.path())
            .arg(input.path())
            .output()
            .unwrap();
        assert!(output.status.success(), "openssl dgst failed");
        let signature = std::fs::read(signed.path()).unwrap();
        format!("{signing_input}.{}", url.encode(signature))
    }
}

/// What [`memory_registry`] holds.
#[derive(Default)]
struct Stored {
    blobs: std::collections::HashMap<String, Vec<u8>>,
    /// (repository, tag or digest) → (media type, bytes).
    manifests: std::collections::HashMap<(String, String), (String, Vec<u8>)>,
    /// (repository, subject digest) → referrer descriptors.
    referrers: std::collections::HashMap<(String, String), Vec<serde_json::Value>>,
}

/// A registry in memory with the referrers API of distribution spec 1.1, which Debian's
/// docker-registry (2.8) lacks: a manifest with a `subject` is indexed on push (answered with
/// `OCI-Subject`) and listed by `GET /v2/<name>/referrers/<digest>`. Only what squad's client
/// sends is served: monolithic blob uploads, manifests by tag and digest, tag lists.
pub fn memory_registry() -> LyingServer {
    let stored = Arc::new(Mutex::new(Stored::default()));
    LyingServer::start(
        "127.0.0.1",
        Arc::new(move |seen: &Seen, stream: &mut TcpStream| {
            let mut stored = stored.lock().unwrap();
            let (path, query) = seen.path.split_once('?').unwrap_or((&seen.path, ""));
            let not_found = |stream: &mut TcpStream| {
                respond(
                    stream,
                    "404 Not Found",
                    &[],
                    br#"{"errors":[{"code":"NOT_FOUND"}]}"#,
                )
            };
            if path == "/v2/" {
                return respond(stream, "200 OK", &[], b"{}");
            }
            let Some(rest) = path.strip_prefix("/v2/") else {
                return not_found(stream);
            };
            let split = |marker: &str| {
                rest.rfind(marker)
                    .map(|at| (rest[..at].to_owned(), rest[at + marker.len()..].to_owned()))
            };
            let head = |stream: &mut TcpStream, headers: &[(&str, String)], length: usize| {
                let mut text = format!("HTTP/1.1 200 OK\r\ncontent-length: {length}\r\n");
                for (name, value) in headers {
                    text.push_str(&format!("{name}: {value}\r\n"));
                }
                let _ = stream.write_all(format!("{text}\r\n").as_bytes());
            };
            if let Some((name, upload)) = split("/blobs/uploads/") {
                if seen.method == "POST" {
                    let location = format!("/v2/{name}/blobs/uploads/{}", stored.blobs.len() + 1);
                    return respond(stream, "202 Accepted", &[("location", location)], b"");
                }
                let _ = upload;
                let digest = query
                    .split('&')
                    .find_map(|pair| pair.strip_prefix("digest="))
                    .unwrap_or_default()
                    .replace("%3A", ":");
                if squad::oci::manifest::sha256_digest(&seen.body) != digest {
                    return respond(
                        stream,
                        "400 Bad Request",
                        &[],
                        br#"{"errors":[{"code":"DIGEST_INVALID"}]}"#,
                    );
                }
                stored.blobs.insert(digest.clone(), seen.body.clone());
                return respond(
                    stream,
                    "201 Created",
                    &[
                        ("location", format!("/v2/{name}/blobs/{digest}")),
                        ("docker-content-digest", digest),
                    ],
                    b"",
                );
            }
            if let Some((_, digest)) = split("/blobs/") {
                return match stored.blobs.get(&digest) {
                    Some(bytes) if seen.method == "HEAD" => head(stream, &[], bytes.len()),
                    Some(bytes) => respond(stream, "200 OK", &[], bytes),
                    None => not_found(stream),
                };
            }
            if let Some((name, reference)) = split("/manifests/") {
                if seen.method == "PUT" {
                    let media_type = seen.header("content-type").unwrap_or_default().to_owned();
                    let digest = squad::oci::manifest::sha256_digest(&seen.body);
                    let manifest: serde_json::Value =
                        serde_json::from_slice(&seen.body).unwrap_or_default();
                    let mut headers = vec![
                        ("location", format!("/v2/{name}/manifests/{digest}")),
                        ("docker-content-digest", digest.clone()),
                    ];
                    if let Some(subject) = manifest["subject"]["digest"].as_str() {
                        let artifact_type = manifest["artifactType"]
                            .as_str()
                            .or(manifest["config"]["mediaType"].as_str())
                            .unwrap_or_default();
                        let mut descriptor = serde_json::json!({
                            "mediaType": media_type,
                            "digest": digest,
                            "size": seen.body.len(),
                            "artifactType": artifact_type,
                        });
                        if manifest["annotations"].is_object() {
                            descriptor["annotations"] = manifest["annotations"].clone();
                        }
                        stored
                            .referrers
                            .entry((name.clone(), subject.to_owned()))
                            .or_default()
                            .push(descriptor);
                        headers.push(("oci-subject", subject.to_owned()));
                    }
                    for key in [reference, digest] {
                        stored
                            .manifests
                            .insert((name.clone(), key), (media_type.clone(), seen.body.clone()));
                    }
                    return respond(stream, "201 Created", &headers, b"");
                }
                return match stored.manifests.get(&(name, reference)) {
                    Some((media_type, bytes)) => {
                        let headers = [
                            ("content-type", media_type.clone()),
                            (
                                "docker-content-digest",
                                squad::oci::manifest::sha256_digest(bytes),
                            ),
                        ];
                        if seen.method == "HEAD" {
                            head(stream, &headers, bytes.len())
                        } else {
                            respond(stream, "200 OK", &headers, bytes)
                        }
                    }
                    None => not_found(stream),
                };
            }
            if let Some((name, subject)) = split("/referrers/") {
                let wanted = query
                    .split('&')
                    .find_map(|pair| pair.strip_prefix("artifactType="))
                    .map(|value| value.replace("%2F", "/").replace("%2B", "+"));
                let listed: Vec<serde_json::Value> = stored
                    .referrers
                    .get(&(name, subject))
                    .into_iter()
                    .flatten()
                    .filter(|descriptor| {
                        wanted
                            .as_deref()
                            .is_none_or(|wanted| descriptor["artifactType"] == wanted)
                    })
                    .cloned()
                    .collect();
                let index = serde_json::json!({
                    "schemaVersion": 2,
                    "mediaType": "application/vnd.oci.image.index.v1+json",
                    "manifests": listed,
                });
                let mut headers = vec![(
                    "content-type",
                    "application/vnd.oci.image.index.v1+json".to_owned(),
                )];
                if wanted.is_some() {
                    headers.push(("oci-filters-applied", "artifactType".to_owned()));
                }
                return respond(stream, "200 OK", &headers, index.to_string().as_bytes());
            }
            if let Some((name, _)) = split("/tags/list") {
                let mut tags: Vec<&String> = stored
                    .manifests
                    .keys()
                    .filter(|(repository, tag)| *repository == name && !tag.starts_with("sha256:"))
                    .map(|(_, tag)| tag)
                    .collect();
                tags.sort();
                let body = serde_json::json!({ "name": name, "tags": tags });
                return respond(stream, "200 OK", &[], body.to_string().as_bytes());
            }
            not_found(stream)
        }),
    )
}
