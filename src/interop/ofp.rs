//! Open Floor Protocol documents (seed-formats §3): envelopes, assistant manifests and dialog
//! events, checked against the vendored schemas plus the spec's prose rules.

use super::{Document, Options};
use crate::diag::Diagnostic;

pub fn check_envelope(_document: &Document, _options: &Options, _out: &mut Vec<Diagnostic>) {
    todo!("ofp envelope")
}

pub fn check_manifest(_document: &Document, _options: &Options, _out: &mut Vec<Diagnostic>) {
    todo!("ofp manifest")
}

pub fn check_dialog_event(_document: &Document, _options: &Options, _out: &mut Vec<Diagnostic>) {
    todo!("ofp dialog event")
}
