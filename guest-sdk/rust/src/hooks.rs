//! The hooks a policy may implement: [`Plugin`] for what every policy has,
//! and one small trait per scheduler hook, mirroring the native framework.
//! [`export!`](crate::export) declares to the scheduler exactly the hook
//! traits the plugin type implements; the scheduler calls no other.
//!
//! Every hook gets the [`Session`] read-only: the SDK keeps its view
//! current. A plugin keeps its own state in its fields (`&mut self`).

use std::collections::BTreeMap;

use crate::arguments::Argument;
use crate::session::Session;
use crate::view::{HyperNode, Job, Node, Queue, Task};

/// The error a hook may fail with; any `std::error::Error`, or a message
/// (`Err("no GPUs".into())`).
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// A policy. One value of the type serves every session of a module
/// instance, in turn; the scheduler runs as many instances as it has
/// concurrent callers, so state is never shared between threads.
pub trait Plugin {
    /// The policy's name, informational: the scheduler's configuration names
    /// a module by its file name. Other modules see it in
    /// [`View::plugins`](crate::View::plugins).
    const NAME: &'static str;

    /// Whether the plugin's order keys depend only on what does not change
    /// within a session (priorities, names, annotations), not on placements:
    /// the scheduler then asks for each key once per session instead of
    /// after every placement.
    const STABLE_ORDER_KEYS: bool = false;

    /// Whether an object's order key changes only through events on it: a
    /// task's through events naming it, a job's through events on its tasks
    /// or its admission, a queue's through events on its jobs' tasks (a DRF
    /// share, a gang's readiness). The scheduler then asks again only for
    /// the objects events touched, instead of for the whole list after every
    /// placement. A key that reads anything else must leave it false.
    const LOCAL_ORDER_KEYS: bool = false;

    /// Whether the plugin's `predicate_batch` verdict for a task and a node
    /// depends on nothing but that node and the task's shape (every field
    /// of the task except its namespace, name, job, labels, annotations,
    /// creation time, status and node): not on other nodes, other tasks or
    /// jobs, nor on the order nodes are asked in; the pods on the node count
    /// only through the node's resources, pod count and host ports. The
    /// scheduler then keeps each verdict while the node is unchanged and
    /// asks again only about nodes that changed. A verdict that reads
    /// anything else must leave it false, or stale verdicts will place pods.
    const NODE_LOCAL_PREDICATES: bool = false;

    /// Whether this session's `predicate_batch` verdicts are node-local as
    /// [`Plugin::NODE_LOCAL_PREDICATES`] promises, for a plugin whose
    /// verdicts read other pods in some sessions only (when a task of the
    /// session has inter-pod affinity or topology spread rules). Asked after
    /// [`Plugin::on_session_open`], and only when that constant is true;
    /// false withdraws the promise for the session (ABI 1.4): the scheduler
    /// keeps no verdict of it and serves none kept from earlier sessions.
    fn predicates_node_local_in(&self, _s: &Session) -> bool {
        true
    }

    /// In a session where [`Plugin::predicates_node_local_in`] withdrew the
    /// promise, the tasks whose verdicts are node-local after all (ABI
    /// 1.4): `classes` has one entry per task handle, each -1 (not
    /// node-local) on entry. For a task of class c >= 0 the verdict on a
    /// node depends on nothing but that node (the pods on it, any of their
    /// fields) and the task's shape and class, for the whole session; tasks
    /// of one shape and one class share verdicts. Give tasks that another
    /// pod's anti-affinity tells apart by their labels a class per set of
    /// labels. The scheduler keeps such verdicts for the session only, and
    /// serves a task from them only when its `pre_predicate` was asked
    /// since the last event. Return true to send the classes.
    fn predicates_node_local_classes(&self, _s: &Session, _classes: &mut [i32]) -> bool {
        false
    }

    /// The rules of a task's `predicate_batch` verdicts that read one label
    /// of a node (its topology domain) and whose outcome depends on other
    /// nodes: inter-pod affinity, topology spread (ABI 1.5). Asked after a
    /// `pre_predicate` that passed, on a scheduler that reads rules
    /// ([`Session::host_abi_minor`] 5 or later), for a task of node-local
    /// class c >= 0. Fill `rules` with the rules as of now (none when they
    /// pass every node) and return true to send them; a task with more
    /// than [`MAX_DOMAIN_RULES`] is served without kept verdicts.
    ///
    /// In return the plugin promises that, until the next event, the
    /// task's verdict on a node depends on nothing but that node, the
    /// task's shape without its inter-pod rules (pod affinity, pod
    /// anti-affinity, affinity error, spread constraints, spread defaulted)
    /// and class c, and, where some rule fails, `rules.class` and the state
    /// in which each rule fails there. The scheduler then keeps both kinds
    /// of verdicts and asks again only about nodes that changed, also for
    /// the nodes a spread gang's search walks past.
    fn predicate_domain_rules(&mut self, _s: &Session, _task: &Task, _rules: &mut DomainRules) -> bool {
        false
    }

    /// Whether this session's [`PrePredicate`] verdict for a task depends
    /// on nothing but the task's shape (as
    /// [`Plugin::NODE_LOCAL_PREDICATES`] words it) and the session's
    /// arguments: not on other tasks, jobs or nodes, nor on what the session
    /// placed or evicted. Asked after [`Plugin::on_session_open`]; true lets
    /// the scheduler ask once per shape and keep the verdict, rejections
    /// included, for the rest of the session (session_open's
    /// `prePredicateByShape`).
    fn pre_predicates_by_shape(&self, _s: &Session) -> bool {
        false
    }

    /// Whether this session's [`NodeOrder`] scores are node-local: the
    /// score for a task and a node depends on nothing but that node and the
    /// task's shape (as [`Plugin::NODE_LOCAL_PREDICATES`] words it), not on
    /// the other nodes of the batch either, so no normalisation over them.
    /// Asked after [`Plugin::on_session_open`]; true lets the scheduler keep
    /// each score for the rest of the session while the node is unchanged
    /// and ask only about the nodes without one (session_open's
    /// `nodeLocalScores`). A score that reads anything else must say false,
    /// or stale scores will place pods.
    fn scores_node_local(&self, _s: &Session) -> bool {
        false
    }

    /// Whether, in a session where [`Plugin::scores_node_local`] said true,
    /// the scores read none of a task's inter-pod rules either (pod
    /// affinity, pod anti-affinity, affinity error, spread constraints,
    /// spread defaulted): tasks that differ only there then share kept
    /// scores, the pods of many gangs with spread constraints or
    /// anti-affinity of their own in a session where no score reads them
    /// (session_open's `scoreShapeWithoutRules`, ABI 1.5). Asked only on a
    /// scheduler that reads it ([`Session::host_abi_minor`] 5 or later).
    fn scores_read_no_rules(&self, _s: &Session) -> bool {
        false
    }

    /// Whether the scheduler runs, for this plugin, the volume and device
    /// checks of Volcano's predicates plugin (kube-scheduler's
    /// VolumeBinding, VolumeZone, NodeVolumeLimits and DynamicResources,
    /// with the plugin's `predicate.*`, `volumebinding.*` and
    /// `dynamicresources.*` arguments), which a guest cannot run (ABI
    /// 1.10). The scheduler then rejects a pod whose claims fit nowhere
    /// before asking [`Predicate`], brings each failing node's outcome to
    /// `predicate_batch` ([`Session::node_claims`]), reserves the volumes
    /// and devices of each placement and writes them before the pod is
    /// bound. Only for a plugin that implements [`Predicate`]: a scheduler
    /// refuses one that declares this without it. A scheduler of ABI 1.9
    /// or earlier ignores it and runs no check ([`Session::host_abi_minor`]).
    const CLAIM_CHECKS: bool = false;

    /// The configuration arguments the plugin reads, with their types and
    /// defaults, for the module's descriptor (`caldera plugin inspect`
    /// prints them): `&[Argument::int("tight.weight", 1)]`. Declare them
    /// beside the code that reads them, so that the two cannot drift.
    const ARGUMENTS: &'static [Argument] = &[];

    /// Prepares per-session state (shares, indexes) once the view has
    /// arrived. An error fails the session's calls to this plugin as the
    /// configuration's failure policy says.
    fn on_session_open(&mut self, _s: &Session) -> Result<(), Error> {
        Ok(())
    }

    /// Runs when the session closes: the place to set PodGroup conditions
    /// ([`Session::set_condition`]) and release per-session state. It sees
    /// every placement of the session, those made after the last hook call
    /// included. A plugin that keeps this default is spared applying those:
    /// from its second session on, an instance passes them neither to the
    /// view nor to [`Plugin::on_allocate`], [`Plugin::on_deallocate`] and
    /// [`Plugin::on_job_enqueued`]. The SDK learns it from this default
    /// body, so a wrapper whose own `on_session_close` calls a wrapped
    /// plugin's default counts as having none: such a wrapper must not read
    /// the view at close.
    fn on_session_close(&mut self, s: &Session) {
        s.note_default_close();
    }

    /// A task was placed, pipelined, or its eviction was undone; the view
    /// already shows it (its status says which). Placements made after the
    /// session's last hook call may reach only a plugin that implements
    /// [`Plugin::on_session_close`] (this and the next two observers alike):
    /// rebuild what they count in [`Plugin::on_session_open`].
    fn on_allocate(&mut self, _s: &Session, _task: &Task) {}

    /// A task was taken off its node or evicted; the view already shows it.
    fn on_deallocate(&mut self, _s: &Session, _task: &Task) {}

    /// A job was admitted: its phase is now `Inqueue` in the view.
    fn on_job_enqueued(&mut self, _s: &Session, _job: &Job) {}
}

/// Orders jobs within a queue. Keys are compared element by element, the
/// lower key goes first, a missing element counts as 0, and equal keys leave
/// the decision to the next plugin.
pub trait JobOrder: Plugin {
    /// `[f64; N]` for a key of fixed length (no allocation), `Vec<f64>`
    /// otherwise.
    type Key: AsRef<[f64]>;
    fn job_order_key(&mut self, s: &Session, job: &Job) -> Self::Key;
}

/// Orders the tasks of a job (see [`JobOrder`] for keys).
pub trait TaskOrder: Plugin {
    type Key: AsRef<[f64]>;
    fn task_order_key(&mut self, s: &Session, task: &Task) -> Self::Key;
}

/// Orders queues (see [`JobOrder`] for keys).
pub trait QueueOrder: Plugin {
    type Key: AsRef<[f64]>;
    fn queue_order_key(&mut self, s: &Session, queue: &Queue) -> Self::Key;
}

/// Orders the queues preemption takes victims from, for a preemptor in the
/// queue `preemptor` (see [`JobOrder`] for keys).
pub trait VictimQueueOrder: Plugin {
    type Key: AsRef<[f64]>;
    fn victim_queue_order_key(&mut self, s: &Session, queue: &Queue, preemptor: &Queue) -> Self::Key;
}

/// Rejects a task before any node is looked at.
pub trait PrePredicate: Plugin {
    fn pre_predicate(&mut self, s: &Session, task: &Task) -> Verdict;
}

/// Decides for many nodes at once whether the task may go there:
/// `verdicts[i]` is for `nodes[i]` and arrives as [`Verdict::PASS`]. For a
/// plugin that declares [`Plugin::CLAIM_CHECKS`], [`Session::node_claims`]
/// says what the scheduler's volume and device checks found on `nodes[i]`.
pub trait Predicate: Plugin {
    fn predicate_batch(&mut self, s: &Session, task: &Task, nodes: &[&Node], verdicts: &mut [Verdict]);
}

/// Scores a task on many nodes at once: `scores[i]` is for `nodes[i]` and
/// arrives as 0. The scheduler adds up the scores of every scoring plugin.
pub trait NodeOrder: Plugin {
    fn node_order_batch(&mut self, s: &Session, task: &Task, nodes: &[&Node], scores: &mut [f64]) -> Result<(), Error>;
}

/// May pick the node outright among the scored candidates, which arrive
/// best score first; `None` leaves the choice to the scheduler.
pub trait BestNode: Plugin {
    fn best_node<'s>(&mut self, s: &'s Session, task: &'s Task, nodes: &[&'s Node], scores: &[f64]) -> Option<&'s Node>;
}

/// Names, among `candidates`, the tasks that may be evicted to make room for
/// `preemptor` in its own queue; `None` abstains.
pub trait Preemptable: Plugin {
    fn preemptable<'s>(&mut self, s: &'s Session, preemptor: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>>;
}

/// [`Preemptable`] across queues: the tasks that may be evicted for
/// `reclaimer`; `None` abstains.
pub trait Reclaimable: Plugin {
    fn reclaimable<'s>(&mut self, s: &'s Session, reclaimer: &'s Task, candidates: &[&'s Task]) -> Option<Vec<&'s Task>>;
}

/// Names, among a gang eviction's candidates, the tasks that may be evicted
/// (ABI 1.8); `None` abstains. gangpreempt and gangreclaim group a starving
/// job's candidates by job and order them before asking.
pub trait Evictable: Plugin {
    fn evictable<'s>(&mut self, s: &'s Session, ctx: &Eviction<'_>, candidates: &[&'s Task]) -> Option<Vec<&'s Task>>;
}

/// Which action asks [`Evictable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvictionKind {
    GangPreempt,
    GangReclaim,
}

/// What a gang eviction asks about: the starving job and the hypernode its
/// candidates run in (`<cluster-top-hypernode>` for the whole cluster).
#[derive(Clone, Copy, Debug)]
pub struct Eviction<'a> {
    pub kind: EvictionKind,
    pub job: &'a Job,
    pub hyper_node: &'a str,
}

/// Scores hypernodes for a job with a network topology (ABI 1.9): allocate
/// asks about the candidates of one of the job's gradients and places the
/// job in the best scored one where it fits; scores of every plugin add up.
/// Fill `scores`, one per hypernode; an error fails the call.
pub trait HyperNodeOrder: Plugin {
    fn hyper_node_order(&mut self, s: &Session, search: &HyperNodeSearch<'_>, hyper_nodes: &[&HyperNode], scores: &mut [f64]) -> Result<(), Error>;
}

/// Lists, for a job with a network topology, the hypernodes within
/// `search.within` in which the scheduler may place it (or, for
/// `SearchPurpose::Evict`, look for victims), in gradients tried in turn
/// (ABI 1.9). The first plugin of the first tier that offers it decides; an
/// empty list offers none.
pub trait HyperNodeGradient: Plugin {
    fn hyper_node_gradient<'s>(&mut self, s: &'s Session, search: &HyperNodeSearch<'s>) -> Vec<Vec<&'s HyperNode>>;
}

/// Which search asks for a gradient: allocate first searches for the job
/// as a whole, then within each hypernode for its pending tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradientScope {
    Job,
    Tasks,
}

/// Why a gradient is asked for: to place tasks on free room, or to find
/// domains where evicting others could make room (gangpreempt, gangreclaim).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchPurpose {
    Allocate,
    Evict,
}

/// What a hypernode hook is asked about: the job, the lowest hypernode
/// holding what it placed before this call (`Job::allocated_hyper_node` is
/// as the session opened), and for [`HyperNodeGradient`] the hypernode
/// searched within and the search.
#[derive(Clone, Copy, Debug)]
pub struct HyperNodeSearch<'a> {
    pub job: &'a Job,
    pub allocated: Option<&'a HyperNode>,
    pub within: Option<&'a HyperNode>,
    pub scope: GradientScope,
    pub purpose: SearchPurpose,
}

/// Says whether a placement stands, and what the pod is annotated with
/// when it is bound (ABI 1.12): a Volcano event handler's AllocateFunc, the
/// hook of a device policy that picks a pod's GPU cards and names them.
///
/// Asked each time the session places a task (allocated, pipelined, or its
/// eviction undone), after the SDK applied the placement to the view and
/// [`Plugin::on_allocate`] ran for it: `s.node_of(task)` is the node.
///
/// - `Ok(annotations)` keeps the placement. The annotations are written on
///   the pod when it is bound, before its Binding; a key with `None` takes
///   back one the plugin gave the task earlier in the session. An empty
///   map writes nothing.
/// - `Err(reason)` refuses it, saying why: the session undoes the
///   placement at once (a deallocation reaches [`Plugin::on_deallocate`]
///   with the next call) and the action reads the reason as why the task
///   did not go there. A refusal is an answer, not a failed call. Where
///   Volcano cannot hear a refusal (backfill's placement, an eviction
///   undone) the scheduler logs it and the placement stands.
///
/// `now` is the scheduler's clock when it asked, in Unix nanoseconds: a
/// module has no clock of its own (a `wasm32-unknown-unknown` build has
/// none; a WASI build's is a fixed fake).
///
/// When the task leaves its node in the session the scheduler drops the
/// annotations given to it; give back in [`Plugin::on_deallocate`] what
/// the plugin holds for it. The scheduler takes at most 16 annotations a
/// reply, keys and values at most 16 KiB together; a key must be an
/// annotation key Kubernetes accepts and not a PodGroup key the scheduler
/// reads (`scheduling.k8s.io/group-name`,
/// `scheduling.volcano.sh/group-name`). A scheduler of ABI 1.11 or earlier
/// never asks ([`Session::host_abi_minor`]).
pub trait Allocate: Plugin {
    fn allocate(&mut self, s: &Session, task: &Task, now: i64) -> Result<Annotations, String>;
}

/// The annotations an [`Allocate`] answer writes on a pod at bind, by key;
/// `None` takes a key back. Sent in key order.
pub type Annotations = BTreeMap<String, Option<String>>;

/// Says a queue uses more than its share; any plugin saying so stops
/// allocation to the queue.
pub trait Overused: Plugin {
    fn overused(&mut self, s: &Session, queue: &Queue) -> bool;
}

/// Says whether the queue may take the task now.
pub trait Allocatable: Plugin {
    fn allocatable(&mut self, s: &Session, queue: &Queue, task: &Task) -> bool;
}

/// Says whether the queue may reclaim for these tasks.
pub trait Preemptive: Plugin {
    fn preemptive(&mut self, s: &Session, queue: &Queue, tasks: &[&Task]) -> bool;
}

/// Says whether a job's placements may be committed.
pub trait JobReady: Plugin {
    fn job_ready(&mut self, s: &Session, job: &Job) -> bool;
}

/// Votes whether a job may keep its pipelined tasks.
pub trait JobPipelined: Plugin {
    fn job_pipelined(&mut self, s: &Session, job: &Job) -> Vote;
}

/// Rejects a job before any action handles it.
pub trait JobValid: Plugin {
    fn job_valid(&mut self, s: &Session, job: &Job) -> Result<(), Invalid>;
}

/// Votes whether a pending job may be admitted.
pub trait JobEnqueueable: Plugin {
    fn job_enqueueable(&mut self, s: &Session, job: &Job) -> Vote;
}

/// Says whether a job still needs resources.
pub trait JobStarving: Plugin {
    fn job_starving(&mut self, s: &Session, job: &Job) -> bool;
}

/// Names tasks to evict whatever needs room.
pub trait VictimTasks: Plugin {
    fn victim_tasks<'s>(&mut self, s: &'s Session, tasks: &[&'s Task]) -> Vec<&'s Task>;
}

/// Picks the job to serve first among starving ones; `None` leaves the
/// choice to the scheduler.
pub trait TargetJob: Plugin {
    fn target_job<'s>(&mut self, s: &'s Session, jobs: &[&'s Job]) -> Option<&'s Job>;
}

/// A hook's status, shared with the scheduler's native framework
/// (docs/abi.md, section 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Code {
    Success = 0,
    /// The plugin failed.
    Error = 1,
    /// Not on this node.
    Unschedulable = 2,
    /// Not on this node, and preemption cannot help.
    UnschedulableAndUnresolvable = 3,
    Wait = 4,
    Skip = 5,
}

impl Code {
    /// The code of a number the scheduler sent; `None` for one outside
    /// section 7's table.
    pub(crate) fn from_wire(n: i32) -> Option<Code> {
        Some(match n {
            0 => Code::Success,
            1 => Code::Error,
            2 => Code::Unschedulable,
            3 => Code::UnschedulableAndUnresolvable,
            4 => Code::Wait,
            5 => Code::Skip,
            _ => return None,
        })
    }
}

/// A task's domain rules ([`Plugin::predicate_domain_rules`]), in the
/// order its filters apply them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainRules {
    /// Tasks whose failing verdicts word their failures alike share it.
    pub class: i32,
    pub rules: Vec<DomainRule>,
}

impl DomainRules {
    /// Appends a rule without values and returns it.
    pub fn add(&mut self, key: &str, fail: u8) -> &mut DomainRule {
        self.rules.push(DomainRule { key: key.to_string(), values: Vec::new(), fail });
        self.rules.last_mut().expect("pushed above")
    }
}

/// One rule: a node lacks the label `key`, carries one of `values`, or
/// carries another value; the rule fails in the states `fail` names
/// ([`FAIL_MISSING`], [`FAIL_LISTED`], [`FAIL_UNLISTED`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainRule {
    pub key: String,
    pub values: Vec<String>,
    pub fail: u8,
}

/// A node's states for a [`DomainRule`].
pub const FAIL_MISSING: u8 = 1;
pub const FAIL_LISTED: u8 = 2;
pub const FAIL_UNLISTED: u8 = 4;

/// The most rules a task may send; the scheduler serves a task with more
/// without kept verdicts.
pub const MAX_DOMAIN_RULES: usize = 32;

/// One node's answer to a predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub code: Code,
    pub reason: String,
}

impl Verdict {
    /// The verdict of a node the task may use.
    pub const PASS: Verdict = Verdict { code: Code::Success, reason: String::new() };

    /// An `Unschedulable` verdict, with a reason in kube-scheduler's style
    /// ("node(s) had untolerated taint {spot: true}").
    pub fn reject(reason: impl Into<String>) -> Verdict {
        Verdict { code: Code::Unschedulable, reason: reason.into() }
    }

    /// An `UnschedulableAndUnresolvable` verdict: preemption cannot help.
    pub fn unresolvable(reason: impl Into<String>) -> Verdict {
        Verdict { code: Code::UnschedulableAndUnresolvable, reason: reason.into() }
    }

    pub fn is_pass(&self) -> bool {
        self.code == Code::Success
    }
}

impl Default for Verdict {
    fn default() -> Self {
        Verdict::PASS
    }
}

/// An answer to a question decided by permit, abstain or reject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Vote {
    Reject = -1,
    Abstain = 0,
    Permit = 1,
}

/// A failed [`JobValid`] answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    pub reason: String,
    pub message: String,
}

impl Invalid {
    pub fn new(reason: impl Into<String>, message: impl Into<String>) -> Invalid {
        Invalid { reason: reason.into(), message: message.into() }
    }
}
