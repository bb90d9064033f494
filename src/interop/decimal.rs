//! Exact sums of JSON number literals. Budget shares must add up to at most 1, and f64 gets
//! that wrong: 0.2 + 0.4 + 0.3 + 0.1 is 1.0000000000000002 in binary floating point.

use std::cmp::Ordering;

/// A non-negative decimal `digits × 10^exponent`, parsed from JSON number text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    /// Decimal digits, most significant first, without leading zeros (empty for zero).
    digits: Vec<u8>,
    exponent: i64,
}

/// Values below 10^-FLOOR are "tiny": they cannot change whether a sum of fewer than 10^20
/// shares reaches 1 unless the other shares sum to exactly 1, and are compared that way.
const FLOOR: i64 = 65_536;

/// Exponents beyond this are clamped: the value is then far beyond 1 or far below 10^-FLOOR
/// either way, so the comparison with 1 does not change.
const EXPONENT_CLAMP: i64 = 1 << 40;

fn parse_exponent(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    let magnitude = if significant.is_empty() {
        0
    } else {
        significant
            .parse::<i64>()
            .map_or(EXPONENT_CLAMP, |value| value.min(EXPONENT_CLAMP))
    };
    Some(if negative { -magnitude } else { magnitude })
}

fn parse(text: &str) -> Option<Decimal> {
    let mut text = text.trim();
    if let Some(rest) = text.strip_prefix('-') {
        // Only zero may carry a minus sign: -0 is a share of nothing.
        text = rest;
        let mantissa = rest.split(['e', 'E']).next().unwrap_or_default();
        if mantissa.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
            return None;
        }
    }
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(index) => (&text[..index], parse_exponent(&text[index + 1..])?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut digits: Vec<u8> = whole
        .bytes()
        .chain(fraction.bytes())
        .map(|b| b - b'0')
        .skip_while(|digit| *digit == 0)
        .collect();
    let mut exponent = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
    while digits.last() == Some(&0) {
        digits.pop();
        exponent += 1;
    }
    Some(Decimal { digits, exponent })
}

impl Decimal {
    /// The power of ten just above the value: value < 10^magnitude.
    fn magnitude(&self) -> i64 {
        self.exponent + self.digits.len() as i64
    }
}

/// A non-negative JSON number literal as `mantissa × 10^-scale` (`0.25` → (25, 2), `1e-7` →
/// (1, 7), `2.5E3` → (2500, 0)), for exact products; `None` when it is negative, not a number,
/// or does not fit in 38 digits.
pub fn scaled(text: &str) -> Option<(u128, u32)> {
    let value = parse(text)?;
    if value.digits.is_empty() {
        return Some((0, 0));
    }
    if value.digits.len() > 38 {
        return None;
    }
    let mut mantissa: u128 = 0;
    for digit in &value.digits {
        mantissa = mantissa * 10 + u128::from(*digit);
    }
    if value.exponent >= 0 {
        let factor = 10u128.checked_pow(u32::try_from(value.exponent).ok()?)?;
        Some((mantissa.checked_mul(factor)?, 0))
    } else {
        let scale = u32::try_from(-value.exponent)
            .ok()
            .filter(|scale| *scale <= 38)?;
        Some((mantissa, scale))
    }
}

fn render(mantissa: u128, scale: u32) -> String {
    let digits = format!("{mantissa:0>width$}", width = scale as usize + 1);
    let (whole, fraction) = digits.split_at(digits.len() - scale as usize);
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        whole.to_owned()
    } else {
        format!("{whole}.{fraction}")
    }
}

/// The exact product of two non-negative number literals, as decimal text: a share of 0.1 of
/// 30 EUR is 3, not 3.0000000000000004.
pub fn product(a: &str, b: &str) -> Option<String> {
    let (ma, sa) = scaled(a.trim())?;
    let (mb, sb) = scaled(b.trim())?;
    Some(render(ma.checked_mul(mb)?, sa + sb))
}

/// ⌊share × n⌋, exactly.
pub fn floor_times(share: &str, n: u64) -> Option<u64> {
    let (mantissa, scale) = scaled(share.trim())?;
    let product = mantissa.checked_mul(u128::from(n))?;
    u64::try_from(product / 10u128.checked_pow(scale)?).ok()
}

/// Compares the sum of non-negative JSON number literals with 1, exactly. `None` when a text is
/// not a non-negative JSON number.
pub fn compare_sum_with_one(texts: &[&str]) -> Option<Ordering> {
    let values: Vec<Decimal> = texts
        .iter()
        .map(|text| parse(text))
        .collect::<Option<_>>()?;
    let values: Vec<&Decimal> = values.iter().filter(|v| !v.digits.is_empty()).collect();
    if values.iter().any(|value| value.magnitude() > 1) {
        return Some(Ordering::Greater);
    }
    let (tiny, exact): (Vec<&Decimal>, Vec<&Decimal>) =
        values.iter().partition(|value| value.magnitude() < -FLOOR);
    // Every remaining value is < 10 with its last digit at 10^exponent >= 10^(-FLOOR - len).
    let low = exact
        .iter()
        .map(|value| value.exponent)
        .min()
        .unwrap_or(0)
        .min(0);
    // Column i of `sum` holds the digit of 10^(low + i); the sum of fewer than 10^20 values
    // below 10 fits in 22 integer digits.
    let width = usize::try_from(-low).ok()? + 24;
    let mut sum = vec![0u32; width];
    for value in &exact {
        let start = usize::try_from(value.exponent - low).ok()?;
        for (offset, digit) in value.digits.iter().rev().enumerate() {
            sum[start + offset] += u32::from(*digit);
        }
    }
    let mut carry = 0u32;
    for column in &mut sum {
        let total = *column + carry;
        *column = total % 10;
        carry = total / 10;
    }
    // One is the digit 1 at column -low and zeros elsewhere.
    let one_column = usize::try_from(-low).ok()?;
    let ordering = sum
        .iter()
        .enumerate()
        .rev()
        .map(|(column, digit)| digit.cmp(&u32::from(column == one_column)))
        .find(|ordering| *ordering != Ordering::Equal)
        .unwrap_or(Ordering::Equal);
    Some(match ordering {
        Ordering::Equal if !tiny.is_empty() => Ordering::Greater,
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::{Equal, Greater, Less};

    #[test]
    fn the_seed_vectors() {
        assert_eq!(
            compare_sum_with_one(&["0.2", "0.4", "0.3", "0.1"]),
            Some(Equal)
        );
        assert_eq!(compare_sum_with_one(&["0.8", "0.7", "0.7"]), Some(Greater));
        assert_eq!(compare_sum_with_one(&["0.7", "1.5"]), Some(Greater));
        assert_eq!(compare_sum_with_one(&["0.7", "0.3"]), Some(Equal));
    }

    #[test]
    fn exponents_zeros_and_tiny_values() {
        assert_eq!(compare_sum_with_one(&["1e0"]), Some(Equal));
        assert_eq!(compare_sum_with_one(&["10E-1", "0"]), Some(Equal));
        assert_eq!(
            compare_sum_with_one(&["0.5", "5e-1", "1e-70000"]),
            Some(Greater)
        );
        assert_eq!(compare_sum_with_one(&["0.5", "1e-70000"]), Some(Less));
        assert_eq!(
            compare_sum_with_one(&["0.33333333333333333333", "0.66666666666666666667"]),
            Some(Equal)
        );
        assert_eq!(
            compare_sum_with_one(&["0.999999999999999999999"]),
            Some(Less)
        );
        assert_eq!(compare_sum_with_one(&["1e400"]), Some(Greater));
        assert_eq!(compare_sum_with_one(&[]), Some(Less));
        assert_eq!(compare_sum_with_one(&["-0.1"]), None);
        assert_eq!(compare_sum_with_one(&["-0", "1"]), Some(Equal));
    }

    #[test]
    fn products_are_exact() {
        assert_eq!(product("0.1", "30").as_deref(), Some("3"));
        assert_eq!(product("0.25", "10.5").as_deref(), Some("2.625"));
        assert_eq!(product("0", "10").as_deref(), Some("0"));
        assert_eq!(product("-1", "10"), None);
        assert_eq!(product("1e3", "10").as_deref(), Some("10000"));
        assert_eq!(product("1e-7", "10").as_deref(), Some("0.000001"));
        assert_eq!(floor_times("1e-7", 1_000_000_000), Some(100));
        assert_eq!(
            product("0.1000000000000000000001", "10").as_deref(),
            Some("1.000000000000000000001")
        );
        assert_eq!(product("1e-99999", "10"), None);
        assert_eq!(floor_times("0.3", 1000), Some(300));
        assert_eq!(floor_times("0.333", 10), Some(3));
    }

    #[test]
    fn literals_scale_exactly() {
        assert_eq!(scaled("0.25"), Some((25, 2)));
        assert_eq!(scaled("1e-7"), Some((1, 7)));
        assert_eq!(scaled("2.5E3"), Some((2500, 0)));
        assert_eq!(scaled("0.000"), Some((0, 0)));
        assert_eq!(scaled("-1"), None);
        assert_eq!(scaled("1e-99999"), None);
        assert_eq!(scaled("x"), None);
    }

    #[test]
    fn exponents_beyond_any_integer_type_still_compare() {
        let tiny = "1e-99999999999999999999";
        assert_eq!(compare_sum_with_one(&["0.9", "0.9", tiny]), Some(Greater));
        assert_eq!(
            compare_sum_with_one(&["0.5", "1.0e-9223372036854775808"]),
            Some(Less)
        );
        assert_eq!(compare_sum_with_one(&["0.5", "0.5", tiny]), Some(Greater));
        assert_eq!(
            compare_sum_with_one(&["1e99999999999999999999"]),
            Some(Greater)
        );
        assert_eq!(
            compare_sum_with_one(&["0e99999999999999999999", "1"]),
            Some(Equal)
        );
    }
}
