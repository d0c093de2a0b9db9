//! Volumes and devices (ABI 1.10): predicate_batch's claims reaching the
//! plugin, the view's taskClaims and volumeLimits found by handle, and the
//! descriptor's claimChecks.

use crate::claims::*;
use crate::golden_tests::{reply, request};
use crate::hooks::*;
use crate::module::*;
use crate::module_tests::{call, descriptor_keys, open_request, view};
use crate::msgpack::{Reader, Writer};
use crate::session::Session;
use crate::view::{Node, Task, View};
use crate::Arguments;

/// Notes what `Session::node_claims` says of each node, and rejects a node
/// whose checks fail with their code and reasons, as a port would.
#[derive(Default)]
struct Checked {
    seen: Vec<Vec<Option<NodeClaims>>>,
}

impl Plugin for Checked {
    const NAME: &'static str = "checked";
    const CLAIM_CHECKS: bool = true;
}

impl Predicate for Checked {
    fn predicate_batch(&mut self, s: &Session, _: &Task, nodes: &[&Node], verdicts: &mut [Verdict]) {
        self.seen.push((0..nodes.len()).map(|i| s.node_claims(i).cloned()).collect());
        for (i, v) in verdicts.iter_mut().enumerate() {
            if let Some(last) = s.node_claims(i).and_then(|c| c.checks.last()) {
                let reasons: Vec<&str> = s.node_claims(i).unwrap().checks.iter().flat_map(|c| c.reasons.iter().map(String::as_str)).collect();
                *v = Verdict { code: last.code, reason: reasons.join(", ") };
            }
        }
    }
}

fn checked() -> Module<Checked> {
    let mut m = Module::new(Checked::default(), crate::__hooks!(Checked));
    assert_eq!(reply(&call(&mut m, HOOK_SESSION_OPEN, &open_request(&view()))).0, 0);
    m
}

/// A predicate_batch request for task 0 on nodes 0 and 1; `claims` writes
/// the value of `claims`, which is left out without it.
fn predicate_batch(claims: Option<&dyn Fn(&mut Writer<'_>)>) -> Vec<u8> {
    request(&[], |w| {
        w.map(2 + usize::from(claims.is_some()));
        w.str("task");
        w.int(0);
        w.str("nodes");
        w.array(2);
        w.int(0);
        w.int(1);
        if let Some(f) = claims {
            w.str("claims");
            f(w);
        }
    })
}

/// `[stage, code, [reasons]]`.
fn check(w: &mut Writer<'_>, stage: i64, code: i64, reasons: &[&str]) {
    w.array(3);
    w.int(stage);
    w.int(code);
    w.array(reasons.len());
    for r in reasons {
        w.str(r);
    }
}

/// The verdicts of an OK predicate_batch reply.
fn verdicts(out: &[u8]) -> Vec<(i64, String)> {
    let mut r = Reader::new(out);
    assert_eq!(r.array_len().unwrap(), 3);
    assert_eq!((r.int().unwrap(), r.str().unwrap()), (0, ""));
    (0..r.array_len().unwrap())
        .map(|_| {
            assert_eq!(r.array_len().unwrap(), 2);
            (r.int().unwrap(), r.str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn claims_reach_the_plugin_node_by_node_for_one_call() {
    let mut m = checked();
    // Node 0 passes every check; node 1 exceeds a volume limit and cannot
    // allocate a device claim.
    let claims = |w: &mut Writer<'_>| {
        w.array(2);
        w.nil();
        w.array(2);
        w.bool(true);
        w.array(2);
        check(w, 1, 2, &["node(s) exceed max volume count"]);
        check(w, 4, 3, &["cannot allocate all claims"]);
    };
    let out = call(&mut m, HOOK_PREDICATE_BATCH, &predicate_batch(Some(&claims)));
    let reason = "node(s) exceed max volume count, cannot allocate all claims";
    assert_eq!(verdicts(&out), [(0, String::new()), (3, reason.to_string())]);
    let node1 = NodeClaims {
        ruled_out: true,
        checks: vec![
            ClaimCheck { stage: ClaimStage::Limits, code: Code::Unschedulable, reasons: vec!["node(s) exceed max volume count".into()] },
            ClaimCheck { stage: ClaimStage::Devices, code: Code::UnschedulableAndUnresolvable, reasons: vec!["cannot allocate all claims".into()] },
        ],
    };
    assert_eq!(m.plugin.seen, [vec![None, Some(node1)]]);
    assert!(m.session.as_ref().unwrap().node_claims(1).is_none(), "claims last one call");

    // Absent, or nil: no node has any.
    let nil = |w: &mut Writer<'_>| w.nil();
    for req in [predicate_batch(None), predicate_batch(Some(&nil))] {
        assert_eq!(verdicts(&call(&mut m, HOOK_PREDICATE_BATCH, &req)), [(0, String::new()), (0, String::new())]);
        assert_eq!(m.plugin.seen.last().unwrap(), &[None, None]);
    }
}

#[test]
fn claims_of_later_minors_and_nil_lists_decode() {
    let mut m = checked();
    // A stage this SDK does not name, nil checks and reasons, and arrays a
    // later minor lengthened.
    let claims = |w: &mut Writer<'_>| {
        w.array(2);
        w.array(3);
        w.bool(false);
        w.nil();
        w.str("later");
        w.array(2);
        w.bool(false);
        w.array(1);
        w.array(4);
        w.int(9);
        w.int(2);
        w.nil();
        w.int(7);
    };
    assert_eq!(reply(&call(&mut m, HOOK_PREDICATE_BATCH, &predicate_batch(Some(&claims)))), (0, String::new()));
    let later = ClaimCheck { stage: ClaimStage::Other(9), code: Code::Unschedulable, reasons: Vec::new() };
    assert_eq!(
        m.plugin.seen,
        [vec![Some(NodeClaims { ruled_out: false, checks: Vec::new() }), Some(NodeClaims { ruled_out: false, checks: vec![later] })]]
    );
}

#[test]
fn malformed_claims_are_refused() {
    let one = |w: &mut Writer<'_>| {
        w.array(1);
        w.nil();
    };
    let unknown_code = |w: &mut Writer<'_>| {
        w.array(2);
        w.nil();
        w.array(2);
        w.bool(false);
        w.array(1);
        check(w, 4, 7, &["?"]);
    };
    let short = |w: &mut Writer<'_>| {
        w.array(2);
        w.nil();
        w.array(1);
        w.bool(true);
    };
    let cases: [(&dyn Fn(&mut Writer<'_>), &str); 3] = [
        (&one, "predicate_batch: 1 claims for 2 nodes"),
        (&unknown_code, "decoding the request: claims of node 1 of the batch: check code 7"),
        (&short, "decoding the request: claims of node 1 of the batch: want [ruledOut, checks], got an array of 1"),
    ];
    let mut m = checked();
    for (claims, want) in cases {
        let (code, msg) = reply(&call(&mut m, HOOK_PREDICATE_BATCH, &predicate_batch(Some(claims))));
        assert_eq!((code, msg.as_str()), (65, want));
    }
    assert!(m.plugin.seen.is_empty(), "the plugin is not asked");
    assert!(m.session.as_ref().unwrap().node_claims(0).is_none());
}

#[test]
fn a_check_ends_unless_a_volume_limit_is_merely_unschedulable() {
    let ends = |stage, code| ClaimCheck { stage, code, reasons: Vec::new() }.ends();
    assert!(!ends(ClaimStage::Limits, Code::Unschedulable));
    assert!(ends(ClaimStage::Limits, Code::UnschedulableAndUnresolvable));
    assert!(ends(ClaimStage::Limits, Code::Error));
    for stage in [ClaimStage::Claims, ClaimStage::Zone, ClaimStage::Binding, ClaimStage::Devices, ClaimStage::Other(5)] {
        assert!(ends(stage, Code::Unschedulable), "{:?}", stage);
    }
}

/// session_open with a view of two nodes and three tasks written key by
/// key, as the scheduler names the fields, and `claims` writing the
/// taskClaims and volumeLimits entries (a map of `n` more keys).
fn open_view(n: usize, claims: impl FnOnce(&mut Writer<'_>)) -> Vec<u8> {
    request(&[], |w| {
        w.map(1);
        w.str("view");
        w.map(2 + n);
        w.str("nodes");
        w.array(2);
        for name in ["n0", "n1"] {
            w.map(1);
            w.str("name");
            w.str(name);
        }
        w.str("tasks");
        w.array(3);
        for name in ["t0", "t1", "t2"] {
            w.map(1);
            w.str("name");
            w.str(name);
        }
        claims(w);
    })
}

/// `taskClaims`: task 1 with two volumes and two device claims, task 2
/// with nil lists; `volumeLimits`: node 1's.
fn claims_and_limits(w: &mut Writer<'_>) {
    w.str("taskClaims");
    w.array(2);
    w.map(3);
    w.str("task");
    w.int(1);
    w.str("volumes");
    w.array(2);
    w.map(3);
    for (k, v) in [("name", "data"), ("volume", "pv-data"), ("storageClass", "fast")] {
        w.str(k);
        w.str(v);
    }
    w.map(1);
    w.str("name");
    w.str("scratch");
    w.str("devices");
    w.array(2);
    w.map(2);
    w.str("name");
    w.str("gpu");
    w.str("devices");
    w.array(2);
    w.str("gpu.example.com/pool-a/gpu-0");
    w.str("gpu.example.com/pool-a/gpu-1");
    w.map(1);
    w.str("name");
    w.str("nic");
    w.map(3);
    w.str("task");
    w.int(2);
    w.str("volumes");
    w.nil();
    w.str("devices");
    w.nil();
    w.str("volumeLimits");
    w.array(1);
    w.map(2);
    w.str("node");
    w.int(1);
    w.str("limits");
    w.map(2);
    w.str("ebs.csi.aws.com");
    w.int(25);
    w.str("pd.csi.storage.gke.io");
    w.int(127);
}

#[test]
fn the_view_brings_claims_and_limits_found_by_handle() {
    let mut m = checked();
    assert_eq!(reply(&call(&mut m, HOOK_SESSION_OPEN, &open_view(2, claims_and_limits))), (0, String::new()));
    let s = m.session.as_ref().unwrap();
    let c = s.task_claims(1).unwrap();
    assert_eq!(c.task, 1);
    assert_eq!(
        c.volumes,
        [
            VolumeClaim { name: "data".into(), volume: "pv-data".into(), storage_class: "fast".into() },
            VolumeClaim { name: "scratch".into(), ..VolumeClaim::default() },
        ]
    );
    assert_eq!(
        c.devices,
        [
            DeviceClaim { name: "gpu".into(), devices: vec!["gpu.example.com/pool-a/gpu-0".into(), "gpu.example.com/pool-a/gpu-1".into()] },
            DeviceClaim { name: "nic".into(), devices: Vec::new() },
        ]
    );
    let c2 = s.task_claims(2).unwrap();
    assert!(c2.volumes.is_empty() && c2.devices.is_empty());
    assert!(s.task_claims(0).is_none() && s.task_claims(3).is_none() && s.task_claims(-1).is_none());
    let l = s.volume_limits(1).unwrap();
    assert_eq!((l.node, l.limits["ebs.csi.aws.com"], l.limits["pd.csi.storage.gke.io"]), (1, 25, 127));
    assert!(s.volume_limits(0).is_none() && s.volume_limits(2).is_none());
}

/// `{delta: {taskClaims?}}`: task 0's claim alone, or nothing.
fn delta(task0: bool) -> Vec<u8> {
    request(&[], |w| {
        w.map(1);
        w.str("delta");
        w.map(usize::from(task0));
        if task0 {
            w.str("taskClaims");
            w.array(1);
            w.map(2);
            w.str("task");
            w.int(0);
            w.str("volumes");
            w.array(1);
            w.map(1);
            w.str("name");
            w.str("logs");
        }
    })
}

#[test]
fn a_delta_brings_claims_and_limits_whole() {
    let mut m = checked();
    call(&mut m, HOOK_SESSION_OPEN, &open_view(2, claims_and_limits));
    call(&mut m, HOOK_SESSION_CLOSE, &request(&[], |w| w.nil()));
    assert_eq!(reply(&call(&mut m, HOOK_SESSION_OPEN, &delta(true))), (0, String::new()));
    {
        let s = m.session.as_ref().unwrap();
        assert_eq!(s.task_claims(0).unwrap().volumes[0].name, "logs");
        assert!(s.task_claims(1).is_none() && s.task_claims(2).is_none(), "the delta's list replaces the held one");
        assert!(s.volume_limits(1).is_none(), "a delta without limits: none");
    }
    call(&mut m, HOOK_SESSION_CLOSE, &request(&[], |w| w.nil()));
    assert_eq!(reply(&call(&mut m, HOOK_SESSION_OPEN, &delta(false))), (0, String::new()));
    let v = m.session.as_ref().unwrap().view();
    assert!(v.task_claims.is_empty() && v.volume_limits.is_empty());
}

#[test]
fn claims_and_limits_of_unknown_objects_are_refused() {
    let task_claims = |task: Option<i64>| {
        move |w: &mut Writer<'_>| {
            w.str("taskClaims");
            w.array(1);
            match task {
                Some(t) => {
                    w.map(1);
                    w.str("task");
                    w.int(t);
                }
                None => w.map(0),
            }
        }
    };
    let twice = |w: &mut Writer<'_>| {
        w.str("volumeLimits");
        w.array(2);
        for _ in 0..2 {
            w.map(1);
            w.str("node");
            w.int(0);
        }
    };
    let node = |h: i64| {
        move |w: &mut Writer<'_>| {
            w.str("volumeLimits");
            w.array(1);
            w.map(1);
            w.str("node");
            w.int(h);
        }
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (open_view(1, task_claims(Some(3))), "session_open: taskClaims: task handle 3 of 3"),
        (open_view(1, task_claims(None)), "session_open: taskClaims: task handle -1 of 3"),
        (open_view(1, node(2)), "session_open: volumeLimits: node handle 2 of 2"),
        (open_view(1, node(-1)), "session_open: volumeLimits: node handle -1 of 2"),
        (open_view(1, twice), "session_open: volumeLimits: node handle 0 twice"),
    ];
    for (req, want) in cases {
        let mut m = checked();
        let (code, msg) = reply(&call(&mut m, HOOK_SESSION_OPEN, &req));
        assert_eq!((code, msg.as_str()), (65, want));
    }

    // A delta that shortens the tasks under a claim: checked on the view
    // the delta makes.
    let mut m = checked();
    call(&mut m, HOOK_SESSION_OPEN, &open_view(0, |_| {}));
    call(&mut m, HOOK_SESSION_CLOSE, &request(&[], |w| w.nil()));
    let shorter = request(&[], |w| {
        w.map(1);
        w.str("delta");
        w.map(2);
        w.str("tasks");
        w.map(3);
        w.str("len");
        w.int(1);
        w.str("full");
        w.bool(true);
        w.str("set");
        w.array(1);
        w.array(2);
        w.int(0);
        w.map(0);
        task_claims(Some(2))(w);
    });
    let (code, msg) = reply(&call(&mut m, HOOK_SESSION_OPEN, &shorter));
    assert_eq!((code, msg.as_str()), (65, "session_open: taskClaims: task handle 2 of 1"));
}

#[test]
fn a_session_built_by_hand_finds_claims_too() {
    let v = View {
        tasks: vec![Task::default(), Task::default()],
        task_claims: vec![
            TaskClaims { task: 7, ..TaskClaims::default() },
            TaskClaims { task: 1, devices: vec![DeviceClaim { name: "first".into(), ..DeviceClaim::default() }], ..TaskClaims::default() },
            TaskClaims { task: 1, ..TaskClaims::default() },
        ],
        ..View::default()
    };
    let s = Session::new(v, Arguments::default());
    assert_eq!(s.task_claims(1).unwrap().devices[0].name, "first", "the first entry of a handle wins");
    assert!(s.task_claims(0).is_none() && s.task_claims(7).is_none() && s.volume_limits(0).is_none());
}

#[test]
fn the_descriptor_says_claim_checks_only_when_declared() {
    let mut out = Vec::new();
    Module::new(Checked::default(), crate::__hooks!(Checked)).describe(&mut out);
    let (keys, hooks, _) = descriptor_keys(&out);
    assert_eq!(keys, ["name", "abi", "hooks", "stableKeys", "localKeys", "deltas", "undoEvents", "claimChecks", "sdk"]);
    assert_eq!(hooks, ["session_open", "session_close", "predicate_batch"]);
    let at = out.windows(12).position(|b| b == b"\xabclaimChecks").unwrap();
    assert_eq!(out[at + 12], 0xc3, "claimChecks: true");

    // After nodeLocal, as the ABI lists them.
    #[derive(Default)]
    struct Both;
    impl Plugin for Both {
        const NAME: &'static str = "both";
        const NODE_LOCAL_PREDICATES: bool = true;
        const CLAIM_CHECKS: bool = true;
    }
    impl Predicate for Both {
        fn predicate_batch(&mut self, _: &Session, _: &Task, _: &[&Node], _: &mut [Verdict]) {}
    }
    Module::new(Both, crate::__hooks!(Both)).describe(&mut out);
    let (keys, _, _) = descriptor_keys(&out);
    assert_eq!(keys, ["name", "abi", "hooks", "stableKeys", "localKeys", "deltas", "undoEvents", "nodeLocal", "claimChecks", "sdk"]);

    #[derive(Default)]
    struct Unchecked;
    impl Plugin for Unchecked {
        const NAME: &'static str = "unchecked";
    }
    impl Predicate for Unchecked {
        fn predicate_batch(&mut self, _: &Session, _: &Task, _: &[&Node], _: &mut [Verdict]) {}
    }
    Module::new(Unchecked, crate::__hooks!(Unchecked)).describe(&mut out);
    let (keys, _, _) = descriptor_keys(&out);
    assert!(!keys.iter().any(|k| k == "claimChecks"), "{:?}", keys);
}
