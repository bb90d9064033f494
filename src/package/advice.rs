//! Notes on a package that validates: what the format allows but is most often a slip — an
//! agent no workflow runs, a skill whose frontmatter name does not name its folder (a copied
//! skill that kept its old name). They are given only once the package has no error, so that
//! they never bury the errors an author must fix first.

use super::Context;
use super::resources::Discovered;
use crate::diag::{Code, Diagnostic, Suggestion};
use crate::manifest::{MANIFEST_FILE, Manifest};
use crate::text::is_kebab_id;

pub fn check(context: &mut Context, manifest: Option<&Manifest>, discovered: &Discovered) {
    if context.diagnostics.has_errors() {
        return;
    }
    if let Some(manifest) = manifest {
        unused_agents(context, manifest);
    }
    skill_names(context, discovered);
}

/// GR-5 allows an agent outside every workflow; with workflows declared, it is usually one
/// that was added and never wired in.
fn unused_agents(context: &mut Context, manifest: &Manifest) {
    if manifest.workflows.is_empty() {
        return;
    }
    let used: std::collections::HashSet<&str> = manifest
        .workflows
        .iter()
        .flat_map(|workflow| &workflow.nodes)
        .filter_map(|node| node.agent_id.as_ref())
        .map(|agent| agent.value.as_str())
        .collect();
    let workflow = &manifest.workflows[0].id;
    for agent in &manifest.agents {
        if !agent.key_valid || used.contains(agent.owner.as_str()) {
            continue;
        }
        context.diagnostics.push(
            Diagnostic::new(
                Code::UnusedAgent,
                MANIFEST_FILE,
                format!("agent `{}` is a node of no workflow", agent.owner),
            )
            .span(agent.span.clone())
            .pointer(agent.pointer.clone())
            .span_label("declared, but no workflow runs it")
            .help(format!(
                "add it to a workflow (`squad scaffold workflow {workflow} --agent {}`), or remove it if the squad does not need it",
                agent.owner
            )),
        );
    }
}

/// SKL-4 lets a skill be named anything; the real packages name it after its folder, or
/// `<prefix>-<folder>`. A name that does neither is most often left over from a copy.
fn skill_names(context: &mut Context, discovered: &Discovered) {
    for skill in &discovered.skills {
        let Some(name) = &skill.name else {
            continue;
        };
        let Some(folder) = skill
            .skill_md
            .strip_suffix("/SKILL.md")
            .and_then(|directory| directory.rsplit('/').next())
        else {
            continue;
        };
        let problem = if !is_kebab_id(name) {
            format!(
                "skill `{}` is named `{name}`, which is not kebab-case",
                skill.reference
            )
        } else if !names_folder(name, folder) {
            format!(
                "skill `{}` is named `{name}`, which does not name its folder `{folder}`",
                skill.reference
            )
        } else {
            continue;
        };
        let span = context
            .sources
            .get(&skill.skill_md)
            .and_then(|source| name_value_span(&source.text));
        let mut diagnostic = Diagnostic::new(Code::SkillNameStyle, &skill.skill_md, problem)
            .help("skills are shown, and clash, by name; OpenCorvus's own packages name each after its folder, or `<prefix>-<folder>`");
        if let Some(span) = span {
            diagnostic = diagnostic.span(span.clone());
            if is_kebab_id(folder) {
                diagnostic = diagnostic.suggest(
                    Suggestion::replace(format!("name it `{folder}`"), span, folder)
                        .maybe_incorrect(),
                );
            }
        }
        context.diagnostics.push(diagnostic);
    }
}

/// Whether `name` is `folder`, or has it as a whole `-`-separated part (`acme-method` names
/// `method`).
fn names_folder(name: &str, folder: &str) -> bool {
    name == folder
        || name.starts_with(&format!("{folder}-"))
        || name.ends_with(&format!("-{folder}"))
        || name.contains(&format!("-{folder}-"))
}

/// The span of the value of the frontmatter's top-level `name:` line.
fn name_value_span(text: &str) -> Option<std::ops::Range<usize>> {
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next()?;
    if opening.trim_end() != "---" {
        return None;
    }
    let mut offset = opening.len();
    for line in lines {
        if line.trim_end() == "---" {
            return None;
        }
        if let Some(value) = line
            .strip_prefix("name")
            .map(|rest| rest.trim_start_matches([' ', '\t']))
            .and_then(|rest| rest.strip_prefix(':'))
        {
            let trimmed = value.trim_start_matches([' ', '\t']);
            let start = offset + line.len() - trimmed.len();
            let trimmed = trimmed.trim_end();
            return (!trimmed.is_empty()).then_some(start..start + trimmed.len());
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_names_its_folder_as_a_whole_part() {
        assert!(names_folder("method", "method"));
        assert!(names_folder("equity-research-method", "method"));
        assert!(names_folder("method-notes", "method"));
        assert!(names_folder("security-checklist", "security"));
        assert!(!names_folder("delivery-method", "postmortem-method"));
        assert!(!names_folder("methodical", "method"));
    }

    #[test]
    fn the_name_value_is_found_in_the_frontmatter() {
        let text = "---\nname: delivery-method\ndescription: d\n---\nname: body\n";
        assert_eq!(name_value_span(text), Some(10..25));
        assert_eq!(name_value_span("---\ndescription: d\n---\nname: x\n"), None);
    }
}
