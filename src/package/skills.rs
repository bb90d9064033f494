//! Package skills (SKL-1…SKL-4): which directories are skills, what their closures hold, and
//! the frontmatter of each `SKILL.md`.

use std::collections::HashSet;

use super::frontmatter;
use super::yaml::Value;
use super::{Context, Owner};
use crate::diag::{Code, Diagnostic};
use crate::source::SourceFile;
use crate::tables::{CORE_TOOL_IDS, DEFAULT_HOST_TOOLS};
use crate::text::js_trim;

/// A discovered skill.
#[derive(Debug, Clone)]
pub struct Skill {
    /// `<id>/<owner>/<path below skills/>`.
    pub reference: String,
    pub owner: Owner,
    /// Path of `SKILL.md`.
    pub skill_md: String,
    /// The frontmatter `name`, when valid.
    pub name: Option<String>,
}

/// Discovers the skills under `skills_root` (`skills` or `agents/<a>/skills`).
pub fn discover(context: &mut Context, skills_root: &str, owner: &Owner, id: &str) -> Vec<Skill> {
    let files: Vec<String> = context
        .tree
        .files_under(skills_root)
        .map(|entry| entry.path.clone())
        .collect();
    let skill_directories: HashSet<&str> = files
        .iter()
        .filter_map(|path| path.strip_suffix("/SKILL.md"))
        .filter(|directory| *directory != skills_root)
        .collect();
    let mut skills = Vec::new();
    for path in &files {
        let relative = &path[skills_root.len() + 1..];
        let closure = shallowest_skill(skills_root, relative, &skill_directories);
        let Some(directory) = closure else {
            let message = if relative == "SKILL.md" {
                "SKILL.md must live inside a named skill directory"
            } else {
                "unexpected file outside a named skill directory"
            };
            context.diagnostics.push(
                Diagnostic::new(Code::SkillLayout, path, message).help(format!(
                    "put each skill in its own directory, e.g. `{skills_root}/<skill>/SKILL.md`, and supporting files beside it"
                )),
            );
            continue;
        };
        let inside = &path[directory.len() + 1..];
        if inside == "SKILL.md" {
            let reference = format!(
                "{id}/{}/{}",
                owner.segment(),
                &directory[skills_root.len() + 1..]
            );
            let name = check_skill_md(context, path, &reference);
            skills.push(Skill {
                reference,
                owner: owner.clone(),
                skill_md: path.clone(),
                name,
            });
            continue;
        }
        let last = inside.rsplit('/').next().unwrap_or(inside);
        if is_model_text(last) {
            context.keep_quietly(path);
        }
        if last.eq_ignore_ascii_case("skill.md") {
            context.diagnostics.push(
                Diagnostic::new(
                    Code::NestedSkillMd,
                    path,
                    format!("nested SKILL.md `{inside}` is not allowed in skill `{directory}`"),
                )
                .help("a skill's closure holds one SKILL.md, at its top; rename this file"),
            );
        }
        if js_trim(inside) != inside {
            context.diagnostics.push(Diagnostic::new(
                Code::SkillUnsafePath,
                path,
                format!("skill file path `{inside}` starts or ends with whitespace"),
            ));
        }
        // SKL-2's other unsafe characters: a separator on Windows, a drive or stream there.
        if let Some(character) = inside.chars().find(|c| matches!(c, '\\' | ':')) {
            context.diagnostics.push(
                Diagnostic::new(
                    Code::SkillUnsafePath,
                    path,
                    format!("skill file path `{inside}` contains `{character}`"),
                )
                .help(
                    "the reference refuses `\\` and `:` in a skill's file paths; rename the file",
                ),
            );
        }
    }
    skills
}

/// The extensions of a skill's files that a model reads as text (references, examples,
/// templates): kept for the audit. Scripts and data of other kinds are not prompts.
const MODEL_TEXT_EXTENSIONS: [&str; 16] = [
    "md", "markdown", "mdx", "txt", "text", "rst", "adoc", "html", "htm", "xml", "yaml", "yml",
    "json", "jsonc", "csv", "tsv",
];

fn is_model_text(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(_, extension)| {
        MODEL_TEXT_EXTENSIONS
            .iter()
            .any(|known| extension.eq_ignore_ascii_case(known))
    })
}

/// The skill directory whose closure holds `relative` (a path below `skills_root`).
fn shallowest_skill<'a>(
    skills_root: &str,
    relative: &str,
    skill_directories: &HashSet<&'a str>,
) -> Option<&'a str> {
    let mut end = 0;
    while let Some(slash) = relative[end..].find('/') {
        end += slash;
        let candidate = format!("{skills_root}/{}", &relative[..end]);
        if let Some(found) = skill_directories.get(candidate.as_str()) {
            return Some(found);
        }
        end += 1;
    }
    None
}

/// SKL-3 and SKL-4. Returns the frontmatter `name` when the frontmatter is valid.
fn check_skill_md(context: &mut Context, path: &str, reference: &str) -> Option<String> {
    let bytes = context.read(path)?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let offset = error.utf8_error().valid_up_to();
            context.diagnostics.push(
                Diagnostic::new(Code::SkillNotUtf8, path, "SKILL.md must be UTF-8 text")
                    .help(format!("invalid UTF-8 at byte offset {offset}")),
            );
            return None;
        }
    };
    let source = SourceFile::new(text);
    let (name, problems) = match frontmatter_name(&source.text) {
        Ok(name) => (Some(name), Vec::new()),
        Err(problems) => (None, problems),
    };
    // The folder is the name a skill most likely means.
    let folder = path
        .strip_suffix("/SKILL.md")
        .and_then(|directory| directory.rsplit('/').next())
        .unwrap_or("my-skill");
    for problem in problems {
        let help = match problem.help {
            Some(Help::Block) => Some(frontmatter_help(folder)),
            Some(Help::Name) => Some(format!(
                "add `name: {folder}` to the frontmatter: a skill is usually named after its folder"
            )),
            None => None,
        };
        let mut diagnostic = Diagnostic::new(
            Code::SkillFrontmatter,
            path,
            format!(
                "package skill `{reference}`: invalid frontmatter: {}",
                problem.message
            ),
        )
        .span(problem.span);
        if let Some(help) = help {
            diagnostic = diagnostic.help(help);
        }
        context.diagnostics.push(diagnostic);
    }
    context.sources.insert(path.to_owned(), source);
    name
}

struct Problem {
    message: String,
    span: std::ops::Range<usize>,
    help: Option<Help>,
}

/// The help a frontmatter problem gets, once the skill's folder is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Help {
    /// What a frontmatter block looks like.
    Block,
    /// The missing `name`.
    Name,
}

fn frontmatter_help(folder: &str) -> String {
    format!(
        "SKILL.md starts with a YAML block:\n---\nname: {folder}\ndescription: When to use this skill\n---"
    )
}

/// The skill's frontmatter `name`, or every problem of its frontmatter (SKL-4), from one parse.
fn frontmatter_name(text: &str) -> Result<String, Vec<Problem>> {
    let Some(block) = frontmatter::split(text) else {
        return Err(vec![Problem {
            message: "name: required (SKILL.md has no frontmatter)".to_owned(),
            span: 0..text.lines().next().map_or(0, str::len),
            help: Some(Help::Block),
        }]);
    };
    let opening_start = block.matter_offset.saturating_sub(3 + block.language.len());
    let opening = opening_start..block.matter_offset;
    if block.is_empty {
        return Err(vec![Problem {
            message: "name: required (the frontmatter is empty)".to_owned(),
            span: opening,
            help: Some(Help::Block),
        }]);
    }
    let data = match block.data() {
        Ok(data) => data,
        Err(error) => {
            let end = (error.offset + 1).min(text.len()).max(error.offset);
            return Err(vec![Problem {
                message: error.message,
                span: error.offset..end,
                help: None,
            }]);
        }
    };
    let key_span = |key: &str| -> std::ops::Range<usize> {
        let mut offset = block.matter_offset;
        for line in block.matter.split_inclusive('\n') {
            if line.starts_with(key) && line[key.len()..].trim_start().starts_with(':') {
                return offset..offset + key.len();
            }
            offset += line.len();
        }
        opening.clone()
    };
    if !matches!(data, Value::Mapping(_)) {
        return Err(vec![Problem {
            message: format!("expected a YAML mapping, found {}", data.type_name()),
            span: opening,
            help: Some(Help::Block),
        }]);
    }
    let get = |key: &str| data.get(key);
    let mut problems = Vec::new();
    let mut problem = |key: &str, message: String| {
        problems.push(Problem {
            message: format!("{key}: {message}"),
            span: key_span(key),
            help: None,
        });
    };
    let expected =
        |wanted: &str, found: &Value| format!("expected {wanted}, found {}", found.type_name());
    match get("name") {
        None => problem("name", "required".to_owned()),
        Some(Value::String(name)) => {
            if name.is_empty() {
                problem("name", "must not be empty".to_owned());
            } else if name.contains(['/', '\\', '\r', '\n']) {
                problem(
                    "name",
                    "must not contain `/`, `\\` or line breaks".to_owned(),
                );
            } else if js_trim(name) != name {
                problem("name", "must not start or end with whitespace".to_owned());
            }
        }
        Some(other) => problem("name", expected("string", other)),
    }
    match get("description") {
        None => problem("description", "required".to_owned()),
        Some(Value::String(text)) if js_trim(text).is_empty() => {
            problem("description", "must not be blank".to_owned());
        }
        Some(Value::String(_)) => {}
        Some(other) => problem("description", expected("string", other)),
    }
    if let Some(value) = get("aliases") {
        match value {
            Value::Sequence(items) => {
                if items
                    .iter()
                    .any(|item| !matches!(item, Value::String(text) if !js_trim(text).is_empty()))
                {
                    problem(
                        "aliases",
                        "every alias must be a non-blank string".to_owned(),
                    );
                }
            }
            other => problem("aliases", expected("array", other)),
        }
    }
    if let Some(value) = get("license") {
        if !matches!(value, Value::String(_)) {
            problem("license", expected("string", value));
        }
    }
    if let Some(value) = get("compatibility") {
        match value {
            Value::String(text) => {
                let length = text.encode_utf16().count();
                if !(1..=500).contains(&length) {
                    problem("compatibility", "must be 1 to 500 characters".to_owned());
                }
            }
            other => problem("compatibility", expected("string", other)),
        }
    }
    if let Some(value) = get("metadata") {
        if !matches!(value, Value::Mapping(_)) {
            problem("metadata", expected("object", value));
        }
    }
    if let Some(value) = get("platforms") {
        match value {
            Value::Sequence(items) => {
                if items
                    .iter()
                    .any(|item| !matches!(item.as_str(), Some("windows" | "macos" | "linux")))
                {
                    problem(
                        "platforms",
                        "each platform is `windows`, `macos` or `linux`".to_owned(),
                    );
                }
            }
            other => problem("platforms", expected("array", other)),
        }
    }
    if let Some(value) = get("auto_detect") {
        if let Some(message) = auto_detect_problem(value) {
            problem("auto_detect", message);
        }
    }
    if let Some(value) = get("priority") {
        match value {
            Value::Number(number) if number.is_finite() => {}
            Value::Number(_) => problem("priority", "must be a finite number".to_owned()),
            other => problem("priority", expected("number", other)),
        }
    }
    if let Some(value) = get("required_tools") {
        match value {
            Value::Sequence(items) => {
                for item in items {
                    match item.as_str() {
                        Some(tool)
                            if CORE_TOOL_IDS.contains(&tool)
                                || DEFAULT_HOST_TOOLS.iter().any(|(name, _)| *name == tool) => {}
                        Some(tool) => problem(
                            "required_tools",
                            format!("`{tool}` is not a canonical OpenCorvus tool ID"),
                        ),
                        None => problem(
                            "required_tools",
                            "every element must be a string".to_owned(),
                        ),
                    }
                }
            }
            other => problem("required_tools", expected("array", other)),
        }
    }
    if let Some(value) = get("expires_at") {
        let valid = match value {
            Value::Date => true,
            Value::Number(number) => number.is_finite(),
            Value::String(text) => super::date_parse::accepts(text),
            _ => false,
        };
        if !valid {
            problem(
                "expires_at",
                "expected a date, a finite number or a date string".to_owned(),
            );
        }
    }
    for problem in &mut problems {
        if problem.message == "name: required" {
            problem.help = Some(Help::Name);
        }
    }
    match get("name") {
        Some(Value::String(name)) if problems.is_empty() => Ok(name.clone()),
        _ => Err(problems),
    }
}

fn auto_detect_problem(value: &Value) -> Option<String> {
    let Value::Mapping(_) = value else {
        return Some(format!("expected object, found {}", value.type_name()));
    };
    let string_list = |value: &Value| match value {
        Value::Sequence(items) => items.iter().all(|item| matches!(item, Value::String(_))),
        _ => false,
    };
    for key in ["files", "deps"] {
        if let Some(list) = value.get(key) {
            if !string_list(list) {
                return Some(format!("{key} must be a list of strings"));
            }
        }
    }
    if let Some(signals) = value.get("task_signals") {
        if !matches!(signals, Value::Mapping(_)) {
            return Some("task_signals must be an object".to_owned());
        }
        for key in ["has_attachment_image", "request_contains_url"] {
            if let Some(flag) = signals.get(key) {
                if !matches!(flag, Value::Bool(_)) {
                    return Some(format!("task_signals.{key} must be a boolean"));
                }
            }
        }
        for key in ["package_has_script", "request_text_any"] {
            if let Some(list) = signals.get(key) {
                if !string_list(list) {
                    return Some(format!("task_signals.{key} must be a list of strings"));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &str) -> Vec<String> {
        frontmatter_name(text)
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|problem| problem.message)
            .collect()
    }

    #[test]
    fn valid_frontmatter() {
        assert!(messages("---\nname: a\ndescription: b\n---\nbody").is_empty());
        assert!(messages("---\nname:\ta\ndescription: b\n---\nbody").is_empty());
        assert!(messages("---\nname: a\ndescription: b\nrequired_tools: [read, webpage_extract]\nplatforms: [linux]\npriority: 2\nmetadata: {a: 1}\n---\n").is_empty());
    }

    #[test]
    fn invalid_frontmatter() {
        assert_eq!(
            messages("# no frontmatter"),
            ["name: required (SKILL.md has no frontmatter)"]
        );
        assert_eq!(
            messages("---\n---\n"),
            ["name: required (the frontmatter is empty)"]
        );
        assert_eq!(messages("---\nname: a\n---\n"), ["description: required"]);
        assert_eq!(
            messages("---\nname: ' a'\ndescription: b\n---\n"),
            ["name: must not start or end with whitespace"]
        );
        assert_eq!(
            messages("---\nname: a/b\ndescription: b\n---\n"),
            ["name: must not contain `/`, `\\` or line breaks"]
        );
        assert_eq!(
            messages("---\nname: 12\ndescription: b\n---\n"),
            ["name: expected string, found number"]
        );
        assert_eq!(
            messages("---\nname: a\ndescription: b\nrequired_tools: [nope]\n---\n"),
            ["required_tools: `nope` is not a canonical OpenCorvus tool ID"]
        );
        assert_eq!(
            messages("---\nname: a\ndescription: b\nplatforms: [beos]\n---\n"),
            ["platforms: each platform is `windows`, `macos` or `linux`"]
        );
        assert_eq!(
            messages("---\n- a\n---\n"),
            ["expected a YAML mapping, found array"]
        );
        assert_eq!(
            messages("---\nname: 2024-01-01\ndescription: d\n---\n"),
            ["name: expected string, found date"]
        );
        assert!(messages("---\nname: x\ndescription: d\nname: y\n---\n")[0].contains("duplicated"));
        assert_eq!(
            messages("---\nname: x\ndescription: d\npriority: .inf\n---\n"),
            ["priority: must be a finite number"]
        );
        assert_eq!(
            messages(&format!("---\nname: {}\n---\n", "[".repeat(10_000))),
            ["YAML nested too deeply"]
        );
        assert!(messages("---\nname: [a\n---\n")[0].starts_with("YAML: "));
    }
}
