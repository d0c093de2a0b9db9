//! The module's side of `caldera_call` (docs/abi.md, sections 5 to 7): it
//! decodes the request envelope, applies the events to the session view,
//! turns handles into references, runs the plugin's hook and encodes the
//! reply. One `Module` lives in each Wasm instance and serves one session
//! at a time.

use crate::arguments::Arguments;
use crate::claims::{self, NodeClaims};
use crate::delta;
use crate::event::{encode_verdicts, Batch, CacheEvent, EventVerdict};
use crate::hooks::{Annotations, Code, DomainRules, Error, Eviction, EvictionKind, GradientScope, HyperNodeSearch, Invalid, Plugin, SearchPurpose, Verdict, Vote};
use crate::msgpack::{DecodeError, Reader, Writer};
use crate::session::{Condition, Session, EVENT_ALLOCATE, EVENT_BIND, EVENT_DEALLOCATE, EVENT_ENQUEUE, EVENT_EVICT, EVENT_PIPELINE, EVENT_UNEVICT};
use crate::view::{Handle, HyperNode, Job, Node, Queue, Task, View};

/// The ABI version this SDK speaks.
pub(crate) const ABI_MAJOR: u32 = 1;
pub(crate) const ABI_MINOR: u32 = 12;
/// The newest event kind (of ABI 1.1; 1.2 added none); newer kinds are
/// ignored.
const LAST_EVENT: i32 = EVENT_BIND;

/// Reported in the module's descriptor.
pub const SDK_VERSION: &str = concat!("caldera-rust ", env!("CARGO_PKG_VERSION"));

// Hook IDs (docs/abi.md, section 5).
pub(crate) const HOOK_SESSION_OPEN: u32 = 1;
pub(crate) const HOOK_SESSION_CLOSE: u32 = 2;
pub(crate) const HOOK_JOB_ORDER_KEYS: u32 = 3;
pub(crate) const HOOK_TASK_ORDER_KEYS: u32 = 5;
pub(crate) const HOOK_QUEUE_ORDER_KEYS: u32 = 6;
pub(crate) const HOOK_PRE_PREDICATE: u32 = 7;
pub(crate) const HOOK_PREDICATE_BATCH: u32 = 8;
pub(crate) const HOOK_NODE_ORDER_BATCH: u32 = 9;
pub(crate) const HOOK_BEST_NODE: u32 = 10;
pub(crate) const HOOK_PREEMPTABLE: u32 = 11;
pub(crate) const HOOK_RECLAIMABLE: u32 = 12;
pub(crate) const HOOK_OVERUSED: u32 = 13;
pub(crate) const HOOK_ALLOCATABLE: u32 = 14;
pub(crate) const HOOK_JOB_READY: u32 = 15;
pub(crate) const HOOK_JOB_PIPELINED: u32 = 16;
pub(crate) const HOOK_JOB_VALID: u32 = 17;
pub(crate) const HOOK_JOB_ENQUEUEABLE: u32 = 18;
pub(crate) const HOOK_JOB_STARVING: u32 = 20;
pub(crate) const HOOK_VICTIM_TASKS: u32 = 21;
pub(crate) const HOOK_PREEMPTIVE: u32 = 22;
pub(crate) const HOOK_VICTIM_QUEUE_ORDER_KEYS: u32 = 23;
pub(crate) const HOOK_TARGET_JOB: u32 = 24;
pub(crate) const HOOK_CACHE_EVENT: u32 = 25;
pub(crate) const HOOK_EVICTABLE: u32 = 26;
pub(crate) const HOOK_HYPER_NODE_ORDER: u32 = 27;
pub(crate) const HOOK_HYPER_NODE_GRADIENT: u32 = 28;
pub(crate) const HOOK_ALLOCATE: u32 = 29;

// Reply codes that are not hook statuses.
const CODE_UNKNOWN_HOOK: i32 = 64;
const CODE_DECODE_FAILED: i32 = 65;

pub type KeyFn<P, T> = fn(&mut P, &Session, &T, &mut Vec<f64>);
pub type VictimQueueKeyFn<P> = fn(&mut P, &Session, &Queue, &Queue, &mut Vec<f64>);
pub type VictimFn<P> = fn(&mut P, &Session, &Task, &[&Task], &mut Vec<Handle>) -> bool;
pub type EvictableFn<P> = fn(&mut P, &Session, &Eviction<'_>, &[&Task], &mut Vec<Handle>) -> bool;
pub type JobFn<P, R> = fn(&mut P, &Session, &Job) -> R;
pub type PrePredicateFn<P> = fn(&mut P, &Session, &Task) -> Verdict;
pub type PredicateFn<P> = fn(&mut P, &Session, &Task, &[&Node], &mut [Verdict]);
pub type NodeOrderFn<P> = fn(&mut P, &Session, &Task, &[&Node], &mut [f64]) -> Result<(), Error>;
pub type BestNodeFn<P> = fn(&mut P, &Session, &Task, &[&Node], &[f64]) -> Handle;
pub type QueueFn<P> = fn(&mut P, &Session, &Queue) -> bool;
pub type AllocatableFn<P> = fn(&mut P, &Session, &Queue, &Task) -> bool;
pub type PreemptiveFn<P> = fn(&mut P, &Session, &Queue, &[&Task]) -> bool;
pub type VictimTasksFn<P> = fn(&mut P, &Session, &[&Task], &mut Vec<Handle>);
pub type TargetJobFn<P> = fn(&mut P, &Session, &[&Job]) -> Handle;
pub type CacheEventFn<P> = fn(&mut P, &CacheEvent) -> EventVerdict;
pub type HyperNodeOrderFn<P> = fn(&mut P, &Session, &HyperNodeSearch<'_>, &[&HyperNode], &mut [f64]) -> Result<(), Error>;
/// Appends each gradient's hypernode handles to the first list and the end
/// of each gradient in it to the second.
pub type HyperNodeGradientFn<P> = fn(&mut P, &Session, &HyperNodeSearch<'_>, &mut Vec<Handle>, &mut Vec<usize>);
pub type AllocateFn<P> = fn(&mut P, &Session, &Task, i64) -> Result<Annotations, String>;

/// The hooks a plugin type implements, found by [`export!`](crate::export).
#[doc(hidden)]
pub struct Hooks<P> {
    pub job_order_keys: Option<KeyFn<P, Job>>,
    pub task_order_keys: Option<KeyFn<P, Task>>,
    pub queue_order_keys: Option<KeyFn<P, Queue>>,
    pub victim_queue_order_keys: Option<VictimQueueKeyFn<P>>,
    pub pre_predicate: Option<PrePredicateFn<P>>,
    pub predicate_batch: Option<PredicateFn<P>>,
    pub node_order_batch: Option<NodeOrderFn<P>>,
    pub best_node: Option<BestNodeFn<P>>,
    pub preemptable: Option<VictimFn<P>>,
    pub reclaimable: Option<VictimFn<P>>,
    pub evictable: Option<EvictableFn<P>>,
    pub hyper_node_order: Option<HyperNodeOrderFn<P>>,
    pub hyper_node_gradient: Option<HyperNodeGradientFn<P>>,
    pub allocate: Option<AllocateFn<P>>,
    pub overused: Option<QueueFn<P>>,
    pub allocatable: Option<AllocatableFn<P>>,
    pub preemptive: Option<PreemptiveFn<P>>,
    pub job_ready: Option<JobFn<P, bool>>,
    pub job_pipelined: Option<JobFn<P, Vote>>,
    pub job_valid: Option<JobFn<P, Result<(), Invalid>>>,
    pub job_enqueueable: Option<JobFn<P, Vote>>,
    pub job_starving: Option<JobFn<P, bool>>,
    pub victim_tasks: Option<VictimTasksFn<P>>,
    pub target_job: Option<TargetJobFn<P>>,
    pub cache_event: Option<CacheEventFn<P>>,
    /// The event handler's `EVENT_KINDS`; empty for a type that is none.
    pub event_kinds: &'static [&'static str],
}

impl<P> Hooks<P> {
    /// The ABI names of the hooks, in the Go SDK's order.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        let mut out = vec!["session_open", "session_close"];
        for (has, name) in [
            (self.job_order_keys.is_some(), "job_order_keys"),
            (self.task_order_keys.is_some(), "task_order_keys"),
            (self.queue_order_keys.is_some(), "queue_order_keys"),
            (self.victim_queue_order_keys.is_some(), "victim_queue_order_keys"),
            (self.pre_predicate.is_some(), "pre_predicate"),
            (self.predicate_batch.is_some(), "predicate_batch"),
            (self.node_order_batch.is_some(), "node_order_batch"),
            (self.best_node.is_some(), "best_node"),
            (self.preemptable.is_some(), "preemptable"),
            (self.reclaimable.is_some(), "reclaimable"),
            (self.overused.is_some(), "overused"),
            (self.allocatable.is_some(), "allocatable"),
            (self.preemptive.is_some(), "preemptive"),
            (self.job_ready.is_some(), "job_ready"),
            (self.job_pipelined.is_some(), "job_pipelined"),
            (self.job_valid.is_some(), "job_valid"),
            (self.job_enqueueable.is_some(), "job_enqueueable"),
            (self.job_starving.is_some(), "job_starving"),
            (self.victim_tasks.is_some(), "victim_tasks"),
            (self.target_job.is_some(), "target_job"),
            (self.cache_event.is_some(), "cache_event"),
            (self.evictable.is_some(), "evictable"),
            (self.hyper_node_order.is_some(), "hyper_node_order"),
            (self.hyper_node_gradient.is_some(), "hyper_node_gradient"),
            (self.allocate.is_some(), "allocate"),
        ] {
            if has {
                out.push(name);
            }
        }
        out
    }
}

/// What the module does for the exports, whatever the plugin's type.
#[doc(hidden)]
pub trait Serve {
    /// Encodes the module's descriptor into out.
    fn describe(&self, out: &mut Vec<u8>);
    /// Serves one `caldera_call` and encodes the reply into out.
    fn call(&mut self, hook: u32, request: &[u8], out: &mut Vec<u8>);
}

/// A plugin and the state the SDK keeps for it between calls.
#[doc(hidden)]
pub struct Module<P> {
    pub(crate) plugin: P,
    hooks: Hooks<P>,
    pub(crate) session: Option<Session>,
    // The view of the previous session as it arrived (its events undone):
    // the base of the next session's delta.
    pub(crate) last: Option<View>,
    args: Args,
    // Whether the events that come with session_close are applied: only the
    // plugin's on_session_close would see them, and the trait's default
    // says, at the first close, that there is none to see them.
    close_reads_view: bool,
    // Results, reused from call to call.
    keys: Vec<f64>,
    key_ends: Vec<usize>,
    scores: Vec<f64>,
    verdicts: Vec<Verdict>,
    handles: Vec<Handle>,
    event_verdicts: Vec<EventVerdict>,
    // The node-local classes session_open sent, empty when it sent none,
    // and the last domain rules a pre_predicate sent.
    classes: Vec<i32>,
    rules: DomainRules,
}

/// The handles of a hook's request (docs/abi.md, section 5); each hook
/// sends the fields it needs, the others stay -1 or empty.
#[derive(Default)]
struct Args {
    task: Handle,
    job: Handle,
    queue: Handle,
    nodes: Vec<Handle>,
    tasks: Vec<Handle>,
    jobs: Vec<Handle>,
    queues: Vec<Handle>,
    scores: Vec<f64>,
    /// predicate_batch's `trial` (ABI 1.4): the call is made during a
    /// preemption dry run.
    trial: bool,
    /// evictable's `kind` and `hyperNode` (ABI 1.8).
    kind: i32,
    hyper_node: String,
    /// node_order_batch's `jobHyperNode` and the hypernode hooks'
    /// `hyperNodes`, `allocatedHyperNode`, `within`, `scope` and `purpose`
    /// (ABI 1.9); -1 is none.
    job_hyper_node: Handle,
    hyper_nodes: Vec<Handle>,
    allocated: Handle,
    within: Handle,
    scope: i32,
    purpose: i32,
    /// predicate_batch's `claims` (ABI 1.10): the scheduler's volume and
    /// device checks on each node; `None` when it sent none.
    claims: Option<Vec<Option<NodeClaims>>>,
    /// allocate's `now` (ABI 1.12): the scheduler's clock, Unix
    /// nanoseconds.
    now: i64,
}

/// A failed call: a code other than OK and its message.
struct Failure(i32, String);

impl From<DecodeError> for Failure {
    fn from(e: DecodeError) -> Self {
        Failure(CODE_DECODE_FAILED, e.0)
    }
}

fn decode_failure(msg: String) -> Failure {
    Failure(CODE_DECODE_FAILED, msg)
}

/// What an OK reply carries; bulky results wait in the module's buffers.
enum Answer {
    Nil,
    Bool(bool),
    Int(i32),
    Keys,
    Scores,
    Verdicts,
    Verdict(Verdict),
    /// A passing pre_predicate verdict with the task's domain rules
    /// (module.rules).
    RuledVerdict(Verdict),
    Victims(bool),
    Handles,
    /// hyper_node_gradient's groups: module.handles cut at module.key_ends.
    Gradients,
    Valid(Result<(), Invalid>),
    Conditions(Vec<Condition>),
    EventVerdicts,
    /// session_open's promises for the session, when it makes any.
    Promises(Promises),
    /// allocate's annotations (1.12), at least one.
    Annotations(Annotations),
    /// allocate's refusal (1.12).
    Refusal(String),
}

/// What session_open's result promises (docs/abi.md, section 5).
#[derive(Default)]
struct Promises {
    /// `nodeLocalScores`.
    scores: bool,
    /// `scoreShapeWithoutRules` (1.5).
    ruleless: bool,
    /// `prePredicateByShape`.
    pre: bool,
    /// `nodeLocalWithdrawn` (1.4), with the `nodeLocalClasses` the plugin
    /// gave, if any.
    withdrawn: bool,
    classes: Option<Vec<i32>>,
}

type Served = Result<Answer, Failure>;

impl<P: Plugin> Module<P> {
    pub fn new(plugin: P, hooks: Hooks<P>) -> Self {
        Module {
            plugin,
            hooks,
            session: None,
            last: None,
            args: Args::default(),
            close_reads_view: true,
            keys: Vec::new(),
            key_ends: Vec::new(),
            scores: Vec::new(),
            verdicts: Vec::new(),
            handles: Vec::new(),
            event_verdicts: Vec::new(),
            classes: Vec::new(),
            rules: DomainRules::default(),
        }
    }

    fn serve(&mut self, hook: u32, request: &[u8]) -> Served {
        let mut r = Reader::new(request);
        let mut args: Option<&[u8]> = None;
        for _ in 0..r.map_len()? {
            match r.str()? {
                // A session of 2,000 placements brings 4,000 events to the
                // close of a plugin that no hook asked after the last one.
                "e" if hook == HOOK_SESSION_CLOSE && !self.close_reads_view => r.skip()?,
                "e" => self.events(&mut r)?,
                "a" => {
                    let raw = r.raw()?;
                    if raw != [0xc0] {
                        args = Some(raw);
                    }
                }
                _ => r.skip()?,
            }
        }
        match hook {
            HOOK_SESSION_OPEN => return self.open(args),
            HOOK_SESSION_CLOSE => {
                if let (Some(raw), Some(s)) = (args, self.session.as_mut()) {
                    let fes = close_args(raw, s.tasks().len()).map_err(|e| decode_failure(format!("session_close: {}", e)))?;
                    s.set_fit_errors(fes);
                }
                return Ok(self.close());
            }
            // An event handler's hook: no session, no view.
            HOOK_CACHE_EVENT => return self.cache_event(args),
            _ => {}
        }
        if self.session.is_none() {
            return Err(decode_failure("no session is open".into()));
        }
        self.decode_args(args).map_err(|e| decode_failure(format!("decoding the request: {}", e)))?;
        if hook != HOOK_PREDICATE_BATCH {
            return self.dispatch(hook);
        }
        // The claims are the session's while the plugin reads them
        // (Session::node_claims), for this call only, as `trial` is; the
        // hook holds the session shared, so they are lent before it.
        let claims = self.args.claims.take();
        if let Some(s) = self.session.as_mut() {
            s.set_node_claims(claims);
        }
        let served = self.dispatch(hook);
        if let Some(s) = self.session.as_mut() {
            s.set_node_claims(None);
        }
        served
    }

    fn events(&mut self, r: &mut Reader<'_>) -> Result<(), Failure> {
        if r.is_nil() {
            return Ok(r.nil()?);
        }
        for _ in 0..r.array_len()? {
            let mut ev = [0i32; 3];
            for j in 0..r.array_len()? {
                let v = r.i32()?;
                if let Some(slot) = ev.get_mut(j as usize) {
                    *slot = v;
                }
            }
            let s = self.session.as_mut().ok_or_else(|| decode_failure("event before session_open".into()))?;
            s.apply(ev[0], ev[1], ev[2], LAST_EVENT).map_err(decode_failure)?;
            let s = &*s;
            match ev[0] {
                EVENT_ENQUEUE => {
                    if let Some(j) = s.job(ev[1]) {
                        self.plugin.on_job_enqueued(s, j);
                    }
                }
                EVENT_ALLOCATE | EVENT_PIPELINE | EVENT_UNEVICT => {
                    if let Some(t) = s.task(ev[1]) {
                        self.plugin.on_allocate(s, t);
                    }
                }
                EVENT_DEALLOCATE | EVENT_EVICT => {
                    if let Some(t) = s.task(ev[1]) {
                        self.plugin.on_deallocate(s, t);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn open(&mut self, args: Option<&[u8]>) -> Served {
        self.session = None;
        let last = self.last.take();
        let (view, arguments, host_abi) = match args {
            None => (View::default(), Arguments::default(), Vec::new()),
            Some(raw) => open_args(raw, last).map_err(|e| decode_failure(format!("session_open: {}", e)))?,
        };
        let mut session = Session::new(view, arguments);
        session.set_host_abi(host_abi);
        let s = self.session.insert(session);
        self.classes.clear();
        self.plugin.on_session_open(s).map_err(|e| Failure(Code::Error as i32, e.to_string()))?;
        let scores = self.plugin.scores_node_local(s);
        let ruleless = scores && ABI_MINOR >= 5 && s.host_abi_minor() >= 5 && self.plugin.scores_read_no_rules(s);
        let pre = self.plugin.pre_predicates_by_shape(s);
        let mut p = Promises { scores, ruleless, pre, ..Promises::default() };
        if P::NODE_LOCAL_PREDICATES && !self.plugin.predicates_node_local_in(s) {
            p.withdrawn = true;
            let mut classes = vec![-1; s.tasks().len()];
            if self.plugin.predicates_node_local_classes(s, &mut classes) {
                self.classes.clone_from(&classes);
                p.classes = Some(classes);
            }
        }
        if !(p.scores || p.pre || p.withdrawn) {
            return Ok(Answer::Nil);
        }
        Ok(Answer::Promises(p))
    }

    fn close(&mut self) -> Answer {
        let s = match self.session.take() {
            Some(s) => s,
            None => return Answer::Nil,
        };
        self.plugin.on_session_close(&s);
        self.close_reads_view = !s.closed_by_default();
        let conditions = s.take_conditions();
        // The view as it arrived, without what the session's events changed,
        // is the base of the next session's delta.
        self.last = Some(s.into_view());
        if conditions.is_empty() {
            Answer::Nil
        } else {
            Answer::Conditions(conditions)
        }
    }

    /// A batch of events, oldest first: the handler's verdict on each, in
    /// order. Nil args are an empty batch, as in the Go SDK.
    fn cache_event(&mut self, args: Option<&[u8]>) -> Served {
        let f = need(self.hooks.cache_event, "cache_event")?;
        let batch: Batch = match args {
            Some(raw) => rmp_serde::from_slice(raw).map_err(|e| decode_failure(format!("cache_event: {}", e)))?,
            None => Batch::default(),
        };
        let Module { plugin, event_verdicts, .. } = self;
        event_verdicts.clear();
        batch.serve(|ev| f(plugin, ev), event_verdicts);
        Ok(Answer::EventVerdicts)
    }

    fn decode_args(&mut self, raw: Option<&[u8]>) -> Result<(), DecodeError> {
        let a = &mut self.args;
        a.task = -1;
        a.job = -1;
        a.queue = -1;
        for list in [&mut a.nodes, &mut a.tasks, &mut a.jobs, &mut a.queues] {
            list.clear();
        }
        a.scores.clear();
        a.trial = false;
        a.kind = 0;
        a.hyper_node.clear();
        a.job_hyper_node = -1;
        a.hyper_nodes.clear();
        a.allocated = -1;
        a.within = -1;
        a.scope = 0;
        a.purpose = 0;
        a.claims = None;
        a.now = 0;
        let raw = match raw {
            Some(raw) => raw,
            None => return Ok(()),
        };
        let mut r = Reader::new(raw);
        for _ in 0..r.map_len()? {
            match r.str()? {
                "task" => a.task = r.i32()?,
                "job" => a.job = r.i32()?,
                "queue" => a.queue = r.i32()?,
                "nodes" => handles(&mut r, &mut a.nodes)?,
                "tasks" => handles(&mut r, &mut a.tasks)?,
                "jobs" => handles(&mut r, &mut a.jobs)?,
                "queues" => handles(&mut r, &mut a.queues)?,
                "scores" => {
                    if r.is_nil() {
                        r.nil()?;
                    } else {
                        for _ in 0..r.array_len()? {
                            a.scores.push(r.f64()?);
                        }
                    }
                }
                "trial" => a.trial = r.bool()?,
                "kind" => a.kind = r.i32()?,
                "hyperNode" => {
                    let hn = r.str()?;
                    a.hyper_node.push_str(hn);
                }
                "jobHyperNode" => a.job_hyper_node = r.i32()?,
                "hyperNodes" => handles(&mut r, &mut a.hyper_nodes)?,
                "allocatedHyperNode" => a.allocated = r.i32()?,
                "within" => a.within = r.i32()?,
                "scope" => a.scope = r.i32()?,
                "purpose" => a.purpose = r.i32()?,
                "claims" => a.claims = claims::decode_node_claims(&mut r)?,
                "now" => a.now = r.int()?,
                _ => r.skip()?,
            }
        }
        Ok(())
    }

    /// Runs a hook other than session_open and session_close.
    fn dispatch(&mut self, hook: u32) -> Served {
        let Module { plugin, hooks, session, args, keys, key_ends, scores, verdicts, handles, classes, rules, .. } = self;
        let s = match session {
            Some(s) => &*s,
            None => return Err(decode_failure("no session is open".into())),
        };
        keys.clear();
        key_ends.clear();
        handles.clear();
        match hook {
            HOOK_JOB_ORDER_KEYS => {
                let f = need(hooks.job_order_keys, "job_order_keys")?;
                for j in list(s.jobs(), &args.jobs, "job")? {
                    f(plugin, s, j, keys);
                    key_ends.push(keys.len());
                }
                Ok(Answer::Keys)
            }
            HOOK_TASK_ORDER_KEYS => {
                let f = need(hooks.task_order_keys, "task_order_keys")?;
                for t in list(s.tasks(), &args.tasks, "task")? {
                    f(plugin, s, t, keys);
                    key_ends.push(keys.len());
                }
                Ok(Answer::Keys)
            }
            HOOK_QUEUE_ORDER_KEYS => {
                let f = need(hooks.queue_order_keys, "queue_order_keys")?;
                for q in list(s.queues(), &args.queues, "queue")? {
                    f(plugin, s, q, keys);
                    key_ends.push(keys.len());
                }
                Ok(Answer::Keys)
            }
            HOOK_VICTIM_QUEUE_ORDER_KEYS => {
                let f = need(hooks.victim_queue_order_keys, "victim_queue_order_keys")?;
                let preemptor = one(s.queues(), args.queue, "queue")?;
                for q in list(s.queues(), &args.queues, "queue")? {
                    f(plugin, s, q, preemptor, keys);
                    key_ends.push(keys.len());
                }
                Ok(Answer::Keys)
            }
            HOOK_PRE_PREDICATE => {
                let f = need(hooks.pre_predicate, "pre_predicate")?;
                let t = one(s.tasks(), args.task, "task")?;
                let v = f(plugin, s, t);
                // Domain rules refine a node-local class, for a scheduler
                // that reads them.
                let classed = matches!(usize::try_from(t.handle).ok().and_then(|h| classes.get(h)), Some(&c) if c >= 0);
                if v.code == Code::Success && s.reads_domain_rules() && classed {
                    rules.class = 0;
                    rules.rules.clear();
                    // More than MAX_DOMAIN_RULES are sent too: the
                    // scheduler then serves the task without kept verdicts.
                    if plugin.predicate_domain_rules(s, t, rules) {
                        return Ok(Answer::RuledVerdict(v));
                    }
                }
                Ok(Answer::Verdict(v))
            }
            HOOK_PREDICATE_BATCH => {
                let f = need(hooks.predicate_batch, "predicate_batch")?;
                let (t, nodes) = task_on_nodes(s, args).map_err(|e| decode_failure(format!("predicate_batch: {}", e.0)))?;
                match s.node_claims_sent() {
                    Some(n) if n != nodes.len() => return Err(decode_failure(format!("predicate_batch: {} claims for {} nodes", n, nodes.len()))),
                    _ => {}
                }
                verdicts.clear();
                verdicts.resize(nodes.len(), Verdict::PASS);
                s.set_victim_trial(args.trial);
                f(plugin, s, t, &nodes, verdicts);
                s.set_victim_trial(false);
                Ok(Answer::Verdicts)
            }
            HOOK_NODE_ORDER_BATCH => {
                let f = need(hooks.node_order_batch, "node_order_batch")?;
                let (t, nodes) = task_on_nodes(s, args).map_err(|e| decode_failure(format!("node_order_batch: {}", e.0)))?;
                scores.clear();
                scores.resize(nodes.len(), 0.0);
                if args.job_hyper_node != -1 {
                    one(s.hyper_nodes(), args.job_hyper_node, "hypernode").map_err(|e| decode_failure(format!("node_order_batch: {}", e.0)))?;
                }
                s.set_job_hyper_node(args.job_hyper_node);
                let done = f(plugin, s, t, &nodes, scores);
                s.set_job_hyper_node(-1);
                done.map_err(|e| Failure(Code::Error as i32, e.to_string()))?;
                Ok(Answer::Scores)
            }
            HOOK_HYPER_NODE_ORDER => {
                let f = need(hooks.hyper_node_order, "hyper_node_order")?;
                let search = hyper_node_search(s, args).map_err(|e| decode_failure(format!("hyper_node_order: {}", e.0)))?;
                let candidates = list(s.hyper_nodes(), &args.hyper_nodes, "hypernode").map_err(|e| decode_failure(format!("hyper_node_order: {}", e.0)))?;
                scores.clear();
                scores.resize(candidates.len(), 0.0);
                f(plugin, s, &search, &candidates, scores).map_err(|e| Failure(Code::Error as i32, e.to_string()))?;
                Ok(Answer::Scores)
            }
            HOOK_HYPER_NODE_GRADIENT => {
                let f = need(hooks.hyper_node_gradient, "hyper_node_gradient")?;
                let search = hyper_node_search(s, args).map_err(|e| decode_failure(format!("hyper_node_gradient: {}", e.0)))?;
                f(plugin, s, &search, handles, key_ends);
                Ok(Answer::Gradients)
            }
            HOOK_BEST_NODE => {
                let f = need(hooks.best_node, "best_node")?;
                let (t, nodes) = task_on_nodes(s, args)?;
                if args.scores.len() != nodes.len() {
                    return Err(decode_failure(format!("best_node: {} scores for {} nodes", args.scores.len(), nodes.len())));
                }
                Ok(Answer::Int(f(plugin, s, t, &nodes, &args.scores)))
            }
            HOOK_PREEMPTABLE | HOOK_RECLAIMABLE => {
                let (f, name) = if hook == HOOK_PREEMPTABLE { (hooks.preemptable, "preemptable") } else { (hooks.reclaimable, "reclaimable") };
                let f = need(f, name)?;
                let t = one(s.tasks(), args.task, "task")?;
                let candidates = list(s.tasks(), &args.tasks, "task")?;
                Ok(Answer::Victims(f(plugin, s, t, &candidates, handles)))
            }
            HOOK_EVICTABLE => {
                let f = need(hooks.evictable, "evictable")?;
                let job = one(s.jobs(), args.job, "job")?;
                let kind = if args.kind == 2 { EvictionKind::GangReclaim } else { EvictionKind::GangPreempt };
                let ctx = Eviction { kind, job, hyper_node: &args.hyper_node };
                let candidates = list(s.tasks(), &args.tasks, "task")?;
                Ok(Answer::Victims(f(plugin, s, &ctx, &candidates, handles)))
            }
            HOOK_VICTIM_TASKS => {
                let f = need(hooks.victim_tasks, "victim_tasks")?;
                let tasks = list(s.tasks(), &args.tasks, "task")?;
                f(plugin, s, &tasks, handles);
                Ok(Answer::Handles)
            }
            HOOK_OVERUSED => {
                let f = need(hooks.overused, "overused")?;
                Ok(Answer::Bool(f(plugin, s, one(s.queues(), args.queue, "queue")?)))
            }
            HOOK_ALLOCATABLE => {
                let f = need(hooks.allocatable, "allocatable")?;
                let q = one(s.queues(), args.queue, "queue")?;
                let t = one(s.tasks(), args.task, "task")?;
                Ok(Answer::Bool(f(plugin, s, q, t)))
            }
            HOOK_PREEMPTIVE => {
                let f = need(hooks.preemptive, "preemptive")?;
                let q = one(s.queues(), args.queue, "queue")?;
                let tasks = list(s.tasks(), &args.tasks, "task")?;
                Ok(Answer::Bool(f(plugin, s, q, &tasks)))
            }
            HOOK_JOB_READY | HOOK_JOB_STARVING => {
                let (f, name) = if hook == HOOK_JOB_READY { (hooks.job_ready, "job_ready") } else { (hooks.job_starving, "job_starving") };
                let f = need(f, name)?;
                Ok(Answer::Bool(f(plugin, s, one(s.jobs(), args.job, "job")?)))
            }
            HOOK_JOB_PIPELINED | HOOK_JOB_ENQUEUEABLE => {
                let (f, name) =
                    if hook == HOOK_JOB_PIPELINED { (hooks.job_pipelined, "job_pipelined") } else { (hooks.job_enqueueable, "job_enqueueable") };
                let f = need(f, name)?;
                Ok(Answer::Int(f(plugin, s, one(s.jobs(), args.job, "job")?) as i32))
            }
            HOOK_JOB_VALID => {
                let f = need(hooks.job_valid, "job_valid")?;
                Ok(Answer::Valid(f(plugin, s, one(s.jobs(), args.job, "job")?)))
            }
            HOOK_TARGET_JOB => {
                let f = need(hooks.target_job, "target_job")?;
                let jobs = list(s.jobs(), &args.jobs, "job")?;
                Ok(Answer::Int(f(plugin, s, &jobs)))
            }
            HOOK_ALLOCATE => {
                let f = need(hooks.allocate, "allocate")?;
                let t = one(s.tasks(), args.task, "task").map_err(|e| decode_failure(format!("allocate: {}", e.1)))?;
                match f(plugin, s, t, args.now) {
                    Ok(annotations) if annotations.is_empty() => Ok(Answer::Nil),
                    Ok(annotations) => Ok(Answer::Annotations(annotations)),
                    // A refusal is an answer, not a failed call: an empty
                    // reason still refuses.
                    Err(reason) if reason.is_empty() => Ok(Answer::Refusal("refused".to_string())),
                    Err(reason) => Ok(Answer::Refusal(reason)),
                }
            }
            _ => Err(Failure(CODE_UNKNOWN_HOOK, format!("hook {} is not implemented by {}", hook, SDK_VERSION))),
        }
    }

    /// Appends an OK reply's result.
    fn encode(&self, answer: Answer, w: &mut Writer<'_>) {
        match answer {
            Answer::Nil => w.nil(),
            Answer::Bool(v) => w.bool(v),
            Answer::Int(v) => w.int(i64::from(v)),
            Answer::Keys => {
                w.array(self.key_ends.len());
                let mut start = 0;
                for &end in &self.key_ends {
                    w.array(end - start);
                    for &f in &self.keys[start..end] {
                        w.f64(f);
                    }
                    start = end;
                }
            }
            Answer::Scores => {
                w.array(self.scores.len());
                for &f in &self.scores {
                    w.f64(f);
                }
            }
            Answer::Verdicts => {
                w.array(self.verdicts.len());
                for v in &self.verdicts {
                    verdict(w, v);
                }
            }
            Answer::Verdict(v) => verdict(w, &v),
            Answer::RuledVerdict(v) => ruled_verdict(w, &v, &self.rules),
            Answer::Victims(voted) => {
                w.array(2);
                w.bool(voted);
                self.encode(Answer::Handles, w);
            }
            Answer::Handles => {
                w.array(self.handles.len());
                for &h in &self.handles {
                    w.int(i64::from(h));
                }
            }
            Answer::Gradients => {
                w.array(self.key_ends.len());
                let mut start = 0;
                for &end in &self.key_ends {
                    w.array(end - start);
                    for &h in &self.handles[start..end] {
                        w.int(i64::from(h));
                    }
                    start = end;
                }
            }
            Answer::Valid(v) => {
                w.map(3);
                w.str("pass");
                w.bool(v.is_ok());
                let (reason, message) = match &v {
                    Ok(()) => ("", ""),
                    Err(i) => (i.reason.as_str(), i.message.as_str()),
                };
                w.str("reason");
                w.str(reason);
                w.str("message");
                w.str(message);
            }
            Answer::Conditions(cs) => {
                w.map(1);
                w.str("conditions");
                w.array(cs.len());
                for c in &cs {
                    w.map(5);
                    w.str("job");
                    w.int(i64::from(c.job));
                    for (k, v) in [("type", &c.kind), ("status", &c.status), ("reason", &c.reason), ("message", &c.message)] {
                        w.str(k);
                        w.str(v);
                    }
                }
            }
            Answer::EventVerdicts => encode_verdicts(w, &self.event_verdicts),
            Answer::Refusal(reason) => {
                w.map(1);
                w.str("refusal");
                w.str(&reason);
            }
            Answer::Annotations(a) => {
                w.map(1);
                w.str("annotations");
                w.map(a.len());
                // In key order, as the Go SDK writes them.
                for (key, value) in &a {
                    w.str(key);
                    match value {
                        Some(v) => w.str(v),
                        None => w.nil(),
                    }
                }
            }
            Answer::Promises(p) => {
                w.map(usize::from(p.scores) + usize::from(p.ruleless) + usize::from(p.pre) + usize::from(p.withdrawn) + usize::from(p.classes.is_some()));
                // In the Go SDK's order.
                let flags = [(p.scores, "nodeLocalScores"), (p.ruleless, "scoreShapeWithoutRules"), (p.pre, "prePredicateByShape"), (p.withdrawn, "nodeLocalWithdrawn")];
                for (on, key) in flags {
                    if on {
                        w.str(key);
                        w.bool(true);
                    }
                }
                if let Some(classes) = p.classes {
                    w.str("nodeLocalClasses");
                    w.array(classes.len());
                    for c in classes {
                        w.int(i64::from(c));
                    }
                }
            }
        }
    }
}

impl<P: Plugin> Serve for Module<P> {
    /// `{name, abi: [major, minor], hooks, arguments, eventKinds,
    /// stableKeys, localKeys, deltas, undoEvents, nodeLocal, claimChecks,
    /// sdk}`, as the Go SDK writes it;
    /// `arguments` only when the plugin declares some, `eventKinds` only
    /// when an event handler names kinds, `nodeLocal` and `claimChecks` only
    /// when true.
    fn describe(&self, out: &mut Vec<u8>) {
        out.clear();
        let mut w = Writer(out);
        let args = P::ARGUMENTS;
        let kinds = self.hooks.event_kinds;
        let flags = usize::from(P::NODE_LOCAL_PREDICATES) + usize::from(P::CLAIM_CHECKS);
        w.map(8 + usize::from(!args.is_empty()) + usize::from(!kinds.is_empty()) + flags);
        w.str("name");
        w.str(P::NAME);
        w.str("abi");
        w.array(2);
        w.int(i64::from(ABI_MAJOR));
        w.int(i64::from(ABI_MINOR));
        w.str("hooks");
        let names = self.hooks.names();
        w.array(names.len());
        for n in names {
            w.str(n);
        }
        if !args.is_empty() {
            w.str("arguments");
            w.array(args.len());
            for a in args {
                a.encode(&mut w);
            }
        }
        if !kinds.is_empty() {
            w.str("eventKinds");
            w.array(kinds.len());
            for k in kinds {
                w.str(k);
            }
        }
        w.str("stableKeys");
        w.bool(P::STABLE_ORDER_KEYS);
        w.str("localKeys");
        w.bool(P::LOCAL_ORDER_KEYS);
        w.str("deltas");
        w.bool(true);
        w.str("undoEvents");
        w.bool(true);
        if P::NODE_LOCAL_PREDICATES {
            w.str("nodeLocal");
            w.bool(true);
        }
        if P::CLAIM_CHECKS {
            w.str("claimChecks");
            w.bool(true);
        }
        w.str("sdk");
        w.str(SDK_VERSION);
    }

    /// `[code, message, result]`.
    fn call(&mut self, hook: u32, request: &[u8], out: &mut Vec<u8>) {
        let served = self.serve(hook, request);
        out.clear();
        let mut w = Writer(out);
        w.array(3);
        match served {
            Ok(answer) => {
                w.int(0);
                w.str("");
                self.encode(answer, &mut w);
            }
            Err(Failure(code, msg)) => {
                w.int(i64::from(code));
                w.str(&msg);
                w.nil();
            }
        }
    }
}

/// Decodes session_open's args: a whole view, or a delta over the held one,
/// the arguments, and the scheduler's ABI version (1.5).
fn open_args(raw: &[u8], last: Option<View>) -> Result<(View, Arguments, Vec<u32>), DecodeError> {
    let mut r = Reader::new(raw);
    let mut view: Option<View> = None;
    let mut delta: Option<&[u8]> = None;
    let mut arguments = Arguments::default();
    let mut host_abi = Vec::new();
    for _ in 0..r.map_len()? {
        match r.str()? {
            "view" => view = Some(r.decode()?),
            "delta" => delta = Some(r.raw()?),
            "arguments" => arguments = r.decode()?,
            "abi" => {
                for _ in 0..r.array_len()? {
                    host_abi.push(u32::try_from(r.int()?).map_err(|_| DecodeError("abi: a negative version".into()))?);
                }
            }
            _ => r.skip()?,
        }
    }
    let view = match delta {
        Some(d) => {
            let mut v = last.ok_or_else(|| DecodeError("a delta arrived but this instance holds no earlier view".into()))?;
            delta::apply(&mut v, &mut Reader::new(d))?;
            v
        }
        None => view.unwrap_or_default(),
    };
    claims::check_handles(&view)?;
    Ok((view, arguments, host_abi))
}

/// Decodes session_close's args (1.6): the session's fit errors, by task
/// handle, each [task, message].
fn close_args(raw: &[u8], tasks: usize) -> Result<std::collections::HashMap<Handle, String>, DecodeError> {
    let mut r = Reader::new(raw);
    let mut out = std::collections::HashMap::new();
    for _ in 0..r.map_len()? {
        if r.str()? != "fitErrors" {
            r.skip()?;
            continue;
        }
        for _ in 0..r.array_len()? {
            let n = r.array_len()?;
            if n != 2 {
                return Err(DecodeError(format!("a fit error is [task, message], got an array of {}", n)));
            }
            let task = r.i32()?;
            let message = r.str()?.to_string();
            if usize::try_from(task).map_or(true, |t| t >= tasks) {
                return Err(DecodeError(format!("fit error for task handle {} of {}", task, tasks)));
            }
            out.insert(task, message);
        }
    }
    Ok(out)
}

fn handles(r: &mut Reader<'_>, out: &mut Vec<Handle>) -> Result<(), DecodeError> {
    if r.is_nil() {
        return r.nil();
    }
    for _ in 0..r.array_len()? {
        out.push(r.i32()?);
    }
    Ok(())
}

/// need is a hook's function, or EUNKNOWN_HOOK when the plugin lacks it.
fn need<F>(f: Option<F>, name: &str) -> Result<F, Failure> {
    f.ok_or_else(|| Failure(CODE_UNKNOWN_HOOK, format!("{} is not implemented", name)))
}

fn one<'s, T>(all: &'s [T], h: Handle, kind: &str) -> Result<&'s T, Failure> {
    usize::try_from(h)
        .ok()
        .and_then(|i| all.get(i))
        .ok_or_else(|| decode_failure(format!("{} handle {} of {}", kind, h, all.len())))
}

fn list<'s, T>(all: &'s [T], hs: &[Handle], kind: &str) -> Result<Vec<&'s T>, Failure> {
    hs.iter().map(|&h| one(all, h, kind)).collect()
}

/// The hypernode hooks' job, allocated hypernode, hypernode searched within
/// and search; -1 is no hypernode.
fn hyper_node_search<'s>(s: &'s Session, args: &Args) -> Result<HyperNodeSearch<'s>, Failure> {
    let maybe = |h: Handle| -> Result<Option<&'s HyperNode>, Failure> {
        if h == -1 {
            Ok(None)
        } else {
            one(s.hyper_nodes(), h, "hypernode").map(Some)
        }
    };
    Ok(HyperNodeSearch {
        job: one(s.jobs(), args.job, "job")?,
        allocated: maybe(args.allocated)?,
        within: maybe(args.within)?,
        scope: if args.scope == 1 { GradientScope::Tasks } else { GradientScope::Job },
        purpose: if args.purpose == 1 { SearchPurpose::Evict } else { SearchPurpose::Allocate },
    })
}

fn task_on_nodes<'s>(s: &'s Session, args: &Args) -> Result<(&'s Task, Vec<&'s Node>), Failure> {
    Ok((one(s.tasks(), args.task, "task")?, list(s.nodes(), &args.nodes, "node")?))
}

fn verdict(w: &mut Writer<'_>, v: &Verdict) {
    w.array(2);
    w.int(v.code as i64);
    w.str(&v.reason);
}

/// `[code, reason, {ruleClass, rules: [[key, [value], fail]]}]`, as the Go
/// SDK writes it.
fn ruled_verdict(w: &mut Writer<'_>, v: &Verdict, r: &DomainRules) {
    w.array(3);
    w.int(v.code as i64);
    w.str(&v.reason);
    w.map(2);
    w.str("ruleClass");
    w.int(i64::from(r.class));
    w.str("rules");
    w.array(r.rules.len());
    for d in &r.rules {
        w.array(3);
        w.str(&d.key);
        w.array(d.values.len());
        for value in &d.values {
            w.str(value);
        }
        w.int(i64::from(d.fail));
    }
}
