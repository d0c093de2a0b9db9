//! Node-local classes: which tasks' filter verdicts read nothing of other
//! nodes in a session with pod rules.

use std::collections::{BTreeMap, HashMap};

use super::index::{hash_label, required, Index};
use super::sources::demanded_by;
use super::template::append_map;
use super::terms::existing_matches;
use crate::keys::append_key_string;
use crate::view::{PodAffinity, PodAffinityTerm, Task, View};

const DO_NOT_SCHEDULE: &str = "DoNotSchedule";

impl Index {
    /// Gives each task of the view the node-local class of its
    /// InterPodAffinity (when `affinity`) and PodTopologySpread (when
    /// `spread`) filters for the session
    /// ([`Plugin::predicates_node_local_classes`](crate::Plugin::predicates_node_local_classes)):
    /// whether a task's verdict on a node can depend on anything but that
    /// node, its own shape and, where another pod's anti-affinity can select
    /// it, its namespace and labels. Every pod that can be counted in the
    /// session is in the view (its tasks and the nodes' other pods), so this
    /// holds for the whole session:
    ///
    /// - -1 for a task whose own rules read other nodes: required affinity
    ///   (the group's first pod passes only while nothing matches
    ///   anywhere), a DoNotSchedule spread constraint (the skew compares
    ///   domains), an anti-affinity term on a topology key whose domains
    ///   span several nodes, or rules that do not parse; and for a task that
    ///   such a term of another pod can select.
    /// - 0 for a task whose verdicts depend on its shape alone.
    /// - c > 0 for a task that another pod's anti-affinity term can select
    ///   on a key of one node per domain: the verdict then reads the task's
    ///   namespace and labels, and c numbers them.
    ///
    /// `v` is the view the index was made from; `classes` has one entry per
    /// task handle.
    pub fn node_local_classes(&self, v: &View, affinity: bool, spread: bool, classes: &mut [i32]) {
        let anti = if affinity { AntiTerms::collect(v) } else { AntiTerms::default() };
        let mut labelled: HashMap<Vec<u8>, i32> = HashMap::new();
        let mut next = 1;
        let none = BTreeMap::new();
        for (t, class) in v.tasks.iter().zip(classes.iter_mut()) {
            *class = -1;
            if !self.own_rules_node_local(v, t, affinity, spread) {
                continue;
            }
            let (selected, local) = if affinity {
                anti.selecting(self, v, t, v.namespaces.get(&t.namespace).unwrap_or(&none))
            } else {
                (false, true)
            };
            if !local {
                continue;
            }
            if !selected {
                *class = 0;
                continue;
            }
            let mut key = Vec::new();
            append_key_string(&mut key, &t.namespace);
            append_map(&mut key, &t.labels);
            *class = *labelled.entry(key).or_insert_with(|| {
                next += 1;
                next - 1
            });
        }
    }

    /// Whether a task's own terms and constraints read the node alone.
    fn own_rules_node_local(&self, v: &View, t: &Task, affinity: bool, spread: bool) -> bool {
        if affinity {
            if !t.affinity_error.is_empty() || !required(t.pod_affinity.as_ref()).is_empty() {
                return false;
            }
            if required(t.pod_anti_affinity.as_ref()).iter().any(|term| !self.domains_of(v, &term.topology_key).one_per_node) {
                return false;
            }
        }
        !(spread && t.spread_constraints.iter().any(|c| c.when_unsatisfiable == DO_NOT_SCHEDULE))
    }
}

/// Gives each task of the view its node-local class on a scheduler that
/// reads domain rules: 0 for every task whose terms and constraints parse,
/// since all that its InterPodAffinity and PodTopologySpread filters read
/// of other nodes is in its rules ([`AffinityFilter::append_rules`],
/// [`SpreadFilter::append_rules`]); -1 for the rest, which a predicates
/// plugin's `pre_predicate` rejects.
///
/// [`AffinityFilter::append_rules`]: super::AffinityFilter::append_rules
/// [`SpreadFilter::append_rules`]: super::SpreadFilter::append_rules
pub fn ruled_classes(v: &View, affinity: bool, spread: bool, classes: &mut [i32]) {
    for (t, class) in v.tasks.iter().zip(classes.iter_mut()) {
        let unparsed = (affinity && !t.affinity_error.is_empty()) || (spread && t.spread_constraints.iter().any(|c| !c.error.is_empty()));
        *class = if unparsed { -1 } else { 0 };
    }
}

/// The required anti-affinity terms of every pod of the view, filed by a
/// label a pod they select must carry (the first single-value In
/// requirement), or unlabelled.
#[derive(Default)]
struct AntiTerms<'v> {
    by_label: HashMap<u64, Vec<&'v PodAffinityTerm>>,
    unlabelled: Vec<&'v PodAffinityTerm>,
}

impl<'v> AntiTerms<'v> {
    fn collect(v: &'v View) -> AntiTerms<'v> {
        let mut a = AntiTerms::default();
        for t in &v.tasks {
            a.add(t.pod_anti_affinity.as_ref());
        }
        for o in v.nodes.iter().flat_map(|n| &n.others) {
            a.add(o.pod_anti_affinity.as_ref());
        }
        a
    }

    fn add(&mut self, aff: Option<&'v PodAffinity>) {
        for term in required(aff) {
            let sel = match &term.selector {
                Some(sel) => sel,
                None => continue, // selects nothing
            };
            match demanded_by(sel) {
                Some(lp) => self.by_label.entry(lp).or_default().push(term),
                None => self.unlabelled.push(term),
            }
        }
    }

    /// Whether some term can select the task, and whether every such
    /// term's key has one node per domain.
    fn selecting(&self, idx: &Index, v: &View, t: &Task, ns_labels: &BTreeMap<String, String>) -> (bool, bool) {
        let (mut selected, mut local) = check(idx, v, &self.unlabelled, t, ns_labels);
        for (key, value) in &t.labels {
            if !local {
                break;
            }
            if let Some(terms) = self.by_label.get(&hash_label(key, value)) {
                let (s, l) = check(idx, v, terms, t, ns_labels);
                selected = selected || s;
                local = l;
            }
        }
        (selected, local)
    }
}

/// `AntiTerms::selecting` over some of the terms.
fn check(idx: &Index, v: &View, terms: &[&PodAffinityTerm], t: &Task, ns_labels: &BTreeMap<String, String>) -> (bool, bool) {
    let mut selected = false;
    for term in terms {
        if existing_matches(term, &t.namespace, ns_labels, &t.labels) {
            selected = true;
            if !idx.domains_of(v, &term.topology_key).one_per_node {
                return (true, false);
            }
        }
    }
    (selected, true)
}
