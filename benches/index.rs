#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! Static indexes at scale (times are medians; the machines are shared and noisy):
//!
//! - `squad index build` of 1,000 squads from a folder of archives (every archive read,
//!   validated and summarised), and the rebuild of the same folder (every archive read and
//!   hashed, no entry rebuilt, nothing but the root rewritten);
//! - `squad search` over an index of 10,000 squads served by `python3 -m http.server`, cold
//!   (an empty cache) and warm (the files of the last search cached): goal at most 50 ms, and
//!   no full download of the index for one lookup: the requests the server saw are counted.
//!
//! Run with `cargo bench --bench index`. Needs `python3` on PATH.

#[path = "support.rs"]
#[allow(dead_code)] // the registry and the corpus are not needed here
mod support;

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use squad::index::format::{
    FileMeta, ROOT, ROOT_TYPE, Root, SCHEMA_VERSION, Shard, SquadFile, VersionEntry, shard_path,
    squad_path,
};
use support::{median, ms, squad};

const ARCHIVES: usize = 1_000;
const INDEXED: usize = 10_000;
const BUILD_RUNS: usize = 3;
const SEARCH_RUNS: usize = 21;

/// 1,000 packages made from the `minimal` template, each with its own id, packed.
fn archives(dir: &Path) -> std::path::PathBuf {
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/minimal");
    let tree = dir.join("tree");
    let manifest = std::fs::read_to_string(template.join("expert-squad.jsonc")).unwrap();
    for number in 0..ARCHIVES {
        let package = tree.join(format!("squad-{number:04}"));
        support::copy_tree(&template, &package);
        std::fs::write(
            package.join("expert-squad.jsonc"),
            manifest.replacen(
                "\"id\": \"minimal\"",
                &format!("\"id\": \"squad-{number:04}\""),
                1,
            ),
        )
        .unwrap();
    }
    let out = dir.join("archives");
    let status = Command::new(env!("CARGO_BIN_EXE_squad"))
        .args(["pack", tree.to_str().unwrap(), "-o"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "packing the 1,000 squads failed");
    out
}

/// A synthetic index of `count` squads, as `squad index build` writes one: three words from a
/// small vocabulary per squad (so shards are realistic in size), one version each.
fn synthetic_index(out: &Path, count: usize) {
    const WORDS: [&str; 24] = [
        "review",
        "release",
        "incident",
        "security",
        "finance",
        "audit",
        "clinical",
        "trial",
        "research",
        "legal",
        "contract",
        "supply",
        "chain",
        "energy",
        "grid",
        "climate",
        "customer",
        "support",
        "marketing",
        "brand",
        "data",
        "quality",
        "safety",
        "policy",
    ];
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut shards: BTreeMap<String, Shard> = BTreeMap::new();
    for number in 0..count {
        let (a, b, c) = (
            WORDS[number % 24],
            WORDS[(number / 24) % 24],
            WORDS[(number / 576) % 24],
        );
        let file = SquadFile {
            schema_version: SCHEMA_VERSION,
            namespace: format!("team{}", number % 50),
            id: format!("{a}-{b}-{number}"),
            name: Some(format!("{a} {b} squad {number}")),
            label: None,
            description: Some(format!(
                "A squad for {a}, {b} and {c} work, number {number}."
            )),
            versions: vec![VersionEntry {
                version: "2026.12.01.1".to_owned(),
                package_digest: "0".repeat(64),
                archive_sha256: "1".repeat(64),
                archive_bytes: 19_458,
                location: format!(
                    "oci://registry.example/squads/team{}/{a}-{b}-{number}@sha256:{}",
                    number % 50,
                    "2".repeat(64)
                ),
                signatures: vec!["C0FFEE0123456789".to_owned()],
                published: "2026-12-01T10:00:00Z".to_owned(),
                yanked: false,
                capabilities: squad::capability::Summary::default(),
            }],
        };
        for (word, fields) in file.words() {
            shards
                .entry(shard_path(&word))
                .or_default()
                .words
                .entry(word)
                .or_default()
                .push((file.name(), fields));
        }
        files.insert(squad_path(&file.namespace, &file.id), file.render());
    }
    for (path, mut shard) in shards {
        shard.schema_version = SCHEMA_VERSION;
        files.insert(path, shard.render());
    }
    let mut metas = BTreeMap::new();
    for (path, bytes) in &files {
        let full = out.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, bytes).unwrap();
        metas.insert(
            path.clone(),
            FileMeta {
                sha256: squad::digest::Sha256Digest::of(bytes).hex(),
                bytes: bytes.len() as u64,
            },
        );
    }
    let root = Root {
        schema_version: SCHEMA_VERSION,
        kind: ROOT_TYPE.to_owned(),
        version: 1,
        built: "2026-12-01T10:00:00Z".to_owned(),
        expires: "2099-12-31T00:00:00Z".to_owned(),
        squads: count,
        files: metas,
    };
    std::fs::write(out.join(ROOT), root.render()).unwrap();
}

struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(root: &Path, log: &Path) -> (Server, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("python3")
        .args([
            "-m",
            "http.server",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
        ])
        .arg("--directory")
        .arg(root)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .expect("python3 is on PATH");
    let server = Server(child);
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "http.server did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (server, port)
}

fn main() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");

    // index build of 1,000 squads from a folder of archives.
    let folder = archives(scratch.path());
    let folder_arg = folder.to_str().unwrap().to_owned();
    let mut builds = Vec::new();
    let mut rebuilds = Vec::new();
    for run in 0..BUILD_RUNS {
        let out = scratch.path().join(format!("built-{run}"));
        let out_arg = out.to_str().unwrap().to_owned();
        let (elapsed, output) = squad(
            &[
                "index",
                "build",
                &folder_arg,
                "-o",
                &out_arg,
                "--format",
                "json",
            ],
            &home,
        );
        let built: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(built["squads"], ARCHIVES, "{built}");
        builds.push(elapsed);
        let (elapsed, output) = squad(
            &[
                "index",
                "build",
                &folder_arg,
                "-o",
                &out_arg,
                "--format",
                "json",
            ],
            &home,
        );
        let rebuilt: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            rebuilt["written"],
            serde_json::json!(["index.json"]),
            "{rebuilt}"
        );
        rebuilds.push(elapsed);
    }
    println!(
        "index build of {ARCHIVES} squads from a folder of archives: {} (median of {BUILD_RUNS}); rebuild with nothing changed: {}",
        ms(median(builds)),
        ms(median(rebuilds))
    );

    // search over 10,000 squads.
    let site = scratch.path().join("site");
    synthetic_index(&site.join("index"), INDEXED);
    let root_bytes = std::fs::metadata(site.join("index").join(ROOT))
        .unwrap()
        .len();
    let log = scratch.path().join("http.log");
    let (_server, port) = serve(&site, &log);
    let url = format!("http://127.0.0.1:{port}/index/");
    let search = |cache: &Path| {
        let start = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_squad"))
            .args([
                "search",
                "incident security",
                "--index",
                &url,
                "--format",
                "json",
            ])
            .env("HOME", &home)
            .env("SQUAD_CACHE_DIR", cache)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let elapsed = start.elapsed();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(document["results"].as_array().unwrap().len(), 10);
        elapsed
    };
    let requests = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|line| line.contains("\"GET "))
            .count()
    };
    let before = requests();
    let cold: Vec<Duration> = (0..SEARCH_RUNS)
        .map(|run| search(&scratch.path().join(format!("cold-{run}"))))
        .collect();
    let per_cold = (requests() - before) / SEARCH_RUNS;
    let warm_cache = scratch.path().join("warm");
    search(&warm_cache);
    let before = requests();
    let warm: Vec<Duration> = (0..SEARCH_RUNS).map(|_| search(&warm_cache)).collect();
    let per_warm = (requests() - before) / SEARCH_RUNS;
    let files = std::fs::read_to_string(site.join("index").join(ROOT))
        .unwrap()
        .lines()
        .count()
        - 2;
    println!(
        "search over {INDEXED} squads ({files} index files, a root of {root_bytes} bytes): cold {} ({per_cold} requests), warm {} ({per_warm} requests), median of {SEARCH_RUNS} (goal <= 50 ms)",
        ms(median(cold)),
        ms(median(warm))
    );
}
