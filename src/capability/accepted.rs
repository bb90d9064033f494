//! The grants a project accepted for a squad, as `squads.lock` records them: what the project
//! policy `deny_escalation` compares every later version with, and what `sync --locked` holds
//! the installed bytes to.
//!
//! The record is the squad's total grants (each grant list's union over all nodes, the base
//! roles, whether any node inherits its role's tools) and the SHA-256 of their canonical JSON.
//! Both are kept: the set, so that a review of `squads.lock` shows what was accepted and an
//! update is judged without the old package; the digest, so that a hand edit of the set that
//! does not also recompute it is seen. Neither is evidence of anything by itself: the
//! capabilities of the bytes installed are always derived again and compared.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{GRANT_LISTS, Total};
use crate::digest::Sha256Digest;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accepted {
    /// SHA-256 of the canonical JSON of the three fields below.
    pub sha256: Sha256Digest,
    /// The non-empty grant lists, each the union over all nodes, sorted.
    #[serde(default)]
    pub grants: BTreeMap<String, Vec<String>>,
    pub base_roles: Vec<String>,
    pub inherit_base_tools: bool,
}

/// What a squad holds beyond an accepted set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Widening {
    pub grants_added: BTreeMap<String, Vec<String>>,
    pub base_roles_added: Vec<String>,
    pub inherit_base_tools_gained: bool,
}

impl Widening {
    pub fn is_empty(&self) -> bool {
        self.grants_added.is_empty()
            && self.base_roles_added.is_empty()
            && !self.inherit_base_tools_gained
    }

    /// `built_in_tool_ids +bash; base roles +build; inherit_base_tools turned on`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .grants_added
            .iter()
            .map(|(list, items)| format!("{list} +{}", items.join(", +")))
            .collect();
        if !self.base_roles_added.is_empty() {
            parts.push(format!("base roles +{}", self.base_roles_added.join(", +")));
        }
        if self.inherit_base_tools_gained {
            parts.push("inherit_base_tools turned on".to_owned());
        }
        parts.join("; ")
    }
}

fn digest(
    grants: &BTreeMap<String, Vec<String>>,
    base_roles: &[String],
    inherit_base_tools: bool,
) -> Sha256Digest {
    // serde_json with sorted maps and no whitespace is canonical here: the keys are
    // `BTreeMap`s and struct fields in a fixed order, the values strings, lists and a bool.
    let canonical = serde_json::json!({
        "base_roles": base_roles,
        "grants": grants,
        "inherit_base_tools": inherit_base_tools,
    });
    Sha256Digest::of(
        serde_json::to_string(&canonical)
            .unwrap_or_default()
            .as_bytes(),
    )
}

impl Accepted {
    /// The record of `total`.
    pub fn of(total: &Total) -> Accepted {
        let grants: BTreeMap<String, Vec<String>> = total
            .grants
            .iter()
            .filter(|(_, items)| !items.is_empty())
            .map(|(list, items)| ((*list).to_owned(), items.clone()))
            .collect();
        Accepted {
            sha256: digest(&grants, &total.base_roles, total.inherit_base_tools),
            grants,
            base_roles: total.base_roles.clone(),
            inherit_base_tools: total.inherit_base_tools,
        }
    }

    /// Whether the recorded set is the one its digest names, and names only grant lists.
    pub fn is_consistent(&self) -> bool {
        let known = |list: &String| GRANT_LISTS.iter().any(|kind| kind.field() == list);
        self.grants.keys().all(known)
            && self.sha256 == digest(&self.grants, &self.base_roles, self.inherit_base_tools)
    }

    /// What `total` holds that this accepted set does not (the reference's revision rule).
    pub fn widening(&self, total: &Total) -> Widening {
        let empty = Vec::new();
        let grants_added = total
            .grants
            .iter()
            .filter_map(|(list, items)| {
                let held = self.grants.get(*list).unwrap_or(&empty);
                let added: Vec<String> = items
                    .iter()
                    .filter(|item| !held.contains(item))
                    .cloned()
                    .collect();
                (!added.is_empty()).then(|| ((*list).to_owned(), added))
            })
            .collect();
        Widening {
            grants_added,
            base_roles_added: total
                .base_roles
                .iter()
                .filter(|role| !self.base_roles.contains(role))
                .cloned()
                .collect(),
            inherit_base_tools_gained: !self.inherit_base_tools && total.inherit_base_tools,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(tools: &[&str], roles: &[&str], inherit: bool) -> Total {
        let mut grants: BTreeMap<&'static str, Vec<String>> = GRANT_LISTS
            .iter()
            .map(|kind| (kind.field(), Vec::new()))
            .collect();
        grants.insert(
            "built_in_tool_ids",
            tools.iter().map(|t| (*t).to_owned()).collect(),
        );
        Total {
            grants,
            base_roles: roles.iter().map(|r| (*r).to_owned()).collect(),
            inherit_base_tools: inherit,
            classes: Vec::new(),
        }
    }

    #[test]
    fn an_accepted_set_names_what_a_later_version_adds_and_sees_a_hand_edit() {
        let accepted = Accepted::of(&total(&["read"], &["orchestrator"], false));
        assert!(accepted.is_consistent());
        assert!(
            accepted
                .widening(&total(&["read"], &["orchestrator"], false))
                .is_empty()
        );
        assert!(
            accepted
                .widening(&total(&[], &["orchestrator"], false))
                .is_empty()
        );
        let wider = accepted.widening(&total(&["bash", "read"], &["build", "orchestrator"], true));
        assert_eq!(
            wider.describe(),
            "built_in_tool_ids +bash; base roles +build; inherit_base_tools turned on"
        );
        let mut edited = accepted.clone();
        edited.grants.insert(
            "built_in_tool_ids".into(),
            vec!["bash".into(), "read".into()],
        );
        assert!(!edited.is_consistent());
        let json = serde_json::to_string(&accepted).unwrap();
        assert_eq!(serde_json::from_str::<Accepted>(&json).unwrap(), accepted);
    }
}
