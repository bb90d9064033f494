//! OpenVibe agents.play@1 plays (seed-formats §1): the field table (§1.3) as hand-written
//! schema rules, the semantic rules (§1.4), and conversion to and from squad packages.

pub mod export;
pub mod import;
pub mod model;
#[cfg(test)]
mod tests;

use std::cmp::Ordering;
use std::collections::HashSet;

use serde_json::Value;

use super::Level;
use super::decimal::compare_sum_with_one;
use super::document::{Document, join};
use super::shape::fields::Fields;
use crate::diag::{Code, Diagnostic};

const TOP_LEVEL: [&str; 11] = [
    "id",
    "version",
    "name",
    "summary",
    "roles",
    "phases",
    "checks",
    "stop",
    "budget",
    "visibility",
    "author",
];
const REQUIRED: [&str; 4] = ["id", "name", "roles", "stop"];
const ROLE_KEYS: [&str; 7] = ["id", "name", "does", "model", "agent", "count", "consults"];
const PHASE_KEYS: [&str; 4] = ["id", "name", "roles", "parallel"];
const CHECK_KEYS: [&str; 3] = ["by", "of", "bar"];
pub const MODELS: [&str; 4] = ["small", "strong", "same", "other-family"];
pub const STOP_WHEN: [&str; 4] = ["done", "passes", "rounds", "person"];
const SLUG_PATTERN: &str = "^[a-z][a-z0-9-]{0,60}$";

/// Checks a play at `level` (§1.7): the field table at `schema`, plus §1.4 at `spec`; at
/// `lenient` self-checks, a missing rounds count and unknown top-level fields are warnings.
pub fn check(document: &Document, level: Level, out: &mut Vec<Diagnostic>) {
    let mut fields = Fields::new(document, out);
    let value = &document.value;
    let lenient = level == Level::Lenient;
    let Some(top) = fields.object("", value, &TOP_LEVEL, &REQUIRED, lenient) else {
        return;
    };
    if let Some(id) = top.get("id") {
        slug(&mut fields, "/id", id);
    }
    if let Some(version) = top.get("version") {
        fields.integer("/version", version, 1.0, None);
    }
    if let Some(name) = top.get("name") {
        fields.string("/name", name, 1, Some(120));
    }
    if let Some(summary) = top.get("summary") {
        fields.string("/summary", summary, 1, Some(1000));
    }
    let mut role_ids: Vec<(String, &str)> = Vec::new();
    if let Some(roles) = top
        .get("roles")
        .and_then(|roles| fields.array("/roles", roles, 1, Some(12)))
    {
        for (index, role) in roles.iter().enumerate() {
            let pointer = join("/roles", index);
            if let Some(id) = check_role(&mut fields, &pointer, role, level) {
                role_ids.push((join(&pointer, "id"), id));
            }
        }
    }
    let mut phases_roles: Vec<(String, &str)> = Vec::new();
    let mut phase_ids: Vec<(String, &str)> = Vec::new();
    if let Some(phases) = top
        .get("phases")
        .and_then(|phases| fields.array("/phases", phases, 0, Some(20)))
    {
        for (index, phase) in phases.iter().enumerate() {
            let pointer = join("/phases", index);
            let Some(map) = fields.object(&pointer, phase, &PHASE_KEYS, &["id", "roles"], false)
            else {
                continue;
            };
            if let Some(id) = map
                .get("id")
                .and_then(|id| slug(&mut fields, &join(&pointer, "id"), id))
            {
                phase_ids.push((join(&pointer, "id"), id));
            }
            if let Some(name) = map.get("name") {
                fields.string(&join(&pointer, "name"), name, 1, Some(120));
            }
            if let Some(parallel) = map.get("parallel") {
                fields.boolean(&join(&pointer, "parallel"), parallel);
            }
            if let Some(roles) = map.get("roles") {
                let roles_pointer = join(&pointer, "roles");
                let mut seen = HashSet::new();
                if let Some(items) = fields.array(&roles_pointer, roles, 1, Some(12)) {
                    for (role_index, role) in items.iter().enumerate() {
                        let item_pointer = join(&roles_pointer, role_index);
                        if let Some(role) = slug(&mut fields, &item_pointer, role) {
                            if level != Level::Schema && !seen.insert(role) {
                                let diagnostic = document.at(
                                    Code::PlayPhaseRoleDup,
                                    &item_pointer,
                                    format!("role `{role}` appears twice in this phase"),
                                );
                                fields.push(diagnostic);
                            }
                            phases_roles.push((item_pointer, role));
                        }
                    }
                }
            }
        }
    }
    let mut checks: Vec<(String, Option<&str>, Option<&str>)> = Vec::new();
    if let Some(items) = top
        .get("checks")
        .and_then(|checks| fields.array("/checks", checks, 0, Some(12)))
    {
        for (index, item) in items.iter().enumerate() {
            let pointer = join("/checks", index);
            let Some(map) = fields.object(&pointer, item, &CHECK_KEYS, &["by", "of"], false) else {
                continue;
            };
            let by = map
                .get("by")
                .and_then(|by| slug(&mut fields, &join(&pointer, "by"), by));
            let of = map
                .get("of")
                .and_then(|of| slug(&mut fields, &join(&pointer, "of"), of));
            if let Some(bar) = map.get("bar") {
                fields.string(&join(&pointer, "bar"), bar, 1, Some(2000));
            }
            checks.push((pointer, by, of));
        }
    }
    let mut stop_rounds_missing = false;
    if let Some(stop) = top.get("stop") {
        if let Some(map) = fields.object("/stop", stop, &["when", "rounds"], &["when"], false) {
            let when = map
                .get("when")
                .and_then(|when| fields.one_of("/stop/when", when, &STOP_WHEN));
            if let Some(rounds) = map.get("rounds") {
                fields.integer("/stop/rounds", rounds, 1.0, Some(20.0));
            } else if when == Some("rounds") {
                stop_rounds_missing = true;
            }
        }
    }
    let mut split: Vec<(String, &str, &Value)> = Vec::new();
    if let Some(budget) = top.get("budget") {
        if let Some(map) = fields.object("/budget", budget, &["split"], &[], false) {
            if let Some(shares) = map.get("split") {
                match shares {
                    Value::Object(shares) => {
                        for (role, share) in shares {
                            split.push((join("/budget/split", role), role, share));
                        }
                    }
                    other => {
                        fields.object("/budget/split", other, &[], &[], false);
                    }
                }
            }
        }
    }
    if let Some(visibility) = top.get("visibility") {
        fields.one_of("/visibility", visibility, &["private", "public"]);
    }
    if let Some(author) = top.get("author") {
        if let Some(map) = fields.object("/author", author, &["type", "id"], &["type", "id"], false)
        {
            if let Some(kind) = map.get("type") {
                fields.one_of("/author/type", kind, &["user", "agent", "service"]);
            }
            if let Some(id) = map.get("id") {
                fields.string("/author/id", id, 1, Some(160));
            }
        }
    }
    if level == Level::Schema {
        return;
    }
    // §1.4: the rules the field table does not state.
    let mut roles = HashSet::new();
    for (pointer, id) in &role_ids {
        if !roles.insert(*id) {
            out.push(document.at(
                Code::PlayRoleDup,
                pointer,
                format!("role id `{id}` is declared twice"),
            ));
        }
    }
    let mut phases = HashSet::new();
    for (pointer, id) in &phase_ids {
        if !phases.insert(*id) {
            out.push(document.at(
                Code::PlayPhaseDup,
                pointer,
                format!("phase id `{id}` is declared twice"),
            ));
        }
    }
    let declared = declared_list(&role_ids);
    for (pointer, role) in &phases_roles {
        if !roles.contains(role) {
            out.push(
                document
                    .at(
                        Code::PlayPhaseRole,
                        pointer,
                        format!("phase names role `{role}`, which the play does not declare"),
                    )
                    .help(declared.clone()),
            );
        }
    }
    for (pointer, by, of) in &checks {
        if let Some(by) = by.filter(|by| !roles.contains(by)) {
            out.push(
                document
                    .at(
                        Code::PlayCheckBy,
                        &join(pointer, "by"),
                        format!("checker `{by}` is not a role of the play"),
                    )
                    .help(declared.clone()),
            );
        }
        if let Some(of) = of.filter(|of| !roles.contains(of)) {
            out.push(
                document
                    .at(
                        Code::PlayCheckOf,
                        &join(pointer, "of"),
                        format!("checked role `{of}` is not a role of the play"),
                    )
                    .help(declared.clone()),
            );
        }
        if let (Some(by), Some(of)) = (by, of)
            && by == of
        {
            let mut diagnostic = document
                .at(
                    Code::PlayCheckSelf,
                    pointer,
                    format!("role `{by}` checks its own work"),
                )
                .help("a check names who checks whose work: let another role check it");
            if lenient {
                diagnostic = diagnostic.as_warning();
            }
            out.push(diagnostic);
        }
    }
    if stop_rounds_missing {
        out.push(
            document
                .at(
                    Code::PlayStopRounds,
                    "/stop",
                    "stop.when is `rounds` but nothing says how many rounds",
                )
                .help("add `\"rounds\": N` (1-20)"),
        );
    }
    check_split(document, &split, &roles, &declared, out);
}

fn check_role<'v>(
    fields: &mut Fields,
    pointer: &str,
    role: &'v Value,
    level: Level,
) -> Option<&'v str> {
    let map = fields.object(pointer, role, &ROLE_KEYS, &["id", "does"], false)?;
    let id = map
        .get("id")
        .and_then(|id| slug(fields, &join(pointer, "id"), id));
    if let Some(name) = map.get("name") {
        fields.string(&join(pointer, "name"), name, 1, Some(80));
    }
    if let Some(does) = map.get("does") {
        fields.string(&join(pointer, "does"), does, 1, Some(2000));
    }
    if let Some(model) = map.get("model") {
        fields.one_of(&join(pointer, "model"), model, &MODELS);
    }
    if let Some(agent) = map.get("agent") {
        fields.string(&join(pointer, "agent"), agent, 1, Some(160));
    }
    if let Some(consults) = map.get("consults") {
        fields.integer(&join(pointer, "consults"), consults, 0.0, Some(50.0));
    }
    if let Some(count) = map.get("count") {
        let count_pointer = join(pointer, "count");
        if let Some(count) = fields.object(&count_pointer, count, &["min", "max"], &[], false) {
            let min = count
                .get("min")
                .and_then(|min| fields.integer(&join(&count_pointer, "min"), min, 1.0, Some(64.0)));
            let max = count
                .get("max")
                .and_then(|max| fields.integer(&join(&count_pointer, "max"), max, 1.0, Some(64.0)));
            if let (Some(min), Some(max)) = (min, max)
                && level != Level::Schema
                && min > max
            {
                let diagnostic = fields.doc.at(
                    Code::PlayCount,
                    &count_pointer,
                    format!("count.min ({min}) is greater than count.max ({max})"),
                );
                fields.push(diagnostic);
            }
        }
    }
    id
}

/// P-SPLIT-ROLE, P-SPLIT-NUM and P-SPLIT-SUM, the sum computed exactly in decimal.
fn check_split(
    document: &Document,
    split: &[(String, &str, &Value)],
    roles: &HashSet<&str>,
    declared: &str,
    out: &mut Vec<Diagnostic>,
) {
    let mut texts = Vec::new();
    for (pointer, role, share) in split {
        if !roles.contains(role) {
            out.push(
                document
                    .at(Code::PlaySplitRole, pointer, format!("budget.split gives a share to `{role}`, which is not a role of the play"))
                    .help(declared.to_owned()),
            );
        }
        // Judged on the source text, exactly: `1e400` is a number (too large for a double,
        // so the parsed value holds none), and -0 is a share of nothing, like 0.
        match document.number_text(pointer) {
            Some(text) if !is_negative(text) => texts.push(text),
            found => out.push(document.at(
                Code::PlaySplitNum,
                pointer,
                format!(
                    "the share of `{role}` must be a number >= 0, found {}",
                    found.map_or_else(|| super::shape::compact(share), str::to_owned)
                ),
            )),
        }
    }
    if compare_sum_with_one(&texts) == Some(Ordering::Greater) {
        out.push(
            document
                .at(
                    Code::PlaySplitSum,
                    "/budget/split",
                    format!(
                        "the budget shares add up to more than 1 ({})",
                        texts.join(" + ")
                    ),
                )
                .help(
                    "each share is a slice of the parent's budget: make them add up to at most 1",
                ),
        );
    }
}

/// Whether a JSON number's text is below zero: a minus sign and a digit other than 0 before
/// the exponent (`-0`, `-0.0e5` are zero).
fn is_negative(number: &str) -> bool {
    number.starts_with('-')
        && number
            .split(['e', 'E'])
            .next()
            .unwrap_or_default()
            .bytes()
            .any(|b| (b'1'..=b'9').contains(&b))
}

fn slug<'v>(fields: &mut Fields, pointer: &str, value: &'v Value) -> Option<&'v str> {
    let text = fields.string(pointer, value, 0, None)?;
    if is_slug(text) {
        Some(text)
    } else {
        fields.pattern(pointer, SLUG_PATTERN, text);
        None
    }
}

fn declared_list(role_ids: &[(String, &str)]) -> String {
    let mut names: Vec<&str> = role_ids.iter().map(|(_, id)| *id).collect();
    names.dedup();
    if names.is_empty() {
        "the play declares no valid role".to_owned()
    } else {
        format!("the play's roles: {}", names.join(", "))
    }
}

/// The play slug `^[a-z][a-z0-9-]{0,60}$`.
pub fn is_slug(text: &str) -> bool {
    let bytes = text.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 61
        && bytes[0].is_ascii_lowercase()
        && bytes[1..]
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
}

#[cfg(test)]
mod slug_tests {
    use super::is_slug;

    #[test]
    fn slugs_follow_the_play_pattern() {
        for good in ["a", "a-", "a--b", "a1", &"a".repeat(61)] {
            assert!(is_slug(good), "{good}");
        }
        for bad in ["", "1a", "A", "a_b", &"a".repeat(62), "é"] {
            assert!(!is_slug(bad), "{bad}");
        }
    }
}
