//! The PodTopologySpread filter, and what it shares with the score: how a
//! task's constraints are read and which nodes and pods count for them.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::domains::KeyDomains;
use super::index::{Applier, Index, Pod, PodFields};
use super::sources::Sources;
use super::terms::selects;
use crate::matching::tolerates_any;
use crate::view::{Node, SpreadConstraint, Task, View};

/// The filter's reasons, kube-scheduler's words.
pub const REASON_SPREAD_CONSTRAINTS_NOT_MATCH: &str = "node(s) didn't match pod topology spread constraints";
pub const REASON_SPREAD_MISSING_LABEL: &str = "node(s) didn't match pod topology spread constraints (missing required label)";

const DO_NOT_SCHEDULE: &str = "DoNotSchedule";

/// A task's constraints of one kind (DoNotSchedule for the filter,
/// ScheduleAnyway for the score) in spec order, or the error of the first
/// of that kind that does not parse.
pub(super) fn constraints_of(t: &Task, kind: &str) -> Result<Vec<SpreadConstraint>, String> {
    let mut out = Vec::new();
    for c in t.spread_constraints.iter().filter(|c| c.when_unsatisfiable == kind) {
        if !c.error.is_empty() {
            return Err(c.error.clone());
        }
        out.push(c.clone());
    }
    Ok(out)
}

/// Whether a node carries every constraint's key.
pub(super) fn has_all_keys(labels: &BTreeMap<String, String>, cs: &[SpreadConstraint]) -> bool {
    cs.iter().all(|c| labels.contains_key(&c.topology_key))
}

/// Applies a constraint's node inclusion policies to a node.
pub(super) fn includes(c: &SpreadConstraint, t: &Task, n: &Node) -> bool {
    if c.node_affinity_policy == "Honor" && !t.matches_required_node_affinity(n) {
        return false;
    }
    if c.node_taints_policy == "Honor" {
        let hard = |effect: &str| effect == "NoSchedule" || effect == "NoExecute";
        if n.taints.iter().any(|taint| hard(&taint.effect) && !tolerates_any(&t.tolerations, taint)) {
            return false;
        }
    }
    true
}

/// Whether the constraints' node inclusion policies can leave out a node
/// that carries every key: the task's required node affinity when a policy
/// honours it, or taints.
fn policies_exclude(t: &Task, cs: &[SpreadConstraint]) -> bool {
    let affinity = !t.node_selector.is_empty() || t.node_affinity.as_ref().map_or(false, |a| a.required.is_some());
    cs.iter().any(|c| (c.node_affinity_policy == "Honor" && affinity) || c.node_taints_policy == "Honor")
}

/// Whether an existing pod counts for a constraint of a task in namespace
/// `ns`: kube-scheduler's countPodsMatchSelector, which never counts for an
/// empty selector and skips terminating pods.
pub(super) fn counted(c: &SpreadConstraint, p: &PodFields<'_>, ns: &str) -> bool {
    !p.terminating && p.namespace == ns && c.selector.as_ref().map_or(false, |s| !s.requirements.is_empty() && s.matches(p.labels))
}

/// For one list of constraint keys, which nodes carry them all and the
/// domains of each key on those nodes.
#[derive(Debug)]
pub(crate) struct KeysEligibility {
    carrying: Rc<Vec<bool>>,
    domains: Vec<Vec<i32>>,
}

impl Index {
    /// The nodes and domains of the constraints' keys, made once per
    /// session and list of keys; callers only read them.
    fn eligible_for(&self, v: &View, cs: &[SpreadConstraint]) -> Rc<KeysEligibility> {
        let key: String = cs.iter().map(|c| format!("{}\x00", c.topology_key)).collect();
        if let Some(e) = self.eligible.borrow().get(&key) {
            return Rc::clone(e);
        }
        let of: Vec<Rc<KeyDomains>> = cs.iter().map(|c| self.domains_of(v, &c.topology_key)).collect();
        let mut seen: Vec<Vec<bool>> = of.iter().map(|kd| vec![false; kd.n]).collect();
        let mut carrying = vec![false; v.nodes.len()];
        let mut domains = vec![Vec::new(); cs.len()];
        for ni in 0..v.nodes.len() {
            if of.iter().any(|kd| kd.of[ni] < 0) {
                continue;
            }
            carrying[ni] = true;
            for (i, kd) in of.iter().enumerate() {
                let id = kd.of[ni];
                if !seen[i][id as usize] {
                    seen[i][id as usize] = true;
                    domains[i].push(id);
                }
            }
        }
        let e = Rc::new(KeysEligibility { carrying: Rc::new(carrying), domains });
        self.eligible.borrow_mut().insert(key, Rc::clone(&e));
        e
    }
}

/// For one topology key, the matching pods per domain (numbered by
/// `Index::domains_of`) and how many domains hold each count, so that the
/// smallest count is known without a walk over the domains. Only the
/// domains known (of a node whose pods count) take part in it.
#[derive(Debug)]
pub(super) struct DomainCounts {
    pub(super) counts: Vec<i32>,
    known: Vec<bool>,
    n_known: usize,
    hist: HashMap<i32, i32>,
    min: i32,
}

impl DomainCounts {
    fn new(n: usize) -> DomainCounts {
        DomainCounts { counts: vec![0; n], known: vec![false; n], n_known: 0, hist: HashMap::new(), min: 0 }
    }

    /// Makes a domain known with no pods.
    fn ensure(&mut self, id: i32) {
        let id = id as usize;
        if self.known[id] {
            return;
        }
        self.known[id] = true;
        self.n_known += 1;
        *self.hist.entry(0).or_insert(0) += 1;
        self.min = 0;
    }

    /// Counts a pod in (1) or out (-1) of a known domain.
    fn add(&mut self, id: i32, delta: i32) {
        let id = id as usize;
        if !self.known[id] {
            return;
        }
        let old = self.counts[id];
        let n = old.wrapping_add(delta);
        self.counts[id] = n;
        let left = {
            let h = self.hist.entry(old).or_insert(0);
            *h -= 1;
            *h
        };
        if left == 0 {
            self.hist.remove(&old);
        }
        *self.hist.entry(n).or_insert(0) += 1;
        if n < self.min || (old == self.min && left == 0) {
            self.min = n;
        }
    }

    /// The smallest count the skew is measured from: 0 while fewer domains
    /// are known than the constraint's minDomains.
    pub(super) fn min_match(&self, c: &SpreadConstraint) -> i32 {
        if self.n_known as i64 >= i64::from(c.min_domains) {
            self.min
        } else {
            0
        }
    }
}

/// The PodTopologySpread filter's state for one task template.
#[derive(Debug)]
pub struct SpreadFilter {
    /// The log position applied; `None` when the task has no constraint to
    /// filter with or one does not parse.
    seen: Option<usize>,
    namespace: String,
    pub(super) cs: Vec<SpreadConstraint>,
    /// The error reading the task's constraints: the task is then
    /// unschedulable with it.
    pub err: String,
    /// eligible[c][node]: pods on the node count for constraint c.
    eligible: Vec<Rc<Vec<bool>>>,
    /// The domains of each constraint's key.
    pub(super) domains: Vec<Rc<KeyDomains>>,
    /// The counts of each key's domains, shared by constraints on one key;
    /// count_of[c] is constraint c's.
    pub(super) counts: Vec<DomainCounts>,
    pub(super) count_of: Vec<usize>,
    /// self_match[c] is 1 when constraint c's selector matches the task.
    pub(super) self_match: Vec<i32>,
    /// later[c]: the constraints after c on the same key. On a node where
    /// one of them counts, c's pods do not: kube-scheduler's PreFilter
    /// keeps the last constraint's count per node and domain.
    later: Vec<Vec<usize>>,
}

impl SpreadFilter {
    /// Builds the filter state for a task.
    pub fn new(idx: &Index, v: &View, t: &Task) -> SpreadFilter {
        let mut f = SpreadFilter {
            seen: None,
            namespace: t.namespace.clone(),
            cs: Vec::new(),
            err: String::new(),
            eligible: Vec::new(),
            domains: Vec::new(),
            counts: Vec::new(),
            count_of: Vec::new(),
            self_match: Vec::new(),
            later: Vec::new(),
        };
        match constraints_of(t, DO_NOT_SCHEDULE) {
            Ok(cs) => f.cs = cs,
            Err(e) => f.err = e,
        }
        if !f.err.is_empty() || f.cs.is_empty() {
            return f;
        }
        let mut src = Sources::default();
        for (i, c) in f.cs.iter().enumerate() {
            f.self_match.push(i32::from(selects(c.selector.as_ref(), &t.labels)));
            let kd = idx.domains_of(v, &c.topology_key);
            let shared = f.cs[..i].iter().position(|earlier| earlier.topology_key == c.topology_key);
            f.later.push(Vec::new());
            for j in 0..i {
                if f.cs[j].topology_key == c.topology_key {
                    f.later[j].push(i);
                }
            }
            f.count_of.push(match shared {
                Some(j) => f.count_of[j],
                None => {
                    f.counts.push(DomainCounts::new(kd.n));
                    f.counts.len() - 1
                }
            });
            f.domains.push(kd);
            src.add(idx.selecting(c.selector.as_ref()));
        }
        if !policies_exclude(t, &f.cs) {
            // Every node with the keys counts: the nodes and domains are the
            // same for every template with these keys.
            let e = idx.eligible_for(v, &f.cs);
            for i in 0..f.cs.len() {
                f.eligible.push(Rc::clone(&e.carrying));
                for &id in &e.domains[i] {
                    f.counts[f.count_of[i]].ensure(id);
                }
            }
        } else {
            let mut eligible = vec![vec![false; v.nodes.len()]; f.cs.len()];
            for (ni, n) in v.nodes.iter().enumerate() {
                if f.domains.iter().any(|kd| kd.of[ni] < 0) {
                    continue; // lacks a key: its pods count for none
                }
                for (i, c) in f.cs.iter().enumerate() {
                    if includes(c, t, n) {
                        eligible[i][ni] = true;
                        f.counts[f.count_of[i]].ensure(f.domains[i].of[ni]);
                    }
                }
            }
            f.eligible = eligible.into_iter().map(Rc::new).collect();
        }
        f.seen = Some(idx.start(v, src.list(), &mut f));
        f
    }

    /// Applies the placements and removals made since the last call.
    pub fn catch_up(&mut self, idx: &Index, v: &View) {
        if let Some(seen) = self.seen {
            self.seen = Some(idx.catch_up(v, seen, self));
        }
    }

    /// Whether [`SpreadFilter::filter`] passes every node: the task parses
    /// and has no DoNotSchedule constraint.
    pub fn passes_all(&self) -> bool {
        self.err.is_empty() && self.cs.is_empty()
    }

    /// The reason the node fails and whether the failure is unresolvable;
    /// `None` when it passes.
    pub fn filter(&self, n: &Node) -> Option<(&'static str, bool)> {
        let node = n.handle as usize;
        for (i, c) in self.cs.iter().enumerate() {
            let id = self.domains[i].of[node];
            if id < 0 {
                return Some((REASON_SPREAD_MISSING_LABEL, true));
            }
            let dc = &self.counts[self.count_of[i]];
            if dc.counts[id as usize].wrapping_add(self.self_match[i]).wrapping_sub(dc.min_match(c)) > c.max_skew {
                return Some((REASON_SPREAD_CONSTRAINTS_NOT_MATCH, false));
            }
        }
        None
    }
}

impl Applier for SpreadFilter {
    fn apply(&mut self, _: &Index, v: &View, pod: &Pod, d: i64) {
        let p = pod.fields(v);
        for (i, c) in self.cs.iter().enumerate() {
            let shadowed = self.later[i].iter().any(|&j| self.eligible[j][pod.node]);
            if self.eligible[i][pod.node] && !shadowed && counted(c, &p, &self.namespace) {
                self.counts[self.count_of[i]].add(self.domains[i].of[pod.node], d as i32);
            }
        }
    }
}
