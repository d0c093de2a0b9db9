use caldera::{Arguments, View};

use super::*;

fn cpu(m: i64) -> caldera::Resource {
    caldera::Resource { milli_cpu: m, ..caldera::Resource::default() }
}

/// A two-tier fabric: the cluster top (0) above leaf-a (nodes 0, 1) and
/// leaf-b (node 2); a hard job of tier 1 with one task on node 0 and one
/// pending; edit changes the view before the session opens.
fn fabric(edit: impl FnOnce(&mut View)) -> (Session, NetworkTopologyAware) {
    let node = |name: &str, used| Node { name: name.into(), allocatable: cpu(4000), used: cpu(used), idle: cpu(4000 - used), ..Node::default() };
    let task = |name: &str, st: &str, node| Task {
        name: name.into(),
        job: 0,
        status: st.into(),
        node,
        request: cpu(2000),
        init_request: cpu(2000),
        ..Task::default()
    };
    let hyper_node =
        |name: &str, tier, parent, nodes: &[Handle]| HyperNode { name: name.into(), tier, parent, nodes: nodes.to_vec(), ..HyperNode::default() };
    let mut view = View {
        nodes: vec![node("a0", 2000), node("a1", 0), node("b0", 0)],
        jobs: vec![Job {
            name: "j".into(),
            min_resources: cpu(4000),
            network_topology: Some(NetworkTopology { mode: HARD.into(), highest_tier: Some(1) }),
            ..Job::default()
        }],
        tasks: vec![task("t0", status::RUNNING, 0), task("t1", status::PENDING, -1)],
        hyper_nodes: vec![hyper_node("<cluster-top-hypernode>", 2, -1, &[]), hyper_node("leaf-a", 1, 0, &[0, 1]), hyper_node("leaf-b", 1, 0, &[2])],
        ..View::default()
    };
    edit(&mut view);
    let s = Session::new(view, Arguments::default());
    let mut p = NetworkTopologyAware::default();
    p.on_session_open(&s).unwrap();
    (s, p)
}

fn names<'a>(gradients: &[Vec<&'a HyperNode>]) -> Vec<Vec<&'a str>> {
    gradients.iter().map(|g| g.iter().map(|h| h.name.as_str()).collect()).collect()
}

fn search(job: &Job) -> HyperNodeSearch<'_> {
    HyperNodeSearch { job, allocated: None, within: None, scope: GradientScope::Job, purpose: SearchPurpose::Allocate }
}

/// The job's search offers the leaves of its tier with idle room for its
/// minResources (leaf-a has 6 CPUs idle, leaf-b 4); once it is placed in
/// leaf-a it is confined there; for eviction the widest gradient comes
/// first.
#[test]
fn gradients() {
    let (s, mut p) = fabric(|_| {});
    let (job, top, leaf_a) = (&s.jobs()[0], &s.hyper_nodes()[0], &s.hyper_nodes()[1]);
    let got = p.hyper_node_gradient(&s, &HyperNodeSearch { within: Some(top), ..search(job) });
    assert_eq!(names(&got), [["leaf-a", "leaf-b"]]);
    let got = p.hyper_node_gradient(&s, &HyperNodeSearch { within: Some(top), allocated: Some(leaf_a), ..search(job) });
    assert_eq!(names(&got), [["leaf-a"]]);
    let mut wide = job.clone();
    wide.network_topology = Some(NetworkTopology { mode: HARD.into(), highest_tier: Some(2) });
    let got = p.hyper_node_gradient(&s, &HyperNodeSearch { within: Some(top), purpose: SearchPurpose::Evict, ..search(&wide) });
    assert_eq!(names(&got), [vec!["<cluster-top-hypernode>"], vec!["leaf-a", "leaf-b"]]);
}

/// Room is judged against minResources for the job and against the
/// pending tasks' requests within a hypernode; without a hypernode to
/// search within the search is the cluster top's; a job that is not in
/// hard mode may go anywhere within.
#[test]
fn gradients_judge_room_by_scope() {
    let (s, mut p) = fabric(|v| v.jobs[0].min_resources = cpu(5000));
    let job = &s.jobs()[0];
    assert_eq!(names(&p.hyper_node_gradient(&s, &search(job))), [["leaf-a"]]);
    let tasks = p.hyper_node_gradient(&s, &HyperNodeSearch { scope: GradientScope::Tasks, ..search(job) });
    assert_eq!(names(&tasks), [["leaf-a", "leaf-b"]]);
    let mut free = job.clone();
    free.network_topology = None;
    let leaf_b = &s.hyper_nodes()[2];
    assert_eq!(names(&p.hyper_node_gradient(&s, &HyperNodeSearch { within: Some(leaf_b), ..search(&free) })), [["leaf-b"]]);
}

#[test]
fn eviction_keeps_the_widest_hypernodes() {
    assert_eq!(widest_first(vec![vec!["a", "b", "c"], vec!["d", "e"], vec!["f"]], 4), [vec!["f"], vec!["d", "e"], vec!["c"]]);
    assert_eq!(widest_first(vec![vec!["a"], vec!["b"]], 8), [["b"], ["a"]]);
}

/// A hypernode scores how full the job's 4 CPUs would leave it: leaf-a 6
/// of its 8 (it holds the running task's 2 already), leaf-b all 4.
#[test]
fn hyper_node_order() {
    let (s, mut p) = fabric(|_| {});
    let leaves: Vec<&HyperNode> = s.hyper_nodes()[1..].iter().collect();
    let mut scores = vec![0.0; 2];
    p.hyper_node_order(&s, &search(&s.jobs()[0]), &leaves, &mut scores).unwrap();
    assert_eq!(scores, [100.0 * 6.0 / 8.0, 100.0]);
}

/// With the running task alone, both leaves would be half full; the one
/// holding it wins the tie by its share of the job's tasks.
#[test]
fn hyper_node_order_breaks_ties_by_the_tasks_already_there() {
    let (s, mut p) = fabric(|v| {
        v.tasks.pop();
    });
    let leaves: Vec<&HyperNode> = s.hyper_nodes()[1..].iter().collect();
    let mut scores = vec![0.0; 2];
    p.hyper_node_order(&s, &search(&s.jobs()[0]), &leaves, &mut scores).unwrap();
    assert_eq!(scores, [150.0, 50.0]);
}

/// Placed in leaf-a, the job prefers its nodes (tied, each with half the
/// job's tasks there) to leaf-b's, which only the cluster top joins to it.
/// Before it has placed anything, it scores no node.
#[test]
fn nodes_score_by_closeness_to_the_placement() {
    let (s, mut p) = fabric(|_| {});
    let nodes: Vec<&Node> = s.nodes().iter().collect();
    let mut scores = vec![0.0; 3];
    assert!(p.topology_scores(&s, &s.jobs()[0], Some(&s.hyper_nodes()[1]), &nodes, &mut scores));
    assert_eq!(scores, [1.5, 1.5, 0.0]);
    let mut scores = vec![0.0; 3];
    p.node_order_batch(&s, &s.tasks()[1], &nodes, &mut scores).unwrap();
    assert_eq!(scores, [0.0; 3]);
}

/// A pod of a job without a network topology scores each tier's binpack
/// score of its hypernode, the leaves weighted 1 and the top 0.8.
#[test]
fn normal_pods_score_by_each_tiers_binpacking() {
    let (s, mut p) = fabric(|v| {
        v.jobs.push(Job { name: "plain".into(), ..Job::default() });
        v.tasks.push(Task { name: "p0".into(), job: 1, request: cpu(1000), ..Task::default() });
    });
    let nodes: Vec<&Node> = s.nodes().iter().collect();
    let mut scores = vec![0.0; 3];
    p.node_order_batch(&s, &s.tasks()[2], &nodes, &mut scores).unwrap();
    let (top, total) = (3000.0 / 12000.0, 1.0 + 0.8);
    let (a, b) = ((3000.0 / 8000.0 + 0.8 * top) / total, (1000.0 / 4000.0 + 0.8 * top) / total);
    assert_eq!(scores, [100.0 * a, 100.0 * a, 100.0 * b]);
}

/// A placement is charged to its node's hypernodes, and given back there
/// when the task leaves, though the event names no node.
#[test]
fn events_follow_placements() {
    let (s, mut p) = fabric(|_| {});
    let used = |p: &NetworkTopologyAware| p.usage.iter().map(|u| u.used.get("cpu")).collect::<Vec<_>>();
    let mut t1 = s.tasks()[1].clone();
    t1.node = 2;
    p.on_allocate(&s, &t1);
    assert_eq!(used(&p), [4000.0, 2000.0, 2000.0]);
    t1.node = -1;
    p.on_deallocate(&s, &t1);
    assert_eq!(used(&p), [2000.0, 2000.0, 0.0]);
}
