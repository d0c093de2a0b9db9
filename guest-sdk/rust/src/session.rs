//! One scheduling session as a plugin sees it.

use std::cell::{Cell, RefCell};

use crate::arguments::Arguments;
use crate::claims::{self, NodeClaims, NodeVolumeLimits, TaskClaims};
use crate::undo::Undo;
use crate::view::{phase, status, Handle, HyperNode, Job, Node, Queue, Task, View};

/// The view of one scheduling session and the policy's arguments.
///
/// The view is read-only to plugins: the SDK keeps it current as the
/// scheduler places tasks, and keeps it across sessions so that the next
/// session sends only what changed. Keep your own state in your plugin.
#[derive(Debug)]
pub struct Session {
    view: View,
    arguments: Arguments,
    // The tasks of job j are job_tasks[job_start[j]..job_start[j + 1]], in
    // handle order.
    job_start: Vec<u32>,
    job_tasks: Vec<u32>,
    // The index of each task's entry in view.task_claims and of each
    // node's in view.volume_limits (claims::index_by_handle).
    claims_at: Vec<u32>,
    limits_at: Vec<u32>,
    conditions: RefCell<Vec<Condition>>,
    undo: Undo,
    // Set by the default `Plugin::on_session_close`: the plugin does
    // nothing at close.
    closed_by_default: Cell<bool>,
    // Set while `Predicate::predicate_batch` serves a call made during a
    // preemption dry run (`in_victim_trial`).
    trial: Cell<bool>,
    // Set while `NodeOrder::node_order_batch` serves a call that names the
    // hypernode holding what the task's job placed so far (ABI 1.9), -1
    // otherwise (`job_hyper_node`).
    job_hyper_node: Cell<Handle>,
    // Set while `Predicate::predicate_batch` serves a call that brings the
    // scheduler's volume and device checks (ABI 1.10), one entry per node
    // of the call (`node_claims`).
    node_claims: Option<Vec<Option<NodeClaims>>>,
    // The scheduler's ABI version as session_open said it (1.5 and later
    // say it), [major, minor]; empty when it did not.
    host_abi: Vec<u32>,
    // The fit errors session_close brought (1.6), by task handle.
    fit_errors: std::collections::HashMap<Handle, String>,
}

/// A PodGroup condition to set when the session closes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Condition {
    pub(crate) job: Handle,
    pub(crate) kind: String,
    pub(crate) status: String,
    pub(crate) reason: String,
    pub(crate) message: String,
}

/// Event kinds the scheduler forwards (docs/abi.md, section 6).
pub(crate) const EVENT_ALLOCATE: i32 = 1;
pub(crate) const EVENT_PIPELINE: i32 = 2;
pub(crate) const EVENT_DEALLOCATE: i32 = 3;
pub(crate) const EVENT_EVICT: i32 = 4;
pub(crate) const EVENT_UNEVICT: i32 = 5;
pub(crate) const EVENT_ENQUEUE: i32 = 6;
pub(crate) const EVENT_BIND: i32 = 7;

impl Session {
    /// A session over a view, prepared as the SDK prepares one that arrives
    /// from the scheduler: every object's handle set and each job's tasks
    /// indexed. A plugin's unit tests build their sessions with it.
    pub fn new(view: View, arguments: Arguments) -> Session {
        let mut s = Session {
            view,
            arguments,
            job_start: Vec::new(),
            job_tasks: Vec::new(),
            claims_at: Vec::new(),
            limits_at: Vec::new(),
            conditions: RefCell::new(Vec::new()),
            undo: Undo::default(),
            closed_by_default: Cell::new(false),
            trial: Cell::new(false),
            job_hyper_node: Cell::new(-1),
            node_claims: None,
            host_abi: Vec::new(),
            fit_errors: std::collections::HashMap::new(),
        };
        s.index();
        s
    }

    /// The minor of the ABI the scheduler speaks, as its session_open said
    /// (1.5 and later say it), or 0 when it did not (a scheduler of 1.4 or
    /// earlier, or a session made by [`Session::new`]). Send what a later
    /// minor added only to a scheduler that reads it.
    pub fn host_abi_minor(&self) -> u32 {
        match self.host_abi.as_slice() {
            [1, minor, ..] => *minor,
            _ => 0,
        }
    }

    pub(crate) fn set_host_abi(&mut self, abi: Vec<u32>) {
        self.host_abi = abi;
    }

    /// Why the session found no node for the task, as the scheduler words
    /// it on the pod ("0/3 nodes are unavailable: 3 Insufficient cpu."), or
    /// None when it found one or did not try. Known in
    /// `Plugin::on_session_close`, from a scheduler of ABI 1.6 or later; a
    /// gang policy quotes it as Volcano's "Origin reason".
    pub fn fit_error(&self, task: &Task) -> Option<&str> {
        self.fit_errors.get(&task.handle).map(String::as_str)
    }

    /// Gives the session the fit errors a scheduler sends when it closes, by
    /// task handle: for a plugin's unit tests, which build their sessions
    /// with [`Session::new`].
    pub fn set_fit_errors(&mut self, by_task: std::collections::HashMap<Handle, String>) {
        self.fit_errors = by_task;
    }

    /// Sets every object's handle and lists each job's tasks.
    fn index(&mut self) {
        let v = &mut self.view;
        for (i, n) in v.nodes.iter_mut().enumerate() {
            n.handle = i as Handle;
        }
        for (i, q) in v.queues.iter_mut().enumerate() {
            q.handle = i as Handle;
        }
        for (i, j) in v.jobs.iter_mut().enumerate() {
            j.handle = i as Handle;
        }
        for (i, h) in v.hyper_nodes.iter_mut().enumerate() {
            h.handle = i as Handle;
        }
        let jobs = v.jobs.len();
        let mut start = vec![0u32; jobs + 1];
        for (i, t) in v.tasks.iter_mut().enumerate() {
            t.handle = i as Handle;
            if let Ok(j) = usize::try_from(t.job) {
                if j < jobs {
                    start[j + 1] += 1;
                }
            }
        }
        for j in 0..jobs {
            start[j + 1] += start[j];
        }
        let mut next = start.clone();
        let mut list = vec![0u32; start[jobs] as usize];
        for (i, t) in v.tasks.iter().enumerate() {
            if let Ok(j) = usize::try_from(t.job) {
                if j < jobs {
                    list[next[j] as usize] = i as u32;
                    next[j] += 1;
                }
            }
        }
        self.job_start = start;
        self.job_tasks = list;
        self.claims_at = claims::index_by_handle(v.task_claims.iter().map(|c| c.task), v.tasks.len());
        self.limits_at = claims::index_by_handle(v.volume_limits.iter().map(|l| l.node), v.nodes.len());
    }

    /// The whole view.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// The policy's arguments from the scheduler configuration.
    pub fn arguments(&self) -> &Arguments {
        &self.arguments
    }

    pub fn nodes(&self) -> &[Node] {
        &self.view.nodes
    }

    pub fn queues(&self) -> &[Queue] {
        &self.view.queues
    }

    pub fn jobs(&self) -> &[Job] {
        &self.view.jobs
    }

    pub fn tasks(&self) -> &[Task] {
        &self.view.tasks
    }

    /// The node with this handle; `None` for -1 or a handle out of range.
    pub fn node(&self, h: Handle) -> Option<&Node> {
        get(&self.view.nodes, h)
    }

    pub fn queue(&self, h: Handle) -> Option<&Queue> {
        get(&self.view.queues, h)
    }

    pub fn job(&self, h: Handle) -> Option<&Job> {
        get(&self.view.jobs, h)
    }

    pub fn task(&self, h: Handle) -> Option<&Task> {
        get(&self.view.tasks, h)
    }

    /// The task's job.
    pub fn job_of(&self, task: &Task) -> Option<&Job> {
        self.job(task.job)
    }

    /// The node the task is on or placed on.
    pub fn node_of(&self, task: &Task) -> Option<&Node> {
        self.node(task.node)
    }

    /// The job's queue.
    pub fn queue_of(&self, job: &Job) -> Option<&Queue> {
        self.queue(job.queue)
    }

    /// The job's tasks, in handle order.
    pub fn tasks_of(&self, job: &Job) -> impl ExactSizeIterator<Item = &Task> + DoubleEndedIterator + Clone + '_ {
        let ids = match usize::try_from(job.handle) {
            Ok(j) if j + 1 < self.job_start.len() => &self.job_tasks[self.job_start[j] as usize..self.job_start[j + 1] as usize],
            _ => &[],
        };
        ids.iter().map(move |&i| &self.view.tasks[i as usize])
    }

    /// Whether the [`Predicate::predicate_batch`](crate::Predicate::predicate_batch)
    /// call being served is part of a preemption dry run in which this
    /// plugin takes part (its configuration enables `preemptable` or
    /// `allocatable`; ABI 1.4); false in every other hook. The evictions
    /// applied to the view since the dry run began only test whether the
    /// victims make room: Volcano's predicates plugin counts them in its
    /// inter-pod affinity and spread state then, and only then, outside
    /// PrePredicate.
    pub fn in_victim_trial(&self) -> bool {
        self.trial.get()
    }

    /// In `NodeOrder::node_order_batch`, the lowest hypernode holding what
    /// the task's job has placed so far while allocate places a job with a
    /// network topology (ABI 1.9); `None` otherwise. Volcano's
    /// network-topology-aware scores nodes by how close they are to it.
    pub fn job_hyper_node(&self) -> Option<&HyperNode> {
        self.hyper_node(self.job_hyper_node.get())
    }

    /// The hypernode of a handle; `None` for -1 or a handle outside the
    /// view.
    pub fn hyper_node(&self, h: Handle) -> Option<&HyperNode> {
        usize::try_from(h).ok().and_then(|i| self.view.hyper_nodes.get(i))
    }

    /// The session's hypernodes, in handle order (ABI 1.9).
    pub fn hyper_nodes(&self) -> &[HyperNode] {
        &self.view.hyper_nodes
    }

    pub(crate) fn set_job_hyper_node(&self, h: Handle) {
        self.job_hyper_node.set(h);
    }

    /// The claims of the task's pod (ABI 1.10): its PersistentVolumeClaims
    /// and ResourceClaims; `None` when it uses none or the handle is
    /// outside the view.
    pub fn task_claims(&self, task: Handle) -> Option<&TaskClaims> {
        claims::by_handle(&self.view.task_claims, &self.claims_at, task)
    }

    /// The volume limits the node's CSINode states, by CSI driver (ABI
    /// 1.10); `None` when it states none or the handle is outside the view.
    pub fn volume_limits(&self, node: Handle) -> Option<&NodeVolumeLimits> {
        claims::by_handle(&self.view.volume_limits, &self.limits_at, node)
    }

    /// Whether this session's
    /// [`Plugin::predicate_domain_rules`](crate::Plugin::predicate_domain_rules)
    /// answers reach the scheduler: both it and this SDK speak 1.5 or later.
    /// A plugin that gives node-local classes on the strength of its rules
    /// (as [`podrules::ruled_classes`](crate::podrules::ruled_classes) does)
    /// must ask this, or it would promise classes whose rules are never
    /// sent.
    pub fn reads_domain_rules(&self) -> bool {
        crate::module::ABI_MINOR >= 5 && self.host_abi_minor() >= 5
    }

    /// In [`Predicate::predicate_batch`](crate::Predicate::predicate_batch)
    /// of a plugin that declares
    /// [`Plugin::CLAIM_CHECKS`](crate::Plugin::CLAIM_CHECKS), what the
    /// scheduler's volume and device checks found on `nodes[i]` (ABI 1.10);
    /// `None` when every check passes there, when the task has no claim to
    /// check, and outside `predicate_batch`.
    pub fn node_claims(&self, i: usize) -> Option<&NodeClaims> {
        self.node_claims.as_ref()?.get(i)?.as_ref()
    }

    /// Gives the session what the scheduler's volume and device checks
    /// found on each node of a `predicate_batch` call, `None` for a call
    /// without them: for a plugin's unit tests, which build their sessions
    /// with [`Session::new`] (the SDK sets them for each call it serves).
    pub fn set_node_claims(&mut self, claims: Option<Vec<Option<NodeClaims>>>) {
        self.node_claims = claims;
    }

    /// How many entries the scheduler's `claims` has, `None` when it sent
    /// none.
    pub(crate) fn node_claims_sent(&self) -> Option<usize> {
        self.node_claims.as_ref().map(Vec::len)
    }

    /// Asks the scheduler to set a condition on the job's PodGroup when the
    /// session closes, as a native plugin does from OnSessionClose (for
    /// example `Unschedulable`, `True`, `NotEnoughResources`, "3/4 tasks in
    /// gang unschedulable"). A later call for the same job and type wins.
    pub fn set_condition(&self, job: &Job, kind: &str, status: &str, reason: &str, message: &str) {
        let mut cs = self.conditions.borrow_mut();
        if let Some(c) = cs.iter_mut().find(|c| c.job == job.handle && c.kind == kind) {
            c.status = status.to_string();
            c.reason = reason.to_string();
            c.message = message.to_string();
            return;
        }
        cs.push(Condition {
            job: job.handle,
            kind: kind.to_string(),
            status: status.to_string(),
            reason: reason.to_string(),
            message: message.to_string(),
        });
    }

    /// Records that the plugin's `on_session_close` is the trait's default.
    pub(crate) fn note_default_close(&self) {
        self.closed_by_default.set(true);
    }

    pub(crate) fn closed_by_default(&self) -> bool {
        self.closed_by_default.get()
    }

    pub(crate) fn set_victim_trial(&self, on: bool) {
        self.trial.set(on);
    }

    pub(crate) fn take_conditions(&self) -> Vec<Condition> {
        std::mem::take(&mut *self.conditions.borrow_mut())
    }

    #[cfg(test)]
    pub(crate) fn view_mut(&mut self) -> &mut View {
        &mut self.view
    }

    /// The view as it arrived: what events changed is put back, since the
    /// next session's delta is relative to that.
    pub(crate) fn into_view(mut self) -> View {
        self.undo.restore(&mut self.view);
        self.view
    }

    /// Brings the view up to date with one event, accounting resources the
    /// way the scheduler's nodes do. Kinds beyond `last` (events of a newer
    /// ABI minor) change nothing.
    pub(crate) fn apply(&mut self, kind: i32, object: Handle, node: Handle, last: i32) -> Result<(), String> {
        if kind > last || kind < EVENT_ALLOCATE {
            return Ok(());
        }
        let v = &mut self.view;
        if kind == EVENT_ENQUEUE {
            let n = v.jobs.len();
            let job = index(object, n).ok_or_else(|| format!("event {} names job {} of {}", kind, object, n))?;
            self.undo.job(v, job);
            v.jobs[job].phase = phase::INQUEUE.to_string();
            return Ok(());
        }
        let n = v.tasks.len();
        let t = index(object, n).ok_or_else(|| format!("event {} names task {} of {}", kind, object, n))?;
        let nodes = v.nodes.len();
        let on = index(node, nodes);
        if kind != EVENT_DEALLOCATE && on.is_none() {
            return Err(format!("event {} names node {} of {}", kind, node, nodes));
        }
        self.undo.task(v, t);
        // The node whose usage the event changes.
        let changed = if kind == EVENT_DEALLOCATE { index(v.tasks[t].node, nodes) } else { on };
        if let Some(i) = changed {
            self.undo.node(v, i);
        }
        let task = &mut v.tasks[t];
        match kind {
            EVENT_ALLOCATE => {
                let n = &mut v.nodes[on.unwrap_or_default()];
                n.idle.sub(&task.request);
                n.used.add(&task.request);
                n.pods += 1;
                set_status(task, status::ALLOCATED);
                task.node = node;
            }
            EVENT_PIPELINE => {
                v.nodes[on.unwrap_or_default()].pipelined.add(&task.request);
                set_status(task, status::PIPELINED);
                task.node = node;
            }
            EVENT_EVICT => {
                v.nodes[on.unwrap_or_default()].releasing.add(&task.request);
                set_status(task, status::RELEASING);
            }
            EVENT_UNEVICT => {
                v.nodes[on.unwrap_or_default()].releasing.sub(&task.request);
                set_status(task, status::RUNNING);
            }
            EVENT_BIND => set_status(task, status::BINDING),
            EVENT_DEALLOCATE => {
                if let Some(h) = index(task.node, nodes) {
                    let n = &mut v.nodes[h];
                    if task.status == status::PIPELINED {
                        n.pipelined.sub(&task.request);
                    } else if status::is_allocated(&task.status) {
                        n.idle.add(&task.request);
                        n.used.sub(&task.request);
                        n.pods -= 1;
                    }
                }
                set_status(task, status::PENDING);
                task.node = -1;
            }
            _ => {}
        }
        Ok(())
    }
}

fn index(h: Handle, len: usize) -> Option<usize> {
    usize::try_from(h).ok().filter(|&i| i < len)
}

fn get<T>(list: &[T], h: Handle) -> Option<&T> {
    index(h, list.len()).map(|i| &list[i])
}

/// Sets a status, reusing the string's buffer (events are frequent).
fn set_status(task: &mut Task, s: &str) {
    task.status.clear();
    task.status.push_str(s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Resource;

    fn cpu(m: i64) -> Resource {
        Resource { milli_cpu: m, ..Resource::default() }
    }

    fn session() -> Session {
        let view = View {
            nodes: vec![Node { name: "n0".into(), allocatable: cpu(4000), idle: cpu(4000), ..Node::default() }],
            jobs: vec![Job { name: "a".into(), ..Job::default() }, Job { name: "b".into(), ..Job::default() }],
            tasks: vec![
                Task { name: "b0".into(), job: 1, request: cpu(1000), ..Task::default() },
                Task { name: "a0".into(), job: 0, request: cpu(1000), ..Task::default() },
                Task { name: "b1".into(), job: 1, request: cpu(500), ..Task::default() },
                Task { name: "orphan".into(), job: 9, ..Task::default() },
            ],
            ..View::default()
        };
        Session::new(view, Arguments::default())
    }

    #[test]
    fn index_lists_each_jobs_tasks_in_handle_order() {
        let s = session();
        let names = |j: Handle| s.tasks_of(s.job(j).unwrap()).map(|t| t.name.as_str()).collect::<Vec<_>>();
        assert_eq!(names(0), ["a0"]);
        assert_eq!(names(1), ["b0", "b1"]);
        assert_eq!(s.task(2).unwrap().handle, 2);
        assert!(s.node(-1).is_none());
    }

    #[test]
    fn events_account_resources_like_the_scheduler() {
        let mut s = session();
        s.apply(EVENT_ALLOCATE, 0, 0, EVENT_BIND).unwrap();
        s.apply(EVENT_PIPELINE, 2, 0, EVENT_BIND).unwrap();
        let n = s.node(0).unwrap();
        assert_eq!((n.idle.milli_cpu, n.used.milli_cpu, n.pipelined.milli_cpu, n.pods), (3000, 1000, 500, 1));
        s.apply(EVENT_BIND, 0, 0, EVENT_BIND).unwrap();
        assert_eq!(s.task(0).unwrap().status, status::BINDING);
        s.apply(EVENT_DEALLOCATE, 0, -1, EVENT_BIND).unwrap();
        s.apply(EVENT_DEALLOCATE, 2, -1, EVENT_BIND).unwrap();
        let n = s.node(0).unwrap();
        assert_eq!((n.idle.milli_cpu, n.used.milli_cpu, n.pipelined.milli_cpu, n.pods), (4000, 0, 0, 0));
        assert_eq!((s.task(0).unwrap().status.as_str(), s.task(0).unwrap().node), (status::PENDING, -1));
        s.apply(EVENT_ENQUEUE, 1, -1, EVENT_BIND).unwrap();
        assert_eq!(s.job(1).unwrap().phase, phase::INQUEUE);
        // A newer minor's event changes nothing; bad handles are errors.
        s.apply(42, 0, 0, EVENT_BIND).unwrap();
        assert!(s.apply(EVENT_ALLOCATE, 7, 0, EVENT_BIND).is_err());
        assert!(s.apply(EVENT_ALLOCATE, 0, 3, EVENT_BIND).is_err());
        assert!(s.apply(EVENT_ENQUEUE, 5, -1, EVENT_BIND).is_err());
    }

    #[test]
    fn a_later_condition_for_the_same_job_and_type_wins() {
        let s = session();
        let j = s.job(0).unwrap();
        s.set_condition(j, "Unschedulable", "True", "a", "first");
        s.set_condition(j, "Unschedulable", "True", "b", "second");
        s.set_condition(j, "Scheduled", "True", "c", "");
        let cs = s.take_conditions();
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[0].message, "second");
    }
}
