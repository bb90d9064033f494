//! The integration tests: one binary, as ripgrep and uv do.

mod archives;
mod cli;
mod corpus;
mod ecosystem;
mod fixtures;
mod install;
mod ofp;
mod pack;
mod robustness;
mod scaffold;
mod support;
