//! What the affinity and taint strategies read of a task, shared by the
//! tasks whose preferred node affinity and tolerations are equal, with
//! their scores per node computed once.

use caldera::{append_tolerations_key, append_uvarint, append_varint, tolerates_any, Handle, Node, PreferredTerm, Task, Toleration};

/// What the strategies keep of one task.
#[derive(Clone, Copy)]
pub(crate) struct Entry {
    /// Indexes into the plugin's templates and resource score tables.
    pub(crate) tpl: usize,
    pub(crate) scores: usize,
    /// The node of the task's latest placement in this session, -1 when
    /// none: an undone placement has lost its node in the view.
    pub(crate) placed_on: Handle,
}

pub(crate) const PREFERRED_TERM_ERROR: &str = "nodeorder: a preferred node affinity term of the pod does not parse";

pub(crate) struct Template {
    /// `None` when the pod has no preferred node affinity, which makes
    /// kube-scheduler skip the affinity score. Terms of weight 0 and terms
    /// without requirements are left out, as kube-scheduler does (so it
    /// may be empty: every node then scores 0).
    pub(crate) preferred: Option<Vec<PreferredTerm>>,
    /// kube-scheduler cannot parse a preferred term: scoring the task
    /// fails.
    pub(crate) invalid: bool,
    /// The tolerations that can tolerate a PreferNoSchedule taint.
    tolerations: Vec<Toleration>,
    node_count: usize,
    /// Per node handle, score plus one; 0 means not yet computed. Empty
    /// until the first score.
    affinity: Vec<i64>,
    taints: Vec<i64>,
}

impl Template {
    pub(crate) fn new(t: &Task, node_count: usize) -> Template {
        let mut tpl = Template { preferred: None, invalid: false, tolerations: Vec::new(), node_count, affinity: Vec::new(), taints: Vec::new() };
        if let Some(na) = t.node_affinity.as_ref().filter(|na| !na.preferred.is_empty()) {
            let mut kept = Vec::with_capacity(na.preferred.len());
            for pt in &na.preferred {
                if pt.weight == 0 || (pt.term.match_expressions.is_empty() && pt.term.match_fields.is_empty()) {
                    continue;
                }
                tpl.invalid |= pt.term.invalid;
                kept.push(pt.clone());
            }
            tpl.preferred = Some(kept);
        }
        tpl.tolerations = t.tolerations.iter().filter(|tol| tol.effect.is_empty() || tol.effect == "PreferNoSchedule").cloned().collect();
        tpl
    }

    /// NodeAffinity's score before normalisation: the summed weights of the
    /// preferred terms the node matches.
    pub(crate) fn affinity_score(&mut self, n: &Node) -> i64 {
        if self.affinity.is_empty() {
            self.affinity = vec![0; self.node_count];
        }
        let preferred = self.preferred.as_deref().unwrap_or(&[]);
        let slot = &mut self.affinity[n.handle as usize];
        if *slot == 0 {
            let score: i64 = preferred.iter().filter(|pt| pt.term.matches(n)).map(|pt| i64::from(pt.weight)).sum();
            *slot = score + 1;
        }
        *slot - 1
    }

    /// TaintToleration's score before normalisation: the node's
    /// PreferNoSchedule taints the pod does not tolerate.
    pub(crate) fn taint_score(&mut self, n: &Node) -> i64 {
        if self.taints.is_empty() {
            self.taints = vec![0; self.node_count];
        }
        let slot = &mut self.taints[n.handle as usize];
        if *slot == 0 {
            let count = n.taints.iter().filter(|taint| taint.effect == "PreferNoSchedule" && !tolerates_any(&self.tolerations, taint)).count();
            *slot = count as i64 + 1;
        }
        *slot - 1
    }
}

/// Appends a key equal for two tasks exactly when their preferred node
/// affinity and tolerations are equal.
pub(crate) fn template_key(key: &mut Vec<u8>, t: &Task) {
    match &t.node_affinity {
        None => append_uvarint(key, 0),
        Some(na) => {
            append_uvarint(key, na.preferred.len() as u64 + 1);
            for pt in &na.preferred {
                append_varint(key, i64::from(pt.weight));
                pt.term.append_key(key);
            }
        }
    }
    append_tolerations_key(key, &t.tolerations);
}
