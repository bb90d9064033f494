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
        if year < 100 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month)
        {
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

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.date_text(), self.revision)
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        _ => 28,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
