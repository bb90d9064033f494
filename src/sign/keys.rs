//! Key and signature files as the commands read them: bounded, UTF-8, parsed strictly; a
//! public key given as a file or as its `RW…` text; a secret key unlocked with a password read
//! from standard input or asked on the terminal, never echoed and never printed.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::minisig::{FormatError, MAX_FILE_BYTES, PublicKey, SecretKey, SecretKeyFile};

/// Why a key, a signature or a password could not be had.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("cannot read `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    #[error("`{}` is {size} bytes: not a minisign key or signature", path.display())]
    TooLarge { path: PathBuf, size: u64 },
    #[error("`{}` is not UTF-8 text", .0.display())]
    NotText(PathBuf),
    /// A file that is not the key it should be.
    #[error("`{shown}` is not a minisign {what}: {error}")]
    Malformed {
        shown: String,
        what: &'static str,
        error: FormatError,
    },
    /// Neither a readable file nor the text of a public key.
    #[error("`{given}` is neither a public key file nor a minisign public key: {error}")]
    NotAKey {
        given: String,
        error: FormatError,
        /// It looks like a key's text (`RW…`): a malformed key, not a missing file.
        looks_like_key: bool,
    },
    #[error("{0}")]
    Password(String),
    #[error("`{}`: {error}", path.display())]
    Unlock { path: PathBuf, error: FormatError },
}

impl KeyError {
    /// Malformed keys and wrong passwords are refusals; a file or a terminal that cannot be
    /// read is not.
    pub fn class(&self) -> crate::error::Class {
        use crate::error::Class;
        match self {
            KeyError::Malformed { .. } | KeyError::Unlock { .. } => Class::Refused,
            KeyError::NotAKey { looks_like_key, .. } if *looks_like_key => Class::Refused,
            _ => Class::Failed,
        }
    }

    pub fn hint(&self) -> Option<&'static str> {
        match self {
            KeyError::Malformed {
                what: "secret key", ..
            } => Some("`squad key generate` makes one; `minisign -G` keys work too"),
            KeyError::Unlock {
                error: FormatError::WrongPassword,
                ..
            } => Some("the password is the one given to `squad key generate` (or `minisign -G`)"),
            _ => None,
        }
    }
}

/// A key or signature file's text, bounded.
pub fn read_small(path: &Path) -> Result<String, KeyError> {
    let metadata =
        crate::fs::metadata(path).map_err(|error| KeyError::Io(path.to_path_buf(), error))?;
    if metadata.len() > MAX_FILE_BYTES as u64 {
        return Err(KeyError::TooLarge {
            path: path.to_path_buf(),
            size: metadata.len(),
        });
    }
    let bytes = crate::fs::read(path).map_err(|error| KeyError::Io(path.to_path_buf(), error))?;
    String::from_utf8(bytes).map_err(|_| KeyError::NotText(path.to_path_buf()))
}

/// A public key given as a `.pub` file or as its `RW…` text.
pub fn public_key(given: &str) -> Result<PublicKey, KeyError> {
    let path = Path::new(given);
    if path.is_file() {
        let text = read_small(path)?;
        return PublicKey::parse(&text).map_err(|error| KeyError::Malformed {
            shown: given.to_owned(),
            what: "public key",
            error,
        });
    }
    PublicKey::parse(given).map_err(|error| KeyError::NotAKey {
        given: given.to_owned(),
        error,
        looks_like_key: given.starts_with("RW") || given.contains('\n'),
    })
}

/// A password: the first line of standard input, or asked on the terminal (twice when
/// `confirm`). Never echoed, never printed.
pub fn password(from_stdin: bool, prompt: &str, confirm: bool) -> Result<String, KeyError> {
    if from_stdin {
        let mut text = String::new();
        std::io::stdin()
            .take(4096)
            .read_to_string(&mut text)
            .map_err(|error| {
                KeyError::Password(format!(
                    "cannot read the password from standard input: {error}"
                ))
            })?;
        return Ok(text.lines().next().unwrap_or_default().to_owned());
    }
    let ask = |prompt: &str| {
        rpassword::prompt_password(prompt).map_err(|error| {
            KeyError::Password(format!(
                "cannot ask for the password on the terminal ({error}); pass --password-stdin"
            ))
        })
    };
    let first = ask(prompt)?;
    if confirm && ask("Password (again): ")? != first {
        return Err(KeyError::Password(
            "the two passwords differ; nothing was written".to_owned(),
        ));
    }
    Ok(first)
}

/// Reads a secret key file and unlocks it (asking for its password when it has one).
pub fn unlock(path: &Path, password_stdin: bool) -> Result<SecretKey, KeyError> {
    let shown = path.display();
    let text = read_small(path)?;
    let file = SecretKeyFile::parse(&text).map_err(|error| KeyError::Malformed {
        shown: shown.to_string(),
        what: "secret key",
        error,
    })?;
    let password = match file.is_encrypted() {
        true => Some(password(
            password_stdin,
            &format!("Password for {shown}: "),
            false,
        )?),
        false => None,
    };
    file.unlock(password.as_deref())
        .map_err(|error| KeyError::Unlock {
            path: path.to_path_buf(),
            error,
        })
}
