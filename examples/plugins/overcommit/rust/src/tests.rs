use caldera::{phase, status, Arguments, Job, Node, Resource, Session, Task, Value, View, Vote};

use super::*;

fn cpu(m: i64) -> Resource {
    Resource { milli_cpu: m, ..Resource::default() }
}

/// A task of `job` on `node` (-1 for none) with a request of `cpu`
/// milli-CPU, `memory` bytes and one pod slot.
fn task(job: i32, st: &str, node: i32, cpu: i64, memory: i64) -> Task {
    Task {
        namespace: "ns".into(),
        job,
        status: st.into(),
        node,
        request: Resource { milli_cpu: cpu, memory, scalars: [("pods".to_string(), 1)].into_iter().collect() },
        ..Task::default()
    }
}

fn opened(view: View, args: Arguments) -> (Session, Overcommit, Result<(), Error>) {
    let s = Session::new(view, args);
    let mut o = Overcommit::default();
    let r = o.on_session_open(&s);
    (s, o, r)
}

#[test]
fn factor_argument() {
    let cases: Vec<(Option<Value>, f64, bool)> = vec![
        (None, 1.2, false),
        (Some(Value::Float(1.5)), 1.5, false),
        (Some(Value::Int(2)), 2.0, false),
        (Some(Value::from("3")), 3.0, false),
        (Some(Value::Float(0.5)), 1.2, false), // below 1: the default
        (Some(Value::from("lots")), 0.0, true),
        (Some(Value::from("1e400")), 0.0, true), // out of range, as Go's ParseFloat says
    ];
    for (arg, want, fails) in cases {
        let args: Arguments = arg.clone().map(|v| (FACTOR_ARGUMENT, v)).into_iter().collect();
        let (_, o, r) = opened(View::default(), args);
        assert_eq!(r.is_err(), fails, "{:?}: {:?}", arg, r.err());
        if !fails {
            assert_eq!(o.factor, want, "{:?}", arg);
        }
    }
    let args: Arguments = [(FACTOR_ARGUMENT, "lots")].into_iter().collect();
    let err = opened(View::default(), args).2.unwrap_err();
    assert_eq!(err.to_string(), "argument \"overcommit-factor\": expected a number, got string lots");
}

/// A node of 10 cpu with 6 in use and factor 1.2 leaves 6 cpu of room; an
/// Inqueue job claims 2 of it.
#[test]
fn job_enqueueable() {
    let job = |name: &str, ph: &str, min: i64| Job { name: name.into(), phase: ph.into(), min_resources: cpu(min), ..Job::default() };
    let view = View {
        nodes: vec![Node { name: "n1".into(), allocatable: cpu(10000), used: cpu(6000), ..Node::default() }],
        jobs: vec![job("admitted", phase::INQUEUE, 2000), job("fits", phase::PENDING, 4000), job("too big", phase::PENDING, 4001), job("no minimum", phase::PENDING, 0)],
        ..View::default()
    };
    let (s, mut o, r) = opened(view, Arguments::default());
    r.unwrap();
    for (j, want) in s.jobs().iter().zip([Vote::Permit, Vote::Permit, Vote::Reject, Vote::Permit]) {
        assert_eq!(o.job_enqueueable(&s, j), want, "{}", j.name);
    }
    // Once "fits" is admitted nothing of its size fits any more.
    o.on_job_enqueued(&s, &s.jobs()[1]);
    assert_eq!(o.job_enqueueable(&s, &s.jobs()[1]), Vote::Reject, "after admitting fits");
}

#[test]
fn running_job_claims_what_it_lacks() {
    let min = Resource { milli_cpu: 3000, scalars: [("nvidia.com/gpu".to_string(), 2000), ("count/pods".to_string(), 4)].into_iter().collect(), ..Resource::default() };
    let view = View {
        nodes: vec![Node { name: "n1".into(), allocatable: cpu(10000), ..Node::default() }],
        jobs: vec![Job { name: "running".into(), phase: phase::RUNNING.into(), min_available: 1, min_resources: min, ..Job::default() }],
        tasks: vec![task(0, status::RUNNING, 0, 1000, 0)],
        ..View::default()
    };
    let (_, o, r) = opened(view, Arguments::default());
    r.unwrap();
    assert_eq!(o.inqueue, Quantities { milli_cpu: 2000.0, memory: 0.0, scalars: vec![("nvidia.com/gpu".to_string(), 2000.0)] });
}
