use std::collections::BTreeMap;

use super::*;
use crate::view::{
    Node, NodeSelectorRequirement, Pod, PodAffinity, PodAffinityTerm, Selector, SpreadConstraint, Task, View, WeightedPodAffinityTerm,
};

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect()
}

fn sel(key: &str, value: &str) -> Option<Selector> {
    Some(Selector { requirements: vec![NodeSelectorRequirement { key: key.into(), operator: "In".into(), values: vec![value.into()] }] })
}

fn term(app: &str, key: &str) -> PodAffinityTerm {
    PodAffinityTerm { selector: sel("app", app), namespaces: vec!["ns".into()], topology_key: key.into(), ..PodAffinityTerm::default() }
}

fn spread(app: &str, key: &str, max_skew: i32) -> SpreadConstraint {
    SpreadConstraint {
        max_skew,
        topology_key: key.into(),
        when_unsatisfiable: "ScheduleAnyway".into(),
        selector: sel("app", app),
        min_domains: 1,
        node_affinity_policy: "Honor".into(),
        node_taints_policy: "Ignore".into(),
        ..SpreadConstraint::default()
    }
}

/// Nodes n0..n(k-1) in zone z(i%2), and one pending task per app label, as
/// the Go SDK's tests make them.
fn view(nodes: usize, apps: &[&str]) -> View {
    let mut v = View { namespaces: [("ns".to_string(), labels(&[("team", "a")]))].into_iter().collect(), ..View::default() };
    for i in 0..nodes {
        let name = format!("n{}", i);
        let zone = format!("z{}", i % 2);
        v.nodes.push(Node { labels: labels(&[(HOSTNAME_KEY, &name), ("zone", &zone)]), name, handle: i as i32, ..Node::default() });
    }
    for (i, app) in apps.iter().enumerate() {
        v.tasks.push(Task { namespace: "ns".into(), name: format!("t{}", i), handle: i as i32, labels: labels(&[("app", app)]), ..Task::default() });
    }
    v
}

fn place(idx: &mut Index, v: &mut View, task: usize, node: i32) {
    v.tasks[task].node = node;
    idx.add(&v.tasks[task]);
}

fn all(v: &View) -> Vec<&Node> {
    v.nodes.iter().collect()
}

/// Preferred anti-affinity scores the nodes away from matching pods,
/// normalised over the candidates.
#[test]
fn affinity_score() {
    let mut v = view(3, &["db", "db"]);
    v.tasks[1].pod_anti_affinity =
        Some(PodAffinity { preferred: vec![WeightedPodAffinityTerm { weight: 10, term: term("db", "zone") }], ..PodAffinity::default() });
    let mut idx = Index::new(&v);
    let mut s = AffinityScore::new(&idx, &v, &v.tasks[1], 1);
    place(&mut idx, &mut v, 0, 0);
    let mut out = Vec::new();
    assert!(s.score(&idx, &v, &all(&v), &mut out));
    assert_eq!(out, [0, 100, 0], "n0 and n2 share zone z0 with the db pod");
}

/// Existing pods' terms that select the task score too: required affinity
/// times hardPodAffinityWeight, preferred anti-affinity against it. A pod
/// on a node without labels counts nothing.
#[test]
fn existing_pods_terms_score_the_task() {
    let mut v = view(4, &["web"]);
    v.nodes[0].others = vec![Pod {
        namespace: "ns".into(),
        labels: labels(&[("app", "cache")]),
        pod_affinity: Some(PodAffinity { required: vec![term("web", "zone")], ..PodAffinity::default() }),
        ..Pod::default()
    }];
    v.nodes[1].others = vec![Pod {
        namespace: "ns".into(),
        pod_anti_affinity: Some(PodAffinity {
            preferred: vec![WeightedPodAffinityTerm { weight: 3, term: term("web", HOSTNAME_KEY) }],
            ..PodAffinity::default()
        }),
        ..Pod::default()
    }];
    let idx = Index::new(&v);
    let mut out = Vec::new();
    // zone z0: +5 (n0, n2); n1: -3; n3: 0. min -3, max 5.
    assert!(AffinityScore::new(&idx, &v, &v.tasks[0], 5).score(&idx, &v, &all(&v), &mut out));
    assert_eq!(out, [100, 0, 100, 37]);
    // Without the hard weight only the anti-affinity scores: 0 -3 0 0.
    assert!(AffinityScore::new(&idx, &v, &v.tasks[0], 0).score(&idx, &v, &all(&v), &mut out));
    assert_eq!(out, [100, 0, 100, 100]);
    v.nodes[1].labels.clear();
    let idx = Index::new(&v);
    assert!(!AffinityScore::new(&idx, &v, &v.tasks[0], 0).score(&idx, &v, &all(&v), &mut out), "nothing counted");
    assert_eq!(out, [0; 4]);
}

/// Zone spread: z0 holds two web pods and z1 one; the weight is ln(2 + 2)
/// for two zones, so z0 scores round(2 ln 4) = 3 and z1 round(ln 4) = 1,
/// normalised as 100 (3 + 1 - s) / 3.
#[test]
fn spread_score_weighs_domains() {
    let mut v = view(4, &["web", "web", "web", "web"]);
    v.tasks[3].spread_constraints = vec![spread("web", "zone", 1)];
    let mut idx = Index::new(&v);
    let mut s = SpreadScore::new(&idx, &v, &v.tasks[3]);
    place(&mut idx, &mut v, 0, 0);
    place(&mut idx, &mut v, 1, 2);
    place(&mut idx, &mut v, 2, 1);
    let mut out = Vec::new();
    assert!(s.score(&idx, &v, &all(&v), &mut out));
    assert_eq!(out, [33, 100, 33, 100]);
    // A node without the zone is left out of a stated constraint's score.
    v.nodes[3].labels.remove("zone");
    let idx = Index::new(&v);
    let mut s = SpreadScore::new(&idx, &v, &v.tasks[3]);
    assert!(s.score(&idx, &v, &all(&v), &mut out));
    assert_eq!(out, [33, 100, 33, 0]);
    assert!(!SpreadScore::new(&idx, &v, &v.tasks[0]).score(&idx, &v, &all(&v), &mut out), "no constraint");
}

/// Hostname constraints count per node, over the candidates: three nodes
/// weigh ln(3 + 2); maxSkew 2 adds 1 to each.
#[test]
fn spread_score_counts_hostnames_per_node() {
    let mut v = view(3, &["web", "web", "web"]);
    v.tasks[2].spread_constraints = vec![spread("web", HOSTNAME_KEY, 2)];
    let mut idx = Index::new(&v);
    place(&mut idx, &mut v, 0, 0);
    place(&mut idx, &mut v, 1, 0);
    let mut out = Vec::new();
    assert!(SpreadScore::new(&idx, &v, &v.tasks[2]).score(&idx, &v, &all(&v), &mut out));
    let top = (2.0 * 5f64.ln() + 1.0).round() as i64; // 4
    assert_eq!(out, [100 * (top + 1 - top) / top, 100, 100]);
}

/// A state built before placements and caught up scores as one built
/// after them, for both scores, removals included: db pods end on n0 and
/// n2, both in zone z0.
#[test]
fn states_follow_placements() {
    let mut v = view(6, &["db", "db", "db", "web"]);
    for t in &mut v.tasks {
        t.spread_constraints = vec![spread("db", "zone", 1), spread("db", HOSTNAME_KEY, 1)];
        t.pod_affinity =
            Some(PodAffinity { preferred: vec![WeightedPodAffinityTerm { weight: 7, term: term("db", "zone") }], ..PodAffinity::default() });
    }
    let mut idx = Index::new(&v);
    let mut early_aff = AffinityScore::new(&idx, &v, &v.tasks[3], 1);
    let mut early_spread = SpreadScore::new(&idx, &v, &v.tasks[3]);
    place(&mut idx, &mut v, 0, 0);
    place(&mut idx, &mut v, 1, 3);
    place(&mut idx, &mut v, 2, 2);
    idx.remove(&v.tasks[1]);
    v.tasks[1].node = -1;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    assert!(early_aff.score(&idx, &v, &all(&v), &mut a));
    assert!(AffinityScore::new(&idx, &v, &v.tasks[3], 1).score(&idx, &v, &all(&v), &mut b));
    assert_eq!((a.clone(), &a), (b.clone(), &vec![100, 0, 100, 0, 100, 0]));
    assert!(early_spread.score(&idx, &v, &all(&v), &mut a));
    assert!(SpreadScore::new(&idx, &v, &v.tasks[3]).score(&idx, &v, &all(&v), &mut b));
    assert_eq!(a, b);
    // Zones weigh ln 4, hostnames ln 8: n0 and n2 round(2 ln 4 + ln 8) = 5,
    // n4 round(2 ln 4) = 3, zone z1 0.
    assert_eq!(a, [0, 100, 0, 100, 40, 100]);
}

#[test]
fn parse_errors_are_carried() {
    let mut v = view(1, &["web"]);
    v.tasks[0].affinity_error = "bad".into();
    v.tasks[0].spread_constraints =
        vec![SpreadConstraint { when_unsatisfiable: "ScheduleAnyway".into(), error: "worse".into(), ..SpreadConstraint::default() }];
    let idx = Index::new(&v);
    assert_eq!(AffinityScore::new(&idx, &v, &v.tasks[0], 1).err, "bad");
    assert_eq!(SpreadScore::new(&idx, &v, &v.tasks[0]).err, "worse");
}

#[test]
fn template_keys_tell_rules_apart() {
    let v = view(1, &["db", "db", "web"]);
    let key = |t: &Task| {
        let mut k = Vec::new();
        template_key(&mut k, t);
        k
    };
    let (mut spread_task, mut anti) = (v.tasks[0].clone(), v.tasks[0].clone());
    spread_task.spread_constraints = vec![spread("db", "zone", 1)];
    anti.pod_anti_affinity = Some(PodAffinity::default());
    assert_eq!(key(&v.tasks[0]), key(&v.tasks[1]), "names and handles are not read");
    let keys = [key(&v.tasks[0]), key(&v.tasks[2]), key(&spread_task), key(&anti)];
    for (i, a) in keys.iter().enumerate() {
        for b in &keys[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn scores_anything_finds_scoring_rules() {
    let mut v = view(2, &["db"]);
    assert!(!scores_anything(&v, true, 1, true));
    v.tasks[0].spread_constraints = vec![SpreadConstraint { when_unsatisfiable: "DoNotSchedule".into(), ..spread("db", "zone", 1) }];
    v.tasks[0].pod_anti_affinity = Some(PodAffinity { required: vec![term("db", "zone")], ..PodAffinity::default() });
    assert!(!scores_anything(&v, true, 1, true), "filters only");
    v.nodes[1].others =
        vec![Pod { pod_affinity: Some(PodAffinity { required: vec![term("db", "zone")], ..PodAffinity::default() }), ..Pod::default() }];
    assert!(scores_anything(&v, true, 1, false));
    assert!(!scores_anything(&v, true, 0, true), "required affinity without hard weight");
    v.tasks[0].spread_defaulted = true;
    assert!(scores_anything(&v, false, 0, true));
}

/// Go's math.Log (its portable code, which Go's Wasm builds run), where
/// glibc's log differs (3, 14, 48) and elsewhere.
#[test]
fn log_is_gos() {
    for (x, bits) in [
        (2.0, 0x3fe62e42fefa39efu64),
        (3.0, 0x3ff193ea7aad030a),
        (14.0, 0x40051cca16d7bba8),
        (48.0, 0x400ef8383c50bb74),
        (7.0, 0x3fff2272ae325a57),
        (1e6, 0x402ba18a998fffa0),
        (0.5, 0xbfe62e42fefa39ef),
        (5e-324, 0xc0874385446d71c3),
    ] {
        assert_eq!(golog::log(x).to_bits(), bits, "log({})", x);
    }
    assert!(golog::log(-1.0).is_nan());
    assert_eq!(golog::log(0.0), f64::NEG_INFINITY);
}
