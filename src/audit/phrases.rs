//! Prose as words and sentences, and phrases found in it: how the prompt rules read a text.
//!
//! A word is a run of letters, digits, `_` and inner apostrophes (`don't`, `don’t`), compared
//! in ASCII lower case; its span is its bytes in the text. Sentences end at `.`, `!`, `?` or
//! `;` before white space, at a blank line, and where a new line starts a list item, a
//! heading, a quotation or a table row, so that one item of a list is one sentence. A phrase
//! is a sequence of steps, each a set of words, some optional; it matches consecutive words of
//! one sentence. Only the sentences around a trigger ([`triggers`](super::triggers)) are read
//! as words.

use std::borrow::Cow;
use std::ops::Range;

/// One word of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word<'t> {
    /// Lower case (ASCII), with `’` read as `'`.
    pub text: Cow<'t, str>,
    pub span: Range<usize>,
    pub sentence: usize,
}

/// The words of `text`; `lower` is `text.to_ascii_lowercase()` (byte for byte the same length).
pub fn words<'t>(text: &str, lower: &'t str) -> Vec<Word<'t>> {
    words_in(text, lower, 0..text.len())
}

/// The words of `text[range]`, with their spans in `text`.
pub fn words_in<'t>(text: &str, lower: &'t str, range: Range<usize>) -> Vec<Word<'t>> {
    let offset = range.start;
    let text = &text[range.clone()];
    let lower = &lower[range];
    let mut words = Vec::new();
    let mut sentence = 0;
    let mut start: Option<usize> = None;
    let mut broken = false;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|(_, next)| *next);
        let inner_apostrophe =
            (c == '\'' || c == '’') && start.is_some() && next.is_some_and(char::is_alphanumeric);
        if c.is_alphanumeric() || c == '_' || inner_apostrophe {
            if start.is_none() {
                if broken && !words.is_empty() {
                    sentence += 1;
                }
                broken = false;
                start = Some(at);
            }
            continue;
        }
        if let Some(begin) = start.take() {
            words.push(word(lower, begin..at, offset, sentence));
        }
        if matches!(c, '.' | '!' | '?' | ';' | '\n') && breaks_before(text, at + 1) {
            broken = true;
        }
    }
    if let Some(begin) = start {
        words.push(word(lower, begin..text.len(), offset, sentence));
    }
    words
}

fn word<'t>(lower: &'t str, span: Range<usize>, offset: usize, sentence: usize) -> Word<'t> {
    let slice = &lower[span.clone()];
    let text = if slice.contains('’') {
        Cow::Owned(slice.replace('’', "'"))
    } else {
        Cow::Borrowed(slice)
    };
    Word {
        text,
        span: span.start + offset..span.end + offset,
        sentence,
    }
}

/// Whether a sentence ends just before byte `at` of `text`: after `.`, `!`, `?` or `;`
/// followed by white space (or the end), or at a line break before a new block.
pub fn breaks_before(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    if at == 0 || at > bytes.len() {
        return false;
    }
    match bytes[at - 1] {
        b'.' | b'!' | b'?' | b';' => bytes.get(at).is_none_or(u8::is_ascii_whitespace),
        b'\n' => starts_a_block(&text[at..]),
        _ => false,
    }
}

/// The longest a sentence is taken to be on either side of a word: a text without sentence
/// ends (minified, or one long line) is read in windows, never as a whole per word.
const MAX_SENTENCE: usize = 2048;

/// The bytes of the sentence that holds byte `at`.
pub fn sentence_around(text: &str, at: usize) -> Range<usize> {
    let floor = at.saturating_sub(MAX_SENTENCE);
    // Only these bytes can end a sentence; the others are passed over without a closer look.
    let could_end = |byte: u8| matches!(byte, b'.' | b'!' | b'?' | b';' | b'\n');
    let bytes = text.as_bytes();
    let mut start = at;
    while start > floor && !(could_end(bytes[start - 1]) && breaks_before(text, start)) {
        start -= 1;
    }
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let ceiling = (at + MAX_SENTENCE).min(text.len());
    let mut end = (at + 1).min(text.len());
    while end < ceiling && !(could_end(bytes[end - 1]) && breaks_before(text, end)) {
        end += 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// Whether the line that starts `rest` begins a new block: it is blank, or a list item, a
/// heading, a quotation or a table row.
fn starts_a_block(rest: &str) -> bool {
    let line = rest.trim_start_matches([' ', '\t']);
    let Some(first) = line.chars().next() else {
        return true;
    };
    if matches!(first, '\n' | '\r' | '#' | '>' | '|' | '-' | '*' | '+') {
        return true;
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && line[digits..].starts_with(['.', ')'])
}

/// One step of a phrase: any of `words`, or (when optional) nothing.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub words: &'static [&'static str],
    pub optional: bool,
}

/// A step that must match.
pub const fn one(words: &'static [&'static str]) -> Step {
    Step {
        words,
        optional: false,
    }
}

/// A step that may be left out.
pub const fn maybe(words: &'static [&'static str]) -> Step {
    Step {
        words,
        optional: true,
    }
}

/// Every match of `phrases` in `words`, as the range of word indices it covers, in order;
/// where several phrases match at one word, the longest. Each phrase starts with a step that
/// is not optional.
pub fn find(words: &[Word], phrases: &[&[Step]]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut index = 0;
    while index < words.len() {
        let word = words[index].text.as_ref();
        let end = phrases
            .iter()
            .filter(|phrase| is_one_of(word, phrase[0].words))
            .filter_map(|phrase| matches(words, index, words[index].sentence, phrase))
            .max();
        match end {
            Some(end) => {
                found.push(index..end);
                index = end;
            }
            None => index += 1,
        }
    }
    found
}

/// Where `steps` matched from word `at` end, within sentence `sentence`.
fn matches(words: &[Word], at: usize, sentence: usize, steps: &[Step]) -> Option<usize> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(at);
    };
    let here = words
        .get(at)
        .filter(|word| word.sentence == sentence && is_one_of(&word.text, step.words));
    let taken = here.and_then(|_| matches(words, at + 1, sentence, rest));
    match taken {
        Some(end) => Some(end),
        None if step.optional => matches(words, at, sentence, rest),
        None => None,
    }
}

/// Whether `word` is one of `words`; most words of a sentence are none, and differ in their
/// first letter.
pub fn is_one_of(word: &str, words: &[&str]) -> bool {
    let Some(first) = word.as_bytes().first() else {
        return false;
    };
    words
        .iter()
        .any(|candidate| candidate.as_bytes().first() == Some(first) && *candidate == word)
}

/// Words that negate what follows them in a sentence.
pub const NEGATIONS: [&str; 20] = [
    "not",
    "never",
    "don't",
    "dont",
    "doesn't",
    "no",
    "nor",
    "cannot",
    "can't",
    "won't",
    "mustn't",
    "shouldn't",
    "without",
    "avoid",
    "refuse",
    "forbid",
    "forbidden",
    "prohibit",
    "prohibited",
    "neither",
];

/// Whether a negation comes before word `at` in its sentence, at most `window` words back
/// (`usize::MAX`: anywhere before it).
pub fn negated(words: &[Word], at: usize, window: usize) -> bool {
    let sentence = words[at].sentence;
    words[..at]
        .iter()
        .rev()
        .take(window)
        .take_while(|word| word.sentence == sentence)
        .any(|word| is_one_of(&word.text, &NEGATIONS))
}

/// The index of the first word that starts at or after `offset`.
pub fn word_at_or_after(words: &[Word], offset: usize) -> Option<usize> {
    let index = words.partition_point(|word| word.span.end <= offset);
    (index < words.len()).then_some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<(String, usize)> {
        let lower = text.to_ascii_lowercase();
        words(text, &lower)
            .into_iter()
            .map(|word| (word.text.into_owned(), word.sentence))
            .collect()
    }

    #[test]
    fn words_sentences_and_apostrophes() {
        assert_eq!(
            split("Don’t Read it. Then: go!\n- item one\n- item two"),
            [
                ("don't".to_owned(), 0),
                ("read".to_owned(), 0),
                ("it".to_owned(), 0),
                ("then".to_owned(), 1),
                ("go".to_owned(), 1),
                ("item".to_owned(), 2),
                ("one".to_owned(), 2),
                ("item".to_owned(), 3),
                ("two".to_owned(), 3),
            ]
        );
        // `e.g.` inside a sentence and a path do not end it.
        let found = split("see ~/.ssh/id_rsa now");
        assert!(
            found.iter().all(|(_, sentence)| *sentence == 0),
            "{found:?}"
        );
    }

    #[test]
    fn sentences_around_a_byte_are_what_the_words_say() {
        let text = "One. Two words here!\n- three\nfour; five";
        for (at, expected) in [
            (0, "One."),
            (7, "Two words here!"),
            (25, "- three\nfour;"),
            (38, "five"),
        ] {
            assert_eq!(
                &text[sentence_around(text, at)].trim_start(),
                &expected,
                "{at}"
            );
        }
        let long = "a ".repeat(5000);
        let window = sentence_around(&long, 5000);
        assert!(window.len() <= 2 * MAX_SENTENCE + 1, "{window:?}");
    }

    const IGNORE: &[Step] = &[
        one(&["ignore"]),
        maybe(&["all"]),
        maybe(&["the", "your"]),
        one(&["previous", "prior"]),
        one(&["instructions"]),
    ];

    fn found(text: &str) -> Vec<String> {
        let lower = text.to_ascii_lowercase();
        let list = words(text, &lower);
        find(&list, &[IGNORE])
            .into_iter()
            .map(|range| {
                text[list[range.start].span.start..list[range.end - 1].span.end].to_owned()
            })
            .collect()
    }

    #[test]
    fn phrases_with_optional_steps_within_a_sentence() {
        assert_eq!(
            found("Please IGNORE all the previous instructions now"),
            ["IGNORE all the previous instructions"]
        );
        assert_eq!(
            found("ignore prior instructions; ignore your previous instructions"),
            [
                "ignore prior instructions",
                "ignore your previous instructions"
            ]
        );
        assert!(found("ignore the. previous instructions").is_empty());
        assert!(found("ignore previous\n\ninstructions").is_empty());
        assert!(found("ignored previous instructions").is_empty());
    }

    #[test]
    fn negation_looks_back_within_the_sentence() {
        let text = "Never ignore it. Ignore it.";
        let lower = text.to_ascii_lowercase();
        let list = words(text, &lower);
        assert!(negated(&list, 1, 3));
        assert!(!negated(&list, 3, usize::MAX));
        assert_eq!(word_at_or_after(&list, 5), Some(1));
    }
}
