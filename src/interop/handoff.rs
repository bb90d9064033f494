//! ZeroClaw / AOS AgentHandoff payloads (seed-formats §4).

use super::{Document, Options};
use crate::diag::Diagnostic;

pub fn check(_document: &Document, _options: &Options, _out: &mut Vec<Diagnostic>) {
    todo!("handoff")
}
