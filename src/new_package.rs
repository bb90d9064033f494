//! `squad new`: a package from an embedded template, renamed consistently, validated, and
//! published through a same-parent staging directory and a no-replace rename (WR-1…WR-9).

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::jsonc::{self, Kind, Node};
use crate::manifest::{IdKind, MANIFEST_FILE, id_problem};
use crate::package::Report;
use crate::version::Version;

/// A template's files: (package-relative path, bytes).
pub type TemplateFiles = &'static [(&'static str, &'static [u8])];

include!(concat!(env!("OUT_DIR"), "/templates.rs"));

/// A template's name and what it is for.
pub const DESCRIPTIONS: &[(&str, &str)] = &[
    ("minimal", "a scheduler and one worker, no workflow"),
    (
        "planner-parallel",
        "a planner, then a researcher and a developer in parallel, then a tester",
    ),
    (
        "delivery",
        "requirements, architecture, two parallel builds, then tests and an independent integrity review; every resource kind",
    ),
];

/// The embedded template called `name`.
pub fn template(name: &str) -> Option<TemplateFiles> {
    TEMPLATES
        .iter()
        .find(|(template, _)| *template == name)
        .map(|(_, files)| *files)
}

/// What to put into the new package.
#[derive(Debug, Clone)]
pub struct NewOptions {
    pub template: String,
    pub namespace: String,
    pub id: String,
    pub label: Option<String>,
    pub version: String,
}

/// Why `squad new` refused or failed; nothing is left behind in any case.
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    #[error("there is no template `{0}`")]
    UnknownTemplate(String),
    #[error("{0}")]
    InvalidArgument(String),
    #[error("destination `{}` already exists", .0.display())]
    Exists(PathBuf),
    #[error("the scaffolded package is not valid")]
    Invalid(Box<Report>),
    #[error("cannot write `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
}

impl NewError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            NewError::Invalid(_) => crate::error::Class::Refused,
            _ => crate::error::Class::Failed,
        }
    }
}

/// Checks the options before anything is touched.
pub fn check_options(options: &NewOptions) -> Result<(), NewError> {
    for (what, value) in [("namespace", &options.namespace), ("id", &options.id)] {
        if let Some((_, problem)) = id_problem(value, IdKind::Package) {
            return Err(NewError::InvalidArgument(format!(
                "invalid {what}: {problem}; ids match ^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$ (lower-kebab-case, 1-64 characters)"
            )));
        }
    }
    if crate::manifest::BUILTIN_PACKAGE_IDS.contains(&options.id.as_str()) {
        return Err(NewError::InvalidArgument(format!(
            "id `{}` is reserved for a built-in package",
            options.id
        )));
    }
    match Version::parse(&options.version) {
        Err(error) => {
            let hint = crate::version::repaired(&options.version)
                .map(|repaired| format!(" (did you mean `{repaired}`?)"))
                .unwrap_or_default();
            return Err(NewError::InvalidArgument(format!(
                "invalid version `{}`: {error}{hint}",
                options.version
            )));
        }
        // `squad version check` refuses a version dated after today; so does `new`.
        Ok(version) => {
            let today = crate::env::today_utc();
            if version.date() > today {
                return Err(NewError::InvalidArgument(format!(
                    "version {} is dated after today ({:04}-{:02}-{:02} UTC); `squad version check` would refuse it",
                    options.version, today.year, today.month, today.day
                )));
            }
        }
    }
    if let Some(label) = &options.label {
        if label.is_empty() {
            return Err(NewError::InvalidArgument(
                "the label must not be empty".to_owned(),
            ));
        }
    }
    Ok(())
}

/// The files of the new package: the template with its manifest rewritten.
pub fn render(options: &NewOptions) -> Result<Vec<(String, Vec<u8>)>, NewError> {
    let files = template(&options.template)
        .ok_or_else(|| NewError::UnknownTemplate(options.template.clone()))?;
    let mut rendered = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        let bytes = if *path == MANIFEST_FILE {
            let text = std::str::from_utf8(bytes).map_err(|_| {
                NewError::InvalidArgument("template manifest is not UTF-8".to_owned())
            })?;
            rewrite_manifest(text, options)?.into_bytes()
        } else if let (true, Some(label)) = (*path == "README.md", &options.label) {
            retitle(&String::from_utf8_lossy(bytes), label).into_bytes()
        } else {
            bytes.to_vec()
        };
        rendered.push(((*path).to_owned(), bytes));
    }
    Ok(rendered)
}

/// Rewrites id, namespace, version, label and every package ref prefix in place, keeping the
/// template's comments and layout.
fn rewrite_manifest(text: &str, options: &NewOptions) -> Result<String, NewError> {
    let root = jsonc::parse(text)
        .map_err(|error| NewError::InvalidArgument(format!("template manifest: {}", error.code)))?;
    let Kind::Object(members) = &root.kind else {
        return Err(NewError::InvalidArgument(
            "template manifest is not an object".to_owned(),
        ));
    };
    let old_id = members
        .iter()
        .find(|member| member.key == "id")
        .and_then(|member| member.value.as_str())
        .unwrap_or_default()
        .to_owned();
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for member in members {
        let replacement = match member.key.as_str() {
            "id" => Some(options.id.clone()),
            "namespace" => Some(options.namespace.clone()),
            "version" => Some(options.version.clone()),
            "label" | "name" => options.label.clone(),
            _ => None,
        };
        match replacement {
            Some(value) => edits.push((member.value.span.clone(), json_string(&value))),
            None => collect_ref_edits(&member.value, &old_id, &options.id, &mut edits),
        }
    }
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    let mut text = text.to_owned();
    for (span, replacement) in edits {
        text.replace_range(span, &replacement);
    }
    Ok(text)
}

/// The README with its first `# ` heading set to `label`: the package's title follows its
/// label, as the manifest's does.
fn retitle(readme: &str, label: &str) -> String {
    let mut offset = 0;
    for line in readme.split_inclusive('\n') {
        if line.starts_with("# ") {
            let ending = &line[line.trim_end_matches(['\r', '\n']).len()..];
            return format!(
                "{}# {label}{ending}{}",
                &readme[..offset],
                &readme[offset + line.len()..]
            );
        }
        offset += line.len();
    }
    format!("# {label}\n\n{readme}")
}

fn collect_ref_edits(
    node: &Node,
    old_id: &str,
    new_id: &str,
    edits: &mut Vec<(Range<usize>, String)>,
) {
    match &node.kind {
        Kind::String(string) => {
            if let Some(rest) = string
                .value
                .strip_prefix(old_id)
                .filter(|rest| rest.starts_with('/'))
            {
                edits.push((node.span.clone(), json_string(&format!("{new_id}{rest}"))));
            }
        }
        Kind::Array(items) => items
            .iter()
            .for_each(|item| collect_ref_edits(item, old_id, new_id, edits)),
        Kind::Object(members) => members
            .iter()
            .for_each(|member| collect_ref_edits(&member.value, old_id, new_id, edits)),
        _ => {}
    }
}

fn json_string(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| format!("\"{value}\""))
}

/// Writes a new package at `destination` (WR-3…WR-9): refuses any existing entry there,
/// writes into `.<name>.staging-XXXXXX` beside it, validates the staged copy, syncs it, then
/// renames it into place without replacing anything. On failure nothing is left behind.
pub fn create(destination: &Path, options: &NewOptions) -> Result<Report, NewError> {
    check_options(options)?;
    let files = render(options)?;
    write_package(destination, &files)
}

/// Writes `files` as a new package at `destination`, the way [`create`] does: staged beside
/// it, validated, synced, renamed into place without replacing anything; nothing is left
/// behind on failure. An invalid package is refused with its report.
pub fn write_package(destination: &Path, files: &[(String, Vec<u8>)]) -> Result<Report, NewError> {
    let destination = std::path::absolute(destination)
        .map_err(|error| NewError::Io(destination.to_path_buf(), error))?;
    let parent = destination.parent().ok_or_else(|| {
        NewError::InvalidArgument("the destination has no parent directory".to_owned())
    })?;
    if destination.file_name().is_none() {
        return Err(NewError::InvalidArgument(
            "the destination has no name".to_owned(),
        ));
    }
    if destination.symlink_metadata().is_ok() {
        return Err(NewError::Exists(destination));
    }
    if let Some(file) = parent.ancestors().find(|ancestor| ancestor.is_file()) {
        return Err(NewError::InvalidArgument(format!(
            "`{}` is a file, so `{}` cannot be created inside it",
            file.display(),
            destination.display()
        )));
    }
    crate::fs::create_dir_all(parent).map_err(|error| NewError::Io(parent.to_path_buf(), error))?;
    // Removed with its contents if anything below fails; once renamed, it is the package.
    let mut staging = crate::fs::create_directory_beside(&destination)
        .map_err(|error| NewError::Io(parent.to_path_buf(), error))?;
    let report = populate_and_publish(staging.path(), &destination, files)?;
    staging.disable_cleanup(true);
    Ok(report)
}

fn populate_and_publish(
    staging: &Path,
    destination: &Path,
    files: &[(String, Vec<u8>)],
) -> Result<Report, NewError> {
    let mut directories = std::collections::BTreeSet::new();
    for (path, bytes) in files {
        let target = staging.join(path);
        if let Some(directory) = target.parent() {
            crate::fs::create_dir_all(directory)
                .map_err(|error| NewError::Io(directory.to_path_buf(), error))?;
            directories.insert(directory.to_path_buf());
        }
        crate::fs::write_new_synced(&target, bytes)
            .map_err(|error| NewError::Io(target.clone(), error))?;
    }
    let report = crate::package::validate(staging)
        .map_err(|error| NewError::InvalidArgument(error.to_string()))?;
    if !report.is_valid() {
        return Err(NewError::Invalid(Box::new(report)));
    }
    for directory in directories.iter().rev() {
        crate::fs::sync_directory(directory);
    }
    crate::fs::rename_no_replace(staging, destination).map_err(|error| {
        if error.kind() == std::io::ErrorKind::AlreadyExists || error.raw_os_error() == Some(39) {
            NewError::Exists(destination.to_path_buf())
        } else {
            NewError::Io(destination.to_path_buf(), error)
        }
    })?;
    if let Some(parent) = destination.parent() {
        crate::fs::sync_directory(parent);
    }
    Ok(Report {
        root: destination.to_path_buf(),
        ..report
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(template: &str) -> NewOptions {
        NewOptions {
            template: template.to_owned(),
            namespace: "acme".to_owned(),
            id: "renamed-squad".to_owned(),
            label: Some("Renamed".to_owned()),
            version: "2026.12.01.3".to_owned(),
        }
    }

    #[test]
    fn every_template_is_listed_and_embedded() {
        let embedded: Vec<&str> = TEMPLATES.iter().map(|(name, _)| *name).collect();
        let mut described: Vec<&str> = DESCRIPTIONS.iter().map(|(name, _)| *name).collect();
        described.sort_unstable();
        assert_eq!(embedded, described);
    }

    #[test]
    fn renames_refs_and_keeps_comments() {
        let files = render(&options("delivery")).unwrap();
        let manifest = String::from_utf8(
            files
                .iter()
                .find(|(p, _)| p == MANIFEST_FILE)
                .unwrap()
                .1
                .clone(),
        )
        .unwrap();
        assert!(manifest.starts_with("// Delivery Squad"), "comments kept");
        assert!(manifest.contains("\"renamed-squad/shared/tracker/tool/list_issues\""));
        assert!(!manifest.contains("\"delivery/"));
        assert!(manifest.contains("\"id\": \"renamed-squad\""));
        assert!(manifest.contains("\"version\": \"2026.12.01.3\""));
        assert!(manifest.contains("\"label\": \"Renamed\""));
    }

    #[test]
    fn the_readme_title_follows_the_label() {
        assert_eq!(
            retitle("# Minimal Squad\n\nText.\n", "Postmortem"),
            "# Postmortem\n\nText.\n"
        );
        assert_eq!(
            retitle("---\na: b\n---\n# T\r\nx", "P"),
            "---\na: b\n---\n# P\r\nx"
        );
        assert_eq!(retitle("Text.\n", "P"), "# P\n\nText.\n");
        let files = render(&options("minimal")).unwrap();
        let readme = &files
            .iter()
            .find(|(path, _)| path == "README.md")
            .unwrap()
            .1;
        assert!(String::from_utf8_lossy(readme).starts_with("# Renamed\n"));
    }

    #[test]
    fn concurrent_writers_exactly_one_wins() {
        let dir = tempfile::tempdir().unwrap();
        let destination = dir.path().join("racing");
        let outcomes: Vec<Result<Report, NewError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| create(&destination, &options("minimal"))))
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().unwrap())
                .collect()
        });
        assert_eq!(outcomes.iter().filter(|outcome| outcome.is_ok()).count(), 1);
        assert!(
            outcomes
                .iter()
                .all(|outcome| matches!(outcome, Ok(_) | Err(NewError::Exists(_))))
        );
        let leftovers: Vec<_> = crate::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, [std::ffi::OsString::from("racing")]);
    }

    #[test]
    fn refuses_bad_options() {
        let mut bad = options("minimal");
        bad.id = "Bad_Id".to_owned();
        assert!(
            check_options(&bad)
                .unwrap_err()
                .to_string()
                .contains("^[a-z][a-z0-9]*")
        );
        let mut bad = options("minimal");
        bad.version = "2026.02.30.1".to_owned();
        assert!(
            check_options(&bad)
                .unwrap_err()
                .to_string()
                .contains("real calendar date")
        );
        assert!(matches!(
            render(&options("nope")),
            Err(NewError::UnknownTemplate(_))
        ));
    }
}
