//! The golden vectors in testdata/abi (see its README and
//! guest-sdk/go/golden_test.go, which this test mirrors): the SDK must decode
//! the host's requests to the values below and encode its replies to exactly
//! the reply bytes. The vectors are the Go SDK's; this test never rewrites
//! them.

use std::path::PathBuf;

use crate::claims::{ClaimCheck, ClaimStage, NodeClaims};
use crate::hooks::*;
use crate::module::*;
use crate::msgpack::{Reader, Writer};
use crate::session::Session;
use crate::arguments::Arguments;
use crate::event::*;
use crate::view::{phase, status, Gpu, HyperNode, Job, Node, Resource, Taint, Task, View};

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/abi").join(format!("{}.msgpack", name))
}

fn golden(name: &str) -> Vec<u8> {
    let path = golden_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e))
}

/// A request `{e: events, a: args}`; args writes the `a` value.
pub(crate) fn request(events: &[[i32; 3]], args: impl FnOnce(&mut Writer<'_>)) -> Vec<u8> {
    let mut b = Vec::new();
    let mut w = Writer(&mut b);
    w.map(2);
    w.str("e");
    w.array(events.len());
    for e in events {
        w.array(3);
        for &v in e {
            w.int(i64::from(v));
        }
    }
    w.str("a");
    args(&mut w);
    b
}

/// Args `{key: handle or [handles], ...}`.
pub(crate) fn args<'a>(fields: &'a [(&'a str, &'a [i32])], scalars: &'a [(&'a str, i32)]) -> impl FnOnce(&mut Writer<'_>) + 'a {
    move |w| {
        w.map(fields.len() + scalars.len());
        for (k, v) in scalars {
            w.str(k);
            w.int(i64::from(*v));
        }
        for (k, hs) in fields {
            w.str(k);
            w.array(hs.len());
            for &h in *hs {
                w.int(i64::from(h));
            }
        }
    }
}

/// The code and message of a reply.
pub(crate) fn reply(b: &[u8]) -> (i64, String) {
    let mut r = Reader::new(b);
    assert_eq!(r.array_len().unwrap(), 3, "reply is not a 3-array");
    let code = r.int().unwrap();
    (code, r.str().unwrap().to_string())
}

/// Answers every hook of the reply vectors with fixed values.
#[derive(Default)]
struct Golden {
    keys: usize,
    // Task 1's fit error at the last close.
    fit_error: Option<String>,
}

impl Plugin for Golden {
    const NAME: &'static str = "golden";

    fn on_session_close(&mut self, s: &Session) {
        self.fit_error = s.fit_error(&s.tasks()[1]).map(str::to_string);
        s.set_condition(&s.jobs()[0], "Unschedulable", "True", "NotEnoughResources", "1/2 tasks in gang unschedulable");
    }
}

impl NodeOrder for Golden {
    fn node_order_batch(&mut self, _: &Session, _: &Task, _: &[&Node], scores: &mut [f64]) -> Result<(), Error> {
        scores.copy_from_slice(&[37.5, 0.0, -1.0]);
        Ok(())
    }
}

impl Predicate for Golden {
    fn predicate_batch(&mut self, _: &Session, _: &Task, _: &[&Node], verdicts: &mut [Verdict]) {
        if let Some(last) = verdicts.last_mut() {
            *last = Verdict::reject("node(s) had untolerated taint {gpu: true}");
        }
    }
}

/// [-5] the first time and [1, 0.25] after, so that one reply holds keys
/// of two lengths.
impl JobOrder for Golden {
    type Key = Vec<f64>;
    fn job_order_key(&mut self, _: &Session, _: &Job) -> Vec<f64> {
        self.keys += 1;
        if self.keys == 1 {
            vec![-5.0]
        } else {
            vec![1.0, 0.25]
        }
    }
}

impl Preemptable for Golden {
    fn preemptable<'s>(&mut self, _: &'s Session, _: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        Some(candidates.to_vec())
    }
}

// Lets the first candidate go when the request says what request_evictable
// says: gangreclaim for job 0 in leaf-a.
impl Evictable for Golden {
    fn evictable<'s>(&mut self, s: &'s Session, ctx: &Eviction<'_>, candidates: &[&'s Task]) -> Option<Vec<&'s Task>> {
        let job0 = &s.view().jobs[0];
        if ctx.kind != EvictionKind::GangReclaim || !std::ptr::eq(ctx.job, job0) || ctx.hyper_node != "leaf-a" || candidates.len() != 2 {
            return Some(Vec::new());
        }
        Some(candidates[..1].to_vec())
    }
}

// Scores leaf-a 87.5 and the cluster top 12.5 when the request says what
// request_hypernode_order says: job 0, allocated in leaf-a, candidates
// leaf-a and the top.
impl HyperNodeOrder for Golden {
    fn hyper_node_order(&mut self, s: &Session, search: &HyperNodeSearch<'_>, hns: &[&HyperNode], scores: &mut [f64]) -> Result<(), Error> {
        let v = s.view();
        let leaf = &v.hyper_nodes[1];
        if !std::ptr::eq(search.job, &v.jobs[0]) || !search.allocated.map_or(false, |a| std::ptr::eq(a, leaf)) || hns.len() != 2 || hns[0].name != "leaf-a" || !std::ptr::eq(hns[1], &v.hyper_nodes[0]) {
            return Ok(());
        }
        scores[0] = 87.5;
        scores[1] = 12.5;
        Ok(())
    }
}

// Offers leaf-a, then the cluster top, when the request says what
// request_hypernode_gradient says: job 0's tasks, for eviction, within the
// top, allocated in leaf-a.
impl HyperNodeGradient for Golden {
    fn hyper_node_gradient<'s>(&mut self, s: &'s Session, search: &HyperNodeSearch<'s>) -> Vec<Vec<&'s HyperNode>> {
        let v = s.view();
        let (top, leaf) = (&v.hyper_nodes[0], &v.hyper_nodes[1]);
        if !std::ptr::eq(search.job, &v.jobs[0]) || !search.within.map_or(false, |w| std::ptr::eq(w, top)) || search.scope != GradientScope::Tasks
            || search.purpose != SearchPurpose::Evict || !search.allocated.map_or(false, |a| std::ptr::eq(a, leaf))
        {
            return Vec::new();
        }
        vec![vec![leaf], vec![top]]
    }
}

// Writes card 1 and takes back another key when the request says what
// request_allocate says: task 1, just placed on node 0 (the event applied
// before the hook), at 2025-01-01T00:00:02Z.
impl Allocate for Golden {
    fn allocate(&mut self, s: &Session, task: &Task, now: i64) -> Result<Annotations, String> {
        let v = s.view();
        let placed = s.node_of(task).map_or(false, |n| std::ptr::eq(n, &v.nodes[0])) && task.status == status::ALLOCATED;
        if !std::ptr::eq(task, &v.tasks[1]) || !placed || now != 1_735_689_602_000_000_000 {
            return Ok(Annotations::new());
        }
        Ok([("volcano.sh/gpu-index", Some("1")), ("example.com/stale", None)].iter().map(|&(k, v)| (k.to_string(), v.map(str::to_string))).collect())
    }
}

impl VictimTasks for Golden {
    fn victim_tasks<'s>(&mut self, _: &'s Session, tasks: &[&'s Task]) -> Vec<&'s Task> {
        tasks.to_vec()
    }
}

impl JobValid for Golden {
    fn job_valid(&mut self, _: &Session, _: &Job) -> Result<(), Invalid> {
        Err(Invalid::new("NotEnoughPods", "1/2 tasks valid"))
    }
}

#[derive(Default)]
struct BadArgs;

impl Plugin for BadArgs {
    const NAME: &'static str = "bad";

    fn on_session_open(&mut self, s: &Session) -> Result<(), Error> {
        s.arguments().int("binpack.weight", 1)?;
        Ok(())
    }
}

fn call<P: Plugin>(m: &mut Module<P>, hook: u32, req: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    m.call(hook, req, &mut out);
    out
}

fn check(name: &str, got: &[u8]) {
    let want = golden(name);
    assert!(got == want.as_slice(), "{}: the SDK encodes\n{:02x?}\nthe golden vector is\n{:02x?}", name, got, want);
}

#[test]
fn golden_vectors() {
    let mut m = Module::new(Golden::default(), crate::__hooks!(Golden));

    // Requests the host encodes.
    let (code, msg) = reply(&call(&mut m, HOOK_SESSION_OPEN, &golden("request_session_open")));
    assert_eq!((code, msg.as_str()), (0, ""), "request_session_open");
    // The claims and volume limits sent, which every delta brings again.
    let claims = {
        let s = m.session.as_ref().unwrap();
        let v = s.view();
        assert_eq!((v.nodes.len(), v.queues.len(), v.jobs.len(), v.tasks.len()), (1, 2, 1, 2));
        // The queues' tree fields (ABI 1.7): none on the first, all on the second.
        let (q0, q1) = (&v.queues[0], &v.queues[1]);
        assert_eq!((q0.parent.as_str(), q0.deserved.is_none(), q0.is_reclaimable()), ("", true, true));
        let d = q1.deserved.as_ref().unwrap();
        assert_eq!((q1.parent.as_str(), d.milli_cpu, d.memory, d.scalar("nvidia.com/gpu")), ("org", 4000, 8 << 30, 2000));
        assert_eq!((q1.weight, q1.is_reclaimable()), (2, false));
        let (n, j, t0, t1) = (&v.nodes[0], &v.jobs[0], &v.tasks[0], &v.tasks[1]);
        assert_eq!(n.name, "n0");
        assert_eq!(n.labels["zone"], "a");
        assert_eq!(n.taints[0].effect, "NoSchedule");
        assert_eq!(n.allocatable.scalar("nvidia.com/gpu"), 2000);
        assert_eq!((n.idle.milli_cpu, n.pods), (6000, 1));
        assert_eq!((j.priority, j.min_task_member["worker"], j.creation_time), (-5, 2, 1735689600000));
        assert_eq!(j.phase, phase::INQUEUE);
        assert_eq!(t1.node, -1);
        assert_eq!(t1.node_selector["zone"], "a");
        assert_eq!(t1.priority_class_name, "low");
        assert_eq!(t0.tolerations[0].operator, "Exists");
        // GPU sharing's cards and requests (ABI 1.12).
        assert_eq!(
            n.gpus,
            [
                Gpu { id: 0, memory: 8000, used: 3000, holders: 1, unhealthy: false },
                Gpu { id: 1, memory: 8000, used: 0, holders: 0, unhealthy: true },
                Gpu { id: 2, memory: 8000, used: 0, holders: 0, unhealthy: false }
            ]
        );
        assert_eq!((t1.gpu_memory, t1.gpu_number, t0.gpu_memory, t0.gpu_number), (2000, 0, 0, 0));
        // The pod rules' fields (ABI 1.4).
        assert_eq!((n.images[0].names[1].as_str(), n.images[0].size), ("registry.local/app@sha256:ab", 300 << 20));
        let other = &n.others[0];
        let anti = &other.pod_anti_affinity.as_ref().unwrap().required[0];
        assert_eq!((other.name.as_str(), anti.topology_key.as_str()), ("dns-0", "kubernetes.io/hostname"));
        assert_eq!(anti.selector.as_ref().unwrap().requirements[0].values, vec!["dns".to_string()]);
        assert_eq!(t1.images, vec!["registry.local/app:1".to_string()]);
        let pref = &t1.pod_anti_affinity.as_ref().unwrap().preferred[0];
        assert_eq!((pref.weight, pref.term.topology_key.as_str()), (10, "zone"));
        assert!(pref.term.selector.as_ref().unwrap().requirements.is_empty() && pref.term.namespace_selector.is_some());
        let c = &t1.spread_constraints[0];
        assert_eq!((c.max_skew, c.when_unsatisfiable.as_str(), c.min_domains), (1, "DoNotSchedule", 1));
        assert_eq!((c.node_affinity_policy.as_str(), c.node_taints_policy.as_str()), ("Honor", "Ignore"));
        assert_eq!(c.selector.as_ref().unwrap().requirements[0].key, "app");
        assert!(t0.pod_anti_affinity.is_none());
        assert!(t0.spread_defaulted && !t1.spread_defaulted);
        assert_eq!(t0.spread_constraints[0].max_skew, 3);
        assert_eq!((v.namespaces.len(), v.namespaces["ns"]["team"].as_str()), (2, "a"));
        // The cluster's budgets and quotas (ABI 1.8).
        let (b, q) = (&v.disruption_budgets, &v.resource_quotas);
        assert_eq!((b.len(), b[0].name.as_str(), b[0].disruptions_allowed, b[0].disrupted_pods[0].as_str()), (2, "pg-budget", 1, "pg-0"));
        assert_eq!(b[0].selector.as_ref().unwrap().requirements[0].values, vec!["pg".to_string()]);
        assert!(b[1].selector.is_none() && b[1].name == "unselective");
        assert_eq!((q.len(), q[0].hard["requests.cpu"], q[0].used["pods"]), (1, 8000, 1000));
        // The hypernodes and the job's network topology (ABI 1.9).
        let hn = &v.hyper_nodes;
        assert_eq!((hn.len(), hn[0].name.as_str(), hn[0].tier, hn[0].parent, hn[0].nodes.len()), (2, "<cluster-top-hypernode>", 2, -1, 0));
        assert_eq!((hn[1].name.as_str(), hn[1].tier, hn[1].parent, hn[1].nodes.clone(), hn[1].handle), ("leaf-a", 1, 0, vec![0], 1));
        let nt = j.network_topology.as_ref().unwrap();
        assert_eq!((nt.mode.as_str(), nt.highest_tier, j.allocated_hyper_node), ("hard", Some(1), Some(1)));
        // The claims and volume limits (ABI 1.10), whatever the vector
        // holds, are found by handle.
        for c in &v.task_claims {
            assert!(std::ptr::eq(s.task_claims(c.task).unwrap(), c), "task {}'s claims", c.task);
        }
        for l in &v.volume_limits {
            assert!(std::ptr::eq(s.volume_limits(l.node).unwrap(), l), "node {}'s volume limits", l.node);
        }
        assert_eq!(s.tasks_of(j).count(), 2);
        assert_eq!(s.arguments().str("binpack.resources"), Some("nvidia.com/gpu"));
        assert_eq!(s.arguments().int("binpack.weight", 0).unwrap(), 10);
        (v.task_claims.clone(), v.volume_limits.clone())
    };

    // The session's fit errors come with its close (ABI 1.6).
    call(&mut m, HOOK_SESSION_CLOSE, &golden("request_session_close_fit_errors"));
    assert_eq!(m.plugin.fit_error.as_deref(), Some("0/1 nodes are unavailable: 1 Insufficient cpu."), "request_session_close_fit_errors");

    // The delta resends task 1 (an event touched it) and nothing else.
    m.last.as_mut().unwrap().tasks[1].status = status::ALLOCATED.into(); // what an event had done
    let (code, msg) = reply(&call(&mut m, HOOK_SESSION_OPEN, &golden("request_session_open_delta")));
    assert_eq!((code, msg.as_str()), (0, ""), "request_session_open_delta");
    {
        let v = m.session.as_ref().unwrap().view();
        assert_eq!(v.tasks[1].status, status::PENDING, "after the delta");
        assert_eq!(v.tasks[1].gpu_memory, 2000, "a task resent whole keeps its GPU request");
        assert_eq!(v.nodes[0].gpus.len(), 3, "after the delta");
        assert_eq!(v.nodes[0].name, "n0");
        assert_eq!(v.namespaces["ns"]["team"], "a", "namespaces come with every delta");
        assert_eq!((v.disruption_budgets.len(), v.resource_quotas.len()), (2, 1), "budgets and quotas come with every delta");
        assert_eq!(v.hyper_nodes.len(), 2, "hypernodes come with every delta");
        assert_eq!((&v.task_claims, &v.volume_limits), (&claims.0, &claims.1), "claims and volume limits come with every delta");
    }

    // Events ride on a request: task 1 placed on node 0, job 0 admitted.
    m.session.as_mut().unwrap().view_mut().jobs[0].phase = phase::PENDING.into();
    let (code, msg) = reply(&call(&mut m, HOOK_PREDICATE_BATCH, &golden("request_predicate_batch")));
    assert_eq!((code, msg.as_str()), (0, ""), "request_predicate_batch");
    {
        let v = m.session.as_ref().unwrap().view();
        let (t, n) = (&v.tasks[1], &v.nodes[0]);
        assert_eq!((t.status.as_str(), t.node, n.idle.milli_cpu), (status::ALLOCATED, 0, 4000));
        assert_eq!(v.jobs[0].phase, phase::INQUEUE);
    }

    // Replies this SDK encodes, each to a request vector or a plain one.
    let cases: Vec<(&str, u32, Vec<u8>)> = vec![
        ("reply_predicate_batch", HOOK_PREDICATE_BATCH, request(&[], args(&[("nodes", &[0, 0])], &[("task", 1)]))),
        ("reply_job_order_keys", HOOK_JOB_ORDER_KEYS, request(&[], args(&[("jobs", &[0, 0])], &[]))),
        ("reply_preemptable", HOOK_PREEMPTABLE, golden("request_preemptable")),
        ("reply_evictable", HOOK_EVICTABLE, golden("request_evictable")),
        ("reply_hypernode_order", HOOK_HYPER_NODE_ORDER, golden("request_hypernode_order")),
        ("reply_hypernode_gradient", HOOK_HYPER_NODE_GRADIENT, golden("request_hypernode_gradient")),
        ("reply_allocate", HOOK_ALLOCATE, golden("request_allocate")),
        ("reply_node_order_batch", HOOK_NODE_ORDER_BATCH, request(&[], args(&[("nodes", &[0, 0, 0])], &[("task", 0)]))),
        ("reply_job_valid", HOOK_JOB_VALID, request(&[], args(&[], &[("job", 0)]))),
        ("reply_session_close", HOOK_SESSION_CLOSE, golden("request_session_close")),
    ];
    for (name, hook, req) in cases {
        check(name, &call(&mut m, hook, &req));
    }

    // Handles past 127 and 32767 take msgp's int16 and int32 forms (never
    // uint8 or uint16). No request vector has that many objects: this reply
    // answers a view of its own.
    let victims = [0, 127, 128, 255, 256, 32767, 32768];
    let mut big = Module::new(Golden::default(), crate::__hooks!(Golden));
    let tasks = vec![Task::default(); victims[victims.len() - 1] as usize + 1];
    big.session = Some(Session::new(View { tasks, ..View::default() }, Arguments::default()));
    check("reply_victim_tasks", &call(&mut big, HOOK_VICTIM_TASKS, &request(&[], args(&[("tasks", &victims)], &[]))));

    let mut bad = Module::new(BadArgs, crate::__hooks!(BadArgs));
    let open = request(&[], |w| {
        w.map(1);
        w.str("arguments");
        w.map(1);
        w.str("binpack.weight");
        w.str("ten");
    });
    check("reply_error", &call(&mut bad, HOOK_SESSION_OPEN, &open));
}

/// request_allocate's event places the pending task 1 on node 0 before the
/// hook runs: the golden plugin answers reply_allocate's annotations only
/// for the task on its node.
#[test]
fn allocate_sees_its_placement() {
    let mut m = Module::new(Golden::default(), crate::__hooks!(Golden));
    call(&mut m, HOOK_SESSION_OPEN, &golden("request_session_open"));
    let t1 = &m.session.as_ref().unwrap().view().tasks[1];
    assert_eq!((t1.status.as_str(), t1.node), (status::PENDING, -1));
    check("reply_allocate", &call(&mut m, HOOK_ALLOCATE, &golden("request_allocate")));
}

#[test]
fn job_order_keys_request_decodes() {
    let mut m = Module::new(Golden::default(), crate::__hooks!(Golden));
    call(&mut m, HOOK_SESSION_OPEN, &golden("request_session_open"));
    let out = call(&mut m, HOOK_JOB_ORDER_KEYS, &golden("request_job_order_keys"));
    let mut r = Reader::new(&out);
    r.array_len().unwrap();
    assert_eq!(r.int().unwrap(), 0);
    r.str().unwrap();
    assert_eq!(r.array_len().unwrap(), 1, "one key for the one job of the request");
}

/// Checks request_cache_event's values (a node's update, then a pod's
/// delete) and answers them with reply_cache_event's verdicts: the new
/// allocatable less 6 CPUs and 2 GiB for the node, pass for the pod.
#[derive(Default)]
struct GoldenHandler {
    events: usize,
}

impl Plugin for GoldenHandler {
    const NAME: &'static str = "golden-handler";
}

impl CacheEventHandler for GoldenHandler {
    const EVENT_KINDS: &'static [&'static str] = &[kind::NODE];

    fn on_cache_event(&mut self, ev: &CacheEvent) -> EventVerdict {
        self.events += 1;
        assert!(ev.arguments.iter().next().is_none());
        let scalars = |pods: i64| [("pods".to_string(), pods)].into_iter().collect();
        if self.events == 2 {
            assert_eq!((&ev.event_type, ev.kind.as_str(), &ev.new), (&EventType::Delete, "Pod", &None));
            assert_eq!(
                ev.old,
                Some(Object {
                    name: "p1".into(),
                    namespace: "ns".into(),
                    requests: Some(Resource { milli_cpu: 1000, memory: 2 << 30, scalars: scalars(1) }),
                    priority: Some(5),
                    node_name: "n1".into(),
                    phase: "Running".into(),
                    ..Object::default()
                })
            );
            return EventVerdict::Pass;
        }
        assert_eq!(self.events, 1, "two events in the batch");
        let annotation = |v: &str| [("caldera.sh/external-reserved".to_string(), v.to_string())].into_iter().collect();
        let allocatable = Resource { milli_cpu: 8000, memory: 32 << 30, scalars: scalars(110) };
        assert_eq!((&ev.event_type, ev.kind.as_str()), (&EventType::Update, "Node"));
        assert_eq!(
            ev.old,
            Some(Object { name: "n1".into(), annotations: annotation("cpu=6"), allocatable: Some(allocatable.clone()), ..Object::default() })
        );
        assert_eq!(
            ev.new,
            Some(Object {
                name: "n1".into(),
                labels: [("zone".to_string(), "a".to_string())].into_iter().collect(),
                annotations: annotation("cpu=6,memory=2Gi"),
                allocatable: Some(allocatable),
                taints: vec![Taint { key: "gpu".into(), value: "true".into(), effect: "NoSchedule".into() }],
                unschedulable: true,
                ..Object::default()
            })
        );
        EventVerdict::adjust_allocatable(Resource { milli_cpu: 2000, memory: 30 << 30, scalars: scalars(110) })
    }
}

#[test]
fn cache_event_golden_vectors() {
    // Served with no session open.
    let mut m = Module::new(GoldenHandler::default(), crate::__hooks!(GoldenHandler));
    check("reply_cache_event", &call(&mut m, HOOK_CACHE_EVENT, &golden("request_cache_event")));
    assert_eq!(m.plugin.events, 2);
}

/// Withdraws node-local verdicts, gives every task class 0 and answers
/// pre_predicate with reply_pre_predicate_rules' domain rules.
#[derive(Default)]
struct Ruled;

impl Plugin for Ruled {
    const NAME: &'static str = "ruled";
    const NODE_LOCAL_PREDICATES: bool = true;

    fn predicates_node_local_in(&self, _: &Session) -> bool {
        false
    }

    fn predicates_node_local_classes(&self, _: &Session, classes: &mut [i32]) -> bool {
        classes.fill(0);
        true
    }

    fn predicate_domain_rules(&mut self, _: &Session, _: &Task, rules: &mut DomainRules) -> bool {
        rules.class = 2;
        rules.rules.push(DomainRule { key: "zone".into(), values: vec!["a".into(), "b".into()], fail: FAIL_MISSING | FAIL_LISTED });
        rules.rules.push(DomainRule { key: "kubernetes.io/hostname".into(), values: Vec::new(), fail: FAIL_MISSING });
        true
    }
}

impl PrePredicate for Ruled {
    fn pre_predicate(&mut self, _: &Session, _: &Task) -> Verdict {
        Verdict::PASS
    }
}

/// request_session_open_keep (1.11) puts a new task first and keeps the two
/// held ones, moved one handle up, with everything the first view gave them.
#[test]
fn golden_kept_runs() {
    let mut m = Module::new(Golden::default(), crate::__hooks!(Golden));
    for (hook, name) in [(HOOK_SESSION_OPEN, "request_session_open"), (HOOK_SESSION_CLOSE, "request_session_close"), (HOOK_SESSION_OPEN, "request_session_open_keep")] {
        let (code, msg) = reply(&call(&mut m, hook, &golden(name)));
        assert_eq!((code, msg.as_str()), (0, ""), "{}", name);
    }
    let s = m.session.as_ref().unwrap();
    let v = s.view();
    let names: Vec<&str> = v.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["pg-2", "pg-0", "pg-1"]);
    assert_eq!((v.tasks[0].request.milli_cpu, v.tasks[0].handle), (500, 0));
    assert_eq!((v.tasks[1].status.as_str(), v.tasks[1].tolerations[0].operator.as_str(), v.tasks[1].handle), (status::RUNNING, "Exists", 1));
    assert_eq!((v.tasks[2].node_selector["zone"].as_str(), v.tasks[2].handle), ("a", 2));
    assert_eq!(s.tasks_of(&v.jobs[0]).count(), 3);
    assert_eq!(s.task_claims(1).unwrap().devices[0].name, "pg-0-gpu", "pg-0's claims after the move");
}

/// To a 1.5 or later host (request_session_open says 1.12) a passing
/// pre_predicate carries the rules; to a host that does not say its version,
/// the plain verdict.
#[test]
fn golden_domain_rules() {
    let pre = request(&[], args(&[], &[("task", 1)]));
    let mut m = Module::new(Ruled, crate::__hooks!(Ruled));
    let (code, msg) = reply(&call(&mut m, HOOK_SESSION_OPEN, &golden("request_session_open")));
    assert_eq!((code, msg.as_str()), (0, ""), "request_session_open");
    assert_eq!(m.session.as_ref().unwrap().host_abi_minor(), 12, "the host's version in request_session_open");
    check("reply_pre_predicate_rules", &call(&mut m, HOOK_PRE_PREDICATE, &pre));

    let mut old = Module::new(Ruled, crate::__hooks!(Ruled));
    let open = request(&[], |w| {
        w.map(1);
        w.str("view");
        w.map(1);
        w.str("tasks");
        w.array(2);
        for _ in 0..2 {
            w.map(0);
        }
    });
    let (code, msg) = reply(&call(&mut old, HOOK_SESSION_OPEN, &open));
    assert_eq!((code, msg.as_str()), (0, ""), "session_open without abi");
    assert_eq!(call(&mut old, HOOK_PRE_PREDICATE, &pre), b"\x93\x00\xa0\x92\x00\xa0", "to a 1.4 host, [code, reason]");
}

/// Notes what `Session::node_claims` says of each node of a
/// predicate_batch.
#[derive(Default)]
struct ClaimsSeen {
    seen: Vec<Option<NodeClaims>>,
}

impl Plugin for ClaimsSeen {
    const NAME: &'static str = "claims-seen";
    const CLAIM_CHECKS: bool = true;
}

impl Predicate for ClaimsSeen {
    fn predicate_batch(&mut self, s: &Session, _: &Task, nodes: &[&Node], _: &mut [Verdict]) {
        self.seen = (0..nodes.len()).map(|i| s.node_claims(i).cloned()).collect();
    }
}

/// request_predicate_batch_claims (ABI 1.10; docs/abi.md, section 5,
/// "Volumes and devices"): task 1 on node 0 twice, every check passing the
/// first time, ruled out the second by a device claim that cannot be
/// allocated. Served in a view of its own, as reply_victim_tasks is.
#[test]
fn predicate_batch_claims_golden_vector() {
    let name = "request_predicate_batch_claims";
    let mut m = Module::new(ClaimsSeen::default(), crate::__hooks!(ClaimsSeen));
    let view = View { nodes: vec![Node::default(); 2], tasks: vec![Task::default(); 2], ..View::default() };
    m.session = Some(Session::new(view, Arguments::default()));
    let (code, msg) = reply(&call(&mut m, HOOK_PREDICATE_BATCH, &golden(name)));
    assert_eq!((code, msg.as_str()), (0, ""), "{}", name);
    let devices = ClaimCheck { stage: ClaimStage::Devices, code: Code::UnschedulableAndUnresolvable, reasons: vec!["cannot allocate all claims".into()] };
    assert_eq!(m.plugin.seen, [None, Some(NodeClaims { ruled_out: true, checks: vec![devices] })]);
}
