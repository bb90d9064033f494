//! Open Floor's own handling of findings in nested documents (an utterance carries a dialog
//! event, publishManifests carries manifests): they are re-coded under the rule that nests them
//! (O-UTTERANCE-DE, …), and the official samples' known drift is downgraded.

use crate::diag::Code;
use crate::interop::shape::Finding;

impl Finding {
    /// A finding inside a nested document, reported under the rule that nests it (`code`); the
    /// inner rule stays in the message and the keyword is kept. It is an error, except for the
    /// deviations the official samples themselves carry (see `is_sample_drift`):
    /// seed-formats §3.6 records that every official sample passes `spec`, so those few are
    /// warnings and nothing else is.
    pub fn nested_under(self, code: Code, what: &str) -> Self {
        let inner = self.code.as_str();
        let warning = self.warning || self.is_sample_drift();
        Finding {
            code,
            message: format!("{what}: {} [{inner}]", self.message),
            warning,
            ..self
        }
    }

    /// What the official envelope samples do inside nested documents: utterance dialog events
    /// without `id` (example-getManifests2, example-getManifests3, example-grantFloor), and
    /// published manifests whose `supportedLayers` is a list, or whose identification lacks
    /// `organization` or `conversationalName` (example-publishManifests).
    fn is_sample_drift(&self) -> bool {
        let missing = |names: &[&str]| {
            self.keyword == Some("required")
                && self
                    .missing
                    .as_deref()
                    .is_some_and(|member| names.contains(&member))
        };
        missing(&["id"]) && !self.pointer.ends_with("/identification")
            || missing(&["organization", "conversationalName"])
                && self.pointer.ends_with("/identification")
            || self.keyword == Some("type") && self.pointer.ends_with("/supportedLayers")
    }
}
