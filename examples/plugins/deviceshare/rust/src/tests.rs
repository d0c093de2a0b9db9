//! The native plugin's tests (hostplugins/deviceshare/plugin_test.go) on
//! the view the scheduler builds for them, and what the port adds: its
//! grants followed through deallocations, evictions undone and a reopened
//! session.

use caldera::{Arguments, Gpu, Value, View};

use super::*;

const SHARING: &str = "deviceshare.GPUSharingEnable";
const NUMBERS: &str = "deviceshare.GPUNumberEnable";

/// A node of 4 cards of 4000 each, as the view gives it: `held` lists
/// (card, memory used, holders) of the cards pods hold, `unhealthy` the
/// cards flagged so.
fn gpu_node(name: &str, unhealthy: &[i32], held: &[(i32, i64, i32)]) -> Node {
    let gpus = (0..4)
        .map(|id| {
            let (used, holders) = held.iter().find(|h| h.0 == id).map_or((0, 0), |h| (h.1, h.2));
            Gpu { id, memory: 4000, used, holders, unhealthy: unhealthy.contains(&id) }
        })
        .collect();
    Node { name: name.into(), gpus, ..Node::default() }
}

/// A pod asking for GPU memory or cards; `index` names the cards it holds
/// when it runs on `node`.
fn gpu_pod(name: &str, node: i32, memory: i64, number: i64, index: &str) -> Task {
    let mut t = Task { namespace: "ns".into(), name: name.into(), node, gpu_memory: memory, gpu_number: number, ..Task::default() };
    if node >= 0 {
        t.status = status::RUNNING.into();
    }
    if !index.is_empty() {
        t.annotations.insert(INDEX_ANNOTATION.into(), index.into());
    }
    t
}

fn enabled(key: &str) -> Arguments {
    [(key, Value::Bool(true))].into_iter().collect()
}

fn open(args: Arguments, nodes: Vec<Node>, tasks: Vec<Task>) -> (DeviceShare, Session) {
    let s = Session::new(View { nodes, tasks, ..View::default() }, args);
    let mut p = DeviceShare::default();
    p.on_session_open(&s).unwrap();
    (p, s)
}

/// The session after a placement of task `t` on `node` (the SDK applies
/// the event to the view before the hook runs), or after its removal
/// (`node` -1).
fn moved(s: &Session, t: usize, node: i32, st: &str) -> Session {
    let mut v = s.view().clone();
    v.tasks[t].node = node;
    v.tasks[t].status = st.into();
    Session::new(v, s.arguments().clone())
}

fn verdict(p: &mut DeviceShare, s: &Session, t: usize, node: usize) -> Verdict {
    let mut out = [Verdict::PASS];
    p.predicate_batch(s, &s.tasks()[t], &[&s.nodes()[node]], &mut out);
    out[0].clone()
}

fn allocate(p: &mut DeviceShare, s: &Session, t: usize) -> Result<Annotations, String> {
    p.allocate(s, &s.tasks()[t], 42)
}

/// The cards an answer names, and whether its time reads as Unix
/// nanoseconds.
fn named(a: &Annotations) -> &str {
    let time = a[PREDICATE_TIME_ANNOTATION].as_deref().unwrap();
    assert!(time.parse::<i64>().map_or(false, |ns| ns > 0), "predicate time {:?}", time);
    assert_eq!(a.len(), 2, "{:?}", a);
    a[INDEX_ANNOTATION].as_deref().unwrap()
}

/// TestSharingTakesTheFirstCardWithRoom: card 0 has 1000 free, card 1
/// 3000, cards 2 and 3 are unhealthy.
#[test]
fn sharing_takes_the_first_card_with_room() {
    let n1 = gpu_node("n1", &[2, 3], &[(0, 3000, 1), (1, 1000, 1)]);
    let tasks = vec![gpu_pod("a", 0, 3000, 0, "0"), gpu_pod("b", 0, 1000, 0, "1"), gpu_pod("big", -1, 3000, 0, ""), gpu_pod("huge", -1, 3500, 0, "")];
    let (mut p, s) = open(enabled(SHARING), vec![n1], tasks);
    assert_eq!(verdict(&mut p, &s, 3, 0), Verdict::reject("GpuShare no enough gpu memory on node n1"));
    assert!(verdict(&mut p, &s, 2, 0).is_pass());

    let placed = moved(&s, 2, 0, status::ALLOCATED);
    assert_eq!(named(&allocate(&mut p, &placed, 2).unwrap()), "1");
    // Card 1 is now full: another 3000 fits nowhere.
    assert!(!verdict(&mut p, &placed, 2, 0).is_pass(), "card 1 still has room after big took it");
    // Asked again, the task keeps its grant and is told nothing.
    assert_eq!(allocate(&mut p, &placed, 2), Ok(Annotations::new()));

    let undone = moved(&s, 2, -1, status::PENDING);
    p.on_deallocate(&undone, &undone.tasks()[2]);
    assert!(verdict(&mut p, &undone, 2, 0).is_pass(), "after the deallocation");
}

/// TestNumbersTakeIdleCards: card 0 is held by a running pod, cards 1 to 3
/// are idle.
#[test]
fn numbers_take_idle_cards() {
    let n1 = gpu_node("n1", &[], &[(0, 0, 1)]);
    let (mut p, s) = open(enabled(NUMBERS), vec![n1], vec![gpu_pod("a", 0, 0, 1, "0"), gpu_pod("two", -1, 0, 2, ""), gpu_pod("four", -1, 0, 4, "")]);
    assert_eq!(verdict(&mut p, &s, 2, 0), Verdict::reject("GpuNumber no enough gpu number on node n1"));
    let placed = moved(&s, 1, 0, status::PIPELINED);
    assert_eq!(named(&allocate(&mut p, &placed, 1).unwrap()), "1,2");
    // Only card 3 is idle now.
    let four = moved(&placed, 2, 0, status::ALLOCATED);
    assert_eq!(
        allocate(&mut p, &four, 2),
        Err("deviceshare: node n1 has fewer than 4 idle GPUs for pod ns/four".to_string())
    );
}

/// A card held with no memory (a finished pod the session still sees)
/// is not idle; a card given with numbers is held, whatever memory the pod
/// names.
#[test]
fn numbers_count_holders_not_memory() {
    let n1 = gpu_node("n1", &[2, 3], &[(0, 0, 1)]);
    let (mut p, s) = open(enabled(NUMBERS), vec![n1], vec![gpu_pod("one", -1, 0, 1, ""), gpu_pod("other", -1, 0, 1, "")]);
    assert!(verdict(&mut p, &s, 0, 0).is_pass());
    assert_eq!(named(&allocate(&mut p, &moved(&s, 0, 0, status::ALLOCATED), 0).unwrap()), "1");
    assert_eq!(verdict(&mut p, &s, 1, 0), Verdict::reject("GpuNumber no enough gpu number on node n1"));
}

/// TestNodesWithoutCardsAndPodsWithoutRequestsPass, and a node whose every
/// card is unhealthy, which the native plugin has cards for, none usable.
#[test]
fn nodes_without_cards_and_pods_without_requests_pass() {
    let plain = Node { name: "plain".into(), ..Node::default() };
    let broken = gpu_node("broken", &[0, 1, 2, 3], &[]);
    let nodes = vec![plain, gpu_node("n1", &[], &[]), broken];
    let tasks = vec![gpu_pod("g", -1, 1000, 0, ""), Task { namespace: "ns".into(), name: "cpu".into(), ..Task::default() }];
    let (mut p, s) = open(enabled(SHARING), nodes, tasks);
    assert!(verdict(&mut p, &s, 0, 0).is_pass(), "node without cards");
    assert_eq!(verdict(&mut p, &s, 0, 2), Verdict::reject("GpuShare no enough gpu memory on node broken"));
    assert!(verdict(&mut p, &s, 1, 1).is_pass());
    assert_eq!(allocate(&mut p, &moved(&s, 1, 1, status::ALLOCATED), 1), Ok(Annotations::new()), "a pod without a GPU request");
    assert_eq!(allocate(&mut p, &moved(&s, 0, 0, status::ALLOCATED), 0), Ok(Annotations::new()), "a node without cards");
}

/// With neither kind on the port offers nothing, as the native plugin
/// offers no hook; the other kind's requests count for nothing either.
#[test]
fn only_the_enabled_kind_counts() {
    let nodes = vec![gpu_node("n1", &[1, 2, 3], &[(0, 4000, 1)])];
    let tasks = vec![gpu_pod("mem", -1, 1000, 0, ""), gpu_pod("cards", -1, 0, 1, "")];
    let (mut p, s) = open(Arguments::default(), nodes.clone(), tasks.clone());
    for t in 0..2 {
        assert!(verdict(&mut p, &s, t, 0).is_pass());
        assert_eq!(allocate(&mut p, &moved(&s, t, 0, status::ALLOCATED), t), Ok(Annotations::new()));
    }
    let (mut p, s) = open(enabled(SHARING), nodes.clone(), tasks.clone());
    assert!(!verdict(&mut p, &s, 0, 0).is_pass());
    assert!(verdict(&mut p, &s, 1, 0).is_pass(), "numbers are off");
    let (mut p, s) = open(enabled(NUMBERS), nodes, tasks);
    assert!(verdict(&mut p, &s, 0, 0).is_pass(), "sharing is off");
    assert!(!verdict(&mut p, &s, 1, 0).is_pass());
}

/// Another placement took the card since the predicate: the placement is
/// refused in the native plugin's words, and nothing is held for it.
#[test]
fn a_placement_that_no_longer_fits_is_refused() {
    let (mut p, s) = open(enabled(SHARING), vec![gpu_node("n1", &[1, 2, 3], &[])], vec![gpu_pod("a", -1, 3000, 0, ""), gpu_pod("b", -1, 3000, 0, "")]);
    assert!(verdict(&mut p, &s, 1, 0).is_pass());
    let a = moved(&s, 0, 0, status::ALLOCATED);
    assert_eq!(named(&allocate(&mut p, &a, 0).unwrap()), "0");
    let b = moved(&a, 1, 0, status::ALLOCATED);
    assert_eq!(
        allocate(&mut p, &b, 1),
        Err("deviceshare: no GPU on node n1 has 3000 of volcano.sh/gpu-memory free for pod ns/b".to_string())
    );
    // The refusal's deallocation gives back nothing; a's own does.
    p.on_deallocate(&b, &b.tasks()[1]);
    assert!(!verdict(&mut p, &b, 1, 0).is_pass());
    p.on_deallocate(&b, &b.tasks()[0]);
    assert_eq!(named(&allocate(&mut p, &b, 1).unwrap()), "0");
}

/// An eviction undone gives a running pod its card again, as the native
/// plugin does: on its own card (card 0 has room for it) the hold is
/// replaced, not doubled, and a later eviction gives back the card it was
/// given, its own included.
#[test]
fn an_eviction_undone_takes_cards_as_native() {
    let n1 = gpu_node("n1", &[2, 3], &[(0, 2000, 1)]);
    let (mut p, s) = open(enabled(SHARING), vec![n1], vec![gpu_pod("run", 0, 2000, 0, "0"), gpu_pod("new", -1, 2000, 0, ""), gpu_pod("big", -1, 4000, 0, "")]);
    let evicted = moved(&s, 0, 0, status::RELEASING);
    p.on_deallocate(&evicted, &evicted.tasks()[0]);
    assert_eq!(verdict(&mut p, &s, 2, 0), Verdict::PASS, "card 1 is free");
    let back = moved(&s, 0, 0, status::RUNNING);
    assert_eq!(named(&allocate(&mut p, &back, 0).unwrap()), "0");
    // Card 0 holds the pod once: 2000 are left there, card 1 is free.
    let new = moved(&back, 1, 0, status::ALLOCATED);
    assert_eq!(named(&allocate(&mut p, &new, 1).unwrap()), "0");
    assert!(verdict(&mut p, &new, 2, 0).is_pass());
    // Evicted again, the pod gives card 0 back whole.
    p.on_deallocate(&evicted, &evicted.tasks()[0]);
    let big = moved(&new, 2, 0, status::ALLOCATED);
    assert_eq!(named(&allocate(&mut p, &big, 2).unwrap()), "1");
    let more = moved(&big, 0, 0, status::RUNNING);
    assert_eq!(named(&allocate(&mut p, &more, 0).unwrap()), "0", "2000 left on card 0 after the give-back");
}

/// A session opened again after a failure sees its own placements with
/// the cards the scheduler will name at their bind, counted on the node:
/// they are the session's grants, given back when the task leaves.
#[test]
fn a_reopened_session_counts_its_placements() {
    let mut placed = gpu_pod("placed", 0, 0, 2, "0,1");
    placed.status = status::ALLOCATED.into();
    let (mut p, s) = open(enabled(NUMBERS), vec![gpu_node("n1", &[3], &[(0, 0, 1), (1, 0, 1)])], vec![gpu_pod("next", -1, 0, 2, ""), placed]);
    assert_eq!(verdict(&mut p, &s, 0, 0), Verdict::reject("GpuNumber no enough gpu number on node n1"));
    assert_eq!(allocate(&mut p, &s, 1), Ok(Annotations::new()), "given already");
    p.on_deallocate(&s, &s.tasks()[1]);
    assert!(verdict(&mut p, &s, 0, 0).is_pass());
}

#[test]
fn refused_arguments_refuse_the_session() {
    let s = Session::new(View::default(), [(SHARING, Value::Bool(true)), (NUMBERS, Value::Bool(true))].into_iter().collect());
    let err = DeviceShare::default().on_session_open(&s).unwrap_err();
    assert_eq!(err.to_string(), "deviceshare.GPUSharingEnable and deviceshare.GPUNumberEnable cannot both be true");
}
