//! The port's decisions are proven equal to the native plugin's by
//! cmd/caldera's TestPortsDecideAsNative; these tests, the Go port's (but
//! its allocation counts, which are the Go toolchains' concern), pin the
//! rules that the scenarios exercise rarely.

use caldera::{
    Arguments, ClaimCheck, HostPort, NodeAffinity, NodeClaims, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodAffinity,
    PodAffinityTerm, Resource, Selector, Taint, Toleration, Value, View,
};

use super::*;

const GI: i64 = 1 << 30;
const UAU: Code = Code::UnschedulableAndUnresolvable;
const UNSCH: Code = Code::Unschedulable;

fn open(nodes: Vec<Node>, tasks: Vec<Task>, args: Arguments) -> (Predicates, Session) {
    let s = Session::new(View { nodes, tasks, ..View::default() }, args);
    let mut p = Predicates::default();
    p.on_session_open(&s).unwrap();
    (p, s)
}

fn node(name: &str, pods: i64) -> Node {
    let r = Resource { milli_cpu: 4000, memory: 8 * GI, scalars: [("pods".to_string(), pods)].into_iter().collect() };
    Node {
        name: name.into(),
        allocatable: r.clone(),
        idle: r,
        labels: [("zone", "a"), ("num", "7")].iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect(),
        ..Node::default()
    }
}

fn task() -> Task {
    Task { init_request: Resource { milli_cpu: 1000, memory: GI, ..Resource::default() }, ..Task::default() }
}

fn req(key: &str, op: &str, values: &[&str]) -> NodeSelectorRequirement {
    NodeSelectorRequirement { key: key.into(), operator: op.into(), values: values.iter().map(|v| v.to_string()).collect() }
}

fn term(exprs: Vec<NodeSelectorRequirement>) -> NodeSelectorTerm {
    NodeSelectorTerm { match_expressions: exprs, ..NodeSelectorTerm::default() }
}

fn names(values: &[&str]) -> NodeSelectorTerm {
    NodeSelectorTerm { match_fields: vec![req(NODE_NAME, "In", values)], ..NodeSelectorTerm::default() }
}

const NODE_NAME: &str = "metadata.name";

fn required(terms: Vec<NodeSelectorTerm>) -> Option<NodeAffinity> {
    Some(NodeAffinity { required: Some(NodeSelector { terms }), ..NodeAffinity::default() })
}

fn args(pairs: &[(&str, Value)]) -> Arguments {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

fn verdicts(p: &mut Predicates, s: &Session, task: usize) -> Vec<Verdict> {
    let nodes: Vec<&Node> = s.nodes().iter().collect();
    let mut out = vec![Verdict::PASS; nodes.len()];
    p.predicate_batch(s, &s.tasks()[task], &nodes, &mut out);
    out
}

fn port() -> HostPort {
    HostPort { ip: "0.0.0.0".into(), port: 8080, protocol: "TCP".into() }
}

fn taint(key: &str, value: &str, effect: &str) -> Taint {
    Taint { key: key.into(), value: value.into(), effect: effect.into() }
}

#[test]
fn predicate_batch() {
    type Edit<T> = Box<dyn Fn(&mut T)>;
    let none_n = || -> Edit<Node> { Box::new(|_| {}) };
    let none_t = || -> Edit<Task> { Box::new(|_| {}) };
    let pass = Verdict::PASS;
    let v = |code, reason: &str| Verdict { code, reason: reason.into() };
    let cases: Vec<(&str, Edit<Node>, Edit<Task>, Arguments, Verdict)> = vec![
        ("fits", none_n(), none_t(), Arguments::default(), pass.clone()),
        ("cordoned", Box::new(|n| n.unschedulable = true), none_t(), Arguments::default(), v(UAU, "node(s) were unschedulable")),
        (
            "cordoned, tolerated",
            Box::new(|n| n.unschedulable = true),
            Box::new(|t| {
                t.tolerations =
                    vec![Toleration { key: "node.kubernetes.io/unschedulable".into(), operator: "Exists".into(), ..Toleration::default() }]
            }),
            Arguments::default(),
            pass.clone(),
        ),
        (
            "selector mismatch",
            none_n(),
            Box::new(|t| t.node_selector = [("zone".to_string(), "b".to_string())].into_iter().collect()),
            Arguments::default(),
            v(UAU, "node(s) didn't match Pod's node affinity/selector"),
        ),
        (
            "selector mismatch, affinity off",
            none_n(),
            Box::new(|t| t.node_selector = [("zone".to_string(), "b".to_string())].into_iter().collect()),
            args(&[("predicate.NodeAffinityEnable", Value::Str("false".into()))]),
            pass.clone(),
        ),
        ("Gt matches", none_n(), Box::new(|t| t.node_affinity = required(vec![term(vec![req("num", "Gt", &["5"])])])), Arguments::default(), pass.clone()),
        (
            "no required terms match nothing",
            none_n(),
            Box::new(|t| t.node_affinity = required(vec![])),
            Arguments::default(),
            v(UAU, "node(s) didn't match Pod's node affinity/selector"),
        ),
        (
            "invalid term matches nothing, the next term matches",
            none_n(),
            Box::new(|t| {
                let bad = NodeSelectorTerm { invalid: true, ..term(vec![req("zone", "In", &["a"])]) };
                t.node_affinity = required(vec![bad, names(&["n1"])]);
            }),
            Arguments::default(),
            pass.clone(),
        ),
        (
            "NotIn on a missing label matches",
            none_n(),
            Box::new(|t| t.node_affinity = required(vec![term(vec![req("rack", "NotIn", &["r1"])])])),
            Arguments::default(),
            pass.clone(),
        ),
        (
            "untolerated NoExecute taint",
            Box::new(|n| n.taints = vec![taint("soft", "", "PreferNoSchedule"), taint("spot", "true", "NoExecute")]),
            none_t(),
            Arguments::default(),
            v(UAU, "node(s) had untolerated taint {spot: true}"),
        ),
        (
            "taint and no pod slot",
            Box::new(|n| {
                n.taints = vec![taint("spot", "true", "NoSchedule")];
                n.pods = 2;
            }),
            none_t(),
            Arguments::default(),
            v(UAU, "node(s) pod number exceeded, node(s) had untolerated taint {spot: true}"),
        ),
        ("insufficient cpu", Box::new(|n| n.idle.milli_cpu = 500), none_t(), Arguments::default(), v(UNSCH, "Insufficient cpu")),
        (
            "releasing counts, pipelined does not",
            Box::new(|n| {
                n.idle.milli_cpu = 500;
                n.releasing.milli_cpu = 1000;
                n.pipelined.milli_cpu = 600;
            }),
            none_t(),
            Arguments::default(),
            v(UNSCH, "Insufficient cpu"),
        ),
        (
            "insufficient scalar",
            none_n(),
            Box::new(|t| t.init_request.scalars = [("nvidia.com/gpu".to_string(), 1000)].into_iter().collect()),
            Arguments::default(),
            v(UNSCH, "Insufficient nvidia.com/gpu"),
        ),
        ("no pod slot", Box::new(|n| n.pods = 2), none_t(), Arguments::default(), v(UNSCH, "node(s) pod number exceeded")),
        (
            "port taken",
            Box::new(|n| n.host_ports = vec![HostPort { ip: "10.0.0.1".into(), port: 8080, protocol: "TCP".into() }]),
            Box::new(|t| t.host_ports = vec![port()]),
            Arguments::default(),
            v(UNSCH, "node(s) didn't have free ports for the requested pod ports"),
        ),
        (
            "port on another protocol",
            Box::new(|n| n.host_ports = vec![HostPort { protocol: "UDP".into(), ..port() }]),
            Box::new(|t| t.host_ports = vec![port()]),
            Arguments::default(),
            pass.clone(),
        ),
        (
            "port taken and no pod slot",
            Box::new(|n| {
                n.host_ports = vec![port()];
                n.pods = 2;
            }),
            Box::new(|t| t.host_ports = vec![port()]),
            Arguments::default(),
            v(UNSCH, "node(s) pod number exceeded, node(s) didn't have free ports for the requested pod ports"),
        ),
        (
            "port taken, ports off",
            Box::new(|n| n.host_ports = vec![port()]),
            Box::new(|t| t.host_ports = vec![port()]),
            args(&[("predicate.NodePortsEnable", Value::Bool(false))]),
            pass,
        ),
    ];
    for (name, edit_node, edit_task, a, want) in cases {
        let (mut n, mut t) = (node("n1", 2), task());
        edit_node(&mut n);
        edit_task(&mut t);
        let (mut p, s) = open(vec![n], vec![t], a);
        assert_eq!(verdicts(&mut p, &s, 0)[0], want, "{}", name);
    }
}

#[test]
fn pre_predicate_name_conflict() {
    let mut both = names(&["n1", "n2"]);
    both.match_fields.push(req(NODE_NAME, "In", &["n3"]));
    for (name, terms, conflict) in [
        ("one name", vec![names(&["n1"])], false),
        ("disjoint names in one term", vec![both.clone()], true),
        ("a term without names", vec![both.clone(), term(vec![])], false),
        ("no terms", vec![], false),
    ] {
        let mut t = task();
        t.node_affinity = required(terms);
        let (mut p, s) = open(vec![node("n1", 10)], vec![t], Arguments::default());
        let got = p.pre_predicate(&s, &s.tasks()[0]);
        assert_eq!(got.code == UAU, conflict, "{}: {:?}", name, got);
    }
}

/// An eviction stops counting the task on its node (a pod slot and its
/// port free up); undoing it counts it again. A placement takes a slot; an
/// undone one gives it back.
#[test]
fn events_follow_volcano_counting() {
    let (mut running, mut pending) = (task(), task());
    running.status = status::RUNNING.into();
    running.node = 0;
    running.host_ports = vec![port()];
    pending.host_ports = vec![port()];
    let mut n = node("n1", 2);
    n.pods = 2;
    n.host_ports = vec![port()];
    let (mut p, mut s) = open(vec![n], vec![running, pending], Arguments::default());
    let check = |p: &mut Predicates, s: &Session, when: &str, want: &str| {
        assert_eq!(verdicts(p, s, 1)[0].reason, want, "{}", when);
    };
    check(&mut p, &s, "at open", REASON_TOO_MANY_AND_PORTS);
    s = with_status(s, 0, status::RELEASING);
    p.on_deallocate(&s, &s.tasks()[0]);
    check(&mut p, &s, "after the eviction", "");
    s = with_status(s, 0, status::RUNNING);
    p.on_allocate(&s, &s.tasks()[0]);
    check(&mut p, &s, "after the eviction is undone", REASON_TOO_MANY_AND_PORTS);

    // The pending task placed on the node takes the freed slot; undoing the
    // placement gives it back.
    let (mut p, s) = open(vec![node("n1", 2)], vec![task(), task()], Arguments::default());
    let mut placed = s.tasks()[0].clone();
    placed.status = status::ALLOCATED.into();
    placed.node = 0;
    p.on_allocate(&s, &placed);
    p.on_allocate(&s, &placed);
    assert_eq!(p.nodes[0].pods, 1, "placed again on the same node counts once");
    p.on_allocate(&s, &Task { handle: 1, ..placed.clone() });
    assert_eq!(verdicts(&mut p, &s, 1)[0].reason, REASON_POD_NUMBER_EXCEEDED);
    placed.status = status::PENDING.into();
    placed.node = -1;
    p.on_deallocate(&s, &placed);
    assert_eq!(verdicts(&mut p, &s, 1)[0], Verdict::PASS, "after the placement is undone");
}

/// The session with task `i`'s status changed, as the SDK's view shows it
/// to the event hooks.
fn with_status(s: Session, i: usize, st: &str) -> Session {
    let mut v = s.view().clone();
    v.tasks[i].status = st.into();
    Session::new(v, s.arguments().clone())
}

/// A plugin serves session after session: the second open starts from its
/// own view, not from what the first counted.
#[test]
fn reopened_session_forgets_the_previous() {
    let mut busy = node("n1", 2);
    busy.pods = 2;
    busy.host_ports = vec![port()];
    let mut pending = task();
    pending.host_ports = vec![port()];
    let (mut p, s) = open(vec![busy], vec![pending.clone()], Arguments::default());
    assert_eq!(verdicts(&mut p, &s, 0)[0].reason, REASON_TOO_MANY_AND_PORTS, "first session");
    let s = Session::new(View { nodes: vec![node("n1", 2)], tasks: vec![pending], ..View::default() }, Arguments::default());
    p.on_session_open(&s).unwrap();
    assert_eq!(verdicts(&mut p, &s, 0)[0], Verdict::PASS, "second session, node free");
}

/// A request short in two scalars is refused for the first by name.
#[test]
fn short_scalars_reported_by_name() {
    let mut t = task();
    t.init_request.scalars = [("vendor.com/b".to_string(), 1), ("vendor.com/a".to_string(), 1)].into_iter().collect();
    let (mut p, s) = open(vec![node("n1", 110)], vec![t], Arguments::default());
    assert_eq!(verdicts(&mut p, &s, 0)[0].reason, "Insufficient vendor.com/a");
}

/// A taint's reason follows the taint from one session to the next.
#[test]
fn reopened_taint_reason_follows_the_taint() {
    let tainted = |value: &str| Node { taints: vec![taint("spot", value, "NoSchedule")], ..node("n1", 110) };
    let (mut p, _) = open(vec![tainted("a")], vec![task()], Arguments::default());
    for value in ["a", "b", "b"] {
        let s = Session::new(View { nodes: vec![tainted(value)], tasks: vec![task()], ..View::default() }, Arguments::default());
        p.on_session_open(&s).unwrap();
        assert_eq!(verdicts(&mut p, &s, 0)[0].reason, format!("node(s) had untolerated taint {{spot: {}}}", value));
    }
}

/// Through the pod rules: a pod placed on a node keeps its group's
/// hostname anti-affinity off it once pre_predicate has caught up, after
/// the pod-count reason; where resources are short too, the unresolvable
/// rules rule the node out for preemption. The scheduler's checks place
/// their reasons around the rules' in Volcano's order.
#[test]
fn pod_rules_and_claim_checks_in_volcano_order() {
    let sel = Selector { requirements: vec![req("app", "In", &["db"])] };
    let anti_term = PodAffinityTerm { selector: Some(sel), namespaces: vec!["ns".into()], topology_key: "zone".into(), ..PodAffinityTerm::default() };
    let db = || Task {
        namespace: "ns".into(),
        labels: [("app".to_string(), "db".to_string())].into_iter().collect(),
        pod_anti_affinity: Some(PodAffinity { required: vec![anti_term.clone()], ..PodAffinity::default() }),
        ..task()
    };
    let mut busy = node("n1", 2);
    busy.pods = 2;
    let (mut p, s) = open(vec![busy, node("n2", 110)], vec![db(), db()], Arguments::default());
    assert!(!p.predicates_node_local_in(&s), "pod rules read other nodes");
    assert!(!p.pre_predicates_by_shape(&s));
    assert_eq!(p.pre_predicate(&s, &s.tasks()[1]), Verdict::PASS);
    let mut placed = s.tasks()[0].clone();
    placed.status = status::ALLOCATED.into();
    placed.node = 0;
    p.on_allocate(&s, &placed);
    assert_eq!(
        verdicts(&mut p, &s, 1),
        [Verdict::reject(REASON_POD_NUMBER_EXCEEDED), Verdict::PASS],
        "the pod counts at once, the rules as of the last pre_predicate"
    );
    assert_eq!(p.pre_predicate(&s, &s.tasks()[1]), Verdict::PASS);
    let anti = "node(s) didn't match pod anti-affinity rules";
    // n2 shares zone a with n1.
    let both = format!("{}, {}", REASON_POD_NUMBER_EXCEEDED, anti);
    assert_eq!(verdicts(&mut p, &s, 1), [Verdict::reject(both.clone()), Verdict::reject(anti)]);

    let check = |stage, code, reason: &str| ClaimCheck { stage, code, reasons: vec![reason.into()] };
    let limits = check(ClaimStage::Limits, UNSCH, "node(s) exceed max volume count");
    let binding = check(ClaimStage::Binding, UNSCH, "node(s) didn't find available persistent volumes to bind");
    let mut s = s;
    s.set_node_claims(Some(vec![Some(NodeClaims { ruled_out: false, checks: vec![limits.clone(), binding.clone()] }), None]));
    assert_eq!(
        verdicts(&mut p, &s, 1)[0],
        Verdict::reject(format!("{}, {}, {}", both, limits.reasons[0], binding.reasons[0])),
        "limits after affinity, binding last"
    );
    let zone = check(ClaimStage::Zone, UAU, "node(s) had no available volume zone");
    s.set_node_claims(Some(vec![Some(NodeClaims { ruled_out: true, checks: vec![limits.clone(), zone.clone()] }), None]));
    assert_eq!(verdicts(&mut p, &s, 1)[0], Verdict::unresolvable(format!("{}, {}, {}", both, limits.reasons[0], zone.reasons[0])));

    // Short of cpu: the code says whether preemption could help.
    let mut t = db();
    t.init_request.milli_cpu = 8000;
    let (mut p, mut s) = open(vec![node("n1", 110), node("n2", 110)], vec![db(), t], Arguments::default());
    s.set_node_claims(Some(vec![None, Some(NodeClaims { ruled_out: true, checks: vec![zone] })]));
    assert_eq!(verdicts(&mut p, &s, 1), [Verdict::reject("Insufficient cpu"), Verdict::unresolvable("Insufficient cpu")]);
}
