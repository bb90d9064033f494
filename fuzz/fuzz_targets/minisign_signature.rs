//! Read any text as a minisign signature and check it against a fixed key and statement, as a
//! project policy does: never a panic (the minisign crate indexes into what it decodes, so every
//! length must be checked before it sees the bytes).
//! Run: `scripts/fuzz 600 minisign_signature` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

const KEY: &str = "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let (Ok(signature), Ok(key)) = (
        squad::sign::Signature::parse(&text),
        squad::sign::PublicKey::parse(KEY),
    ) {
        let _ = signature.verify(&key, b"opencorvus.squad.signature.v1\n");
    }
});
