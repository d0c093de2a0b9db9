//! The port's scores are proven equal to the native plugin's by cmd/caldera's
//! TestPortsDecideAsNative; these tests, the Go port's, pin the arithmetic
//! on small cases.

use caldera::{
    Arguments, Handle, KubeRequest, NodeAffinity, NodeSelectorRequirement, NodeSelectorTerm, PreferredTerm, Resource, Selector, SpreadConstraint,
    Taint, Toleration, Value, View,
};

use super::*;

const GI: i64 = 1 << 30;

fn open(nodes: Vec<Node>, tasks: Vec<Task>, plugins: &[&str], args: Arguments) -> (Nodeorder, Session) {
    let view = View { nodes, tasks, plugins: plugins.iter().map(|p| p.to_string()).collect(), ..View::default() };
    let s = Session::new(view, args);
    let mut p = Nodeorder::default();
    p.on_session_open(&s).unwrap();
    (p, s)
}

fn node(name: &str, cpu: i64, mem: i64, zone: &str) -> Node {
    Node {
        name: name.into(),
        labels: [("zone".to_string(), zone.to_string())].into_iter().collect(),
        allocatable: Resource { milli_cpu: cpu, memory: mem, scalars: [("pods".to_string(), 110)].into_iter().collect() },
        ..Node::default()
    }
}

fn request(cpu: i64, mem: i64) -> KubeRequest {
    KubeRequest { milli_cpu: cpu, memory: mem, non_zero_milli_cpu: cpu, non_zero_memory: mem, ..KubeRequest::default() }
}

fn pending(r: KubeRequest) -> Task {
    Task { kube_request: r, ..Task::default() }
}

fn scores_of(p: &mut Nodeorder, s: &Session, task: usize) -> Vec<f64> {
    let nodes: Vec<&Node> = s.nodes().iter().collect();
    let mut out = vec![0.0; nodes.len()];
    p.node_order_batch(s, &s.tasks()[task], &nodes, &mut out).unwrap();
    out
}

fn args(pairs: &[(&str, Value)]) -> Arguments {
    pairs.iter().cloned().collect()
}

/// n1: 4 cpu, 8Gi, 1 cpu and 2Gi in use; n2: 8 cpu, 8Gi, empty; the task
/// asks for 1 cpu and 1Gi.
///
/// ```text
/// least     n1 (50*50 + 62*50)/100 = 56     n2 (87*50 + 87*50)/100 = 87
/// balanced  n1 (1 - |0.5-0.375|/2)*100 = 93  n2 100
/// taints    none anywhere: 100 each, times 3
/// ```
fn two_nodes() -> Vec<Node> {
    let mut n1 = node("n1", 4000, 8 * GI, "a");
    n1.kube_requested = request(1000, 2 * GI);
    vec![n1, node("n2", 8000, 8 * GI, "b")]
}

fn zone_term(weight: i32, zone: &str) -> PreferredTerm {
    let r = NodeSelectorRequirement { key: "zone".into(), operator: "In".into(), values: vec![zone.into()] };
    PreferredTerm { weight, term: NodeSelectorTerm { match_expressions: vec![r], ..NodeSelectorTerm::default() } }
}

#[test]
fn node_order_batch() {
    let prefer = NodeAffinity { preferred: vec![zone_term(5, "a"), zone_term(0, "b")], ..NodeAffinity::default() };
    type Edit = Box<dyn Fn(&mut Vec<Node>, &mut Task)>;
    let none: fn() -> Edit = || Box::new(|_, _| {});
    let cases: Vec<(&str, Edit, Arguments, [f64; 2])> = vec![
        ("defaults", none(), Arguments::default(), [56.0 + 93.0 + 300.0, 87.0 + 100.0 + 300.0]),
        (
            "preferred affinity, normalised to 100, weight 2",
            Box::new(move |_, t| t.node_affinity = Some(prefer.clone())),
            Arguments::default(),
            [56.0 + 93.0 + 300.0 + 200.0, 87.0 + 100.0 + 300.0],
        ),
        (
            "untolerated PreferNoSchedule taint, reversed",
            Box::new(|ns, _| {
                ns[1].taints = vec![
                    Taint { key: "soft".into(), effect: "PreferNoSchedule".into(), ..Taint::default() },
                    Taint { key: "hard".into(), effect: "NoSchedule".into(), ..Taint::default() },
                ]
            }),
            Arguments::default(),
            [56.0 + 93.0 + 300.0, 87.0 + 100.0],
        ),
        (
            "tolerated taint",
            Box::new(|ns, t| {
                ns[1].taints = vec![Taint { key: "soft".into(), effect: "PreferNoSchedule".into(), ..Taint::default() }];
                t.tolerations = vec![Toleration { key: "soft".into(), operator: "Exists".into(), ..Toleration::default() }];
            }),
            Arguments::default(),
            [56.0 + 93.0 + 300.0, 87.0 + 100.0 + 300.0],
        ),
        (
            // most: n1 (50 + 37)/2 = 43, n2 (12 + 12)/2 = 12
            "most requested, negative taint weight",
            none(),
            args(&[("mostrequested.weight", Value::Int(1)), ("leastrequested.weight", Value::from("0")), ("tainttoleration.weight", Value::Int(-1))]),
            [43.0 + 93.0 - 100.0, 12.0 + 100.0 - 100.0],
        ),
        (
            // least: n1 cpu (4000-1100)*100/4000 = 72, mem (8Gi-2Gi-200Mi)*100/8Gi = 72; n2 98, 97
            "a pod requesting nothing skips balanced",
            Box::new(|_, t| t.kube_request = KubeRequest { non_zero_milli_cpu: 100, non_zero_memory: 200 << 20, ..KubeRequest::default() }),
            Arguments::default(),
            [72.0 + 300.0, 97.0 + 300.0],
        ),
    ];
    for (name, edit, args, want) in cases {
        let (mut nodes, mut task) = (two_nodes(), pending(request(1000, GI)));
        edit(&mut nodes, &mut task);
        let (mut p, s) = open(nodes, vec![task], &["predicates", "nodeorder"], args);
        assert_eq!(scores_of(&mut p, &s, 0), want, "{}", name);
    }
}

#[test]
fn invalid_preferred_term_fails_scoring() {
    let mut task = pending(request(1000, GI));
    let mut term = zone_term(1, "a");
    term.term.match_expressions[0].operator = "Bogus".into();
    term.term.invalid = true;
    task.node_affinity = Some(NodeAffinity { preferred: vec![term], ..NodeAffinity::default() });
    let (mut p, s) = open(two_nodes(), vec![task], &[], Arguments::default());
    let err = p.node_order_batch(&s, &s.tasks()[0], &[&s.nodes()[0]], &mut [0.0]).unwrap_err();
    assert_eq!(err.to_string(), PREFERRED_TERM_ERROR);
}

/// Usage follows placements only when predicates is configured, as in
/// Volcano.
#[test]
fn usage_follows_placements_with_predicates() {
    // After 4 cpu and 4Gi land on n2: least (37*50 + 37*50)/100 = 37,
    // balanced fractions 0.625, 0.625: 100.
    let cases: [(&[&str], [f64; 2]); 2] =
        [(&["predicates"], [56.0 + 93.0 + 300.0, 37.0 + 100.0 + 300.0]), (&[], [56.0 + 93.0 + 300.0, 87.0 + 100.0 + 300.0])];
    for (plugins, want) in cases {
        let (mut p, s) = open(two_nodes(), vec![pending(request(1000, GI)), pending(request(4000, 4 * GI))], plugins, Arguments::default());
        scores_of(&mut p, &s, 0); // fill the caches before the placement
        let mut placed = s.tasks()[1].clone();
        placed.status = status::ALLOCATED.into();
        placed.node = 1;
        p.on_allocate(&s, &placed);
        assert_eq!(scores_of(&mut p, &s, 0), want, "plugins {:?}", plugins);
        // Undone, the placement has lost its node in the view.
        placed.status = status::PENDING.into();
        placed.node = -1;
        p.on_deallocate(&s, &placed);
        assert_eq!(scores_of(&mut p, &s, 0), [56.0 + 93.0 + 300.0, 87.0 + 100.0 + 300.0], "plugins {:?}, placement undone", plugins);
    }
}

fn soft(key: &str) -> Taint {
    Taint { key: key.into(), effect: "PreferNoSchedule".into(), ..Taint::default() }
}

fn many_nodes(n: usize) -> Vec<Node> {
    (0..n)
        .map(|i| {
            let zone = ((b'a' + (i % 3) as u8) as char).to_string();
            let mut node = node(&format!("n{}", i), 4000 + (i % 4) as i64 * 1000, 8 * GI, &zone);
            node.kube_requested = request((i % 7) as i64 * 250, (i % 5) as i64 * GI);
            if i % 4 == 0 {
                node.taints = vec![soft("soft")];
            }
            node
        })
        .collect()
}

/// Whenever the port promises node-local scores, a node scores the same in
/// any batch that holds it: the host adds kept scores of earlier batches to
/// the scores of later, smaller ones.
#[test]
fn promised_scores_do_not_depend_on_the_batch() {
    let mut tolerant = pending(request(500, GI));
    tolerant.tolerations = vec![Toleration { key: "soft".into(), operator: "Exists".into(), ..Toleration::default() }];
    type Taints = fn(usize) -> Vec<Taint>;
    let cases: [(&str, Taints, bool); 3] = [
        ("no taints", |_| Vec::new(), true),
        ("one soft taint on some nodes", |i| if i % 4 != 0 { Vec::new() } else { vec![soft(["soft", "other"][i % 8 / 4])] }, true),
        (
            "two soft taints on a node, one on others",
            |i| match i {
                3 => vec![soft("soft"), soft("other")],
                _ if i % 4 == 0 => vec![soft("other")],
                _ => Vec::new(),
            },
            false,
        ),
    ];
    for (name, taints, promise) in cases {
        let mut nodes = many_nodes(40);
        for (i, n) in nodes.iter_mut().enumerate() {
            n.taints = taints(i);
        }
        let (mut p, s) = open(nodes, vec![pending(request(500, GI)), tolerant.clone()], &["predicates"], Arguments::default());
        assert_eq!(p.scores_node_local(&s), promise, "{}", name);
        if !promise {
            continue;
        }
        for task in 0..s.tasks().len() {
            let all = scores_of(&mut p, &s, task);
            for start in 0..5 {
                let batch: Vec<&Node> = s.nodes().iter().skip(start).step_by(5).collect();
                let mut out = vec![0.0; batch.len()];
                p.node_order_batch(&s, &s.tasks()[task], &batch, &mut out).unwrap();
                for (score, n) in out.iter().zip(&batch) {
                    assert_eq!(*score, all[n.handle as usize], "{}, task {}: node {} in a batch of {}", name, task, n.handle, batch.len());
                }
            }
        }
    }
}

/// A zone spread constraint scores through the SDK's podrules, weighted:
/// zone a holds a web pod, so n2 in zone b gets the weight's 100. Such a
/// session promises no node-local scores, and a task whose rules do not
/// parse fails with kube-scheduler's PreScore words.
#[test]
fn pod_rules_score_and_fail() {
    let web = |node: Handle| Task {
        namespace: "ns".into(),
        labels: [("app".to_string(), "web".to_string())].into_iter().collect(),
        node,
        status: if node >= 0 { status::RUNNING.into() } else { status::PENDING.into() },
        spread_constraints: vec![SpreadConstraint {
            max_skew: 1,
            topology_key: "zone".into(),
            when_unsatisfiable: "ScheduleAnyway".into(),
            selector: Some(Selector {
                requirements: vec![NodeSelectorRequirement { key: "app".into(), operator: "In".into(), values: vec!["web".into()] }],
            }),
            min_domains: 1,
            node_affinity_policy: "Honor".into(),
            node_taints_policy: "Ignore".into(),
            ..SpreadConstraint::default()
        }],
        ..pending(request(1000, GI))
    };
    let tasks = vec![web(0), web(-1)];
    let (mut off, s) = open(two_nodes(), tasks.clone(), &["predicates"], args(&[("podtopologyspread.weight", Value::Int(0))]));
    let base = scores_of(&mut off, &s, 1);
    let (mut p, s) = open(two_nodes(), tasks.clone(), &["predicates"], Arguments::default());
    assert!(!p.scores_node_local(&s));
    assert_eq!(scores_of(&mut p, &s, 1), [base[0], base[1] + 200.0]);

    let mut broken = tasks;
    broken[1].affinity_error = "bad selector".into();
    broken[1].pod_affinity = None;
    let (mut p, s) = open(two_nodes(), broken, &["predicates"], Arguments::default());
    let err = p.node_order_batch(&s, &s.tasks()[1], &[&s.nodes()[0]], &mut [0.0]).unwrap_err();
    assert_eq!(err.to_string(), "InterPodAffinity PreScore: failed to parse pod: bad selector");
}
