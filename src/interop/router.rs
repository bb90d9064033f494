//! ck-brain router contracts (seed-formats §2): contract lint, router inputs, routes derived
//! from a squad, and conformance of recorded runs.

use super::{Document, Options};
use crate::diag::Diagnostic;

/// Checks a router contract (R-* rules).
pub fn check_contract(_document: &Document, _options: &Options, _out: &mut Vec<Diagnostic>) {
    todo!("router contract lint")
}

/// Checks a router input document: request + routes.
pub fn check_input(_document: &Document, _options: &Options, _out: &mut Vec<Diagnostic>) {
    todo!("router input")
}
