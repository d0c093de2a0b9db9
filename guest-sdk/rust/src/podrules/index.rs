//! The pods counted on the session's nodes, by label and by the terms that
//! may select other pods, and the log of the session's changes to them.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use super::domains::KeyDomains;
use super::sources::TermIndex;
use super::spread::KeysEligibility;
use crate::view::{Handle, PodAffinity, PodAffinityTerm, Task, View, WeightedPodAffinityTerm};

/// What the rules read of a session: the pods counted on nodes, filed by
/// label and by the terms with which they may select other pods, and the
/// topology domains of the nodes. Pods placed and removed during the
/// session are logged, so that template states can catch up.
///
/// A pod is a task of the view or one of a node's `others`, read from the
/// view by the states; a task placed again is a new pod, since log entries
/// need the node of the old one.
#[derive(Debug, Default)]
pub struct Index {
    node_count: usize,
    pods: Vec<Pod>,
    /// The counted pod of each task handle.
    by_task: Vec<Option<PodId>>,
    pub(crate) log: Vec<(PodId, i64)>,
    pub(crate) all: PodSet,
    pub(crate) by_label: HashMap<u64, PodSet, IdHash>,
    /// Pods by their required anti-affinity terms (the filter reads them).
    pub(crate) required_anti: TermIndex,
    /// Pods by the terms the affinity score reads.
    pub(crate) scoring: TermIndex,
    /// Each topology key's domains, numbered once per session on first use
    /// (domains_of); behind a cell because hooks that only read the plugin
    /// (node-local classes) number them too.
    pub(crate) domains: RefCell<HashMap<String, Rc<KeyDomains>>>,
    /// The spread filters' nodes and domains per list of keys
    /// (eligible_for).
    pub(crate) eligible: RefCell<HashMap<String, Rc<KeysEligibility>>>,
}

pub(crate) type PodId = u32;

/// Integer keys (pod ids, label digests) need no SipHash: a multiply
/// spreads them.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub(crate) type IdHash = BuildHasherDefault<IdHasher>;
pub(crate) type PodSet = HashSet<PodId, IdHash>;

/// A counted pod: whose it is and the node it was counted on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pod {
    owner: Owner,
    pub(crate) node: usize,
}

#[derive(Clone, Copy, Debug)]
enum Owner {
    Task(usize),
    /// A node's `others[i]`.
    Other(usize, usize),
}

/// A counted pod's fields, as the rules read them. Terms that do not parse
/// are left out of the view, as kube-scheduler's NodeInfo leaves them out
/// of pods already on nodes.
pub(crate) struct PodFields<'v> {
    pub(crate) namespace: &'v str,
    pub(crate) labels: &'v BTreeMap<String, String>,
    pub(crate) terminating: bool,
    pub(crate) affinity: Option<&'v PodAffinity>,
    pub(crate) anti: Option<&'v PodAffinity>,
}

impl Pod {
    pub(crate) fn fields<'v>(&self, v: &'v View) -> PodFields<'v> {
        match self.owner {
            Owner::Task(t) => task_fields(&v.tasks[t]),
            Owner::Other(n, i) => {
                let o = &v.nodes[n].others[i];
                PodFields {
                    namespace: &o.namespace,
                    labels: &o.labels,
                    terminating: o.terminating,
                    affinity: o.pod_affinity.as_ref(),
                    anti: o.pod_anti_affinity.as_ref(),
                }
            }
        }
    }
}

fn task_fields(t: &Task) -> PodFields<'_> {
    PodFields {
        namespace: &t.namespace,
        labels: &t.labels,
        terminating: t.terminating,
        affinity: t.pod_affinity.as_ref(),
        anti: t.pod_anti_affinity.as_ref(),
    }
}

pub(crate) fn required(a: Option<&PodAffinity>) -> &[PodAffinityTerm] {
    a.map_or(&[], |a| &a.required)
}

pub(crate) fn preferred(a: Option<&PodAffinity>) -> &[WeightedPodAffinityTerm] {
    a.map_or(&[], |a| &a.preferred)
}

/// Digests one label, key and value: sets are filed by it, and two labels
/// of one digest sharing a set only make a state's first walk visit pods
/// its apply then ignores. The Go SDK's digest (FNV-1a).
pub(crate) fn hash_label(key: &str, value: &str) -> u64 {
    const OFFSET: u64 = 14_695_981_039_346_656_037;
    const PRIME: u64 = 1_099_511_628_211;
    let mut h = OFFSET;
    for &b in key.as_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(PRIME);
    }
    h = (h ^ 0xff).wrapping_mul(PRIME); // no label key holds 0xff: key and value stay apart
    for &b in value.as_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(PRIME);
    }
    h
}

/// A state that counts (delta 1) or uncounts (-1) a pod; the index numbers
/// the topology domains it counts in.
pub(crate) trait Applier {
    fn apply(&mut self, idx: &Index, v: &View, pod: &Pod, delta: i64);
}

impl Index {
    /// Counts the pods on the view's nodes.
    pub fn new(v: &View) -> Index {
        let mut idx = Index { node_count: v.nodes.len(), by_task: vec![None; v.tasks.len()], ..Index::default() };
        for (n, node) in v.nodes.iter().enumerate() {
            for i in 0..node.others.len() {
                let pod = Pod { owner: Owner::Other(n, i), node: n };
                let fields = pod.fields(v);
                idx.remember(pod, &fields);
            }
        }
        for (i, t) in v.tasks.iter().enumerate() {
            if let Some(node) = idx.node_of(t.node) {
                idx.by_task[i] = Some(idx.remember(Pod { owner: Owner::Task(i), node }, &task_fields(t)));
            }
        }
        idx
    }

    fn node_of(&self, h: Handle) -> Option<usize> {
        usize::try_from(h).ok().filter(|&n| n < self.node_count)
    }

    /// Counts a task placed (or placed again) on its node.
    pub fn add(&mut self, t: &Task) {
        let h = match usize::try_from(t.handle) {
            Ok(h) if h < self.by_task.len() && self.by_task[h].is_none() => h,
            _ => return,
        };
        let node = match self.node_of(t.node) {
            Some(n) => n,
            None => return,
        };
        let id = self.remember(Pod { owner: Owner::Task(h), node }, &task_fields(t));
        self.by_task[h] = Some(id);
        self.log.push((id, 1));
    }

    /// Stops counting a task, wherever it was counted.
    pub fn remove(&mut self, t: &Task) {
        let id = match usize::try_from(t.handle).ok().and_then(|h| self.by_task.get_mut(h)).and_then(Option::take) {
            Some(id) => id,
            None => return,
        };
        self.forget(id, &task_fields(t));
        self.log.push((id, -1));
    }

    fn remember(&mut self, pod: Pod, f: &PodFields<'_>) -> PodId {
        let id = self.pods.len() as PodId;
        self.pods.push(pod);
        self.all.insert(id);
        for (k, v) in f.labels {
            self.by_label.entry(hash_label(k, v)).or_default().insert(id);
        }
        self.required_anti.add(id, required(f.anti), &[], &[]);
        self.scoring.add(id, required(f.affinity), preferred(f.affinity), preferred(f.anti));
        id
    }

    fn forget(&mut self, id: PodId, f: &PodFields<'_>) {
        self.all.remove(&id);
        for (k, v) in f.labels {
            if let Some(set) = self.by_label.get_mut(&hash_label(k, v)) {
                set.remove(&id);
            }
        }
        self.required_anti.remove(id, required(f.anti), &[], &[]);
        self.scoring.remove(id, required(f.affinity), preferred(f.affinity), preferred(f.anti));
    }

    pub(crate) fn pod(&self, id: PodId) -> &Pod {
        &self.pods[id as usize]
    }

    /// Applies every pod counted now that is in any of the sets (every pod
    /// for `None`; see sources), once each, and returns the log position a
    /// state has then seen.
    pub(crate) fn start(&self, v: &View, sets: Option<&[&PodSet]>, a: &mut dyn Applier) -> usize {
        match sets {
            None => {
                for &id in &self.all {
                    a.apply(self, v, self.pod(id), 1);
                }
            }
            Some(sets) => {
                for (i, set) in sets.iter().enumerate() {
                    for &id in set.iter() {
                        if !sets[..i].iter().any(|earlier| earlier.contains(&id)) {
                            a.apply(self, v, self.pod(id), 1);
                        }
                    }
                }
            }
        }
        self.log.len()
    }

    /// Applies the log entries from `seen` on and returns the new position.
    pub(crate) fn catch_up(&self, v: &View, seen: usize, a: &mut dyn Applier) -> usize {
        for &(id, delta) in &self.log[seen..] {
            a.apply(self, v, self.pod(id), delta);
        }
        self.log.len()
    }
}
