//! minisign's file formats, read strictly before the `minisign` crate sees them: public keys
//! (`RW…`, alone or in a `.pub` file), secret keys (`.key`, scrypt-encrypted or not) and
//! signatures (`.minisig`). Every length and algorithm is checked here, because the crate
//! indexes into what it decodes (a short global signature would panic it). Each `parse` is a
//! fuzzing entry point: any input gives a value or an error, never a panic.

use std::io::Cursor;

use base64::Engine as _;

/// An Ed25519 key's minisign identifier: 8 random bytes, shown as minisign shows them (16
/// uppercase hex digits of their little-endian value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyId(pub [u8; 8]);

impl KeyId {
    fn of(bytes: &[u8]) -> KeyId {
        let mut id = [0u8; 8];
        id.copy_from_slice(&bytes[..8]);
        KeyId(id)
    }

    /// Reads the 16-hex-digit form (either case).
    pub fn parse(text: &str) -> Option<KeyId> {
        if text.len() != 16 || !text.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return None;
        }
        let value = u64::from_str_radix(text, 16).ok()?;
        Some(KeyId(value.to_le_bytes()))
    }
}

impl std::fmt::Display for KeyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016X}", u64::from_le_bytes(self.0))
    }
}

/// Why a key or signature cannot be used. Never holds secret material.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    /// Not the format at all, truncated, or a field of the wrong size or algorithm.
    Malformed(String),
    /// The secret key's password is not this one.
    WrongPassword,
    /// A password was given for a key that has none, or none for a key that needs one.
    Password(String),
    /// The signature does not verify with the key.
    Mismatch(String),
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FormatError::Malformed(message)
            | FormatError::Password(message)
            | FormatError::Mismatch(message) => f.write_str(message),
            FormatError::WrongPassword => {
                f.write_str("wrong password for this secret key (nothing was signed)")
            }
        }
    }
}

impl std::error::Error for FormatError {}

fn malformed(message: impl Into<String>) -> FormatError {
    FormatError::Malformed(message.into())
}

/// The largest key or signature file read.
pub const MAX_FILE_BYTES: usize = 16 * 1024;

const UNTRUSTED: &str = "untrusted comment: ";
const TRUSTED: &str = "trusted comment: ";
const ED: &[u8; 2] = b"Ed";
const ED_PREHASHED: &[u8; 2] = b"ED";
const PUBLIC_KEY_BYTES: usize = 2 + 8 + 32;
const SIGNATURE_BYTES: usize = 2 + 8 + 64;
const GLOBAL_SIGNATURE_BYTES: usize = 64;
/// sig_alg, kdf_alg, chk_alg, salt, opslimit, memlimit, then the (encrypted) key id, secret
/// key and checksum.
const SECRET_KEY_BYTES: usize = 2 + 2 + 2 + 32 + 8 + 8 + 8 + 64 + 32;
const PASSWORD_MAX_BYTES: usize = 1024;

fn decode(what: &str, line: &str, size: usize) -> Result<Vec<u8>, FormatError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(line.trim())
        .map_err(|_| malformed(format!("{what} is not base64")))?;
    if bytes.len() != size {
        return Err(malformed(format!(
            "{what} is {} bytes, not {size}: truncated or not a minisign {what}",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// The non-blank lines of a file, at most `count` of them (more is an error).
fn lines(what: &str, text: &str, count: usize) -> Result<Vec<String>, FormatError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(malformed(format!(
            "the {what} is {} bytes, more than {MAX_FILE_BYTES}",
            text.len()
        )));
    }
    let lines: Vec<String> = text
        .lines()
        .map(|line| line.trim_end().to_owned())
        .filter(|line| !line.is_empty())
        .collect();
    if lines.len() != count {
        return Err(malformed(format!(
            "a minisign {what} has {count} lines; this has {}",
            lines.len()
        )));
    }
    Ok(lines)
}

/// A minisign public key.
#[derive(Clone)]
pub struct PublicKey {
    inner: minisign::PublicKey,
    pub id: KeyId,
    /// The `RW…` form, as `squads.jsonc` and `minisign -P` take it.
    pub base64: String,
}

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PublicKey({} {})", self.id, self.base64)
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &PublicKey) -> bool {
        self.base64 == other.base64
    }
}

impl PublicKey {
    /// Reads a key: the `RW…` string alone, or a `.pub` file (comment line, then the key).
    pub fn parse(text: &str) -> Result<PublicKey, FormatError> {
        let trimmed = text.trim();
        let line = if trimmed.starts_with(UNTRUSTED) {
            let lines = lines("public key", text, 2)?;
            lines[1].clone()
        } else if trimmed.contains('\n') {
            return Err(malformed(
                "a minisign public key file starts with `untrusted comment:`",
            ));
        } else {
            trimmed.to_owned()
        };
        let bytes = decode("public key", &line, PUBLIC_KEY_BYTES)?;
        if &bytes[..2] != ED {
            return Err(malformed("the public key is not an Ed25519 minisign key"));
        }
        let inner = minisign::PublicKey::from_bytes(&bytes)
            .map_err(|error| malformed(format!("the public key: {error}")))?;
        Ok(PublicKey {
            inner,
            id: KeyId::of(&bytes[2..10]),
            base64: line.trim().to_owned(),
        })
    }

    /// The `.pub` file text `minisign -G` writes.
    pub fn file_text(&self) -> String {
        format!(
            "{UNTRUSTED}minisign public key {}\n{}\n",
            self.id, self.base64
        )
    }
}

/// A secret key file as read: parsed, not yet decrypted.
pub struct SecretKeyFile {
    text: String,
    bytes: Vec<u8>,
    encrypted: bool,
}

impl SecretKeyFile {
    pub fn parse(text: &str) -> Result<SecretKeyFile, FormatError> {
        let lines = lines("secret key", text, 2)?;
        if !lines[0].starts_with(UNTRUSTED) {
            return Err(malformed(
                "a minisign secret key file starts with `untrusted comment:`",
            ));
        }
        let bytes = decode("secret key", &lines[1], SECRET_KEY_BYTES)?;
        if &bytes[..2] != ED || &bytes[4..6] != b"B2" {
            return Err(malformed("the secret key is not an Ed25519 minisign key"));
        }
        let encrypted = match &bytes[2..4] {
            b"Sc" => true,
            [0, 0] => false,
            _ => {
                return Err(malformed(
                    "the secret key is encrypted with an unknown algorithm",
                ));
            }
        };
        Ok(SecretKeyFile {
            text: format!("{}\n{}\n", lines[0], lines[1]),
            bytes,
            encrypted,
        })
    }

    pub fn is_encrypted(&self) -> bool {
        self.encrypted
    }

    /// Decrypts the key with `password` (`None` for an unencrypted key).
    pub fn unlock(&self, password: Option<&str>) -> Result<SecretKey, FormatError> {
        let boxed = minisign::SecretKeyBox::from_string(&self.text)
            .map_err(|error| malformed(format!("the secret key: {error}")))?;
        let inner = match (self.encrypted, password) {
            (true, Some(password)) => {
                if password.len() > PASSWORD_MAX_BYTES {
                    return Err(FormatError::Password(format!(
                        "a password is at most {PASSWORD_MAX_BYTES} bytes"
                    )));
                }
                minisign::SecretKey::from_box(boxed, Some(password.to_owned())).map_err(
                    |error| match error.kind() {
                        minisign::ErrorKind::Verify => FormatError::WrongPassword,
                        _ => malformed(format!("the secret key: {error}")),
                    },
                )?
            }
            (true, None) => {
                return Err(FormatError::Password(
                    "the secret key is encrypted: a password is needed".to_owned(),
                ));
            }
            // `minisign -G -W` leaves an unencrypted key's checksum zero, which the crate's
            // check refuses: such a key is read as it is.
            (false, _)
                if self.bytes[SECRET_KEY_BYTES - 32..]
                    .iter()
                    .all(|byte| *byte == 0) =>
            {
                minisign::SecretKey::from_bytes(&self.bytes)
                    .map_err(|error| malformed(format!("the secret key: {error}")))?
            }
            (false, _) => minisign::SecretKey::from_unencrypted_box(boxed)
                .map_err(|error| malformed(format!("the secret key is corrupt: {error}")))?,
        };
        let public = minisign::PublicKey::from_secret_key(&inner)
            .map_err(|error| malformed(format!("the secret key: {error}")))?;
        let id = KeyId::of(public.keynum());
        let base64 = public.to_base64();
        Ok(SecretKey {
            inner,
            public: PublicKey {
                inner: public,
                id,
                base64,
            },
        })
    }
}

/// A decrypted secret key. Its `Debug` shows the key id only.
pub struct SecretKey {
    inner: minisign::SecretKey,
    pub public: PublicKey,
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretKey({})", self.public.id)
    }
}

/// A minisign signature (`.minisig`).
#[derive(Clone)]
pub struct Signature {
    inner: minisign::SignatureBox,
    pub key_id: KeyId,
    pub trusted_comment: String,
    text: String,
}

impl std::fmt::Debug for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signature(by {})", self.key_id)
    }
}

impl Signature {
    pub fn parse(text: &str) -> Result<Signature, FormatError> {
        let lines = lines("signature", text, 4)?;
        if !lines[0].starts_with(UNTRUSTED) {
            return Err(malformed(
                "a minisign signature starts with `untrusted comment:`",
            ));
        }
        let signature = decode("signature", &lines[1], SIGNATURE_BYTES)?;
        if &signature[..2] != ED && &signature[..2] != ED_PREHASHED {
            return Err(malformed(
                "the signature is not an Ed25519 minisign signature",
            ));
        }
        let Some(trusted_comment) = lines[2].strip_prefix(TRUSTED) else {
            return Err(malformed(
                "a minisign signature's third line is its `trusted comment:`",
            ));
        };
        decode("global signature", &lines[3], GLOBAL_SIGNATURE_BYTES)?;
        let text = format!("{}\n", lines.join("\n"));
        let inner = minisign::SignatureBox::from_string(&text)
            .map_err(|error| malformed(format!("the signature: {error}")))?;
        Ok(Signature {
            inner,
            key_id: KeyId::of(&signature[2..10]),
            trusted_comment: trusted_comment.trim().to_owned(),
            text,
        })
    }

    /// The `.minisig` file text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Checks the signature, and its trusted comment's signature, over `message` with `key`.
    pub fn verify(&self, key: &PublicKey, message: &[u8]) -> Result<(), FormatError> {
        if self.key_id != key.id {
            return Err(FormatError::Mismatch(format!(
                "the signature was made by key {}, not by key {}",
                self.key_id, key.id
            )));
        }
        minisign::verify(
            &key.inner,
            &self.inner,
            Cursor::new(message),
            true,
            false,
            true,
        )
        .map_err(|_| {
            FormatError::Mismatch(format!(
                "the signature by key {} does not verify: it was made over other content (another statement, squad or package digest) or was altered",
                self.key_id
            ))
        })
    }
}

/// Signs `message` (prehashed, as `minisign -S` does) with `trusted_comment`.
pub fn sign(
    key: &SecretKey,
    message: &[u8],
    trusted_comment: &str,
) -> Result<Signature, FormatError> {
    if trusted_comment.contains(['\n', '\r']) {
        return Err(malformed("a trusted comment is one line"));
    }
    let boxed = minisign::sign(
        Some(&key.public.inner),
        &key.inner,
        Cursor::new(message),
        Some(trusted_comment),
        Some(&format!(
            "signature from squad secret key {}",
            key.public.id
        )),
    )
    .map_err(|error| malformed(format!("signing failed: {error}")))?;
    Signature::parse(&boxed.into_string())
}

/// A new key pair: the public key and the secret key file's text (encrypted with `password`
/// unless it is `None`).
pub fn generate(password: Option<&str>) -> Result<(PublicKey, String), FormatError> {
    let pair = match password {
        Some(password) => {
            if password.len() > PASSWORD_MAX_BYTES {
                return Err(FormatError::Password(format!(
                    "a password is at most {PASSWORD_MAX_BYTES} bytes"
                )));
            }
            minisign::KeyPair::generate_encrypted_keypair(Some(password.to_owned()))
        }
        None => minisign::KeyPair::generate_unencrypted_keypair(),
    }
    .map_err(|error| malformed(format!("generating a key failed: {error}")))?;
    let public = PublicKey::parse(&pair.pk.to_base64())?;
    let comment = if password.is_some() {
        "minisign encrypted secret key (squad)"
    } else {
        "minisign unencrypted secret key (squad)"
    };
    let secret = pair
        .sk
        .to_box(Some(comment))
        .map_err(|error| malformed(format!("writing the secret key failed: {error}")))?
        .into_string();
    Ok((public, secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ids_read_as_minisign_prints_them() {
        let id = KeyId([0x0d, 0x0c, 0x0b, 0x0a, 4, 3, 2, 1]);
        assert_eq!(id.to_string(), "010203040A0B0C0D");
        assert_eq!(KeyId::parse("010203040a0b0c0d"), Some(id));
        assert_eq!(KeyId::parse("0102"), None);
        assert_eq!(KeyId::parse("01020304+A0B0C0D"), None);
    }

    #[test]
    fn sign_then_verify_and_every_alteration_is_refused() {
        let (public, secret) = generate(None).unwrap();
        let file = SecretKeyFile::parse(&secret).unwrap();
        assert!(!file.is_encrypted());
        let key = file.unlock(None).unwrap();
        assert_eq!(key.public, public);
        let signature = sign(&key, b"statement\n", "comment").unwrap();
        assert_eq!(signature.key_id, public.id);
        assert_eq!(signature.trusted_comment, "comment");
        signature.verify(&public, b"statement\n").unwrap();
        assert!(matches!(
            signature.verify(&public, b"statement!\n"),
            Err(FormatError::Mismatch(_))
        ));
        let (other, _) = generate(None).unwrap();
        assert!(signature.verify(&other, b"statement\n").is_err());
        let again = Signature::parse(signature.text()).unwrap();
        again.verify(&public, b"statement\n").unwrap();
        let forged = signature
            .text()
            .replace("trusted comment: comment", "trusted comment: other");
        let forged = Signature::parse(&forged).unwrap();
        assert!(forged.verify(&public, b"statement\n").is_err());
        assert_eq!(PublicKey::parse(&public.file_text()).unwrap(), public);
        assert!(format!("{key:?}").contains(&public.id.to_string()));
        assert!(!format!("{key:?}").contains(&secret.lines().nth(1).unwrap()[..20]));
    }

    #[test]
    fn encrypted_keys_need_their_password() {
        let (public, secret) = generate(Some("correct horse")).unwrap();
        let file = SecretKeyFile::parse(&secret).unwrap();
        assert!(file.is_encrypted());
        assert_eq!(
            file.unlock(Some("wrong")).unwrap_err(),
            FormatError::WrongPassword
        );
        assert!(matches!(file.unlock(None), Err(FormatError::Password(_))));
        assert_eq!(file.unlock(Some("correct horse")).unwrap().public, public);
    }

    #[test]
    fn truncated_and_malformed_inputs_are_errors() {
        let (public, secret) = generate(None).unwrap();
        let key = SecretKeyFile::parse(&secret).unwrap().unlock(None).unwrap();
        let signature = sign(&key, b"m", "c").unwrap();
        let text = signature.text().to_owned();
        for cut in 0..text.len() {
            if text.is_char_boundary(cut) {
                let _ = Signature::parse(&text[..cut]);
            }
        }
        let lines: Vec<&str> = text.lines().collect();
        let short_global = format!(
            "{}\n{}\n{}\n{}\n",
            lines[0],
            lines[1],
            lines[2],
            &lines[3][..40]
        );
        assert!(matches!(
            Signature::parse(&short_global),
            Err(FormatError::Malformed(_))
        ));
        assert!(PublicKey::parse(&public.base64[..40]).is_err());
        assert!(PublicKey::parse("").is_err());
        assert!(SecretKeyFile::parse(&secret[..secret.len() / 2]).is_err());
        assert!(Signature::parse("").is_err());
    }
}
