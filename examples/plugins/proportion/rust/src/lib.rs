//! The Rust port of Caldera's native proportion plugin (Volcano's
//! proportion), translated from the Go port: it divides the cluster between
//! queues by weight, within each queue's capability and above its
//! guarantee, and holds each queue to its deserved share when placing,
//! admitting and reclaiming work. The plugin takes no arguments.
#![deny(unsafe_code)]

mod deserved;
mod gomath;
mod hooks;
mod resource;
mod scalars;

use caldera::{phase, status, Job, Plugin, Queue, Session, Task};

use resource::{exceeded_part, exceeded_part_into, unmet_min_resources, Missing, Quantities};

/// One queue's accounting for the session.
#[derive(Debug, Default)]
struct QueueAttr {
    weight: i32,
    share: f64,

    deserved: Quantities,
    allocated: Quantities,
    request: Quantities,
    /// What the queue's jobs hold beyond their minResources.
    elastic: Quantities,
    /// What admitted jobs still have a claim on.
    inqueue: Quantities,
    /// The most the queue may ever get: its capability, or the cluster
    /// less the other queues' guarantees, whichever is smaller.
    real_capability: Quantities,
    guarantee: Quantities,

    /// Reclaimable's scratch copy of `allocated`, valid for the call whose
    /// generation `held_gen` holds.
    held: Quantities,
    held_gen: u32,
}

/// One `QueueAttr` per queue handle, `None` for a queue without jobs.
#[derive(Default)]
pub struct Proportion {
    total: Quantities,
    queues: Vec<Option<QueueAttr>>,

    // Scratch reused from call to call, so that the hot hooks allocate
    // nothing once warm: `req` and `held` are the fit checks', `min_req`
    // and `need` JobEnqueueable's, `jobs` on_session_open's.
    req: Quantities,
    held: Quantities,
    min_req: Quantities,
    need: Quantities,
    jobs: JobScratch,
    gen: u32,
}

caldera::export!(Proportion);

impl Plugin for Proportion {
    const NAME: &'static str = "proportion";
    // A queue's key is its priority and its share of a deserved amount fixed
    // at session open, so only events on the tasks of its jobs change it.
    const LOCAL_ORDER_KEYS: bool = true;

    /// Accounts for every queue with jobs and computes what each deserves.
    fn on_session_open(&mut self, s: &Session) -> Result<(), caldera::Error> {
        self.total = Quantities::default();
        for n in s.nodes() {
            self.total.add_view(&n.allocatable);
        }
        let mut total_guarantee = Quantities::default();
        for q in s.queues() {
            total_guarantee.add_view(&q.guarantee);
        }
        self.queues.clear();
        self.queues.resize_with(s.queues().len(), || None);
        self.gen = 0;
        for j in s.jobs() {
            let h = match usize::try_from(j.queue) {
                Ok(h) if h < s.queues().len() => h,
                _ => continue,
            };
            let (total, jobs) = (&self.total, &mut self.jobs);
            let a = self.queues[h].get_or_insert_with(|| QueueAttr::new(&s.queues()[h], total, &total_guarantee));
            a.add_job(s, j, jobs);
        }
        self.compute_deserved();
        Ok(())
    }

    /// Charges the task to its queue: placed, pipelined, or its eviction
    /// undone.
    fn on_allocate(&mut self, s: &Session, t: &Task) {
        if let Some(a) = self.queue_of_task(s, t) {
            a.allocated.add_view(&t.request);
            a.update_share();
        }
    }

    /// Credits the task back to its queue: taken off its node or evicted.
    fn on_deallocate(&mut self, s: &Session, t: &Task) {
        if let Some(a) = self.queue_of_task(s, t) {
            a.allocated.sub_view(&t.request);
            a.update_share();
        }
    }

    /// Reserves an admitted job's minResources in its queue.
    fn on_job_enqueued(&mut self, _: &Session, j: &Job) {
        if let Some(a) = self.attr_mut(j.queue) {
            a.inqueue.add_view(&j.min_resources);
        }
    }
}

impl Proportion {
    fn attr(&self, queue: i32) -> Option<&QueueAttr> {
        attr_of(&self.queues, queue)
    }

    fn attr_mut(&mut self, queue: i32) -> Option<&mut QueueAttr> {
        usize::try_from(queue).ok().and_then(move |q| self.queues.get_mut(q)).and_then(Option::as_mut)
    }

    fn queue_of_task(&mut self, s: &Session, t: &Task) -> Option<&mut QueueAttr> {
        let job = s.job_of(t)?;
        self.attr_mut(job.queue)
    }
}

/// The accounting of the queue with this handle, borrowed from the field
/// alone so that a hook may read it while it writes its scratch.
fn attr_of(queues: &[Option<QueueAttr>], queue: i32) -> Option<&QueueAttr> {
    usize::try_from(queue).ok().and_then(|q| queues.get(q)).and_then(Option::as_ref)
}

impl QueueAttr {
    fn new(q: &Queue, total: &Quantities, total_guarantee: &Quantities) -> QueueAttr {
        let mut a = QueueAttr { weight: q.weight, guarantee: Quantities::from_view(&q.guarantee), ..QueueAttr::default() };
        a.real_capability = exceeded_part(total, total_guarantee);
        a.real_capability.add(&a.guarantee);
        // A capability that names only other resources leaves cpu and memory
        // unbounded. The view sends no capability as all zeros, which this
        // leaves unbounded in every dimension, as the native plugin does.
        let mut capability = Quantities::from_view(&q.capability);
        if capability.milli_cpu <= 0.0 {
            capability.milli_cpu = f64::MAX;
        }
        if capability.memory <= 0.0 {
            capability.memory = f64::MAX;
        }
        a.real_capability.min_dimension(&capability, Missing::Infinity);
        a
    }

    /// Adds a job's holdings, requests and claims to its queue.
    fn add_job(&mut self, s: &Session, j: &Job, scratch: &mut JobScratch) {
        let JobScratch { allocated, minimum, part } = scratch;
        allocated.reset();
        for t in s.tasks_of(j) {
            if status::is_allocated(&t.status) {
                self.allocated.add_view(&t.request);
                self.request.add_view(&t.request);
                allocated.add_view(&t.request);
            } else if t.status == status::PENDING {
                self.request.add_view(&t.request);
            }
        }
        // A job without minResources has them all zero in the view, and then
        // claims nothing and holds nothing beyond them.
        if claims_inqueue(s, j) {
            self.inqueue.add(unmet_min_resources(part, &j.min_resources, allocated));
        }
        self.elastic.add(exceeded_part_into(part, allocated, minimum.set_view(&j.min_resources)));
    }
}

/// add_job's intermediate amounts, reused from job to job and session to
/// session.
#[derive(Default)]
struct JobScratch {
    allocated: Quantities,
    minimum: Quantities,
    part: Quantities,
}

/// Whether an admitted job still reserves room in its queue: Inqueue
/// PodGroups, and Running ones that hold at least minMember tasks.
fn claims_inqueue(s: &Session, j: &Job) -> bool {
    match j.phase.as_str() {
        phase::INQUEUE => true,
        phase::RUNNING => s.tasks_of(j).filter(|t| status::is_allocated(&t.status)).count() as i64 >= i64::from(j.min_available),
        _ => false,
    }
}

/// A queue accepts new work unless its status names a state other than
/// Open.
fn is_open(q: &Queue) -> bool {
    q.state.is_empty() || q.state == "Open"
}

#[cfg(test)]
mod tests;
