//! What the filters keep of nodes and tasks besides the view, and how the
//! session's placements and evictions change it.

use caldera::{status, HostPort, Node, Task};

use crate::fit::Fit;
use crate::template::{AFFINITY_MISMATCH, TAINT_BASE, UNSCHEDULABLE};
use crate::Predicates;

const REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";
const REASON_NODE_AFFINITY: &str = "node(s) didn't match Pod's node affinity/selector";
pub(crate) const REASON_POD_NUMBER_EXCEEDED: &str = "node(s) pod number exceeded";
pub(crate) const REASON_NODE_PORTS: &str = "node(s) didn't have free ports for the requested pod ports";
/// The scheduler joins a status's reasons with ", "; a verdict carries one
/// string, so combined reasons are sent joined. The pod-count reason comes
/// first when a stable filter fails too.
pub(crate) const REASON_TOO_MANY_AND_PORTS: &str = "node(s) pod number exceeded, node(s) didn't have free ports for the requested pod ports";
const TOO_MANY_PREFIX: &str = "node(s) pod number exceeded, ";

/// The host IP that binds every address.
const ALL_HOST_IPS: &str = "0.0.0.0";

#[derive(Debug, Default)]
pub(crate) struct NodeState {
    /// The pods Volcano counts on the node: those there at session open
    /// (releasing ones included), plus tasks placed in the session, minus
    /// tasks evicted in it.
    pub(crate) pods: i32,
    pub(crate) max_pods: i32,
    /// The host ports in use by the pods counted in `pods`, each with how
    /// many use it.
    ports: Vec<(HostPort, i32)>,
}

impl NodeState {
    /// The node's state at session open.
    pub(crate) fn new(n: &Node) -> NodeState {
        let mut ns = NodeState { pods: n.pods, max_pods: n.allocatable.scalar("pods") as i32, ports: Vec::new() };
        ns.use_ports(&n.host_ports, 1);
        ns
    }

    /// Counts ports in (delta 1) or out (delta -1).
    fn use_ports(&mut self, ports: &[HostPort], delta: i32) {
        for hp in ports {
            match self.ports.iter_mut().find(|(used, _)| used == hp) {
                Some((_, n)) => *n += delta,
                None => self.ports.push((hp.clone(), delta)),
            }
        }
    }

    /// Whether a wanted port conflicts with one in use: same protocol and
    /// port, and the same address or one of them binding all.
    pub(crate) fn ports_taken(&self, want: &[HostPort]) -> bool {
        self.ports.iter().filter(|(_, n)| *n > 0).any(|(used, _)| {
            want.iter().any(|w| {
                w.port == used.port && w.protocol == used.protocol && (w.ip == used.ip || w.ip == ALL_HOST_IPS || used.ip == ALL_HOST_IPS)
            })
        })
    }

    fn count(&mut self, task: &Task, delta: i32) {
        self.pods += delta;
        self.use_ports(&task.host_ports, delta);
    }
}

/// The message of a failed stable outcome on node `n`, after the pod-count
/// reason when the node has no pod slot left either.
pub(crate) fn stable_reason(outcome: u32, n: &Node, too_many: bool) -> String {
    let reason = match outcome {
        UNSCHEDULABLE => REASON_UNSCHEDULABLE.to_string(),
        AFFINITY_MISMATCH => REASON_NODE_AFFINITY.to_string(),
        _ => {
            let t = &n.taints[(outcome - TAINT_BASE) as usize];
            format!("node(s) had untolerated taint {{{}: {}}}", t.key, t.value)
        }
    };
    if too_many {
        format!("{}{}", TOO_MANY_PREFIX, reason)
    } else {
        reason
    }
}

/// What the filters keep of one task.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) tpl: usize,
    pub(crate) fit: Fit,
    /// The node of the task's placement in this session, -1 when none.
    pub(crate) placed_on: i32,
    /// The node it was evicted from in this session, -1 when none.
    pub(crate) evicted_from: i32,
}

impl Predicates {
    /// Follows placements (the task now counts on its node) and undone
    /// evictions (it counts again).
    pub(crate) fn follow_allocate(&mut self, task: &Task) {
        if let Some(r) = &mut self.rules {
            r.idx.add(task);
        }
        let e = &mut self.entries[task.handle as usize];
        if e.evicted_from >= 0 {
            self.nodes[e.evicted_from as usize].count(task, 1);
            e.evicted_from = -1;
        }
        // The scheduler re-accounts a task placed again on the same node.
        if (task.status == status::ALLOCATED || task.status == status::PIPELINED) && task.node >= 0 && e.placed_on != task.node {
            self.nodes[task.node as usize].count(task, 1);
            e.placed_on = task.node;
        }
    }

    /// Follows evictions, which leave the task on its node as Releasing but
    /// stop Volcano counting it, and undone placements, which take it off
    /// the node.
    pub(crate) fn follow_deallocate(&mut self, task: &Task) {
        if let Some(r) = &mut self.rules {
            r.idx.remove(task);
        }
        let e = &mut self.entries[task.handle as usize];
        if task.status == status::RELEASING {
            if task.node >= 0 && e.evicted_from < 0 {
                self.nodes[task.node as usize].count(task, -1);
                e.evicted_from = task.node;
            }
            return;
        }
        if e.placed_on >= 0 {
            self.nodes[e.placed_on as usize].count(task, -1);
            e.placed_on = -1;
        }
    }
}
