//! A project's signature policy, from `squads.jsonc`: which public keys are trusted for which
//! namespaces (`"*"` for all), until when, which are revoked, and whether every squad must be
//! signed. Deciding is one function, [`Policy::check`], used by `sync`, `add` and `install`.

use crate::version::Date;

use super::minisig::{FormatError, KeyId, PublicKey, Signature};
use super::statement::Statement;

/// The namespace key that trusts a key for every namespace.
pub const ANY_NAMESPACE: &str = "*";

/// One trusted key.
#[derive(Debug, Clone, PartialEq)]
pub struct Trusted {
    pub key: PublicKey,
    /// A namespace, or [`ANY_NAMESPACE`].
    pub namespace: String,
    /// The last day (UTC) signatures by this key are accepted.
    pub expires: Option<Date>,
}

impl Trusted {
    fn covers(&self, namespace: &str) -> bool {
        self.namespace == ANY_NAMESPACE || self.namespace == namespace
    }
}

/// What `squads.jsonc` says about signatures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    pub require_signatures: bool,
    pub trusted: Vec<Trusted>,
    /// Keys refused whatever `trust` says.
    pub revoked: Vec<KeyId>,
}

/// Why a squad's signatures were refused. Each names the key ids found and the keys expected.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    Unsigned {
        expected: Vec<KeyId>,
    },
    /// Signatures were found; none was made by a usable key over this squad's statement.
    Refused {
        /// One line per signature: its key id (when readable) and why it was refused.
        reasons: Vec<(Option<KeyId>, String)>,
        expected: Vec<KeyId>,
    },
}

fn list(keys: &[KeyId]) -> String {
    if keys.is_empty() {
        return "none".to_owned();
    }
    keys.iter()
        .map(KeyId::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Refusal {
    /// The key ids found, in order.
    pub fn found(&self) -> Vec<KeyId> {
        match self {
            Refusal::Unsigned { .. } => Vec::new(),
            Refusal::Refused { reasons, .. } => reasons.iter().filter_map(|(id, _)| *id).collect(),
        }
    }

    pub fn expected(&self) -> &[KeyId] {
        match self {
            Refusal::Unsigned { expected } | Refusal::Refused { expected, .. } => expected,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Unsigned { expected } => write!(
                f,
                "it is not signed, and the project requires signatures (keys expected: {})",
                list(expected)
            ),
            Refusal::Refused { reasons, expected } => {
                let found: Vec<String> = reasons
                    .iter()
                    .map(|(id, reason)| match id {
                        Some(id) => format!("key {id}: {reason}"),
                        None => reason.clone(),
                    })
                    .collect();
                write!(
                    f,
                    "no signature is acceptable ({}); keys expected: {}",
                    found.join("; "),
                    list(expected)
                )
            }
        }
    }
}

impl Policy {
    /// Whether the policy asks anything of a squad.
    pub fn applies(&self) -> bool {
        self.require_signatures
    }

    /// The ids of the keys trusted for `namespace` today (not revoked, not expired).
    pub fn expected(&self, namespace: &str, today: Date) -> Vec<KeyId> {
        let mut ids: Vec<KeyId> = self
            .trusted
            .iter()
            .filter(|trusted| trusted.covers(namespace))
            .filter(|trusted| trusted.expires.is_none_or(|last| today <= last))
            .map(|trusted| trusted.key.id)
            .filter(|id| !self.revoked.contains(id))
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// Whether `key_id` (recorded in the lock when a signature verified) is still trusted for
    /// `namespace` today.
    pub fn still_trusts(&self, namespace: &str, key_id: KeyId, today: Date) -> Result<(), String> {
        self.judge_key(namespace, key_id, today).map(|_| ())
    }

    /// The trusted key `key_id` for `namespace`, or why there is none.
    fn judge_key(&self, namespace: &str, key_id: KeyId, today: Date) -> Result<&PublicKey, String> {
        if self.revoked.contains(&key_id) {
            return Err("the key is revoked (`revoked` in squads.jsonc)".to_owned());
        }
        let candidates: Vec<&Trusted> = self
            .trusted
            .iter()
            .filter(|trusted| trusted.key.id == key_id && trusted.covers(namespace))
            .collect();
        if candidates.is_empty() {
            return Err(format!(
                "the key is not trusted for the namespace `{namespace}`"
            ));
        }
        match candidates
            .iter()
            .find(|trusted| trusted.expires.is_none_or(|last| today <= last))
        {
            Some(trusted) => Ok(&trusted.key),
            None => {
                let last = candidates
                    .iter()
                    .filter_map(|trusted| trusted.expires)
                    .max();
                Err(format!(
                    "the key expired: trusted until {} (today is {today})",
                    last.map_or("?".to_owned(), |last| last.to_string())
                ))
            }
        }
    }

    /// Decides on a squad's signatures (the `.minisig` texts found for it): the id of the key
    /// whose signature over `statement` verified, or why none did.
    pub fn check(
        &self,
        statement: &Statement,
        signatures: &[String],
        today: Date,
    ) -> Result<KeyId, Refusal> {
        let expected = self.expected(&statement.namespace, today);
        if signatures.is_empty() {
            return Err(Refusal::Unsigned { expected });
        }
        let message = statement.text();
        let mut reasons = Vec::new();
        for text in signatures {
            match verify_one(self, statement, &message, text, today) {
                Ok(id) => return Ok(id),
                Err(reason) => reasons.push(reason),
            }
        }
        Err(Refusal::Refused { reasons, expected })
    }
}

fn verify_one(
    policy: &Policy,
    statement: &Statement,
    message: &str,
    text: &str,
    today: Date,
) -> Result<KeyId, (Option<KeyId>, String)> {
    let signature = Signature::parse(text)
        .map_err(|error| (None, format!("a signature cannot be read: {error}")))?;
    let id = signature.key_id;
    let key = policy
        .judge_key(&statement.namespace, id, today)
        .map_err(|reason| (Some(id), reason))?;
    signature
        .verify(key, message.as_bytes())
        .map_err(|error| match error {
            FormatError::Mismatch(_) => (
                Some(id),
                format!(
                    "the signature is not over this squad's statement ({} with package digest {})",
                    statement.identity(),
                    statement.package_digest
                ),
            ),
            other => (Some(id), other.to_string()),
        })?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::Sha256Digest;
    use crate::sign::minisig::{SecretKeyFile, generate, sign};

    fn statement(digest: &str) -> Statement {
        Statement {
            namespace: "acme".to_owned(),
            id: "review".to_owned(),
            version: "2026.12.01.1".to_owned(),
            package_digest: Sha256Digest::parse(&digest.repeat(32)).unwrap(),
        }
    }

    fn date(text: &str) -> Date {
        Date::parse(text).unwrap()
    }

    #[test]
    fn every_refusal_names_the_key_found_and_the_keys_expected() {
        let (public, secret) = generate(None).unwrap();
        let key = SecretKeyFile::parse(&secret).unwrap().unlock(None).unwrap();
        let (stranger, _) = generate(None).unwrap();
        let good = sign(&key, statement("ab").text().as_bytes(), "c")
            .unwrap()
            .text()
            .to_owned();
        let other_digest = sign(&key, statement("cd").text().as_bytes(), "c")
            .unwrap()
            .text()
            .to_owned();
        let trusted = |namespace: &str, expires: Option<&str>| Trusted {
            key: public.clone(),
            namespace: namespace.to_owned(),
            expires: expires.map(date),
        };
        let today = date("2026-12-02");
        let policy = Policy {
            require_signatures: true,
            trusted: vec![
                trusted("acme", None),
                Trusted {
                    key: stranger.clone(),
                    namespace: "other".to_owned(),
                    expires: None,
                },
            ],
            revoked: Vec::new(),
        };
        let ab = statement("ab");
        assert_eq!(
            policy.check(&ab, std::slice::from_ref(&good), today),
            Ok(public.id)
        );
        assert_eq!(
            policy.check(&ab, &["junk".to_owned(), good.clone()], today),
            Ok(public.id)
        );
        let unsigned = policy.check(&ab, &[], today).unwrap_err();
        assert!(
            unsigned.to_string().contains(&public.id.to_string()),
            "{unsigned}"
        );
        let digest = policy.check(&ab, &[other_digest], today).unwrap_err();
        assert_eq!(digest.found(), [public.id]);
        assert!(
            digest
                .to_string()
                .contains("not over this squad's statement"),
            "{digest}"
        );
        let wrong_namespace = Policy {
            trusted: vec![trusted("beta", None)],
            ..policy.clone()
        };
        let refusal = wrong_namespace
            .check(&ab, std::slice::from_ref(&good), today)
            .unwrap_err();
        assert!(
            refusal
                .to_string()
                .contains("not trusted for the namespace `acme`")
        );
        assert!(
            refusal.to_string().ends_with("keys expected: none"),
            "{refusal}"
        );
        let everywhere = Policy {
            trusted: vec![trusted("*", None)],
            ..policy.clone()
        };
        assert!(
            everywhere
                .check(&ab, std::slice::from_ref(&good), today)
                .is_ok()
        );
        let expired = Policy {
            trusted: vec![trusted("acme", Some("2026-12-01"))],
            ..policy.clone()
        };
        let refusal = expired
            .check(&ab, std::slice::from_ref(&good), today)
            .unwrap_err();
        assert!(
            refusal
                .to_string()
                .contains("expired: trusted until 2026-12-01"),
            "{refusal}"
        );
        assert!(
            expired
                .check(&ab, std::slice::from_ref(&good), date("2026-12-01"))
                .is_ok()
        );
        let revoked = Policy {
            revoked: vec![public.id],
            ..policy.clone()
        };
        let refusal = revoked
            .check(&ab, std::slice::from_ref(&good), today)
            .unwrap_err();
        assert!(refusal.to_string().contains("revoked"), "{refusal}");
        assert!(revoked.still_trusts("acme", public.id, today).is_err());
        assert!(policy.still_trusts("acme", public.id, today).is_ok());
        assert!(policy.still_trusts("other", public.id, today).is_err());
    }
}
