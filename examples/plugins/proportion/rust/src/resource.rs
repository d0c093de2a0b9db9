//! The scheduler's float resource arithmetic (api.Resource and
//! hostplugins/internal/resutil) as the Go port keeps it, operation for
//! operation: deserved shares are sums of fractions, and only the same
//! operations in the same order, with Go's min and max, round alike.

use caldera::Resource;

use crate::gomath::{go_math_max, go_math_min, go_max};
use crate::scalars::Scalars;

/// The scheduler's tolerance: quantities closer than this are equal, and a
/// quantity below it is zero.
pub(crate) const MIN_RESOURCE: f64 = 0.1;

/// What a scalar dimension the right-hand side lacks is worth in a
/// comparison or a minimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Missing {
    Zero,
    Infinity,
}

/// Float quantities: CPU in milli-cores, memory in bytes, scalars in
/// milli-units.
#[derive(Clone, Debug, Default)]
pub(crate) struct Quantities {
    pub(crate) milli_cpu: f64,
    pub(crate) memory: f64,
    pub(crate) scalars: Scalars,
}

impl Quantities {
    pub(crate) fn from_view(d: &Resource) -> Quantities {
        let mut r = Quantities::default();
        r.add_view(d);
        r
    }

    /// Makes `self` what `from_view(d)` returns, keeping its buffers.
    pub(crate) fn set_view(&mut self, d: &Resource) -> &mut Quantities {
        self.milli_cpu = 0.0;
        self.memory = 0.0;
        self.scalars.unlist();
        self.add_view(d)
    }

    /// Makes `self` equal to `d`, keeping its buffers.
    pub(crate) fn copy_from(&mut self, d: &Quantities) {
        self.milli_cpu = d.milli_cpu;
        self.memory = d.memory;
        self.scalars.copy_from(&d.scalars);
    }

    /// Zero, the list of scalars (if any) emptied.
    pub(crate) fn reset(&mut self) {
        self.milli_cpu = 0.0;
        self.memory = 0.0;
        self.scalars.clear();
    }

    pub(crate) fn add(&mut self, d: &Quantities) -> &mut Quantities {
        self.milli_cpu += d.milli_cpu;
        self.memory += d.memory;
        for (n, q) in d.scalars.iter() {
            *self.scalars.at(n) += q;
        }
        self
    }

    /// Adds a quantity of the view, each dimension converted to f64 first.
    pub(crate) fn add_view(&mut self, d: &Resource) -> &mut Quantities {
        self.milli_cpu += d.milli_cpu as f64;
        self.memory += d.memory as f64;
        for (n, &q) in &d.scalars {
            *self.scalars.at(n) += q as f64;
        }
        self
    }

    /// Subtracts `d`; like api.Resource.Sub it leaves scalars alone when
    /// `self` has no list of them.
    pub(crate) fn sub(&mut self, d: &Quantities) -> &mut Quantities {
        self.milli_cpu -= d.milli_cpu;
        self.memory -= d.memory;
        if self.scalars.is_listed() {
            for (n, q) in d.scalars.iter() {
                *self.scalars.at(n) -= q;
            }
        }
        self
    }

    pub(crate) fn sub_view(&mut self, d: &Resource) -> &mut Quantities {
        self.milli_cpu -= d.milli_cpu as f64;
        self.memory -= d.memory as f64;
        if self.scalars.is_listed() {
            for (n, &q) in &d.scalars {
                *self.scalars.at(n) -= q as f64;
            }
        }
        self
    }

    pub(crate) fn multi(&mut self, ratio: f64) -> &mut Quantities {
        self.milli_cpu *= ratio;
        self.memory *= ratio;
        for (_, q) in self.scalars.quantities_mut() {
            *q *= ratio;
        }
        self
    }

    /// Lowers each dimension to `d`'s where `d`'s is smaller; a scalar `d`
    /// lacks is left as is (`Infinity`) or becomes 0 (`Zero`).
    pub(crate) fn min_dimension(&mut self, d: &Quantities, missing: Missing) -> &mut Quantities {
        self.milli_cpu = go_math_min(self.milli_cpu, d.milli_cpu);
        self.memory = go_math_min(self.memory, d.memory);
        for (n, q) in self.scalars.quantities_mut() {
            match d.scalars.get(n) {
                Some(dq) => *q = go_math_min(*q, dq),
                None if missing == Missing::Zero => *q = 0.0,
                None => {}
            }
        }
        self
    }

    /// Whether every dimension is at most `d`'s, within the tolerance. With
    /// `Infinity` a scalar `d` has and `self` lacks fails, one `d` lacks
    /// passes.
    pub(crate) fn less_equal(&self, d: &Quantities, missing: Missing) -> bool {
        if !less_equal_tol(self.milli_cpu, d.milli_cpu) || !less_equal_tol(self.memory, d.memory) {
            return false;
        }
        if missing == Missing::Infinity && d.scalars.iter().any(|(n, _)| self.scalars.get(n).is_none()) {
            return false;
        }
        self.scalars.iter().all(|(n, q)| match d.scalars.get(n) {
            None if missing == Missing::Infinity => true,
            dq => less_equal_tol(q, dq.unwrap_or(0.0)),
        })
    }

    /// Whether every dimension but "pods" is below the tolerance.
    pub(crate) fn is_empty(&self) -> bool {
        self.milli_cpu < MIN_RESOURCE && self.memory < MIN_RESOURCE && self.scalars.iter().all(|(n, q)| n == "pods" || q < MIN_RESOURCE)
    }

    fn set(&mut self, n: &str, q: f64) {
        *self.scalars.at(n) = q;
    }
}

fn less_equal_tol(l: f64, r: f64) -> bool {
    l < r || (l - r).abs() < MIN_RESOURCE
}

/// The part of `l` that exceeds `r`, per dimension.
pub(crate) fn exceeded_part(l: &Quantities, r: &Quantities) -> Quantities {
    let mut out = Quantities::default();
    exceeded_part_into(&mut out, l, r);
    out
}

/// `exceeded_part` written into `out`, whose buffers are reused.
pub(crate) fn exceeded_part_into<'o>(out: &'o mut Quantities, l: &Quantities, r: &Quantities) -> &'o Quantities {
    out.reset();
    out.milli_cpu = go_math_max(0.0, l.milli_cpu - r.milli_cpu);
    out.memory = go_math_max(0.0, l.memory - r.memory);
    for (n, q) in l.scalars.iter() {
        let d = q - r.scalars.value(n);
        if d > 0.0 {
            out.set(n, d);
        }
    }
    out
}

/// The larger of `l` and `r` in every dimension, negative scalars dropped;
/// without a list of scalars when neither has one.
pub(crate) fn max_of(l: &Quantities, r: &Quantities) -> Quantities {
    let mut out = Quantities { milli_cpu: go_max(l.milli_cpu, r.milli_cpu), memory: go_max(l.memory, r.memory), scalars: Scalars::default() };
    if !l.scalars.is_listed() && !r.scalars.is_listed() {
        return out;
    }
    out.scalars.list();
    for (n, q) in l.scalars.iter() {
        if q >= 0.0 {
            *out.scalars.at(n) = q;
        }
    }
    for (n, q) in r.scalars.iter() {
        if q >= 0.0 {
            let p = out.scalars.at(n);
            *p = go_max(q, *p);
        }
    }
    out
}

/// Splits `cur - prev` into what grew and what shrank, a dimension missing
/// on one side counting as zero. Both come with a list of scalars.
pub(crate) fn diff(cur: &Quantities, prev: &Quantities) -> (Quantities, Quantities) {
    let mut grown = Quantities::default();
    let mut shrunk = Quantities::default();
    grown.scalars.list();
    shrunk.scalars.list();
    let split = |c: f64, p: f64| if c > p { (c - p, 0.0) } else { (0.0, p - c) };
    (grown.milli_cpu, shrunk.milli_cpu) = split(cur.milli_cpu, prev.milli_cpu);
    (grown.memory, shrunk.memory) = split(cur.memory, prev.memory);
    let mut scalar = |n: &str, c: f64, p: f64| {
        if c > p {
            grown.set(n, c - p);
        } else {
            shrunk.set(n, p - c);
        }
    };
    for (n, q) in cur.scalars.iter() {
        scalar(n, q, prev.scalars.value(n));
    }
    for (n, q) in prev.scalars.iter() {
        if cur.scalars.get(n).is_none() {
            scalar(n, 0.0, q);
        }
    }
    (grown, shrunk)
}

/// Exact equality, an absent list of scalars equal to an empty one but an
/// absent dimension not equal to a zero one.
pub(crate) fn identical(a: &Quantities, b: &Quantities) -> bool {
    a.milli_cpu == b.milli_cpu && a.memory == b.memory && a.scalars.len() == b.scalars.len() && a.scalars.iter().all(|(n, q)| b.scalars.get(n) == Some(q))
}

/// `used / total`, nothing of nothing counting as 0 and something of
/// nothing as 1.
pub(crate) fn share(used: f64, total: f64) -> f64 {
    if total == 0.0 {
        return if used == 0.0 { 0.0 } else { 1.0 };
    }
    used / total
}

/// Whether `l` stays within `limit` in the dimensions `req` asks for (cpu,
/// memory, positive scalars other than pods), strictly and without
/// tolerance; when `l` has no list of scalars only cpu and memory count.
pub(crate) fn fits_requested(l: &Quantities, req: &Quantities, limit: &Quantities) -> bool {
    if req.milli_cpu > 0.0 && l.milli_cpu > limit.milli_cpu {
        return false;
    }
    if req.memory > 0.0 && l.memory > limit.memory {
        return false;
    }
    if !l.scalars.is_listed() {
        return true;
    }
    req.scalars.iter().all(|(n, q)| n == "pods" || q <= 0.0 || l.scalars.value(n) <= limit.scalars.value(n))
}

/// The part of `need` (a job's minResources) that `allocated` does not
/// cover yet, written into `out`: what an admitted job still has a claim
/// on. Quota-style "count/..." names and ephemeral storage are skipped; a
/// scalar nothing allocated reserves all of its minimum.
pub(crate) fn unmet_min_resources<'o>(out: &'o mut Quantities, need: &Resource, allocated: &Quantities) -> &'o Quantities {
    out.reset();
    let cpu = need.milli_cpu as f64 - allocated.milli_cpu;
    if cpu > 0.0 {
        out.milli_cpu = cpu;
    }
    let memory = need.memory as f64 - allocated.memory;
    if memory > 0.0 {
        out.memory = memory;
    }
    for (n, &q) in &need.scalars {
        if n.starts_with("count/") || n == "ephemeral-storage" {
            continue;
        }
        let want = q as f64;
        match allocated.scalars.get(n) {
            None if n != "pods" => out.set(n, want),
            got => {
                let d = want - got.unwrap_or(0.0);
                if d > 0.0 {
                    out.set(n, d);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
