//! The Rust port of Caldera's native conformance plugin (Volcano's
//! conformance): preemption and reclaim never take a pod that the cluster
//! cannot run without, that is a pod in kube-system or one whose priority
//! class is system-cluster-critical or system-node-critical. It always
//! votes, so a candidate list made only of such pods vetoes eviction in its
//! tier.
#![deny(unsafe_code)]

use caldera::{Evictable, Eviction, Plugin, Preemptable, Reclaimable, Session, Task};

/// The namespace and the built-in priority classes of the pods that keep a
/// cluster or a node alive.
const NAMESPACE_SYSTEM: &str = "kube-system";
const SYSTEM_CLUSTER_CRITICAL: &str = "system-cluster-critical";
const SYSTEM_NODE_CRITICAL: &str = "system-node-critical";

#[derive(Default)]
pub struct Conformance;

caldera::export!(Conformance);

impl Plugin for Conformance {
    const NAME: &'static str = "conformance";
}

/// Allows every candidate that is not critical.
impl Preemptable for Conformance {
    fn preemptable<'s>(&mut self, _: &'s Session, _: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        Some(evictable(candidates))
    }
}

/// Allows every candidate that is not critical.
impl Reclaimable for Conformance {
    fn reclaimable<'s>(&mut self, _: &'s Session, _: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        Some(evictable(candidates))
    }
}

/// Allows every gang eviction candidate that is not critical.
impl Evictable for Conformance {
    fn evictable<'s>(&mut self, _: &'s Session, _: &Eviction<'_>, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        Some(evictable(candidates))
    }
}

fn evictable<'s>(candidates: &[&'s Task]) -> Vec<&'s Task> {
    candidates.iter().copied().filter(|t| !critical(t)).collect()
}

fn critical(t: &Task) -> bool {
    t.namespace == NAMESPACE_SYSTEM || t.priority_class_name == SYSTEM_CLUSTER_CRITICAL || t.priority_class_name == SYSTEM_NODE_CRITICAL
}

#[cfg(test)]
mod tests {
    use super::*;
    use caldera::{Arguments, EvictionKind, Job, View};

    fn session() -> Session {
        let task = |namespace: &str, name: &str, class: &str| Task {
            namespace: namespace.into(),
            name: name.into(),
            priority_class_name: class.into(),
            ..Task::default()
        };
        let view = View {
            jobs: vec![Job::default()],
            tasks: vec![
                task("kube-system", "dns", ""),
                task("ns", "agent", "system-node-critical"),
                task("ns", "api", "system-cluster-critical"),
                task("ns", "batch", "high"),
                task("ns", "plain", ""),
            ],
            ..View::default()
        };
        Session::new(view, Arguments::default())
    }

    fn names(victims: Option<Vec<&Task>>) -> Option<Vec<&str>> {
        victims.map(|v| v.iter().map(|t| t.name.as_str()).collect())
    }

    #[test]
    fn critical_pods_are_never_victims() {
        let s = session();
        let mut c = Conformance;
        let candidates: Vec<&Task> = s.tasks().iter().collect();
        let preemptor = &s.tasks()[4];
        let want = Some(vec!["batch", "plain"]);
        assert_eq!(names(c.preemptable(&s, preemptor, &candidates)), want, "preemptable");
        assert_eq!(names(c.reclaimable(&s, preemptor, &candidates)), want, "reclaimable");
        let ctx = Eviction { kind: EvictionKind::GangPreempt, job: &s.jobs()[0], hyper_node: "" };
        assert_eq!(names(c.evictable(&s, &ctx, &candidates)), want, "evictable");
        assert_eq!(names(c.preemptable(&s, preemptor, &candidates[..3])), Some(vec![]), "only critical candidates: none, voted");
    }
}
