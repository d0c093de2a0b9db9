//! PodGroup conditions at session close.

use caldera::{status, Job, Session, Task};

use crate::job::{is_ready, ready_status, scheduled_status};
use crate::Gang;

// PodGroup condition types and reasons, as Volcano words them.
const CONDITION_SCHEDULED: &str = "Scheduled";
const CONDITION_UNSCHEDULABLE: &str = "Unschedulable";
const NOT_ENOUGH_RESOURCES: &str = "NotEnoughResources";
const READY_REASON: &str = "tasks in gang are ready to be scheduled";

/// Tells users, through PodGroup conditions, which gangs could not be
/// placed and why. It runs once per session: it may allocate.
pub(crate) fn set_conditions(g: &Gang, s: &Session) {
    for j in s.jobs() {
        if s.tasks_of(j).len() == 0 {
            continue;
        }
        if is_ready(s, j) {
            s.set_condition(j, CONDITION_SCHEDULED, "True", READY_REASON, "");
            continue;
        }
        if short_only_by_releasing(s, j) {
            continue;
        }
        let unready = j.min_available - schedulable_task_num(g, s, j);
        let msg = format!("{}/{} tasks in gang unschedulable: {}{}", unready, s.tasks_of(j).len(), fit_error(g, s, j), origin_reason(s, j));
        s.set_condition(j, CONDITION_UNSCHEDULABLE, "True", NOT_ENOUGH_RESOURCES, &msg);
    }
}

/// The tasks that hold resources plus the pending ones that a discarded
/// statement had allocated: those could be placed, but not enough of them
/// together.
fn schedulable_task_num(g: &Gang, s: &Session, j: &Job) -> i32 {
    s.tasks_of(j)
        .filter(|t| ready_status(&t.status) || discarded_allocation(g, t))
        .count() as i32
}

/// A pending task that a discarded statement had last allocated: it could
/// be placed, but not with enough of its gang (Volcano's Schedulable).
fn discarded_allocation(g: &Gang, t: &Task) -> bool {
    let h = t.handle as usize;
    t.status == status::PENDING && g.discarded[h] && g.placed_allocated[h]
}

/// A job that is not ready only because some of its placed pods are being
/// deleted: with nothing pending or pipelined and enough pods still on
/// nodes, there is nothing to schedule and nothing to flag.
fn short_only_by_releasing(s: &Session, j: &Job) -> bool {
    let (mut releasing, mut scheduled) = (0, 0);
    for t in s.tasks_of(j) {
        let st = t.status.as_str();
        if st == status::PENDING || st == status::PIPELINED {
            return false;
        } else if st == status::RELEASING && t.node >= 0 {
            releasing += 1;
        } else if scheduled_status(st) {
            scheduled += 1;
        }
    }
    releasing > 0 && scheduled + releasing >= j.min_available
}

/// The names a task status may have, as the scheduler prints them.
const TASK_STATUSES: [&str; 10] = [
    status::PENDING,
    status::ALLOCATED,
    status::PIPELINED,
    status::BINDING,
    status::BOUND,
    status::RUNNING,
    status::RELEASING,
    status::SUCCEEDED,
    status::FAILED,
    status::UNKNOWN,
];

/// api.JobInfo.FitError for a job that is not ready:
/// "pod group is not ready, 2 Pending, 2 minAvailable; Pending: 1
/// Schedulable, 1 Unschedulable". A pending task is Schedulable when a
/// discarded statement had last allocated it (Volcano's
/// TaskSchedulingReason), Unschedulable otherwise.
fn fit_error(g: &Gang, s: &Session, j: &Job) -> String {
    let mut n = [0usize; TASK_STATUSES.len()];
    for t in s.tasks_of(j) {
        // A status the scheduler does not name prints as Unknown.
        let k = TASK_STATUSES.iter().position(|&name| t.status == name).unwrap_or(TASK_STATUSES.len() - 1);
        n[k] += 1;
    }
    let mut parts = vec![format!("{} minAvailable", j.min_available)];
    for (i, name) in TASK_STATUSES.iter().enumerate() {
        if n[i] > 0 {
            parts.push(format!("{} {}", n[i], name));
        }
    }
    parts.sort();
    let mut msg = format!("pod group is not ready, {}", parts.join(", "));
    if n[0] > 0 {
        let schedulable = s.tasks_of(j).filter(|t| discarded_allocation(g, t)).count();
        let mut reasons = Vec::new();
        if schedulable > 0 {
            reasons.push(format!("{} Schedulable", schedulable));
        }
        if n[0] > schedulable {
            reasons.push(format!("{} Unschedulable", n[0] - schedulable));
        }
        // "10 Schedulable" before "2 Unschedulable", as Volcano sorts them.
        reasons.sort();
        msg.push_str(&format!("; Pending: {}", reasons.join(", ")));
    }
    msg
}

/// The end of Volcano's gang message that quotes a task's fit error:
/// ". Origin reason is <pod>: <fit error>", for the first task by pod name
/// that has one (the scheduler's own choice, as Volcano's map order is no
/// choice at all), or "" when none has.
pub(crate) fn origin_reason(s: &Session, j: &Job) -> String {
    let mut origin: Option<(&Task, &str)> = None;
    for t in s.tasks_of(j) {
        if let Some(fe) = s.fit_error(t) {
            if origin.map_or(true, |(o, _)| t.name < o.name) {
                origin = Some((t, fe));
            }
        }
    }
    match origin {
        Some((t, fe)) => format!(". Origin reason is {}: {}", t.name, fe),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use caldera::{Arguments, Plugin, Task, View};

    #[test]
    fn an_unready_gang_says_why() {
        let task = |status: &str| Task { job: 0, status: status.into(), ..Task::default() };
        let view = View {
            jobs: vec![Job { name: "g".into(), min_available: 3, ..Job::default() }],
            tasks: vec![task(status::RUNNING), task(status::PENDING), task(status::PENDING)],
            ..View::default()
        };
        let s = Session::new(view, Arguments::default());
        let mut g = Gang::default();
        g.on_session_open(&s).unwrap();
        assert_eq!(fit_error(&g, &s, &s.jobs()[0]), "pod group is not ready, 1 Running, 2 Pending, 3 minAvailable; Pending: 2 Unschedulable");
        assert_eq!(schedulable_task_num(&g, &s, &s.jobs()[0]), 1);
        // A statement allocated task 1, then was discarded.
        g.placed_allocated[1] = true;
        g.discarded[1] = true;
        assert_eq!(
            fit_error(&g, &s, &s.jobs()[0]),
            "pod group is not ready, 1 Running, 2 Pending, 3 minAvailable; Pending: 1 Schedulable, 1 Unschedulable"
        );
    }

    #[test]
    fn the_origin_is_the_first_task_by_name_with_a_fit_error() {
        let task = |name: &str| Task { job: 0, name: name.into(), status: status::PENDING.into(), ..Task::default() };
        let view = View {
            jobs: vec![Job { name: "g".into(), min_available: 2, ..Job::default() }],
            tasks: vec![task("g-b"), task("g-a")],
            ..View::default()
        };
        let mut s = Session::new(view, Arguments::default());
        assert_eq!(origin_reason(&s, &s.jobs()[0]), "");
        let mut fes = std::collections::HashMap::new();
        fes.insert(0, "0/2 nodes are unavailable: 2 Insufficient cpu.".to_string());
        fes.insert(1, "0/2 nodes are unavailable: 2 Insufficient memory.".to_string());
        s.set_fit_errors(fes);
        assert_eq!(origin_reason(&s, &s.jobs()[0]), ". Origin reason is g-a: 0/2 nodes are unavailable: 2 Insufficient memory.");
    }
}
