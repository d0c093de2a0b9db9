//! Node selection as Kubernetes defines it (k8s.io/component-helpers'
//! nodeaffinity and the core API's Toleration.ToleratesTaint), for policies
//! that filter or score by affinity and taints. The scheduler marks the
//! terms its own parser rejects ([`NodeSelectorTerm::invalid`]), so the
//! rules of label syntax need not be repeated here.

use std::collections::BTreeMap;

use crate::view::{Node, NodeSelectorRequirement, NodeSelectorTerm, Selector, Taint, Task, Toleration};

/// The one node field a term's `match_fields` can name.
pub const NODE_NAME_FIELD: &str = "metadata.name";

impl NodeSelectorTerm {
    /// Whether the node satisfies every requirement of the term. An invalid
    /// term, and one without requirements, matches no node.
    pub fn matches(&self, node: &Node) -> bool {
        if self.invalid || (self.match_expressions.is_empty() && self.match_fields.is_empty()) {
            return false;
        }
        if !self.match_expressions.iter().all(|r| label_matches(r, &node.labels)) {
            return false;
        }
        // kube-scheduler checks fields only of a node that has a name.
        node.name.is_empty() || self.match_fields.iter().all(|r| field_matches(r, &node.name))
    }
}

fn label_matches(r: &NodeSelectorRequirement, labels: &BTreeMap<String, String>) -> bool {
    let val = labels.get(&r.key);
    let listed = |v: &String| r.values.iter().any(|x| x == v);
    match r.operator.as_str() {
        "In" => val.map_or(false, listed),
        "NotIn" => !val.map_or(false, listed),
        "Exists" => val.is_some(),
        "DoesNotExist" => val.is_none(),
        "Gt" | "Lt" => {
            let (have, want) = match (val, r.values.as_slice()) {
                (Some(v), [w]) => (v.parse::<i64>(), w.parse::<i64>()),
                _ => return false,
            };
            match (have, want) {
                (Ok(h), Ok(w)) if r.operator == "Gt" => h > w,
                (Ok(h), Ok(w)) => h < w,
                _ => false,
            }
        }
        _ => false,
    }
}

/// A field requirement (`In` or `NotIn` with one value) against the node's
/// fields, of which only `metadata.name` has a value.
fn field_matches(r: &NodeSelectorRequirement, node_name: &str) -> bool {
    let want = match r.values.as_slice() {
        [w] => w,
        _ => return false,
    };
    let val = if r.key == NODE_NAME_FIELD { node_name } else { "" };
    match r.operator.as_str() {
        "In" => val == want,
        "NotIn" => val != want,
        _ => false,
    }
}

impl Toleration {
    /// Kubernetes' Toleration.ToleratesTaint.
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if !self.effect.is_empty() && self.effect != taint.effect {
            return false;
        }
        if !self.key.is_empty() && self.key != taint.key {
            return false;
        }
        match self.operator.as_str() {
            "" | "Equal" => self.value == taint.value,
            "Exists" => true,
            _ => false,
        }
    }
}

/// Whether one of the tolerations tolerates the taint.
pub fn tolerates_any(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| t.tolerates(taint))
}

impl Selector {
    /// Whether a set of labels satisfies every requirement of the label
    /// selector; one without requirements matches everything. An absent
    /// selector (`Option::None` where the view allows one) matches nothing:
    /// metav1.LabelSelectorAsSelector of a missing and of an empty selector.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| label_matches(r, labels))
    }
}

impl Task {
    /// Whether the node satisfies the task's `node_selector` and required
    /// node affinity, as kube-scheduler's GetRequiredNodeAffinity(pod).Match
    /// does: required terms are ORed, and a required affinity without terms
    /// matches no node.
    pub fn matches_required_node_affinity(&self, node: &Node) -> bool {
        if !self.node_selector.iter().all(|(k, v)| node.labels.get(k) == Some(v)) {
            return false;
        }
        match self.node_affinity.as_ref().and_then(|a| a.required.as_ref()) {
            None => true,
            Some(required) => required.terms.iter().any(|t| t.matches(node)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(key: &str, op: &str, values: &[&str]) -> NodeSelectorRequirement {
        NodeSelectorRequirement { key: key.into(), operator: op.into(), values: values.iter().map(|v| v.to_string()).collect() }
    }

    #[test]
    fn terms_and_tolerations_follow_kubernetes() {
        let node = Node { name: "n1".into(), labels: [("zone".to_string(), "a".to_string()), ("gen".to_string(), "5".to_string())].into_iter().collect(), ..Node::default() };
        let term = |e: Vec<NodeSelectorRequirement>, f: Vec<NodeSelectorRequirement>| NodeSelectorTerm { match_expressions: e, match_fields: f, invalid: false };
        assert!(term(vec![req("zone", "In", &["a", "b"]), req("gen", "Gt", &["4"])], vec![]).matches(&node));
        assert!(!term(vec![req("gen", "Lt", &["4"])], vec![]).matches(&node));
        assert!(term(vec![req("gpu", "DoesNotExist", &[])], vec![req(NODE_NAME_FIELD, "In", &["n1"])]).matches(&node));
        assert!(!term(vec![], vec![req(NODE_NAME_FIELD, "NotIn", &["n1"])]).matches(&node));
        assert!(!term(vec![], vec![]).matches(&node));
        let taint = Taint { key: "spot".into(), value: "true".into(), effect: "NoSchedule".into() };
        let exists = Toleration { key: "spot".into(), operator: "Exists".into(), ..Toleration::default() };
        let other = Toleration { key: "spot".into(), value: "false".into(), ..Toleration::default() };
        assert!(exists.tolerates(&taint));
        assert!(!other.tolerates(&taint));
        assert!(tolerates_any(&[other, exists], &taint));
    }

    #[test]
    fn selectors_and_required_affinity_follow_kubernetes() {
        let labels: BTreeMap<String, String> = [("app".to_string(), "db".to_string())].into_iter().collect();
        assert!(Selector::default().matches(&labels), "no requirements match every pod");
        assert!(Selector { requirements: vec![req("app", "In", &["db", "web"]), req("tier", "DoesNotExist", &[])] }.matches(&labels));
        assert!(!Selector { requirements: vec![req("app", "NotIn", &["db"])] }.matches(&labels));

        let node = Node { name: "n1".into(), labels: [("zone".to_string(), "a".to_string())].into_iter().collect(), ..Node::default() };
        let mut task = Task::default();
        assert!(task.matches_required_node_affinity(&node));
        task.node_selector.insert("zone".into(), "b".into());
        assert!(!task.matches_required_node_affinity(&node));
        task.node_selector.insert("zone".into(), "a".into());
        let term = |r| NodeSelectorTerm { match_expressions: vec![r], ..NodeSelectorTerm::default() };
        task.node_affinity = Some(crate::NodeAffinity {
            required: Some(crate::NodeSelector { terms: vec![term(req("zone", "In", &["b"])), term(req("zone", "Exists", &[]))] }),
            preferred: Vec::new(),
        });
        assert!(task.matches_required_node_affinity(&node), "terms are ORed");
        task.node_affinity.as_mut().unwrap().required.as_mut().unwrap().terms.clear();
        assert!(!task.matches_required_node_affinity(&node), "no terms match no node");
    }
}
