//! Deadline-first job order, a policy that exists only in Rust: a job whose
//! PodGroup carries a deadline annotation goes before one without, and of
//! two with deadlines the earlier goes first. Use it in the tier that should
//! decide between jobs of equal priority:
//!
//! ```yaml
//! tiers:
//! - plugins: [{name: priority}, {name: gang}, {name: deadline}, {name: conformance}]
//! ```
//!
//! The annotation (`caldera.sh/deadline` unless the argument
//! `deadline.annotation` names another) holds an RFC 3339 time such as
//! `2026-05-01T12:00:00+02:00`, or Unix seconds. A job with a value that is
//! neither is treated as having no deadline, and the scheduler's log says so
//! once per job and session.
#![deny(unsafe_code)]

use std::collections::BTreeSet;

use caldera::{log, Job, JobOrder, Level, Plugin, Session};

/// The annotation read when the configuration names none.
pub const DEFAULT_ANNOTATION: &str = "caldera.sh/deadline";

#[derive(Default)]
pub struct Deadline {
    annotation: String,
    // Jobs whose malformed annotation was logged this session.
    warned: BTreeSet<i32>,
}

caldera::export!(Deadline);

impl Plugin for Deadline {
    const NAME: &'static str = "deadline";
    // Annotations do not change within a session.
    const STABLE_ORDER_KEYS: bool = true;

    fn on_session_open(&mut self, s: &Session) -> Result<(), caldera::Error> {
        self.annotation = s.arguments().str("deadline.annotation").unwrap_or(DEFAULT_ANNOTATION).to_string();
        self.warned.clear();
        Ok(())
    }
}

/// `[0, deadline in Unix seconds]` for a job with a deadline, `[1]` for one
/// without: the lower key goes first.
impl JobOrder for Deadline {
    type Key = [f64; 2];
    fn job_order_key(&mut self, _: &Session, job: &Job) -> [f64; 2] {
        let value = match job.annotations.get(&self.annotation) {
            Some(v) => v,
            None => return [1.0, 0.0],
        };
        match parse_deadline(value) {
            Some(t) => [0.0, t as f64],
            None => {
                if self.warned.insert(job.handle) {
                    log(Level::Warning, &format!("job {}/{}: {} {:?} is not an RFC 3339 time or Unix seconds; ordered as if it had no deadline", job.namespace, job.name, self.annotation, value));
                }
                [1.0, 0.0]
            }
        }
    }
}

/// Unix seconds of an RFC 3339 time (`2026-05-01T12:00:00Z`, fractions and
/// offsets allowed) or of a plain integer.
pub fn parse_deadline(v: &str) -> Option<i64> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<i64>() {
        return Some(secs);
    }
    let b = v.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        let s = v.get(from..to)?;
        if s.bytes().all(|c| c.is_ascii_digit()) {
            s.parse().ok()
        } else {
            None
        }
    };
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hour, minute, second) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // An optional fraction, then Z or an offset.
    let mut rest = &v[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let o = rest.as_bytes();
            if o.len() != 6 || !matches!(o[0], b'+' | b'-') || o[3] != b':' {
                return None;
            }
            let h: i64 = rest.get(1..3)?.parse().ok()?;
            let m: i64 = rest.get(4..6)?.parse().ok()?;
            let sign = if o[0] == b'-' { -1 } else { 1 };
            sign * (h * 3600 + m * 60)
        }
    };
    Some(days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

#[cfg(test)]
mod tests {
    use super::*;
    use caldera::{Arguments, Value, View};

    #[test]
    fn parses_rfc3339_and_unix_seconds() {
        assert_eq!(parse_deadline("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_deadline("2026-05-01T12:00:00Z"), Some(1777636800));
        assert_eq!(parse_deadline("2026-05-01T12:00:00.250+02:00"), Some(1777636800 - 7200));
        assert_eq!(parse_deadline("2024-02-29T00:00:00-00:30"), Some(1709164800 + 1800));
        assert_eq!(parse_deadline("1777636800"), Some(1777636800));
        for bad in ["", "tomorrow", "2026-02-30T00:00:00Z", "2026-05-01T12:00:00", "2026-05-01T12:00:00+2:00", "2026-05-01T12:00:00.Z"] {
            assert_eq!(parse_deadline(bad), None, "{:?}", bad);
        }
    }

    #[test]
    fn earlier_deadlines_go_first_and_none_last() {
        let job = |name: &str, deadline: Option<&str>| Job {
            name: name.into(),
            annotations: deadline.map(|d| ("team.example/due".to_string(), d.to_string())).into_iter().collect(),
            ..Job::default()
        };
        let view = View {
            jobs: vec![job("none", None), job("late", Some("2026-06-01T00:00:00Z")), job("early", Some("2026-05-01T00:00:00Z")), job("bad", Some("soon"))],
            ..View::default()
        };
        let args: Arguments = [("deadline.annotation", Value::from("team.example/due"))].into_iter().collect();
        let s = Session::new(view, args);
        let mut d = Deadline::default();
        d.on_session_open(&s).unwrap();
        let mut order: Vec<&Job> = s.jobs().iter().collect();
        let mut keyed: Vec<([f64; 2], &str)> = order.drain(..).map(|j| (d.job_order_key(&s, j), j.name.as_str())).collect();
        keyed.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
        let names: Vec<&str> = keyed.iter().map(|k| k.1).collect();
        assert_eq!(names, ["early", "late", "none", "bad"]);
    }
}
