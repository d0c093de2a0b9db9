//! The Rust port of Caldera's native deviceshare plugin
//! (hostplugins/deviceshare, Volcano v1.15's GPU sharing and GPU numbers):
//! pods ask for a share of one card's memory (`volcano.sh/gpu-memory`) or
//! for whole cards (`volcano.sh/gpu-number`), and the cards they get are
//! named on the pod at bind. With `deviceshare.GPUSharingEnable` or
//! `deviceshare.GPUNumberEnable` on (args.rs):
//!
//! ```text
//! session_open     each node's cards from the view (Node::gpus), the holds
//!                  of the view's tasks kept by task                cards.rs
//! predicate_batch  sharing: some card has the pod's memory free; numbers:
//!                  the node has that many idle cards; Unschedulable
//!                  otherwise, a node without cards passes
//! allocate         the first card by ID with room, or the first idle
//!                  cards; volcano.sh/gpu-index and volcano.sh/predicate-time
//!                  (the scheduler's clock) at bind; refused when none is left
//! deallocate, evict  the task's cards given back
//! ```
//!
//! hostplugins/deviceshare/doc.go says what the native plugin decides; this
//! port decides the same with the same arguments, from the cards the view
//! carries (ABI 1.12); a session opened again on a fresh instance after a
//! failure finds the cards its placements took in their annotations.
#![deny(unsafe_code)]

mod args;
mod cards;

use caldera::{log, status, Allocate, Annotations, Argument, Error, Level, Node, Plugin, Predicate, Session, Task, Verdict};

use args::Args;
use cards::{index_value, Cards, INDEX_ANNOTATION, MEMORY_RESOURCE};

/// Written beside the cards: when, in Unix nanoseconds.
const PREDICATE_TIME_ANNOTATION: &str = "volcano.sh/predicate-time";

/// The deviceshare policy for one session.
#[derive(Default)]
pub struct DeviceShare {
    args: Args,
    /// Each node's cards, by node handle; `None` for a node without any.
    nodes: Vec<Option<Cards>>,
    /// The cards each task was given in the session, by task handle, so
    /// that its deallocation gives back exactly those.
    given: Vec<Option<Grant>>,
    /// The module has logged that the scheduler never asks `allocate`.
    old_host_warned: bool,
}

#[derive(Clone, Debug)]
struct Grant {
    node: usize,
    ids: Vec<i32>,
}

caldera::export!(DeviceShare);

impl Plugin for DeviceShare {
    const NAME: &'static str = "deviceshare";
    const ARGUMENTS: &'static [Argument] = args::DECLARED;

    /// Reads the arguments and, with either kind on, every node's cards and
    /// the holds of the view's tasks on them.
    fn on_session_open(&mut self, s: &Session) -> Result<(), Error> {
        self.args = Args::read(s.arguments())?;
        self.nodes.clear();
        self.given.clear();
        if !(self.args.sharing || self.args.number) {
            return Ok(());
        }
        if s.host_abi_minor() < 12 && !self.old_host_warned {
            self.old_host_warned = true;
            log(
                Level::Error,
                "this scheduler speaks an ABI before 1.12 and never asks the port's allocate: pods get no cards named and the cards \
                 they take are not counted; use the native deviceshare plugin, or a scheduler of ABI 1.12 or later",
            );
        }
        let v = s.view();
        self.nodes = v.nodes.iter().map(Cards::read).collect();
        self.given = vec![None; v.tasks.len()];
        for t in &v.tasks {
            let held = match self.cards_mut(t.node) {
                Some(cards) => cards.claim(t),
                None => continue,
            };
            // A session opened again on a fresh instance after a failure
            // sees its own placements, with the cards the scheduler will
            // name at their bind: they are this session's grants, given
            // back if the task leaves its node.
            if !held.is_empty() && (t.status == status::ALLOCATED || t.status == status::PIPELINED) {
                if let (Ok(h), Ok(node)) = (usize::try_from(t.handle), usize::try_from(t.node)) {
                    self.given[h] = Some(Grant { node, ids: held });
                }
            }
        }
        Ok(())
    }

    /// Gives back the cards the task was given, on the node it leaves.
    fn on_deallocate(&mut self, _: &Session, t: &Task) {
        let grant = match usize::try_from(t.handle).ok().and_then(|h| self.given.get_mut(h)).and_then(Option::take) {
            Some(g) => g,
            None => return,
        };
        if let Some(Some(cards)) = self.nodes.get_mut(grant.node) {
            cards.give(t.handle, &grant.ids);
        }
    }
}

impl Predicate for DeviceShare {
    /// Fails a node whose cards cannot hold the task's request. Nodes
    /// without cards pass, as in Volcano: the resource fit turns away a pod
    /// asking for a resource the node lacks.
    fn predicate_batch(&mut self, _: &Session, task: &Task, nodes: &[&Node], verdicts: &mut [Verdict]) {
        let (memory, number) = self.requests(task);
        if memory <= 0 && number <= 0 {
            return;
        }
        for (n, v) in nodes.iter().zip(verdicts.iter_mut()) {
            let cards = match usize::try_from(n.handle).ok().and_then(|h| self.nodes.get(h)) {
                Some(Some(c)) => c,
                _ => continue,
            };
            if memory > 0 && cards.fit_by_memory(memory).is_none() {
                *v = Verdict::reject(format!("GpuShare no enough gpu memory on node {}", n.name));
            } else if number > 0 && cards.fit_by_number(number).is_none() {
                *v = Verdict::reject(format!("GpuNumber no enough gpu number on node {}", n.name));
            }
        }
    }
}

impl Allocate for DeviceShare {
    /// Gives the task its cards on its node and the annotations that name
    /// them; refuses the placement when the cards cannot hold it (another
    /// placement took them since the predicate). A task that asks for no
    /// card, on a node without any, or given cards already in the session,
    /// gets nothing.
    fn allocate(&mut self, s: &Session, task: &Task, now: i64) -> Result<Annotations, String> {
        let ids = match self.grant(s, task)? {
            Some(ids) => ids,
            None => return Ok(Annotations::new()),
        };
        let mut out = Annotations::new();
        out.insert(PREDICATE_TIME_ANNOTATION.to_string(), Some(now.to_string()));
        out.insert(INDEX_ANNOTATION.to_string(), Some(index_value(&ids)));
        Ok(out)
    }
}

impl DeviceShare {
    /// What the task asks of the enabled kind: memory of one card with
    /// sharing, whole cards with numbers.
    fn requests(&self, t: &Task) -> (i64, i64) {
        (if self.args.sharing { t.gpu_memory } else { 0 }, if self.args.number { t.gpu_number } else { 0 })
    }

    fn cards_mut(&mut self, node: i32) -> Option<&mut Cards> {
        usize::try_from(node).ok().and_then(|h| self.nodes.get_mut(h)).and_then(Option::as_mut)
    }

    /// The cards the task takes on its node, as the native TryAllocate
    /// picks them; `None` when it takes none.
    fn grant(&mut self, s: &Session, t: &Task) -> Result<Option<Vec<i32>>, String> {
        let (memory, number) = self.requests(t);
        if memory <= 0 && number <= 0 {
            return Ok(None);
        }
        let (on, node) = match (usize::try_from(t.node), s.node_of(t)) {
            (Ok(h), Some(n)) => (h, n),
            _ => return Ok(None),
        };
        let task = match usize::try_from(t.handle) {
            Ok(h) if h < self.given.len() && self.given[h].is_none() => h,
            _ => return Ok(None),
        };
        let cards = match self.nodes.get_mut(on) {
            Some(Some(c)) => c,
            _ => return Ok(None),
        };
        let ids = if memory > 0 {
            let id = cards.fit_by_memory(memory).ok_or_else(|| {
                format!("deviceshare: no GPU on node {} has {} of {} free for pod {}/{}", node.name, memory, MEMORY_RESOURCE, t.namespace, t.name)
            })?;
            vec![id]
        } else {
            cards
                .fit_by_number(number)
                .ok_or_else(|| format!("deviceshare: node {} has fewer than {} idle GPUs for pod {}/{}", node.name, number, t.namespace, t.name))?
        };
        cards.take(t.handle, &ids, t.gpu_memory);
        self.given[task] = Some(Grant { node: on, ids: ids.clone() });
        Ok(Some(ids))
    }
}

#[cfg(test)]
mod tests;
