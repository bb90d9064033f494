//! ck-brain router contracts (seed-formats §2): contract lint, router inputs, routes derived
//! from a squad, and conformance of recorded runs.

pub mod conformance;
pub mod contract;
pub mod implementation;
pub mod input;
pub mod routes;

use super::{Document, Options};
use crate::diag::Diagnostic;
pub use contract::Contract;

/// Which contract a router contract is linted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Profile {
    /// Any router: the R-* structure is required, other behaviour values are warnings.
    #[default]
    Generic,
    /// The ck-brain contract itself: role router-orchestrator and every behaviour value.
    CkBrain,
}

/// Checks a router input document (request + routes) against the ck-brain contract's input
/// rules, since no contract is given.
pub fn check_input(document: &Document, options: &Options, out: &mut Vec<Diagnostic>) {
    input::check(document, &Contract::ck_brain(), options.level, out);
}
