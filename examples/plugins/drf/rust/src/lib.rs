//! The Rust port of Caldera's native drf plugin (Volcano's drf, without
//! hierarchy): Dominant Resource Fairness between jobs. A job's share is its
//! largest fraction of any cluster resource its placed tasks hold; the job
//! with the smaller share goes first, and may preempt a task of a job whose
//! share, without the task, would still be at least its own.
#![deny(unsafe_code)]

use caldera::{status, Job, JobOrder, Plugin, Preemptable, Resource, Session, Task};

/// How close two shares must be to count as equal when choosing victims,
/// so that float noise does not protect a job.
const SHARE_TOLERANCE: f64 = 0.000001;

/// One resource dimension a share is measured in.
#[derive(Clone, Debug, PartialEq)]
enum Dimension {
    Cpu,
    Memory,
    Scalar(String),
}

impl Dimension {
    fn of(&self, r: &Resource) -> i64 {
        match self {
            Dimension::Cpu => r.milli_cpu,
            Dimension::Memory => r.memory,
            Dimension::Scalar(name) => r.scalar(name),
        }
    }
}

/// Shares are measured over the dimensions the cluster's allocatable total
/// holds (a dimension below the scheduler's 0.1 tolerance is not measured).
/// Resources are vectors over those dimensions, in whole units as the view
/// gives them: the scheduler's float sums of whole quantities are exact, so
/// integer sums give the same shares.
#[derive(Default)]
pub struct Drf {
    dims: Vec<Dimension>,
    total: Vec<i64>,
    // Each job's placed resources, dims.len() per job handle; and each
    // job's dominant share, which is also its order key.
    alloc: Vec<i64>,
    share: Vec<f64>,

    // Scratch for Preemptable: each job's remaining allocation, valid for
    // the call whose generation stamp[j] holds.
    remaining: Vec<i64>,
    stamp: Vec<u32>,
    gen: u32,
    with: Vec<i64>,
}

caldera::export!(Drf);

fn reset<T: Default + Clone>(v: &mut Vec<T>, n: usize) {
    v.clear();
    v.resize(n, T::default());
}

impl Plugin for Drf {
    const NAME: &'static str = "drf";
    // A job's key is its share of a cluster total fixed for the session, which
    // only events on its own tasks change.
    const LOCAL_ORDER_KEYS: bool = true;

    /// Computes every job's share from what its tasks hold. The plugin takes
    /// no arguments.
    fn on_session_open(&mut self, s: &Session) -> Result<(), caldera::Error> {
        let mut total = Resource::default();
        for n in s.nodes() {
            total.add(&n.allocatable);
        }
        self.dims.clear();
        if total.milli_cpu >= 1 {
            self.dims.push(Dimension::Cpu);
        }
        if total.memory >= 1 {
            self.dims.push(Dimension::Memory);
        }
        // Scalars by name: the map is sorted.
        self.dims.extend(total.scalars.iter().filter(|(_, &q)| q >= 1).map(|(name, _)| Dimension::Scalar(name.clone())));
        self.total = self.dims.iter().map(|d| d.of(&total)).collect();
        let (n, jobs) = (self.dims.len(), s.jobs().len());
        reset(&mut self.alloc, n * jobs);
        reset(&mut self.share, jobs);
        reset(&mut self.remaining, n * jobs);
        reset(&mut self.stamp, jobs);
        reset(&mut self.with, n);
        self.gen = 0;
        for t in s.tasks() {
            if status::is_allocated(&t.status) && s.job_of(t).is_some() {
                self.charge(t, 1);
            }
        }
        for j in 0..jobs {
            self.share[j] = self.share_of(self.job_alloc(j));
        }
        Ok(())
    }

    /// Charges the task to its job: placed, pipelined, or its eviction
    /// undone.
    fn on_allocate(&mut self, s: &Session, t: &Task) {
        if s.job_of(t).is_some() {
            self.charge(t, 1);
            self.update_share(t.job as usize);
        }
    }

    /// Credits the task back to its job: taken off its node or evicted.
    fn on_deallocate(&mut self, s: &Session, t: &Task) {
        if s.job_of(t).is_some() {
            self.charge(t, -1);
            self.update_share(t.job as usize);
        }
    }
}

impl Drf {
    fn job_alloc(&self, job: usize) -> &[i64] {
        let n = self.dims.len();
        &self.alloc[job * n..job * n + n]
    }

    /// Adds (sign 1) or removes (sign -1) a task's request to its job.
    fn charge(&mut self, t: &Task, sign: i64) {
        let n = self.dims.len();
        let start = t.job as usize * n;
        for (a, d) in self.alloc[start..start + n].iter_mut().zip(&self.dims) {
            *a += sign * d.of(&t.request);
        }
    }

    fn update_share(&mut self, job: usize) {
        self.share[job] = self.share_of(self.job_alloc(job));
    }

    /// The largest per-dimension share of used against the total.
    fn share_of(&self, used: &[i64]) -> f64 {
        used.iter().zip(&self.total).fold(0.0, |best, (&u, &t)| {
            let s = u as f64 / t as f64;
            if s > best {
                s
            } else {
                best
            }
        })
    }
}

/// Puts the job with the smaller share first. Shares change as tasks are
/// placed, so keys are not declared stable.
impl JobOrder for Drf {
    type Key = [f64; 1];
    fn job_order_key(&mut self, _: &Session, j: &Job) -> [f64; 1] {
        [self.share[j.handle as usize]]
    }
}

/// Allows the candidates whose job would not end up with a smaller share
/// than the preemptor's job once the preemptor runs. Each candidate
/// considered comes off its job's allocation, allowed or not.
impl Preemptable for Drf {
    fn preemptable<'s>(&mut self, s: &'s Session, preemptor: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        let mut victims = Vec::new();
        if s.job_of(preemptor).is_none() {
            return Some(victims);
        }
        let n = self.dims.len();
        let mut with = std::mem::take(&mut self.with);
        with.copy_from_slice(self.job_alloc(preemptor.job as usize));
        for (w, d) in with.iter_mut().zip(&self.dims) {
            *w += d.of(&preemptor.request);
        }
        let preemptor_share = self.share_of(&with);
        self.with = with;

        self.gen += 1;
        let mut remaining = std::mem::take(&mut self.remaining);
        for &t in candidates {
            if s.job_of(t).is_none() {
                continue;
            }
            let j = t.job as usize;
            let rest = &mut remaining[j * n..j * n + n];
            if self.stamp[j] != self.gen {
                self.stamp[j] = self.gen;
                rest.copy_from_slice(self.job_alloc(j));
            }
            for (r, d) in rest.iter_mut().zip(&self.dims) {
                *r -= d.of(&t.request);
            }
            let victim_share = self.share_of(rest);
            if preemptor_share < victim_share || (preemptor_share - victim_share).abs() <= SHARE_TOLERANCE {
                victims.push(t);
            }
        }
        self.remaining = remaining;
        Some(victims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use caldera::{Arguments, Node, View};

    const GI: i64 = 1 << 30;

    fn task(job: i32, status: &str, node: i32, cpu: i64, mem: i64) -> Task {
        Task { job, status: status.into(), node, request: Resource { milli_cpu: cpu, memory: mem, ..Resource::default() }, ..Task::default() }
    }

    /// One node of 10 cpu, 10 GiB and 100 pods; job a runs a task of 4 cpu
    /// and 1 GiB, job b one of 1 cpu and 5 GiB, job c waits.
    fn cluster() -> (Session, Drf) {
        let mut alloc = Resource { milli_cpu: 10000, memory: 10 * GI, ..Resource::default() };
        alloc.scalars.insert("pods".into(), 100);
        let view = View {
            nodes: vec![Node { name: "n1".into(), allocatable: alloc, ..Node::default() }],
            jobs: vec![Job { name: "a".into(), ..Job::default() }, Job { name: "b".into(), ..Job::default() }, Job { name: "c".into(), ..Job::default() }],
            tasks: vec![task(0, status::RUNNING, 0, 4000, GI), task(1, status::RUNNING, 0, 1000, 5 * GI), task(2, status::PENDING, -1, 1000, GI)],
            ..View::default()
        };
        let s = Session::new(view, Arguments::default());
        let mut d = Drf::default();
        d.on_session_open(&s).unwrap();
        (s, d)
    }

    #[test]
    fn share_is_the_largest_fraction() {
        let (s, mut d) = cluster();
        let keys: Vec<f64> = s.jobs().iter().map(|j| d.job_order_key(&s, j)[0]).collect();
        assert_eq!(keys, [0.4, 0.5, 0.0]);
        d.on_allocate(&s, &s.tasks()[2]);
        assert_eq!(d.job_order_key(&s, &s.jobs()[2])[0], GI as f64 / (10 * GI) as f64);
        d.on_deallocate(&s, &s.tasks()[2]);
        assert_eq!(d.job_order_key(&s, &s.jobs()[2])[0], 0.0);
    }

    #[test]
    fn preempts_only_from_jobs_that_stay_at_or_above_the_preemptor() {
        let (s, mut d) = cluster();
        let candidates = [&s.tasks()[0], &s.tasks()[1]];
        // c with its 1 cpu, 1 GiB task would hold 0.1; a without its task
        // 0, b without its task 0: both fall below, so neither is a victim.
        let victims = d.preemptable(&s, &s.tasks()[2], &candidates).unwrap();
        assert!(victims.is_empty());
    }
}
