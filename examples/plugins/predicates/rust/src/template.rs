//! The stable filters, NodeUnschedulable, NodeAffinity and TaintToleration,
//! per pod template: tasks whose node selector, node affinity, tolerations
//! and host ports are equal (the pods of one gang, typically) share them.

use std::collections::{BTreeMap, HashSet};

use caldera::{
    append_key_string, append_tolerations_key, append_uvarint, append_varint, tolerates_any, HostPort, Node, NodeSelector,
    NodeSelectorTerm, Taint, Task, Toleration, NODE_NAME_FIELD,
};

use crate::args::Args;

/// The outcome of the stable filters for one (template, node): pass,
/// unschedulable, affinity mismatch, or TAINT_BASE + i for the i-th taint
/// of the node.
pub(crate) type Outcome = u32;

pub(crate) const PASS: Outcome = 0;
pub(crate) const UNSCHEDULABLE: Outcome = 1;
pub(crate) const AFFINITY_MISMATCH: Outcome = 2;
pub(crate) const TAINT_BASE: Outcome = 3;

/// What the stable filters read of a task.
#[derive(Debug)]
pub(crate) struct Template {
    node_selector: BTreeMap<String, String>,
    /// `None` when the pod has no required node affinity.
    required: Option<NodeSelector>,
    tolerations: Vec<Toleration>,
    /// The pod tolerates the taint that spec.unschedulable stands for.
    tolerates_unschedulable: bool,
    /// The required terms name nodes by metadata.name and no node satisfies
    /// all of them.
    pub(crate) conflict: bool,
    pub(crate) ports: Vec<HostPort>,
    /// The stable filters' outcome per node handle, plus one (0: not yet);
    /// made on first use.
    outcomes: Vec<u32>,
    node_count: usize,
}

impl Template {
    pub(crate) fn new(t: &Task, node_count: usize) -> Template {
        let required = t.node_affinity.as_ref().and_then(|a| a.required.clone());
        // The taint spec.unschedulable stands for.
        let unschedulable = Taint { key: "node.kubernetes.io/unschedulable".into(), value: String::new(), effect: "NoSchedule".into() };
        Template {
            node_selector: t.node_selector.clone(),
            conflict: required.as_ref().map_or(false, |r| node_names_conflict(&r.terms)),
            required,
            tolerations: t.tolerations.clone(),
            tolerates_unschedulable: tolerates_any(&t.tolerations, &unschedulable),
            ports: t.host_ports.clone(),
            outcomes: Vec::new(),
            node_count,
        }
    }

    /// The stable filters' outcome, computed once per node.
    pub(crate) fn outcome(&mut self, n: &Node, a: &Args) -> Outcome {
        if self.outcomes.is_empty() {
            self.outcomes = vec![0; self.node_count];
        }
        let h = n.handle as usize;
        if self.outcomes[h] == 0 {
            self.outcomes[h] = self.evaluate(n, a) + 1;
        }
        self.outcomes[h] - 1
    }

    /// Runs NodeUnschedulable, NodeAffinity and TaintToleration.
    fn evaluate(&self, n: &Node, a: &Args) -> Outcome {
        if n.unschedulable && !self.tolerates_unschedulable {
            return UNSCHEDULABLE;
        }
        if a.node_affinity && !self.affinity_matches(n) {
            return AFFINITY_MISMATCH;
        }
        if a.taint_toleration {
            if let Some(i) = n.taints.iter().position(|taint| do_not_schedule(taint) && !tolerates_any(&self.tolerations, taint)) {
                return TAINT_BASE + i as u32;
            }
        }
        PASS
    }

    /// spec.nodeSelector, then the required terms, ORed.
    fn affinity_matches(&self, n: &Node) -> bool {
        if !self.node_selector.iter().all(|(k, v)| n.labels.get(k) == Some(v)) {
            return false;
        }
        self.required.as_ref().map_or(true, |r| r.terms.iter().any(|term| term.matches(n)))
    }
}

pub(crate) fn do_not_schedule(t: &Taint) -> bool {
    t.effect == "NoSchedule" || t.effect == "NoExecute"
}

/// kube-scheduler's NodeAffinity PreFilter conflict: every term restricts
/// metadata.name with In, and the union over terms of the per-term
/// intersections is empty. Invalid terms count as written.
fn node_names_conflict(terms: &[NodeSelectorTerm]) -> bool {
    if terms.is_empty() {
        return false;
    }
    let mut union: HashSet<&str> = HashSet::new();
    for term in terms {
        // None until the term restricts the name.
        let mut names: Option<HashSet<&str>> = None;
        for r in term.match_fields.iter().filter(|r| r.key == NODE_NAME_FIELD && r.operator == "In") {
            match &mut names {
                None => names = Some(r.values.iter().map(String::as_str).collect()),
                Some(names) => names.retain(|name| r.values.iter().any(|v| v == name)),
            }
        }
        match names {
            None => return false,
            Some(names) => union.extend(names),
        }
    }
    union.is_empty()
}

/// Appends to `key` a byte string that is equal for two tasks exactly when
/// their node selector, required node affinity, tolerations and host ports
/// are equal.
pub(crate) fn template_key(key: &mut Vec<u8>, t: &Task) {
    append_uvarint(key, t.node_selector.len() as u64);
    for (k, v) in &t.node_selector {
        append_key_string(key, k);
        append_key_string(key, v);
    }
    match t.node_affinity.as_ref().and_then(|a| a.required.as_ref()) {
        None => key.push(0),
        Some(required) => {
            key.push(1);
            append_uvarint(key, required.terms.len() as u64);
            for term in &required.terms {
                term.append_key(key);
            }
        }
    }
    append_tolerations_key(key, &t.tolerations);
    append_uvarint(key, t.host_ports.len() as u64);
    for hp in &t.host_ports {
        append_key_string(key, &hp.ip);
        append_key_string(key, &hp.protocol);
        append_varint(key, i64::from(hp.port));
    }
}
