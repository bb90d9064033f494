//! What a registry or a server says, read as squad reads it: a `WWW-Authenticate` challenge, a
//! `Link` header, a squad config, a lock file, and any text neutralised for the terminal. Never a
//! panic, and neutralised text never carries a character that moves the cursor or breaks a line.
//! Run: `scripts/fuzz 600 registry_text` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = squad::oci::auth::parse_challenge(&text);
    let _ = squad::oci::client::next_link(&text);
    let _ = squad::project::lockfile::Lock::parse(&text);
    for max in [0, 1, 7, squad::text::REMOTE_TEXT_CHARS] {
        let shown = squad::text::remote(&text, max);
        assert!(squad::text::is_safe_to_show(&shown), "{shown:?}");
    }
    let kept = squad::text::lines_safe_to_show(&text);
    assert!(!kept.contains('\r') && !kept.contains('\u{1b}'));
});
