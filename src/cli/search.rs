//! `squad search`: squads by their words, in a static index or among the installed ones.

use super::args::{IndexArgs, LookupArgs, NetworkArgs, open_index};
use super::documents::{self, Searched};
use super::{DataFormat, ExitStatus};
use crate::index::search::Hit;
use crate::output::Printer;

/// Find squads by the words of their id, name, label and description, best first.
///
/// In a static index (--index URL, or the project's `index`), a search reads the index's root,
/// one search shard per word and the files of the squads it shows, never the whole index; the
/// root's signature (with --trust or the project's `index_key`), expiry and version, and every
/// file's SHA-256, are checked on every fetch. With --offline (or no index), the last copy of
/// the index in squad's cache and the installed packages are searched instead. Every word must
/// be found; a squad whose `namespace/id` or id is the query itself comes first and is marked
/// exact, and a similar name is never presented as the one asked for.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad search review --index https://squads.example.com/index/
  squad search \"incident response\" --limit 5
  squad search acme/review --offline --format json

Exit status: 0 searched (also when nothing is found), 1 refused (an index root that is not
signed by the trusted key, expired, older than one seen before, or a file that is not what the
root says), 2 usage, network or I/O error.")]
pub struct SearchArgs {
    /// Words to look for.
    #[arg(value_name = "QUERY")]
    pub query: String,

    /// The most results to show.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,

    #[command(flatten)]
    pub index: IndexArgs,

    #[command(flatten)]
    pub lookup: LookupArgs,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub fn run(args: &SearchArgs, printer: &Printer) -> ExitStatus {
    let configured = super::args::configured_index(args.lookup.project.as_deref());
    let client = args.network.client();
    let cache = crate::cache::Cache::from_env();
    let mut key = None;
    let index = match open_index(
        &args.index,
        configured.as_ref(),
        &client,
        cache.as_ref(),
        &mut key,
        printer,
    ) {
        Ok(index) => index,
        Err(status) => return status,
    };
    let limit = args.limit.clamp(1, crate::index::search::MAX_RESULTS);
    let mut hits = Vec::new();
    if let Some(index) = &index {
        match crate::index::search::search_index(index, &args.query, limit) {
            Ok(found) => hits.extend(found),
            Err(error) => {
                printer.failure(&error, error.hint().as_deref());
                return error.class().into();
            }
        }
    }
    if args.index.offline || index.is_none() {
        let (_, scopes) = match args.lookup.scopes(printer) {
            Ok(scopes) => scopes,
            Err(status) => return status,
        };
        let root = match super::args::opencorvus_root(printer) {
            Ok(root) => root,
            Err(status) => return status,
        };
        match crate::index::search::search_installed(&scopes, &root, &args.query) {
            Ok(found) => hits.extend(found),
            Err(error) => {
                printer.failure(&error, error.hint().as_deref());
                return error.class().into();
            }
        }
    }
    let hits = crate::index::search::merge(hits, limit);
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "search",
            Searched {
                query: &args.query,
                index: index.as_ref().map(|index| index.url.to_string()),
                offline: args.index.offline,
                signed_by: index
                    .as_ref()
                    .and_then(|index| index.signed_by)
                    .map(|key| key.to_string()),
                results: &hits,
            },
        ),
        DataFormat::Human => {
            if index.is_none() {
                printer.status(
                    "Searching",
                    "the installed squads (no index: pass --index URL, or set `index` in squads.jsonc)",
                );
            }
            let asked = crate::manifest::squad_name(args.query.trim()).is_ok();
            if asked && !hits.iter().any(|hit| hit.exact) {
                printer.status(
                    "Not found",
                    &format!("no squad is named {}; similar ones:", args.query.trim()),
                );
            }
            if hits.is_empty() {
                printer.status("Found", "nothing");
            }
            let mut text = String::new();
            for hit in &hits {
                text.push_str(&line(hit));
            }
            printer.data(&text);
        }
    }
    ExitStatus::Success
}

/// One result: name, version, title, where, and the start of its description; every word of
/// the index's neutralised.
fn line(hit: &Hit) -> String {
    use crate::text::remote;
    let title = hit.label.as_ref().or(hit.name.as_ref());
    let mut text = format!(
        "{}/{} {}",
        remote(&hit.namespace, 80),
        remote(&hit.id, 80),
        hit.version
            .as_deref()
            .map_or("-".to_owned(), |v| remote(v, 40))
    );
    if let Some(title) = title {
        text.push_str(&format!("  {}", remote(title, 80)));
    }
    let mut notes = Vec::new();
    if hit.exact {
        notes.push("exact".to_owned());
    }
    if let Some(scope) = hit.scope {
        notes.push(format!("installed, {scope}"));
    }
    if let Some(capabilities) = &hit.capabilities {
        if !capabilities.classes.is_empty() {
            notes.push(
                capabilities
                    .classes
                    .iter()
                    .map(|class| remote(class, 40))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
    }
    if !notes.is_empty() {
        text.push_str(&format!("  [{}]", notes.join("; ")));
    }
    text.push('\n');
    if let Some(description) = &hit.description {
        text.push_str(&format!("    {}\n", remote(description, 160)));
    }
    text
}
