//! RFC 3339 `date-time` (§5.6), as JSON Schema's `format: date-time` asserts it: a `T`
//! separator (not a space), an offset or `Z`, real calendar dates, and a leap second only at
//! 23:59:60 UTC.

use std::cmp::Ordering;

/// A parsed date-time as an instant: seconds since 1970-01-01T00:00:00Z, plus the fraction's
/// digits (without trailing zeros), compared without floating point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instant {
    seconds: i64,
    fraction: String,
}

impl Ord for Instant {
    fn cmp(&self, other: &Self) -> Ordering {
        self.seconds.cmp(&other.seconds).then_with(|| {
            let width = self.fraction.len().max(other.fraction.len());
            format!("{:0<width$}", self.fraction).cmp(&format!("{:0<width$}", other.fraction))
        })
    }
}

impl PartialOrd for Instant {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn digits(text: &[u8], start: usize, count: usize) -> Option<i64> {
    let slice = text.get(start..start + count)?;
    if !slice.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(slice.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; `None` when the text is not one.
pub fn parse(text: &str) -> Option<Instant> {
    let b = text.as_bytes();
    let year = digits(b, 0, 4)?;
    let month = digits(b, 5, 2)?;
    let day = digits(b, 8, 2)?;
    let hour = digits(b, 11, 2)?;
    let minute = digits(b, 14, 2)?;
    let second = digits(b, 17, 2)?;
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !matches!(b.get(10), Some(b'T' | b't'))
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
    {
        return None;
    }
    let days = crate::version::Date {
        year: u32::try_from(year).ok()?,
        month: u32::try_from(month).ok()?,
        day: u32::try_from(day).ok()?,
    }
    .days_since_epoch()?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut index = 19;
    let mut fraction = String::new();
    if b.get(index) == Some(&b'.') {
        index += 1;
        let start = index;
        while b.get(index).is_some_and(u8::is_ascii_digit) {
            index += 1;
        }
        if index == start {
            return None;
        }
        fraction = text[start..index].trim_end_matches('0').to_owned();
    }
    let offset_minutes = match b.get(index) {
        Some(b'Z' | b'z') if index + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if index + 6 == b.len() => {
            let hours = digits(b, index + 1, 2)?;
            let minutes = digits(b, index + 4, 2)?;
            if b[index + 3] != b':' || hours > 23 || minutes > 59 {
                return None;
            }
            let total = hours * 60 + minutes;
            if *sign == b'-' { -total } else { total }
        }
        _ => return None,
    };
    let local = days * 86_400 + hour * 3600 + minute * 60 + second;
    let seconds = local - offset_minutes * 60;
    // A leap second exists only as the last second of a UTC day.
    if second == 60 && seconds.rem_euclid(86_400) != 0 {
        return None;
    }
    Some(Instant { seconds, fraction })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_date_times_parse() {
        for text in [
            "2026-08-13T10:00:00Z",
            "2026-08-13t10:00:00z",
            "2024-02-29T23:59:59.123+02:00",
            "1998-12-31T23:59:60Z",
            "1998-12-31T18:59:60-05:00",
        ] {
            assert!(parse(text).is_some(), "{text}");
        }
    }

    #[test]
    fn invalid_date_times_do_not() {
        for text in [
            "tomorrow",
            "",
            "2026-08-13",
            "2026-08-13 10:00:00Z",
            "2026-08-13T10:00:00",
            "2023-02-29T10:00:00Z",
            "2026-13-01T10:00:00Z",
            "2026-08-13T24:00:00Z",
            "2026-08-13T10:00:00.Z",
            "2026-08-13T10:00:00+0200",
            "2026-08-13T10:00:00Z\n",
            "2026-08-13T10:00:59:60Z",
            "2026-08-13T10:00:60Z",
            "２026-08-13T10:00:00Z",
            "2026-08-13T10:00:00+24:00",
        ] {
            assert!(parse(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn instants_compare_across_offsets_and_fractions() {
        let a = parse("2026-08-13T12:00:00+02:00").unwrap();
        let b = parse("2026-08-13T10:00:00Z").unwrap();
        assert_eq!(a, b);
        let c = parse("2026-08-13T10:00:00.5Z").unwrap();
        let d = parse("2026-08-13T10:00:00.49999Z").unwrap();
        assert!(c > d && d > b);
        assert_eq!(parse("1970-01-01T00:00:00Z").unwrap().seconds, 0);
        assert_eq!(parse("2000-03-01T00:00:00Z").unwrap().seconds, 951_868_800);
    }
}
