//! The sets of counted pods that can change a state, so that a state built
//! mid-session walks those instead of every pod: a gang's anti-affinity and
//! spread selectors pick its own pods by label, and a pod without terms of its own is changed
//! only by pods whose terms can select it. Catching up still applies every
//! logged change, which the state's apply filters.

use std::collections::{BTreeMap, HashMap};

use super::index::{hash_label, IdHash, Index, PodId, PodSet};
use super::terms::Term;
use crate::view::{NodeSelectorRequirement, PodAffinityTerm, Selector, WeightedPodAffinityTerm};

#[derive(Default)]
pub(crate) struct Sources<'i> {
    sets: Vec<&'i PodSet>,
    /// Some part of the state may be changed by any pod.
    all: bool,
}

/// The counted pods a selector can match.
#[derive(Clone, Copy)]
pub(crate) enum Candidates<'i> {
    Pods(&'i PodSet),
    None,
    /// Any pod may match.
    Any,
}

impl Candidates<'_> {
    fn len(&self) -> usize {
        match self {
            Candidates::Pods(set) => set.len(),
            _ => 0,
        }
    }
}

impl<'i> Sources<'i> {
    pub(crate) fn add(&mut self, c: Candidates<'i>) {
        match c {
            Candidates::Any => self.all = true,
            Candidates::Pods(set) if !set.is_empty() => self.sets.push(set),
            _ => {}
        }
    }

    /// Adds the pods that can match any of the terms.
    pub(crate) fn any_term(&mut self, idx: &'i Index, terms: &[Term]) {
        for t in terms {
            self.add(idx.selecting(t.selector.as_ref()));
        }
    }

    /// Adds the pods that can match all of the terms: those that can match
    /// the one term with the fewest candidates.
    pub(crate) fn every_term(&mut self, idx: &'i Index, terms: &[Term]) {
        if terms.is_empty() {
            return;
        }
        let mut best: Option<Candidates<'i>> = None;
        for t in terms {
            let c = idx.selecting(t.selector.as_ref());
            if matches!(c, Candidates::Any) {
                continue;
            }
            if best.map_or(true, |b| c.len() < b.len()) {
                best = Some(c);
            }
        }
        self.add(best.unwrap_or(Candidates::Any));
    }

    /// What [`Index::start`] walks: `None` for every pod.
    pub(crate) fn list(&self) -> Option<&[&'i PodSet]> {
        if self.all {
            None
        } else {
            Some(&self.sets)
        }
    }
}

impl Index {
    /// The counted pods `sel` can match: none for an absent selector, which
    /// matches nothing, else those carrying the label of the equality
    /// requirement with the fewest of them; any when `sel` has no equality
    /// requirement.
    pub(crate) fn selecting(&self, sel: Option<&Selector>) -> Candidates<'_> {
        let sel = match sel {
            None => return Candidates::None,
            Some(sel) => sel,
        };
        let mut best = Candidates::Any;
        for lp in sel.requirements.iter().filter_map(equality) {
            let candidates = self.by_label.get(&lp).map_or(Candidates::None, Candidates::Pods);
            if matches!(best, Candidates::Any) || candidates.len() < best.len() {
                best = candidates;
            }
        }
        best
    }
}

/// The one label a requirement demands, if it demands one.
fn equality(r: &NodeSelectorRequirement) -> Option<u64> {
    match (r.operator.as_str(), r.values.as_slice()) {
        ("In", [v]) => Some(hash_label(&r.key, v)),
        _ => None,
    }
}

/// The counted pods whose terms of one kind may select other pods, by a
/// label a selected pod must carry: a pod whose every term demands a label
/// is filed under each of those labels, any other in `unlabelled`. The pods
/// whose terms can select a given pod are then those filed under its
/// labels, and the unlabelled.
#[derive(Debug, Default)]
pub(crate) struct TermIndex {
    by_label: HashMap<u64, PodSet, IdHash>,
    unlabelled: PodSet,
}

impl TermIndex {
    /// Files a pod by its terms: required ones, and the terms of two lists
    /// of weighted ones (the affinity score reads a pod's required affinity
    /// and preferred affinity and anti-affinity).
    pub(crate) fn add(&mut self, id: PodId, req: &[PodAffinityTerm], w1: &[WeightedPodAffinityTerm], w2: &[WeightedPodAffinityTerm]) {
        let (labels, all) = demands(req, w1, w2);
        if !all {
            self.unlabelled.insert(id);
            return;
        }
        for lp in labels {
            self.by_label.entry(lp).or_default().insert(id);
        }
    }

    /// Takes a pod out; the terms must be those `add` was given.
    pub(crate) fn remove(&mut self, id: PodId, req: &[PodAffinityTerm], w1: &[WeightedPodAffinityTerm], w2: &[WeightedPodAffinityTerm]) {
        self.unlabelled.remove(&id);
        for lp in demands(req, w1, w2).0 {
            if let Some(set) = self.by_label.get_mut(&lp) {
                set.remove(&id);
            }
        }
    }

    /// Adds to `src` the pods whose terms may select a pod with these
    /// labels.
    pub(crate) fn selectors<'i>(&'i self, src: &mut Sources<'i>, labels: &BTreeMap<String, String>) {
        src.add(Candidates::Pods(&self.unlabelled));
        for (k, v) in labels {
            if let Some(set) = self.by_label.get(&hash_label(k, v)) {
                src.add(Candidates::Pods(set));
            }
        }
    }
}

/// The labels the terms' selectors demand, and whether every term that
/// selects anything demands one; an absent selector selects nothing.
fn demands(req: &[PodAffinityTerm], w1: &[WeightedPodAffinityTerm], w2: &[WeightedPodAffinityTerm]) -> (Vec<u64>, bool) {
    let mut out = Vec::new();
    let mut all = true;
    let terms = req.iter().chain(w1.iter().map(|w| &w.term)).chain(w2.iter().map(|w| &w.term));
    for sel in terms.filter_map(|t| t.selector.as_ref()) {
        match demanded_by(sel) {
            Some(lp) => out.push(lp),
            None => all = false,
        }
    }
    (out, all)
}

/// The label of a selector's first equality requirement.
pub(crate) fn demanded_by(sel: &Selector) -> Option<u64> {
    sel.requirements.iter().find_map(equality)
}
