//! The PodTopologySpread score.

use std::collections::{HashMap, HashSet};

use super::golog;
use super::index::{Applier, Index, Pod};
use super::sources::Sources;
use super::spread::{constraints_of, counted, has_all_keys, includes};
use super::{HOSTNAME_KEY, MAX_NODE_SCORE};
use crate::view::{Node, SpreadConstraint, Task, View};

const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";

/// The PodTopologySpread score's state for one task template: the matching
/// pods per domain over every node that counts, and per node for hostname
/// constraints, kept current with the [`Index`].
#[derive(Debug)]
pub struct SpreadScore {
    /// The log position applied; `None` when the task has no constraint to
    /// score or one does not parse.
    seen: Option<usize>,
    namespace: String,
    cs: Vec<SpreadConstraint>,
    /// Nodes lacking any constraint's key are ignored; false only for
    /// system default constraints.
    require_all: bool,
    /// The error reading the task's constraints: scoring the task then
    /// fails.
    pub err: String,
    /// eligible[c][node]: pods on the node count for constraint c.
    eligible: Vec<Vec<bool>>,
    /// Topology key -> value -> matching pods, summed over the constraints
    /// on that key as kube-scheduler sums its topology pairs.
    by_pair: HashMap<String, HashMap<String, i64>>,
    /// per_node[c][node]: the matching pods on the node, for hostname
    /// constraints.
    per_node: Vec<Vec<i64>>,
}

impl SpreadScore {
    /// Builds the score state for a task from its ScheduleAnyway
    /// constraints (its system defaults when `spread_defaulted`).
    pub fn new(idx: &Index, v: &View, t: &Task) -> SpreadScore {
        let mut s = SpreadScore {
            seen: None,
            namespace: t.namespace.clone(),
            cs: Vec::new(),
            require_all: !t.spread_defaulted,
            err: String::new(),
            eligible: Vec::new(),
            by_pair: HashMap::new(),
            per_node: Vec::new(),
        };
        match constraints_of(t, SCHEDULE_ANYWAY) {
            Ok(cs) => s.cs = cs,
            Err(e) => s.err = e,
        }
        if !s.err.is_empty() || s.cs.is_empty() {
            return s;
        }
        s.eligible = vec![vec![false; v.nodes.len()]; s.cs.len()];
        s.per_node = s.cs.iter().map(|c| if c.topology_key == HOSTNAME_KEY { vec![0; v.nodes.len()] } else { Vec::new() }).collect();
        for (ni, n) in v.nodes.iter().enumerate() {
            if s.require_all && !has_all_keys(&n.labels, &s.cs) {
                continue;
            }
            for (i, c) in s.cs.iter().enumerate() {
                if includes(c, t, n) {
                    s.eligible[i][ni] = true;
                }
            }
        }
        let mut src = Sources::default();
        for c in &s.cs {
            src.add(idx.selecting(c.selector.as_ref()));
        }
        s.seen = Some(idx.start(v, src.list(), &mut s));
        s
    }

    /// Writes each candidate node's normalised score (0..100) into `out`,
    /// resized to the nodes; false when the task has no ScheduleAnyway
    /// constraint. The state first catches up with the index.
    pub fn score(&mut self, idx: &Index, v: &View, nodes: &[&Node], out: &mut Vec<i64>) -> bool {
        out.clear();
        out.resize(nodes.len(), 0);
        if self.cs.is_empty() {
            return false;
        }
        if let Some(seen) = self.seen {
            self.seen = Some(idx.catch_up(v, seen, self));
        }
        let ignored: Vec<bool> = nodes.iter().map(|n| self.require_all && !has_all_keys(&n.labels, &self.cs)).collect();
        let kept = ignored.iter().filter(|&&i| !i).count();
        // Each constraint's weight depends on how many domains the
        // candidates span (every candidate is one domain for hostname); a
        // candidate without the key counts as the domain "".
        let weights: Vec<f64> = self
            .cs
            .iter()
            .map(|c| {
                let mut size = kept;
                if c.topology_key != HOSTNAME_KEY {
                    let values: HashSet<&str> = nodes
                        .iter()
                        .zip(&ignored)
                        .filter(|(_, &i)| !i)
                        .map(|(n, _)| n.labels.get(&c.topology_key).map_or("", String::as_str))
                        .collect();
                    size = values.len();
                }
                golog::log((size + 2) as f64)
            })
            .collect();
        let (mut min_score, mut max_score) = (i64::MAX, 0i64);
        for (i, n) in nodes.iter().enumerate() {
            if ignored[i] {
                continue;
            }
            let mut score = 0f64;
            for (ci, c) in self.cs.iter().enumerate() {
                let value = match n.labels.get(&c.topology_key) {
                    Some(v) => v,
                    None => continue,
                };
                let cnt = if c.topology_key == HOSTNAME_KEY {
                    self.per_node[ci][n.handle as usize]
                } else {
                    self.by_pair.get(&c.topology_key).and_then(|m| m.get(value)).copied().unwrap_or(0)
                };
                score += cnt as f64 * weights[ci] + f64::from(c.max_skew.wrapping_sub(1));
            }
            out[i] = score.round() as i64;
            min_score = min_score.min(out[i]);
            max_score = max_score.max(out[i]);
        }
        for (o, &ignored) in out.iter_mut().zip(&ignored) {
            *o = if ignored {
                0
            } else if max_score == 0 {
                MAX_NODE_SCORE
            } else {
                MAX_NODE_SCORE * (max_score + min_score - *o) / max_score
            };
        }
        true
    }
}

impl Applier for SpreadScore {
    fn apply(&mut self, _: &Index, v: &View, pod: &Pod, d: i64) {
        let node_labels = &v.nodes[pod.node].labels;
        let p = pod.fields(v);
        for (i, c) in self.cs.iter().enumerate() {
            if !counted(c, &p, &self.namespace) {
                continue;
            }
            if let Some(n) = self.per_node[i].get_mut(pod.node) {
                *n += d;
            }
            if let (Some(value), true) = (node_labels.get(&c.topology_key), self.eligible[i][pod.node]) {
                let values = self.by_pair.entry(c.topology_key.clone()).or_default();
                match values.get_mut(value) {
                    Some(n) => *n += d,
                    None => {
                        values.insert(value.clone(), d);
                    }
                }
            }
        }
    }
}
