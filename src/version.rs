//! Package versions `YYYY.MM.DD.N` (VER-1, VER-2) and the reference's next-version rule (VER-B1).

use std::fmt;

/// Why a version string is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionError {
    /// Does not match `^\d{4}\.\d{2}\.\d{2}\.[1-9]\d*$`.
    Pattern,
    /// Matches the pattern but the date does not exist (or the year is below 100).
    Date,
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionError::Pattern => {
                f.write_str("version must use YYYY.MM.DD.N with a positive daily revision")
            }
            VersionError::Date => f.write_str("version date must be a real calendar date"),
        }
    }
}

/// A valid version. `revision` keeps its digits as text: N is unbounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub year: u32,
    pub month: u32,
    pub day: u32,
    pub revision: String,
}

impl Version {
    pub fn parse(text: &str) -> Result<Version, VersionError> {
        let mut parts = text.split('.');
        let (Some(year), Some(month), Some(day), Some(revision), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return Err(VersionError::Pattern);
        };
        let all_digits = |part: &str| part.bytes().all(|byte| byte.is_ascii_digit());
        if year.len() != 4
            || month.len() != 2
            || day.len() != 2
            || !all_digits(year)
            || !all_digits(month)
            || !all_digits(day)
            || revision.is_empty()
            || !all_digits(revision)
            || revision.starts_with('0')
        {
            return Err(VersionError::Pattern);
        }
        let (year, month, day) = (
            year.parse::<u32>().map_err(|_| VersionError::Pattern)?,
            month.parse::<u32>().map_err(|_| VersionError::Pattern)?,
            day.parse::<u32>().map_err(|_| VersionError::Pattern)?,
        );
        // `Date.UTC` maps years 0..=99 to 1900..=1999, so the reference never round-trips them.
        if year < 100 || Date::calendar(year, month, day).is_none() {
            return Err(VersionError::Date);
        }
        Ok(Version {
            year,
            month,
            day,
            revision: revision.to_owned(),
        })
    }

    /// The date part, `YYYY.MM.DD`.
    pub fn date_text(&self) -> String {
        format!("{:04}.{:02}.{:02}", self.year, self.month, self.day)
    }
}

/// Release order: by date, then by daily revision as a number of any size
/// (`2026.12.10.10` comes after `2026.12.10.9`).
impl Ord for Version {
    fn cmp(&self, other: &Version) -> std::cmp::Ordering {
        (self.year, self.month, self.day)
            .cmp(&(other.year, other.month, other.day))
            .then_with(|| self.revision.len().cmp(&other.revision.len()))
            .then_with(|| self.revision.cmp(&other.revision))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.date_text(), self.revision)
    }
}

/// The valid version an invalid one most likely meant, when only its writing is wrong:
/// parts separated by `.` or `-`, a month or day without its leading zero, a revision with
/// leading zeros (`2026.12.1.1` is `2026.12.01.1`, `2026-12-01-01` is `2026.12.01.1`). `None`
/// for a valid version, or one whose date does not exist.
pub fn repaired(text: &str) -> Option<String> {
    if Version::parse(text).is_ok() {
        return None;
    }
    let parts: Vec<&str> = text.trim().split(['.', '-']).collect();
    let [year, month, day, revision] = parts.as_slice() else {
        return None;
    };
    let digits = |part: &str, most: usize| {
        (!part.is_empty() && part.len() <= most && part.bytes().all(|byte| byte.is_ascii_digit()))
            .then(|| part.parse::<u64>().ok())
            .flatten()
    };
    let (month, day) = (digits(month, 2)?, digits(day, 2)?);
    if year.len() != 4 || !year.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let revision = revision.trim_start_matches('0');
    if revision.is_empty() || !revision.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let candidate = format!("{year}.{month:02}.{day:02}.{revision}");
    Version::parse(&candidate).ok().map(|_| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_by_date_then_revision_as_a_number() {
        let mut versions: Vec<Version> = [
            "2026.12.10.9",
            "2026.12.10.10",
            "2026.12.09.99",
            "2027.01.01.1",
            "2026.12.10.100000000000000000000",
        ]
        .iter()
        .map(|text| Version::parse(text).unwrap())
        .collect();
        versions.sort();
        let sorted: Vec<String> = versions.iter().map(ToString::to_string).collect();
        assert_eq!(
            sorted,
            [
                "2026.12.09.99",
                "2026.12.10.9",
                "2026.12.10.10",
                "2026.12.10.100000000000000000000",
                "2027.01.01.1"
            ]
        );
    }

    #[test]
    fn invalid_writings_are_repaired_when_the_date_exists() {
        assert_eq!(repaired("2026.12.1.1").as_deref(), Some("2026.12.01.1"));
        assert_eq!(repaired("2026.1.01.1").as_deref(), Some("2026.01.01.1"));
        assert_eq!(repaired("2026-12-01-01").as_deref(), Some("2026.12.01.1"));
        assert_eq!(repaired(" 2026.12.01.1").as_deref(), Some("2026.12.01.1"));
        assert_eq!(repaired("2026.12.01.1"), None, "valid already");
        assert_eq!(repaired("2026.02.30.1"), None, "no such day");
        assert_eq!(repaired("2026.12.01.0"), None);
        assert_eq!(repaired("26.12.01.1"), None);
        assert_eq!(repaired("2026.12.01"), None);
    }

    #[test]
    fn days_since_epoch_inverts_from_days_since_epoch() {
        for days in [-700_000, -1, 0, 1, 19_000, 20_818, 2_932_896] {
            assert_eq!(
                Date::from_days_since_epoch(days).days_since_epoch(),
                Some(days)
            );
        }
        let february_31 = Date {
            year: 2026,
            month: 2,
            day: 31,
        };
        assert_eq!(february_31.days_since_epoch(), None);
    }

    #[test]
    fn reference_vectors() {
        for ok in [
            "0100.01.01.1",
            "9999.12.31.1",
            "2024.02.29.1",
            "2026.08.20.1",
            "2026.01.01.123456789012345678901234567890",
        ] {
            assert!(Version::parse(ok).is_ok(), "{ok}");
        }
        for date in [
            "0099.12.31.1",
            "0000.01.01.1",
            "2026.02.29.1",
            "2026.13.01.1",
            "2026.00.10.1",
            "2026.01.00.1",
            "1900.02.29.1",
        ] {
            assert_eq!(Version::parse(date), Err(VersionError::Date), "{date}");
        }
        for pattern in [
            "2026.01.01.0",
            "2026.01.01.01",
            "2026.1.01.1",
            " 2026.01.01.1",
            "2026.01.01.1\n",
            "2026.01.01",
            "2026.01.01.1.1",
            "２026.01.01.1",
            "2026.01.01.+1",
            "",
        ] {
            assert_eq!(
                Version::parse(pattern),
                Err(VersionError::Pattern),
                "{pattern:?}"
            );
        }
    }
}

/// A UTC calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: u32,
    pub month: u32,
    pub day: u32,
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Date {
    /// The calendar date, if it exists: squad's one calendar (the proleptic Gregorian calendar
    /// of `chrono`, which the version and date-time parsers both ask).
    pub fn calendar(year: u32, month: u32, day: u32) -> Option<chrono::NaiveDate> {
        chrono::NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)
    }

    fn from_naive(date: chrono::NaiveDate) -> Date {
        use chrono::Datelike;
        Date {
            year: u32::try_from(date.year()).unwrap_or(0),
            month: date.month(),
            day: date.day(),
        }
    }

    /// Today in UTC, from the system clock.
    pub fn today_utc() -> Date {
        Date::from_naive(chrono::Utc::now().date_naive())
    }

    /// The date `days` days after 1970-01-01 (before it, if negative).
    pub fn from_days_since_epoch(days: i64) -> Date {
        let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
        Date::from_naive(
            epoch
                .checked_add_signed(chrono::TimeDelta::days(days))
                .unwrap_or(epoch),
        )
    }

    /// Days since 1970-01-01, the inverse of [`Date::from_days_since_epoch`]; `None` when the
    /// date does not exist (a 31 February).
    pub fn days_since_epoch(self) -> Option<i64> {
        let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?;
        let date = Date::calendar(self.year, self.month, self.day)?;
        Some(date.signed_duration_since(epoch).num_days())
    }

    /// Parses `YYYY-MM-DD`.
    pub fn parse(text: &str) -> Option<Date> {
        let version = Version::parse(&format!("{}.1", text.replace('-', "."))).ok()?;
        Some(Date {
            year: version.year,
            month: version.month,
            day: version.day,
        })
    }
}

/// A moment in UTC, to the second: when an index was built and until when it may be used.
/// Written as RFC 3339 with a `Z` (`2026-12-01T10:00:00Z`), the one form squad reads back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub fn seconds(self) -> i64 {
        self.0
    }

    /// Now, from the system clock.
    pub fn now() -> Timestamp {
        Timestamp(chrono::Utc::now().timestamp())
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, and nothing else.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let bytes = text.as_bytes();
        if bytes.len() != 20 || bytes[10] != b'T' || bytes[19] != b'Z' {
            return None;
        }
        let date = Date::parse(&text[..10])?;
        let field = |range: std::ops::Range<usize>, max: i64| {
            let part = &text[range];
            (part.len() == 2 && part.bytes().all(|byte| byte.is_ascii_digit()))
                .then(|| part.parse::<i64>().ok())
                .flatten()
                .filter(|value| *value <= max)
        };
        if bytes[13] != b':' || bytes[16] != b':' {
            return None;
        }
        let (hours, minutes, seconds) =
            (field(11..13, 23)?, field(14..16, 59)?, field(17..19, 59)?);
        Some(Timestamp(
            date.days_since_epoch()? * 86_400 + hours * 3_600 + minutes * 60 + seconds,
        ))
    }

    /// `seconds` later.
    pub fn plus(self, seconds: i64) -> Timestamp {
        Timestamp(self.0.saturating_add(seconds))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0.div_euclid(86_400);
        let rest = self.0.rem_euclid(86_400);
        let date = Date::from_days_since_epoch(days);
        write!(
            f,
            "{date}T{:02}:{:02}:{:02}Z",
            rest / 3_600,
            rest % 3_600 / 60,
            rest % 60
        )
    }
}

impl Version {
    /// VER-B1: today's date with revision N+1 when the current version is dated today, else 1.
    /// N is incremented exactly (the reference uses a double and loses precision past 2^53).
    pub fn next(&self, today: Date) -> Version {
        let same_day = (self.year, self.month, self.day) == (today.year, today.month, today.day);
        let revision = if same_day {
            increment_decimal(&self.revision)
        } else {
            "1".to_owned()
        };
        Version {
            year: today.year,
            month: today.month,
            day: today.day,
            revision,
        }
    }

    /// `squad version bump`: [`Version::next`], except that a version dated after `today`
    /// is refused. The reference's rule would go back to today's `.1`, a lower version than
    /// the current one; squad never bumps backwards (keeping the future date and counting N up
    /// would hide a clock or typing mistake, and `version check` refuses future dates anyway).
    pub fn bump(&self, today: Date) -> Result<Version, String> {
        if self.date() > today {
            return Err(format!(
                "version {self} is dated after today ({today}), so a bump to today's date would go backwards"
            ));
        }
        Ok(self.next(today))
    }

    pub fn date(&self) -> Date {
        Date {
            year: self.year,
            month: self.month,
            day: self.day,
        }
    }
}

fn increment_decimal(digits: &str) -> String {
    let mut bytes = digits.as_bytes().to_vec();
    for byte in bytes.iter_mut().rev() {
        if *byte == b'9' {
            *byte = b'0';
        } else {
            *byte += 1;
            return String::from_utf8(bytes).unwrap_or_default();
        }
    }
    format!("1{}", String::from_utf8(bytes).unwrap_or_default())
}

/// Where the effective top-level `"version"` string literal is in a manifest (the last one,
/// as the last duplicate key wins), and its value.
pub fn locate_in_manifest(text: &str) -> Result<(std::ops::Range<usize>, String), String> {
    let root = crate::jsonc::parse(text)
        .map_err(|error| format!("the manifest is not valid JSONC: {error}"))?;
    let crate::jsonc::Kind::Object(members) = &root.kind else {
        return Err("the manifest is not a JSON object".to_owned());
    };
    let member = members
        .iter()
        .rev()
        .find(|member| member.key == "version")
        .ok_or_else(|| "the manifest has no `version`".to_owned())?;
    let value = member
        .value
        .as_str()
        .ok_or_else(|| "`version` is not a string".to_owned())?;
    Ok((member.value.span.clone(), value.to_owned()))
}

/// The manifest text with only the version literal replaced; every other byte is kept.
pub fn replace_in_manifest(text: &str, new: &Version) -> Result<String, String> {
    let (span, _) = locate_in_manifest(text)?;
    Ok(splice_version(text, span, &new.to_string()))
}

/// `text` with the version literal at `span` (from [`locate_in_manifest`]) replaced by
/// `version`, every other byte kept.
pub fn splice_version(text: &str, span: std::ops::Range<usize>, version: &str) -> String {
    crate::jsonc::edit::splice(text, span, &format!("\"{version}\""))
}

/// The manifest text with its version literal blanked (`0000.00.00.0`): what the reference's
/// content digest hashes, so that only a change of content counts (CD-1).
pub fn without_version(text: &str) -> Result<String, String> {
    let (span, _) = locate_in_manifest(text)?;
    Ok(splice_version(text, span, "0000.00.00.0"))
}

#[cfg(test)]
mod next_tests {
    use super::*;

    #[test]
    fn timestamps_read_back_what_they_write_and_nothing_else() {
        let moment = Timestamp::parse("2026-12-01T10:20:30Z").unwrap();
        assert_eq!(moment.to_string(), "2026-12-01T10:20:30Z");
        assert_eq!(moment.plus(86_400 * 31).to_string(), "2027-01-01T10:20:30Z");
        assert_eq!(Timestamp(0).to_string(), "1970-01-01T00:00:00Z");
        for wrong in [
            "2026-12-01 10:20:30Z",
            "2026-12-01T10:20:30",
            "2026-02-30T10:20:30Z",
            "2026-12-01T24:00:00Z",
            "2026-12-01T10:20:30+01:00",
        ] {
            assert_eq!(Timestamp::parse(wrong), None, "{wrong}");
        }
    }

    fn date(year: u32, month: u32, day: u32) -> Date {
        Date { year, month, day }
    }

    #[test]
    fn reference_next_vectors() {
        let next =
            |current: &str, today: Date| Version::parse(current).unwrap().next(today).to_string();
        assert_eq!(next("2026.08.13.1", date(2026, 8, 19)), "2026.08.19.1");
        assert_eq!(next("2026.08.19.1", date(2026, 8, 19)), "2026.08.19.2");
        assert_eq!(next("2026.08.19.9", date(2026, 8, 19)), "2026.08.19.10");
        assert_eq!(next("2026.08.13.1", date(2026, 8, 18)), "2026.08.18.1");
        // Not monotonic: a version dated in the future goes back to today's .1.
        assert_eq!(next("2027.01.01.5", date(2026, 8, 18)), "2026.08.18.1");
        assert_eq!(
            next("2026.08.19.99999999999999999999", date(2026, 8, 19)),
            "2026.08.19.100000000000000000000"
        );
    }

    #[test]
    fn a_bump_never_goes_backwards() {
        let bump = |current: &str, today: Date| Version::parse(current).unwrap().bump(today);
        assert_eq!(
            bump("2026.08.19.1", date(2026, 8, 19)).unwrap().to_string(),
            "2026.08.19.2"
        );
        assert_eq!(
            bump("2026.08.13.4", date(2026, 8, 19)).unwrap().to_string(),
            "2026.08.19.1"
        );
        let refused = bump("9999.12.31.1", date(2026, 8, 19)).unwrap_err();
        assert!(
            refused.contains("9999.12.31.1 is dated after today (2026-08-19)"),
            "{refused}"
        );
        assert!(bump("2026.08.20.1", date(2026, 8, 19)).is_err());
    }

    #[test]
    fn civil_dates() {
        assert_eq!(Date::from_days_since_epoch(0), date(1970, 1, 1));
        assert_eq!(Date::from_days_since_epoch(20_422), date(2025, 11, 30));
        assert_eq!(Date::from_days_since_epoch(19_782), date(2024, 2, 29));
        assert_eq!(Date::parse("2026-11-30"), Some(date(2026, 11, 30)));
        assert_eq!(Date::parse("2026-02-30"), None);
    }

    #[test]
    fn replaces_only_the_version_literal() {
        let text = "// keep me\n{\n  \"id\": \"x\", /* and me */\n  \"version\" :   \"2026.08.19.1\",\n  \"label\":\"v\"\n}\n";
        let replaced = replace_in_manifest(text, &Version::parse("2026.08.19.2").unwrap()).unwrap();
        assert_eq!(replaced, text.replace("2026.08.19.1", "2026.08.19.2"));
    }
}
