//! `squad`: a package manager for expert-squad packages.
//!
//! Module map (ARCHITECTURE.md tells how data flows through them):
//! - [`cli`]: the command line (clap), one thin file per command over the library; exit codes.
//! - [`output`]: the one place that prints: data to stdout, human text to stderr.
//! - [`error`]: what the library's errors share: their causes as one line.
//! - [`env`](mod@env): the environment squad reads (OpenCorvus's data root, `NO_COLOR`, the date).
//! - [`fs`]: atomic file-system steps: no-replace renames, syncs, temporaries beside a target.
//! - [`jsonc`]: the reference's JSONC dialect, parsed with byte spans.
//! - [`source`]: file texts and byte offset to line/column mapping.
//! - [`diag`]: diagnostics as data (codes, rules, severities) and their human, JSON, SARIF and
//!   GitHub renderings.
//! - [`manifest`]: the `expert-squad.jsonc` schema, checked into a spanned model.
//! - [`path_rules`]: the package path rules (PATH-S) the validator and the ZIP reader share.
//! - [`package`]: validation of a package folder: tree capture, files, resources, references,
//!   tools.
//! - [`fix`]: `squad fix`, the machine-applicable suggestions of diagnostics applied in place.
//! - [`scaffold`]: `squad scaffold`, new agents, skills, tools, MCP servers and workflow nodes
//!   added to a package in place.
//! - [`tables`]: the reference runtime's tool and role tables.
//! - [`text`]: JavaScript-compatible whitespace, ids and string order.
//! - [`version`]: `YYYY.MM.DD.N` versions and the calendar.
//! - [`release`]: when a version must move: `squad version check` (a package's content must not
//!   change under a published or recorded version, CD-1; no version dated in the future),
//!   `squad version bump` and `--changed`, and the versions record of a tree.
//! - [`digest`]: the package digest (package-tree v1) of a folder or of archive entries.
//! - [`archive`]: the checked ZIP reader and the canonical ZIP writer.
//! - [`snapshot`]: a package read once into a private copy, which is what is judged and shipped.
//! - [`pack`]: `squad pack`, a validated folder to its canonical archive.
//! - [`verify`]: drift between a package on disk and a record of it.
//! - [`install`]: installing, listing, activating and uninstalling, with the reference's
//!   transaction.
//! - [`lsp`]: `squad lsp`, the Language Server Protocol over stdio: every rule as the text is
//!   typed, navigation, completion, hover, code actions and rename in any editor.
//! - [`new_package`]: `squad new`, new packages from embedded templates, staged and published
//!   atomically.
//! - [`interop`]: the neighbouring formats (plays, router contracts, Open Floor, handoffs,
//!   collaborations) and the conversions between them and squads.
//! - [`http`]: the HTTP client every network access goes through (transport rules, limits).
//! - [`oci`]: OCI registries: references, manifests, credentials, the distribution API.
//! - [`share`]: how squads travel: OCI artifacts (publish, fetch, versions), exact HTTPS
//!   archives and the OpenCorvus install link; signatures attached as OCI referrers.
//! - [`sign`]: author signatures in minisign's format over a squad's statement, and the
//!   project policy that decides which keys are trusted.
//! - [`acquire`]: the one road from any source to judged bytes ready to install (resolve,
//!   fetch through the cache, validate, check pins and the signature policy).
//! - [`project`]: a project's squads: `squads.jsonc`, `squads.lock`, add, remove, sync, update.
//! - [`cache`]: the content-addressed download cache.
//! - [`index`]: the static index of published squads: `squad index build`, fetching with the
//!   signed root checked, and `squad search`.
//! - [`jobs`]: work spread over a bounded number of threads, results in task order.
//! - [`tree`]: a tree of squads (a folder of package folders) and one outcome per package.
//! - [`capability`]: what a squad may make its agents do (grants, effective tools, capability
//!   classes, MCP servers, package tools), and what an update adds.
//! - [`audit`]: `squad audit`, findings before install: what a valid squad's tools, MCP
//!   declarations, prompts and grants would make its agents do that a user should see.

// Unit tests set up and inspect files directly; clippy.toml holds the library itself to one
// home for the file system and the environment.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod acquire;
pub mod archive;
pub mod audit;
pub mod cache;
pub mod capability;
pub mod cli;
pub mod diag;
pub mod digest;
pub mod env;
pub mod error;
pub mod fix;
pub mod fs;
pub mod http;
pub mod index;
pub mod install;
pub mod interop;
pub mod jobs;
pub mod jsonc;
pub mod lsp;
pub mod manifest;
pub mod new_package;
pub mod oci;
pub mod output;
pub mod pack;
pub mod package;
pub mod path_rules;
pub mod project;
pub mod release;
pub mod scaffold;
pub mod share;
pub mod sign;
pub mod snapshot;
pub mod source;
pub mod tables;
pub mod text;
pub mod tree;
pub mod verify;
pub mod version;

#[cfg(test)]
mod tests {
    /// The module map above names every module declared here, so it stays a map.
    #[test]
    fn the_module_map_lists_every_module() {
        let source = include_str!("lib.rs");
        let map = source.split("\npub mod ").next().unwrap();
        let modules: Vec<&str> = source
            .split("\npub mod ")
            .skip(1)
            .map(|rest| rest.split(';').next().unwrap())
            .collect();
        assert!(modules.len() >= 19, "{modules:?}");
        for module in modules {
            assert!(
                map.contains(&format!("[`{module}`]")),
                "src/lib.rs's module map does not list `{module}`"
            );
        }
    }
}
