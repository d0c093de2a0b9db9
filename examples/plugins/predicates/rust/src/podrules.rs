//! The filters that depend on other pods, InterPodAffinity and
//! PodTopologySpread, over the SDK's `caldera::podrules`: the pods counted
//! on each node, and one filter state per rule template, made on first use.

use std::collections::HashMap;

use caldera::podrules::{has_rules, template_key, AffinityFilter, Index, SpreadFilter};
use caldera::{DomainRules, Node, Task, View};

use crate::args::Args;
use crate::join;

/// Names under which kube-scheduler's filters report a failed PreFilter.
const PREFIX_AFFINITY_PARSE: &str = "plugin InterPodAffinity pre-predicates failed parsing pod: ";
const PREFIX_SPREAD_PARSE: &str =
    "plugin PodTopologySpread pre-predicates failed get constraints from pod: obtaining pod's hard topology spread constraints: ";

/// The session's rule states; made only in a session where some pod has
/// such rules and either filter is on.
pub(crate) struct Rules {
    pub(crate) idx: Index,
    affinity_on: bool,
    spread_on: bool,
    states: Vec<RuleStates>,
    by_key: HashMap<Vec<u8>, usize>,
    /// Each task's states, once asked for.
    by_task: Vec<Option<usize>>,
    key: Vec<u8>,
    /// Numbers the kinds of domain rules tasks have sent.
    rule_classes: HashMap<Vec<u8>, i32>,
    kinds: Vec<u8>,
}

pub(crate) struct RuleStates {
    affinity: Option<AffinityFilter>,
    spread: Option<SpreadFilter>,
}

impl Rules {
    pub(crate) fn new(v: &View, a: &Args) -> Option<Rules> {
        if !(a.pod_affinity || a.pod_topology_spread) || !has_rules(v) {
            return None;
        }
        Some(Rules {
            idx: Index::new(v),
            affinity_on: a.pod_affinity,
            spread_on: a.pod_topology_spread,
            states: Vec::new(),
            by_key: HashMap::new(),
            by_task: vec![None; v.tasks.len()],
            key: Vec::new(),
            rule_classes: HashMap::new(),
            kinds: Vec::new(),
        })
    }

    /// A task's states, made on first use with every pod counted now. They
    /// catch up with later placements and evictions only in
    /// [`Rules::catch_up`], which runs where Volcano computes the PreFilter
    /// state (pre_predicate) and where it updates that state (a preemption
    /// dry run this plugin takes part in): between those points Volcano's
    /// filters answer from the state as it was, and so does this port.
    pub(crate) fn of(&mut self, v: &View, t: &Task) -> usize {
        let h = t.handle as usize;
        if let Some(i) = self.by_task[h] {
            return i;
        }
        self.key.clear();
        template_key(&mut self.key, t);
        let i = match self.by_key.get(self.key.as_slice()) {
            Some(&i) => i,
            None => {
                let states = RuleStates {
                    affinity: self.affinity_on.then(|| AffinityFilter::new(&self.idx, v, t)),
                    spread: self.spread_on.then(|| SpreadFilter::new(&self.idx, v, t)),
                };
                self.states.push(states);
                self.by_key.insert(self.key.clone(), self.states.len() - 1);
                self.states.len() - 1
            }
        };
        self.by_task[h] = Some(i);
        i
    }

    pub(crate) fn catch_up(&mut self, v: &View, i: usize) {
        let s = &mut self.states[i];
        if let Some(a) = &mut s.affinity {
            a.catch_up(&self.idx, v);
        }
        if let Some(sp) = &mut s.spread {
            sp.catch_up(&self.idx, v);
        }
    }

    pub(crate) fn states(&self, i: usize) -> &RuleStates {
        &self.states[i]
    }

    /// The task's domain rules (`Plugin::predicate_domain_rules`), in the
    /// filters' order: tasks whose rules are of the same kinds share a rule
    /// class, since their failing verdicts word the same failures alike.
    pub(crate) fn domain_rules(&mut self, v: &View, t: &Task, out: &mut DomainRules) -> bool {
        let i = self.of(v, t);
        let rs = &self.states[i];
        if rs.pre_filter().is_some() {
            // Unreachable: pre_predicate rejected the task, and
            // ruled_classes gave it no class.
            return false;
        }
        self.kinds.clear();
        if let Some(a) = &rs.affinity {
            a.append_rules(out, &mut self.kinds);
        }
        if let Some(sp) = &rs.spread {
            sp.append_rules(out, &mut self.kinds);
        }
        let next = self.rule_classes.len() as i32;
        out.class = *self.rule_classes.entry(self.kinds.clone()).or_insert(next);
        true
    }
}

impl RuleStates {
    /// Whether both filters pass every node as the states stand, so that
    /// predicate_batch may skip them: most tasks of a session with pod rules
    /// have none of their own.
    pub(crate) fn passes_all(&self) -> bool {
        self.affinity.as_ref().map_or(true, AffinityFilter::passes_all) && self.spread.as_ref().map_or(true, SpreadFilter::passes_all)
    }

    /// The reason a task whose terms or constraints do not parse is
    /// unschedulable.
    pub(crate) fn pre_filter(&self) -> Option<String> {
        if let Some(a) = self.affinity.as_ref().filter(|a| !a.err.is_empty()) {
            return Some(format!("{}{}", PREFIX_AFFINITY_PARSE, a.err));
        }
        if let Some(sp) = self.spread.as_ref().filter(|sp| !sp.err.is_empty()) {
            return Some(format!("{}{}", PREFIX_SPREAD_PARSE, sp.err));
        }
        None
    }

    /// Runs InterPodAffinity, then PodTopologySpread, appending their
    /// reasons to `reasons` (joined with ", "); true says a failure
    /// preemption cannot fix, which ends the check.
    pub(crate) fn filter(&self, n: &Node, reasons: &mut String) -> bool {
        self.filter_affinity(n, reasons) || self.filter_spread(n, reasons)
    }

    /// The first half of [`RuleStates::filter`]: the rules' parse errors
    /// and InterPodAffinity, which the volume limits and zone checks follow.
    pub(crate) fn filter_affinity(&self, n: &Node, reasons: &mut String) -> bool {
        if let Some(r) = self.pre_filter() {
            join(reasons, &r);
            return true;
        }
        match self.affinity.as_ref().and_then(|a| a.filter(n)) {
            Some((r, unresolvable)) => {
                join(reasons, r);
                unresolvable
            }
            None => false,
        }
    }

    /// The second half, PodTopologySpread, which the volume binding and
    /// device checks follow.
    pub(crate) fn filter_spread(&self, n: &Node, reasons: &mut String) -> bool {
        match self.spread.as_ref().and_then(|sp| sp.filter(n)) {
            Some((r, unresolvable)) => {
                join(reasons, r);
                unresolvable
            }
            None => false,
        }
    }
}
