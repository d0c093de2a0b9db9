//! Events change the view during a session: node usage, task status and
//! node, job phase. Those changes are the session's own tentative
//! placements, not the cluster's; the next session's view says what became
//! of them. So the SDK records each object's fields as they were before the
//! first event touched them and puts them back when the session closes
//! (ABI 1.3, the descriptor's `undoEvents`): the scheduler then leaves
//! those objects out of the next delta unless they changed in the cluster.

use crate::view::{Handle, Resource, View};

/// What events changed since the view arrived.
#[derive(Debug, Default)]
pub(crate) struct Undo {
    nodes: Vec<(usize, NodeUsage)>,
    tasks: Vec<(usize, String, Handle)>,
    jobs: Vec<(usize, String)>,
    saved_nodes: Vec<bool>,
    saved_tasks: Vec<bool>,
    saved_jobs: Vec<bool>,
}

#[derive(Debug)]
struct NodeUsage {
    idle: Resource,
    used: Resource,
    releasing: Resource,
    pipelined: Resource,
    pods: i32,
}

impl Undo {
    /// Records node `i`'s usage before an event changes it.
    pub(crate) fn node(&mut self, v: &View, i: usize) {
        if !first(&mut self.saved_nodes, i, v.nodes.len()) {
            return;
        }
        let n = &v.nodes[i];
        let usage = NodeUsage {
            idle: n.idle.clone(),
            used: n.used.clone(),
            releasing: n.releasing.clone(),
            pipelined: n.pipelined.clone(),
            pods: n.pods,
        };
        self.nodes.push((i, usage));
    }

    /// Records task `i`'s status and node before an event changes them.
    pub(crate) fn task(&mut self, v: &View, i: usize) {
        if first(&mut self.saved_tasks, i, v.tasks.len()) {
            let t = &v.tasks[i];
            self.tasks.push((i, t.status.clone(), t.node));
        }
    }

    /// Records job `i`'s phase before an event changes it.
    pub(crate) fn job(&mut self, v: &View, i: usize) {
        if first(&mut self.saved_jobs, i, v.jobs.len()) {
            self.jobs.push((i, v.jobs[i].phase.clone()));
        }
    }

    /// Puts every recorded field back, leaving the view as it arrived.
    pub(crate) fn restore(&mut self, v: &mut View) {
        for (i, u) in self.nodes.drain(..) {
            let n = &mut v.nodes[i];
            n.idle = u.idle;
            n.used = u.used;
            n.releasing = u.releasing;
            n.pipelined = u.pipelined;
            n.pods = u.pods;
        }
        for (i, status, node) in self.tasks.drain(..) {
            let t = &mut v.tasks[i];
            t.status = status;
            t.node = node;
        }
        for (i, phase) in self.jobs.drain(..) {
            v.jobs[i].phase = phase;
        }
    }
}

/// Marks object `i` of a list of `len` as recorded; false when it already
/// was.
fn first(saved: &mut Vec<bool>, i: usize, len: usize) -> bool {
    if saved.len() < len {
        saved.resize(len, false);
    }
    !std::mem::replace(&mut saved[i], true)
}
