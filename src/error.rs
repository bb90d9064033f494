//! What the library's errors share: their [`Class`], which the exit status follows, and the
//! chain of causes as one line, for the places that keep an error as text (JSON output, a
//! squad's failure in a project run) rather than printing it with its `caused by:` lines.

use std::error::Error;

/// What a failure means to whoever ran the command. Each error type says which of its cases is
/// which (`class()`), so every command exits alike for the same failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The input was refused: an invalid package, a conflict, a limit, content a server sent
    /// that is not what it should be (exit 1).
    Refused,
    /// The command could not do its job: usage, the disk, the network (exit 2).
    Failed,
}

/// `error: cause: cause's cause`, the message of each error in the source chain.
pub fn chain(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The messages of an error's causes, outermost first (its own message left out).
pub fn causes(error: &(dyn Error + 'static)) -> Vec<String> {
    let mut causes = Vec::new();
    let mut source = error.source();
    while let Some(cause) = source {
        causes.push(cause.to_string());
        source = cause.source();
    }
    causes
}

/// A message about one source or squad, named first: `label: message`, unless the message
/// names it first already (a transport error names its URL). Every command that reports a
/// squad it could not bring in says it this way, so the same problem reads the same.
pub fn labelled(label: &str, message: &str) -> String {
    if label.is_empty() || message.starts_with(label) {
        message.to_owned()
    } else {
        format!("{label}: {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_joins_every_cause() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot write or read `out.zip`")]
        struct Outer(#[source] std::io::Error);
        let error = Outer(std::io::Error::other("disk full"));
        assert_eq!(chain(&error), "cannot write or read `out.zip`: disk full");
    }
}
