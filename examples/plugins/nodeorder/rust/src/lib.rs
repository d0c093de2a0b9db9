//! The Rust port of Caldera's native nodeorder plugin (hostplugins/nodeorder,
//! Volcano's nodeorder), translated from the Go port: it scores nodes for a
//! task with kube-scheduler's scoring rules and integer arithmetic, each
//! strategy in 0..100, normalised over the candidates where kube-scheduler
//! normalises it, times its weight:
//!
//! ```text
//! leastrequested.weight    1  cpu and memory left free, weighing 50 each
//! mostrequested.weight     0  cpu and memory in use
//! balancedresource.weight  1  balance of cpu, memory and nvidia.com/gpu
//! nodeaffinity.weight      2  preferred node affinity, best candidate 100
//! tainttoleration.weight   3  fewest untolerated PreferNoSchedule taints 100
//! imagelocality.weight     1  the task's images already on the node
//! podaffinity.weight       2  preferred inter-pod affinity, existing pods'
//!                             terms too (podaffinity.hardPodAffinityWeight 1)
//! podtopologyspread.weight 2  ScheduleAnyway spread constraints
//! ```
//!
//! (the last two in podrules.rs, over the SDK's `caldera::podrules`).
//!
//! Node usage is what Volcano's kube-scheduler NodeInfo holds: the requests
//! of every pod on the node at session open (the view's `kube_requested`),
//! plus tasks placed in the session, minus tasks evicted in it; when no
//! plugin named predicates is configured it stays as it was at session open
//! (usage.rs). Scores are sums of integer strategy scores times integer
//! weights, added strategy by strategy in the Go port's order, so they are
//! the native plugin's to the bit.
#![deny(unsafe_code)]

mod images;
mod podrules;
mod resources;
mod template;
mod usage;
mod weights;

use std::collections::HashMap;

use caldera::{status, Argument, Error, Node, NodeOrder, Plugin, Session, Task};

use images::Images;
use podrules::Rules;
use resources::{best_effort_for_balance, ResourceScores};
use template::{template_key, Entry, Template, PREFERRED_TERM_ERROR};
use usage::NodeState;
use weights::Weights;

/// kube-scheduler's framework.MaxNodeScore.
const MAX_NODE_SCORE: i64 = 100;

/// The plugin whose event handlers keep Volcano's node usage current
/// during a session.
const PREDICATES_NAME: &str = "predicates";

/// The nodeorder policy for one session.
#[derive(Default)]
pub struct Nodeorder {
    w: Weights,
    /// Node usage follows the session's placements.
    live: bool,
    nodes: Vec<NodeState>,
    /// Each task's template, resource score table and placement, by task
    /// handle.
    entries: Vec<Entry>,
    templates: Vec<Template>,
    tables: Vec<ResourceScores>,
    images: Images,
    /// `None` in a session without inter-pod affinity or spread rules that
    /// score.
    rules: Option<Rules>,
    /// Scratch space reused by every node_order_batch call.
    raw: Vec<i64>,
    least: Vec<i64>,
    most: Vec<i64>,
    balanced: Vec<i64>,
}

caldera::export!(Nodeorder);

impl Plugin for Nodeorder {
    const NAME: &'static str = "nodeorder";
    const ARGUMENTS: &'static [Argument] = weights::DECLARED;

    /// Reads the weights and indexes the session's nodes and the templates
    /// and requests of its tasks.
    fn on_session_open(&mut self, s: &Session) -> Result<(), Error> {
        self.w = Weights::read(s.arguments())?;
        let v = s.view();
        self.live = v.plugins.iter().any(|name| name == PREDICATES_NAME);
        self.nodes = v.nodes.iter().map(NodeState::new).collect();
        self.images = Images::default();
        self.rules = Rules::new(v, &self.w);
        self.templates.clear();
        self.tables.clear();
        let mut templates: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut tables: HashMap<[i64; 5], usize> = HashMap::new();
        let mut key = Vec::new();
        self.entries = Vec::with_capacity(v.tasks.len());
        for t in &v.tasks {
            key.clear();
            template_key(&mut key, t);
            let tpl = match templates.get(key.as_slice()) {
                Some(&i) => i,
                None => {
                    self.templates.push(Template::new(t, v.nodes.len()));
                    templates.insert(key.clone(), self.templates.len() - 1);
                    self.templates.len() - 1
                }
            };
            let r = &t.kube_request;
            let shape = [r.milli_cpu, r.memory, r.gpu, r.non_zero_milli_cpu, r.non_zero_memory];
            let scores = *tables.entry(shape).or_insert_with(|| {
                self.tables.push(ResourceScores::new(v.nodes.len()));
                self.tables.len() - 1
            });
            // A session reopened after a failure sees its own placements in
            // the view.
            let placed = (t.status == status::ALLOCATED || t.status == status::PIPELINED) && t.node >= 0;
            self.entries.push(Entry { tpl, scores, placed_on: if placed { t.node } else { -1 } });
        }
        Ok(())
    }

    /// Adds a placed, pipelined or unevicted task's requests to its node,
    /// and counts its pod for the pod rules. Placements are remembered even
    /// when usage does not follow them.
    fn on_allocate(&mut self, _: &Session, task: &Task) {
        if self.live {
            if let Some(r) = &mut self.rules {
                r.idx.add(task);
            }
        }
        if task.node < 0 {
            return;
        }
        if task.status == status::ALLOCATED || task.status == status::PIPELINED {
            self.entries[task.handle as usize].placed_on = task.node;
        }
        if self.live {
            self.nodes[task.node as usize].add_task(task, 1);
        }
    }

    /// Removes an evicted task's requests from its node, or an undone
    /// placement's from the node it had been placed on.
    fn on_deallocate(&mut self, _: &Session, task: &Task) {
        if !self.live {
            return;
        }
        if let Some(r) = &mut self.rules {
            r.idx.remove(task);
        }
        let mut node = task.node;
        if node < 0 {
            node = self.entries[task.handle as usize].placed_on;
        }
        if node >= 0 {
            self.nodes[node as usize].add_task(task, -1);
        }
    }

    /// Never in a session with pod rules. The resource strategies read the
    /// node and the task's request only; the two normalised ones depend on
    /// the other candidates unless a node's score does not. Taint
    /// toleration counts a node's untolerated PreferNoSchedule taints and
    /// scales by the highest count among the candidates, reversed: while no
    /// node has more than one, a count of 0 scores 100 whatever the
    /// highest, and a count of 1 is the highest and scores 0. Node affinity
    /// is skipped when no task has a preferred node affinity.
    fn scores_node_local(&self, s: &Session) -> bool {
        if self.rules.is_some() {
            return false; // normalised over the candidates, and reads other pods
        }
        if self.w.taint_toleration != 0 {
            let soft = |n: &Node| n.taints.iter().filter(|t| t.effect == "PreferNoSchedule").count();
            if s.nodes().iter().any(|n| soft(n) > 1) {
                return false;
            }
        }
        if self.w.node_affinity != 0 && self.entries.iter().any(|e| self.templates[e.tpl].preferred.is_some()) {
            return false;
        }
        true
    }

    /// With no rules state, no score reads a task's inter-pod terms or
    /// spread constraints (they score nothing in such a session), so gangs
    /// that differ only there share kept scores.
    fn scores_read_no_rules(&self, _: &Session) -> bool {
        self.rules.is_none()
    }
}

impl NodeOrder for Nodeorder {
    /// Scores the candidate nodes; each strategy is normalised over exactly
    /// these nodes.
    fn node_order_batch(&mut self, s: &Session, task: &Task, nodes: &[&Node], scores: &mut [f64]) -> Result<(), Error> {
        if nodes.is_empty() {
            return Ok(());
        }
        let e = self.entries[task.handle as usize];
        if self.templates[e.tpl].invalid {
            return Err(PREFERRED_TERM_ERROR.into());
        }
        let w = self.w;
        let req = &task.kube_request;
        let n = nodes.len();
        for buf in [&mut self.raw, &mut self.least, &mut self.most, &mut self.balanced] {
            buf.resize(n, 0);
        }
        let use_balanced = w.balanced_resource != 0 && !best_effort_for_balance(req);
        if w.least_requested != 0 || w.most_requested != 0 || use_balanced {
            let table = &mut self.tables[e.scores];
            for (i, node) in nodes.iter().enumerate() {
                let (least, most, balanced) = table.of(req, &self.nodes[node.handle as usize], node.handle, self.live);
                self.least[i] = least;
                self.most[i] = most;
                self.balanced[i] = balanced;
            }
        }
        if w.least_requested != 0 {
            add_weighted(scores, &self.least, w.least_requested);
        }
        if w.most_requested != 0 {
            add_weighted(scores, &self.most, w.most_requested);
        }
        if use_balanced {
            add_weighted(scores, &self.balanced, w.balanced_resource);
        }
        let tpl = &mut self.templates[e.tpl];
        if w.node_affinity != 0 && tpl.preferred.is_some() {
            for (raw, node) in self.raw.iter_mut().zip(nodes) {
                *raw = tpl.affinity_score(node);
            }
            normalize(&mut self.raw, false);
            add_weighted(scores, &self.raw, w.node_affinity);
        }
        if w.taint_toleration != 0 {
            for (raw, node) in self.raw.iter_mut().zip(nodes) {
                *raw = tpl.taint_score(node);
            }
            normalize(&mut self.raw, true);
            add_weighted(scores, &self.raw, w.taint_toleration);
        }
        if w.image_locality != 0 {
            self.images.build(s.nodes());
            if !self.images.none {
                for (raw, node) in self.raw.iter_mut().zip(nodes) {
                    *raw = self.images.score(task, node.handle as usize);
                }
                add_weighted(scores, &self.raw, w.image_locality);
            }
        }
        match &mut self.rules {
            Some(r) => r.add(s.view(), task, nodes, &mut self.raw, scores),
            None => Ok(()),
        }
    }
}

/// Adds one strategy's weighted scores. Each is an integer; strategies are
/// added one by one, as the native plugin adds them.
fn add_weighted(scores: &mut [f64], raw: &[i64], weight: i64) {
    for (s, r) in scores.iter_mut().zip(raw) {
        *s += r.wrapping_mul(weight) as f64;
    }
}

/// kube-scheduler's DefaultNormalizeScore: scale to 0..100 by the highest
/// score, optionally reversed; all zeros stay 0, or become 100 when
/// reversed.
fn normalize(scores: &mut [i64], reverse: bool) {
    let highest = scores.iter().fold(0, |h, &s| h.max(s));
    for s in scores.iter_mut() {
        if highest == 0 {
            if reverse {
                *s = MAX_NODE_SCORE;
            }
            continue;
        }
        let scaled = MAX_NODE_SCORE * *s / highest;
        *s = if reverse { MAX_NODE_SCORE - scaled } else { scaled };
    }
}

#[cfg(test)]
mod tests;
