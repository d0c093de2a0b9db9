//! The Rust port of Caldera's native gang plugin (Volcano's gang): a job
//! runs only when at least minAvailable of its tasks (and minTaskMember of
//! each role) can run together, and preemption or reclaim never breaks a
//! running gang below that minimum. At session close each job's PodGroup
//! gets a Scheduled or Unschedulable condition.
#![deny(unsafe_code)]

mod close;
mod job;

use caldera::{
    status, Evictable, Eviction, Invalid, Job, JobOrder, JobPipelined, JobReady, JobStarving, JobValid, Plugin, Preemptable, Reclaimable, Session, Task, Vote,
};

use job::{count_tasks, is_ready, ready_task_num, roles_meet, RoleMode};

/// PodGroup condition reasons, as Volcano words them.
const NOT_ENOUGH_PODS_OF_TASK: &str = "NotEnoughPodsOfTask";
const NOT_ENOUGH_TASKS: &str = "NotEnoughTasks";

/// Per session, how each task was last placed and whether that placement
/// was undone, by task handle; and scratch space for the victim hooks, by
/// job handle, reused from call to call.
#[derive(Default)]
pub struct Gang {
    // placed_allocated[t]: the task's last placement this session had an
    // allocated status; discarded[t]: that placement was then undone.
    // Together they tell which pending tasks a discarded statement had
    // allocated.
    placed_allocated: Vec<bool>,
    discarded: Vec<bool>,

    // stamp[j] == gen marks ready[j] as counted in the current victims call.
    stamp: Vec<u32>,
    ready: Vec<i32>,
    gen: u32,
}

caldera::export!(Gang);

/// Resizes to n zeroed elements, reusing the allocation.
fn reset<T: Default + Clone>(v: &mut Vec<T>, n: usize) {
    v.clear();
    v.resize(n, T::default());
}

impl Plugin for Gang {
    const NAME: &'static str = "gang";
    // A job's key is its readiness, which only events on its own tasks change.
    const LOCAL_ORDER_KEYS: bool = true;

    /// Sizes the per-session state; the plugin has no arguments.
    fn on_session_open(&mut self, s: &Session) -> Result<(), caldera::Error> {
        reset(&mut self.placed_allocated, s.tasks().len());
        reset(&mut self.discarded, s.tasks().len());
        reset(&mut self.stamp, s.jobs().len());
        reset(&mut self.ready, s.jobs().len());
        self.gen = 0;
        Ok(())
    }

    fn on_session_close(&mut self, s: &Session) {
        close::set_conditions(self, s);
    }

    /// Remembers how a task was placed.
    fn on_allocate(&mut self, _: &Session, t: &Task) {
        let h = t.handle as usize;
        self.placed_allocated[h] = status::is_allocated(&t.status);
        self.discarded[h] = false;
    }

    /// Notes a placement undone. An eviction also calls it, with the task
    /// releasing rather than pending; the task then no longer counts as
    /// pending anyway.
    fn on_deallocate(&mut self, _: &Session, t: &Task) {
        if t.status == status::PENDING {
            self.discarded[t.handle as usize] = true;
        }
    }
}

/// Rejects jobs that can no longer reach their minimums.
impl JobValid for Gang {
    fn job_valid(&mut self, s: &Session, j: &Job) -> Result<(), Invalid> {
        if !roles_meet(s, j, RoleMode::Valid) {
            return Err(Invalid::new(NOT_ENOUGH_PODS_OF_TASK, "Not enough valid pods of each task for gang-scheduling"));
        }
        let valid = count_tasks(s, j).valid;
        if valid < j.min_available {
            return Err(Invalid::new(
                NOT_ENOUGH_TASKS,
                format!("Not enough valid tasks for gang-scheduling, valid: {}, min: {}", valid, j.min_available),
            ));
        }
        Ok(())
    }
}

/// Every role and the job as a whole have their minimum placed.
impl JobReady for Gang {
    fn job_ready(&mut self, s: &Session, j: &Job) -> bool {
        roles_meet(s, j, RoleMode::Ready) && is_ready(s, j)
    }
}

/// Permits a job whose minimums are placed or promised.
impl JobPipelined for Gang {
    fn job_pipelined(&mut self, s: &Session, j: &Job) -> Vote {
        let c = count_tasks(s, j);
        if roles_meet(s, j, RoleMode::Pipelined) && c.waiting + c.ready + c.pending_best_effort >= j.min_available {
            Vote::Permit
        } else {
            Vote::Reject
        }
    }
}

/// Fewer tasks placed or promised than minAvailable.
impl JobStarving for Gang {
    fn job_starving(&mut self, s: &Session, j: &Job) -> bool {
        let c = count_tasks(s, j);
        c.waiting + c.ready < j.min_available
    }
}

/// Puts jobs that are not ready (0) before ready ones (1). The key changes
/// as tasks are placed, so keys are not declared stable.
impl JobOrder for Gang {
    type Key = [f64; 1];
    fn job_order_key(&mut self, s: &Session, j: &Job) -> [f64; 1] {
        [if is_ready(s, j) { 1.0 } else { 0.0 }]
    }
}

/// Keeps, job by job and in the given order, the candidates that leave
/// their job with at least minAvailable ready tasks.
impl Preemptable for Gang {
    fn preemptable<'s>(&mut self, s: &'s Session, _: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        Some(self.above_minimum(s, candidates))
    }
}

/// Follows the same rule as Preemptable.
impl Reclaimable for Gang {
    fn reclaimable<'s>(&mut self, s: &'s Session, _: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        Some(self.above_minimum(s, candidates))
    }
}

/// Allows every gang eviction candidate: gangpreempt and gangreclaim keep
/// minAvailable themselves, by bundles.
impl Evictable for Gang {
    fn evictable<'s>(&mut self, _: &'s Session, _: &Eviction<'_>, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        Some(candidates.to_vec())
    }
}

impl Gang {
    fn above_minimum<'s>(&mut self, s: &'s Session, candidates: &[&'s Task]) -> Vec<&'s Task> {
        self.gen += 1;
        let mut victims = Vec::new();
        for &t in candidates {
            let j = match s.job_of(t) {
                Some(j) => j,
                None => continue,
            };
            let h = j.handle as usize;
            if self.stamp[h] != self.gen {
                self.stamp[h] = self.gen;
                self.ready[h] = ready_task_num(s, j);
            }
            if self.ready[h] > j.min_available {
                self.ready[h] -= 1;
                victims.push(t);
            }
        }
        victims
    }
}
