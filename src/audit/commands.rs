//! Command lines in a prompt (AUD-P3, AUD-P4, AUD-P7): a download piped into a shell
//! (`curl … | sh`, `bash <(curl …)`, `iwr … | iex`), and data uploaded with `curl` or `wget`
//! (`-d`, `-F`, `-T`, `-X POST`), secrets above all (`$(cat .env)`, `$API_TOKEN`). A line is read
//! when the one pass over the prompt ([`triggers`](super::triggers)) found a downloader in it.

use std::ops::Range;

use super::instructions::{is_documentation_host, sent, url_at};
use super::prompts::Found;
use super::triggers::{DOWNLOADERS, Triggers};
use crate::diag::Code;

/// The lines that hold a downloader, each once.
pub(super) fn download_lines(text: &str, triggers: &Triggers) -> Vec<Range<usize>> {
    let mut lines: Vec<Range<usize>> = Vec::new();
    for span in &triggers.downloaders {
        let start = text[..span.start].rfind('\n').map_or(0, |at| at + 1);
        let end = text[span.start..]
            .find('\n')
            .map_or(text.len(), |at| span.start + at);
        if lines.last() != Some(&(start..end)) {
            lines.push(start..end);
        }
    }
    lines
}

pub(super) const PIPE_HELP: &str = "a script fetched at run time is not in the package: it was not validated, digested or reviewed, and can change after the squad was published; put what it does in the package, or tell the user to install the tool themselves";

/// AUD-P3, AUD-P4 and AUD-P7 of a command line with a downloader: data uploaded with `curl`
/// or `wget`, and a download piped into a shell.
pub(super) fn check(
    text: &str,
    line: Range<usize>,
    names: &[(Range<usize>, &'static str)],
    found: &mut Vec<Found>,
) {
    let original = &text[line.clone()];
    let lower = original.to_ascii_lowercase();
    if let Some(range) = piped_download(&lower) {
        let span = line.start + range.start..line.start + range.end;
        let quoted = super::quote(&text[span.clone()], 80);
        found.push(Found {
            code: Code::PromptPipeToShell,
            span,
            message: format!("a downloaded script is piped into a shell: `{quoted}`"),
            help: PIPE_HELP,
        });
    }
    let tokens: Vec<&str> = original.split_whitespace().collect();
    let client = tokens
        .iter()
        .any(|token| matches!(token.to_ascii_lowercase().as_str(), "curl" | "wget"));
    let uploads = tokens.windows(2).any(|pair| {
        matches!(
            pair[0],
            "-d" | "--data"
                | "--data-binary"
                | "--data-raw"
                | "--data-urlencode"
                | "-F"
                | "--form"
                | "-T"
                | "--upload-file"
                | "--post-data"
                | "--post-file"
                | "--body-data"
                | "--body-file"
        ) || (matches!(pair[0], "-X" | "--request" | "--method")
            && matches!(
                pair[1]
                    .trim_matches(['"', '\''])
                    .to_ascii_uppercase()
                    .as_str(),
                "POST" | "PUT"
            ))
    });
    if !(client && uploads) {
        return;
    }
    let Some((url, host)) = original
        .match_indices("://")
        .find_map(|(at, _)| url_at(original, at))
    else {
        return;
    };
    if is_documentation_host(&host) {
        return;
    }
    let sensitive = names
        .iter()
        .any(|(span, _)| line.start <= span.start && span.end <= line.end)
        || original.contains("$(")
        || original.contains('`')
        || tokens.iter().any(|token| {
            token.contains('$')
                && ["KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"]
                    .iter()
                    .any(|word| token.to_ascii_uppercase().contains(word))
        });
    let span = line.start + url.start..line.start + url.end;
    found.push(sent(sensitive, span, &super::quote(&host, 80)));
}

/// Shells a download is piped into.
pub(super) const SHELLS: [&str; 16] = [
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "python",
    "python3",
    "perl",
    "ruby",
    "node",
    "php",
    "iex",
    "invoke-expression",
    "pwsh",
    "powershell",
];

/// Whether `line` (lower case) pipes what a downloader fetched into a shell, and where.
fn piped_download(line: &str) -> Option<Range<usize>> {
    let is_word = |text: &str, at: usize, word: &str| {
        let end = at + word.len();
        let before = at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric();
        let after = end == text.len() || !text.as_bytes()[end].is_ascii_alphanumeric();
        before && after
    };
    let (start, downloader) = DOWNLOADERS
        .iter()
        .flat_map(|word| {
            line.match_indices(word)
                .filter(|(at, _)| is_word(line, *at, word))
        })
        .min_by_key(|(at, _)| *at)?;
    let after = &line[start + downloader.len()..];
    // `curl … | sh`, `curl … | sudo -E bash`.
    for (bar, _) in after.match_indices('|') {
        if after[bar + 1..].starts_with('|') || (bar > 0 && after.as_bytes()[bar - 1] == b'|') {
            continue;
        }
        let target: Vec<&str> = after[bar + 1..]
            .split_whitespace()
            .filter(|word| !matches!(*word, "sudo" | "env") && !word.starts_with('-'))
            .take(1)
            .collect();
        if let Some(shell) = target.first() {
            let shell = shell.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-');
            if SHELLS.contains(&shell) {
                return Some(
                    start..start + downloader.len() + bar + 1 + after[bar + 1..].trim_end().len(),
                );
            }
        }
    }
    // `bash <(curl …)`, `sh -c "$(curl …)"`, `iex (iwr …)`.
    let prefix = line[..start].trim_end();
    let opens = prefix.ends_with('(');
    let shell_before = prefix
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | '"' | '$' | '<'))
        .any(|word| SHELLS.contains(&word));
    (opens && shell_before).then(|| start..line.trim_end().len())
}
