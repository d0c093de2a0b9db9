//! Which hook traits a plugin type implements, found at compile time.
//!
//! Rust has no stable specialization, but method resolution prefers a
//! method whose receiver needs fewer auto-references ("autoref-based
//! specialization"). For every hook, `Via*` is implemented for `Probe<P>`
//! when `P` implements the hook's trait, and `No*` for `&Probe<P>` always;
//! `(&Probe::<P>::new()).hook()` then picks `Via*` (receiver `&Probe<P>`,
//! found first) when it applies and `No*` (receiver `&&Probe<P>`)
//! otherwise. This only works where `P` is a concrete type, which is why
//! [`export!`](crate::export) expands it in the plugin's crate.

use std::marker::PhantomData;

use crate::event::CacheEventHandler;
use crate::hooks::*;
use crate::module::{
    AllocateFn, AllocatableFn, BestNodeFn, CacheEventFn, EvictableFn, HyperNodeGradientFn, HyperNodeOrderFn, JobFn, KeyFn, NodeOrderFn, PrePredicateFn, PredicateFn, PreemptiveFn, QueueFn, TargetJobFn, VictimFn,
    VictimQueueKeyFn, VictimTasksFn,
};
use crate::view::{Handle, Job, Queue, Task};

pub struct Probe<P>(PhantomData<P>);

impl<P> Probe<P> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Probe(PhantomData)
    }
}

macro_rules! probe {
    ($via:ident, $no:ident, $hook:ident, $method:ident: $fn:ty = $body:expr) => {
        pub trait $via<P> {
            fn $method(&self) -> Option<$fn>;
        }
        impl<P: $hook> $via<P> for Probe<P> {
            fn $method(&self) -> Option<$fn> {
                let f: $fn = $body;
                Some(f)
            }
        }
        pub trait $no<P> {
            fn $method(&self) -> Option<$fn> {
                None
            }
        }
        impl<P> $no<P> for &Probe<P> {}
    };
}

probe!(ViaJobOrder, NoJobOrder, JobOrder, job_order_keys: KeyFn<P, Job> =
    |p, s, j, out| out.extend_from_slice(p.job_order_key(s, j).as_ref()));
probe!(ViaTaskOrder, NoTaskOrder, TaskOrder, task_order_keys: KeyFn<P, Task> =
    |p, s, t, out| out.extend_from_slice(p.task_order_key(s, t).as_ref()));
probe!(ViaQueueOrder, NoQueueOrder, QueueOrder, queue_order_keys: KeyFn<P, Queue> =
    |p, s, q, out| out.extend_from_slice(p.queue_order_key(s, q).as_ref()));
probe!(ViaVictimQueueOrder, NoVictimQueueOrder, VictimQueueOrder, victim_queue_order_keys: VictimQueueKeyFn<P> =
    |p, s, q, preemptor, out| out.extend_from_slice(p.victim_queue_order_key(s, q, preemptor).as_ref()));
probe!(ViaPrePredicate, NoPrePredicate, PrePredicate, pre_predicate: PrePredicateFn<P> =
    |p, s, t| p.pre_predicate(s, t));
probe!(ViaPredicate, NoPredicate, Predicate, predicate_batch: PredicateFn<P> =
    |p, s, t, nodes, verdicts| p.predicate_batch(s, t, nodes, verdicts));
probe!(ViaNodeOrder, NoNodeOrder, NodeOrder, node_order_batch: NodeOrderFn<P> =
    |p, s, t, nodes, scores| p.node_order_batch(s, t, nodes, scores));
probe!(ViaBestNode, NoBestNode, BestNode, best_node: BestNodeFn<P> =
    |p, s, t, nodes, scores| p.best_node(s, t, nodes, scores).map_or(-1, |n| n.handle));
probe!(ViaPreemptable, NoPreemptable, Preemptable, preemptable: VictimFn<P> =
    |p, s, t, candidates, out| victims(p.preemptable(s, t, candidates), out));
probe!(ViaReclaimable, NoReclaimable, Reclaimable, reclaimable: VictimFn<P> =
    |p, s, t, candidates, out| victims(p.reclaimable(s, t, candidates), out));
probe!(ViaEvictable, NoEvictable, Evictable, evictable: EvictableFn<P> =
    |p, s, ctx, candidates, out| victims(p.evictable(s, ctx, candidates), out));
probe!(ViaHyperNodeOrder, NoHyperNodeOrder, HyperNodeOrder, hyper_node_order: HyperNodeOrderFn<P> =
    |p, s, search, hyper_nodes, scores| p.hyper_node_order(s, search, hyper_nodes, scores));
probe!(ViaHyperNodeGradient, NoHyperNodeGradient, HyperNodeGradient, hyper_node_gradient: HyperNodeGradientFn<P> =
    |p, s, search, out, ends| {
        for g in p.hyper_node_gradient(s, search) {
            out.extend(g.iter().map(|h| h.handle));
            ends.push(out.len());
        }
    });
probe!(ViaAllocate, NoAllocate, Allocate, allocate: AllocateFn<P> =
    |p, s, t, now| p.allocate(s, t, now));
probe!(ViaOverused, NoOverused, Overused, overused: QueueFn<P> =
    |p, s, q| p.overused(s, q));
probe!(ViaAllocatable, NoAllocatable, Allocatable, allocatable: AllocatableFn<P> =
    |p, s, q, t| p.allocatable(s, q, t));
probe!(ViaPreemptive, NoPreemptive, Preemptive, preemptive: PreemptiveFn<P> =
    |p, s, q, tasks| p.preemptive(s, q, tasks));
probe!(ViaJobReady, NoJobReady, JobReady, job_ready: JobFn<P, bool> =
    |p, s, j| p.job_ready(s, j));
probe!(ViaJobPipelined, NoJobPipelined, JobPipelined, job_pipelined: JobFn<P, Vote> =
    |p, s, j| p.job_pipelined(s, j));
probe!(ViaJobValid, NoJobValid, JobValid, job_valid: JobFn<P, Result<(), Invalid>> =
    |p, s, j| p.job_valid(s, j));
probe!(ViaJobEnqueueable, NoJobEnqueueable, JobEnqueueable, job_enqueueable: JobFn<P, Vote> =
    |p, s, j| p.job_enqueueable(s, j));
probe!(ViaJobStarving, NoJobStarving, JobStarving, job_starving: JobFn<P, bool> =
    |p, s, j| p.job_starving(s, j));
probe!(ViaVictimTasks, NoVictimTasks, VictimTasks, victim_tasks: VictimTasksFn<P> =
    |p, s, tasks, out| out.extend(p.victim_tasks(s, tasks).iter().map(|t| t.handle)));
probe!(ViaTargetJob, NoTargetJob, TargetJob, target_job: TargetJobFn<P> =
    |p, s, jobs| p.target_job(s, jobs).map_or(-1, |j| j.handle));
probe!(ViaCacheEvent, NoCacheEvent, CacheEventHandler, cache_event: CacheEventFn<P> =
    |p, e| p.on_cache_event(e));

/// An event handler's `EVENT_KINDS`, found the same way; empty for a type
/// that is not one.
pub trait ViaEventKinds<P> {
    fn event_kinds(&self) -> &'static [&'static str];
}
impl<P: CacheEventHandler> ViaEventKinds<P> for Probe<P> {
    fn event_kinds(&self) -> &'static [&'static str] {
        P::EVENT_KINDS
    }
}
pub trait NoEventKinds<P> {
    fn event_kinds(&self) -> &'static [&'static str] {
        &[]
    }
}
impl<P> NoEventKinds<P> for &Probe<P> {}

fn victims(chosen: Option<Vec<&Task>>, out: &mut Vec<Handle>) -> bool {
    match chosen {
        Some(v) => {
            out.extend(v.iter().map(|t| t.handle));
            true
        }
        None => false,
    }
}

/// The hook table of a concrete plugin type.
#[doc(hidden)]
#[macro_export]
macro_rules! __hooks {
    ($ty:ty) => {{
        #[allow(unused_imports)]
        use $crate::__private::probe::*;
        let p = $crate::__private::probe::Probe::<$ty>::new();
        $crate::__private::Hooks::<$ty> {
            job_order_keys: (&p).job_order_keys(),
            task_order_keys: (&p).task_order_keys(),
            queue_order_keys: (&p).queue_order_keys(),
            victim_queue_order_keys: (&p).victim_queue_order_keys(),
            pre_predicate: (&p).pre_predicate(),
            predicate_batch: (&p).predicate_batch(),
            node_order_batch: (&p).node_order_batch(),
            best_node: (&p).best_node(),
            preemptable: (&p).preemptable(),
            reclaimable: (&p).reclaimable(),
            evictable: (&p).evictable(),
            hyper_node_order: (&p).hyper_node_order(),
            hyper_node_gradient: (&p).hyper_node_gradient(),
            allocate: (&p).allocate(),
            overused: (&p).overused(),
            allocatable: (&p).allocatable(),
            preemptive: (&p).preemptive(),
            job_ready: (&p).job_ready(),
            job_pipelined: (&p).job_pipelined(),
            job_valid: (&p).job_valid(),
            job_enqueueable: (&p).job_enqueueable(),
            job_starving: (&p).job_starving(),
            victim_tasks: (&p).victim_tasks(),
            target_job: (&p).target_job(),
            cache_event: (&p).cache_event(),
            event_kinds: (&p).event_kinds(),
        }
    }};
}
