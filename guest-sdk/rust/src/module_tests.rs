//! The dispatcher: declared hooks, the descriptor, events reaching the
//! plugin, deltas, and the failures a confused host gets.

use crate::golden_tests::{args, reply, request};
use crate::arguments::Argument;
use crate::event::*;
use crate::hooks::*;
use crate::module::*;
use crate::msgpack::{Reader, Writer};
use crate::session::Session;
use crate::view::{status, Job, Node, PodAffinity, Resource, Taint, Task, View};

#[derive(Default)]
struct Counter {
    allocated: Vec<String>,
    deallocated: Vec<String>,
    enqueued: Vec<String>,
}

impl Plugin for Counter {
    const NAME: &'static str = "counter";
    const STABLE_ORDER_KEYS: bool = true;
    const LOCAL_ORDER_KEYS: bool = true;
    const NODE_LOCAL_PREDICATES: bool = true;
    const ARGUMENTS: &'static [Argument] = &[
        Argument::bool("counter.enabled", true),
        Argument::int("counter.weight", 300),
        Argument::int("counter.floor", -1),
        Argument::float("counter.ratio", 0.5),
        Argument::str("counter.resource", "nvidia.com/gpu"),
    ];

    fn on_allocate(&mut self, _: &Session, t: &Task) {
        self.allocated.push(format!("{}:{}", t.name, t.status));
    }

    fn on_deallocate(&mut self, _: &Session, t: &Task) {
        self.deallocated.push(format!("{}:{}", t.name, t.status));
    }

    fn on_job_enqueued(&mut self, _: &Session, j: &Job) {
        self.enqueued.push(j.name.clone());
    }
}

impl TaskOrder for Counter {
    type Key = [f64; 2];
    fn task_order_key(&mut self, _: &Session, t: &Task) -> [f64; 2] {
        [t.priority as f64, 0.5]
    }
}

impl JobStarving for Counter {
    fn job_starving(&mut self, s: &Session, j: &Job) -> bool {
        s.tasks_of(j).any(|t| t.status == status::PENDING)
    }
}

impl BestNode for Counter {
    fn best_node<'s>(&mut self, _: &'s Session, _: &'s Task, nodes: &[&'s Node], scores: &[f64]) -> Option<&'s Node> {
        nodes.iter().zip(scores).find(|(_, &s)| s < 0.0).map(|(n, _)| *n)
    }
}

fn module() -> Module<Counter> {
    Module::new(Counter::default(), crate::__hooks!(Counter))
}

pub(crate) fn view() -> View {
    let cpu = |m| Resource { milli_cpu: m, ..Resource::default() };
    View {
        nodes: vec![
            Node { name: "n0".into(), allocatable: cpu(4000), idle: cpu(4000), ..Node::default() },
            Node { name: "n1".into(), allocatable: cpu(4000), idle: cpu(4000), ..Node::default() },
        ],
        jobs: vec![Job { name: "j".into(), ..Job::default() }],
        tasks: vec![
            Task { name: "t0".into(), request: cpu(1000), priority: 3, ..Task::default() },
            Task { name: "t1".into(), request: cpu(1000), ..Task::default() },
        ],
        ..View::default()
    }
}

/// session_open with a whole view, encoded by rmp-serde as maps.
pub(crate) fn open_request(v: &View) -> Vec<u8> {
    let view = rmp_serde::to_vec_named(v).unwrap();
    let mut b = request(&[], |w| {
        w.map(1);
        w.str("view");
    });
    b.extend_from_slice(&view);
    b
}

pub(crate) fn call<P: Plugin>(m: &mut Module<P>, hook: u32, req: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    m.call(hook, req, &mut out);
    out
}

#[test]
fn export_declares_exactly_the_implemented_hooks() {
    let names = crate::__hooks!(Counter).names();
    assert_eq!(names, ["session_open", "session_close", "task_order_keys", "best_node", "job_starving"]);

    let mut out = Vec::new();
    module().describe(&mut out);
    let mut r = Reader::new(&out);
    assert_eq!(r.map_len().unwrap(), 10);
    let mut seen = Vec::new();
    for _ in 0..10 {
        let key = r.str().unwrap().to_string();
        match key.as_str() {
            "name" => assert_eq!(r.str().unwrap(), "counter"),
            "abi" => {
                assert_eq!(r.array_len().unwrap(), 2);
                assert_eq!((r.int().unwrap(), r.int().unwrap()), (1, 12));
            }
            "hooks" => {
                assert_eq!(r.array_len().unwrap() as usize, names.len());
                for n in &names {
                    assert_eq!(r.str().unwrap(), *n);
                }
            }
            "arguments" => {
                assert_eq!(r.array_len().unwrap(), 5);
                let mut args = Vec::new();
                for _ in 0..5 {
                    assert_eq!(r.map_len().unwrap(), 3);
                    assert_eq!(r.str().unwrap(), "name");
                    let name = r.str().unwrap().to_string();
                    assert_eq!(r.str().unwrap(), "type");
                    let ty = r.str().unwrap().to_string();
                    assert_eq!(r.str().unwrap(), "default");
                    let default = match ty.as_str() {
                        "bool" => r.bool().unwrap().to_string(),
                        "int" => r.int().unwrap().to_string(),
                        "float" => r.f64().unwrap().to_string(),
                        _ => r.str().unwrap().to_string(),
                    };
                    args.push(format!("{} {} {}", name, ty, default));
                }
                assert_eq!(
                    args,
                    [
                        "counter.enabled bool true",
                        "counter.weight int 300",
                        "counter.floor int -1",
                        "counter.ratio float 0.5",
                        "counter.resource string nvidia.com/gpu"
                    ]
                );
            }
            "stableKeys" | "localKeys" | "deltas" | "undoEvents" | "nodeLocal" => assert!(r.bool().unwrap(), "{}", key),
            "sdk" => assert_eq!(r.str().unwrap(), SDK_VERSION),
            other => panic!("unexpected key {}", other),
        }
        seen.push(key);
    }
    assert_eq!(seen, ["name", "abi", "hooks", "arguments", "stableKeys", "localKeys", "deltas", "undoEvents", "nodeLocal", "sdk"]);
    assert!(r.is_empty(), "bytes after the descriptor");
}

#[test]
fn descriptor_leaves_out_undeclared_arguments() {
    #[derive(Default)]
    struct Plain;
    impl Plugin for Plain {
        const NAME: &'static str = "plain";
    }
    let mut out = Vec::new();
    Module::new(Plain, crate::__hooks!(Plain)).describe(&mut out);
    let mut r = Reader::new(&out);
    let n = r.map_len().unwrap();
    let mut keys = Vec::new();
    for _ in 0..n {
        keys.push(r.str().unwrap().to_string());
        r.skip().unwrap();
    }
    assert_eq!(keys, ["name", "abi", "hooks", "stableKeys", "localKeys", "deltas", "undoEvents", "sdk"]);
    assert!(r.is_empty(), "bytes after the descriptor");
}

#[test]
fn events_update_the_view_and_reach_the_plugin() {
    let mut m = module();
    assert_eq!(reply(&call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()))).0, 0);
    let req = request(&[[1, 0, 1], [2, 1, 0], [6, 0, -1], [3, 1, -1], [4, 0, 1], [5, 0, 1]], args(&[], &[("job", 0)]));
    let out = call(&mut m, HOOK_JOB_STARVING, &req);
    assert_eq!(reply(&out), (0, String::new()));
    assert_eq!(*out.last().unwrap(), 0xc3, "t1 was deallocated: the job starves");
    let p = &m.plugin;
    assert_eq!(p.allocated, ["t0:Allocated", "t1:Pipelined", "t0:Running"]);
    assert_eq!(p.deallocated, ["t1:Pending", "t0:Releasing"]);
    assert_eq!(p.enqueued, ["j"]);
    let v = m.session.as_ref().unwrap().view();
    assert_eq!((v.nodes[1].idle.milli_cpu, v.nodes[1].releasing.milli_cpu, v.nodes[0].pipelined.milli_cpu), (3000, 0, 0));
}

#[test]
fn keys_and_picks_are_encoded_per_object() {
    let mut m = module();
    call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()));
    let out = call(&mut m, HOOK_TASK_ORDER_KEYS, &request(&[], args(&[("tasks", &[1, 0])], &[])));
    let mut want = Vec::new();
    let mut w = Writer(&mut want);
    w.array(3);
    w.int(0);
    w.str("");
    w.array(2);
    for p in [0.0, 3.0] {
        w.array(2);
        w.f64(p);
        w.f64(0.5);
    }
    assert_eq!(out, want);

    let best = |scores: &[f64]| {
        let mut b = Vec::new();
        let mut w = Writer(&mut b);
        w.map(1);
        w.str("a");
        w.map(3);
        w.str("task");
        w.int(0);
        w.str("nodes");
        w.array(2);
        w.int(0);
        w.int(1);
        w.str("scores");
        w.array(scores.len());
        for &s in scores {
            w.f64(s);
        }
        b
    };
    let out = call(&mut m, HOOK_BEST_NODE, &best(&[3.0, -1.0]));
    assert_eq!(*out.last().unwrap(), 1, "node 1");
    let out = call(&mut m, HOOK_BEST_NODE, &best(&[3.0, 1.0]));
    assert_eq!(*out.last().unwrap(), 0xff, "-1: no pick");
    let (code, msg) = reply(&call(&mut m, HOOK_BEST_NODE, &best(&[3.0])));
    assert_eq!((code, msg.as_str()), (65, "best_node: 1 scores for 2 nodes"));
}

#[test]
fn a_confused_host_gets_clear_codes() {
    let mut m = module();
    let none = request(&[], args(&[], &[("job", 0)]));
    assert_eq!(reply(&call(&mut m, HOOK_JOB_STARVING, &none)), (65, "no session is open".to_string()));
    call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()));
    assert_eq!(reply(&call(&mut m, HOOK_OVERUSED, &none)), (64, "overused is not implemented".to_string()));
    assert_eq!(reply(&call(&mut m, 99, &none)).0, 64);
    let bad = request(&[], args(&[], &[("job", 7)]));
    assert_eq!(reply(&call(&mut m, HOOK_JOB_STARVING, &bad)), (65, "job handle 7 of 1".to_string()));
    let bad_event = request(&[[1, 9, 0]], args(&[], &[("job", 0)]));
    assert_eq!(reply(&call(&mut m, HOOK_JOB_STARVING, &bad_event)), (65, "event 1 names task 9 of 2".to_string()));
    assert_eq!(reply(&call(&mut m, HOOK_JOB_STARVING, b"\x93")).0, 65, "not a map");
}

/// `{delta: {tasks: {len, full, set}}}`.
fn delta(len: i32, full: bool, set: &[(i32, &Task)]) -> Vec<u8> {
    request(&[], |w| {
        w.map(1);
        w.str("delta");
        w.map(1);
        w.str("tasks");
        w.map(3);
        w.str("len");
        w.int(i64::from(len));
        w.str("full");
        w.bool(full);
        w.str("set");
        w.array(set.len());
        for (h, t) in set {
            w.array(2);
            w.int(i64::from(*h));
            w.0.extend_from_slice(&rmp_serde::to_vec_named(t).unwrap());
        }
    })
}

#[test]
fn deltas_apply_to_the_view_the_last_session_received() {
    let mut m = module();
    // No earlier view: the host must send the whole view.
    let t = Task { name: "new".into(), ..Task::default() };
    let (code, msg) = reply(&call(&mut m, HOOK_SESSION_OPEN, &delta(2, false, &[(1, &t)])));
    assert_eq!((code, msg.as_str()), (65, "session_open: a delta arrived but this instance holds no earlier view"));

    call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()));
    call(&mut m, HOOK_SESSION_CLOSE, &request(&[[1, 0, 0]], |w| w.nil()));
    assert_eq!(reply(&call(&mut m, HOOK_SESSION_OPEN, &delta(2, false, &[(1, &t)]))).0, 0);
    {
        let s = m.session.as_ref().unwrap();
        let names: Vec<_> = s.tasks().iter().map(|t| (t.name.as_str(), t.handle)).collect();
        assert_eq!(names, [("t0", 0), ("new", 1)]);
        assert_eq!(s.tasks()[0].status, view().tasks[0].status, "back as it arrived: the session's events are undone");
        assert_eq!(s.nodes()[0].idle.milli_cpu, 4000);
        assert_eq!(s.tasks_of(&s.jobs()[0]).count(), 2);
    }
    call(&mut m, HOOK_SESSION_CLOSE, &request(&[], |w| w.nil()));
    // A whole list replaces the held one.
    assert_eq!(reply(&call(&mut m, HOOK_SESSION_OPEN, &delta(1, true, &[(0, &t)]))).0, 0);
    assert_eq!(m.session.as_ref().unwrap().tasks().len(), 1);
    call(&mut m, HOOK_SESSION_CLOSE, &request(&[], |w| w.nil()));
    // A length that does not match the held list is refused.
    let (code, msg) = reply(&call(&mut m, HOOK_SESSION_OPEN, &delta(5, false, &[])));
    assert_eq!((code, msg.as_str()), (65, "session_open: delta tasks: the delta is for 5 objects, the view holds 1"));
}

#[test]
fn a_session_closes_with_its_events_undone() {
    let mut v = view();
    v.nodes[1].idle.scalars.insert("pods".into(), 110);
    v.tasks[0].request.scalars.insert("nvidia.com/gpu".into(), 1000);
    let mut fresh = module();
    call(&mut fresh, HOOK_SESSION_OPEN, &open_request(&v));
    let want = fresh.session.as_ref().unwrap().view().clone();

    let mut m = module();
    call(&mut m, HOOK_SESSION_OPEN, &open_request(&v));
    let events = [[6, 0, -1], [1, 0, 1], [7, 0, 1], [2, 1, 0], [3, 1, -1], [1, 1, 1], [4, 0, 1]];
    assert_eq!(reply(&call(&mut m, HOOK_SESSION_CLOSE, &request(&events, |w| w.nil()))).0, 0);
    assert_eq!(m.last.as_ref().unwrap(), &want, "the view kept for the next delta is the view as it arrived");

    // The next session records afresh from the restored values.
    call(&mut m, HOOK_SESSION_OPEN, &delta(2, false, &[]));
    {
        let s = m.session.as_ref().unwrap();
        assert_eq!(s.view(), &want);
    }
    call(&mut m, HOOK_SESSION_CLOSE, &request(&[[1, 1, 0]], |w| w.nil()));
    assert_eq!(m.last.as_ref().unwrap(), &want);
}

/// Reads other pods when a task of the session has inter-pod anti-affinity,
/// as the predicates port does, and notes whether each predicate_batch is
/// part of a victim trial.
#[derive(Default)]
struct Rules {
    pod_rules: bool,
    trials: Vec<bool>,
}

impl Plugin for Rules {
    const NAME: &'static str = "rules";
    const NODE_LOCAL_PREDICATES: bool = true;

    fn on_session_open(&mut self, s: &Session) -> Result<(), Error> {
        self.pod_rules = s.tasks().iter().any(|t| t.pod_anti_affinity.is_some());
        Ok(())
    }

    fn predicates_node_local_in(&self, _: &Session) -> bool {
        !self.pod_rules
    }
}

impl Predicate for Rules {
    fn predicate_batch(&mut self, s: &Session, _: &Task, _: &[&Node], _: &mut [Verdict]) {
        self.trials.push(s.in_victim_trial());
    }
}

/// A predicate_batch request for task 0 on both nodes, with `trial` when
/// given.
fn predicate_batch(trial: Option<bool>) -> Vec<u8> {
    request(&[], |w| {
        w.map(2 + usize::from(trial.is_some()));
        w.str("task");
        w.int(0);
        w.str("nodes");
        w.array(2);
        w.int(0);
        w.int(1);
        if let Some(on) = trial {
            w.str("trial");
            w.bool(on);
        }
    })
}

#[test]
fn predicate_batch_tells_a_victim_trial() {
    let mut m = Module::new(Rules::default(), crate::__hooks!(Rules));
    call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()));
    for trial in [Some(true), None, Some(false), Some(true)] {
        assert_eq!(reply(&call(&mut m, HOOK_PREDICATE_BATCH, &predicate_batch(trial))), (0, String::new()), "trial {:?}", trial);
        assert!(!m.session.as_ref().unwrap().in_victim_trial(), "a trial lasts one call");
    }
    assert_eq!(m.plugin.trials, [true, false, false, true]);

    let bad = request(&[], |w| {
        w.map(1);
        w.str("trial");
        w.int(1);
    });
    assert_eq!(reply(&call(&mut m, HOOK_PREDICATE_BATCH, &bad)).0, 65, "trial is a bool");
    assert_eq!(m.plugin.trials.len(), 4);
}

#[test]
fn session_open_withdraws_node_local_verdicts_when_the_plugin_says_so() {
    let nil = b"\x93\x00\xa0\xc0".to_vec();
    let mut withdrawn = b"\x93\x00\xa0".to_vec();
    let mut w = Writer(&mut withdrawn);
    w.map(1);
    w.str("nodeLocalWithdrawn");
    w.bool(true);

    let mut rules = view();
    rules.tasks[1].pod_anti_affinity = Some(PodAffinity::default());
    let mut m = Module::new(Rules::default(), crate::__hooks!(Rules));
    for (v, want, what) in [(&view(), &nil, "no pod rules"), (&rules, &withdrawn, "pod rules"), (&view(), &nil, "no pod rules again")] {
        assert_eq!(&call(&mut m, HOOK_SESSION_OPEN, &open_request(v)), want, "{}", what);
        call(&mut m, HOOK_SESSION_CLOSE, &request(&[], |w| w.nil()));
    }

    // A plugin that made no promise has none to withdraw.
    #[derive(Default)]
    struct Unpromised;
    impl Plugin for Unpromised {
        const NAME: &'static str = "unpromised";
        fn predicates_node_local_in(&self, _: &Session) -> bool {
            false
        }
    }
    let mut m = Module::new(Unpromised, crate::__hooks!(Unpromised));
    assert_eq!(call(&mut m, HOOK_SESSION_OPEN, &open_request(&rules)), nil);
}

#[test]
fn session_open_sends_node_local_classes_with_the_withdrawal() {
    #[derive(Default)]
    struct Classed;
    impl Plugin for Classed {
        const NAME: &'static str = "classed";
        const NODE_LOCAL_PREDICATES: bool = true;
        fn predicates_node_local_in(&self, _: &Session) -> bool {
            false
        }
        fn predicates_node_local_classes(&self, _: &Session, classes: &mut [i32]) -> bool {
            classes[0] = 0;
            true
        }
    }
    let v = view();
    let mut want = b"\x93\x00\xa0".to_vec();
    let mut w = Writer(&mut want);
    w.map(2);
    w.str("nodeLocalWithdrawn");
    w.bool(true);
    w.str("nodeLocalClasses");
    w.array(v.tasks.len());
    w.int(0);
    for _ in 1..v.tasks.len() {
        w.int(-1);
    }
    let mut m = Module::new(Classed, crate::__hooks!(Classed));
    assert_eq!(call(&mut m, HOOK_SESSION_OPEN, &open_request(&v)), want);
}

/// Node-local scores are promised per session, and scoring without rules
/// only to a scheduler of ABI 1.5 or later, which says its version.
#[test]
fn session_open_promises_node_local_scores_when_the_plugin_says_so() {
    #[derive(Default)]
    struct Scorer;
    impl Plugin for Scorer {
        const NAME: &'static str = "scorer";
        /// Node-local while no task has pod rules, and then rule-free.
        fn scores_node_local(&self, s: &Session) -> bool {
            s.tasks().iter().all(|t| t.pod_anti_affinity.is_none())
        }
        fn scores_read_no_rules(&self, _: &Session) -> bool {
            true
        }
    }
    let open = |v: &View, abi: Option<[i64; 2]>| {
        let view = rmp_serde::to_vec_named(v).unwrap();
        let mut b = request(&[], |w| {
            w.map(if abi.is_some() { 2 } else { 1 });
            if let Some(abi) = abi {
                w.str("abi");
                w.array(2);
                w.int(abi[0]);
                w.int(abi[1]);
            }
            w.str("view");
        });
        b.extend_from_slice(&view);
        b
    };
    let mut rules = view();
    rules.tasks[1].pod_anti_affinity = Some(PodAffinity::default());
    let mut m = Module::new(Scorer, crate::__hooks!(Scorer));
    for (v, abi, want) in [
        (&view(), Some([1, 10]), promised(&["nodeLocalScores", "scoreShapeWithoutRules"])),
        (&view(), Some([1, 4]), promised(&["nodeLocalScores"])),
        (&view(), None, promised(&["nodeLocalScores"])),
        (&rules, Some([1, 10]), b"\x93\x00\xa0\xc0".to_vec()),
    ] {
        assert_eq!(call(&mut m, HOOK_SESSION_OPEN, &open(v, abi)), want, "abi {:?}", abi);
        call(&mut m, HOOK_SESSION_CLOSE, &request(&[], |w| w.nil()));
    }
}

/// Pre-predicate verdicts by shape are promised per session, in the Go
/// SDK's key order among the other promises.
#[test]
fn session_open_promises_pre_predicates_by_shape_when_the_plugin_says_so() {
    #[derive(Default)]
    struct ByShape;
    impl Plugin for ByShape {
        const NAME: &'static str = "byshape";
        const NODE_LOCAL_PREDICATES: bool = true;
        /// By shape and node-local while no task has pod rules.
        fn pre_predicates_by_shape(&self, s: &Session) -> bool {
            s.tasks().iter().all(|t| t.pod_anti_affinity.is_none())
        }
        fn predicates_node_local_in(&self, s: &Session) -> bool {
            self.pre_predicates_by_shape(s)
        }
        fn scores_node_local(&self, _: &Session) -> bool {
            true
        }
    }
    let mut rules = view();
    rules.tasks[1].pod_anti_affinity = Some(PodAffinity::default());
    let mut m = Module::new(ByShape, crate::__hooks!(ByShape));
    for (v, want) in [
        (&view(), promised(&["nodeLocalScores", "prePredicateByShape"])),
        (&rules, promised(&["nodeLocalScores", "nodeLocalWithdrawn"])),
    ] {
        assert_eq!(call(&mut m, HOOK_SESSION_OPEN, &open_request(v)), want);
        call(&mut m, HOOK_SESSION_CLOSE, &request(&[], |w| w.nil()));
    }
}

/// Counts placements and, at close, notes the first task's status.
#[derive(Default)]
struct Closing {
    allocated: usize,
    at_close: Vec<String>,
}

impl Plugin for Closing {
    const NAME: &'static str = "closing";

    fn on_allocate(&mut self, _: &Session, _: &Task) {
        self.allocated += 1;
    }

    fn on_session_close(&mut self, s: &Session) {
        self.at_close.push(s.tasks()[0].status.clone());
    }
}

#[test]
fn close_events_reach_only_a_plugin_that_closes() {
    // Counter keeps the trait's on_session_close: the first close tells
    // the SDK so, and the placements sent with later closes are skipped.
    let mut m = module();
    for _ in 0..3 {
        call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()));
        assert_eq!(reply(&call(&mut m, HOOK_SESSION_CLOSE, &request(&[[1, 0, 0]], |w| w.nil()))).0, 0);
    }
    assert_eq!(m.plugin.allocated, ["t0:Allocated"], "on_allocate ran for the first close only");

    let mut m = Module::new(Closing::default(), crate::__hooks!(Closing));
    for _ in 0..3 {
        call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()));
        assert_eq!(reply(&call(&mut m, HOOK_SESSION_CLOSE, &request(&[[1, 0, 0]], |w| w.nil()))).0, 0);
    }
    assert_eq!(m.plugin.allocated, 3);
    assert_eq!(m.plugin.at_close, [status::ALLOCATED; 3], "on_session_close sees every placement");
}

/// An event handler that is a policy too: it drops pods of a retired
/// scheduler and gives nodes a label, and notes the events it saw.
#[derive(Default)]
struct Relabel {
    seen: Vec<String>,
}

impl Plugin for Relabel {
    const NAME: &'static str = "relabel";
}

impl CacheEventHandler for Relabel {
    const EVENT_KINDS: &'static [&'static str] = &[kind::NODE, kind::POD];

    fn on_cache_event(&mut self, ev: &CacheEvent) -> EventVerdict {
        let name = ev.new.as_ref().or(ev.old.as_ref()).map_or("", |o| o.name.as_str());
        let tag = ev.arguments.get("tag").map_or(String::new(), |v| format!(" {}", v));
        self.seen.push(format!("{} {} {}{}", ev.event_type, ev.kind, name, tag));
        match (ev.kind.as_str(), &ev.new) {
            ("Pod", Some(p)) if p.scheduler_name == "retired" => EventVerdict::Drop,
            ("Node", Some(n)) => {
                let mut labels = n.labels.clone();
                labels.insert("seen-by".into(), "relabel".into());
                EventVerdict::Adjust(Adjustment { labels: Some(labels), taints: Some(Vec::new()), ..Adjustment::default() })
            }
            _ => EventVerdict::Pass,
        }
    }
}

impl JobReady for Relabel {
    fn job_ready(&mut self, _: &Session, _: &Job) -> bool {
        true
    }
}

/// One event of a batch: (type, kind, new).
type Ev<'a> = (&'a str, &'a str, Option<&'a Object>);

/// A cache_event request `{a: {events: [...], arguments?}}`.
fn cache_events(events: &[Ev<'_>], arguments: Option<(&str, &str)>) -> Vec<u8> {
    request(&[], |w| {
        w.map(1 + usize::from(arguments.is_some()));
        w.str("events");
        w.array(events.len());
        for (ev_type, kind, new) in events {
            w.map(4);
            w.str("type");
            w.str(ev_type);
            w.str("kind");
            w.str(kind);
            w.str("old");
            w.nil();
            w.str("new");
            match new {
                Some(o) => w.0.extend_from_slice(&rmp_serde::to_vec_named(o).unwrap()),
                None => w.nil(),
            }
        }
        if let Some((k, v)) = arguments {
            w.str("arguments");
            w.map(1);
            w.str(k);
            w.str(v);
        }
    })
}

/// An OK reply whose result is the array of `verdicts` (each encoded
/// already).
fn verdicts_reply(verdicts: &[&[u8]]) -> Vec<u8> {
    let mut want = b"\x93\x00\xa0".to_vec();
    Writer(&mut want).array(verdicts.len());
    for v in verdicts {
        want.extend_from_slice(v);
    }
    want
}

const PASS: &[u8] = b"\x81\xa6action\xa4pass";
const DROP: &[u8] = b"\x81\xa6action\xa4drop";

/// The keys of a descriptor, with eventKinds' values.
pub(crate) fn descriptor_keys(out: &[u8]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut r = Reader::new(out);
    let (mut keys, mut hooks, mut kinds) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..r.map_len().unwrap() {
        let k = r.str().unwrap().to_string();
        match k.as_str() {
            "hooks" | "eventKinds" => {
                let list = if k == "hooks" { &mut hooks } else { &mut kinds };
                for _ in 0..r.array_len().unwrap() {
                    list.push(r.str().unwrap().to_string());
                }
            }
            _ => r.skip().unwrap(),
        }
        keys.push(k);
    }
    assert!(r.is_empty(), "bytes after the descriptor");
    (keys, hooks, kinds)
}

#[test]
fn a_handler_declares_its_hook_and_kinds() {
    let mut out = Vec::new();
    Module::new(Relabel::default(), crate::__hooks!(Relabel)).describe(&mut out);
    let (keys, hooks, kinds) = descriptor_keys(&out);
    assert_eq!(keys, ["name", "abi", "hooks", "eventKinds", "stableKeys", "localKeys", "deltas", "undoEvents", "sdk"]);
    // cache_event last, after every policy hook, as the Go SDK lists it.
    assert_eq!(hooks, ["session_open", "session_close", "job_ready", "cache_event"]);
    assert_eq!(kinds, ["Node", "Pod"]);

    // Every kind: no eventKinds.
    #[derive(Default)]
    struct All;
    impl Plugin for All {
        const NAME: &'static str = "all";
    }
    impl CacheEventHandler for All {
        fn on_cache_event(&mut self, _: &CacheEvent) -> EventVerdict {
            EventVerdict::Pass
        }
    }
    Module::new(All, crate::__hooks!(All)).describe(&mut out);
    let (keys, hooks, _) = descriptor_keys(&out);
    assert_eq!(keys, ["name", "abi", "hooks", "stableKeys", "localKeys", "deltas", "undoEvents", "sdk"]);
    assert_eq!(hooks, ["session_open", "session_close", "cache_event"]);
}

#[test]
fn a_batch_gets_a_verdict_per_event_in_order() {
    let mut m = Module::new(Relabel::default(), crate::__hooks!(Relabel));
    let retired = Object { name: "p".into(), scheduler_name: "retired".into(), ..Object::default() };
    let kept = Object { name: "q".into(), ..Object::default() };
    let node = Object {
        name: "n1".into(),
        labels: [("zone".to_string(), "a".to_string())].into_iter().collect(),
        taints: vec![Taint { key: "gpu".into(), value: "true".into(), effect: "NoSchedule".into() }],
        ..Object::default()
    };
    let mut adjusted = Vec::new();
    let mut w = Writer(&mut adjusted);
    w.map(3);
    w.str("action");
    w.str("adjust");
    w.str("labels");
    w.map(2);
    for (k, v) in [("seen-by", "relabel"), ("zone", "a")] {
        w.str(k);
        w.str(v);
    }
    w.str("taints");
    w.array(0);

    // No session_open first; every event gets the batch's arguments.
    let batch = [("add", "Pod", Some(&retired)), ("update", "Node", Some(&node)), ("add", "Pod", Some(&kept)), ("delete", "Pod", None)];
    let out = call(&mut m, HOOK_CACHE_EVENT, &cache_events(&batch, Some(("tag", "t1"))));
    assert_eq!(out, verdicts_reply(&[DROP, &adjusted, PASS, PASS]));
    assert_eq!(m.plugin.seen, ["add Pod p t1", "update Node n1 t1", "add Pod q t1", "delete Pod  t1"]);
    assert!(m.session.is_none(), "cache_event opens no session");

    // A batch of one, during a session, which it leaves alone; verdicts of
    // the previous batch are not repeated.
    m.plugin.seen.clear();
    call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()));
    let out = call(&mut m, HOOK_CACHE_EVENT, &cache_events(&[("add", "Pod", Some(&retired))], None));
    assert_eq!(out, verdicts_reply(&[DROP]));
    assert_eq!(m.session.as_ref().unwrap().nodes().len(), 2);
    let out = call(&mut m, HOOK_JOB_READY, &request(&[], args(&[], &[("job", 0)])));
    assert_eq!(reply(&out), (0, String::new()));
    assert_eq!(m.plugin.seen, ["add Pod p"], "no arguments: none");

    // An empty batch, nil events, no events or nil args: no verdicts, no
    // call to the handler.
    m.plugin.seen.clear();
    let no_events: &[&dyn Fn(&mut Writer<'_>)] = &[
        &|w| {
            w.map(1);
            w.str("events");
            w.array(0);
        },
        &|w| {
            w.map(1);
            w.str("events");
            w.nil();
        },
        &|w| w.map(0),
        &|w| w.nil(),
    ];
    for (i, args) in no_events.iter().enumerate() {
        assert_eq!(call(&mut m, HOOK_CACHE_EVENT, &request(&[], args)), verdicts_reply(&[]), "request {}", i);
    }
    assert!(m.plugin.seen.is_empty());
}

#[test]
fn a_batch_that_cannot_be_decoded_fails_whole() {
    let mut m = Module::new(Relabel::default(), crate::__hooks!(Relabel));
    // The second event has no type: the first is not handled either.
    let node = Object { name: "n1".into(), ..Object::default() };
    let mut req = cache_events(&[("add", "Node", Some(&node))], None);
    // Turn the one-event array into a two-event one, the second empty.
    let at = req.iter().position(|&b| b == 0x91).unwrap();
    req[at] = 0x92;
    req.push(0x80);
    let (code, msg) = reply(&call(&mut m, HOOK_CACHE_EVENT, &req));
    assert_eq!((code, msg.as_str()), (65, "cache_event: missing field `type`"));
    assert!(m.plugin.seen.is_empty());

    // The single-event request of before the batches.
    let old = request(&[], |w| {
        w.map(2);
        w.str("type");
        w.str("add");
        w.str("kind");
        w.str("Node");
    });
    let (code, _) = reply(&call(&mut m, HOOK_CACHE_EVENT, &old));
    assert_eq!(code, 0, "a map without events is an empty batch");
    let (code, msg) = reply(&call(&mut m, HOOK_CACHE_EVENT, &request(&[], |w| w.str("events"))));
    assert_eq!(code, 65, "{}", msg);
    let (code, msg) = reply(&call(
        &mut m,
        HOOK_CACHE_EVENT,
        &request(&[], |w| {
            w.map(1);
            w.str("events");
            w.int(5);
        }),
    ));
    assert_eq!(code, 65, "{}", msg);
    assert!(m.plugin.seen.is_empty());
}

#[test]
fn a_policy_is_not_a_handler() {
    let mut m = module();
    let node = Object { name: "n1".into(), ..Object::default() };
    let (code, msg) = reply(&call(&mut m, HOOK_CACHE_EVENT, &cache_events(&[("add", "Node", Some(&node))], None)));
    assert_eq!((code, msg.as_str()), (64, "cache_event is not implemented"));
}

/// A session_open reply with status OK and these promises, each true.
fn promised(keys: &[&str]) -> Vec<u8> {
    let mut b = b"\x93\x00\xa0".to_vec();
    let mut w = Writer(&mut b);
    w.map(keys.len());
    for k in keys {
        w.str(k);
        w.bool(true);
    }
    b
}

/// Gives a task placed on n1 a card, refuses one placed on n0, and says
/// nothing about the rest; notes the placement each answer saw.
#[derive(Default)]
struct Cards {
    seen: Vec<String>,
}

impl Plugin for Cards {
    const NAME: &'static str = "cards";
}

impl Allocate for Cards {
    fn allocate(&mut self, s: &Session, t: &Task, now: i64) -> Result<Annotations, String> {
        let node = s.node_of(t).map_or("-", |n| n.name.as_str());
        self.seen.push(format!("{}:{}:{}@{}", t.name, t.status, node, now));
        match (node, t.priority) {
            ("n1", _) => Ok([("volcano.sh/gpu-index".to_string(), Some("0".to_string())), ("a.io/b".to_string(), None)].into_iter().collect()),
            ("n0", 3) => Err("no card on n0".to_string()),
            ("n0", _) => Err(String::new()),
            _ => Ok(Annotations::new()),
        }
    }
}

#[test]
fn allocate_answers_annotations_or_a_refusal() {
    let names = crate::__hooks!(Cards).names();
    assert_eq!(names, ["session_open", "session_close", "allocate"]);

    let mut m = Module::new(Cards::default(), crate::__hooks!(Cards));
    call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()));
    let req = |events: &[[i32; 3]], t: i32| request(events, args(&[], &[("task", t), ("now", 7)]));
    // t0 (priority 3) placed on n1: its annotations, in key order.
    let mut want = b"\x93\x00\xa0\x81\xabannotations\x82".to_vec();
    let mut w = Writer(&mut want);
    w.str("a.io/b");
    w.nil();
    w.str("volcano.sh/gpu-index");
    w.str("0");
    assert_eq!(call(&mut m, HOOK_ALLOCATE, &req(&[[1, 0, 1]], 0)), want);
    // t1 pipelined on n0: an empty reason still refuses.
    let mut refused = b"\x93\x00\xa0\x81\xa7refusal".to_vec();
    Writer(&mut refused).str("refused");
    assert_eq!(call(&mut m, HOOK_ALLOCATE, &req(&[[2, 1, 0]], 1)), refused);
    // Taken off its node, t1 gets nil: nothing to write.
    assert_eq!(call(&mut m, HOOK_ALLOCATE, &req(&[[3, 1, -1]], 1)), b"\x93\x00\xa0\xc0");
    // t0 moved to n0: refused with the reason, an OK reply.
    let mut refused = b"\x93\x00\xa0\x81\xa7refusal".to_vec();
    Writer(&mut refused).str("no card on n0");
    assert_eq!(call(&mut m, HOOK_ALLOCATE, &req(&[[3, 0, -1], [1, 0, 0]], 0)), refused);
    assert_eq!(m.plugin.seen, ["t0:Allocated:n1@7", "t1:Pipelined:n0@7", "t1:Pending:-@7", "t0:Allocated:n0@7"]);
    assert_eq!(reply(&call(&mut m, HOOK_ALLOCATE, &req(&[], 5))), (65, "allocate: task handle 5 of 2".to_string()));
    assert_eq!(reply(&call(&mut module(), HOOK_ALLOCATE, &req(&[], 0))).0, 65, "no session");
    let mut m = module();
    call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()));
    assert_eq!(reply(&call(&mut m, HOOK_ALLOCATE, &req(&[], 0))), (64, "allocate is not implemented".to_string()));
}
