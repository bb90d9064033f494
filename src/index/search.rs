//! `squad search`: squads ranked by where the query's words are found, in an index (through its
//! search shards: a lookup reads the root, one shard per word and the files of the squads it
//! shows, never the whole index) or among the installed packages.
//!
//! Ranking: every word of the query must be found (as a word, or the start of one) in the
//! squad's id, namespace, name, label or description. A word found in the id counts most, then
//! in the name or label, then in the namespace, then in the description; a whole word counts
//! twice a prefix. A squad whose `namespace/id` (or id) is the query exactly is marked `exact`
//! and comes first; a similar name is never presented as the one asked for.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::capability::Summary;

use super::IndexError;
use super::fetch::Index;
use super::format::{Field, SquadFile, tokens};

/// The most words a query may have (each is one shard to read).
pub const MAX_QUERY_WORDS: usize = 8;
/// The most results a search shows (each is one file to read).
pub const MAX_RESULTS: usize = 50;

/// One squad found.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub namespace: String,
    pub id: String,
    /// Where it was found: `index` or `installed`.
    pub found_in: &'static str,
    /// Whether its `namespace/id` or id is the query itself.
    pub exact: bool,
    pub score: u32,
    /// The newest version (of the index: not yanked; installed: the one installed).
    pub version: Option<String>,
    pub name: Option<String>,
    pub label: Option<String>,
    pub description: Option<String>,
    /// The index's capability summary of that version.
    pub capabilities: Option<Summary>,
    /// `project` or `global`, for an installed squad.
    pub scope: Option<&'static str>,
}

impl Hit {
    pub fn name(&self) -> String {
        format!("{}/{}", self.namespace, self.id)
    }
}

/// The words of a query, or why it has none to search for.
pub fn query_words(query: &str) -> Result<Vec<String>, IndexError> {
    let mut words = tokens(query);
    words.sort();
    words.dedup();
    if words.is_empty() {
        return Err(IndexError::Usage(format!(
            "`{}` has no word to search for: a word is two or more letters or digits",
            crate::text::remote(query, 80)
        )));
    }
    if words.len() > MAX_QUERY_WORDS {
        return Err(IndexError::Usage(format!(
            "a query has at most {MAX_QUERY_WORDS} words"
        )));
    }
    Ok(words)
}

/// Whether `name` (`namespace/id`) is what `query` names exactly.
fn is_exact(query: &str, namespace: &str, id: &str) -> bool {
    let query = query.trim().to_ascii_lowercase();
    query == format!("{namespace}/{id}") || query == id
}

/// The score of a squad whose words are `words` (each with its field bits) for the query
/// `wanted`; `None` when a word of the query is not found.
fn score(wanted: &[String], words: &BTreeMap<String, u8>) -> Option<u32> {
    let mut total = 0;
    for word in wanted {
        let best = words
            .range(word.clone()..)
            .take_while(|(found, _)| found.starts_with(word.as_str()))
            .map(|(found, fields)| Field::weight(*fields) * if found == word { 2 } else { 1 })
            .max()?;
        total += best;
    }
    Some(total)
}

/// Best first: exact, then score, then name.
fn rank(hits: &mut [Hit]) {
    hits.sort_by(|a, b| {
        b.exact
            .cmp(&a.exact)
            .then(b.score.cmp(&a.score))
            .then_with(|| a.name().cmp(&b.name()))
    });
}

/// Searches an index: one shard per word, then the files of the best `limit` squads.
pub fn search_index(index: &Index<'_>, query: &str, limit: usize) -> Result<Vec<Hit>, IndexError> {
    let wanted = query_words(query)?;
    // name -> the words of the squad that the query's words matched, with their fields.
    let mut found: BTreeMap<String, BTreeMap<String, u8>> = BTreeMap::new();
    for word in &wanted {
        let Some(shard) = index.shard(word)? else {
            continue;
        };
        for (indexed, postings) in shard
            .words
            .range(word.clone()..)
            .take_while(|(indexed, _)| indexed.starts_with(word.as_str()))
        {
            for (name, fields) in postings {
                *found
                    .entry(name.clone())
                    .or_default()
                    .entry(indexed.clone())
                    .or_insert(0) |= fields;
            }
        }
    }
    let mut hits: Vec<Hit> = found
        .into_iter()
        .filter_map(|(name, words)| {
            let (namespace, id) = crate::manifest::squad_name(&name).ok()?;
            let score = score(&wanted, &words)?;
            Some(Hit {
                exact: is_exact(query, namespace, id),
                namespace: namespace.to_owned(),
                id: id.to_owned(),
                found_in: "index",
                score,
                version: None,
                name: None,
                label: None,
                description: None,
                capabilities: None,
                scope: None,
            })
        })
        .collect();
    rank(&mut hits);
    hits.truncate(limit.min(MAX_RESULTS));
    let describe = |hit: &Hit| index.squad(&hit.namespace, &hit.id);
    let files = crate::jobs::map_jobs(4, &hits, &describe);
    for (hit, file) in hits.iter_mut().zip(files) {
        if let Some(file) = file? {
            describe_from(hit, &file);
        }
    }
    Ok(hits)
}

fn describe_from(hit: &mut Hit, file: &SquadFile) {
    let newest = file.newest();
    hit.version = newest.map(|entry| entry.version.clone());
    hit.capabilities = newest.map(|entry| entry.capabilities.clone());
    hit.name = file.name.clone();
    hit.label = file.label.clone();
    hit.description = file.description.clone();
}

/// The largest manifest read to describe an installed squad.
const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

/// Searches the packages installed in `scopes` (their manifests' words).
pub fn search_installed(
    scopes: &[crate::install::scope::Scope],
    opencorvus_root: &Path,
    query: &str,
) -> Result<Vec<Hit>, IndexError> {
    let wanted = query_words(query)?;
    let mut hits = Vec::new();
    for scope in scopes {
        let locations = crate::install::scope::Locations::new(scope, opencorvus_root);
        for installed in crate::install::listing::identities(&locations) {
            let manifest = installed.root.join(crate::manifest::MANIFEST_FILE);
            let text = match crate::fs::metadata(&manifest) {
                Ok(metadata) if metadata.len() <= MAX_MANIFEST_BYTES => {
                    crate::fs::read_regular(&manifest)
                        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                        .unwrap_or_default()
                }
                _ => String::new(),
            };
            let (name, label, description) = super::format::about(&text);
            let file = SquadFile {
                schema_version: super::format::SCHEMA_VERSION,
                namespace: installed.namespace.clone(),
                id: installed.id.clone(),
                name,
                label,
                description,
                versions: Vec::new(),
            };
            let Some(score) = score(&wanted, &file.words()) else {
                continue;
            };
            hits.push(Hit {
                exact: is_exact(query, &installed.namespace, &installed.id),
                namespace: installed.namespace,
                id: installed.id,
                found_in: "installed",
                score,
                version: crate::manifest::declared(&text).and_then(|declared| declared.version),
                name: file.name,
                label: file.label,
                description: file.description,
                capabilities: None,
                scope: Some(scope.name()),
            });
        }
    }
    rank(&mut hits);
    Ok(hits)
}

/// Merges hits of several places, best first, at most `limit`.
pub fn merge(mut hits: Vec<Hit>, limit: usize) -> Vec<Hit> {
    rank(&mut hits);
    hits.truncate(limit.min(MAX_RESULTS));
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_must_be_found_and_ids_count_most() {
        let words = |pairs: &[(&str, u8)]| -> BTreeMap<String, u8> {
            pairs.iter().map(|(w, f)| ((*w).to_owned(), *f)).collect()
        };
        let review = words(&[("review", Field::ID), ("code", Field::DESCRIPTION)]);
        let reviewer = words(&[("reviewer", Field::TITLE), ("code", Field::TITLE)]);
        let wanted = |query: &str| query_words(query).unwrap();
        assert_eq!(score(&wanted("review"), &review), Some(16));
        assert_eq!(score(&wanted("review"), &reviewer), Some(4));
        assert_eq!(score(&wanted("rev code"), &review), Some(8 + 2));
        assert_eq!(score(&wanted("review missing"), &review), None);
        assert!(is_exact("acme/review", "acme", "review"));
        assert!(is_exact("Review", "acme", "review"));
        assert!(!is_exact("acme/reviews", "acme", "review"));
        assert!(query_words("a - !").is_err());
    }
}
