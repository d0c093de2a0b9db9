//! The scheduler's hooks: queue order, the share checks, reclaim and
//! admission.

use caldera::{Allocatable, Job, JobEnqueueable, Overused, Preemptive, Queue, QueueOrder, Reclaimable, Session, Task, Vote};

use crate::resource::{fits_requested, Missing};
use crate::{attr_of, is_open, Proportion};

/// Serves the queue with the higher priority first, then the one furthest
/// below its deserved share. Shares change as tasks are placed, so keys are
/// not declared stable.
impl QueueOrder for Proportion {
    type Key = [f64; 2];
    fn queue_order_key(&mut self, _: &Session, q: &Queue) -> [f64; 2] {
        [-f64::from(q.priority), self.attr(q.handle).map_or(0.0, |a| a.share)]
    }
}

/// A queue that holds at least its deserved resources in every dimension.
impl Overused for Proportion {
    fn overused(&mut self, _: &Session, q: &Queue) -> bool {
        self.attr(q.handle).map_or(false, |a| a.deserved.less_equal(&a.allocated, Missing::Zero))
    }
}

/// Whether the queue may take the task without going beyond its deserved
/// share in what the task asks for.
impl Allocatable for Proportion {
    fn allocatable(&mut self, _: &Session, q: &Queue, t: &Task) -> bool {
        self.req.reset();
        self.req.add_view(&t.request);
        self.fits(q)
    }
}

/// Whether the queue may take all the candidates without going beyond its
/// deserved share.
impl Preemptive for Proportion {
    fn preemptive(&mut self, _: &Session, q: &Queue, tasks: &[&Task]) -> bool {
        self.req.reset();
        for t in tasks {
            self.req.add_view(&t.request);
        }
        self.fits(q)
    }
}

impl Proportion {
    /// Checks `req` against the queue's deserved share.
    fn fits(&mut self, q: &Queue) -> bool {
        if !is_open(q) {
            return false;
        }
        let a = match attr_of(&self.queues, q.handle) {
            Some(a) => a,
            None => return false,
        };
        self.held.copy_from(&a.allocated);
        self.held.add(&self.req);
        fits_requested(&self.held, &self.req, &a.deserved)
    }
}

/// Takes candidates, in the order given, from each queue while what the
/// queue would still hold exceeds its deserved share in some dimension.
impl Reclaimable for Proportion {
    fn reclaimable<'s>(&mut self, s: &'s Session, _: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        self.gen = self.gen.wrapping_add(1);
        let gen = self.gen;
        let mut victims = Vec::new();
        for &t in candidates {
            let a = match self.queue_of_task(s, t) {
                Some(a) => a,
                None => continue,
            };
            if a.held_gen != gen {
                a.held_gen = gen;
                a.held.copy_from(&a.allocated);
            }
            if !a.held.less_equal(&a.deserved, Missing::Zero) {
                a.held.sub_view(&t.request);
                victims.push(t);
            }
        }
        Some(victims)
    }
}

/// Admits a job while its queue's capability has room for the job's
/// minResources next to what the queue holds and has admitted, not
/// counting what the queue holds beyond its jobs' minimums. A job without
/// minResources asks for nothing and is permitted.
impl JobEnqueueable for Proportion {
    fn job_enqueueable(&mut self, s: &Session, j: &Job) -> Vote {
        let a = match attr_of(&self.queues, j.queue) {
            Some(a) => a,
            None => return Vote::Abstain,
        };
        if !s.queue_of(j).map_or(false, is_open) {
            return Vote::Reject;
        }
        let min_req = self.min_req.set_view(&j.min_resources);
        self.need.copy_from(min_req);
        self.need.add(&a.allocated).add(&a.inqueue).sub(&a.elastic);
        if fits_requested(&self.need, min_req, &a.real_capability) {
            Vote::Permit
        } else {
            Vote::Reject
        }
    }
}
