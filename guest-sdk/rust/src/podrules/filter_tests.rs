//! The filters' tests, the Go SDK's (podrules_test.go, rules_test.go).

use std::collections::{BTreeMap, HashMap};

use super::domains::DENSE_DOMAINS;
use super::*;
use crate::hooks::{DomainRule, DomainRules, FAIL_LISTED, FAIL_MISSING, FAIL_UNLISTED};
use crate::view::{Node, NodeSelectorRequirement, Pod, PodAffinity, PodAffinityTerm, Selector, SpreadConstraint, Task, View};

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect()
}

fn sel(key: &str, value: &str) -> Option<Selector> {
    Some(Selector { requirements: vec![NodeSelectorRequirement { key: key.into(), operator: "In".into(), values: vec![value.into()] }] })
}

fn anti(app: &str, key: &str) -> Option<PodAffinity> {
    let term = PodAffinityTerm { selector: sel("app", app), namespaces: vec!["ns".into()], topology_key: key.into(), ..PodAffinityTerm::default() };
    Some(PodAffinity { required: vec![term], ..PodAffinity::default() })
}

fn zone_spread(app: &str) -> SpreadConstraint {
    SpreadConstraint {
        max_skew: 1,
        topology_key: "zone".into(),
        when_unsatisfiable: "DoNotSchedule".into(),
        selector: sel("app", app),
        min_domains: 1,
        node_affinity_policy: "Honor".into(),
        node_taints_policy: "Ignore".into(),
        ..SpreadConstraint::default()
    }
}

/// Nodes n0..n(k-1) in zone z(i%2), and one pending task per app label,
/// each with required hostname anti-affinity against its own app and a zone
/// spread constraint of maxSkew 1, as the Go SDK's tests make them.
fn view(nodes: usize, apps: &[&str]) -> View {
    let mut v = View { namespaces: [("ns".to_string(), labels(&[("team", "a")]))].into_iter().collect(), ..View::default() };
    for i in 0..nodes {
        let name = format!("n{}", i);
        let zone = format!("z{}", i % 2);
        v.nodes.push(Node { labels: labels(&[(HOSTNAME_KEY, &name), ("zone", &zone)]), name, handle: i as i32, ..Node::default() });
    }
    for (i, app) in apps.iter().enumerate() {
        v.tasks.push(Task {
            namespace: "ns".into(),
            name: format!("t{}", i),
            handle: i as i32,
            labels: labels(&[("app", app)]),
            pod_anti_affinity: anti(app, HOSTNAME_KEY),
            spread_constraints: vec![zone_spread(app)],
            ..Task::default()
        });
    }
    v
}

fn place(idx: &mut Index, v: &mut View, task: usize, node: i32) {
    v.tasks[task].node = node;
    idx.add(&v.tasks[task]);
}

fn guard(app: &str) -> Pod {
    Pod { namespace: "ns".into(), name: "guard".into(), labels: labels(&[("app", "guard")]), pod_anti_affinity: anti(app, "zone"), ..Pod::default() }
}

/// Placements made after a state was built count once it catches up, and
/// a removal takes them back: the answers are those of a fresh state.
#[test]
fn filters_follow_placements() {
    let mut v = view(4, &["db", "db", "db", "web"]);
    let mut idx = Index::new(&v);
    let mut aff = AffinityFilter::new(&idx, &v, &v.tasks[1]);
    let mut spread = SpreadFilter::new(&idx, &v, &v.tasks[1]);
    place(&mut idx, &mut v, 0, 0);
    aff.catch_up(&idx, &v);
    spread.catch_up(&idx, &v);
    assert_eq!(aff.filter(&v.nodes[0]), Some((REASON_ANTI_AFFINITY_RULES_NOT_MATCH, false)), "n0 after db placed there");
    assert_eq!(aff.filter(&v.nodes[1]), None);
    // Zone z0 has one db pod, z1 none: a second in z0 skews by 2.
    assert_eq!(spread.filter(&v.nodes[2]).map(|f| f.0), Some(REASON_SPREAD_CONSTRAINTS_NOT_MATCH), "n2 (zone z0)");
    assert_eq!(spread.filter(&v.nodes[1]), None, "n1 (zone z1)");
    idx.remove(&v.tasks[0]);
    aff.catch_up(&idx, &v);
    spread.catch_up(&idx, &v);
    assert_eq!(aff.filter(&v.nodes[0]), None, "n0 after the db pod left");
    assert_eq!(spread.filter(&v.nodes[2]), None, "n2 after the db pod left");
    // The other app is not affected by db pods; a node without the zone
    // label fails for good. Topology domains are numbered once per
    // session, so the node loses its label before the next session's
    // index.
    place(&mut idx, &mut v, 0, 0);
    v.nodes[3].labels.remove("zone");
    let idx = Index::new(&v);
    let web = SpreadFilter::new(&idx, &v, &v.tasks[3]);
    assert_eq!(AffinityFilter::new(&idx, &v, &v.tasks[3]).filter(&v.nodes[0]), None, "web on n0");
    assert_eq!(web.filter(&v.nodes[3]), Some((REASON_SPREAD_MISSING_LABEL, true)), "web on a node without zone");
}

/// An existing pod's required anti-affinity keeps the task off its domain
/// (symmetry), and a parse error is carried as kube-scheduler's text.
#[test]
fn existing_anti_affinity_and_errors() {
    let mut v = view(2, &["web"]);
    v.nodes[1].others = vec![guard("web")];
    let idx = Index::new(&v);
    let f = AffinityFilter::new(&idx, &v, &v.tasks[0]);
    assert!(!f.passes_all());
    assert_eq!(f.filter(&v.nodes[1]).map(|f| f.0), Some(REASON_EXISTING_ANTI_AFFINITY_NOT_MATCHED), "n1");
    assert_eq!(f.filter(&v.nodes[0]), None, "n0 (other zone)");
    v.tasks[0].affinity_error = r#"requiredAffinityTerms: "Foo" is not a valid label selector operator"#.into();
    assert_eq!(AffinityFilter::new(&idx, &v, &v.tasks[0]).err, v.tasks[0].affinity_error);
}

/// A group's first pod passes wherever its required affinity's key is,
/// while no pod matches; then only where matching pods are.
#[test]
fn required_affinity_lets_the_first_pod_in() {
    let mut v = view(4, &["db", "db"]);
    for t in &mut v.tasks {
        t.pod_anti_affinity = None;
        t.spread_constraints.clear();
        t.pod_affinity = anti("db", "zone");
    }
    v.nodes[3].labels.remove("zone");
    let mut idx = Index::new(&v);
    let mut f = AffinityFilter::new(&idx, &v, &v.tasks[1]);
    assert_eq!(f.filter(&v.nodes[0]), None, "first of the group");
    assert_eq!(f.filter(&v.nodes[3]), Some((REASON_AFFINITY_RULES_NOT_MATCH, true)), "no zone");
    place(&mut idx, &mut v, 0, 1);
    f.catch_up(&idx, &v);
    assert_eq!(f.filter(&v.nodes[0]), Some((REASON_AFFINITY_RULES_NOT_MATCH, true)), "zone z0 without db");
    assert_eq!(f.filter(&v.nodes[1]), None, "zone z1 with db");
}

/// Node-local classes: a task whose verdicts read only its node gets one,
/// shared by tasks that another pod's hostname anti-affinity tells apart
/// only by namespace and labels; rules that read other nodes get -1.
#[test]
fn node_local_classes() {
    let mut v = view(4, &["db", "db", "web", "plain", "zoned"]);
    for t in &mut v.tasks {
        t.spread_constraints.clear(); // db, web: hostname anti-affinity only
    }
    v.tasks[3].pod_anti_affinity = None;
    v.tasks[4].pod_anti_affinity = None;
    // A guard pod keeps "zoned" pods out of its zone: that reads the zone's
    // other nodes.
    v.nodes[1].others = vec![guard("zoned")];
    let mut classes = vec![0; v.tasks.len()];
    Index::new(&v).node_local_classes(&v, true, true, &mut classes);
    assert!(classes[0] > 0 && classes[1] == classes[0], "db pods: {:?}, want one class above 0", classes);
    assert!(classes[2] > 0 && classes[2] != classes[0], "web: {:?}, want its own class above 0", classes);
    assert_eq!(classes[3], 0, "plain");
    assert_eq!(classes[4], -1, "zoned: a zone anti-affinity selects it");
    v.tasks[3].spread_constraints = vec![zone_spread("plain")];
    Index::new(&v).node_local_classes(&v, true, true, &mut classes);
    assert_eq!(classes[3], -1, "plain with a zone spread constraint");
    Index::new(&v).node_local_classes(&v, true, false, &mut classes);
    assert_eq!(classes[3], 0, "plain with the spread filter off");
    // Hostnames shared by two nodes make a hostname domain span both.
    v.nodes[1].labels.insert(HOSTNAME_KEY.into(), "n0".into());
    Index::new(&v).node_local_classes(&v, true, true, &mut classes);
    assert_eq!((classes[0], classes[2]), (-1, -1), "db and web with a shared hostname");

    v.tasks[0].affinity_error = "bad".into();
    v.tasks[2].spread_constraints = vec![SpreadConstraint { error: "worse".into(), ..zone_spread("web") }];
    ruled_classes(&v, true, true, &mut classes);
    assert_eq!(classes, [-1, 0, -1, 0, 0], "with domain rules, only what does not parse");
    ruled_classes(&v, false, false, &mut classes);
    assert_eq!(classes, [0; 5]);
}

/// Hostnames are more domains than a tally holds densely: the sparse tally
/// answers as the dense one, for the task's own anti-affinity and for an
/// existing pod's (symmetry).
#[test]
fn many_domains_tally_sparsely() {
    let mut v = view(3 * DENSE_DOMAINS, &["db", "db"]);
    let mut idx = Index::new(&v);
    let mut f = AffinityFilter::new(&idx, &v, &v.tasks[1]);
    place(&mut idx, &mut v, 0, 70);
    f.catch_up(&idx, &v);
    assert!(f.anti.find(HOSTNAME_KEY).unwrap().sparse.is_some(), "the hostname tally of {} nodes is dense", v.nodes.len());
    assert_eq!(f.filter(&v.nodes[70]).map(|f| f.0), Some(REASON_ANTI_AFFINITY_RULES_NOT_MATCH));
    assert_eq!(f.filter(&v.nodes[71]), None);
    idx.remove(&v.tasks[0]);
    f.catch_up(&idx, &v);
    assert_eq!((f.filter(&v.nodes[70]), f.anti.nonzero), (None, 0), "after the db pod left");
}

/// How a node fares against a task's rules, as the scheduler sorts it: per
/// rule, 0 where it passes, else the failing state.
fn outcome(rules: &[DomainRule], n: &Node) -> String {
    rules
        .iter()
        .map(|r| {
            let state = match n.labels.get(&r.key) {
                None => FAIL_MISSING,
                Some(v) if r.values.contains(v) => FAIL_LISTED,
                Some(_) => FAIL_UNLISTED,
            };
            char::from(b'0' + if r.fail & state == 0 { 0 } else { state })
        })
        .collect()
}

/// As pods are placed, a node passes every rule exactly when both filters
/// pass it, and nodes that fail the same rules in the same states get the
/// same reasons: what the scheduler relies on to keep the verdicts.
#[test]
fn rules_say_what_filters_read() {
    let mut v = view(6, &["db", "db", "db", "db", "web"]);
    // A node without a zone, so that spread's missing-label state shows.
    v.nodes.push(Node { name: "bare".into(), handle: 6, labels: labels(&[(HOSTNAME_KEY, "bare")]), ..Node::default() });
    let mut idx = Index::new(&v);
    let mut by_outcome: HashMap<String, String> = HashMap::new();
    for (step, node) in [-1, 0, 3, 1].into_iter().enumerate() {
        if node >= 0 {
            place(&mut idx, &mut v, step - 1, node);
        }
        let task = &v.tasks[3];
        let (aff, spread) = (AffinityFilter::new(&idx, &v, task), SpreadFilter::new(&idx, &v, task));
        let (mut rules, mut kinds) = (DomainRules::default(), Vec::new());
        aff.append_rules(&mut rules, &mut kinds);
        spread.append_rules(&mut rules, &mut kinds);
        for n in &v.nodes {
            let (a, s) = (aff.filter(n), spread.filter(n));
            let verdict = format!("{:?}|{:?}", a, s);
            let states = outcome(&rules.rules, n);
            let all_pass = states.bytes().all(|b| b == b'0');
            assert_eq!(all_pass, a.is_none() && s.is_none(), "after {} placements, {}: rules {}, filters {}", step, n.name, states, verdict);
            let o = format!("{}:{}", String::from_utf8_lossy(&kinds), states);
            if let Some(seen) = by_outcome.get(&o) {
                assert_eq!(seen, &verdict, "after {} placements, {}: outcome {}", step, n.name, o);
            }
            by_outcome.insert(o, verdict);
        }
    }
    assert!(by_outcome.len() >= 3, "only {} outcomes seen: {:?}", by_outcome.len(), by_outcome);
}

#[test]
fn has_rules_finds_own_rules() {
    let mut v = view(2, &["db"]);
    assert!(has_rules(&v));
    v.tasks[0].pod_anti_affinity = None;
    v.tasks[0].spread_defaulted = true;
    assert!(!has_rules(&v), "system default constraints only");
    v.nodes[1].others = vec![guard("db")];
    assert!(has_rules(&v), "an existing pod's anti-affinity");
}
