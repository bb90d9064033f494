//! The integration tests: one binary, as ripgrep and uv do.

mod archives;
mod by_name;
mod cli;
mod collab;
mod corpus;
mod diagnostics;
mod ecosystem;
mod fixture_cases;
mod fixtures;
mod handoff;
mod hardening;
mod http_support;
mod install;
mod interop;
mod lint;
mod oci_support;
mod ofp;
mod pack;
mod play;
mod project;
mod registry;
mod robustness;
mod router;
mod scaffold;
mod support;
mod toolchain;
