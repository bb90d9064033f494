//! OpenCorvus collaboration definitions (package-format §9): several squads' workflows run as
//! stages of one delivery, connected by evidence keys.

use super::Document;
use crate::diag::Diagnostic;
use crate::manifest::Manifest;

pub fn check_document(
    _document: &Document,
    _squads: Option<&[Manifest]>,
    _out: &mut Vec<Diagnostic>,
) {
    todo!("collab")
}
