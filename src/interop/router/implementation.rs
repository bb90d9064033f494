//! R-IMPL (§2.4): the implementation files a contract page declares — a Claude Code subagent
//! (`.md` with YAML front matter) and a Codex custom agent (`.toml`) — exist and carry what
//! their hosts need to load them.

use std::path::{Path, PathBuf};

use super::Profile;
use crate::diag::{Code, Diagnostic};
use crate::interop::document::FILE;

/// The module name of a contract file: `ck-brain.contract.json` → `ck-brain`.
pub fn module_name(contract: &Path) -> String {
    let name = contract
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name.strip_suffix(".json").unwrap_or(&name);
    name.strip_suffix(".contract").unwrap_or(name).to_owned()
}

/// The implementation files to check, in the seed's layout relative to the contract's folder:
/// `implementations/claude-code/<name>.md` and `implementations/codex/<name>.toml`. The
/// ck-brain page declares both under the name `ck-brain`, so under that profile both must
/// exist; a generic contract declares none, so only the files that exist (named after the
/// contract file) are checked.
pub fn discover(contract: &Path, profile: Profile) -> Vec<PathBuf> {
    let root = contract
        .parent()
        .unwrap_or(Path::new(""))
        .join("implementations");
    let name = match profile {
        Profile::CkBrain => "ck-brain".to_owned(),
        Profile::Generic => module_name(contract),
    };
    [
        root.join("claude-code").join(format!("{name}.md")),
        root.join("codex").join(format!("{name}.toml")),
    ]
    .into_iter()
    .filter(|path| profile == Profile::CkBrain || path.exists())
    .collect()
}

/// Findings about one implementation file (file `.` = that file). A missing or unreadable
/// file is one finding too: the contract declares it.
pub fn check(path: &Path) -> Vec<Diagnostic> {
    let finding = |message: String| Diagnostic::new(Code::ContractImpl, FILE, message);
    let text = match crate::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => return vec![finding(format!("`{}` is not UTF-8", path.display()))],
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return vec![finding(format!(
                "implementation file `{}` does not exist",
                path.display()
            ))];
        }
        Err(error) => {
            return vec![finding(format!(
                "cannot read `{}`: {error}",
                path.display()
            ))];
        }
    };
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let problems = match path.extension().and_then(|e| e.to_str()) {
        Some("md") => claude_code(&text, &stem),
        Some("toml") => codex(&text),
        _ => vec![format!(
            "`{}` is neither a Claude Code subagent (.md) nor a Codex custom agent (.toml)",
            path.display()
        )],
    };
    problems.into_iter().map(finding).collect()
}

/// A Claude Code subagent: front matter with `name` = the file stem and a `description`.
fn claude_code(text: &str, stem: &str) -> Vec<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return vec![
            "the subagent file must start with YAML front matter between `---` lines".into(),
        ];
    }
    let mut front = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        front.push_str(line);
    }
    if !closed {
        return vec!["the front matter has no closing `---` line".into()];
    }
    let documents = match yaml_rust2::YamlLoader::load_from_str(&front) {
        Ok(documents) => documents,
        Err(error) => return vec![format!("the front matter is not YAML: {error}")],
    };
    let Some(map) = documents.first().and_then(|doc| doc.as_hash()) else {
        return vec!["the front matter must be a mapping with `name` and `description`".into()];
    };
    let get = |key: &str| {
        map.get(&yaml_rust2::Yaml::String(key.into()))
            .and_then(|v| v.as_str())
    };
    let mut problems = Vec::new();
    match get("name") {
        Some(name) if name == stem => {}
        Some(name) => problems.push(format!(
            "front matter `name` is `{name}`; it must be the file stem `{stem}`"
        )),
        None => problems.push(format!(
            "front matter has no string `name` (the file stem, `{stem}`)"
        )),
    }
    if get("description").is_none_or(|d| crate::text::js_trim(d).is_empty()) {
        problems.push("front matter has no non-empty `description`".into());
    }
    problems
}

/// A Codex custom agent: `name`, `description` (non-empty) and `developer_instructions`.
fn codex(text: &str) -> Vec<String> {
    let table = match toml::from_str::<toml::Table>(text) {
        Ok(table) => table,
        Err(error) => return vec![format!("the file is not TOML: {}", error.message())],
    };
    let mut problems = Vec::new();
    for key in ["name", "description", "developer_instructions"] {
        match table.get(key) {
            Some(toml::Value::String(value)) => {
                if key == "description" && crate::text::js_trim(value).is_empty() {
                    problems.push("`description` is empty".into());
                }
            }
            Some(_) => problems.push(format!("`{key}` must be a string")),
            None => problems.push(format!("a Codex custom agent needs `{key}`")),
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_drop_the_contract_suffix() {
        assert_eq!(
            module_name(Path::new("a/ck-brain.contract.json")),
            "ck-brain"
        );
        assert_eq!(module_name(Path::new("router.json")), "router");
    }

    #[test]
    fn subagent_front_matter_is_checked() {
        assert!(
            claude_code(
                "---\nname: ck-brain\ndescription: Routes.\n---\nbody\n",
                "ck-brain"
            )
            .is_empty()
        );
        assert_eq!(
            claude_code("---\nname: other\ndescription: ''\n---\n", "ck-brain").len(),
            2
        );
        assert_eq!(claude_code("no front matter", "x").len(), 1);
        assert_eq!(claude_code("---\nname: [\n---\n", "x").len(), 1);
        assert_eq!(claude_code("---\nname: x\n", "x").len(), 1);
    }

    #[test]
    fn codex_agents_need_three_strings() {
        assert!(codex("name = \"ck-brain\"\ndescription = \"d\"\ndeveloper_instructions = \"\"\"\nRoute.\n\"\"\"\n").is_empty());
        assert_eq!(
            codex("name = \"ck-brain\"\ndescription = \"d\"\n"),
            vec!["a Codex custom agent needs `developer_instructions`".to_owned()]
        );
        assert_eq!(codex("name = ").len(), 1);
    }
}
