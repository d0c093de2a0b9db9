//! The incoming pod's affinity terms with their namespaces resolved, and
//! existing pods' terms as they apply to it.

use std::collections::BTreeMap;

use crate::view::{PodAffinityTerm, Selector, View, WeightedPodAffinityTerm};

/// One of the incoming pod's affinity terms with its namespace selector
/// resolved, as kube-scheduler resolves the incoming pod's: the namespaces
/// it names or selects now, or every namespace.
#[derive(Clone, Debug)]
pub(crate) struct Term {
    namespaces: Vec<String>,
    all_namespaces: bool,
    pub(crate) selector: Option<Selector>,
    pub(crate) key: String,
    pub(crate) weight: i32,
}

impl Term {
    /// Whether the term selects a pod.
    pub(crate) fn matches(&self, namespace: &str, labels: &BTreeMap<String, String>) -> bool {
        (self.all_namespaces || self.namespaces.iter().any(|n| n == namespace)) && selects(self.selector.as_ref(), labels)
    }
}

/// Whether a selector selects a pod: an absent one selects none.
pub(crate) fn selects(sel: Option<&Selector>, labels: &BTreeMap<String, String>) -> bool {
    sel.map_or(false, |s| s.matches(labels))
}

/// Whether a pod matches every term; false for none.
pub(crate) fn matches_all(terms: &[Term], namespace: &str, labels: &BTreeMap<String, String>) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(namespace, labels))
}

/// Resolves required terms' namespace selectors against the namespaces'
/// labels.
pub(crate) fn resolve_required(v: &View, terms: &[PodAffinityTerm]) -> Vec<Term> {
    terms.iter().map(|t| resolve(v, t, 0)).collect()
}

/// Resolves weighted terms' namespace selectors against the namespaces'
/// labels.
pub(crate) fn resolve_weighted(v: &View, terms: &[WeightedPodAffinityTerm]) -> Vec<Term> {
    terms.iter().map(|t| resolve(v, &t.term, t.weight)).collect()
}

fn resolve(v: &View, t: &PodAffinityTerm, weight: i32) -> Term {
    let mut out = Term { namespaces: t.namespaces.clone(), all_namespaces: false, selector: t.selector.clone(), key: t.topology_key.clone(), weight };
    match &t.namespace_selector {
        None => {}
        Some(sel) if sel.requirements.is_empty() => out.all_namespaces = true,
        Some(sel) => {
            for (name, labels) in &v.namespaces {
                if sel.matches(labels) && !out.namespaces.contains(name) {
                    out.namespaces.push(name.clone());
                }
            }
        }
    }
    out
}

/// Whether an existing pod's (unresolved) term selects the incoming pod,
/// whose namespace has the labels `ns_labels`.
pub(crate) fn existing_matches(
    t: &PodAffinityTerm,
    namespace: &str,
    ns_labels: &BTreeMap<String, String>,
    labels: &BTreeMap<String, String>,
) -> bool {
    let in_namespace = t.namespaces.iter().any(|n| n == namespace) || t.namespace_selector.as_ref().map_or(false, |s| s.matches(ns_labels));
    in_namespace && selects(t.selector.as_ref(), labels)
}
