//! The integration tests: one binary, as ripgrep and uv do.

mod archives;
mod cli;
mod corpus;
mod ecosystem;
mod fixtures;
mod handoff;
mod install;
mod pack;
mod robustness;
mod router;
mod scaffold;
mod support;
