//! The resource check.

use caldera::{Node, Resource};

pub(crate) const INSUFFICIENT_PREFIX: &str = "Insufficient ";
const REASON_INSUFFICIENT_CPU: &str = "Insufficient cpu";
const REASON_INSUFFICIENT_MEMORY: &str = "Insufficient memory";

/// A task's request, checked against a node's future idle resources (idle +
/// releasing - pipelined) as the scheduler's api.Fit does. The view holds
/// whole milli-units and bytes, so the scheduler's float tolerance (0.1)
/// makes its "fits" exactly <=.
#[derive(Debug)]
pub(crate) struct Fit {
    cpu: i64,
    memory: i64,
    /// The request's scalar dimensions in name order, as the scheduler
    /// orders them to name the first that is short, each with its reason.
    scalars: Vec<(String, i64, String)>,
}

impl Fit {
    pub(crate) fn new(r: &Resource) -> Fit {
        let scalars = r.scalars.iter().map(|(name, &q)| (name.clone(), q, format!("{}{}", INSUFFICIENT_PREFIX, name))).collect();
        Fit { cpu: r.milli_cpu, memory: r.memory, scalars }
    }

    /// "Insufficient <dimension>" for the first dimension in which the
    /// request exceeds the node's future idle resources.
    pub(crate) fn shortfall(&self, n: &Node) -> Option<&str> {
        let (idle, rel, pipe) = (&n.idle, &n.releasing, &n.pipelined);
        if self.cpu > idle.milli_cpu.wrapping_add(rel.milli_cpu).wrapping_sub(pipe.milli_cpu) {
            return Some(REASON_INSUFFICIENT_CPU);
        }
        if self.memory > idle.memory.wrapping_add(rel.memory).wrapping_sub(pipe.memory) {
            return Some(REASON_INSUFFICIENT_MEMORY);
        }
        // The scheduler subtracts pipelined scalars only when idle or
        // releasing has any scalar at all.
        let sub_pipelined = !idle.scalars.is_empty() || !rel.scalars.is_empty();
        for (name, q, reason) in &self.scalars {
            let mut avail = idle.scalar(name).wrapping_add(rel.scalar(name));
            if sub_pipelined {
                avail = avail.wrapping_sub(pipe.scalar(name));
            }
            if *q > avail {
                return Some(reason);
            }
        }
        None
    }
}
