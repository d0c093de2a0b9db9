//! An event handler for nodes that lend resources to something outside
//! Kubernetes (VMs, another framework): a node annotated
//! `caldera.sh/external-reserved` (for example `cpu=6,memory=2Gi`) has that
//! much taken off its allocatable in the scheduler's cache, so that pods
//! never land on what is used elsewhere. Nothing is written to the API
//! server. The Go version beside this one behaves the same for quantities
//! of up to 18 digits; it refuses longer ones, which this one reads as long
//! as the result fits.
//!
//! ```sh
//! caldera simulate --cluster examples/eventhandlers/external-reserved/cluster.yaml \
//!   --plugin-dir build/plugins --event-handler external-reserved.rust
//! ```
//!
//! Each dimension becomes `max(0, allocatable - reserved)`; a resource the
//! node does not have stays absent. A node without the annotation, or with
//! an empty one, is recorded as it came. A malformed annotation is ignored,
//! and the scheduler's log says so once per node (and module instance).
#![deny(unsafe_code)]

use std::collections::BTreeSet;

use caldera::{kind, log, CacheEvent, CacheEventHandler, EventType, EventVerdict, Level, Object, Plugin, Resource};

mod quantity;

pub use quantity::{parse_quantity, parse_reservation, Malformed};

/// The node annotation the handler reads.
pub const ANNOTATION: &str = "caldera.sh/external-reserved";

#[derive(Default)]
pub struct ExternalReserved {
    // The nodes whose malformed annotation was logged.
    warned: BTreeSet<String>,
}

caldera::export!(ExternalReserved);

impl Plugin for ExternalReserved {
    const NAME: &'static str = "external-reserved";
}

impl CacheEventHandler for ExternalReserved {
    const EVENT_KINDS: &'static [&'static str] = &[kind::NODE];

    fn on_cache_event(&mut self, event: &CacheEvent) -> EventVerdict {
        // A delete is recorded whatever the verdict.
        let node = match &event.new {
            Some(n) if event.event_type != EventType::Delete => n,
            _ => return EventVerdict::Pass,
        };
        let (allocatable, text) = match (&node.allocatable, node.annotations.get(ANNOTATION)) {
            (Some(a), Some(text)) if !text.trim().is_empty() => (a, text),
            _ => return EventVerdict::Pass,
        };
        match parse_reservation(text) {
            Ok(reserved) => EventVerdict::adjust_allocatable(subtract(allocatable, &reserved)),
            Err(e) => {
                if let Some(line) = self.first_warning(node, text, &e) {
                    log(Level::Warning, &line);
                }
                EventVerdict::Pass
            }
        }
    }
}

impl ExternalReserved {
    /// The line to log about a node's malformed annotation, the first time
    /// only: the node's every update would repeat it.
    fn first_warning(&mut self, node: &Object, text: &str, e: &Malformed) -> Option<String> {
        if !self.warned.insert(node.name.clone()) {
            return None;
        }
        Some(format!("node {}: annotation {}={:?} is malformed ({}); ignored", node.name, ANNOTATION, text, e))
    }
}

/// Takes `reserved` off `allocatable`, no dimension going below zero; a
/// scalar `allocatable` does not have stays absent.
pub fn subtract(allocatable: &Resource, reserved: &Resource) -> Resource {
    let less = |a: i64, r: i64| a.saturating_sub(r).max(0);
    Resource {
        milli_cpu: less(allocatable.milli_cpu, reserved.milli_cpu),
        memory: less(allocatable.memory, reserved.memory),
        scalars: allocatable.scalars.iter().map(|(name, &a)| (name.clone(), less(a, reserved.scalar(name)))).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(annotation: Option<&str>) -> Object {
        Object {
            name: "n1".into(),
            annotations: annotation.map(|a| (ANNOTATION.to_string(), a.to_string())).into_iter().collect(),
            allocatable: Some(Resource { milli_cpu: 8000, memory: 4 << 30, scalars: [("pods".to_string(), 110)].into_iter().collect() }),
            ..Object::default()
        }
    }

    fn resource(cpu: i64, memory: i64, scalars: &[(&str, i64)]) -> Resource {
        Resource { milli_cpu: cpu, memory, scalars: scalars.iter().map(|(k, v)| (k.to_string(), *v)).collect() }
    }

    #[test]
    fn wants_node_events_only() {
        assert_eq!(ExternalReserved::EVENT_KINDS, ["Node"]);
    }

    #[test]
    fn reservations_come_off_allocatable() {
        let mut h = ExternalReserved::default();
        // Memory clamps at zero; the GPU the node does not have stays absent.
        let reserved = node(Some("cpu=6,memory=8Gi,pods=10,nvidia.com/gpu=2"));
        let want = EventVerdict::adjust_allocatable(resource(2000, 0, &[("pods", 100)]));
        assert_eq!(h.on_cache_event(&CacheEvent::add("Node", reserved.clone())), want);
        assert_eq!(h.on_cache_event(&CacheEvent::update("Node", node(None), reserved)), want);
        // What the annotation says now counts, not what it said before.
        let got = h.on_cache_event(&CacheEvent::update("Node", node(Some("cpu=1")), node(Some(" cpu = 500m , memory=1Gi"))));
        assert_eq!(got, EventVerdict::adjust_allocatable(resource(7500, 3 << 30, &[("pods", 110)])));
    }

    #[test]
    fn nodes_without_a_reservation_pass() {
        let mut h = ExternalReserved::default();
        let no_allocatable = Object { allocatable: None, ..node(Some("cpu=1")) };
        for (what, ev) in [
            ("no annotation", CacheEvent::update("Node", node(None), node(None))),
            ("blank annotation", CacheEvent::add("Node", node(Some(" \t")))),
            ("delete", CacheEvent::delete("Node", node(Some("cpu=1")))),
            ("no allocatable", CacheEvent::add("Node", no_allocatable)),
        ] {
            assert_eq!(h.on_cache_event(&ev), EventVerdict::Pass, "{}", what);
        }
        assert!(h.warned.is_empty());
    }

    #[test]
    fn a_malformed_annotation_passes_and_is_logged_once_per_node() {
        let mut h = ExternalReserved::default();
        for _ in 0..3 {
            assert_eq!(h.on_cache_event(&CacheEvent::update("Node", node(None), node(Some("cpu=abc")))), EventVerdict::Pass);
        }
        assert_eq!(h.warned.iter().collect::<Vec<_>>(), ["n1"], "n1 was logged");
        let n1 = node(Some("cpu=6,"));
        assert_eq!(h.first_warning(&n1, "cpu=6,", &parse_reservation("cpu=6,").unwrap_err()), None, "n1 is not logged again");

        let mut h = ExternalReserved::default();
        let e = parse_reservation("cpu=abc").unwrap_err();
        let want = r#"node n1: annotation caldera.sh/external-reserved="cpu=abc" is malformed (cpu: "abc" is not a quantity); ignored"#;
        assert_eq!(h.first_warning(&node(None), "cpu=abc", &e).as_deref(), Some(want));
        assert_eq!(h.first_warning(&node(None), "cpu=abc", &e), None);
        let n2 = Object { name: "n2".into(), ..node(None) };
        assert!(h.first_warning(&n2, "cpu=abc", &e).is_some(), "another node is logged");
    }
}
