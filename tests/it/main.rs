//! The integration tests: one binary, as ripgrep and uv do.

// Tests set up and inspect files and the environment directly (clippy.toml is for the library).
#![allow(clippy::disallowed_methods)]

mod architecture;
mod archives;
mod audit;
mod authoring;
mod by_name;
mod capabilities;
mod ci;
mod cli;
mod collab;
mod cooldown;
mod corpus;
mod diagnostics;
mod ecosystem;
mod fixture_cases;
mod fixtures;
mod handoff;
mod hardening;
mod hostile;
mod http_support;
mod index;
mod install;
mod interop;
mod json_docs;
mod lint;
mod lsp;
mod oci_support;
mod ofp;
mod pack;
mod play;
mod project;
mod registry;
mod robustness;
mod router;
mod scaffold;
mod signing;
mod support;
mod team;
mod toolchain;
mod tree;
