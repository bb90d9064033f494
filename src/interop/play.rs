//! OpenVibe agents.play@1 plays (seed-formats §1).

use super::{Document, Level};
use crate::diag::Diagnostic;

pub fn check(_document: &Document, _level: Level, _out: &mut Vec<Diagnostic>) {
    todo!("play")
}
