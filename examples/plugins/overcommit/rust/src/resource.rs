//! The scheduler's float resource arithmetic (api.Resource), as the Go port
//! keeps it: the overcommit factor makes quantities fractional, so sums are
//! taken in f64 in the same order as the Go port takes them.

use caldera::{status, Job, Resource, Session};

/// Float quantities, and scalars whose presence matters: a dimension may be
/// absent, and a resource may have none at all.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Quantities {
    pub(crate) milli_cpu: f64,
    pub(crate) memory: f64,
    /// Scalar dimensions in the order they first appeared, as the Go port's
    /// list keeps them.
    pub(crate) scalars: Vec<(String, f64)>,
}

impl Quantities {
    /// The quantity of the dimension `name`, 0 when absent.
    pub(crate) fn scalar(&self, name: &str) -> f64 {
        self.scalars.iter().find(|(n, _)| n == name).map_or(0.0, |&(_, q)| q)
    }

    /// The quantity of the dimension `name`, appended at 0 when absent.
    fn scalar_mut(&mut self, name: &str) -> &mut f64 {
        let i = match self.scalars.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.scalars.push((name.to_string(), 0.0));
                self.scalars.len() - 1
            }
        };
        &mut self.scalars[i].1
    }

    /// Adds a quantity of the view, each dimension converted to f64 first.
    pub(crate) fn add_view(&mut self, d: &Resource) {
        self.milli_cpu += d.milli_cpu as f64;
        self.memory += d.memory as f64;
        for (name, &q) in &d.scalars {
            *self.scalar_mut(name) += q as f64;
        }
    }

    pub(crate) fn add(&mut self, d: &Quantities) {
        self.milli_cpu += d.milli_cpu;
        self.memory += d.memory;
        for (name, q) in &d.scalars {
            *self.scalar_mut(name) += *q;
        }
    }

    /// Subtracts `d`; like api.Resource.Sub it leaves scalars alone when
    /// `self` has none.
    pub(crate) fn sub(&mut self, d: &Quantities) {
        self.milli_cpu -= d.milli_cpu;
        self.memory -= d.memory;
        if self.scalars.is_empty() {
            return;
        }
        for (name, q) in &d.scalars {
            *self.scalar_mut(name) -= *q;
        }
    }

    pub(crate) fn multi(&mut self, ratio: f64) {
        self.milli_cpu *= ratio;
        self.memory *= ratio;
        for (_, q) in &mut self.scalars {
            *q *= ratio;
        }
    }

    fn set(&mut self, name: &str, q: f64) {
        *self.scalar_mut(name) = q;
    }
}

/// Whether `held` plus `req` stays within `limit` in the dimensions `req`
/// asks for (cpu, memory, positive scalars other than pods), with a strict
/// comparison and no tolerance.
pub(crate) fn fits_requested(held: &Quantities, req: &Resource, limit: &Quantities) -> bool {
    if req.milli_cpu > 0 && held.milli_cpu + req.milli_cpu as f64 > limit.milli_cpu {
        return false;
    }
    if req.memory > 0 && held.memory + req.memory as f64 > limit.memory {
        return false;
    }
    for (name, &q) in &req.scalars {
        if name == "pods" || q <= 0 {
            continue;
        }
        if held.scalar(name) + q as f64 > limit.scalar(name) {
            return false;
        }
    }
    true
}

/// The number of the job's tasks that hold node resources.
pub(crate) fn allocated_task_num(s: &Session, j: &Job) -> i32 {
    s.tasks_of(j).filter(|t| status::is_allocated(&t.status)).count() as i32
}

/// The part of the job's minResources that its allocated tasks do not cover
/// yet: what an admitted job still has a claim on. Quota-style `count/...`
/// names and ephemeral storage are skipped; a scalar dimension that nothing
/// allocated reserves all of its minimum.
pub(crate) fn unmet_min_resources(s: &Session, j: &Job) -> Quantities {
    let mut allocated = Resource::default();
    for t in s.tasks_of(j).filter(|t| status::is_allocated(&t.status)) {
        allocated.add(&t.request);
    }
    let need = &j.min_resources;
    let mut out = Quantities::default();
    let d = need.milli_cpu.wrapping_sub(allocated.milli_cpu);
    if d > 0 {
        out.milli_cpu = d as f64;
    }
    let d = need.memory.wrapping_sub(allocated.memory);
    if d > 0 {
        out.memory = d as f64;
    }
    for (name, &want) in &need.scalars {
        if name == "pods" {
            let d = want.wrapping_sub(allocated.scalar(name));
            if d > 0 {
                out.set(name, d as f64);
            }
        } else if name.starts_with("count/") || name == "ephemeral-storage" {
            continue;
        } else {
            match allocated.scalars.get(name) {
                None => out.set(name, want as f64),
                Some(&got) => {
                    let d = want.wrapping_sub(got);
                    if d > 0 {
                        out.set(name, d as f64);
                    }
                }
            }
        }
    }
    out
}
