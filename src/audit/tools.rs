//! The audit of package tools (AUD-T1…T8): what each parsed file of a tool's closure reaches,
//! from the facts the tool front-end recorded ([`tool_reach`](crate::package::tool_reach)).
//!
//! The module policy (TL-4) already refuses `node:child_process`, `node:net` and every module
//! outside a short list, and validation refuses imports it cannot read. What is left to show
//! is what the runtime offers without an import — `fetch`, `Bun.spawn`, `Bun.$`, `eval`,
//! `process.env` — and what the allowed `node:fs` is used for. One finding per file, code and
//! member path, with the number of further uses: a tool that calls `fetch` ten times reaches
//! the network once as far as a reader is concerned.

use std::collections::BTreeMap;
use std::ops::Range;

use super::finding;
use crate::capability::{Capabilities, Class, classes};
use crate::diag::{Code, Diagnostics};
use crate::package::Report;
use crate::package::encoded::Decoded;
use crate::package::tool_parse::ModuleInfo;
use crate::package::tool_reach::DynamicKind;

/// What `node:fs` exports that creates, changes or deletes files.
const FS_WRITES: [&str; 44] = [
    "writeFile",
    "writeFileSync",
    "appendFile",
    "appendFileSync",
    "createWriteStream",
    "mkdir",
    "mkdirSync",
    "mkdtemp",
    "mkdtempSync",
    "rm",
    "rmSync",
    "rmdir",
    "rmdirSync",
    "unlink",
    "unlinkSync",
    "rename",
    "renameSync",
    "copyFile",
    "copyFileSync",
    "cp",
    "cpSync",
    "symlink",
    "symlinkSync",
    "link",
    "linkSync",
    "chmod",
    "chmodSync",
    "chown",
    "chownSync",
    "lchown",
    "lchownSync",
    "truncate",
    "truncateSync",
    "ftruncate",
    "ftruncateSync",
    "utimes",
    "utimesSync",
    "lutimes",
    "futimes",
    "write",
    "writeSync",
    "writev",
    "writevSync",
    "lchmod",
];

/// Globals that load code from outside the package's text.
const LOADERS: [&str; 13] = [
    "WebAssembly.compile",
    "WebAssembly.compileStreaming",
    "WebAssembly.instantiate",
    "WebAssembly.instantiateStreaming",
    "WebAssembly.Module",
    "Worker",
    "SharedWorker",
    "Bun.plugin",
    "Bun.Transpiler",
    "process.binding",
    "process.dlopen",
    "import.meta.require",
    "module.require",
];

/// Environment variables, by the globals that hold them.
const ENVIRONMENTS: [&str; 3] = ["process.env", "Bun.env", "import.meta.env"];

pub fn check(report: &Report, capabilities: &Capabilities, findings: &mut Diagnostics) {
    for (file, info) in &report.modules {
        let tools: Vec<&str> = capabilities
            .tools
            .iter()
            .filter(|tool| tool.path == *file || tool.closure.contains(file))
            .map(|tool| tool.reference.as_str())
            .collect();
        let mut found = Found::default();
        uses(info, &mut found);
        for (code, span, message, help) in found.into_findings() {
            findings.push(
                finding(code, file, span, format!("{message}{}", in_tools(&tools))).help(help),
            );
        }
    }
}

/// `` (tool `x`) `` or `` (tools `x`, `y`) ``: whose code the finding is in.
fn in_tools(tools: &[&str]) -> String {
    match tools {
        [] => String::new(),
        [tool] => format!(" (tool `{tool}`)"),
        tools => format!(
            " (tools {})",
            tools
                .iter()
                .map(|tool| format!("`{tool}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The first use of each (code, what) in a file, and how many more there are.
#[derive(Default)]
struct Found {
    first: BTreeMap<(Code, String), (Range<usize>, usize)>,
}

impl Found {
    fn add(&mut self, code: Code, what: &str, span: &Range<usize>) {
        self.add_uses(code, what, span, 0);
    }

    /// A use at `span` and `more` after it.
    fn add_uses(&mut self, code: Code, what: &str, span: &Range<usize>, more: usize) {
        match self.first.get_mut(&(code, what.to_owned())) {
            // The first use in the file is the one shown, whichever path it came by.
            Some((first, count)) => {
                if span.start < first.start {
                    *first = span.clone();
                }
                *count += more + 1;
            }
            None => {
                self.first
                    .insert((code, what.to_owned()), (span.clone(), more));
            }
        }
    }

    fn into_findings(self) -> Vec<(Code, Range<usize>, String, String)> {
        self.first
            .into_iter()
            .map(|((code, what), (span, more))| {
                let more = match more {
                    0 => String::new(),
                    1 => ", and once more in this file".to_owned(),
                    n => format!(", and {n} more times in this file"),
                };
                let (message, help) = describe(code, &what);
                (code, span, format!("{message}{more}"), help)
            })
            .collect()
    }
}

/// Whether `path` (`Bun.spawn.call`) or one of its leading parts is in `class`.
fn has_class(path: &str, class: Class) -> bool {
    let mut end = 0;
    loop {
        let next = path[end..].find('.').map_or(path.len(), |at| end + at);
        if classes::of_global(&path[..next]).contains(&class) {
            return true;
        }
        if next == path.len() {
            return false;
        }
        end = next + 1;
    }
}

fn uses(info: &ModuleInfo, found: &mut Found) {
    // A file uses few globals many times: each path is judged once, with its first use and
    // how many more there are.
    let mut paths: BTreeMap<(&str, bool), (&Range<usize>, usize)> = BTreeMap::new();
    for global in &info.reach.globals {
        // `require` passed on as a value differs from `require` called; others do not.
        let escapes = global.path == "require" && !global.called;
        paths
            .entry((global.path.as_str(), escapes))
            .and_modify(|(_, more)| *more += 1)
            .or_insert((&global.span, 0));
    }
    for ((path, escapes), (span, more)) in paths {
        let under = |root: &str| {
            path.strip_prefix(root)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        };
        if has_class(path, Class::ReachesNetwork) {
            let root = root_of(path, Class::ReachesNetwork);
            found.add_uses(Code::ToolReachesNetwork, root, span, more);
        }
        if has_class(path, Class::RunsCommands) || under("Bun.openInEditor") {
            found.add_uses(Code::ToolSpawnsProcess, path_upto_call(path), span, more);
        }
        if has_class(path, Class::WritesFiles) {
            found.add_uses(Code::ToolWritesFiles, path_upto_call(path), span, more);
        }
        if let Some(environment) = ENVIRONMENTS.iter().find(|root| under(root)) {
            found.add_uses(Code::ToolReadsEnv, environment, span, more);
        }
        if let Some(loader) = LOADERS.iter().find(|root| under(root)) {
            found.add_uses(Code::ToolLoadsCode, loader, span, more);
        }
        // `require` passed on as a value loads whatever it is later given.
        if escapes {
            found.add_uses(Code::ToolLoadsCode, "require", span, more);
        }
    }
    for module_use in &info.reach.module_uses {
        let fs = matches!(module_use.module.as_str(), "node:fs" | "node:fs/promises");
        if let Some(write) = module_use
            .path
            .split('.')
            .find(|segment| FS_WRITES.contains(segment))
            .filter(|_| fs)
        {
            found.add(
                Code::ToolWritesFiles,
                &format!("{write}` of `{}", module_use.module),
                &module_use.span,
            );
        }
    }
    for code in &info.reach.dynamic {
        let what = match code.kind {
            DynamicKind::Eval => "eval",
            DynamicKind::FunctionConstructor => "Function",
            DynamicKind::StringTimer => "timer",
            DynamicKind::ComputedGlobal => "computed",
        };
        found.add(Code::ToolDynamicCode, what, &code.span);
    }
    for literal in &info.reach.encoded {
        let code = match literal.decoded {
            Decoded::Code | Decoded::Url => Code::ToolEncodedPayload,
            Decoded::Text | Decoded::Binary => Code::ToolEncodedBlob,
            Decoded::Media => continue,
        };
        let decoded = match literal.decoded {
            Decoded::Code => "code",
            Decoded::Url => "text naming a URL",
            Decoded::Text => "text",
            _ => "bytes of no known kind",
        };
        let preview = if literal.preview.is_empty() {
            String::new()
        } else {
            format!(": `{}`", super::quote(&literal.preview, 60))
        };
        // Each literal is its own finding: two payloads are two things to look at.
        let what = format!(
            "{} literal of {} characters decodes to {decoded}{preview}\u{0}{}",
            literal.encoding.name(),
            literal.length,
            literal.span.start
        );
        found.add(code, &what, &literal.span);
    }
}

/// The global a network path goes through (`fetch`, `Bun.connect`): its first part that has the
/// class.
fn root_of(path: &str, class: Class) -> &str {
    let mut end = 0;
    loop {
        let next = path[end..].find('.').map_or(path.len(), |at| end + at);
        if classes::of_global(&path[..next]).contains(&class) || next == path.len() {
            return &path[..next];
        }
        end = next + 1;
    }
}

/// `Bun.spawn` of `Bun.spawn.call`: the path up to where the class is.
fn path_upto_call(path: &str) -> &str {
    for class in [Class::RunsCommands, Class::WritesFiles] {
        if has_class(path, class) {
            return root_of(path, class);
        }
    }
    path
}

/// The message and help of a finding about `what`.
fn describe(code: Code, what: &str) -> (String, String) {
    match code {
        Code::ToolReachesNetwork => (
            format!("`{what}` sends requests to other hosts"),
            "a tool that reaches the network can send what the agent holds anywhere; check the hosts it talks to and what it sends".to_owned(),
        ),
        Code::ToolSpawnsProcess => (
            format!("`{what}` starts programs on the machine"),
            "a tool that starts programs can do anything its user can; the tool policy bans `node:child_process` for this reason: grant the runtime's `bash` tool where commands are needed, so the grant shows".to_owned(),
        ),
        Code::ToolWritesFiles => (
            format!("`{what}` creates, changes or deletes files"),
            "check which paths the tool writes; a tool that writes outside its own work can change the project or the user's files".to_owned(),
        ),
        Code::ToolReadsEnv => (
            format!("`{what}` reads environment variables"),
            "environment variables often hold credentials; check which ones the tool reads and where their values go".to_owned(),
        ),
        Code::ToolLoadsCode => (
            format!("`{what}` loads code that the package's text does not show"),
            "everything a tool runs should be in the package, where it is validated, digested and reviewed; bundle the code into lib/ instead".to_owned(),
        ),
        Code::ToolDynamicCode => {
            let message = match what {
                "eval" => "`eval` runs a string as code",
                "Function" => "the `Function` constructor turns a string into code",
                "timer" => "a string given to a timer is run as code",
                _ => "a global reached by a computed name: which one cannot be read from the code",
            };
            (
                message.to_owned(),
                "code made at run time cannot be reviewed before it runs; write the code itself, and name globals directly".to_owned(),
            )
        }
        Code::ToolEncodedPayload | Code::ToolEncodedBlob => {
            let what = what.split('\u{0}').next().unwrap_or(what);
            (
                format!("a {what}"),
                "an encoded payload hides what the tool does from review; ship code as code and data as a file in assets/".to_owned(),
            )
        }
        _ => (what.to_owned(), String::new()),
    }
}

/// The findings of one file's source, as [`check`] words them (for the tests).
#[cfg(test)]
pub(super) fn of_source(source: &str) -> Vec<(Code, String)> {
    use crate::package::tool_parse::{Language, parse};
    let info = parse(source, Language::TYPESCRIPT).expect("parsed");
    let mut found = Found::default();
    uses(&info, &mut found);
    found
        .into_findings()
        .into_iter()
        .map(|(code, span, message, _)| (code, format!("{}: {message}", &source[span])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(source: &str) -> Vec<Code> {
        of_source(source)
            .into_iter()
            .map(|(code, _)| code)
            .collect()
    }

    #[test]
    fn network_processes_files_and_the_environment() {
        assert_eq!(
            of_source("await fetch(u); await fetch(v); globalThis.fetch(w);"),
            [(
                Code::ToolReachesNetwork,
                "fetch: `fetch` sends requests to other hosts, and 2 more times in this file"
                    .to_owned()
            )]
        );
        assert_eq!(
            codes("new WebSocket(u); Bun.connect({})"),
            [Code::ToolReachesNetwork, Code::ToolReachesNetwork]
        );
        assert_eq!(
            codes("Bun.spawn(['sh']); await Bun.$`ls`;"),
            [Code::ToolSpawnsProcess, Code::ToolSpawnsProcess]
        );
        assert_eq!(codes("await Bun.write('x', 'y');"), [Code::ToolWritesFiles]);
        assert_eq!(
            of_source(
                "import { writeFileSync, readFileSync } from 'node:fs';\nreadFileSync('a'); writeFileSync('b', 'c');"
            ),
            [(
                Code::ToolWritesFiles,
                "writeFileSync: `writeFileSync` of `node:fs` creates, changes or deletes files"
                    .to_owned()
            )]
        );
        assert_eq!(
            codes("const k = process.env.API_KEY; const h = Bun.env.HOME;"),
            [Code::ToolReadsEnv, Code::ToolReadsEnv]
        );
    }

    #[test]
    fn what_does_not_fire() {
        for quiet in [
            "import { readFile } from 'node:fs/promises'; await readFile('x');",
            "if (typeof fetch === 'function') {}",
            "function f(fetch: any) { fetch(1); }",
            "const s = JSON.stringify({ a: 1 }); console.log(s, Math.max(1, 2));",
            "import { tool } from '@opencorvus-ai/plugin'; export default tool({ description: 'x', args: {}, async execute() { return 'ok'; } });",
            "const b = x instanceof Function;",
            "const id = 'a3f1c2d4e5b6a7980123456789abcdef';",
        ] {
            assert_eq!(codes(quiet), [], "{quiet}");
        }
    }

    #[test]
    fn code_made_or_loaded_at_run_time() {
        assert_eq!(codes("eval(s);"), [Code::ToolDynamicCode]);
        assert_eq!(codes("new Function('a', s)(1);"), [Code::ToolDynamicCode]);
        assert_eq!(codes("setTimeout('run()', 5);"), [Code::ToolDynamicCode]);
        assert_eq!(codes("globalThis[k]();"), [Code::ToolDynamicCode]);
        assert_eq!(
            codes("await WebAssembly.instantiate(bytes);"),
            [Code::ToolLoadsCode]
        );
        assert_eq!(codes("new Worker('w.js');"), [Code::ToolLoadsCode]);
        assert_eq!(
            codes("import.meta.require('node:child_process');"),
            [Code::ToolLoadsCode]
        );
        assert_eq!(codes("const r = require; r(name);"), [Code::ToolLoadsCode]);
        assert_eq!(codes("require('node:path');"), []);
    }

    #[test]
    fn encoded_literals_by_what_they_decode_to() {
        use base64::Engine;
        let engine = base64::engine::general_purpose::STANDARD;
        let code =
            engine.encode("const c = require('child_process'); c.execSync('id'); ".repeat(5));
        let found = of_source(&format!("const p = '{code}';"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, Code::ToolEncodedPayload);
        assert!(
            found[0]
                .1
                .contains("decodes to code: `const c = require('child_process')"),
            "{found:?}"
        );
        let url = engine.encode(
            "see https://collector.example.net/upload for the details of it all ".repeat(4),
        );
        assert_eq!(
            codes(&format!("const u = '{url}';")),
            [Code::ToolEncodedPayload]
        );
        let opaque: String = (0..150u32)
            .map(|i| format!("{:02x}", (i * 37 + 11) % 251))
            .collect();
        assert_eq!(
            codes(&format!("const k = '{opaque}';")),
            [Code::ToolEncodedBlob]
        );
        let two = format!("const a = '{opaque}'; const b = '{opaque}';");
        assert_eq!(codes(&two), [Code::ToolEncodedBlob, Code::ToolEncodedBlob]);
        let image = format!(
            "const i = 'data:image/png;base64,{}';",
            engine.encode((0..=255u8).collect::<Vec<_>>())
        );
        assert_eq!(codes(&image), []);
    }
}
