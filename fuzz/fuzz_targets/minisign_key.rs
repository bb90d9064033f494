//! Read any text as a minisign public key and as a secret key file (unencrypted ones are also
//! unlocked; decrypting would run scrypt with the input's own cost): never a panic.
//! Run: `scripts/fuzz 600 minisign_key` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = squad::sign::PublicKey::parse(&text);
    let _ = squad::sign::KeyId::parse(&text);
    if let Ok(file) = squad::sign::SecretKeyFile::parse(&text)
        && !file.is_encrypted()
    {
        let _ = file.unlock(None);
    }
});
