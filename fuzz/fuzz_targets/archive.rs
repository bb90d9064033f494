//! Read any bytes as a package archive with the reference's limits: it must never panic or hang,
//! and an archive it accepts must digest.
//! Run: `scripts/fuzz 600 archive` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;
use squad::archive::reader::{Limits, read_package};

fuzz_target!(|data: &[u8]| {
    if let Ok(package) = read_package(data, &Limits::REFERENCE) {
        let _ = squad::digest::digest_entries(&package.files);
    }
});
