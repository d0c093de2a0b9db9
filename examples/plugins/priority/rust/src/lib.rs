//! The Rust port of Caldera's native priority plugin (Volcano's priority):
//! higher-priority jobs and tasks go first, a task may preempt tasks of
//! lower-priority jobs (or lower-priority tasks of its own job), and a job
//! starves while some of its tasks hold no resources.
#![deny(unsafe_code)]

use caldera::{status, Evictable, Eviction, EvictionKind, Job, JobOrder, JobStarving, Plugin, Preemptable, Session, Task, TaskOrder};

#[derive(Default)]
pub struct Priority;

caldera::export!(Priority);

impl Plugin for Priority {
    const NAME: &'static str = "priority";
    // Priorities do not change within a session: the scheduler asks for
    // each key once.
    const STABLE_ORDER_KEYS: bool = true;
}

/// The lower key goes first, so a higher priority is a lower key.
impl JobOrder for Priority {
    type Key = [f64; 1];
    fn job_order_key(&mut self, _: &Session, job: &Job) -> [f64; 1] {
        [-f64::from(job.priority)]
    }
}

impl TaskOrder for Priority {
    type Key = [f64; 1];
    fn task_order_key(&mut self, _: &Session, task: &Task) -> [f64; 1] {
        [-f64::from(task.priority)]
    }
}

/// Allows lower-priority tasks of the preemptor's own job and every task of
/// a lower-priority job.
impl Preemptable for Priority {
    fn preemptable<'s>(&mut self, s: &'s Session, preemptor: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        let own = s.job_of(preemptor).map_or(0, |j| j.priority);
        let victims = candidates
            .iter()
            .copied()
            .filter(|t| {
                if t.job == preemptor.job {
                    t.priority < preemptor.priority
                } else {
                    s.job_of(t).map_or(false, |j| j.priority < own)
                }
            })
            .collect();
        Some(victims)
    }
}

/// Lets gangpreempt take the candidates whose job has a lower priority than
/// the starving job; gangreclaim may take any.
impl Evictable for Priority {
    fn evictable<'s>(&mut self, s: &'s Session, ctx: &Eviction<'_>, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        if ctx.kind == EvictionKind::GangReclaim {
            return Some(candidates.to_vec());
        }
        let own = ctx.job.priority;
        Some(candidates.iter().copied().filter(|t| s.job_of(t).map_or(false, |j| j.priority < own)).collect())
    }
}

/// Some task neither holds resources nor waits for them.
impl JobStarving for Priority {
    fn job_starving(&mut self, s: &Session, job: &Job) -> bool {
        s.tasks_of(job).any(|t| {
            !matches!(
                t.status.as_str(),
                status::BOUND | status::BINDING | status::RUNNING | status::ALLOCATED | status::SUCCEEDED | status::PIPELINED
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use caldera::{Arguments, View};

    fn session() -> Session {
        let job = |name: &str, priority| Job { name: name.into(), priority, ..Job::default() };
        let task = |job, priority, status: &str| Task { job, priority, status: status.into(), ..Task::default() };
        let view = View {
            jobs: vec![job("high", 10), job("low", 1)],
            tasks: vec![task(0, 5, status::PENDING), task(0, 1, status::RUNNING), task(1, 9, status::RUNNING)],
            ..View::default()
        };
        Session::new(view, Arguments::default())
    }

    #[test]
    fn higher_priority_goes_first_and_preempts_lower() {
        let s = session();
        let mut p = Priority;
        assert!(p.job_order_key(&s, &s.jobs()[0])[0] < p.job_order_key(&s, &s.jobs()[1])[0]);
        let all: Vec<&Task> = s.tasks().iter().collect();
        let victims = p.preemptable(&s, &s.tasks()[0], &all).unwrap();
        let handles: Vec<_> = victims.iter().map(|t| t.handle).collect();
        assert_eq!(handles, [1, 2], "its own lower task, and the lower job's task");
        assert!(p.job_starving(&s, &s.jobs()[0]));
        assert!(!p.job_starving(&s, &s.jobs()[1]));
    }
}
