//! The job arithmetic of the scheduler's api.JobInfo, counted over the
//! view's tasks: how many hold resources, wait for them, or still take part.

use caldera::{status, Job, Resource, Session, Task};

/// The task holds or held resources (ReadyTaskNum's statuses).
pub(crate) fn ready_status(s: &str) -> bool {
    status::is_allocated(s) || s == status::SUCCEEDED
}

/// Placed for good (bound, running or finished).
pub(crate) fn scheduled_status(s: &str) -> bool {
    matches!(s, status::RUNNING | status::BOUND | status::FAILED | status::SUCCEEDED)
}

/// A job's tasks by what their statuses mean for a gang.
#[derive(Default)]
pub(crate) struct Counts {
    pub(crate) ready: i32,
    pub(crate) waiting: i32,
    pub(crate) pending_best_effort: i32,
    pub(crate) valid: i32,
}

pub(crate) fn count_tasks(s: &Session, j: &Job) -> Counts {
    let mut c = Counts::default();
    for t in s.tasks_of(j) {
        let st = t.status.as_str();
        if ready_status(st) {
            c.ready += 1;
            c.valid += 1;
        } else if st == status::PIPELINED {
            c.waiting += 1;
            c.valid += 1;
        } else if st == status::PENDING {
            c.valid += 1;
            if t.best_effort {
                c.pending_best_effort += 1;
            }
        }
    }
    c
}

pub(crate) fn ready_task_num(s: &Session, j: &Job) -> i32 {
    count_tasks(s, j).ready
}

/// Enough tasks hold resources to satisfy minAvailable.
pub(crate) fn is_ready(s: &Session, j: &Job) -> bool {
    let c = count_tasks(s, j);
    c.ready + c.pending_best_effort >= j.min_available
}

/// Which tasks count towards a role's minimum.
#[derive(Clone, Copy)]
pub(crate) enum RoleMode {
    /// Holding, waiting for, or asking for resources.
    Valid,
    /// Holding resources (or finished), or pending best-effort.
    Ready,
    /// Holding or waiting for them, or pending best-effort.
    Pipelined,
}

/// Whether every role of spec.minTaskMember has its minimum of tasks
/// counted by mode. Per-role minimums bind only when minAvailable is at
/// least their sum; otherwise minAvailable alone decides.
pub(crate) fn roles_meet(s: &Session, j: &Job, mode: RoleMode) -> bool {
    let total: i32 = j.min_task_member.values().sum();
    if j.min_available < total {
        return true;
    }
    j.min_task_member.iter().all(|(role, &least)| {
        let n = s.tasks_of(j).filter(|t| t.role == *role && role_counts(t, mode)).count();
        n as i64 >= i64::from(least)
    })
}

fn role_counts(t: &Task, mode: RoleMode) -> bool {
    let s = t.status.as_str();
    match mode {
        RoleMode::Valid => ready_status(s) || s == status::PIPELINED || s == status::PENDING,
        RoleMode::Ready => ready_status(s) || (s == status::PENDING && is_empty(&t.init_request)),
        RoleMode::Pipelined => ready_status(s) || s == status::PIPELINED || (s == status::PENDING && is_empty(&t.init_request)),
    }
}

/// api.Resource.IsEmpty on whole quantities: every dimension but "pods" is
/// below the scheduler's 0.1 tolerance, that is at most 0.
fn is_empty(r: &Resource) -> bool {
    r.milli_cpu < 1 && r.memory < 1 && r.scalars.iter().all(|(name, &q)| name == "pods" || q < 1)
}
