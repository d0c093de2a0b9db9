//! The annotation's grammar: `name=quantity` pairs separated by commas,
//! such as `cpu=6,memory=2Gi,nvidia.com/gpu=1`.

use std::collections::BTreeSet;
use std::fmt;

use caldera::Resource;

/// Why an annotation cannot be read; its message is the one the Go version
/// of this handler logs, except for quantities of more than 18 digits,
/// which the Go version refuses and this one reads as long as they fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed(String);

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Malformed {}

fn malformed<T>(msg: String) -> Result<T, Malformed> {
    Err(Malformed(msg))
}

/// Reads a reservation: `cpu` in milli-CPU, `memory` in bytes, `pods` as a
/// count and any other name as a scalar in milli-units, each rounded up.
/// Whitespace around names and quantities is ignored; an empty pair, a
/// pair without `=`, a name given twice or a quantity that is not one is an
/// error.
pub fn parse_reservation(text: &str) -> Result<Resource, Malformed> {
    let mut r = Resource::default();
    let mut seen = BTreeSet::new();
    for pair in text.split(',') {
        let (name, value) = match pair.split_once('=') {
            Some((name, value)) => (name.trim(), value.trim()),
            None if pair.trim().is_empty() => return malformed("an empty entry".into()),
            None => return malformed(format!("{:?} has no =", pair.trim())),
        };
        if name.is_empty() {
            return malformed("an entry has no resource name".into());
        }
        if value.is_empty() {
            return malformed(format!("{} has no quantity", name));
        }
        if !seen.insert(name) {
            return malformed(format!("{} is given twice", name));
        }
        let unit = if name == "memory" || name == "pods" { 1 } else { 1000 };
        let q = parse_quantity(value, unit).map_err(|e| Malformed(format!("{}: {}", name, e)))?;
        match name {
            "cpu" => r.milli_cpu = q,
            "memory" => r.memory = q,
            _ => {
                r.scalars.insert(name.to_string(), q);
            }
        }
    }
    Ok(r)
}

/// A quantity's suffix as a multiplier and a divisor.
fn suffix(s: &str) -> Option<(u128, u128)> {
    Some(match s {
        "" => (1, 1),
        "m" => (1, 1000),
        "k" => (1_000, 1),
        "M" => (1_000_000, 1),
        "G" => (1_000_000_000, 1),
        "T" => (1_000_000_000_000, 1),
        "P" => (1_000_000_000_000_000, 1),
        "E" => (1_000_000_000_000_000_000, 1),
        "Ki" => (1 << 10, 1),
        "Mi" => (1 << 20, 1),
        "Gi" => (1 << 30, 1),
        "Ti" => (1 << 40, 1),
        "Pi" => (1 << 50, 1),
        "Ei" => (1 << 60, 1),
        _ => return None,
    })
}

/// Reads a non-negative decimal number (`6`, `1.5`, `.25`) with an optional
/// suffix and returns it times `unit`, rounded up to an integer.
pub fn parse_quantity(s: &str, unit: u128) -> Result<i64, Malformed> {
    let not_a_quantity = || Malformed(format!("{:?} is not a quantity", s));
    let end = s.bytes().take_while(|c| c.is_ascii_digit() || *c == b'.').count();
    let (number, suffix) = s.split_at(end);
    let (mult, div) = self::suffix(suffix).ok_or_else(not_a_quantity)?;
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && frac.is_empty()) || frac.contains('.') {
        return Err(not_a_quantity());
    }
    let too_large = || Malformed(format!("{:?} is too large", s));
    // unit * mult is at most 1000 * 2^60: every product below fits in u128.
    let scale = unit * mult;
    // The fraction times scale, floor(frac * scale) and whether anything
    // was left below the point, digit by digit from the last one (Horner):
    // exact whatever the number of digits.
    let (mut below, mut inexact) = (0u128, false);
    for d in frac.bytes().rev() {
        let t = u128::from(d - b'0') * scale + below;
        below = t / 10;
        inexact |= t % 10 != 0;
    }
    let mut whole_value = 0u128;
    for d in whole.bytes() {
        whole_value = whole_value.checked_mul(10).and_then(|v| v.checked_add(u128::from(d - b'0'))).ok_or_else(too_large)?;
    }
    let total = whole_value.checked_mul(scale).and_then(|v| v.checked_add(below)).ok_or_else(too_large)?;
    // Rounded up; a remainder below the point always rounds up.
    let rounded = if inexact { total / div + 1 } else { (total + div - 1) / div };
    i64::try_from(rounded).map_err(|_| too_large())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(cpu: i64, memory: i64, scalars: &[(&str, i64)]) -> Resource {
        Resource { milli_cpu: cpu, memory, scalars: scalars.iter().map(|(k, v)| (k.to_string(), *v)).collect() }
    }

    #[test]
    fn reservations_parse_to_the_units_of_the_view() {
        for (text, want) in [
            ("cpu=6,memory=2Gi", resource(6000, 2 << 30, &[])),
            (" cpu = 500m ", resource(500, 0, &[])),
            ("cpu=1.5", resource(1500, 0, &[])),
            ("cpu=0.25", resource(250, 0, &[])),
            ("cpu=1m", resource(1, 0, &[])),
            ("cpu=1.5m", resource(2, 0, &[])),
            ("memory=1.5Ki", resource(0, 1536, &[])),
            ("memory=0.5", resource(0, 1, &[])),
            ("memory=100m", resource(0, 1, &[])),
            ("memory=1G,pods=3", resource(0, 1_000_000_000, &[("pods", 3)])),
            ("pods=1.5", resource(0, 0, &[("pods", 2)])),
            ("nvidia.com/gpu=1,cpu=.25", resource(250, 0, &[("nvidia.com/gpu", 1000)])),
            ("example.com/fpga=2k", resource(0, 0, &[("example.com/fpga", 2_000_000)])),
            ("memory=1Ei", resource(0, 1 << 60, &[])),
            ("memory=7E", resource(0, 7_000_000_000_000_000_000, &[])),
            ("cpu=5.", resource(5000, 0, &[])),
            ("cpu=0", resource(0, 0, &[])),
        ] {
            assert_eq!(parse_reservation(text), Ok(want), "{:?}", text);
        }
    }

    #[test]
    fn long_numbers_round_exactly() {
        // 0.000...001 of 40 digits is above zero: one byte.
        let tiny = format!("memory=0.{}1", "0".repeat(39));
        assert_eq!(parse_reservation(&tiny).unwrap().memory, 1);
        // Trailing zeros change nothing, leading ones neither.
        let long = format!("cpu=000{}.5{}", "0".repeat(30), "0".repeat(40));
        assert_eq!(parse_reservation(&long).unwrap().milli_cpu, 500);
        // The largest int64, and one past it.
        assert_eq!(parse_quantity("9223372036854775807", 1), Ok(i64::MAX));
        assert_eq!(parse_quantity("9223372036854775.807", 1000), Ok(i64::MAX));
        assert!(parse_quantity("9223372036854775808", 1).is_err());
        assert!(parse_quantity("9223372036854775.8071", 1000).is_err());
    }

    #[test]
    fn malformed_reservations_say_why() {
        for (text, want) in [
            ("cpu=abc", r#"cpu: "abc" is not a quantity"#),
            ("cpu=6,", "an empty entry"),
            ("cpu=6, ,memory=1", "an empty entry"),
            ("cpu", r#""cpu" has no ="#),
            ("=6", "an entry has no resource name"),
            ("cpu=", "cpu has no quantity"),
            ("cpu= ", "cpu has no quantity"),
            ("cpu=1, cpu=2", "cpu is given twice"),
            ("cpu=-1", r#"cpu: "-1" is not a quantity"#),
            ("cpu=+1", r#"cpu: "+1" is not a quantity"#),
            ("memory=2Gb", r#"memory: "2Gb" is not a quantity"#),
            ("memory=2 Gi", r#"memory: "2 Gi" is not a quantity"#),
            ("memory=1.2.3", r#"memory: "1.2.3" is not a quantity"#),
            ("memory=.", r#"memory: "." is not a quantity"#),
            ("memory=Gi", r#"memory: "Gi" is not a quantity"#),
            ("memory=1e3", r#"memory: "1e3" is not a quantity"#),
            ("nvidia.com/gpu=9E", r#"nvidia.com/gpu: "9E" is too large"#),
            ("memory=8Ei", r#"memory: "8Ei" is too large"#),
            ("memory=99999999999999999999999999999999999999999", r#"memory: "99999999999999999999999999999999999999999" is too large"#),
        ] {
            assert_eq!(parse_reservation(text).map_err(|e| e.to_string()), Err(want.to_string()), "{:?}", text);
        }
    }
}
