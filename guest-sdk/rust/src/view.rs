//! The session's view of the cluster: plain values, decoded from the
//! scheduler's msgpack with serde (docs/abi.md, section 6).
//!
//! Every collection and string accepts msgpack nil as empty, and every
//! field may be absent (an older scheduler does not send what a newer ABI
//! minor added): absent fields take their `Default`. Unknown fields are
//! skipped, so a newer scheduler's additions do not break an older module.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::claims::{NodeVolumeLimits, TaskClaims};

/// An object's index in its list of the [`View`], the same on both sides of
/// the boundary. `-1` means "none" where the ABI allows it (a task on no
/// node).
pub type Handle = i32;

/// Reads msgpack nil as the type's default (Go's host sends nil for an
/// empty list or map that it does not omit).
pub(crate) fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// An amount of every resource dimension.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Resource {
    /// CPU in milli-cores.
    #[serde(rename = "cpu")]
    pub milli_cpu: i64,
    /// Memory in bytes.
    pub memory: i64,
    /// Scalar resources by name, in milli-units (`pods` as a count).
    #[serde(deserialize_with = "nullable")]
    pub scalars: BTreeMap<String, i64>,
}

impl Resource {
    /// One scalar dimension, 0 when absent.
    pub fn scalar(&self, name: &str) -> i64 {
        self.scalars.get(name).copied().unwrap_or(0)
    }

    /// Adds `d`, dimension by dimension.
    pub fn add(&mut self, d: &Resource) {
        self.milli_cpu += d.milli_cpu;
        self.memory += d.memory;
        for (k, v) in &d.scalars {
            match self.scalars.get_mut(k) {
                Some(q) => *q += v,
                None => {
                    self.scalars.insert(k.clone(), *v);
                }
            }
        }
    }

    /// Subtracts `d`, dimension by dimension.
    pub fn sub(&mut self, d: &Resource) {
        self.milli_cpu -= d.milli_cpu;
        self.memory -= d.memory;
        for (k, v) in &d.scalars {
            match self.scalars.get_mut(k) {
                Some(q) => *q -= v,
                None => {
                    self.scalars.insert(k.clone(), -v);
                }
            }
        }
    }
}

/// A node taint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Taint {
    #[serde(deserialize_with = "nullable")]
    pub key: String,
    #[serde(deserialize_with = "nullable")]
    pub value: String,
    /// `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    #[serde(deserialize_with = "nullable")]
    pub effect: String,
}

/// A pod toleration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Toleration {
    #[serde(deserialize_with = "nullable")]
    pub key: String,
    /// `Equal` (or empty) or `Exists`.
    #[serde(deserialize_with = "nullable")]
    pub operator: String,
    #[serde(deserialize_with = "nullable")]
    pub value: String,
    #[serde(deserialize_with = "nullable")]
    pub effect: String,
}

/// One requirement of a node selector term: a node label (in
/// `match_expressions`) or field (in `match_fields`; only `metadata.name` has
/// a value) compared with `values` by `operator` (`In`, `NotIn`, `Exists`,
/// `DoesNotExist`, `Gt`, `Lt`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct NodeSelectorRequirement {
    #[serde(deserialize_with = "nullable")]
    pub key: String,
    #[serde(deserialize_with = "nullable")]
    pub operator: String,
    #[serde(deserialize_with = "nullable")]
    pub values: Vec<String>,
}

/// A node selector term: its requirements ANDed. A term with no
/// requirements matches no node; neither does an `invalid` one, which
/// kube-scheduler's parser rejects.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeSelectorTerm {
    #[serde(deserialize_with = "nullable")]
    pub match_expressions: Vec<NodeSelectorRequirement>,
    #[serde(deserialize_with = "nullable")]
    pub match_fields: Vec<NodeSelectorRequirement>,
    pub invalid: bool,
}

/// Required node affinity: its terms ORed; no terms match no node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct NodeSelector {
    #[serde(deserialize_with = "nullable")]
    pub terms: Vec<NodeSelectorTerm>,
}

/// A preferred node affinity term and its weight.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct PreferredTerm {
    pub weight: i32,
    pub term: NodeSelectorTerm,
}

/// A pod's node affinity.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct NodeAffinity {
    /// `None` when the pod has no required affinity.
    pub required: Option<NodeSelector>,
    #[serde(deserialize_with = "nullable")]
    pub preferred: Vec<PreferredTerm>,
}

/// A container's host port; `ip` defaults to `0.0.0.0` and `protocol` to
/// `TCP`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct HostPort {
    #[serde(deserialize_with = "nullable")]
    pub ip: String,
    pub port: i32,
    #[serde(deserialize_with = "nullable")]
    pub protocol: String,
}

/// A pod's requests as kube-scheduler's scoring counts them: milli-CPU,
/// memory bytes and `nvidia.com/gpu` devices as written, and milli-CPU and
/// memory with kube-scheduler's defaults (100m, 200Mi) for containers that
/// request none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct KubeRequest {
    #[serde(rename = "cpu")]
    pub milli_cpu: i64,
    pub memory: i64,
    pub gpu: i64,
    #[serde(rename = "nonZeroCpu")]
    pub non_zero_milli_cpu: i64,
    #[serde(rename = "nonZeroMemory")]
    pub non_zero_memory: i64,
}

/// A node as the session sees it. `idle`, `used`, `releasing`, `pipelined`
/// and `pods` follow the session's placements: the SDK applies the
/// scheduler's events to them before each hook runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Node {
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub labels: BTreeMap<String, String>,
    #[serde(deserialize_with = "nullable")]
    pub annotations: BTreeMap<String, String>,
    #[serde(deserialize_with = "nullable")]
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
    pub allocatable: Resource,
    pub idle: Resource,
    pub used: Resource,
    pub releasing: Resource,
    pub pipelined: Resource,
    pub pods: i32,
    /// `kube_request` summed over the `pods` pods on the node when the
    /// session opened, pods of jobs outside the view included. Events do
    /// not change it: a policy that needs it current follows the events.
    pub kube_requested: KubeRequest,
    /// The host ports of those pods, one entry per container port. Events
    /// do not change it.
    #[serde(deserialize_with = "nullable")]
    pub host_ports: Vec<HostPort>,
    /// The images the node reports (ABI 1.4).
    #[serde(deserialize_with = "nullable")]
    pub images: Vec<Image>,
    /// The pods on the node when the session opened that are not tasks of
    /// the view (other schedulers' pods, jobs outside the session): what
    /// inter-pod affinity and topology spread count of them (ABI 1.4). The
    /// view's tasks on the node are those whose `node` is its handle.
    #[serde(deserialize_with = "nullable")]
    pub others: Vec<Pod>,
    /// The node's GPU cards for Volcano's GPU sharing, in ID order (ABI
    /// 1.12): empty unless its capacity states both `volcano.sh/gpu-memory`
    /// and `volcano.sh/gpu-number`, one per card, those its annotation
    /// `volcano.sh/gpu-unhealthy-ids` lists flagged. As the session opened: events
    /// do not change it, so a device policy follows its own
    /// [`Allocate`](crate::Allocate) answers and the deallocations.
    #[serde(deserialize_with = "nullable")]
    pub gpus: Vec<Gpu>,

    /// The node's index in [`View::nodes`], set by the SDK.
    #[serde(skip)]
    pub handle: Handle,
}

/// One GPU card of a node and the pods holding it when the session opened
/// (ABI 1.12).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Gpu {
    /// The card's number, as a pod's `volcano.sh/gpu-index` names it.
    pub id: i32,
    /// The card's memory: the node's `volcano.sh/gpu-memory` divided by its
    /// card count, in that resource's units.
    pub memory: i64,
    /// The GPU memory of the pods holding the card; a finished pod the
    /// session still sees holds it with 0.
    pub used: i64,
    /// How many pods on the node name the card in their
    /// `volcano.sh/gpu-index`, the view's tasks included; a card with none
    /// is idle (used may be 0 while holders is not).
    pub holders: i32,
    /// The node's `volcano.sh/gpu-unhealthy-ids` lists the card: nothing is
    /// placed on it. A node whose cards are all unhealthy still has cards.
    pub unhealthy: bool,
}

/// A queue of jobs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Queue {
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    pub weight: i32,
    pub capability: Resource,
    pub guarantee: Resource,
    /// `Open`, `Closed`, ...
    #[serde(deserialize_with = "nullable")]
    pub state: String,
    #[serde(deserialize_with = "nullable")]
    pub annotations: BTreeMap<String, String>,
    /// The queue's `spec.priority`; a higher one goes first.
    pub priority: i32,
    /// The queue's `spec.parent`, empty when it names none (where queues
    /// form a tree, the root queue is then the parent). From a scheduler of
    /// ABI 1.7 or later.
    #[serde(deserialize_with = "nullable")]
    pub parent: String,
    /// The queue's `spec.deserved`, `None` when it states none. From a
    /// scheduler of ABI 1.7 or later.
    pub deserved: Option<Resource>,
    /// The queue's `spec.reclaimable`, `None` when unset, which means
    /// reclaimable ([`Queue::is_reclaimable`]). From a scheduler of ABI 1.7
    /// or later.
    pub reclaimable: Option<bool>,

    /// The queue's index in [`View::queues`], set by the SDK.
    #[serde(skip)]
    pub handle: Handle,
}

impl Queue {
    /// Whether other queues may reclaim what this one holds beyond its
    /// share: unless `spec.reclaimable` says false.
    pub fn is_reclaimable(&self) -> bool {
        self.reclaimable.unwrap_or(true)
    }
}

/// PodGroup phases, as Volcano names them ([`Job::phase`]).
pub mod phase {
    pub const PENDING: &str = "Pending";
    pub const INQUEUE: &str = "Inqueue";
    pub const RUNNING: &str = "Running";
    pub const UNKNOWN: &str = "Unknown";
    pub const COMPLETED: &str = "Completed";
}

/// Task statuses, as Volcano names them ([`Task::status`]).
pub mod status {
    pub const PENDING: &str = "Pending";
    pub const ALLOCATED: &str = "Allocated";
    pub const PIPELINED: &str = "Pipelined";
    pub const BINDING: &str = "Binding";
    pub const BOUND: &str = "Bound";
    pub const RUNNING: &str = "Running";
    pub const RELEASING: &str = "Releasing";
    pub const SUCCEEDED: &str = "Succeeded";
    pub const FAILED: &str = "Failed";
    pub const UNKNOWN: &str = "Unknown";

    /// The task holds node resources on behalf of its job (Volcano's
    /// AllocatedStatus).
    pub fn is_allocated(s: &str) -> bool {
        matches!(s, ALLOCATED | BINDING | BOUND | RUNNING)
    }
}

/// A PodGroup and, through [`Session::tasks_of`](crate::Session::tasks_of),
/// its tasks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Job {
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    /// The job's queue.
    pub queue: Handle,
    pub priority: i32,
    pub min_available: i32,
    pub min_resources: Resource,
    /// One of [`phase`].
    #[serde(deserialize_with = "nullable")]
    pub phase: String,
    #[serde(deserialize_with = "nullable")]
    pub labels: BTreeMap<String, String>,
    #[serde(deserialize_with = "nullable")]
    pub annotations: BTreeMap<String, String>,
    /// Unix milliseconds.
    pub creation_time: i64,
    /// The PodGroup's `spec.minTaskMember`: the least number of tasks of
    /// each role the job needs.
    #[serde(deserialize_with = "nullable")]
    pub min_task_member: BTreeMap<String, i32>,
    /// The PodGroup's `spec.networkTopology` as the scheduler resolved it at
    /// session open; `None` when it has none (ABI 1.9).
    pub network_topology: Option<NetworkTopology>,
    /// The handle of the lowest hypernode holding what the job placed, as
    /// the session opened (ABI 1.9). The hypernode hooks bring the current
    /// one (`HyperNodeSearch::allocated`).
    pub allocated_hyper_node: Option<Handle>,

    /// The job's index in [`View::jobs`], set by the SDK.
    #[serde(skip)]
    pub handle: Handle,
}

/// One pod of a job.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Task {
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    /// The task's job.
    pub job: Handle,
    /// One of [`status`].
    #[serde(deserialize_with = "nullable")]
    pub status: String,
    /// The node the task is on or placed on, `-1` when none.
    pub node: Handle,
    pub priority: i32,
    pub request: Resource,
    pub init_request: Resource,
    #[serde(deserialize_with = "nullable")]
    pub labels: BTreeMap<String, String>,
    #[serde(deserialize_with = "nullable")]
    pub annotations: BTreeMap<String, String>,
    #[serde(deserialize_with = "nullable")]
    pub node_selector: BTreeMap<String, String>,
    #[serde(deserialize_with = "nullable")]
    pub tolerations: Vec<Toleration>,
    pub preemptable: bool,
    #[serde(deserialize_with = "nullable")]
    pub role: String,
    /// Unix milliseconds.
    pub creation_time: i64,
    /// The pod's `spec.priorityClassName`.
    #[serde(deserialize_with = "nullable")]
    pub priority_class_name: String,
    /// The task requests no resources (Volcano's BestEffort).
    pub best_effort: bool,
    /// The pod's node affinity, `None` when it has none.
    pub node_affinity: Option<NodeAffinity>,
    /// The host ports of the pod's containers.
    #[serde(deserialize_with = "nullable")]
    pub host_ports: Vec<HostPort>,
    /// The pod's requests as kube-scheduler's scoring counts them.
    pub kube_request: KubeRequest,
    /// The pod is being deleted (ABI 1.4).
    pub terminating: bool,
    /// The pod's inter-pod affinity terms, `None` when it has none (ABI 1.4).
    pub pod_affinity: Option<PodAffinity>,
    pub pod_anti_affinity: Option<PodAffinity>,
    /// kube-scheduler's error parsing those terms; the kinds that failed
    /// are left out (ABI 1.4).
    #[serde(deserialize_with = "nullable")]
    pub affinity_error: String,
    /// The pod's topology spread constraints, in spec order (ABI 1.4).
    #[serde(deserialize_with = "nullable")]
    pub spread_constraints: Vec<SpreadConstraint>,
    /// The pod states no spread constraints and `spread_constraints` are
    /// kube-scheduler's system defaults over the pods its Services and
    /// controller select, which score but never filter; nodes lacking a
    /// topology key still take part in the score (ABI 1.4).
    pub spread_defaulted: bool,
    /// The images of the pod's init and app containers, in that order,
    /// with kube-scheduler's `:latest` added to untagged names (ABI 1.4).
    #[serde(deserialize_with = "nullable")]
    pub images: Vec<String>,
    /// The pod's `volcano.sh/gpu-memory`, the share of one GPU it asks
    /// for: the sum of its containers' limits, or the largest init
    /// container's when that is more; 0 when it asks for none (ABI 1.12).
    pub gpu_memory: i64,
    /// The pod's `volcano.sh/gpu-number`, the whole GPUs it asks for,
    /// summed as `gpu_memory` is (ABI 1.12).
    pub gpu_number: i64,

    /// The task's index in [`View::tasks`], set by the SDK.
    #[serde(skip)]
    pub handle: Handle,
}

impl Default for Task {
    /// A pending task on no node (`node` is -1).
    fn default() -> Self {
        Task {
            namespace: String::new(),
            name: String::new(),
            job: 0,
            status: status::PENDING.to_string(),
            node: -1,
            priority: 0,
            request: Resource::default(),
            init_request: Resource::default(),
            labels: BTreeMap::new(),
            annotations: BTreeMap::new(),
            node_selector: BTreeMap::new(),
            tolerations: Vec::new(),
            preemptable: false,
            role: String::new(),
            creation_time: 0,
            priority_class_name: String::new(),
            best_effort: false,
            node_affinity: None,
            host_ports: Vec::new(),
            kube_request: KubeRequest::default(),
            terminating: false,
            pod_affinity: None,
            pod_anti_affinity: None,
            affinity_error: String::new(),
            spread_constraints: Vec::new(),
            spread_defaulted: false,
            images: Vec::new(),
            gpu_memory: 0,
            gpu_number: 0,
            handle: 0,
        }
    }
}

/// The cluster as one session sees it. An object's handle is its index in
/// its list.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct View {
    #[serde(deserialize_with = "nullable")]
    pub nodes: Vec<Node>,
    #[serde(deserialize_with = "nullable")]
    pub queues: Vec<Queue>,
    #[serde(deserialize_with = "nullable")]
    pub jobs: Vec<Job>,
    #[serde(deserialize_with = "nullable")]
    pub tasks: Vec<Task>,
    /// The policy of each of the session's plugins, in configuration order:
    /// a native plugin's name, or the name a Wasm module declares
    /// ([`Plugin::NAME`](crate::Plugin::NAME)), whatever its file is called.
    #[serde(deserialize_with = "nullable")]
    pub plugins: Vec<String>,
    /// The labels of the cluster's namespaces, by name (ABI 1.4).
    #[serde(deserialize_with = "nullable")]
    pub namespaces: BTreeMap<String, BTreeMap<String, String>>,
    /// The cluster's PodDisruptionBudgets, in namespace and name order
    /// (ABI 1.8).
    #[serde(rename = "disruptionBudgets", deserialize_with = "nullable")]
    pub disruption_budgets: Vec<DisruptionBudget>,
    /// The cluster's ResourceQuotas, in namespace and name order (ABI 1.8).
    #[serde(rename = "resourceQuotas", deserialize_with = "nullable")]
    pub resource_quotas: Vec<ResourceQuota>,
    /// The session's hypernodes, the cluster top included, in name order; a
    /// hypernode's handle is its index here (ABI 1.9).
    #[serde(rename = "hyperNodes", deserialize_with = "nullable")]
    pub hyper_nodes: Vec<HyperNode>,
    /// The claims of each task that uses a PersistentVolumeClaim or a
    /// ResourceClaim, in task handle order (ABI 1.10); events do not change
    /// them. [`Session::task_claims`](crate::Session::task_claims) finds a
    /// task's.
    #[serde(rename = "taskClaims", deserialize_with = "nullable")]
    pub task_claims: Vec<TaskClaims>,
    /// The volume limits of each node whose CSINode states some, in node
    /// handle order (ABI 1.10).
    /// [`Session::volume_limits`](crate::Session::volume_limits) finds a
    /// node's.
    #[serde(rename = "volumeLimits", deserialize_with = "nullable")]
    pub volume_limits: Vec<NodeVolumeLimits>,
}

/// A hypernode of the session: a network switch's tier grouping nodes and
/// lower hypernodes (ABI 1.9). `nodes` are the handles of the nodes directly
/// under it, those none of its child hypernodes holds, in handle order; its
/// nodes at every depth are these and its descendants'.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct HyperNode {
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    pub tier: i32,
    /// The parent's handle, -1 for the cluster top.
    pub parent: Handle,
    #[serde(deserialize_with = "nullable")]
    pub nodes: Vec<Handle>,

    /// The hypernode's index in [`View::hyper_nodes`], set by the SDK.
    #[serde(skip)]
    pub handle: Handle,
}

/// A job's network topology as the scheduler resolved it: a
/// `highestTierName` becomes its tier, and soft mode becomes hard up to the
/// cluster top's tier, as Volcano does at session open. `highest_tier` is
/// `None` when the job names a tier no hypernode has.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NetworkTopology {
    /// `hard` or `soft`.
    #[serde(deserialize_with = "nullable")]
    pub mode: String,
    pub highest_tier: Option<i32>,
}

/// A PodDisruptionBudget (policy/v1): its selector (`None` when the budget
/// has none, no requirements when it is empty; Volcano's pdb plugin matches
/// nothing with either), the disruptions its status allows, and the pods its
/// status lists as disrupted already.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct DisruptionBudget {
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    pub selector: Option<Selector>,
    pub disruptions_allowed: i32,
    #[serde(deserialize_with = "nullable")]
    pub disrupted_pods: Vec<String>,
}

/// A ResourceQuota's status: `status.hard` and `status.used` by resource
/// name (`requests.cpu`, `pods`, ...), each in thousandths of its unit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ResourceQuota {
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub hard: BTreeMap<String, i64>,
    #[serde(deserialize_with = "nullable")]
    pub used: BTreeMap<String, i64>,
}

/// An image a node reports: its names and size in bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Image {
    #[serde(deserialize_with = "nullable")]
    pub names: Vec<String>,
    pub size: i64,
}

/// A pod on a node that is not a task of the view.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Pod {
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub labels: BTreeMap<String, String>,
    pub terminating: bool,
    pub pod_affinity: Option<PodAffinity>,
    pub pod_anti_affinity: Option<PodAffinity>,
}

/// A label selector as kube-scheduler reads it: its requirements (`In`,
/// `NotIn`, `Exists`, `DoesNotExist`) ANDed. An absent selector
/// (`Option::None`) matches nothing; one without requirements matches every
/// pod.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Selector {
    #[serde(deserialize_with = "nullable")]
    pub requirements: Vec<NodeSelectorRequirement>,
}

/// A pod affinity term as kube-scheduler parses it: matchLabelKeys and
/// mismatchLabelKeys merged into `selector`, and `namespaces` the owning
/// pod's own when the term names neither namespaces nor a namespace
/// selector.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PodAffinityTerm {
    pub selector: Option<Selector>,
    #[serde(deserialize_with = "nullable")]
    pub namespaces: Vec<String>,
    pub namespace_selector: Option<Selector>,
    #[serde(deserialize_with = "nullable")]
    pub topology_key: String,
}

/// A preferred pod affinity term and its weight.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct WeightedPodAffinityTerm {
    pub weight: i32,
    pub term: PodAffinityTerm,
}

/// A pod's `podAffinity` or `podAntiAffinity`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct PodAffinity {
    #[serde(deserialize_with = "nullable")]
    pub required: Vec<PodAffinityTerm>,
    #[serde(deserialize_with = "nullable")]
    pub preferred: Vec<WeightedPodAffinityTerm>,
}

/// A topology spread constraint with kube-scheduler's defaults filled in
/// (`min_domains` 1, `node_affinity_policy` `Honor`, `node_taints_policy`
/// `Ignore`) and matchLabelKeys merged into `selector`. `error` is
/// kube-scheduler's error reading it; the other fields but
/// `when_unsatisfiable` are then empty.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SpreadConstraint {
    pub max_skew: i32,
    #[serde(deserialize_with = "nullable")]
    pub topology_key: String,
    #[serde(deserialize_with = "nullable")]
    pub when_unsatisfiable: String,
    pub selector: Option<Selector>,
    pub min_domains: i32,
    #[serde(deserialize_with = "nullable")]
    pub node_affinity_policy: String,
    #[serde(deserialize_with = "nullable")]
    pub node_taints_policy: String,
    #[serde(deserialize_with = "nullable")]
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msgpack::Writer;

    /// A newer scheduler's fields are skipped, nil collections read as
    /// empty, and absent fields take their defaults.
    #[test]
    fn decoding_tolerates_other_minors() {
        let mut b = Vec::new();
        let mut w = Writer(&mut b);
        w.map(5);
        w.str("name");
        w.str("n1");
        w.str("labels");
        w.nil();
        w.str("fromABI1_9");
        w.array(2);
        w.int(1);
        w.str("x");
        w.str("taints");
        w.nil();
        w.str("pods");
        w.int(3);
        let n: Node = rmp_serde::from_slice(&b).unwrap();
        assert_eq!((n.name.as_str(), n.pods, n.labels.len(), n.taints.len()), ("n1", 3, 0, 0));
        assert_eq!(n.kube_requested, KubeRequest::default());
        let t: Task = rmp_serde::from_slice(&[0x80]).unwrap();
        assert_eq!((t.node, t.status.as_str()), (-1, status::PENDING));
        assert_eq!((t.gpu_memory, t.gpu_number, n.gpus.len()), (0, 0, 0), "absent GPU fields");
    }

    /// A node's cards and a task's GPU requests (ABI 1.12), a card's
    /// unknown key skipped and a nil card list read as none.
    #[test]
    fn gpus_decode() {
        let mut b = Vec::new();
        let mut w = Writer(&mut b);
        w.map(2);
        w.str("name");
        w.str("n1");
        w.str("gpus");
        w.array(2);
        for (id, used, holders) in [(0, 3000, 1), (2, 0, 0)] {
            w.map(5);
            w.str("id");
            w.int(id);
            w.str("memory");
            w.int(8000);
            w.str("fromABI1_13");
            w.str("x");
            w.str("used");
            w.int(used);
            w.str("holders");
            w.int(holders);
        }
        let n: Node = rmp_serde::from_slice(&b).unwrap();
        assert_eq!(
            n.gpus,
            [Gpu { id: 0, memory: 8000, used: 3000, holders: 1, unhealthy: false }, Gpu { id: 2, memory: 8000, used: 0, holders: 0, unhealthy: false }]
        );
        let n: Node = rmp_serde::from_slice(b"\x81\xa4gpus\xc0").unwrap();
        assert!(n.gpus.is_empty());

        b.clear();
        let mut w = Writer(&mut b);
        w.map(2);
        w.str("gpuMemory");
        w.int(2000);
        w.str("gpuNumber");
        w.int(3);
        let t: Task = rmp_serde::from_slice(&b).unwrap();
        assert_eq!((t.gpu_memory, t.gpu_number, t.node), (2000, 3, -1));
    }
}
