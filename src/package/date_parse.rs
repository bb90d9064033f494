//! Which strings JavaScript's `Date.parse` turns into a date, for a skill's `expires_at`
//! (SKL-4). The reference runs on Bun (JavaScriptCore); engines agree on the ISO format and
//! differ on the rest, so squad is exact where they agree and generous where they do not:
//! - an ISO-shaped string (`YYYY-MM-DD`, `YYYY-MM`, `YYYY`, with an optional `THH:mm[:ss[.sss]]`
//!   or ` HH:mm…` and a `Z`/`±HH:mm` offset) must have every field in range (month 1–12, day
//!   1–31, hour 0–24 with 24 only at `24:00`, minute and second 0–59, offset hour 0–23); after
//!   a space, a legacy time (`10:00 PM`, `10:00:00 GMT+2`) is taken too, with its fields in
//!   range and no unknown word: `2026-01-32`, `2026-01-01T25:00` and `2026-01-01 garbage` are
//!   not dates;
//! - any other string is a legacy date when it holds a digit and no word but month and day
//!   names, AM/PM and time-zone names (`Jan 1 2026`, `1/2/2026 10:00 PM`, `Thu, 01 Jan 2026
//!   00:00:00 GMT`; a parenthesised comment, as `Date.prototype.toString` writes, is passed
//!   over), and is not a time of day alone or a number too large for a year.
//!
//! Checked against V8's `Date.parse` in `tests` below.

/// Whether `Date.parse(text)` gives a date rather than `NaN`.
pub fn accepts(text: &str) -> bool {
    let text = text.trim();
    // Every spelling either engine reads is ASCII; slicing below relies on it.
    if !text.is_ascii() {
        return false;
    }
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    match iso(text) {
        Some(valid) => valid,
        None => legacy(text),
    }
}

/// `Some(valid)` for a string shaped like the ISO format (a 4-digit or signed 6-digit year, then
/// `-`): whether every field is in range and nothing follows. `None` for any other shape.
fn iso(text: &str) -> Option<bool> {
    let bytes = text.as_bytes();
    let year_digits = match bytes.first()? {
        b'+' | b'-' => 6,
        _ => 4,
    };
    let year_start = usize::from(year_digits == 6);
    let year_end = year_start + year_digits;
    if bytes.len() < year_end || !bytes[year_start..year_end].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut at = year_end;
    if at == bytes.len() {
        return Some(text != "-000000");
    }
    if bytes[at] != b'-' {
        return None;
    }
    // Fields of exactly two digits; the date part is ISO from here on.
    let two = |at: usize| -> Option<u32> {
        let field = text.get(at..at + 2)?;
        field
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| field.parse().ok())?
    };
    // A field ends where the ISO grammar allows; `2026-1-1`, `2026-01-1` and `2026-001` are
    // legacy spellings, which engines read their own ways.
    let ends_field = |at: usize| matches!(bytes.get(at), None | Some(b'-' | b'T' | b't' | b' '));
    let month = two(at + 1).filter(|_| ends_field(at + 3))?;
    at += 3;
    if !(1..=12).contains(&month) {
        return Some(false);
    }
    if bytes.get(at) == Some(&b'-') {
        match two(at + 1).filter(|_| ends_field(at + 3) && bytes.get(at + 3) != Some(&b'-')) {
            Some(day) if (1..=31).contains(&day) => at += 3,
            Some(_) => return Some(false),
            None => return None,
        }
    }
    if text.starts_with("-000000") {
        return Some(false);
    }
    let rest = &text[at..];
    if rest.is_empty() {
        return Some(true);
    }
    if let Some(time) = rest.strip_prefix(['T', 't']) {
        return Some(iso_time(time));
    }
    // A date, then a space: an ISO time, or what legacy parsers take after a date (`10:00 PM`,
    // `10:00:00 GMT+2`), with its fields in range.
    let time = rest.trim_start();
    Some(iso_time(time) || legacy_time(time))
}

/// A time as legacy parsers read it after a date: `H:MM[:SS]`, then any of AM/PM, a zone name
/// and a signed offset, and no other word.
fn legacy_time(text: &str) -> bool {
    let clock = text.split_whitespace().next().unwrap_or_default();
    let fields: Vec<&str> = clock.split(':').collect();
    let numbers: Option<Vec<u32>> = fields
        .iter()
        .map(|field| {
            (!field.is_empty() && field.len() <= 2 && field.bytes().all(|b| b.is_ascii_digit()))
                .then(|| field.parse().ok())?
        })
        .collect();
    let in_range = match numbers.as_deref() {
        Some([hour, minute]) => *hour <= 24 && *minute <= 59,
        Some([hour, minute, second]) => *hour <= 24 && *minute <= 59 && *second <= 59,
        _ => false,
    };
    in_range && known_words(&words(&text[clock.len()..]))
}

/// `HH:mm[:ss[.sss]]` then nothing, `Z` or an offset.
fn iso_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    let number = |from: usize| -> Option<u32> {
        let field = text.get(from..from + 2)?;
        field
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| field.parse().ok())?
    };
    let (Some(hour), Some(b':'), Some(minute)) = (number(0), bytes.get(2), number(3)) else {
        return false;
    };
    let mut at = 5;
    let mut second = 0;
    let mut fraction_zero = true;
    if bytes.get(at) == Some(&b':') {
        let Some(value) = number(at + 1) else {
            return false;
        };
        second = value;
        at += 3;
        if bytes.get(at) == Some(&b'.') {
            let digits = bytes[at + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits == 0 {
                return false;
            }
            fraction_zero = bytes[at + 1..at + 1 + digits].iter().all(|b| *b == b'0');
            at += 1 + digits;
        }
    }
    let in_range = minute <= 59
        && second <= 59
        && (hour <= 23 || (hour == 24 && minute == 0 && second == 0 && fraction_zero));
    if !in_range {
        return false;
    }
    let zone = text[at..].trim_start();
    match zone {
        "" | "Z" | "z" | "UTC" | "GMT" => true,
        _ => {
            let Some(offset) = zone
                .strip_prefix(['+', '-'])
                .filter(|offset| offset.is_ascii())
            else {
                return false;
            };
            let (hours, minutes) = match offset.len() {
                5 if offset.as_bytes()[2] == b':' => (&offset[..2], &offset[3..]),
                4 => (&offset[..2], &offset[2..]),
                _ => return false,
            };
            match (hours.parse::<u32>(), minutes.parse::<u32>()) {
                (Ok(hours), Ok(minutes)) => {
                    hours <= 23
                        && minutes <= 59
                        && hours.to_string().len() <= 2
                        && offset.bytes().filter(u8::is_ascii_digit).count() == 4
                }
                _ => false,
            }
        }
    }
}

/// Words a legacy date may hold besides numbers: month and day names (or their first three
/// letters), AM/PM, and time zones.
const WORDS: [&str; 29] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "am",
    "pm",
    "utc",
    "gmt",
    "ut",
    "z",
    "est",
    "edt",
    "cst",
    "cdt",
];
const MORE_ZONES: [&str; 4] = ["mst", "mdt", "pst", "pdt"];

/// Whether every word is one a legacy date may hold.
fn known_words(words: &[String]) -> bool {
    words.iter().all(|word| {
        WORDS.iter().chain(MORE_ZONES.iter()).any(|known| {
            known == word
                || (word.len() >= 3 && known.len() > 3 && known.starts_with(word.as_str()))
        })
    })
}

/// The lower-cased words of `text` outside parentheses (a comment, as `Date.prototype.toString`
/// ends with, is passed over).
fn words(text: &str) -> Vec<String> {
    let mut depth = 0usize;
    let outside: String = text
        .chars()
        .map(|c| match c {
            '(' => {
                depth += 1;
                ' '
            }
            ')' => {
                depth = depth.saturating_sub(1);
                ' '
            }
            _ if depth > 0 => ' ',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    outside
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

fn legacy(text: &str) -> bool {
    let words = words(text);
    if !known_words(&words) {
        return false;
    }
    let has_month_word = words.iter().any(|word| {
        word.len() >= 3
            && WORDS[..12]
                .iter()
                .any(|month| month.starts_with(word.as_str()))
    });
    let numbers: Vec<&str> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|number| !number.is_empty())
        .collect();
    // A time of day alone (`12:00`) is not a date.
    if !has_month_word && text.contains(':') && !text.contains(['/', '-', '.', ',', ' ']) {
        return false;
    }
    // A bare number is read as a year, which has at most six digits.
    if !has_month_word && numbers.len() == 1 && numbers[0].len() > 6 {
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each string with what V8's `Date.parse` (Node 20) gave: a date or `NaN`.
    #[test]
    fn agrees_with_v8_on_iso_strings_and_the_usual_legacy_spellings() {
        let cases = [
            ("2026-01-31", true),
            ("2026-02-30", true),
            ("2026-01-32", false),
            ("2026-13-01", false),
            ("2026-00-10", false),
            ("2026", true),
            ("2026-01", true),
            ("2026-01-01T10:00", true),
            ("2026-01-01T24:00", true),
            ("2026-01-01T24:00:01", false),
            ("2026-01-01T25:00", false),
            ("2026-01-01T23:60", false),
            ("2026-01-01T10:00Z", true),
            ("2026-01-01T10:00:00.123+05:30", true),
            ("2026-01-01t10:00", true),
            ("2026-01-01 10:00", true),
            ("2026-01-01 10:00:00Z", true),
            ("2026-01-01T10:00:00+0530", true),
            ("2026-06-15T10:00:00+23:59", true),
            ("2026-06-15T10:00:00+25:00", false),
            ("+002026-01-01", true),
            ("2026-01-01 garbage", false),
            ("2026-01-01T10", false),
            (" 2026-01-01", true),
            ("2026-01-01 ", true),
            ("2026/01/01", true),
            ("01/02/2026", true),
            ("1/2/2026 10:00 PM", true),
            ("Jan 1 2026", true),
            ("January 1, 2026", true),
            ("1 Jan 2026", true),
            ("Jan 2026", true),
            ("2026 Jan 1", true),
            ("Mon Jan 01 2026", true),
            ("Thu, 01 Jan 2026 00:00:00 GMT", true),
            ("Dec 25, 2026 10:00:00 UTC", true),
            ("Foo 1 2026", false),
            ("x1", false),
            ("12:00", false),
            ("9999999", false),
            ("tomorrow", false),
            ("", false),
            ("2026-01-01T10:00+aé0", false),
            ("2026-01-0é", false),
            ("Jän 1 2026", false),
        ];
        let wrong: Vec<_> = cases
            .iter()
            .filter(|(text, expected)| accepts(text) != *expected)
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn no_prefix_or_spliced_character_makes_it_panic() {
        let samples = [
            "2026-01-01T10:00:00.123+05:30",
            "Thu, 01 Jan 2026 00:00:00 GMT",
            "+002026-01-01",
            "1/2/2026 10:00 PM",
        ];
        let mut checked = 0;
        for sample in samples {
            for end in 0..=sample.len() {
                for spliced in ["", "é", "\u{1F600}", "\u{0}"] {
                    let text = format!("{}{spliced}{}", &sample[..end], &sample[end..]);
                    let _ = accepts(&text);
                    let _ = accepts(&text[..end + spliced.len()]);
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 368);
    }
}
