//! The Go port's tests (examples/plugins/proportion/go/main_test.go), one
//! for one.

use caldera::{phase, status, Arguments, Job, JobEnqueueable, Node, Preemptive, Queue, Resource, Session, Task, View, Vote};
use caldera::{Allocatable, Overused, Plugin, QueueOrder, Reclaimable};

use std::collections::BTreeMap;

use super::*;

mod allocs;

const GI: i64 = 1 << 30;

fn node8() -> Node {
    let allocatable = Resource { milli_cpu: 8000, memory: 8 * GI, scalars: [("pods".to_string(), 110)].into_iter().collect() };
    Node { name: "n1".into(), allocatable, ..Node::default() }
}

/// A task of `job` on `node` (-1 for none) with a request of `cpu`
/// milli-CPU, `memory` bytes and one pod slot.
fn task(job: i32, st: &str, node: i32, cpu: i64, memory: i64) -> Task {
    let request = Resource { milli_cpu: cpu, memory, scalars: [("pods".to_string(), 1)].into_iter().collect() };
    Task { namespace: "ns".into(), job, status: st.into(), node, request, ..Task::default() }
}

/// `n` tasks of `job`, each of 1 cpu and 1 GiB.
fn tasks(job: i32, n: usize, st: &str, node: i32) -> Vec<Task> {
    (0..n).map(|_| task(job, st, node, 1000, GI)).collect()
}

fn queue(name: &str, weight: i32) -> Queue {
    Queue { name: name.into(), weight, ..Queue::default() }
}

fn cpu(m: i64) -> Resource {
    Resource { milli_cpu: m, ..Resource::default() }
}

fn job(name: &str, queue: i32, ph: &str) -> Job {
    Job { name: name.into(), queue, phase: ph.into(), ..Job::default() }
}

fn open(view: View) -> (Session, Proportion) {
    let s = Session::new(view, Arguments::default());
    let mut p = Proportion::default();
    p.on_session_open(&s).unwrap();
    (s, p)
}

fn deserved_cpu(p: &Proportion, q: usize) -> f64 {
    p.queues[q].as_ref().unwrap().deserved.milli_cpu
}

#[test]
fn deserved() {
    let both: Vec<Task> = tasks(0, 8, status::PENDING, -1).into_iter().chain(tasks(1, 8, status::PENDING, -1)).collect();
    let one_and_eight: Vec<Task> = tasks(0, 1, status::PENDING, -1).into_iter().chain(tasks(1, 8, status::PENDING, -1)).collect();
    let capped = Queue { capability: cpu(2000), ..queue("q1", 1) };
    let guaranteed = Queue { guarantee: cpu(4000), ..queue("q1", 1) };
    let cases: Vec<(&str, Queue, Queue, Vec<Task>, f64, f64)> = vec![
        ("weights 1:3 split the cluster 2:6", queue("q1", 1), queue("q2", 3), both.clone(), 2000.0, 6000.0),
        ("what a capability caps goes to the other queue", capped, queue("q2", 1), both.clone(), 2000.0, 6000.0),
        ("a guarantee is deserved whatever the weight", guaranteed, queue("q2", 3), both, 4000.0, 4000.0),
        ("a queue deserves no more than it asks for", queue("q1", 1), queue("q2", 1), one_and_eight, 1000.0, 7000.0),
    ];
    for (name, q1, q2, tasks, want1, want2) in cases {
        let jobs = vec![job("pg1", 0, phase::INQUEUE), job("pg2", 1, phase::INQUEUE)];
        let (_, p) = open(View { nodes: vec![node8()], queues: vec![q1, q2], jobs, tasks, ..View::default() });
        assert!((deserved_cpu(&p, 0) - want1).abs() <= 1e-6, "{}: q1 deserves {} milli-cpu, want {}", name, deserved_cpu(&p, 0), want1);
        assert!((deserved_cpu(&p, 1) - want2).abs() <= 1e-6, "{}: q2 deserves {} milli-cpu, want {}", name, deserved_cpu(&p, 1), want2);
    }
}

/// q1 (weight 1) runs six 1-cpu tasks and q2 (weight 1) waits with eight:
/// each deserves 4 cpu, so q1 is over its share.
fn busy(q2_state: &str) -> (Session, Proportion) {
    let running = Job { min_available: 1, ..job("pg1", 0, phase::RUNNING) };
    let waiting = Job { min_available: 1, ..job("pg2", 1, phase::INQUEUE) };
    open(View {
        nodes: vec![node8()],
        queues: vec![queue("q1", 1), Queue { state: q2_state.into(), ..queue("q2", 1) }],
        jobs: vec![running, waiting],
        tasks: tasks(0, 6, status::RUNNING, 0).into_iter().chain(tasks(1, 8, status::PENDING, -1)).collect(),
        ..View::default()
    })
}

#[test]
fn overused_and_allocatable() {
    let (s, mut p) = busy("Open");
    let (q1, q2) = (&s.queues()[0], &s.queues()[1]);
    let waiting = &s.tasks()[6];
    assert!(p.overused(&s, q1) && !p.overused(&s, q2), "overused q1 {} q2 {}, want true false", p.overused(&s, q1), p.overused(&s, q2));
    assert!(p.allocatable(&s, q2, waiting) && !p.allocatable(&s, q1, waiting), "q2 should take a task and q1 not");
    // q2 takes four tasks, then no more; it is still not overused, as it
    // deserves a pod slot for each of its 8 tasks and holds 4.
    for t in &s.tasks()[6..10] {
        p.on_allocate(&s, &Task { status: status::ALLOCATED.into(), node: 0, ..t.clone() });
    }
    assert!(!p.allocatable(&s, q2, &s.tasks()[10]) && !p.overused(&s, q2), "q2 at its deserved cpu still takes tasks, or is overused with pod slots to spare");
    assert_eq!(p.queue_order_key(&s, q2)[1], 1.0, "q2's share");
    assert!(p.preemptive(&s, q1, &[]) && !p.preemptive(&s, q1, &[&s.tasks()[10]]), "preemptive: q1 may take nothing more");
}

#[test]
fn closed_queue_takes_nothing() {
    let (s, mut p) = busy("Closed");
    assert!(!p.allocatable(&s, &s.queues()[1], &s.tasks()[6]), "a closed queue takes a task");
    assert_eq!(p.job_enqueueable(&s, &s.jobs()[1]), Vote::Reject, "a closed queue takes a job");
}

#[test]
fn reclaim_takes_only_the_over_share() {
    let (s, mut p) = busy("Open");
    let candidates: Vec<&Task> = s.tasks()[..6].iter().collect();
    for call in 0..2 {
        // What a queue still holds starts afresh on every call.
        let victims = p.reclaimable(&s, &s.tasks()[6], &candidates).expect("a vote");
        assert_eq!(victims.len(), 2, "call {}: want the 2 tasks beyond q1's 4 cpu", call);
    }
}

#[test]
fn enqueue() {
    let capped = Queue { capability: cpu(4000), ..queue("q1", 1) };
    let (s, mut p) = open(View {
        nodes: vec![node8()],
        queues: vec![capped],
        jobs: vec![
            Job { min_resources: cpu(2000), ..job("admitted", 0, phase::INQUEUE) },
            Job { min_resources: cpu(2000), ..job("fits", 0, phase::PENDING) },
            job("no minimum", 0, phase::PENDING),
            job("no queue", -1, phase::PENDING),
        ],
        tasks: tasks(0, 1, status::PENDING, -1),
        ..View::default()
    });
    let jobs = s.jobs();
    assert_eq!(p.job_enqueueable(&s, &jobs[1]), Vote::Permit, "fits");
    p.on_job_enqueued(&s, &jobs[1]);
    assert_eq!(p.job_enqueueable(&s, &jobs[1]), Vote::Reject, "fits again once admitted");
    assert_eq!(p.job_enqueueable(&s, &jobs[2]), Vote::Permit, "no minimum");
    assert_eq!(p.job_enqueueable(&s, &jobs[3]), Vote::Abstain, "no queue");
}

/// Admission is asked once per pending job per session: once warm it
/// allocates nothing, whether or not the job's minResources has scalars.
#[test]
fn job_enqueueable_allocates_nothing() {
    let gpus: BTreeMap<String, i64> = [("nvidia.com/gpu".to_string(), 1000)].into_iter().collect();
    let (s, mut p) = open(View {
        nodes: vec![node8()],
        queues: vec![queue("q1", 1)],
        jobs: vec![
            Job { min_resources: Resource { milli_cpu: 2000, memory: 0, scalars: gpus }, ..job("gpu", 0, phase::PENDING) },
            Job { min_resources: cpu(2000), ..job("cpu", 0, phase::PENDING) },
        ],
        tasks: tasks(0, 1, status::PENDING, -1),
        ..View::default()
    });
    for j in s.jobs() {
        p.job_enqueueable(&s, j);
    }
    for j in s.jobs() {
        let n = allocs::counted(|| {
            p.job_enqueueable(&s, j);
        });
        assert_eq!(n, 0, "job {}: job_enqueueable allocated {} times", j.name, n);
    }
}

/// Opening a session costs allocations per queue, not per job: reopening
/// one of 200 jobs allocates as often as one of 100 (both ask for more than
/// the cluster has, so that deserved takes as many rounds).
#[test]
fn reopening_allocates_nothing_per_job() {
    let reopen = |jobs: i32| {
        let gpus: BTreeMap<String, i64> = [("nvidia.com/gpu".to_string(), 1000)].into_iter().collect();
        let mut v = View { nodes: vec![node8()], queues: vec![queue("q1", 1)], ..View::default() };
        for j in 0..jobs {
            let ph = if j % 2 == 0 { phase::RUNNING } else { phase::INQUEUE };
            let min = Resource { milli_cpu: 2000, memory: GI, scalars: gpus.clone() };
            v.jobs.push(Job { min_available: 1, min_resources: min, ..job("", 0, ph) });
            v.tasks.push(task(j, status::RUNNING, 0, 1000, GI));
            v.tasks.push(task(j, status::PENDING, -1, 1000, GI));
        }
        let (s, mut p) = open(v);
        allocs::counted(|| p.on_session_open(&s).unwrap())
    };
    let (few, many) = (reopen(100), reopen(200));
    assert_eq!(few, many, "reopening a session of 100 jobs allocated {} times, of 200 jobs {} times", few, many);
}
