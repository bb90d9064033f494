//! What the benchmarks share: Debian's `docker-registry` started on 127.0.0.1 with a free port,
//! a temporary storage directory and a config of its own, stopped by PID on drop; the corpus;
//! medians; the generated packages (a large manifest, a package at the import limits).

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

pub fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

/// The corpus, from `SQUAD_CORPUS` (README.md, "Development"): a benchmark that needs it stops
/// and says so when it is not set.
pub fn corpus() -> PathBuf {
    match std::env::var_os("SQUAD_CORPUS").filter(|value| !value.is_empty()) {
        Some(corpus) => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(corpus),
        None => panic!("this benchmark reads the corpus: set SQUAD_CORPUS to its folder"),
    }
}

/// The first `count` packages of the corpus by name, leaving out the built-in ids.
#[allow(dead_code)] // not for every benchmark that shares this file
pub fn corpus_packages(corpus: &Path, count: usize) -> Vec<PathBuf> {
    let mut packages = every_corpus_package(corpus);
    packages.truncate(count);
    assert_eq!(packages.len(), count, "the corpus has {count} packages");
    packages
}

/// Every package of the corpus by name, leaving out the built-in ids.
pub fn every_corpus_package(corpus: &Path) -> Vec<PathBuf> {
    let mut packages: Vec<PathBuf> = std::fs::read_dir(corpus)
        .unwrap_or_else(|error| panic!("no corpus at {}: {error}", corpus.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("expert-squad.jsonc").is_file())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            !["base", "advanced", "research-studio", "squad-sdk"].contains(&name.as_ref())
        })
        .collect();
    packages.sort();
    packages
}

/// Copies the folder `from` to `to`, whole (a corpus package holds no links).
#[allow(dead_code)] // not for every benchmark that shares this file
pub fn copy_tree(from: &Path, to: &Path) {
    squad::fs::copy_tree(from, to).unwrap();
}

/// Runs `command` with its output thrown away and times it; an exit code above `highest`, or
/// none, stops the benchmark (squad exits 1 for a package with errors or a diff that widens,
/// which some benchmarks measure).
#[allow(dead_code)] // not for every benchmark that shares this file
pub fn time_quiet(command: &mut Command, highest: i32) -> Duration {
    let start = Instant::now();
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|error| panic!("{command:?} does not run: {error}"));
    let elapsed = start.elapsed();
    assert!(
        status
            .code()
            .is_some_and(|code| (0..=highest).contains(&code)),
        "{command:?} failed: {status}"
    );
    elapsed
}

/// Runs squad with `home` as its home, OpenCorvus root and download cache (its project is
/// `home/project`), and times it; a failure stops the benchmark with squad's message.
pub fn squad(args: &[&str], home: &Path) -> (Duration, Output) {
    std::fs::create_dir_all(home.join("project")).unwrap();
    let start = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_squad"))
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("OPENCORVUS_HOME", home.join("opencorvus"))
        .env("SQUAD_CACHE_DIR", home.join("cache"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(
        output.status.success(),
        "squad {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (elapsed, output)
}

pub struct Registry(Child);

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn start_registry(dir: &Path) -> (Registry, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = dir.join("config.yml");
    std::fs::write(
        &config,
        format!(
            "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\n  secret: bench\n",
            dir.join("data").display()
        ),
    )
    .unwrap();
    let child = Command::new("docker-registry")
        .arg("serve")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("docker-registry is on PATH (apt-get install docker-registry)");
    let registry = Registry(child);
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "registry did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (registry, port)
}

/// A valid manifest of `count` agents and a workflow of `count` nodes, each node depending on
/// the one before it and on one halfway back (about 0.5 KB an agent).
#[allow(dead_code)] // for the validate and lsp benchmarks, not every one that shares this file
pub fn synthetic_manifest(count: usize) -> String {
    let arrays = r#""inherit_base_tools": false, "built_in_tool_ids": ["read"], "default_skill_refs": [], "package_skill_refs": [], "default_tool_refs": [], "package_tool_refs": [], "default_mcp_server_refs": [], "package_mcp_server_refs": [], "default_mcp_tool_refs": [], "package_mcp_tool_refs": [], "default_mcp_prompt_refs": [], "package_mcp_prompt_refs": [], "default_mcp_resource_refs": [], "package_mcp_resource_refs": []"#;
    let agents: Vec<String> = (0..count)
        .map(|i| {
            format!(
                "\"agent-{i}\": {{\"label\": \"Agent {i}\", \"base_role\": \"build\", {arrays}}}"
            )
        })
        .collect();
    let nodes: Vec<String> = (0..count)
        .map(|i| {
            // Two dependencies per node (a chain plus a jump back), in canonical order.
            let mut deps: Vec<String> = match i {
                0 => Vec::new(),
                1 => vec!["node-0".to_owned()],
                _ => vec![format!("node-{}", i / 2), format!("node-{}", i - 1)],
            };
            deps.sort();
            deps.dedup();
            let deps = deps.iter().map(|d| format!("\"{d}\"")).collect::<Vec<_>>().join(", ");
            format!("\"node-{i}\": {{\"agent_id\": \"agent-{i}\", \"description\": \"d\", \"depends_on\": [{deps}]}}")
        })
        .collect();
    format!(
        r#"{{"schema_version": 1, "namespace": "bench", "id": "big", "label": "Big", "version": "2026.11.30.1",
        "product_pillars": ["work"], "readme": "README.md",
        "selector": {{"summary": "s", "selection_guidance": "g", "instructions": "selector.md"}},
        "capability_projection": {{
          "scheduler": {{"base_role": "orchestrator", {arrays}}},
          "agents": {{{}}},
          "virtual_workflows": {{"w": {{"label": "W", "description": "d", "nodes": {{{}}}}}}}
        }}}}"#,
        agents.join(","),
        nodes.join(",")
    )
}

/// Deterministic pseudo-random bytes that compress about as well as text (so deflate works).
#[allow(dead_code)] // for the digest_pack and show_diff benchmarks
pub fn text_like(seed: u64, len: usize) -> Vec<u8> {
    const WORDS: [&str; 16] = [
        "evidence ",
        "release ",
        "review ",
        "the ",
        "agent ",
        "skill ",
        "of ",
        "and ",
        "digest ",
        "package ",
        "workflow\n",
        "scheduler ",
        "to ",
        "a ",
        "tool ",
        "check ",
    ];
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.extend_from_slice(WORDS[(state >> 60) as usize].as_bytes());
    }
    out.truncate(len);
    out
}

/// The minimal fixture's manifest, its agent granted the package skill `bulk`: the manifest of
/// the packages at the import limits that [`write_bulk_package`] writes.
#[allow(dead_code)] // for the digest_pack and show_diff benchmarks
pub fn bulk_manifest() -> String {
    std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("registry-fixtures/valid/minimal/expert-squad.jsonc"),
    )
    .unwrap()
    .replace(
        "\"package_skill_refs\": [], \"default_tool_refs\": []",
        "\"package_skill_refs\": [\"minimal-squad/shared/bulk\"], \"default_tool_refs\": []",
    )
}

/// A package at the import limits (LIM-1, LIM-2): `manifest`, README, selector, a prompt, the
/// skill `bulk` and its 494 references of `reference_bytes` each, reference `i` made from seed
/// `seed(i)`.
#[allow(dead_code)] // for the digest_pack and show_diff benchmarks
pub fn write_bulk_package(
    root: &Path,
    manifest: &str,
    reference_bytes: usize,
    seed: impl Fn(u64) -> u64,
) {
    std::fs::create_dir_all(root.join("agents/worker")).unwrap();
    std::fs::create_dir_all(root.join("skills/bulk/references")).unwrap();
    std::fs::write(root.join("expert-squad.jsonc"), manifest).unwrap();
    std::fs::write(root.join("README.md"), "# Bulk\n").unwrap();
    std::fs::write(root.join("selector.md"), "Bulk.\n").unwrap();
    std::fs::write(root.join("agents/worker/system.md"), "Work.\n").unwrap();
    std::fs::write(
        root.join("skills/bulk/SKILL.md"),
        "---\nname: bulk\ndescription: Bulk data.\n---\nBulk.\n",
    )
    .unwrap();
    for index in 0..494u64 {
        std::fs::write(
            root.join(format!("skills/bulk/references/r{index:03}.md")),
            text_like(seed(index), reference_bytes),
        )
        .unwrap();
    }
}
