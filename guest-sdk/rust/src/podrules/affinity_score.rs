//! The InterPodAffinity score.

use std::collections::{BTreeMap, HashMap};

use super::index::{preferred, required, Applier, Index, Pod};
use super::sources::Sources;
use super::terms::{existing_matches, resolve_weighted, Term};
use super::MAX_NODE_SCORE;
use crate::view::{Node, Task, View};

/// The InterPodAffinity score's state for one task template:
/// kube-scheduler's PreScore topology scores, kept current with the
/// [`Index`].
#[derive(Debug)]
pub struct AffinityScore {
    /// The log position applied; `None` for a task whose terms do not
    /// parse.
    seen: Option<usize>,
    namespace: String,
    labels: BTreeMap<String, String>,
    ns_labels: BTreeMap<String, String>,
    preferred_aff: Vec<Term>,
    preferred_anti: Vec<Term>,
    /// hardPodAffinityWeight: what an existing pod's required affinity term
    /// that selects the task adds.
    hard_weight: i32,
    /// The task's `affinity_error`: scoring the task then fails.
    pub err: String,
    /// Topology key -> value -> score. A key once scored stays, at 0 or
    /// not: the score then tells nodes apart.
    scores: BTreeMap<String, HashMap<String, i64>>,
}

impl AffinityScore {
    /// Builds the score state for a task, with kube-scheduler's
    /// hardPodAffinityWeight.
    pub fn new(idx: &Index, v: &View, t: &Task, hard_weight: i32) -> AffinityScore {
        let mut s = AffinityScore {
            seen: None,
            namespace: t.namespace.clone(),
            labels: t.labels.clone(),
            ns_labels: v.namespaces.get(&t.namespace).cloned().unwrap_or_default(),
            preferred_aff: Vec::new(),
            preferred_anti: Vec::new(),
            hard_weight,
            err: t.affinity_error.clone(),
            scores: BTreeMap::new(),
        };
        if !s.err.is_empty() {
            return s;
        }
        s.preferred_aff = resolve_weighted(v, preferred(t.pod_affinity.as_ref()));
        s.preferred_anti = resolve_weighted(v, preferred(t.pod_anti_affinity.as_ref()));
        // Existing pods' terms, and pods the task's preferred terms can
        // select.
        let mut src = Sources::default();
        idx.scoring.selectors(&mut src, &t.labels);
        src.any_term(idx, &s.preferred_aff);
        src.any_term(idx, &s.preferred_anti);
        s.seen = Some(idx.start(v, src.list(), &mut s));
        s
    }

    /// Writes each node's normalised score (0..100) into `out`, resized to
    /// the nodes; false when no term has ever contributed, and every node
    /// scores 0. The state first catches up with the index.
    pub fn score(&mut self, idx: &Index, v: &View, nodes: &[&Node], out: &mut Vec<i64>) -> bool {
        out.clear();
        out.resize(nodes.len(), 0);
        if let Some(seen) = self.seen {
            self.seen = Some(idx.catch_up(v, seen, self));
        }
        if self.scores.is_empty() {
            return false;
        }
        let (mut min_count, mut max_count) = (i64::MAX, i64::MIN);
        for (n, o) in nodes.iter().zip(out.iter_mut()) {
            let mut score = 0i64;
            for (key, values) in &self.scores {
                if let Some(value) = n.labels.get(key) {
                    score += values.get(value).copied().unwrap_or(0);
                }
            }
            *o = score;
            min_count = min_count.min(score);
            max_count = max_count.max(score);
        }
        let diff = max_count.wrapping_sub(min_count);
        for o in out.iter_mut() {
            let mut f = 0.0;
            if diff > 0 {
                f = MAX_NODE_SCORE as f64 * ((*o - min_count) as f64 / diff as f64);
            }
            *o = f as i64;
        }
        true
    }
}

impl Applier for AffinityScore {
    /// Adds (1) or takes back (-1) what one existing pod contributes, as
    /// kube-scheduler's processExistingPod.
    fn apply(&mut self, _: &Index, v: &View, pod: &Pod, d: i64) {
        let node_labels = &v.nodes[pod.node].labels;
        if node_labels.is_empty() {
            return;
        }
        let p = pod.fields(v);
        let scores = &mut self.scores;
        for t in &self.preferred_aff {
            if t.matches(p.namespace, p.labels) {
                add(scores, &t.key, i64::from(t.weight) * d, node_labels);
            }
        }
        for t in &self.preferred_anti {
            if t.matches(p.namespace, p.labels) {
                add(scores, &t.key, -i64::from(t.weight) * d, node_labels);
            }
        }
        if self.hard_weight > 0 {
            for t in required(p.affinity) {
                if existing_matches(t, &self.namespace, &self.ns_labels, &self.labels) {
                    add(scores, &t.topology_key, i64::from(self.hard_weight) * d, node_labels);
                }
            }
        }
        for t in preferred(p.affinity) {
            if existing_matches(&t.term, &self.namespace, &self.ns_labels, &self.labels) {
                add(scores, &t.term.topology_key, i64::from(t.weight) * d, node_labels);
            }
        }
        for t in preferred(p.anti) {
            if existing_matches(&t.term, &self.namespace, &self.ns_labels, &self.labels) {
                add(scores, &t.term.topology_key, -i64::from(t.weight) * d, node_labels);
            }
        }
    }
}

/// Adds weight to the score of the node's domain of key; a node without
/// the key has no domain.
fn add(scores: &mut BTreeMap<String, HashMap<String, i64>>, key: &str, weight: i64, node_labels: &BTreeMap<String, String>) {
    let value = match node_labels.get(key) {
        Some(v) => v,
        None => return,
    };
    if !scores.contains_key(key) {
        scores.insert(key.to_string(), HashMap::new());
    }
    let values = scores.get_mut(key).expect("inserted above");
    match values.get_mut(value) {
        Some(n) => *n += weight,
        None => {
            values.insert(value.clone(), weight);
        }
    }
}
