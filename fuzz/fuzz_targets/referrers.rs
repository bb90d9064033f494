//! Read any bytes as an OCI referrers index (the referrers API's answer or the tag-schema index)
//! and any text as a project's squads.jsonc with its signature policy: never a panic.
//! Run: `scripts/fuzz 600 referrers` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = squad::share::signature::parse_referrers(data);
    let _ = squad::project::declared::parse(&String::from_utf8_lossy(data));
});
