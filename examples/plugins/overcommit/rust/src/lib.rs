//! The Rust port of Caldera's native overcommit plugin (Volcano's
//! overcommit), translated from the Go port: it admits (enqueues) jobs only
//! while the cluster, inflated by `overcommit-factor` (default 1.2; below 1
//! means the default), has room for their minResources next to what is in
//! use and what admitted jobs still claim.
#![deny(unsafe_code)]

mod resource;

use caldera::{phase, ArgumentError, Error, Job, JobEnqueueable, Plugin, Session, Value, Vote};

use resource::{allocated_task_num, fits_requested, unmet_min_resources, Quantities};

const FACTOR_ARGUMENT: &str = "overcommit-factor";
const DEFAULT_FACTOR: f64 = 1.2;

/// The session's accounting, in the scheduler's float arithmetic: the
/// factor makes idle fractional.
#[derive(Default)]
pub struct Overcommit {
    factor: f64,
    /// The overcommitted total less what is in use.
    idle: Quantities,
    /// What admitted jobs still claim.
    inqueue: Quantities,
}

caldera::export!(Overcommit);

impl Plugin for Overcommit {
    const NAME: &'static str = "overcommit";

    /// Reads the factor and computes the room left and what admitted jobs
    /// claim.
    fn on_session_open(&mut self, s: &Session) -> Result<(), Error> {
        let mut factor = float64_arg(s, FACTOR_ARGUMENT, DEFAULT_FACTOR)?;
        if factor < 1.0 {
            factor = DEFAULT_FACTOR;
        }
        self.factor = factor;

        let (mut total, mut used) = (Quantities::default(), Quantities::default());
        for n in s.nodes() {
            total.add_view(&n.allocatable);
            used.add_view(&n.used);
        }
        self.idle = total;
        self.idle.multi(factor);
        self.idle.sub(&used);

        self.inqueue = Quantities::default();
        for j in s.jobs() {
            match j.phase.as_str() {
                phase::INQUEUE => self.inqueue.add_view(&j.min_resources),
                // A Running PodGroup below minMember (a finished driver, say)
                // does not reserve its minimum again.
                phase::RUNNING => {
                    if allocated_task_num(s, j) >= j.min_available {
                        self.inqueue.add(&unmet_min_resources(s, j));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Reserves an admitted job's minResources.
    fn on_job_enqueued(&mut self, _: &Session, j: &Job) {
        self.inqueue.add_view(&j.min_resources);
    }
}

impl JobEnqueueable for Overcommit {
    /// Permits a job whose minResources fit the room left next to what
    /// admitted jobs claim. A job without minResources asks for nothing and
    /// is permitted.
    fn job_enqueueable(&mut self, _: &Session, j: &Job) -> Vote {
        if fits_requested(&self.inqueue, &j.min_resources, &self.idle) {
            Vote::Permit
        } else {
            Vote::Reject
        }
    }
}

/// Reads a number the way the Go port (and the scheduler's
/// Arguments.Float64) does: a number of any kind, or a string holding one.
/// Unlike the SDK's `Arguments::float` it keeps a non-finite value the
/// configuration spells out, as Go's strconv.ParseFloat does.
fn float64_arg(s: &Session, key: &str, default: f64) -> Result<f64, ArgumentError> {
    let v = match s.arguments().get(key) {
        None | Some(Value::Nil) => return Ok(default),
        Some(v) => v,
    };
    let f = match v {
        Value::Str(text) => parse_float(text),
        _ => v.as_float(),
    };
    f.ok_or_else(|| ArgumentError { key: key.to_string(), expected: "a number", got: v.clone() })
}

/// Go's strconv.ParseFloat for decimal text: a value beyond f64's range is
/// an error there, where Rust's parser rounds it to an infinity; a signed
/// NaN is an error there too. Hexadecimal text ("0x1p-2"), which Go reads,
/// is refused.
fn parse_float(text: &str) -> Option<f64> {
    let f: f64 = text.parse().ok()?;
    let signed = text.starts_with(|c| c == '+' || c == '-');
    let unsigned = if signed { &text[1..] } else { text };
    let spelled_inf = unsigned.get(..3).map_or(false, |p| p.eq_ignore_ascii_case("inf"));
    if (f.is_infinite() && !spelled_inf) || (f.is_nan() && signed) {
        return None;
    }
    Some(f)
}

#[cfg(test)]
mod tests;
