//! Which tasks share a state, and whether a session needs any.

use std::collections::BTreeMap;

use serde::Serialize;

use super::index::{preferred, required};
use crate::keys::{append_key_string, append_tolerations_key, append_uvarint};
use crate::view::{PodAffinity, Task, View};

/// Appends to `key` a byte string equal for two tasks exactly when every
/// field these rules read of a task is equal: namespace, labels, pod
/// affinity and anti-affinity and their parse error, spread constraints,
/// node selector, required node affinity and tolerations. Tasks of one
/// template may share their states.
pub fn template_key(key: &mut Vec<u8>, t: &Task) {
    append_key_string(key, &t.namespace);
    append_map(key, &t.labels);
    append_map(key, &t.node_selector);
    for a in [&t.pod_affinity, &t.pod_anti_affinity] {
        match a {
            None => key.push(0),
            Some(a) => {
                key.push(1);
                append_msgpack(key, a);
            }
        }
    }
    append_key_string(key, &t.affinity_error);
    append_uvarint(key, t.spread_constraints.len() as u64);
    for c in &t.spread_constraints {
        append_msgpack(key, c);
    }
    key.push(u8::from(t.spread_defaulted));
    match t.node_affinity.as_ref().and_then(|a| a.required.as_ref()) {
        Some(required) => {
            append_uvarint(key, required.terms.len() as u64 + 1);
            for term in &required.terms {
                term.append_key(key);
            }
        }
        None => key.push(0),
    }
    append_tolerations_key(key, &t.tolerations);
}

/// Appends a map's entries in key order, after their count.
pub(super) fn append_map(key: &mut Vec<u8>, m: &BTreeMap<String, String>) {
    append_uvarint(key, m.len() as u64);
    for (k, v) in m {
        append_key_string(key, k);
        append_key_string(key, v);
    }
}

/// Appends a value's msgpack encoding, which delimits itself.
fn append_msgpack<T: Serialize>(key: &mut Vec<u8>, v: &T) {
    // Encoding view values into a Vec cannot fail.
    let _ = rmp_serde::encode::write(key, v);
}

/// Whether any pod of the view, pending or on a node, has inter-pod
/// affinity terms or spread constraints of its own: without any, the rules
/// pass every node and score nothing but system default spread
/// constraints.
pub fn has_rules(v: &View) -> bool {
    let own = |t: &Task| {
        t.pod_affinity.is_some()
            || t.pod_anti_affinity.is_some()
            || !t.affinity_error.is_empty()
            || !t.spread_constraints.is_empty() && !t.spread_defaulted
    };
    v.tasks.iter().any(own) || v.nodes.iter().flat_map(|n| &n.others).any(|o| o.pod_affinity.is_some() || o.pod_anti_affinity.is_some())
}

/// Whether the InterPodAffinity score (when `affinity`, `hard` being
/// hardPodAffinityWeight) or the PodTopologySpread score (when `spread`) can
/// tell any two nodes apart, or fail, for some task of the view. Without
/// that they add 0 to every node for every task of the session, and a
/// scorer may leave them out: kube-scheduler scores inter-pod affinity from
/// the task's preferred terms and every pod's required affinity (times
/// hard) and preferred terms, spread from the task's ScheduleAnyway
/// constraints or system defaults, and fails for rules that do not parse.
pub fn scores_anything(v: &View, affinity: bool, hard: i32, spread: bool) -> bool {
    let scoring = |aff: Option<&PodAffinity>, anti: Option<&PodAffinity>| {
        !preferred(aff).is_empty() || !preferred(anti).is_empty() || hard > 0 && !required(aff).is_empty()
    };
    for t in &v.tasks {
        if affinity && (!t.affinity_error.is_empty() || scoring(t.pod_affinity.as_ref(), t.pod_anti_affinity.as_ref())) {
            return true;
        }
        if spread && (t.spread_defaulted || t.spread_constraints.iter().any(|c| c.when_unsatisfiable == "ScheduleAnyway")) {
            return true;
        }
    }
    v.nodes.iter().flat_map(|n| &n.others).any(|o| affinity && scoring(o.pod_affinity.as_ref(), o.pod_anti_affinity.as_ref()))
}
