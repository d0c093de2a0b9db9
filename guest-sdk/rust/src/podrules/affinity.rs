//! The InterPodAffinity filter.

use std::collections::BTreeMap;

use super::domains::DomainTally;
use super::index::{required, Applier, Index, Pod};
use super::sources::Sources;
use super::terms::{existing_matches, matches_all, resolve_required, Term};
use crate::view::{Node, Task, View};

/// The filter's reasons, kube-scheduler's words.
pub const REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
pub const REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod anti-affinity rules";
pub const REASON_EXISTING_ANTI_AFFINITY_NOT_MATCHED: &str = "node(s) didn't satisfy existing pods anti-affinity rules";

/// The InterPodAffinity filter's state for one task template:
/// kube-scheduler's PreFilter counts, kept current with the [`Index`].
#[derive(Debug)]
pub struct AffinityFilter {
    /// The log position applied; `None` for a task whose terms do not
    /// parse.
    seen: Option<usize>,
    namespace: String,
    labels: BTreeMap<String, String>,
    ns_labels: BTreeMap<String, String>,
    pub(super) required_affinity: Vec<Term>,
    pub(super) required_anti: Vec<Term>,
    /// The task's `affinity_error`: the task is then unschedulable.
    pub err: String,

    /// Existing pods' required anti-affinity selecting the task.
    pub(super) existing_anti: DomainTally,
    /// Pods matching all the task's required affinity terms.
    pub(super) affinity: DomainTally,
    /// Pods matching the task's required anti-affinity terms.
    pub(super) anti: DomainTally,
}

impl AffinityFilter {
    /// Builds the filter state for a task.
    pub fn new(idx: &Index, v: &View, t: &Task) -> AffinityFilter {
        let mut f = AffinityFilter {
            seen: None,
            namespace: t.namespace.clone(),
            labels: t.labels.clone(),
            ns_labels: v.namespaces.get(&t.namespace).cloned().unwrap_or_default(),
            required_affinity: Vec::new(),
            required_anti: Vec::new(),
            err: t.affinity_error.clone(),
            existing_anti: DomainTally::default(),
            affinity: DomainTally::default(),
            anti: DomainTally::default(),
        };
        if !f.err.is_empty() {
            return f;
        }
        f.required_affinity = resolve_required(v, required(t.pod_affinity.as_ref()));
        f.required_anti = resolve_required(v, required(t.pod_anti_affinity.as_ref()));
        // The task's own keys are tallied from the start: Filter reads
        // which nodes carry them.
        for term in &f.required_affinity {
            f.affinity.for_key(idx, v, &term.key);
        }
        for term in &f.required_anti {
            f.anti.for_key(idx, v, &term.key);
        }
        // Existing pods' required anti-affinity, and pods the task's own
        // required terms can select.
        let mut src = Sources::default();
        idx.required_anti.selectors(&mut src, &t.labels);
        src.every_term(idx, &f.required_affinity);
        src.any_term(idx, &f.required_anti);
        f.seen = Some(idx.start(v, src.list(), &mut f));
        f
    }

    /// Applies the placements and removals made since the last call; the
    /// filter answers from the state as of then, as kube-scheduler answers
    /// from the PreFilter state.
    pub fn catch_up(&mut self, idx: &Index, v: &View) {
        if let Some(seen) = self.seen {
            self.seen = Some(idx.catch_up(v, seen, self));
        }
    }

    /// Whether [`AffinityFilter::filter`] passes every node as the state
    /// stands: the task parses, has no required terms of its own, and no
    /// existing pod's required anti-affinity selects it. A caller may then
    /// skip the filter.
    pub fn passes_all(&self) -> bool {
        self.err.is_empty() && self.required_affinity.is_empty() && self.required_anti.is_empty() && self.existing_anti.nonzero == 0
    }

    /// The reason the node fails and whether that failure is unresolvable
    /// by preemption; `None` when it passes.
    pub fn filter(&self, n: &Node) -> Option<(&'static str, bool)> {
        let node = n.handle as usize;
        if !self.satisfies_affinity(node) {
            return Some((REASON_AFFINITY_RULES_NOT_MATCH, true));
        }
        if self.anti.nonzero > 0 && self.required_anti.iter().any(|t| self.anti.at(node, &t.key) > 0) {
            return Some((REASON_ANTI_AFFINITY_RULES_NOT_MATCH, false));
        }
        if self.existing_anti.keys.iter().any(|kt| kt.nonzero > 0 && kt.at(node) > 0) {
            return Some((REASON_EXISTING_ANTI_AFFINITY_NOT_MATCHED, false));
        }
        None
    }

    fn satisfies_affinity(&self, node: usize) -> bool {
        let mut pods_exist = true;
        for term in &self.required_affinity {
            // Made in new for every key of the task's terms.
            let kt = self.affinity.find(&term.key).expect("tallied from the start");
            if !kt.carried_by(node) {
                return false;
            }
            if kt.at(node) <= 0 {
                pods_exist = false;
            }
        }
        if pods_exist {
            return true;
        }
        self.first_of_group()
    }

    /// Whether the task is the first pod of a group whose members must be
    /// together: nothing matches its required affinity anywhere yet, and it
    /// matches its own terms.
    pub(super) fn first_of_group(&self) -> bool {
        self.affinity.nonzero == 0 && matches_all(&self.required_affinity, &self.namespace, &self.labels)
    }
}

impl Applier for AffinityFilter {
    fn apply(&mut self, idx: &Index, v: &View, pod: &Pod, d: i64) {
        let p = pod.fields(v);
        for t in required(p.anti) {
            if existing_matches(t, &self.namespace, &self.ns_labels, &self.labels) {
                self.existing_anti.update(idx, v, pod.node, &t.topology_key, d);
            }
        }
        if matches_all(&self.required_affinity, p.namespace, p.labels) {
            for t in &self.required_affinity {
                self.affinity.update(idx, v, pod.node, &t.key, d);
            }
        }
        for t in &self.required_anti {
            if t.matches(p.namespace, p.labels) {
                self.anti.update(idx, v, pod.node, &t.key, d);
            }
        }
    }
}
